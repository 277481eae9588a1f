# SPDX-License-Identifier: Apache-2.0
"""Commit (E2) and L: a decision becomes the table write, the T-level, the LRU command, the
response, the statistics and the occupancy."""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import STAT_NAMES, check_params, config_layout, response_layout
from ..lru import LruCmd
from ..tlevel import TLevel
from .interfaces import ForwardSignature, decision_layout
from .outcome import outcome

__all__ = ["Commit"]


class Commit(wiring.Component):
    """E2 (the decision registered, or with ``registered=False`` the evaluation's own
    cycle) and L (the response and statistics registered).

    Parameters
    ----------
    params : regmap.Params
    registered : bool
        ``True`` (the split evaluation): E2 registers ``decision`` first. ``False`` (the
        compact pipeline): E decides and commits in one cycle.
    protected : bool
        The soft-error recovery's poison (docs/spec-decisions.md D11; needs
        ``registered``): the ``poison`` and ``forward_ahead`` ports.

    Ports
    -----
    decision : In(decision_layout(params))
        The evaluation's decision for the request entering E2 (``registered``) or in E.
    cfg : In(config_layout(params))
        The thresholds of the T-level.
    flush : In(1)
        Clears the occupancy (only while idle, so with nothing in L).
    poison : In(1)
        Only with ``protected``: the decision entering E2 at the end of this cycle is an
        untracked line with no effect (no match, no free lane, no victim, no tail, no
        write). E2 registers the decision as it is and the poison beside it
        (``e2_poisoned``), and clears those fields behind its registers, so that the
        poison (the registered checks' OR) is not on the registers' reset inputs.
    e2 : Out(decision_layout(params))
        The decision in E2 (``decision`` registered, or ``decision`` itself; with
        ``protected`` the poisoned fields cleared).
    forward : Out(ForwardSignature(params))
        E2's table write and invalidate, straight from ``e2`` (not behind the op decode):
        they feed the table and (without ``protected``) the forwards of the stages behind.
    forward_ahead : Out(ForwardSignature(params))
        Only with ``protected``: ``forward`` from E2's registers before the poison, for the
        forwards into the stages behind (E1a, E1b). Every request behind a poisoned one
        is poisoned too (``Recovery.active`` is high from the cycle after the poison's and
        holds the admission until the core is idle), so what they see of E2's write has
        no effect; the table takes ``forward``.
    lru_cmd : Out(LruCmd), lru_slot : Out(SLOT_WIDTH)
        E2's LRU command: TOUCH for a hit or a replacement, INSERT into a free slot, POP
        for an EVICT that takes the tail; and its slot, for every command (the slot an
        OBSERVE writes, the tail an EVICT reads): a 2:1 multiplexer of decision registers
        by the op's register, not behind the command's decode, so that the LRU list's
        read address is one LUT from registers.
    response : Out(stream.Signature(response_layout(params), always_ready=True))
        L: the response of the request that was in E2 (registered); the credits make sure
        the response FIFO has room.
    stat_inc : Out(len(STAT_NAMES))
        L: bit ``i`` increments statistic ``STAT_NAMES[i]`` (registered with the response).
    occupancy : Out(SLOT_WIDTH + 1)
        Tracked lines: E2's insert or eviction is registered (``occupancy_inc`` /
        ``occupancy_dec``) and counted in L, with its statistics, so that E2's op decode
        and the counter's carry chain are in different cycles.
    occupancy_inc, occupancy_dec : Out(1)
        The insert / eviction of the request now in L, counted at the end of this cycle.
    busy : Out(1)
        A request is in E2 (``registered``) or in L.
    """

    #: The decision fields a poisoned decision clears (D11: an untracked line).
    POISONED_FIELDS = ("present", "any_free", "vict_t0", "take", "wr_lane", "wr", "inv")

    def __init__(self, params, *, registered, protected=False):
        self._params = params = check_params(params)
        for name, value in (("registered", registered), ("protected", protected)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        self.registered = registered
        self.protected = protected
        if self.protected and not self.registered:
            raise ValueError("Commit(protected=True) needs registered=True")
        p = params
        super().__init__({
            **({"poison": In(1), "forward_ahead": Out(ForwardSignature(p))}
               if self.protected else {}),
            "decision": In(decision_layout(p)),
            "cfg": In(config_layout(p)),
            "flush": In(1),
            "e2": Out(decision_layout(p)),
            "forward": Out(ForwardSignature(p)),
            "lru_cmd": Out(LruCmd),
            "lru_slot": Out(p.SLOT_WIDTH),
            "response": Out(stream.Signature(response_layout(p), always_ready=True)),
            "stat_inc": Out(len(STAT_NAMES)),
            "occupancy": Out(p.SLOT_WIDTH + 1),
            "occupancy_inc": Out(1),
            "occupancy_dec": Out(1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.tl_before = tl_before = TLevel(self._params)
        d2 = self._register_decision(m)
        levels = self._tlevels(m, d2, tl_before)
        # The LRU command's slot (op[1]: EVICT / EVICT_ANY, whose window is at the tail).
        m.d.comb += self.lru_slot.eq(Mux(d2.op[1], d2.tail_slot, d2.wr_slot))
        rsp, stats, inserts, evicts = outcome(m, self._params, d2, *levels,
                                              forward=self.forward, lru_cmd=self.lru_cmd)
        # L: the response and the statistics registered; the occupancy counts the insert /
        # eviction registered with them.
        m.d.sync += [
            self.response.valid.eq(d2.valid), self.response.payload.eq(rsp),
            self.stat_inc.eq(stats.stat_inc()),
            self.occupancy_inc.eq(inserts), self.occupancy_dec.eq(evicts),
        ]
        with m.If(self.flush):
            m.d.sync += self.occupancy.eq(0)
        with m.Else():
            m.d.sync += self.occupancy.eq(self.occupancy + self.occupancy_inc
                                          - self.occupancy_dec)
        return m

    def _register_decision(self, m):
        """``e2`` (registered, the poison applied behind the register; or the evaluation's
        own), ``busy``, and the write and invalidate forwarded from ``e2``."""
        p, d2 = self._params, self.e2
        if self.protected:
            # The decision and its poison registered side by side; the poison clears the
            # fields behind the registers (a LUT input of their users), not through
            # their reset inputs.
            raw = Signal(decision_layout(p), name="e2_raw")
            poisoned = Signal(name="e2_poisoned")
            m.d.sync += [raw.eq(self.decision), poisoned.eq(self.poison)]
            m.d.comb += d2.eq(raw)
            m.d.comb += [getattr(d2, f).eq(Mux(poisoned, 0, getattr(raw, f)))
                         for f in self.POISONED_FIELDS]
            m.d.comb += self.busy.eq(d2.valid | self.response.valid)
        elif self.registered:
            m.d.sync += d2.eq(self.decision)
            m.d.comb += self.busy.eq(d2.valid | self.response.valid)
        else:
            m.d.comb += [d2.eq(self.decision), self.busy.eq(self.response.valid)]

        # The write and the invalidate, from decision registers (the count after an
        # OBSERVE that tracks the line: 1 for a new or cold line, min(count + 1, COUNT_MAX)
        # otherwise, decided in the evaluation).
        def forward(fwd, d):
            return [
                fwd.write.eq(d.wr), fwd.lane.eq(d.wr_lane), fwd.slot.eq(d.wr_slot),
                fwd.tag.eq(d.tag), fwd.last.eq(d.t), fwd.count.eq(d.cnt_after),
                fwd.count_inc.eq(d.cnt_after_inc), fwd.mark.eq(d.wr_mark),
                fwd.invalidate.eq(d.inv), fwd.window.eq(d.tail_slot),
            ]
        m.d.comb += forward(self.forward, d2)
        if self.protected:
            m.d.comb += forward(self.forward_ahead, raw)
        return d2

    def _tlevels(self, m, d2, tl_before):
        """The T-level after an OBSERVE that tracks the line (age 0: 3 if count_after >=
        C3, else 2 if count_after >= C2, else 1), the T-level before (of the line as found,
        ``tl_before``), the hit (``min_tlevel`` met) and "level before >= k", k = 0..3."""
        cfg = self.cfg
        count_after = d2.cnt_after
        level_after = Signal(2)
        m.d.comb += level_after.eq(Mux(count_after >= cfg.c3, 3,
                                       Mux(count_after >= cfg.c2, 2, 1)))
        # The T-level before as "level >= k" (``TLevel.at_least``, 0 for an untracked
        # line), so that the hit, the level and its statistics are each a small function
        # of five comparisons and registers, not behind the level's encoding and a
        # comparison with it.
        m.d.comb += [
            tl_before.cfg.eq(cfg), tl_before.count.eq(d2.hit_cnt), tl_before.age.eq(d2.hit_age),
        ]
        ge = [C(1, 1)] + [Signal(name=f"level_ge{k}") for k in (1, 2, 3)]
        m.d.comb += [ge[k].eq(d2.present & tl_before.at_least[k - 1]) for k in (1, 2, 3)]
        level_before = Signal(2)
        m.d.comb += level_before.eq(Mux(d2.present, tl_before.level, 0))
        level_hit = Signal()
        mt = d2.min_tlevel
        m.d.comb += level_hit.eq(Mux(mt[1], Mux(mt[0], ge[3], ge[2]), Mux(mt[0], ge[1], 1)))
        return level_after, level_before, level_hit, ge

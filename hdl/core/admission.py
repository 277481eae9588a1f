# SPDX-License-Identifier: Apache-2.0
"""Admission: which request the core takes in a cycle (and, in the non-blocking mode, which
it drops), the table generation and the clear sweep."""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import request_layout
from ..table import GEN_WIDTH
from .interfaces import stage_layout

__all__ = ["Admission"]

OBSERVE = regmap.OPS["OBSERVE"]


class Admission(wiring.Component):
    """Accepts requests into the pipeline (stage s0) as credits, the EVICT gaps and the
    clear sweep allow, and keeps the table generation (docs/spec-decisions.md D12).

    A flush, and a reset, untrack every line by starting a new table generation in one
    cycle; only when every generation since the last sweep has been used does it run the
    clear sweep instead (``flushing``), which ends with the count of used generations at
    0. The generation, that count and the sweep are state of the table's block RAM rather
    than of the pipeline: they have no reset (their power-up values are generation 0,
    count 0, no sweep, for a block RAM that is all zero), and a reset counts as one flush
    (once, however many cycles ``rst`` is high; nothing while a sweep runs, which untracks
    everything anyway). A sweep holds at row 0 while ``rst`` is high, so that after any
    reset that sweeps ``ready`` rises in cycle ``ENTRIES / PROBE``.

    Non-blocking mode (``nonblocking``, docs/spec-decisions.md D13): ``req.ready`` is 1 and a
    request presented in a cycle in which the blocking block's ``ready`` would be low (the
    reasons above, unchanged) is dropped: it does not enter s0, uses no credit, opens no
    EVICT gap, and pulses ``dropped``.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``serial``: one request in flight at most.
    fifo_depth : int
        Responses the response FIFO holds: the credits.
    evict_gap : int
        An EVICT / EVICT_ANY is refused while an OBSERVE accepted in one of the
        ``evict_gap`` previous cycles could still move the LRU tail or a slot of the LRU
        list's chain (the EVICT reads the table in R at the tail the POPs in flight leave,
        which shows E2's TOUCH / INSERT ``tail_lag`` cycles later). A QUERY gives no LRU
        command. Nothing else waits for an EVICT: the request right behind one is accepted
        in the next cycle (E1b forwards the invalidate as it forwards a write).
    evict_evict_gap : int or None
        An EVICT / EVICT_ANY is refused while an EVICT / EVICT_ANY was accepted in one of
        the ``evict_evict_gap`` previous cycles (``None``: ``evict_gap``): behind EVICTs
        only, the LRU list's chain gives the tail their POPs leave, once each of them has
        decided whether it pops (E2, a register, by the later EVICT's R).

    Ports
    -----
    req : In(stream.Signature(request_layout(params)))
        The core's requests (see ``KvAsuCore``).
    enable, hold, flush : In(1)
        The register block's controls (see ``KvAsuCore``).
    nonblocking : In(1)
        The committed ``MODE.NONBLOCKING``.
    dropped : Out(1)
        A request is dropped this cycle (``req.valid`` high, taken not, ``nonblocking``).
    cycle : In(64)
        The cycle counter; an accepted request's time is ``cycle >> TICK_SHIFT``.
    pop : In(1)
        A response leaves the response FIFO this cycle (a credit returns).
    busy : In(1)
        A request is in a stage after s0 (the hash's delay line up to L).
    evict_alone : In(1)
        Only with ``options.predictor``: while high (``POLICY.MODE = 1``) the mode's
        admission rule: an EVICT / EVICT_ANY is accepted only when no request is in flight
        (``busy`` low and s0 empty), and nothing is accepted behind it until then (its list
        move, the ghost frees after it); OBSERVE and QUERY take no other rule.
    s0 : Out(stage_layout(params))
        The request accepted in the previous cycle (a register; ``valid`` low if none).
    flushing : Out(1)
        The clear sweep runs: from the cycle after a ``flush`` (or a reset) that finds
        every generation used, one table row per cycle for ``ENTRIES / PROBE`` cycles; no
        request is accepted meanwhile.
    generation : Out(gen_width)
        The current table generation (``BucketTable.generation``): moves on at the end of
        a ``flush`` cycle or a reset cycle that does not start the sweep.
    generations_used : Out(range(2**gen_width))
        Generations started since the last sweep ended: a slot whose valid bit is set holds
        one of the last ``generations_used + 1`` generations.
    sweep_row : Out(range(ENTRIES // PROBE))
        The row the sweep clears this cycle.
    idle : Out(1)
        A register: high when the pipeline was empty and accepted nothing in the previous
        cycle, so it is empty now (a stage is only ever filled from the one before it or by
        an acceptance). One cycle late, never early: it feeds the register block's CTRL
        sequencing, which clears every statistic.
    inflight : Out(range(fifo_depth + 1))
        Requests accepted whose response has not left the FIFO (the credits used).
    """

    def __init__(self, params, options, *, fifo_depth, evict_gap, evict_evict_gap=None,
                 gen_width=GEN_WIDTH):
        self._params, self._options = params, options
        self.fifo_depth, self.evict_gap = fifo_depth, evict_gap
        self.evict_evict_gap = evict_gap if evict_evict_gap is None else evict_evict_gap
        if not 1 <= self.evict_evict_gap <= evict_gap:
            raise ValueError(f"evict_evict_gap must be 1 .. evict_gap ({evict_gap}), not "
                             f"{self.evict_evict_gap!r}")
        self.gen_width = gen_width
        self.rows = params.ENTRIES // params.PROBE
        super().__init__({
            "req": In(stream.Signature(request_layout(params))),
            "enable": In(1), "hold": In(1), "flush": In(1), "nonblocking": In(1),
            "dropped": Out(1),
            "cycle": In(64),
            "pop": In(1),
            "busy": In(1),
            **({"evict_alone": In(1)} if options.predictor else {}),
            "s0": Out(stage_layout(params)),
            "flushing": Out(1),
            "sweep_row": Out(range(self.rows)),
            "generation": Out(gen_width),
            "generations_used": Out(range(2 ** gen_width)),
            "idle": Out(1, init=1),
            "inflight": Out(range(fifo_depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params

        accept = Signal()
        can_take = Signal()     # the blocking block's ready
        m.d.comb += accept.eq(self.req.valid & can_take)
        m.d.sync += self.inflight.eq(self.inflight + accept - self.pop)

        # The table generation and the clear sweep: no reset (see the class docstring).
        generation = Signal(self.gen_width, reset_less=True)
        used = Signal(range(2 ** self.gen_width), reset_less=True)
        sweeping = Signal(reset_less=True)
        sweep_row = Signal(range(self.rows), reset_less=True)
        rst = ResetSignal()
        rst_q = Signal(reset_less=True)
        m.d.sync += rst_q.eq(rst)
        untrack = Signal()           # a flush, or the first cycle of a reset
        m.d.comb += [
            untrack.eq(Mux(rst, ~rst_q, self.flush)),
            self.generation.eq(generation), self.generations_used.eq(used),
            self.flushing.eq(sweeping), self.sweep_row.eq(sweep_row),
        ]
        with m.If(sweeping):
            with m.If(rst):
                m.d.sync += sweep_row.eq(0)     # starts (again) at cycle 0 after reset
            with m.Else():
                m.d.sync += sweep_row.eq(sweep_row + 1)
                with m.If(sweep_row == self.rows - 1):
                    m.d.sync += [sweeping.eq(0), sweep_row.eq(0), used.eq(0)]
        with m.Elif(untrack):
            with m.If(used == 2 ** self.gen_width - 1):
                m.d.sync += [sweeping.eq(1), sweep_row.eq(0)]   # every generation used
            with m.Else():
                m.d.sync += [generation.eq(generation + 1), used.eq(used + 1)]

        busy = self.s0.valid | self.busy
        m.d.sync += self.idle.eq(~busy & ~accept)

        # The EVICT gap: the OBSERVEs of the evict_gap previous cycles (a TOUCH / INSERT
        # may move the tail or a chain slot) and the EVICTs of the evict_evict_gap
        # previous cycles (whose POP, or none, is not yet decided in a register).
        op = self.req.payload.op
        recent_observe = Signal(self.evict_gap)        # bit k: accepted k + 1 cycles ago
        recent_evict = Signal(self.evict_evict_gap)
        m.d.sync += [
            recent_observe.eq(Cat(accept & (op == OBSERVE), recent_observe[:-1])),
            recent_evict.eq(Cat(accept & op[1], recent_evict[:-1])),
        ]

        ready = (self.enable & ~self.hold & ~self.flush & ~self.flushing
                 & (self.inflight < self.fifo_depth))
        if self._options.serial:
            ready = ready & ~busy
        else:
            is_evict = self.req.payload.op[1]
            ready = ready & ~(is_evict & (recent_observe.any() | recent_evict.any()))
            if self._options.predictor:
                ready = ready & ~(self.evict_alone & self._predictor_wait(m, accept, busy))
        m.d.comb += [
            can_take.eq(ready),
            self.req.ready.eq(ready | self.nonblocking),
            self.dropped.eq(self.req.valid & ~ready & self.nonblocking),
        ]

        # s0: register the request.
        addr = self.req.payload.addr
        m.d.sync += [
            self.s0.valid.eq(accept),
            self.s0.op.eq(self.req.payload.op),
            self.s0.min_tlevel.eq(self.req.payload.min_tlevel),
            self.s0.tag.eq(addr[p.LINE_SHIFT:][:p.TAG_WIDTH]),
            self.s0.t.eq(self.cycle[p.TICK_SHIFT:][:p.TS_WIDTH]),
        ]
        return m

    def _predictor_wait(self, m, accept, busy):
        """The mode's admission rule (``evict_alone``): high while the request presented
        must wait. An EVICT reads the list's tail in R and frees ghosts after its L, and
        nothing of that is forwarded: it waits for an empty pipeline, and what comes behind
        it waits until the pipeline is empty again."""
        is_evict = self.req.payload.op[1]
        behind_evict = Signal()     # an EVICT accepted since the pipeline was last empty
        with m.If(accept & is_evict):
            m.d.sync += behind_evict.eq(1)
        with m.Elif(~busy):
            m.d.sync += behind_evict.eq(0)
        return busy & (behind_evict | is_evict)

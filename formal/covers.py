# SPDX-License-Identifier: Apache-2.0
"""Property 7: every outcome is reachable (SBY ``cover`` mode), and the environments of the
proofs are not vacuous.

Core (``CoreCovers``, free environment of ``CoreHarness``), each from a response taken by
the consumer or a statistics strobe of the core (the flush of a non-empty table, a full
table and exhausted credits from the core's own state):
insert, observe hit, replacement (with ``victim_valid``), drop, QUERY hit, QUERY miss,
EVICT that removes a line, EVICT that finds nothing on a non-empty list (tail not T0),
EVICT on an empty list, EVICT_ANY that removes, an OBSERVE whose line was T3, a flush of a
non-empty table, a full table (``occupancy == ENTRIES``), exhausted credits
(``inflight == fifo depth``: every credit in use, so ``req.ready`` would be low).

The environments of P5's proofs (formal/stream_props.py), each on the proof's harness
class with its assumptions, the statements replaced by the goals:

* ``FixedLatencyCovers`` (``FixedLatency``: consumer always ready, ``enable`` high, no
  ``hold``, no flush): an EVICT accepted, an EVICT refused (outside the clear sweep), a
  response to an EVICT with a victim, two lines tracked;
* ``DrainCovers`` (``Drain``: ``enable`` high, no ``hold``, no flush, ``rsp.ready``
  free): back-pressure with a response waiting, ``req.ready`` low outside the clear
  sweep with every credit in use.

Register block (``RegCovers``, environment of ``AxilHarness``): a commit accepted that
changes the configuration, a commit refused (``STATUS.ERROR`` rises), ``SLVERR`` for a
write to a read-only word, ``DECERR`` for a write and for a read, a flush pulse, a
statistics clear pulse and a soft-error clear pulse from a CTRL write, a read answered
``OKAY``; in the predictor build's block (``predictor=True``, the environment of
``axil_prove_predictor``) also a commit that changes ``POLICY.MODE``, with its flush.

The predictor mode's components, each on the harness of its proof with that proof's
assumptions (formal/predictor_props.py; the statements replaced by the goals):

* ``ShadowCovers`` (``ShadowWellFormed``): a hit, a hit behind the MRU end (a move), a
  full directory, a miss that inserts into it (an eviction), a miss with two drops (the
  bound below the length), a flush of a non-empty directory; in a bimodal directory an
  insertion at the LRU end of a non-empty directory and one at the MRU end (the counter's
  wrap, after 31 misses); with two stages an access whose match the access ahead's update
  moved, one whose signature the access ahead inserted, and one whose match the access
  ahead's drop took off (a miss: ``held_s2``'s correction, which
  ``mutant_shadow_before_last`` breaks).
* ``CounterCovers`` (``SaturatingCounters``): every ``PT`` and ``PA`` counter at 0 and at
  15, a flush of a trained counter, each ``PSEL`` step up (+4, +2, +1) and down (-32, -16,
  -8) taken without saturating and one down step saturating at 0, ``GSEL`` at 0 and at 63
  and the ghost rule on, ``epoch`` wrapping from 7 to 0.
* ``ListsCovers`` (``ListsWellFormed``), each move at its end update (C3; three-stage: C2)
  with the ends it finds: a touch of the head, of the tail and of a middle slot, an
  insertion at the head and at the tail of a non-empty list and into an empty one, a live
  slot moved to the tail, a ghost revived at the head and at the tail and a ghost taken
  from the middle of its list, an eviction of the tail to the ghost head of a non-empty
  ghost list, the free of the ghost tail with a ghost behind it, a move with the one behind
  it of the same slot (the forwarding), both lists non-empty, ``gcount`` at ``ENTRIES``,
  the ``gtail2`` prefetch valid with two ghosts or more, a flush of non-empty lists.
* ``PredictorCoreCovers`` (``PredictorCoreLists``, free or ``steady``): the core gives its
  lists an insertion, a touch and an eviction to the ghost head, and settled states (where
  the properties are claimed) with one and with two live lines.
"""

from amaranth import *
from amaranth.hdl import Cover

import regmap
from hdl.axil import AxiResp
from hdl.layouts import STAT_NAMES
from hdl.predictor import ListFrom, ListTo

from .axil_props import AxilHarness
from .common import popcount
from .core_harness import CoreHarness
from .predictor_core_props import PredictorCoreLists
from .predictor_props import ListsWellFormed, SaturatingCounters, ShadowWellFormed
from .stream_props import Drain, FixedLatency

__all__ = ["CoreCovers", "FixedLatencyCovers", "DrainCovers", "RegCovers", "ShadowCovers", "CounterCovers", "ListsCovers",
           "PredictorCoreCovers"]


def cover_goals(m, goals):
    """One ``Cover`` per goal, on a signal ``cover_<goal>`` (the runner reads them from the
    traces)."""
    for name, cond in goals.items():
        c = Signal(name=f"cover_{name}")
        m.d.comb += [c.eq(cond), Cover(c)]


OBSERVE, QUERY, EVICT, EVICT_ANY = (regmap.OPS[n] for n in
                                    ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY"))


class CoreCovers(CoreHarness):
    def properties(self, m):
        p = self.params
        core = self.core
        rsp = core.rsp.payload
        took = self.pop

        def stat(name):
            return core.stat_inc[STAT_NAMES.index(name)]

        goals = {
            "insert": stat("inserts"),
            "observe_hit": stat("observe_hits"),
            "replacement": took & (rsp.op == OBSERVE) & rsp.victim_valid & rsp.tracked,
            "drop": stat("drops"),
            "query_hit": took & (rsp.op == QUERY) & rsp.present & rsp.hit,
            "query_miss": took & (rsp.op == QUERY) & ~rsp.present,
            "evict_removes": took & (rsp.op == EVICT) & rsp.victim_valid,
            "evict_nothing_nonempty": stat("evicts_empty") & (self.occupancy != 0),
            "evict_nothing_empty": stat("evicts_empty") & (self.occupancy == 0),
            "evict_any_removes": took & (rsp.op == EVICT_ANY) & rsp.victim_valid,
            "observe_t3": stat("obs_t3"),
            "flush_nonempty": self.flush & (self.occupancy != 0),
            "table_full": self.occupancy == p.ENTRIES,
            "credits_exhausted": self.inflight == core.fifo_depth,
        }
        self.goals = goals
        for name, cond in goals.items():
            c = Signal(name=f"cover_{name}")
            m.d.comb += c.eq(cond)
            m.d.comb += Cover(c)


class FixedLatencyCovers(FixedLatency):
    """``latency_prove``'s environment is not vacuous: its goals (module docstring)."""

    def properties(self, m):
        core, rsp = self.core, self.core.rsp.payload
        op = self.req_payload.op
        cover_goals(m, {
            "evict_accepted": self.accept & (op == EVICT),
            "evict_refused": core.req.valid & ~core.req.ready & (op == EVICT) & ~core.flushing,
            "evict_response_victim": self.pop & (rsp.op == EVICT) & rsp.victim_valid,
            "two_lines": self.occupancy == 2,
        })


class DrainCovers(Drain):
    """``drain_prove``'s environment is not vacuous: its goals (module docstring)."""

    def properties(self, m):
        self.environment(m)
        core = self.core
        cover_goals(m, {
            "backpressure_waiting": ~self.rsp_ready & (self.fifo_level != 0),
            "not_ready_no_credit": ~core.req.ready & ~core.flushing &
                                   (self.inflight == core.fifo_depth),
        })


class RegCovers(AxilHarness):
    def properties(self, m):
        bus, regs = self.bus, self.regs
        error = regs.observe.error
        error_prev = Signal()
        cfg_prev = Signal.like(regs.cfg)
        m.d.sync += [error_prev.eq(error), cfg_prev.eq(regs.cfg)]
        goals = {
            "commit_accepted": regs.cfg.as_value() != cfg_prev.as_value(),
            "commit_refused": error & ~error_prev,
            "slverr_ro_write": self.b_hs & (bus.bresp == AxiResp.SLVERR) & ~error,
            "decerr_write": self.b_hs & (bus.bresp == AxiResp.DECERR),
            "decerr_read": self.r_hs & (bus.rresp == AxiResp.DECERR),
            "okay_read": self.r_hs & (bus.rresp == AxiResp.OKAY),
            "flush_from_ctrl": regs.flush,
            "clear_stats_from_ctrl": regs.observe.clear_stats,
            "clear_soft_error_from_ctrl": regs.observe.clear_soft_error,
        }
        if self.predictor:
            policy_prev = Signal(reset_less=True)
            m.d.sync += policy_prev.eq(regs.policy)
            goals["policy_changes"] = ~ResetSignal() & (regs.policy != policy_prev)
        self.goals = goals
        cover_goals(m, goals)


class ShadowCovers(ShadowWellFormed):
    def properties(self, m):
        d, dut = self.depth, self.dut
        obs = dut.observe
        valid, length = obs.valid, obs.length
        # The places holding the signature whose hit is reported now, in the state the
        # update reads (one-hot or none).
        held = Cat(valid[e] & (obs.sig[e] == self.sig_hit) for e in range(d))
        miss = self.valid_hit & ~dut.hit
        cap = Mux(self.cap_hit == 0, 1, self.cap_hit)
        goals = {
            "hit": dut.hit,
            "hit_moves": dut.hit & held[1:].any(),
            "full": length == d,
            "evict": miss & (length == d),
            "two_drops": miss & (length > cap),
            "flush_nonempty": self.flush_in & (length != 0),
        }
        if self.bimodal:
            goals["insert_lru_end"] = miss & (dut.counter != 31) & (length != 0)
            goals["insert_mru_end"] = miss & (dut.counter == 31) & (length != 0)
        if self.stages == 2:
            # The access's match when it was looked up (S1), before the ahead's update.
            match_s1 = Cat(valid[e] & (obs.sig[e] == self.sig_in) for e in range(d))
            match_q, hit_q, valid_q = Signal(d), Signal(), Signal()
            sig_q = Signal.like(self.sig_hit)
            m.d.sync += [match_q.eq(match_s1), hit_q.eq(dut.hit), valid_q.eq(self.valid_hit),
                         sig_q.eq(self.sig_hit)]
            ahead = valid_q        # an access in the cycle before this one's lookup
            goals.update({
                "hit_moved_by_ahead": dut.hit & ahead & match_q.any() & (match_q != held),
                "hit_on_ahead_insert": dut.hit & ahead & ~hit_q & (sig_q == self.sig_hit),
                "match_dropped_by_ahead": miss & ahead & match_q.any(),
            })
        cover_goals(m, goals)


class CounterCovers(SaturatingCounters):
    def properties(self, m):
        pt, pa, loop, guard = self.pt, self.pa, self.loop, self.guard
        stepping = self.started & ~self.was_reset
        goals = {}
        for name, table in (("pt", pt), ("pa", pa)):
            for i in range(self.pt_entries):
                c = table.counters[i]
                goals[f"{name}{i}_at_0"] = c == 0
                goals[f"{name}{i}_at_15"] = c == 15
            goals[f"{name}_flush_trained"] = table.flush & Cat(
                table.counters[i] != 8 for i in range(self.pt_entries)).any()

        def prev(value, name):
            q = Signal(Value.cast(value).shape(), name=f"{name}_cq", reset_less=True)
            fq = Signal(name=f"{name}_flush_cq", reset_less=True)
            m.d.sync += [q.eq(value), fq.eq(loop.flush if name == "psel" else guard.flush)]
            return q, stepping & ~fq

        psel, (pq, pstep) = loop.psel, prev(loop.psel, "psel")
        for s in (4, 2, 1):
            goals[f"psel_up_{s}"] = pstep & (psel == pq + s)
            goals[f"psel_down_{8 * s}"] = pstep & (pq >= 8 * s) & (psel == pq - 8 * s)
        goals["psel_down_saturates"] = pstep & (pq != 0) & (pq < 8) & (psel == 0)
        gsel = guard.gsel
        goals.update({
            "gsel_at_0": gsel == 0,
            "gsel_at_63": gsel == 63,
            "rule_on": guard.rule_on,
        })
        epoch, (eq, estep) = guard.epoch, prev(guard.epoch, "epoch")
        goals["epoch_wraps"] = estep & (eq == 7) & (epoch == 0)
        cover_goals(m, goals)


class ListsCovers(ListsWellFormed):
    def properties(self, m):
        dut, p = self.dut, self.params
        cmd = dut.cmd
        # The moves given and in flight, newest first: [0] the one given now, [-1] the
        # one whose end update (C3; three-stage: C2) is now, with the ends before it.
        now = (cmd.valid, cmd.payload.slot, cmd.payload.frm.as_value(),
               cmd.payload.to.as_value())
        stages = [now]
        for k in range(1, dut.tail_lag):
            st = tuple(Signal.like(x, name=f"cv{k}_{f}") for x, f in
                       zip(now, ("valid", "slot", "frm", "to")))
            m.d.sync += [a.eq(b) for a, b in zip(st, stages[-1])]
            stages.append(st)
        valid, slot, frm, to = stages[-1]
        mv = valid & ~dut.flush
        live, ghost, none = (frm == ListFrom.LIVE), (frm == ListFrom.GHOST), (frm == ListFrom.NONE)
        head, tail, empty = dut.head, dut.tail, dut.empty
        ghead, gtail, gempty = dut.ghead, dut.gtail, dut.gempty
        to_head, to_tail = (to == ListTo.LIVE_HEAD), (to == ListTo.LIVE_TAIL)
        to_ghost, to_none = (to == ListTo.GHOST_HEAD), (to == ListTo.NONE)
        behind_valid, behind_slot = stages[-2][0], stages[-2][1]
        goals = {
            "touch_head": mv & live & to_head & (slot == head) & (head != tail),
            "touch_tail": mv & live & to_head & (slot == tail) & (slot != head),
            "touch_middle": mv & live & to_head & (slot != head) & (slot != tail),
            "insert_head": mv & none & to_head & ~empty,
            "insert_tail": mv & none & to_tail & ~empty,
            "insert_empty": mv & none & to_head & empty,
            "demote_to_tail": mv & live & to_tail & (slot != tail),
            "revive_head": mv & ghost & to_head & ~empty,
            "revive_tail": mv & ghost & to_tail & ~empty,
            "revive_middle_ghost": mv & ghost & ~to_ghost & ~to_none &
                                   (slot != ghead) & (slot != gtail),
            "evict_to_ghost_head": mv & live & to_ghost & (slot == tail) & (head != tail) &
                                   ~gempty,
            "free_ghost_tail": mv & ghost & to_none & (slot == gtail) & (ghead != gtail),
            "same_slot_back_to_back": mv & behind_valid & (behind_slot == slot),
            "both_nonempty": ~empty & ~gempty,
            "gcount_max": dut.gcount == p.ENTRIES,
            "gtail2_prefetch": dut.gtail2_valid & (dut.gcount >= 2),
            "flush_nonempty": dut.flush & ~(empty & gempty),
        }
        cover_goals(m, goals)


class PredictorCoreCovers(PredictorCoreLists):
    def properties(self, m):
        lists = self.lists
        cmd = lists.cmd
        frm, to = cmd.payload.frm.as_value(), cmd.payload.to.as_value()
        given = cmd.valid
        n_live = popcount(self.live)
        goals = {
            "move_insert": given & (frm == ListFrom.NONE) & (to == ListTo.LIVE_HEAD),
            "move_touch": given & (frm == ListFrom.LIVE) & (to == ListTo.LIVE_HEAD),
            "move_evict": given & (frm == ListFrom.LIVE) & (to == ListTo.GHOST_HEAD),
            "settled_live": self.settled & (n_live != 0),
            "settled_two_live": self.settled & (n_live >= 2),
        }
        cover_goals(m, goals)

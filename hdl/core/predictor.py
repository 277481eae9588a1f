# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's evaluation and commit (docs/spec-predictor.md, ``POLICY.MODE = 1``),
for a core built with ``CoreOptions.predictor``: the second policy beside the article's
``Versions`` / ``Commit``, on the same lanes, in the same E1b / E2 / L cycles, with the
mode's state (``hdl/predictor/``) and its two lists.

``PredictorCommit`` wires the mode's stages in the order a request meets them:
``GhostFrees`` (R: where an EVICT or FREE reads) -> ``PredictorLanes`` (E1b: the lanes,
``pmeta`` words, marks and keys registered) -> ``PredictorDecision`` (E2: what the request
does) -> the mode's state trained and the table, ``pmeta`` and list writes made (E2, here)
-> ``PredictorResponse`` (L). E2's write goes back in two places, both wired here: into the
request right behind at ``PredictorLanes``'s register (``ahead``) and into E1a
(``forward``); the requests after meet it through the table's bypass.
"""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import STAT_NAMES, check_params, config_layout, response_layout
from ..predictor.bimodal import BimodalCounter
from ..predictor.constants import ABSENT_KEY, SIG_WIDTH
from ..predictor.guard import Guard
from ..predictor.keys import ReuseLevel
from ..predictor.lists import ListFrom, ListTo, LiveGhostLists
from ..predictor.loop import LoopDetector
from ..predictor.reuse_table import ReuseTable
from .decision import sat_inc, select
from .interfaces import ForwardSignature, lanes_layout, pmeta_layout
from .predictor_decision import PredictorDecision
from .predictor_frees import GhostFrees
from .predictor_lanes import PredictorLanes
from .predictor_response import PredictorResponse

__all__ = ["PredictorCommit"]


class PredictorCommit(wiring.Component):
    """E1b, E2 and L of the predictor mode, with the ghost frees of P8 after an EVICT as
    FREEs in the pipeline (one request per cycle; docs/rtl-predictor.md, "The core with the
    mode").

    Parameters
    ----------
    params : regmap.Params
    memory : class
        The memory the lists' pointer banks are built from.

    Ports
    -----
    active : In(1)
        ``POLICY.MODE`` is 1: the mode's requests are this stage's (else it takes none;
        its state stays as the last flush left it).
    lanes : In(lanes_layout(params))
        The request in E1b and its lanes (``LaneCompare.lanes``, with this stage's E2
        write of two requests ahead forwarded into them through ``forward``; the write of
        the request right ahead, in E2 now, is put into them at E2's register).
    pmeta : In(ArrayLayout(pmeta_layout(), PROBE))
        The ``pmeta`` words of the E1b request's lanes, probe order.
    sig : In(16)
        The E1b request's signature: bits 31..16 of its hash (P11).
    free : In(1)
        The E1b request is a FREE (``Admission.s0_free``), not an EVICT_ANY.
    free_r : In(2)
        The request in R is the first (bit 0) or the second (bit 1) FREE after an EVICT.
    sc_mark_intent, sc_mark_value : In(PROBE)
        The scrubber's mark write of this cycle, by bank (as ``Versions`` takes them).
    cfg : In(config_layout(params))
        ``w3``, ``w1``.
    flush : In(1)
        Empty both lists, every state of the mode to its flush value (P9), occupancy 0.
    wr_en, wr_slot, wr_tag, wr_count, wr_last, wr_mark : Out
        E2's table write (an OBSERVE that tracks its line), as ``BucketTable``'s ports.
    forward : Out(ForwardSignature(params))
        The same write for ``LaneCompare`` (the request then in E1a; ``lane`` one-hot in
        this request's window, ``count_inc`` its count one more), or a FREE's invalidate
        (lane 0 of its window). An EVICT of the mode invalidates nothing: it writes its
        line's ``pmeta`` word (``ghost``), which reaches the requests behind through the
        table's bypass (two FREEs are between it and the first of them).
    pm_en, pm_slot, pm_data : Out
        E2's ``pmeta`` write: with the table write, or alone (an EVICT's ghost).
    inv_en, inv_slot : Out
        A FREE that is needed (P8): untrack the ghost it reads.
    evict_start : Out(SLOT_WIDTH)
        The window start of the EVICT or FREE in R (``GhostFrees``).
    response : Out(stream.Signature(response_layout(params), always_ready=True))
        L: the response of the request that was in E2.
    stat_inc : Out(len(STAT_NAMES))
        L: the statistics increments of that request (``req_dropped`` never).
    occupancy : Out(SLOT_WIDTH + 1)
        Live lines, counted in L.
    busy : Out(1)
        A request of the mode is in E2 or L, or a list move is in flight.

    Attributes
    ----------
    lists, reuse, guard, bip, loop : the mode's components (after construction).
    """

    def __init__(self, params, *, memory):
        self._params = p = check_params(params)
        P, sw = p.PROBE, p.SLOT_WIDTH
        self.lists = LiveGhostLists(p, registered=True, memory=memory)
        self.reuse = ReuseTable(what_ifs=p.PROBE)
        self.guard = Guard(p)
        self.bip = BimodalCounter()
        self.loop = LoopDetector(p, stages=2)
        width = pmeta_layout().size
        super().__init__({
            "active": In(1),
            "lanes": In(lanes_layout(p)),
            "pmeta": In(data.ArrayLayout(pmeta_layout(), P)),
            "sig": In(SIG_WIDTH),
            "free": In(1), "free_r": In(2),
            "sc_mark_intent": In(P), "sc_mark_value": In(P),
            "cfg": In(config_layout(p)),
            "flush": In(1),
            "wr_en": Out(1), "wr_slot": Out(sw), "wr_tag": Out(p.TAG_WIDTH),
            "wr_count": Out(p.COUNT_WIDTH), "wr_last": Out(p.TS_WIDTH), "wr_mark": Out(1),
            "forward": Out(ForwardSignature(p)),
            "pm_en": Out(1), "pm_slot": Out(sw), "pm_data": Out(width),
            "inv_en": Out(1), "inv_slot": Out(sw),
            "evict_start": Out(sw),
            "response": Out(stream.Signature(response_layout(p), always_ready=True)),
            "stat_inc": Out(len(STAT_NAMES)),
            "occupancy": Out(sw + 1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        p, cfg = self._params, self.cfg
        P = p.PROBE
        lists, pt, guard, bip, loop = self.lists, self.reuse, self.guard, self.bip, self.loop
        m.submodules.lists = lists
        m.submodules.reuse = pt
        m.submodules.guard = guard
        m.submodules.bip = bip
        m.submodules.loop = loop
        m.submodules.level = level = ReuseLevel(p)
        m.submodules.e1b = e1b = PredictorLanes(p)
        m.submodules.decision = decide = PredictorDecision(p)
        m.submodules.l = l_stage = PredictorResponse(p)
        m.submodules.frees = frees = GhostFrees(p)
        flush = self.flush
        m.d.comb += [lists.flush.eq(flush), pt.flush.eq(flush), guard.flush.eq(flush),
                     bip.flush.eq(flush), loop.flush.eq(flush)]

        # ---- R: an EVICT's window at the LRU tail, a FREE's at the ghost it frees (P8) ----
        m.d.comb += [frees.free_r.eq(self.free_r), frees.tail.eq(lists.tail),
                     frees.gtail.eq(lists.gtail), frees.gtail2.eq(lists.gtail2),
                     frees.gempty.eq(lists.gempty), frees.gcount.eq(lists.gcount),
                     self.evict_start.eq(frees.evict_start)]

        # ---- E1b: the lanes registered (PredictorLanes), the loop detector's compare (S1) --
        ln = self.lanes
        m.d.comb += [e1b.active.eq(self.active), e1b.lanes.eq(ln), e1b.pmeta.eq(self.pmeta),
                     e1b.free.eq(self.free), e1b.sc_mark_intent.eq(self.sc_mark_intent),
                     e1b.sc_mark_value.eq(self.sc_mark_value), e1b.cfg.eq(cfg)]
        # The live lines before the request in E2 (``occupancy`` with the change of the
        # request in L: a register of its own, so that E2's guard and writes start from
        # it, not from an adder) and before the one in E1b (with E2's change too: the loop
        # detector's bound).
        inc_now, dec_now = Signal(), Signal()       # E2's change of the occupancy
        occupancy_next = Signal.like(self.occupancy)
        occupancy_e1b = Signal.like(self.occupancy)
        m.d.comb += occupancy_e1b.eq(occupancy_next + inc_now - dec_now)
        m.d.comb += [
            loop.observe.valid.eq(self.active & ln.request.valid &
                                  (ln.request.op == regmap.OPS["OBSERVE"])),
            loop.observe.payload.home.eq(ln.start),
            loop.observe.payload.sig.eq(self.sig),
            loop.observe.payload.occupancy.eq(occupancy_e1b),
        ]

        # ---- E2: the decision (P6-P8, PredictorDecision) and its effects ----------------
        e = e1b.e2
        m.d.comb += [decide.e2.eq(e), decide.list_empty.eq(lists.empty)]
        d = decide.decision
        req, lane, pm = e.lanes.request, e.lanes.lane, e.pm
        hp = Signal(pmeta_layout(), name="hit_pm")
        m.d.comb += hp.eq(select(d.hit_lane, [pm[i].as_value() for i in range(P)]))
        h_age = select(d.hit_lane, [x.age for x in lane])
        m.d.comb += [level.live.eq(d.present), level.pred.eq(hp.pred), level.sage.eq(h_age),
                     level.w3.eq(cfg.w3), level.w1.eq(cfg.w1)]
        # PT's lookup of the key (P4), made for every lane as if it were the match (a
        # what-if lookup that assumes that lane's training) from the lane's key registered
        # in E1b, and picked by the match: the match's priority and OR are then in front of
        # a choice, not of the age comparisons, the key, the 64:1 read and its step. An
        # absent line's key is ABSENT_KEY (a constant lookup) and trains nothing.
        keys = e.key
        for i in range(P):
            q = pt.what_if[i]
            m.d.comb += [q.key.eq(keys[i].key), q.train.eq(d.obs), q.tkey.eq(pm[i].pkey),
                         q.near.eq(keys[i].near)]
        key_near = select(d.hit_lane, [keys[i].near for i in range(P)])
        key_burst_next = select(d.hit_lane, [keys[i].burst_next for i in range(P)])
        key_key = Mux(d.known, select(d.hit_lane, [keys[i].key for i in range(P)]),
                      ABSENT_KEY)
        pt_predict = Mux(d.known, select(d.hit_lane, pt.what_if_predict), pt.predict)
        pt_zero = Mux(d.known, select(d.hit_lane, pt.what_if_zero), pt.zero)
        # PT: the previous key trained (a live or ghost match), the new key looked up.
        m.d.comb += [pt.train.valid.eq(d.obs & d.known), pt.train.payload.key.eq(hp.pkey),
                     pt.train.payload.near.eq(key_near), pt.lookup.eq(ABSENT_KEY)]
        loop_mode = loop.loop_next
        # The guard (P12) and the bimodal rule (P11).
        m.d.comb += [inc_now.eq((d.obs & d.revive) | d.ins_free | d.ins_ghost),
                     dec_now.eq(d.take)]
        vict_pm = Signal(pmeta_layout(), name="vict_pm")
        m.d.comb += vict_pm.eq(select(d.victim, [pm[i].as_value() for i in range(P)]))
        candidate = d.obs & d.revive & ~loop_mode & pt_zero
        m.d.comb += [
            guard.insert.valid.eq(d.inserted),
            guard.insert.payload.occupancy.eq(occupancy_next),
            guard.insert.payload.grows.eq(inc_now),
            guard.candidate.eq(candidate),
            guard.reused.eq(d.obs & d.present & hp.probe), guard.stamp.eq(hp.stamp),
            guard.dead.eq((d.replace & vict_pm.probe) | (d.take & pm[0].probe)),
            bip.step.eq(d.inserted & loop_mode),
        ]
        to_tail = Mux(loop_mode, bip.at_lru_end, candidate & guard.demote)

        # P8: whether the FREE in E2 frees (planned in the EVICT's E2 before it).
        m.d.comb += [frees.evict.eq(d.evict), frees.take.eq(d.take), frees.free.eq(d.free),
                     frees.live.eq(occupancy_next), frees.flush.eq(flush)]
        freeing = frees.freeing

        # The table write, the pmeta write and the list move.
        count_after = Mux(d.obs & d.present & ~d.hit_old,
                          select(d.hit_lane, [x.count_inc for x in lane]), 1)
        wr_slot = select(d.wr_lane, [x.slot for x in lane])
        written = Signal(pmeta_layout(), name="pm_written")
        m.d.comb += [written.ghost.eq(0), written.burst.eq(key_burst_next),
                     written.pkey.eq(key_key), written.pred.eq(pt_predict),
                     written.probe.eq(guard.probe),
                     written.stamp.eq(Mux(guard.probe, guard.epoch_next, 0))]
        as_ghost = Signal(pmeta_layout(), name="pm_ghost")
        m.d.comb += [as_ghost.eq(pm[0]), as_ghost.ghost.eq(1), as_ghost.probe.eq(0),
                     as_ghost.stamp.eq(0)]
        m.d.comb += [
            self.wr_en.eq(d.writes), self.wr_slot.eq(wr_slot), self.wr_tag.eq(req.tag),
            self.wr_count.eq(count_after), self.wr_last.eq(req.t),
            self.wr_mark.eq((d.wr_lane & e.mark).any()),
            self.pm_en.eq(d.writes | d.take),
            self.pm_slot.eq(Mux(d.take, e.lanes.start, wr_slot)),
            self.pm_data.eq(Mux(d.take, as_ghost, written)),
        ]
        count_after_inc = Signal(p.COUNT_WIDTH)
        m.d.comb += count_after_inc.eq(sat_inc(p, count_after))
        # The write back to the stages behind: into the request in E1b at E2's register
        # (the lane as the write leaves it), and into E1a's lanes (``forward``).
        ahead = e1b.ahead
        m.d.comb += [ahead.write.eq(d.writes), ahead.lane.eq(d.wr_lane),
                     ahead.count.eq(count_after), ahead.count_inc.eq(count_after_inc),
                     ahead.mark.eq(self.wr_mark), ahead.pm.eq(written),
                     ahead.free.eq(freeing)]
        fw = self.forward
        m.d.comb += [
            fw.write.eq(d.writes), fw.lane.eq(Mux(d.writes, d.wr_lane, 0)),
            fw.slot.eq(wr_slot), fw.tag.eq(req.tag), fw.last.eq(req.t),
            fw.count.eq(count_after), fw.count_inc.eq(count_after_inc),
            fw.mark.eq(self.wr_mark), fw.invalidate.eq(freeing), fw.window.eq(e.lanes.start),
        ]
        move = lists.cmd
        with m.If(d.writes):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(wr_slot)]
            with m.If(d.obs & d.present):
                m.d.comb += [move.payload.frm.eq(ListFrom.LIVE),
                             move.payload.to.eq(ListTo.LIVE_HEAD)]
            with m.Else():
                m.d.comb += [
                    move.payload.frm.eq(Mux(d.revive | d.ins_ghost, ListFrom.GHOST,
                                            Mux(d.replace, ListFrom.LIVE, ListFrom.NONE))),
                    move.payload.to.eq(Mux(to_tail, ListTo.LIVE_TAIL, ListTo.LIVE_HEAD))]
        with m.Elif(d.take):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(e.lanes.start),
                         move.payload.frm.eq(ListFrom.LIVE),
                         move.payload.to.eq(ListTo.GHOST_HEAD)]
        with m.Elif(freeing):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(e.lanes.start),
                         move.payload.frm.eq(ListFrom.GHOST), move.payload.to.eq(ListTo.NONE),
                         self.inv_en.eq(1), self.inv_slot.eq(e.lanes.start)]

        # ---- L: the response and the statistics (PredictorResponse), the occupancy ------
        m.d.comb += [l_stage.e2.eq(e), l_stage.decision.eq(d), l_stage.level.eq(level.level),
                     l_stage.predict.eq(pt_predict), l_stage.count.eq(count_after),
                     l_stage.slot.eq(wr_slot)]
        wiring.connect(m, l_stage.response, wiring.flipped(self.response))
        m.d.comb += self.stat_inc.eq(l_stage.stat_inc)
        # L counts E2's change a cycle after ``occupancy_next`` has it.
        with m.If(flush):
            m.d.sync += [self.occupancy.eq(0), occupancy_next.eq(0)]
        with m.Else():
            m.d.sync += [self.occupancy.eq(occupancy_next),
                         occupancy_next.eq(occupancy_e1b)]
        m.d.comb += self.busy.eq(req.valid | self.response.valid | lists.busy)
        return m

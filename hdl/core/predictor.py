# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's evaluation and commit (docs/spec-predictor.md, ``POLICY.MODE = 1``),
for a core built with ``CoreOptions.predictor``: the second policy beside the article's
``Versions`` / ``Commit``, on the same lanes, in the same E1b / E2 / L cycles, with the
mode's state (``hdl/predictor/``) and its two lists.

``PredictorCommit`` wires the mode's stages in the order a request meets them:
``GhostFrees`` (R: where an EVICT or FREE reads) -> ``PredictorLanes`` (E1b: the lanes,
``pmeta`` words, marks and keys registered) -> ``PredictorDecision`` (E2: what the request
does) -> ``PredictorTraining`` (E2: the reuse table, the guard, the bimodal rule and the
level) -> ``PredictorWrites`` (E2: the table, ``pmeta`` and list writes) ->
``PredictorResponse`` (L). E2's write goes back in two places: into the
request right behind at ``PredictorLanes``'s register (``ahead``, wired here) and into E1a
(``forward``, which the core's pipeline chooses by ``policy``, ``hdl.core.pipeline``); the
requests after meet it through the table's bypass.
"""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import STAT_NAMES, check_params, config_layout, response_layout
from ..predictor.constants import SIG_WIDTH
from ..predictor.lists import LiveGhostLists
from ..predictor.loop import LoopDetector
from .interfaces import ForwardSignature, lanes_layout, pmeta_layout
from .predictor_decision import PredictorDecision
from .predictor_frees import GhostFrees
from .predictor_lanes import PredictorLanes
from .predictor_response import PredictorResponse
from .predictor_training import PredictorTraining
from .predictor_writes import PredictorWrites

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
    lists, loop, training : the mode's lists, its loop detector and its learning
        (``PredictorTraining``), after construction.
    reuse, guard, bip : ``training``'s reuse table, guard and bimodal counter.
    """

    def __init__(self, params, *, memory):
        self._params = p = check_params(params)
        P, sw = p.PROBE, p.SLOT_WIDTH
        self.lists = LiveGhostLists(p, registered=True, memory=memory)
        self.training = PredictorTraining(p)
        self.reuse, self.guard, self.bip = (self.training.reuse, self.training.guard,
                                            self.training.bip)
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
        lists, loop, train = self.lists, self.loop, self.training
        m.submodules.lists = lists
        m.submodules.loop = loop
        m.submodules.e1b = e1b = PredictorLanes(p)
        m.submodules.decision = decide = PredictorDecision(p)
        m.submodules.training = train
        m.submodules.writes = writes = PredictorWrites(p)
        m.submodules.l = l_stage = PredictorResponse(p)
        m.submodules.frees = frees = GhostFrees(p)
        flush = self.flush
        m.d.comb += [lists.flush.eq(flush), loop.flush.eq(flush)]

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

        # ---- E2: the decision (P6-P8, PredictorDecision), what the mode learns of it
        # (PredictorTraining: P4, P5, P11, P12) ----------------------------------------
        e = e1b.e2
        m.d.comb += [decide.e2.eq(e), decide.list_empty.eq(lists.empty)]
        d = decide.decision
        m.d.comb += [inc_now.eq((d.obs & d.revive) | d.ins_free | d.ins_ghost),
                     dec_now.eq(d.take)]
        m.d.comb += [train.e2.eq(e), train.decision.eq(d), train.occupancy.eq(occupancy_next),
                     train.grows.eq(inc_now), train.loop_mode.eq(loop.loop_next),
                     train.cfg.eq(cfg), train.flush.eq(flush)]

        # P8: whether the FREE in E2 frees (planned in the EVICT's E2 before it).
        m.d.comb += [frees.evict.eq(d.evict), frees.take.eq(d.take), frees.free.eq(d.free),
                     frees.live.eq(occupancy_next), frees.flush.eq(flush)]

        # The table write, the pmeta write, the list move and the write back to the
        # stages behind (PredictorWrites): into E1b's register (``ahead``) and E1a's lanes.
        m.d.comb += [writes.e2.eq(e), writes.decision.eq(d), writes.written.eq(train.written),
                     writes.to_tail.eq(train.to_tail), writes.freeing.eq(frees.freeing),
                     e1b.ahead.eq(writes.ahead)]
        wiring.connect(m, writes.move, lists.cmd)
        m.d.comb += [getattr(self, name).eq(getattr(writes, name)) for name in (
            "wr_en", "wr_slot", "wr_tag", "wr_count", "wr_last", "wr_mark",
            "pm_en", "pm_slot", "pm_data", "inv_en", "inv_slot")]
        m.d.comb += [getattr(self.forward, name).eq(getattr(writes.forward, name))
                     for name in self.forward.signature.members]

        # ---- L: the response and the statistics (PredictorResponse), the occupancy ------
        m.d.comb += [l_stage.e2.eq(e), l_stage.decision.eq(d), l_stage.level.eq(train.level),
                     l_stage.predict.eq(train.predict), l_stage.count.eq(writes.wr_count),
                     l_stage.slot.eq(writes.wr_slot)]
        wiring.connect(m, l_stage.response, wiring.flipped(self.response))
        m.d.comb += self.stat_inc.eq(l_stage.stat_inc)
        # L counts E2's change a cycle after ``occupancy_next`` has it.
        with m.If(flush):
            m.d.sync += [self.occupancy.eq(0), occupancy_next.eq(0)]
        with m.Else():
            m.d.sync += [self.occupancy.eq(occupancy_next),
                         occupancy_next.eq(occupancy_e1b)]
        m.d.comb += self.busy.eq(e.lanes.request.valid | self.response.valid | lists.busy)
        return m

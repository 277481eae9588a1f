# SPDX-License-Identifier: Apache-2.0
"""E2's writes of the predictor mode (docs/spec-predictor.md P6-P8): the table write, the
``pmeta`` write, the list move and the invalidate of a FREE, and the same write as the
stages behind E2 meet it."""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params
from ..onehot import select
from ..predictor.moves import ListFrom, ListTo, move_layout
from .decision import sat_inc
from .interfaces import ForwardSignature, pmeta_layout
from .predictor_decision import predictor_decision_layout
from .predictor_lanes import predictor_e2_layout, predictor_write_layout

__all__ = ["PredictorWrites"]


class PredictorWrites(wiring.Component):
    """Combinational: what the request in E2 writes, from its decision.

    An OBSERVE that tracks its line (``decision.writes``) writes its lane's table entry
    and ``pmeta`` word and moves the line to the live head, or to the live tail
    (``to_tail``) when it enters the list; an EVICT that takes the LRU tail
    (``decision.take``) marks its line a ghost (its ``pmeta`` word) and moves it to the
    ghost head; a FREE that frees (``freeing``) untracks the ghost it read and takes it off
    the ghost list.

    Parameters
    ----------
    params : regmap.Params

    Ports
    -----
    e2 : In(predictor_e2_layout(params))
        The request in E2 and its lanes (``PredictorLanes.e2``).
    decision : In(predictor_decision_layout(params))
        What it does (``PredictorDecision``).
    written : In(pmeta_layout())
        The ``pmeta`` word an OBSERVE's write leaves (its key, prediction and the guard's
        probe).
    to_tail : In(1)
        A line that enters the list goes to its tail (the bimodal rule or the guard).
    freeing : In(1)
        The FREE in E2 frees (``GhostFrees.freeing``).
    wr_en, wr_slot, wr_tag, wr_count, wr_last, wr_mark : Out
        The table write, as ``BucketTable``'s ports (``wr_count``: the count the write
        leaves, also the response's).
    pm_en, pm_slot, pm_data : Out
        The ``pmeta`` write: with the table write, or alone (an EVICT's ghost).
    inv_en, inv_slot : Out
        A FREE that frees: untrack its ghost.
    move : Out(stream.Signature(move_layout(params), always_ready=True))
        The list move (``LiveGhostLists.cmd``).
    ahead : Out(predictor_write_layout(params))
        The write as the request right behind meets it at E2's register
        (``PredictorLanes.ahead``).
    forward : Out(ForwardSignature(params))
        The write as ``LaneCompare`` meets it (the request then in E1a; ``lane`` one-hot in
        this request's window), or a FREE's invalidate (lane 0 of its window).
    """

    def __init__(self, params):
        self._params = p = check_params(params)
        sw = p.SLOT_WIDTH
        width = pmeta_layout().size
        super().__init__({
            "e2": In(predictor_e2_layout(p)),
            "decision": In(predictor_decision_layout(p)),
            "written": In(pmeta_layout()),
            "to_tail": In(1),
            "freeing": In(1),
            "wr_en": Out(1), "wr_slot": Out(sw), "wr_tag": Out(p.TAG_WIDTH),
            "wr_count": Out(p.COUNT_WIDTH), "wr_last": Out(p.TS_WIDTH), "wr_mark": Out(1),
            "pm_en": Out(1), "pm_slot": Out(sw), "pm_data": Out(width),
            "inv_en": Out(1), "inv_slot": Out(sw),
            "move": Out(stream.Signature(move_layout(p), always_ready=True)),
            "ahead": Out(predictor_write_layout(p)),
            "forward": Out(ForwardSignature(p)),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        e, d, freeing = self.e2, self.decision, self.freeing
        req, lane, start = e.lanes.request, e.lanes.lane, e.lanes.start
        count_after = Mux(d.obs & d.present & ~d.hit_old,
                          select(d.hit_lane, [x.count_inc for x in lane]), 1)
        count_after_inc = Signal(p.COUNT_WIDTH)
        m.d.comb += count_after_inc.eq(sat_inc(p, count_after))
        wr_slot = select(d.wr_lane, [x.slot for x in lane])
        as_ghost = Signal(pmeta_layout(), name="pm_ghost")
        m.d.comb += [as_ghost.eq(e.pm[0]), as_ghost.ghost.eq(1), as_ghost.probe.eq(0),
                     as_ghost.stamp.eq(0)]
        m.d.comb += [
            self.wr_en.eq(d.writes), self.wr_slot.eq(wr_slot), self.wr_tag.eq(req.tag),
            self.wr_count.eq(count_after), self.wr_last.eq(req.t),
            self.wr_mark.eq((d.wr_lane & e.mark).any()),
            self.pm_en.eq(d.writes | d.take),
            self.pm_slot.eq(Mux(d.take, start, wr_slot)),
            self.pm_data.eq(Mux(d.take, as_ghost, self.written)),
        ]

        # The write back to the stages behind: into the request in E1b at E2's register
        # (the lane as the write leaves it), and into E1a's lanes (``forward``).
        ahead = self.ahead
        m.d.comb += [ahead.write.eq(d.writes), ahead.lane.eq(d.wr_lane),
                     ahead.count.eq(count_after), ahead.count_inc.eq(count_after_inc),
                     ahead.mark.eq(self.wr_mark), ahead.pm.eq(self.written),
                     ahead.free.eq(freeing)]
        fw = self.forward
        m.d.comb += [
            fw.write.eq(d.writes), fw.lane.eq(Mux(d.writes, d.wr_lane, 0)),
            fw.slot.eq(wr_slot), fw.tag.eq(req.tag), fw.last.eq(req.t),
            fw.count.eq(count_after), fw.count_inc.eq(count_after_inc),
            fw.mark.eq(self.wr_mark), fw.invalidate.eq(freeing), fw.window.eq(start),
        ]

        # The list move.
        move = self.move
        with m.If(d.writes):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(wr_slot)]
            with m.If(d.obs & d.present):
                m.d.comb += [move.payload.frm.eq(ListFrom.LIVE),
                             move.payload.to.eq(ListTo.LIVE_HEAD)]
            with m.Else():
                m.d.comb += [
                    move.payload.frm.eq(Mux(d.revive | d.ins_ghost, ListFrom.GHOST,
                                            Mux(d.replace, ListFrom.LIVE, ListFrom.NONE))),
                    move.payload.to.eq(Mux(self.to_tail, ListTo.LIVE_TAIL,
                                           ListTo.LIVE_HEAD))]
        with m.Elif(d.take):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(start),
                         move.payload.frm.eq(ListFrom.LIVE),
                         move.payload.to.eq(ListTo.GHOST_HEAD)]
        with m.Elif(freeing):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(start),
                         move.payload.frm.eq(ListFrom.GHOST), move.payload.to.eq(ListTo.NONE),
                         self.inv_en.eq(1), self.inv_slot.eq(start)]
        return m

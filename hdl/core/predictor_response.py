# SPDX-License-Identifier: Apache-2.0
"""L of the predictor mode: the response and the statistics of the request that was in
E2 (docs/spec-predictor.md P5-P8)."""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import STAT_NAMES, RequestStatistics, check_params, response_layout
from ..onehot import select
from .predictor_decision import predictor_decision_layout
from .predictor_lanes import predictor_e2_layout

__all__ = ["PredictorResponse"]


class PredictorResponse(wiring.Component):
    """The response and the statistics increments of the mode's request in E2, registered
    (L). A FREE has neither.

    Parameters
    ----------
    params : regmap.Params

    Ports
    -----
    decision : In(predictor_decision_layout(params))
        What the request in E2 does (``PredictorDecision``).
    e2 : In(predictor_e2_layout(params))
        That request and its lanes (the tags, counts and slots the response gives).
    level : In(2)
        The matched line's level before the request (``ReuseLevel``; used when it is
        live).
    predict : In(1)
        ``PT``'s prediction for the line written: its level after an OBSERVE is 3 if
        set, else 1.
    count : In(COUNT_WIDTH), slot : In(SLOT_WIDTH)
        The count and slot of the line written.
    response : Out(stream.Signature(response_layout(params), always_ready=True))
    stat_inc : Out(len(STAT_NAMES))
        Bit ``i``: statistic ``STAT_NAMES[i]`` (``req_dropped`` never).
    """

    def __init__(self, params):
        self._params = p = check_params(params)
        super().__init__({
            "e2": In(predictor_e2_layout(p)),
            "decision": In(predictor_decision_layout(p)),
            "level": In(2),
            "predict": In(1),
            "count": In(p.COUNT_WIDTH), "slot": In(p.SLOT_WIDTH),
            "response": Out(stream.Signature(response_layout(p), always_ready=True)),
            "stat_inc": Out(len(STAT_NAMES)),
        })

    def elaborate(self, platform):
        m = Module()
        d, req, lane = self.decision, self.e2.lanes.request, self.e2.lanes.lane
        rsp = Signal(response_layout(self._params))
        stats = RequestStatistics()
        count = stats.count
        lv_before = Mux(d.present, self.level, 0)
        lv_hit = lv_before >= req.min_tlevel
        with m.If(req.valid):
            m.d.comb += rsp.op.eq(req.op)
        with m.If(d.obs):
            m.d.comb += [count("observes"), rsp.hit.eq(lv_hit), rsp.tlevel_before.eq(lv_before),
                         rsp.present.eq(d.present)]
            with m.Switch(lv_before):
                for lv in range(4):
                    with m.Case(lv):
                        m.d.comb += count(f"obs_t{lv}")
            with m.If(d.present):
                m.d.comb += count("observe_hits")
            with m.Elif(d.inserted & ~d.replace):
                m.d.comb += count("inserts")
            with m.Elif(d.replace):
                m.d.comb += [count("replacements"), rsp.victim_valid.eq(1),
                             rsp.victim_tag.eq(select(d.victim, [x.tag for x in lane]))]
            with m.Else():
                m.d.comb += count("drops")
            with m.If(d.writes):
                m.d.comb += [rsp.tracked.eq(1), rsp.tlevel.eq(Mux(self.predict, 3, 1)),
                             rsp.count.eq(self.count), rsp.slot.eq(self.slot)]
        with m.If(d.query):
            m.d.comb += [count("queries"), rsp.hit.eq(lv_hit), rsp.tlevel_before.eq(lv_before),
                         rsp.tlevel.eq(lv_before)]
            with m.If(lv_hit):
                m.d.comb += count("query_hits")
            with m.If(d.present):
                m.d.comb += [rsp.present.eq(1), rsp.tracked.eq(1),
                             rsp.count.eq(select(d.hit_lane, [x.count for x in lane])),
                             rsp.slot.eq(select(d.hit_lane, [x.slot for x in lane]))]
        with m.If(d.evict):
            with m.If(d.take):
                m.d.comb += [count("evicts"), rsp.victim_valid.eq(1),
                             rsp.victim_tag.eq(lane[0].tag), rsp.slot.eq(self.e2.lanes.start)]
            with m.Else():
                m.d.comb += count("evicts_empty")

        m.d.sync += [
            self.response.valid.eq(req.valid & ~d.free), self.response.payload.eq(rsp),
            self.stat_inc.eq(stats.stat_inc()),
        ]
        return m

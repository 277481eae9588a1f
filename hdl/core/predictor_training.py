# SPDX-License-Identifier: Apache-2.0
"""E2's learning of the predictor mode: the reuse tables' lookups and trainings (P4), the
guard (P12), the bimodal insertion (P11) and the reuse level (P5) of the request in E2."""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params, config_layout
from ..onehot import select
from ..predictor.bimodal import BimodalCounter
from ..predictor.constants import ABSENT_KEY, ANSWER_KEY_WIDTH, PA_ENTRIES
from ..predictor.guard import Guard
from ..predictor.keys import ReuseLevel, answer_key
from ..predictor.reuse_table import ReuseTable
from .interfaces import pmeta_layout
from .predictor_decision import predictor_decision_layout
from .predictor_lanes import predictor_e2_layout

__all__ = ["PredictorTraining"]


class PredictorTraining(wiring.Component):
    """What the mode learns from the request in E2, and what it predicts of the line.

    Both reuse tables are looked up for every lane as if it were the match (a what-if
    lookup that assumes that lane's training) from the lane's key registered in E1b, and
    the match picks one: the match's priority and OR are then in front of a choice, not of
    the age comparisons, the key, the table's read and its step. ``PT`` (the key) decides
    the ghost rule, ``PA`` (the answer key, ``key * 8 + seen'``) the prediction. An absent
    line's keys are ``ABSENT_KEY`` and ``ABSENT_KEY * 8`` (constant lookups) and train
    nothing.

    Parameters
    ----------
    params : regmap.Params

    Ports
    -----
    e2 : In(predictor_e2_layout(params))
        The request in E2 and its lanes (``PredictorLanes.e2``).
    decision : In(predictor_decision_layout(params))
        What it does (``PredictorDecision``).
    occupancy : In(SLOT_WIDTH + 1)
        The live lines before it.
    grows : In(1)
        It adds a live line (a revival or an insert into a free or ghost lane).
    loop_mode : In(1)
        The loop detector's verdict (``LoopDetector.loop_next``): inserts follow the
        bimodal rule.
    cfg : In(config_layout(params))
        ``w3``, ``w1`` (the level).
    flush : In(1)
        Every state to its flush value (P9).
    written : Out(pmeta_layout())
        The ``pmeta`` word an OBSERVE's write leaves: its key, burst, ``seen``, prediction
        and the guard's probe.
    to_tail : Out(1)
        A line that enters the list goes to its tail (the bimodal rule in a loop, else the
        guard's demotion of a revival predicted dead).
    predict : Out(1), level : Out(2)
        The response's prediction (P4) and level (P5).

    Attributes
    ----------
    reuse, answer, guard, bip : ``PT``, ``PA``, the guard and the bimodal counter.
    """

    def __init__(self, params):
        self._params = p = check_params(params)
        self.reuse = ReuseTable(what_ifs=p.PROBE)
        self.answer = ReuseTable(PA_ENTRIES, key_width=ANSWER_KEY_WIDTH, what_ifs=p.PROBE)
        self.guard = Guard(p)
        self.bip = BimodalCounter()
        super().__init__({
            "e2": In(predictor_e2_layout(p)),
            "decision": In(predictor_decision_layout(p)),
            "occupancy": In(p.SLOT_WIDTH + 1),
            "grows": In(1),
            "loop_mode": In(1),
            "cfg": In(config_layout(p)),
            "flush": In(1),
            "written": Out(pmeta_layout()),
            "to_tail": Out(1),
            "predict": Out(1),
            "level": Out(2),
        })

    def elaborate(self, platform):
        m = Module()
        p, cfg, flush = self._params, self.cfg, self.flush
        P = p.PROBE
        m.submodules.reuse = pt = self.reuse
        m.submodules.answer = pa = self.answer
        m.submodules.guard = guard = self.guard
        m.submodules.bip = bip = self.bip
        m.submodules.level = level = ReuseLevel(p)
        m.d.comb += [pt.flush.eq(flush), pa.flush.eq(flush), guard.flush.eq(flush),
                     bip.flush.eq(flush)]
        e, d = self.e2, self.decision
        lane, pm, keys = e.lanes.lane, e.pm, e.key
        hp = Signal(pmeta_layout(), name="hit_pm")
        m.d.comb += hp.eq(select(d.hit_lane, [pm[i].as_value() for i in range(P)]))

        # The level (P5).
        h_age = select(d.hit_lane, [x.age for x in lane])
        m.d.comb += [level.live.eq(d.present), level.pred.eq(hp.pred), level.sage.eq(h_age),
                     level.w3.eq(cfg.w3), level.w1.eq(cfg.w1), self.level.eq(level.level)]

        # The reuse tables: the previous keys trained (a live or ghost match), the new keys
        # looked up (what-if per lane, picked by the match); ``PA`` by the answer keys.
        for i in range(P):
            q, a = pt.what_if[i], pa.what_if[i]
            m.d.comb += [q.key.eq(keys[i].key), q.train.eq(d.obs), q.tkey.eq(pm[i].pkey),
                         q.near.eq(keys[i].near),
                         a.key.eq(answer_key(keys[i].key, keys[i].seen_next)), a.train.eq(d.obs),
                         a.tkey.eq(answer_key(pm[i].pkey, pm[i].seen)), a.near.eq(keys[i].near)]
        key_near = select(d.hit_lane, [keys[i].near for i in range(P)])
        key_burst_next = select(d.hit_lane, [keys[i].burst_next for i in range(P)])
        key_seen_next = Mux(d.known, select(d.hit_lane, [keys[i].seen_next for i in range(P)]),
                            0)
        key_key = Mux(d.known, select(d.hit_lane, [keys[i].key for i in range(P)]),
                      ABSENT_KEY)
        pt_zero = Mux(d.known, select(d.hit_lane, pt.what_if_zero), pt.zero)
        m.d.comb += [
            self.predict.eq(Mux(d.known, select(d.hit_lane, pa.what_if_predict), pa.predict)),
            pt.train.valid.eq(d.obs & d.known), pt.train.payload.key.eq(hp.pkey),
            pt.train.payload.near.eq(key_near), pt.lookup.eq(ABSENT_KEY),
            pa.train.valid.eq(d.obs & d.known),
            pa.train.payload.key.eq(answer_key(hp.pkey, hp.seen)),
            pa.train.payload.near.eq(key_near), pa.lookup.eq(answer_key(ABSENT_KEY, 0)),
        ]

        # The guard (P12) and the bimodal rule (P11).
        vict_pm = Signal(pmeta_layout(), name="vict_pm")
        m.d.comb += vict_pm.eq(select(d.victim, [pm[i].as_value() for i in range(P)]))
        candidate = d.obs & d.revive & ~self.loop_mode & pt_zero
        m.d.comb += [
            guard.insert.valid.eq(d.inserted),
            guard.insert.payload.occupancy.eq(self.occupancy),
            guard.insert.payload.grows.eq(self.grows),
            guard.candidate.eq(candidate),
            guard.reused.eq(d.obs & d.present & hp.probe), guard.stamp.eq(hp.stamp),
            guard.dead.eq((d.replace & vict_pm.probe) | (d.take & pm[0].probe)),
            bip.step.eq(d.inserted & self.loop_mode),
            self.to_tail.eq(Mux(self.loop_mode, bip.at_lru_end, candidate & guard.demote)),
        ]

        # The pmeta word of the line written.
        w = self.written
        m.d.comb += [w.ghost.eq(0), w.burst.eq(key_burst_next), w.pkey.eq(key_key),
                     w.seen.eq(key_seen_next),
                     w.pred.eq(self.predict), w.probe.eq(guard.probe),
                     w.stamp.eq(Mux(guard.probe, guard.epoch_next, 0))]
        return m

# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's decision (docs/spec-predictor.md P6-P8): what the request in E2
does, from its registered lanes."""

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import check_params
from .predictor_lanes import predictor_e2_layout

__all__ = ["PredictorDecision", "predictor_decision_layout"]

OBSERVE = regmap.OPS["OBSERVE"]
QUERY = regmap.OPS["QUERY"]
EVICT = regmap.OPS["EVICT"]
EVICT_ANY = regmap.OPS["EVICT_ANY"]


def predictor_decision_layout(p):
    """What the request in E2 does. The ops (``obs``, ``query``, ``evict``, ``free``) are
    qualified by the request's valid bit; every one-hot field is over the window's lanes in
    probe order."""
    P = p.PROBE
    return data.StructLayout({
        "obs": 1, "query": 1,
        "evict": 1,         # an EVICT or EVICT_ANY of the runtime, not a FREE
        "free": 1,          # a FREE (the ghost frees of P8)
        "hit_lane": P,      # the last matching lane, live or ghost
        "present": 1,       # a live line of the request's tag (P6.1)
        "revive": 1,        # a ghost of it (P6.2)
        "known": 1,         # present | revive
        "hit_old": 1,       # the matched lane is older than W1
        "victim": P,        # the oldest lane (P6.3c: reached only when every lane is live)
        "ins_free": 1,      # P6.3a: an absent line into the first free lane
        "ins_ghost": 1,     # P6.3b: ... into the oldest ghost lane
        "replace": 1,       # P6.3c: ... over the oldest live lane, a T0 victim
        "take": 1,          # P8: an EVICT that pops the LRU tail
        "inserted": 1,      # the line enters the LRU list (a revival or one of P6.3)
        "writes": 1,        # the table write: a live match or ``inserted``
        "wr_lane": P,       # the lane written
    })


class PredictorDecision(wiring.Component):
    """Combinational: the decision of the predictor mode for the request in E2.

    The lanes' age order is E1a's comparisons, with the line the request right ahead
    wrote (``e2.ahead_wrote``) or the write two ahead forwarded into a lane (``forwarded``)
    taking the place of the lane as read.

    Parameters
    ----------
    params : regmap.Params

    Ports
    -----
    e2 : In(predictor_e2_layout(params))
        The request in E2 and its lanes (``PredictorLanes.e2``).
    list_empty : In(1)
        The mode's LRU list is empty (``LiveGhostLists.empty``): an EVICT takes nothing.
    decision : Out(predictor_decision_layout(params))
        What the request does (see ``predictor_decision_layout``).
    """

    def __init__(self, params):
        self._params = params = check_params(params)
        super().__init__({
            "e2": In(predictor_e2_layout(params)),
            "list_empty": In(1),
            "decision": Out(predictor_decision_layout(params)),
        })

    def elaborate(self, platform):
        m = Module()
        P = self._params.PROBE
        e, d = self.e2, self.decision
        req, lane, pm = e.lanes.request, e.lanes.lane, e.pm
        valid = Cat(x.valid for x in lane)
        ghost = Cat(valid[i] & pm[i].ghost for i in range(P))
        free = ~valid
        match = Cat(x.match for x in lane)
        m.d.comb += [d.hit_lane[i].eq(match[i] & ~match[i + 1:].any() if i < P - 1
                                      else match[i]) for i in range(P)]
        hit_lane = d.hit_lane
        m.d.comb += [d.present.eq((hit_lane & ~ghost).any()),
                     d.revive.eq((hit_lane & ghost).any()),
                     d.known.eq(d.present | d.revive),
                     d.hit_old.eq((hit_lane & e.lanes.beyond_w1).any())]

        def older(i, j):
            """Lane i's line is older than lane j's: E1a's comparison with the line the
            request right ahead wrote into one of them (``ahead_wrote``), else with the
            line of the write two ahead forwarded into one (``forwarded``), else of the
            lanes as read."""
            ln2, w = e.lanes, e.ahead_wrote
            two_ahead = Mux(ln2.forwarded[i], ln2.forward_older[j],
                            Mux(ln2.forwarded[j], ln2.older_forward[i], ln2.older[i][j]))
            return Mux(w[i], ln2.ahead_older[j], Mux(w[j], ln2.older_ahead[i], two_ahead))
        first_free = Signal(P)
        m.d.comb += [first_free[i].eq(free[i] & ~free[:i].any() if i else free[0])
                     for i in range(P)]
        # The oldest ghost lane (greatest sage, ties to the lowest offset), P6.3b, and the
        # oldest lane of all (P6.3c).
        gwins = Signal(P)
        for i in range(P):
            m.d.comb += gwins[i].eq(ghost[i] & Cat(
                *([~ghost[j] | older(i, j) for j in range(i)] +
                  [~ghost[j] | ~older(j, i) for j in range(i + 1, P)]), Const(1, 1)).all())
            m.d.comb += d.victim[i].eq(Cat(*([older(i, j) for j in range(i)] +
                                             [~older(j, i) for j in range(i + 1, P)]),
                                           Const(1, 1)).all())
        any_free, any_ghost = free.any(), ghost.any()
        victim_t0 = e.lanes.beyond_w1.any()

        m.d.comb += [
            d.obs.eq(req.valid & (req.op == OBSERVE)),
            d.query.eq(req.valid & (req.op == QUERY)),
            d.evict.eq(req.valid & ~e.free & ((req.op == EVICT) | (req.op == EVICT_ANY))),
            d.free.eq(req.valid & e.free),
        ]
        absent = d.obs & ~d.known
        m.d.comb += [
            d.ins_free.eq(absent & any_free),                                 # P6.3a
            d.ins_ghost.eq(absent & ~any_free & any_ghost),                    # P6.3b
            d.replace.eq(absent & ~any_free & ~any_ghost & victim_t0),         # P6.3c
            d.take.eq(d.evict & ~self.list_empty),                             # P8
        ]
        m.d.comb += [
            d.inserted.eq((d.obs & d.revive) | d.ins_free | d.ins_ghost | d.replace),
            d.writes.eq((d.obs & d.present) | d.inserted),
            # The lane written: the match, else the free, the ghost or the victim lane.
            d.wr_lane.eq(Mux(d.known, hit_lane,
                             Mux(any_free, first_free, Mux(any_ghost, gwins, d.victim)))),
        ]
        return m

# SPDX-License-Identifier: Apache-2.0
"""The decision for one request from its window's lanes: the match, the free slot, the
victim, the LRU tail, and the write an OBSERVE makes."""

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

import regmap

from .interfaces import decision_layout, stage_layout

__all__ = ["Decision", "sat_inc", "select"]

OBSERVE = regmap.OPS["OBSERVE"]
EVICT = regmap.OPS["EVICT"]
EVICT_ANY = regmap.OPS["EVICT_ANY"]


def sat_inc(p, x, k=1):
    """``min(x + k, COUNT_MAX)``"""
    return Mux(x >= p.COUNT_MAX - (k - 1), p.COUNT_MAX, x + k)[:p.COUNT_WIDTH]


def select(one_hot, values):
    """``values[i]`` for the one bit ``i`` of ``one_hot`` that is set: an AND-OR select, no
    encoder/decoder or adder behind it."""
    out = 0
    for i, value in enumerate(values):
        out = out | Mux(one_hot[i], value, 0)
    return out


class Decision(wiring.Component):
    """Combinational: what a request does, from the lanes of its window (lane ``i`` is slot
    ``window + i``; lane 0 is the LRU tail for an EVICT).

    The age comparisons and the count increments come in precomputed (the split evaluation
    registers them in E1a; the compact pipeline computes them in E beside the lanes).

    Ports (all ``In`` except ``decision``)
    --------------------------------------
    request : stage_layout(params)
        The request.
    valid, match, mark : PROBE
        Per lane: tracked; holds the request's line; its mark (the mark a write carries).
    age, tag, count, slot : ArrayLayout(..., PROBE)
        Per lane: the saturated age, the tag, the count, the slot.
    older : ArrayLayout(PROBE, PROBE)
        ``older[i][j]``: lane ``i``'s age exceeds lane ``j``'s (``i != j``).
    beyond_w1 : PROBE
        Per lane: its age exceeds W1 (a T0 line).
    count_inc, count_inc2 : ArrayLayout(COUNT_WIDTH, PROBE)
        Per lane: ``sat_inc(count, 1)`` and ``sat_inc(count, 2)``.
    window : SLOT_WIDTH
        The window start (lane 0's slot: the LRU tail for an EVICT).
    list_empty : 1
        The LRU list is empty (an EVICT takes nothing).
    decision : Out(decision_layout(params))
        The decision (see ``decision_layout``). ``wr_lane`` is one-hot or zero whatever
        the lanes hold (the forwards rely on it): the last matching lane, the first free
        lane or the one victim.
    """

    def __init__(self, params):
        self._params = p = params
        P = p.PROBE

        def lanes(width):
            return In(data.ArrayLayout(width, P))

        super().__init__({
            "request": In(stage_layout(p)),
            "valid": In(P), "match": In(P), "mark": In(P),
            "age": lanes(p.TS_WIDTH), "tag": lanes(p.TAG_WIDTH),
            "count": lanes(p.COUNT_WIDTH), "slot": lanes(p.SLOT_WIDTH),
            "older": lanes(P),
            "beyond_w1": In(P),
            "count_inc": lanes(p.COUNT_WIDTH), "count_inc2": lanes(p.COUNT_WIDTH),
            "window": In(p.SLOT_WIDTH),
            "list_empty": In(1),
            "decision": Out(decision_layout(p)),
        })

    def elaborate(self, platform):
        m = Module()
        P = self._params.PROBE
        req, dd = self.request, self.decision
        match, old, mark_l = self.match, self.beyond_w1, self.mark
        slots = [self.slot[i] for i in range(P)]

        free = ~self.valid
        m.d.comb += [
            dd.valid.eq(req.valid), dd.op.eq(req.op), dd.min_tlevel.eq(req.min_tlevel),
            dd.tag.eq(req.tag), dd.t.eq(req.t),
            dd.present.eq(match.any()), dd.any_free.eq(free.any()),
        ]
        # At most one lane matches (one slot per tag); hit_lane makes it one-hot by
        # construction anyway (the last matching lane).
        hit_lane = Signal(P)
        for i in range(P):
            m.d.comb += hit_lane[i].eq(match[i] & ~match[i + 1:].any()
                                       if i < P - 1 else match[i])
        for i in range(P):
            with m.If(hit_lane[i]):
                m.d.comb += [dd.hit_cnt.eq(self.count[i]), dd.hit_age.eq(self.age[i]),
                             dd.hit_slot.eq(slots[i]), dd.hit_mark.eq(mark_l[i])]
        for i in reversed(range(P)):  # first free lane in probe order wins
            with m.If(free[i]):
                m.d.comb += [dd.free_slot.eq(slots[i]), dd.free_mark.eq(mark_l[i])]
        # Victim: greatest saturated age, ties to the lowest probe offset. All pairwise
        # comparisons in parallel (one comparator deep, not a chain of P - 1).
        wins = Signal(P)
        for i in range(P):
            m.d.comb += wins[i].eq(Cat(*([self.older[i][j] for j in range(i)] +
                                         [~self.older[j][i] for j in range(i + 1, P)]),
                                       Const(1, 1)).all())

        # The count an OBSERVE leaves: one more (saturating) for a line seen again within
        # W1, 1 for a new or cold one; and one more than that.
        warm = dd.present & ~(hit_lane & old).any()
        m.d.comb += [
            dd.cnt_after.eq(Mux(warm, select(hit_lane, [self.count_inc[i] for i in range(P)]), 1)),
            dd.cnt_after_inc.eq(Mux(warm, select(hit_lane,
                                                 [self.count_inc2[i] for i in range(P)]), 2)),
        ]

        first_free = Signal(P)
        for i in range(P):
            m.d.comb += first_free[i].eq(free[i] & ~free[:i].any() if i else free[0])
        m.d.comb += [
            dd.wr_lane.eq(Mux(dd.present, hit_lane,
                              Mux(dd.any_free, first_free, Mux(dd.vict_t0, wins, 0)))),
            dd.wr_slot.eq(Mux(dd.present, dd.hit_slot,
                              Mux(dd.any_free, dd.free_slot, dd.vict_slot))),
            dd.wr_mark.eq(Mux(dd.present, dd.hit_mark,
                              Mux(dd.any_free, dd.free_mark, dd.vict_mark))),
            dd.wr.eq(req.valid & (req.op == OBSERVE) &
                     (dd.present | dd.any_free | dd.vict_t0)),
        ]
        m.d.comb += [
            dd.vict_t0.eq((wins & old).any()),
            dd.vict_slot.eq(select(wins, slots)),
            dd.vict_tag.eq(select(wins, [self.tag[i] for i in range(P)])),
            dd.vict_mark.eq((wins & mark_l).any()),
        ]
        # EVICT / EVICT_ANY: lane 0 is the LRU tail.
        m.d.comb += [
            dd.take.eq(~self.list_empty & ((req.op == EVICT_ANY) | old[0])),
            dd.tail_tag.eq(self.tag[0]), dd.tail_slot.eq(self.window),
            dd.inv.eq(req.valid & ((req.op == EVICT) | (req.op == EVICT_ANY)) & dd.take),
        ]
        return m

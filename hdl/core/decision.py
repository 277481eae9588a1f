# SPDX-License-Identifier: Apache-2.0
"""The decision for one request from its window's lanes: the match, the free slot, the
victim, the LRU tail, and the write an OBSERVE makes."""

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import check_params
from ..onehot import select
from .interfaces import decision_layout, stage_layout

__all__ = ["Decision", "LaneData", "DATA_FIELDS", "choice_layout", "decide_lanes", "decide_data",
           "lane_fields", "marks_after_scrub", "sat_inc"]

OBSERVE = regmap.OPS["OBSERVE"]
EVICT = regmap.OPS["EVICT"]
EVICT_ANY = regmap.OPS["EVICT_ANY"]


def sat_inc(p, x, k=1):
    """``min(x + k, COUNT_MAX)``"""
    return Mux(x >= p.COUNT_MAX - (k - 1), p.COUNT_MAX, x + k)[:p.COUNT_WIDTH]


def marks_after_scrub(m, lanes, sc_mark_intent, sc_mark_value):
    """A ``PROBE``-bit signal: every lane's mark at the end of this cycle, with the
    scrubber's mark write of this cycle (``sc_mark_intent`` / ``sc_mark_value``, by bank)
    applied where its row is the lane's (``sc_row_hit``). ``lanes``: the lanes
    (``lane_layout`` each); a lane's bank is its slot's low bits."""
    P = len(lanes)
    pb = P.bit_length() - 1
    marks = Signal(P, name="mark_b")
    for i in range(P):
        bank_i = lanes[i].slot[:pb]
        sc_hit = ((Array(sc_mark_intent)[bank_i] if pb else sc_mark_intent[0])
                  & lanes[i].sc_row_hit)
        sc_val = Array(sc_mark_value)[bank_i] if pb else sc_mark_value[0]
        m.d.comb += marks[i].eq(Mux(sc_hit, sc_val, lanes[i].mark))
    return marks


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
        self._params = p = check_params(params)
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
        choice = decide_lanes(m, self._params, self.request, self.valid, self.match,
                              self.beyond_w1, lambda i, j: self.older[i][j], self.list_empty)
        decide_data(m, self._params, self.decision, self.request, self.window, choice,
                    LaneData(slot=[self.slot[i] for i in range(P)],
                             tag=[self.tag[i] for i in range(P)],
                             count_inc=[self.count_inc[i] for i in range(P)],
                             count_inc2=[self.count_inc2[i] for i in range(P)],
                             count=[self.count[i] for i in range(P)],
                             age=[self.age[i] for i in range(P)], mark=self.mark))
        return m


def choice_layout(p):
    """What a decision chooses from its lanes' flags and age comparisons alone, before any
    lane's data is selected: the one-hot lanes (``hit_lane``: the matching one,
    ``first_free``, ``wins``: the victim, ``wr_lane``: the lane an OBSERVE writes, 0 if
    none, ``slot_lane``: the lane whose slot and mark the write carries) and the flags
    (``present``, ``any_free``, ``warm``: the match is within W1, ``vict_t0``, ``take``,
    ``wr``, ``inv``)."""
    P = p.PROBE
    return data.StructLayout({
        "hit_lane": P, "first_free": P, "wins": P, "wr_lane": P, "slot_lane": P,
        "present": 1, "any_free": 1, "warm": 1, "vict_t0": 1, "take": 1, "wr": 1, "inv": 1,
    })


class LaneData:
    """The per-lane values a decision's selections pick from (lists of ``PROBE`` values;
    ``mark`` a ``PROBE``-bit value)."""

    def __init__(self, *, slot, tag, count, count_inc, count_inc2, age, mark):
        self.slot, self.tag, self.count, self.age, self.mark = slot, tag, count, age, mark
        self.count_inc, self.count_inc2 = count_inc, count_inc2


def decide_lanes(m, p, req, valid, match, old, older, list_empty):
    """The choice (``choice_layout``) of the request ``req`` from its lanes' ``valid``,
    ``match`` and ``old`` (beyond W1) bits and ``older(i, j)`` (lane ``i``'s age exceeds
    lane ``j``'s); returns it as a signal."""
    P = p.PROBE
    ch = Signal(choice_layout(p))
    free = ~valid
    m.d.comb += [ch.present.eq(match.any()), ch.any_free.eq(free.any())]
    # At most one lane matches (one slot per tag); hit_lane makes it one-hot by
    # construction anyway (the last matching lane).
    for i in range(P):
        m.d.comb += ch.hit_lane[i].eq(match[i] & ~match[i + 1:].any() if i < P - 1 else match[i])
    # First free lane in probe order.
    for i in range(P):
        m.d.comb += ch.first_free[i].eq(free[i] & ~free[:i].any() if i else free[0])
    # Victim: greatest saturated age, ties to the lowest probe offset. All pairwise
    # comparisons in parallel (one comparator deep, not a chain of P - 1).
    for i in range(P):
        m.d.comb += ch.wins[i].eq(Cat(*([older(i, j) for j in range(i)] +
                                        [~older(j, i) for j in range(i + 1, P)]),
                                      Const(1, 1)).all())
    # The victim is T0 exactly when some lane is (it has the greatest age): no need to
    # wait for the victim choice.
    m.d.comb += [
        ch.vict_t0.eq(old.any()),
        # The count an OBSERVE leaves: one more for a line seen again within W1.
        ch.warm.eq(ch.present & ~(ch.hit_lane & old).any()),
        ch.wr_lane.eq(Mux(ch.present, ch.hit_lane,
                          Mux(ch.any_free, ch.first_free, Mux(ch.vict_t0, ch.wins, 0)))),
        ch.slot_lane.eq(Mux(ch.present, ch.hit_lane, Mux(ch.any_free, ch.first_free, ch.wins))),
        ch.wr.eq(req.valid & (req.op == OBSERVE) & (ch.present | ch.any_free | ch.vict_t0)),
        # EVICT / EVICT_ANY: lane 0 is the LRU tail.
        ch.take.eq(~list_empty & ((req.op == EVICT_ANY) | old[0])),
        ch.inv.eq(req.valid & ((req.op == EVICT) | (req.op == EVICT_ANY)) & ch.take),
    ]
    return ch


#: The fields of a decision selected from its lanes' data by the choice's one-hot lanes
#: (``lane_fields``): a caller with several versions of a choice may make them per version
#: and pick them with it.
DATA_FIELDS = ("hit_slot", "hit_cnt", "hit_age", "wr_slot", "wr_mark", "cnt_after",
               "cnt_after_inc")


def lane_fields(p, ch, lanes, names=DATA_FIELDS):
    """The decision's ``names`` (of ``DATA_FIELDS``) from the choice ``ch`` and the lanes'
    data (``LaneData``; only the data those fields need), as a dict of values: the matching
    lane's slot, count and age (a QUERY's response and the T-level before), the slot and
    mark E2 writes (``slot_lane``'s: the matching lane, else the first free lane, else the
    victim), and the count an OBSERVE leaves (one more for a line seen again within W1,
    else 1) and that plus one."""
    make = {
        "hit_slot": lambda: select(ch.hit_lane, lanes.slot),
        "hit_cnt": lambda: select(ch.hit_lane, lanes.count),
        "hit_age": lambda: select(ch.hit_lane, lanes.age),
        "wr_slot": lambda: select(ch.slot_lane, lanes.slot),
        "wr_mark": lambda: (ch.slot_lane & lanes.mark).any(),
        "cnt_after": lambda: Mux(ch.warm, select(ch.hit_lane, lanes.count_inc), 1),
        # (2 saturated as the lanes' counts are: a COUNT_WIDTH of 1 holds at most 1)
        "cnt_after_inc": lambda: Mux(ch.warm, select(ch.hit_lane, lanes.count_inc2),
                                     min(2, p.COUNT_MAX)),
    }
    return {name: make[name]() for name in names}


def decide_data(m, p, dd, req, window, ch, lanes, fields=None):
    """Drive the decision ``dd`` (``decision_layout``) from the choice ``ch`` and the
    lanes' data (``LaneData``): every value an AND-OR select by a one-hot lane.
    ``fields``: some of the ``DATA_FIELDS`` as the caller made them (a dict of values),
    instead of from ``ch`` and ``lanes`` (which then need only the data of the others)."""
    P = p.PROBE
    given = dict(fields or {})
    made = lane_fields(p, ch, lanes, [x for x in DATA_FIELDS if x not in given])
    made.update(given)
    m.d.comb += [dd[name].eq(made[name]) for name in given]

    def rest(*names):
        return [dd[name].eq(made[name]) for name in names if name not in given]
    m.d.comb += [
        dd.valid.eq(req.valid), dd.op.eq(req.op), dd.min_tlevel.eq(req.min_tlevel),
        dd.tag.eq(req.tag), dd.t.eq(req.t),
        dd.present.eq(ch.present), dd.any_free.eq(ch.any_free),
        *rest("hit_slot", "hit_cnt", "hit_age"),
        dd.vict_t0.eq(ch.vict_t0), dd.vict_lane.eq(ch.wins),
        dd.take.eq(ch.take), dd.tail_slot.eq(window),
        *[dd.lane_tag[i].eq(lanes.tag[i]) for i in range(P)],
        dd.wr_lane.eq(ch.wr_lane),
        *rest("wr_slot", "wr_mark"),
        dd.wr.eq(ch.wr), dd.inv.eq(ch.inv),
        *rest("cnt_after", "cnt_after_inc"),
    ]

# SPDX-License-Identifier: Apache-2.0
"""E1b: the decision, made for every lane the request ahead may write, and one picked."""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params
from .decision import (Decision, LaneData, choice_layout, decide_data, decide_lanes,
                       lane_fields, marks_after_scrub, sat_inc, select)
from .interfaces import ForwardSignature, decision_layout, lanes_layout
from .options import CoreOptions

__all__ = ["Versions", "PICKED_FIELDS"]

#: The decision's fields E1b makes per version and picks with the choice (the others it
#: selects once, after the pick).
PICKED_FIELDS = ("hit_slot", "hit_cnt", "cnt_after", "cnt_after_inc")


class Versions(wiring.Component):
    """E1b (split evaluation) or the decision half of E (compact).

    The request ahead (in E2) writes or invalidates this cycle, and which lane of this
    window that is, is known only once E2 has decided; so E1b makes the decision's choices
    (``decision.decide_lanes``: which lane matches, is free, is the victim, is written)
    ``PROBE + 1`` times at once, from registers: version ``v < PROBE`` for "lane ``v`` is
    what the request ahead leaves" (the line it writes, or, for an EVICT, a free slot: the
    tail it invalidates is lane 0 of its window), version ``PROBE`` for "it leaves all my
    lanes as they are", and E2's ``forward`` (its one-hot ``lane``, or lane 0 for an
    invalidate, with the lane overlaps registered in E1a) picks one; a version reads
    ``forward.write`` (a register) to tell a write from an invalidate. The choices need
    only the lanes' flags and age comparisons. The matching lane's slot and count and the
    count after an OBSERVE (``PICKED_FIELDS``) are made per version too, each from its
    version's lanes (the request ahead's line in the version's own lane), and picked with
    the choice; the other lanes' data (tags, slots, ages, marks, with the request ahead's
    line in the lane it writes) is selected once, by the picked choice
    (``decision.decide_data``). The compact pipeline makes one decision, without
    forwards.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``split_evaluation``: every version's choices and the pick; else one ``Decision``.

    Ports
    -----
    lanes : In(lanes_layout(params))
        The lanes of the request in E1b (``LaneCompare.lanes``).
    forward : In(ForwardSignature(params))
        E2's write: the line the request ahead leaves (unused in the compact pipeline).
    sc_mark_intent, sc_mark_value : In(PROBE)
        The scrubber's mark write of this cycle (see ``LaneCompare``), by bank.
    list_empty : In(1)
        The LRU list is empty (an EVICT takes nothing).
    decision : Out(decision_layout(params))
        The decision, to ``Commit.decision``.
    """

    def __init__(self, params, options):
        if not isinstance(options, CoreOptions):
            raise TypeError(f"options must be a CoreOptions, not {options!r}")
        self._params = p = check_params(params)
        self.split = options.split_evaluation
        super().__init__({
            "lanes": In(lanes_layout(p)),
            "forward": In(ForwardSignature(p)),
            "sc_mark_intent": In(p.PROBE), "sc_mark_value": In(p.PROBE),
            "list_empty": In(1),
            "decision": Out(decision_layout(p)),
        })

    def _one_decision(self, m, lanes):
        """The compact pipeline's one ``Decision``, on the lanes as E holds them."""
        P = self._params.PROBE
        lane = lanes.lane
        m.submodules.dec = dec = Decision(self._params)
        m.d.comb += [
            dec.request.eq(lanes.request), dec.window.eq(lanes.start),
            dec.list_empty.eq(self.list_empty),
            dec.valid.eq(Cat(x.valid for x in lane)), dec.match.eq(Cat(x.match for x in lane)),
            dec.mark.eq(Cat(x.mark for x in lane)), dec.beyond_w1.eq(lanes.beyond_w1),
        ]
        for i in range(P):
            m.d.comb += [getattr(dec, k)[i].eq(lane[i][k])
                         for k in ("age", "tag", "count", "slot", "count_inc", "count_inc2")]
            m.d.comb += [dec.older[i][j].eq(lanes.older[i][j]) for j in range(P) if j != i]
        m.d.comb += self.decision.eq(dec.decision)

    def elaborate(self, platform):
        m = Module()
        p = self._params
        P = p.PROBE
        lanes, fwd = self.lanes, self.forward
        lane = lanes.lane

        if not self.split:
            self._one_decision(m, lanes)
            return m

        # The pairwise comparisons, as E1a registered them: as read, or against the lane
        # E2 wrote (at most one lane of this window).
        def older_read(i, j):
            return Mux(lanes.forwarded[i], lanes.forward_older[j],
                       Mux(lanes.forwarded[j], lanes.older_forward[i], lanes.older[i][j]))
        eb_gt = [[Signal(name=f"eb_gt{i}_{j}") if i != j else None for j in range(P)]
                 for i in range(P)]
        for i in range(P):
            m.d.comb += [eb_gt[i][j].eq(older_read(i, j)) for j in range(P) if j != i]
        # Marks as they will be at the end of this cycle (this cycle's scrubber write, as
        # intended: the lane whose write E2 cancels is the lane E2 writes, and the version
        # picked then takes that lane from E2).
        mark_b = marks_after_scrub(m, lane, self.sc_mark_intent, self.sc_mark_value)

        # The choices (which lanes match, are free, win, are written), one per version:
        # v < P for "lane v holds the line of the request ahead", P for "it writes none of
        # my lanes". They need only flags and comparisons; the lanes' data is selected
        # once, after the pick.
        choices = []
        for v in range(P + 1):
            def flag(i, own, ahead, v=v):
                return ahead if i == v else own

            def older(i, j, v=v):
                if i == v:
                    return lanes.ahead_older[j]
                if j == v:
                    return lanes.older_ahead[i]
                return eb_gt[i][j]
            choices.append(decide_lanes(
                m, p, lanes.request,
                Cat(flag(i, x.valid, fwd.write) for i, x in enumerate(lane)),
                Cat(flag(i, x.match, fwd.write & lanes.same_line_ahead)
                    for i, x in enumerate(lane)),
                Cat(flag(i, lanes.beyond_w1[i], lanes.ahead_beyond_w1) for i in range(P)),
                older, self.list_empty))
        # Whether the request ahead writes or invalidates a lane of this window, and which,
        # one-hot (E2 writes at most one lane, forward.lane is one-hot, an invalidate is of
        # lane 0 of its window, and E2 never does both), from registers; the version is
        # picked by an AND-OR of the versions' choices with these bits, not by a
        # multiplexer behind an encoded lane number.
        touched = Signal(P, name="fw1_touched")
        m.d.comb += touched.eq(Mux(fwd.write, fwd.lane, Cat(fwd.invalidate, Const(0, P - 1))))
        fw1_any = Signal(name="fw1_any")
        fw1_hit = Signal(P, name="fw1_hit")
        m.d.comb += fw1_any.eq((touched & lanes.ahead_in_window).any())
        m.d.comb += [fw1_hit[i].eq((touched & lanes.ahead_lane[i]).any()) for i in range(P)]
        pick = Cat(fw1_hit, ~fw1_any)
        choice = Signal(choice_layout(p))
        m.d.comb += choice.eq(select(pick, [x.as_value() for x in choices]))

        # The matching lane's slot and count and the count after an OBSERVE
        # (``PICKED_FIELDS``) are made per version, from its own lanes (the request ahead's
        # line in the version's lane, a constant position), and picked with the choice:
        # E2's count and hit registers are one AND-OR behind the pick, not the pick and
        # then a select by the picked lane. The other values are selected once, after the
        # pick, from the lanes' data with the request ahead's line in the lane it writes
        # (a lane it invalidates keeps its mark, the mark a later insert carries).
        per_version = []
        for v, ch in enumerate(choices):
            def own(i, value, ahead, v=v):
                return ahead if i == v else value
            per_version.append(lane_fields(p, ch, LaneData(
                slot=[x.slot for x in lane], tag=None, age=None, mark=None,
                count=[own(i, x.count, fwd.count) for i, x in enumerate(lane)],
                count_inc=[own(i, x.count_inc, fwd.count_inc) for i, x in enumerate(lane)],
                count_inc2=[own(i, x.count_inc2, sat_inc(p, fwd.count_inc))
                            for i, x in enumerate(lane)]), PICKED_FIELDS))
        fields = {name: select(pick, [x[name] for x in per_version]) for name in PICKED_FIELDS}

        def data(own, ahead):
            return [Mux(fw1_hit[i], ahead, own[i]) for i in range(P)]
        decide_data(m, p, self.decision, lanes.request, lanes.start, choice, LaneData(
            slot=[x.slot for x in lane],
            tag=data([x.tag for x in lane], fwd.tag),
            count=None, count_inc=None, count_inc2=None,      # (in ``fields``)
            age=data([x.age for x in lane], lanes.age_ahead),
            mark=Cat(Mux(fw1_hit[i] & fwd.write, fwd.mark, mark_b[i]) for i in range(P))),
            fields=fields)
        return m

# SPDX-License-Identifier: Apache-2.0
"""E1b: the decision, made for every lane the request ahead may write, and one picked."""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .decision import Decision, sat_inc
from .interfaces import ForwardSignature, decision_layout, lanes_layout
from .options import CoreOptions

__all__ = ["Versions"]


class Versions(wiring.Component):
    """E1b (split evaluation) or the decision half of E (compact).

    The request ahead (in E2) writes or invalidates this cycle, and which lane of this
    window that is, is known only once E2 has decided; so E1b decides ``PROBE + 1`` times
    at once, from registers: version ``v < PROBE`` for "lane ``v`` is what the request
    ahead leaves" (the line it writes, or, for an EVICT, a free slot: the tail it
    invalidates is lane 0 of its window), version ``PROBE`` for "it leaves all my lanes
    as they are", and E2's ``forward`` (its one-hot ``lane``, or lane 0 for an
    invalidate, with the lane overlaps registered in E1a) only picks one. A version
    reads ``forward.write`` (a register) to tell the two apart. The compact pipeline
    makes one decision, without forwards.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``split_evaluation``: every version and the pick; else one ``Decision``.

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
        self._params = p = params
        self.split = options.split_evaluation
        super().__init__({
            "lanes": In(lanes_layout(p)),
            "forward": In(ForwardSignature(p)),
            "sc_mark_intent": In(p.PROBE), "sc_mark_value": In(p.PROBE),
            "list_empty": In(1),
            "decision": Out(decision_layout(p)),
        })

    def _decide(self, m, name, lanes, pick, older, mark):
        """One ``Decision`` of the request in ``lanes``; ``pick(i, field, ahead)`` is lane
        ``i``'s value of ``field`` (or the request ahead's ``ahead``), ``older(i, j)`` the
        comparison of lanes ``i`` and ``j``, ``mark`` the lanes' marks."""
        P = self._params.PROBE
        lane = lanes.lane
        m.submodules[name] = dec = Decision(self._params)
        m.d.comb += [
            dec.request.eq(lanes.request), dec.window.eq(lanes.start),
            dec.list_empty.eq(self.list_empty), dec.mark.eq(mark),
            dec.valid.eq(Cat(pick(i, "valid", self.forward.write) for i in range(P))),
            dec.match.eq(Cat(pick(i, "match", self.forward.write & lanes.same_line_ahead)
                             for i in range(P))),
            dec.beyond_w1.eq(Cat(pick(i, lanes.beyond_w1[i], lanes.ahead_beyond_w1)
                                 for i in range(P))),
        ]
        fwd = self.forward
        ahead = dict(age=lanes.age_ahead, tag=fwd.tag, count=fwd.count,
                     count_inc=fwd.count_inc, count_inc2=sat_inc(self._params, fwd.count_inc))
        for i in range(P):
            m.d.comb += [getattr(dec, k)[i].eq(pick(i, k, ahead[k])) for k in ahead]
            m.d.comb += dec.slot[i].eq(lane[i].slot)
            m.d.comb += [dec.older[i][j].eq(older(i, j)) for j in range(P) if j != i]
        return dec.decision

    def elaborate(self, platform):
        m = Module()
        p = self._params
        P = p.PROBE
        pb = P.bit_length() - 1
        lanes, fwd = self.lanes, self.forward
        lane = lanes.lane

        def field(i, name):
            return name if not isinstance(name, str) else lane[i][name]

        if not self.split:
            def own(i, name, ahead):
                return field(i, name)
            m.d.comb += self.decision.eq(self._decide(
                m, "dec", lanes, own, lambda i, j: lanes.older[i][j],
                Cat(x.mark for x in lane)))
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
        mark_b = Signal(P)
        for i in range(P):
            bank_i = lane[i].slot[:pb]      # lane i's bank: its slot's low bits
            sc_hit = (Array(self.sc_mark_intent)[bank_i] if pb
                      else self.sc_mark_intent[0]) & lane[i].sc_row_hit
            sc_val = Array(self.sc_mark_value)[bank_i] if pb else self.sc_mark_value[0]
            m.d.comb += mark_b[i].eq(Mux(sc_hit, sc_val, lane[i].mark))

        versions = []
        for v in range(P + 1):       # v < P: lane v holds the line of the one ahead
            def pick(i, name, ahead, v=v):
                return ahead if i == v else field(i, name)

            def older(i, j, v=v):
                if i == v:
                    return lanes.ahead_older[j]
                if j == v:
                    return lanes.older_ahead[i]
                return eb_gt[i][j]
            # (an invalidated lane keeps its mark: the mark a later insert carries)
            mark = Cat(pick(i, mark_b[i], Mux(fwd.write, fwd.mark, mark_b[i]))
                       for i in range(P))
            versions.append(self._decide(m, f"dec{v}", lanes, pick, older, mark))
        # Whether the request ahead writes or invalidates a lane of this window, and which
        # (in binary: E2 writes at most one lane, forward.lane is one-hot, an invalidate
        # is of lane 0 of its window, and E2 never does both).
        touched = Signal(P, name="fw1_touched")
        m.d.comb += touched.eq(Mux(fwd.write, fwd.lane, Cat(fwd.invalidate, Const(0, P - 1))))
        fw1_any = Signal()
        fw1_lane = Signal(range(P), name="fw1_lane")
        m.d.comb += fw1_any.eq((touched & lanes.ahead_in_window).any())
        m.d.comb += [fw1_lane[k].eq((touched & lanes.ahead_lane_bit[k]).any())
                     for k in range(pb)]
        m.d.comb += self.decision.eq(Mux(fw1_any, Array(versions[:P])[fw1_lane], versions[P]))
        return m

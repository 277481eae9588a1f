# SPDX-License-Identifier: Apache-2.0
"""E1b of the predictor mode: the request's lanes, their ``pmeta`` words, marks and keys
registered for E2, with E2's write of the request right ahead put into the lane it
wrote."""

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params, config_layout
from ..predictor.constants import BURST_WIDTH, KEY_WIDTH, SEEN_WIDTH
from ..predictor.keys import ReuseKey
from .decision import marks_after_scrub
from .interfaces import lanes_layout, pmeta_layout

__all__ = ["PredictorLanes", "lane_key_layout", "predictor_e2_layout",
           "predictor_write_layout"]


#: A lane's key as if it were the match (``ReuseKey`` with ``known``): ``key``, ``near``,
#: ``burst_next``, and ``seen_next`` (P4's ``seen'``: its ``seen`` plus one, saturating).
lane_key_layout = data.StructLayout({"key": KEY_WIDTH, "near": 1, "burst_next": BURST_WIDTH,
                                     "seen_next": SEEN_WIDTH})


def predictor_e2_layout(p):
    """What E2 holds of the request from E1b: its lanes (``lanes_layout``), every lane's
    ``pmeta`` word (probe order), its key as if it were the match (``lane_key_layout``) and
    its mark at the end of E1b's cycle, with the write of the request then in E2 put into
    the lane it wrote (``ahead_wrote``, one-hot), and whether it is a FREE."""
    P = p.PROBE
    return data.StructLayout({
        "lanes": lanes_layout(p),
        "pm": data.ArrayLayout(pmeta_layout(), P),
        "key": data.ArrayLayout(lane_key_layout, P),
        "mark": P,
        "ahead_wrote": P,
        "free": 1,
    })


def predictor_write_layout(p):
    """E2's write as the request right behind it meets it: the line written (``write``,
    its lane of E2's window one-hot in ``lane``, its count, the count one more, its mark
    and its ``pmeta`` word), or a FREE's invalidate of lane 0 of E2's window
    (``free``)."""
    return data.StructLayout({
        "write": 1, "lane": p.PROBE,
        "count": p.COUNT_WIDTH, "count_inc": p.COUNT_WIDTH, "mark": 1,
        "pm": pmeta_layout(),
        "free": 1,
    })


class PredictorLanes(wiring.Component):
    """E1b of the predictor mode: the E1b request's lanes registered into E2 (``e2``).

    Every lane's key and ``seen'`` (P4) are made here as if the lane were the match, from
    its burst, age and ``seen`` (a ``ReuseKey`` per lane), so that E2's lookups start from
    registers.
    The request right ahead, in E2 now, writes a lane of this window or frees one
    (``ahead``, E2's feedback): the lane that holds its slot is registered as the write
    leaves it (its comparisons with the written line are E1a's ``*_ahead``), or emptied.

    Parameters
    ----------
    params : regmap.Params

    Ports
    -----
    active : In(1)
        ``POLICY.MODE`` is 1: the E1b request is the mode's (else ``e2`` holds none).
    lanes : In(lanes_layout(params))
        The request in E1b and its lanes (``LaneCompare.lanes``).
    pmeta : In(ArrayLayout(pmeta_layout(), PROBE))
        The ``pmeta`` words of its lanes, probe order.
    free : In(1)
        The E1b request is a FREE, not an EVICT_ANY.
    sc_mark_intent, sc_mark_value : In(PROBE)
        The scrubber's mark write of this cycle, by bank: a lane's mark at the end of it.
    cfg : In(config_layout(params))
        ``w3`` (the keys).
    ahead : In(predictor_write_layout(params))
        E2's write or FREE of this cycle (the request right ahead).
    e2 : Out(predictor_e2_layout(params))
        The request in E2 (a register).
    """

    def __init__(self, params):
        self._params = p = check_params(params)
        P = p.PROBE
        super().__init__({
            "active": In(1),
            "lanes": In(lanes_layout(p)),
            "pmeta": In(data.ArrayLayout(pmeta_layout(), P)),
            "free": In(1),
            "sc_mark_intent": In(P), "sc_mark_value": In(P),
            "cfg": In(config_layout(p)),
            "ahead": In(predictor_write_layout(p)),
            "e2": Out(predictor_e2_layout(p)),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        P = p.PROBE
        ln, e, ahead = self.lanes, self.e2, self.ahead
        mine = self.active & ln.request.valid

        def lane_key(name, pm, sage):
            """A ``ReuseKey`` of a line known to be there, with the ``pmeta`` word ``pm``,
            as a ``lane_key_layout`` value."""
            k = ReuseKey(p)
            m.submodules[name] = k
            value = Signal(lane_key_layout, name=f"{name}_value")
            m.d.comb += [k.known.eq(1), k.burst.eq(pm.burst), k.sage.eq(sage),
                         k.seen.eq(pm.seen), k.w3.eq(self.cfg.w3),
                         value.key.eq(k.key), value.near.eq(k.near),
                         value.burst_next.eq(k.burst_next), value.seen_next.eq(k.seen_next)]
            return value

        mark_b = marks_after_scrub(m, ln.lane, self.sc_mark_intent, self.sc_mark_value)
        m.d.sync += [e.lanes.eq(ln), e.pm.eq(self.pmeta), e.mark.eq(mark_b),
                     e.lanes.request.valid.eq(mine), e.free.eq(self.free)]
        for i in range(P):
            m.d.sync += e.key[i].eq(lane_key(f"lane_key{i}", self.pmeta[i], ln.lane[i].age))

        # The write of the request ahead, in the lane of this window that holds its slot:
        # that lane's slot compared with every lane of E2's window beside E2's decision,
        # and picked by the written lane.
        written_key = lane_key("written_key", ahead.pm, ln.age_ahead)
        for i in range(P):
            hit = Signal(name=f"ahead_wrote{i}")
            x, y = ln.lane[i], e.lanes.lane[i]
            same_slot = Cat(e.lanes.lane[k].slot == x.slot for k in range(P))
            m.d.comb += hit.eq(mine & ahead.write & (ahead.lane & same_slot).any())
            m.d.sync += e.ahead_wrote[i].eq(hit)
            # A FREE's invalidate (lane 0 of its window) empties the lane that holds it.
            with m.If(mine & ahead.free & (x.slot == e.lanes.start)):
                m.d.sync += [y.valid.eq(0), y.match.eq(0)]
            with m.If(hit):
                m.d.sync += [y.valid.eq(1), y.match.eq(ln.same_line_ahead),
                             y.age.eq(ln.age_ahead), y.tag.eq(e.lanes.request.tag),
                             y.count.eq(ahead.count), y.count_inc.eq(ahead.count_inc),
                             y.mark.eq(ahead.mark), e.mark[i].eq(ahead.mark),
                             e.lanes.beyond_w1[i].eq(ln.ahead_beyond_w1),
                             e.pm[i].eq(ahead.pm), e.key[i].eq(written_key)]
        return m

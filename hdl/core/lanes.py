# SPDX-License-Identifier: Apache-2.0
"""E1a: the window's banks compared and rotated into lanes, E2's write forwarded into
them, and the victim choice's age comparisons made, all registered for E1b."""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params, config_layout
from ..table import probe_order
from ..tlevel import saturated_age
from .age_order import Sides, age_stamp, chosen, register_age_order
from .bank_sides import bank_age, bank_count, bank_last
from .decision import sat_inc
from .interfaces import ForwardSignature, lanes_layout, window_layout
from .options import CoreOptions

__all__ = ["LaneCompare"]


class LaneCompare(wiring.Component):
    """E1a (split evaluation; registered) or the lane half of E (compact; combinational).

    The tag comparison, the saturated age and the stamp comparisons are made per bank,
    straight from M's registers, and only their results are rotated into probe order
    (lane ``i`` is bank ``(h + i) mod PROBE``, the low bits of its registered slot).
    E2's write and invalidate are forwarded as results (compare-then-forward: the
    forwarded lane's match and age were compared a cycle earlier, ``window.same_line`` /
    ``forward_age``), so the forward is a 2:1 choice, not a comparator behind E2.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``split_evaluation``: E1a, with the forward and every comparison registered into
        ``lanes``. Else (compact) ``lanes`` is combinational from ``window``, without
        forwards (E decides and writes in one cycle).

    Ports
    -----
    window : In(window_layout(params))
        The window of the request in E1a (``WindowRead.window``).
    forward : In(ForwardSignature(params))
        E2's write and invalidate (unused in the compact pipeline).
    sc_mark_intent, sc_mark_value : In(PROBE)
        The scrubber's mark write of this cycle, as it intends it (``BucketTable``): the
        mark a lane carries is the one at the end of the cycle. (Not as E2's write may
        cancel it: it is cancelled only for the slot E2 writes, whose lane is forwarded.)
    sc_mark_row_next : In(range(ROWS))
        The row of the next cycle's mark write (for ``lane[i].sc_row_hit``).
    cfg : In(config_layout(params))
        ``w1`` (compact: the lanes' "older than W1").
    lanes : Out(lanes_layout(params))
        The lanes of the request in E1b (compact: in E), see ``lanes_layout``.
    busy : Out(1)
        A request is in E1b (compact: 0).
    """

    def __init__(self, params, options):
        if not isinstance(options, CoreOptions):
            raise TypeError(f"options must be a CoreOptions, not {options!r}")
        self._params = p = check_params(params)
        self.split = options.split_evaluation
        P = p.PROBE
        self._pb = p.BANK_BITS              # the bits of a bank number
        super().__init__({
            "window": In(window_layout(p)),
            "forward": In(ForwardSignature(p)),
            "sc_mark_intent": In(P), "sc_mark_value": In(P),
            "sc_mark_row_next": In(range(p.ROWS)),
            "cfg": In(config_layout(p)),
            "lanes": Out(lanes_layout(p)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        mark_now_b, match_b, age_b = self._banks(m)
        lane, fw_wr = self._lanes(m, mark_now_b, match_b, age_b)
        if self.split:
            self._registered(m, lane, fw_wr)
        else:
            self._compact(m, lane)
        return m

    def _rotated(self, values, i):
        """Lane ``i``'s value of the per-bank ``values``."""
        return probe_order(list(values), self.window.lane_slot[i][:self._pb], 0)

    def _per_bank(self, m, f, name):
        """A named ``PROBE``-bit signal of ``f(bank)``."""
        bits = Signal(self._params.PROBE, name=name)
        m.d.comb += [bits[b].eq(f(b)) for b in range(self._params.PROBE)]
        return bits

    def _banks(self, m):
        """Per bank: the mark at the end of this cycle (compact: as held; E's own write
        drops a scrubber mark of the slot it writes), the tag comparison, the age."""
        p, split = self._params, self.split
        P, ts = p.PROBE, p.TS_WIDTH
        mb, e = self.window.bank, self.window.request
        if split:
            mark_now_b = self._per_bank(
                m, lambda b: Mux(self.sc_mark_intent[b] & mb[b].sc_row_hit,
                                 self.sc_mark_value[b], mb[b].mark), "mark_now_b")
        else:
            mark_now_b = self._per_bank(m, lambda b: mb[b].mark, "mark_now_b")
        # A bank's word enters E1a's logic on both sides of the table's bypass choices
        # (``sides``), and the results are chosen after it: the carry chains (the stamp
        # subtractions, the count increments), the stale bit and the saturation start
        # straight from the block RAMs' output registers, with no multiplexer and route in
        # front of them.
        # (a bank's match: split, the table's, made from both sides of its bypass choices
        # with the choices inside the comparison, the bypassed tag compared in M, so that
        # only the raw word's comparison is behind the output register; compact, from the
        # word as read)
        match_b = self._per_bank(m, lambda b: (mb[b].sides.match if split else
                                               mb[b].valid & (mb[b].tag == e.tag)), "match_b")
        age_b = [Signal(ts, name=f"age_bank{b}") for b in range(P)]
        m.d.comb += [age_b[b].eq(chosen(bank_age(p, self.window, b), bank_last(self.window, b)))
                     for b in range(P)]
        return mark_now_b, match_b, age_b

    def _lanes(self, m, mark_now_b, match_b, age_b):
        """Per lane: as read, or (split) E2's forwarded write / invalidate. Returns the
        lanes (a dict of signals each) and, split, whether each holds the forwarded
        write."""
        p, split = self._params, self.split
        P, ts, pb = p.PROBE, p.TS_WIDTH, self._pb
        win, fwd, mb = self.window, self.forward, self.window.bank
        rotated = self._rotated
        lane = [dict(valid=Signal(name=f"valid{i}"), match=Signal(name=f"match{i}"),
                     age=Signal(ts, name=f"age{i}"), tag=Signal(p.TAG_WIDTH, name=f"tag{i}"),
                     count=Signal(p.COUNT_WIDTH, name=f"cnt{i}"), mark=Signal(name=f"mark{i}"))
                for i in range(P)]
        fw_wr = []
        for i in range(P):
            r_valid = rotated([x.valid for x in mb], i)
            r_match = rotated(match_b, i)
            read = dict(tag=rotated([x.tag for x in mb], i), age=rotated(age_b, i),
                        count=rotated([x.count for x in mb], i), mark=rotated(mark_now_b, i))
            if split:
                wr = Signal(name=f"fw_wr{i}")
                inv = Signal(name=f"fw_inv{i}")
                # (an EVICT's tail slot is lane 0 of its window)
                m.d.comb += [wr.eq(fwd.write & (fwd.lane & win.overlap[i]).any()),
                             inv.eq(fwd.invalidate & win.overlap[i][0])]
                fw_wr.append(wr)
                kept = r_valid & ~inv
                written = dict(tag=fwd.tag, age=win.forward_age, count=fwd.count, mark=fwd.mark)
                # (the match as an AND-OR of the banks' with one-hot selects made from
                # registers, the forward's choice folded in: the bank's comparison meets
                # one AND-OR level after it, not the rotation's multiplexer and then the
                # forward's)
                keep = Signal(P, name=f"match_sel{i}")
                m.d.comb += [keep[b].eq(~wr & ~inv & (win.lane_slot[i][:pb] == b) if pb
                                        else ~wr & ~inv) for b in range(P)]
                m.d.comb += [lane[i]["valid"].eq(wr | kept),
                             lane[i]["match"].eq((wr & win.same_line) |
                                                 (keep & match_b).any())]
                m.d.comb += [lane[i][k].eq(Mux(wr, written[k], read[k])) for k in read]
            else:
                m.d.comb += [lane[i]["valid"].eq(r_valid),
                             lane[i]["match"].eq(r_match)]
                m.d.comb += [lane[i][k].eq(read[k]) for k in read]
        return lane, fw_wr

    def _compact(self, m, lane):
        """Compact: E's decision reads the lanes directly."""
        p, out, win = self._params, self.lanes, self.window
        P = p.PROBE
        m.d.comb += [out.request.eq(win.request), out.start.eq(win.start)]
        for i in range(P):
            m.d.comb += [out.lane[i][k].eq(v) for k, v in lane[i].items()]
            m.d.comb += [out.lane[i].slot.eq(win.lane_slot[i]),
                         out.lane[i].count_inc.eq(sat_inc(p, lane[i]["count"])),
                         out.lane[i].count_inc2.eq(sat_inc(p, lane[i]["count"], 2)),
                         out.beyond_w1[i].eq(lane[i]["age"] > self.cfg.w1)]
            m.d.comb += [out.older[i][j].eq(lane[i]["age"] > lane[j]["age"])
                         for j in range(P) if j != i]

    def _registered(self, m, lane, fw_wr):
        """Split: the lanes, the victim choice's age comparisons, the request ahead's
        overlaps and the counts one and two more, registered into ``lanes`` for E1b."""
        p, out, win, fwd = self._params, self.lanes, self.window, self.forward
        P, ts, pb = p.PROBE, p.TS_WIDTH, self._pb
        e, eb = win.request, out.request
        rotated = self._rotated
        m.d.comb += self.busy.eq(eb.valid)
        age_ahead_now = saturated_age(p, e.t, eb.t, 0)
        m.d.sync += [eb.eq(e), out.start.eq(win.start),
                     out.same_line_ahead.eq(e.tag == eb.tag), out.age_ahead.eq(age_ahead_now)]

        # The victim choice's age comparisons (``age_order``), registered so that E1b is
        # logic on flip-flops only: a bank's (saturated, stamp) on both sides of the
        # ``meta`` choice (the saturation, behind the stale bit, is not in front of them).
        def bank_stamp(b):
            sel, byp, raw = bank_last(win, b)
            return Sides(sel, *[age_stamp(bank_age(p, win, b)(lf), lf[0], ts)
                                for lf in (byp, raw)])
        register_age_order(m, ts=ts, out=out, banks=[bank_stamp(b) for b in range(P)],
                           forwarded=age_stamp(win.forward_age, fwd.last, ts),
                           ahead=age_stamp(age_ahead_now, eb.t, ts), t_w1=win.t_w1,
                           fw_wr=fw_wr, rotated=rotated,
                           per_bank=lambda f, name: self._per_bank(m, f, name))
        # Which lane of this window each lane j of the window ahead is: whether it is in it
        # at all, and, one-hot by lane, the overlaps themselves (E1b's pick: an AND-OR).
        ov = win.overlap_next
        for j in range(P):
            m.d.sync += out.ahead_in_window[j].eq(Cat(ov[i][j] for i in range(P)).any())
        m.d.sync += [out.ahead_lane[i].eq(ov[i]) for i in range(P)]
        # (the counts one and two more, per bank on both sides of the bypass choice)
        inc_b = [Signal(p.COUNT_WIDTH, name=f"count_inc_bank{b}") for b in range(P)]
        inc2_b = [Signal(p.COUNT_WIDTH, name=f"count_inc2_bank{b}") for b in range(P)]
        for b in range(P):
            m.d.comb += [inc_b[b].eq(chosen(lambda c: sat_inc(p, c), bank_count(win, b))),
                         inc2_b[b].eq(chosen(lambda c: sat_inc(p, c, 2), bank_count(win, b)))]
        for i in range(P):
            m.d.sync += [out.lane[i][k].eq(v) for k, v in lane[i].items()]
            m.d.sync += [
                # (the counts one and two more, for E1b's count after)
                out.lane[i].count_inc.eq(Mux(fw_wr[i], fwd.count_inc,
                                             rotated(inc_b, i))),
                out.lane[i].count_inc2.eq(Mux(fw_wr[i], sat_inc(p, fwd.count_inc),
                                              rotated(inc2_b, i))),
                out.lane[i].slot.eq(win.lane_slot[i]),
                out.lane[i].sc_row_hit.eq(win.lane_slot[i][pb:] == self.sc_mark_row_next),
            ]

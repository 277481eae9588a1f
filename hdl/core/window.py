# SPDX-License-Identifier: Apache-2.0
"""R and M: the window read. R gives the table the window start (the hash, or the LRU
tail for an EVICT); in M the banks' words are in the block RAMs' own output registers
(the table's ``output_register``), with every write up to the end of M's cycle bypassed
in beside them, so that E1a starts from flip-flops and no logic sits between a block RAM
and its register."""

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import check_params, config_layout
from ..table import sides_layout
from ..tlevel import saturated_age
from .interfaces import stage_layout, window_layout
from .options import CoreOptions

__all__ = ["WindowRead", "m_stage_layout"]

# R reads the window at the LRU tail for the ops with op[1] set.
assert all((code >> 1) & 1 == name.startswith("EVICT") for name, code in regmap.OPS.items())


def m_stage_layout(p):
    """The request in M: the request and its window start."""
    return data.StructLayout({"request": stage_layout(p), "start": p.SLOT_WIDTH})


class WindowRead(wiring.Component):
    """R (the window start) and M (the window registered in bank order).

    Slot ``h + i`` of the window at ``h`` (lane ``i``) is in bank ``(h + i) mod PROBE``;
    this stage keeps the banks in bank order, and ``LaneCompare`` rotates results into
    lanes. The compact pipeline has no M stage: the table's outputs are E's banks.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``m_stage`` (the fast pipeline): the window is the table's registered read (a
        ``BucketTable`` with ``output_register``), and M registers the lane overlaps E1a's
        and E1b's forwards need. Else (compact) R's
        window start is registered for E, and E reads the table's outputs directly.

    Ports
    -----
    request : In(stage_layout(params))
        The request in R (the hash's delay line).
    hash, tail : In(SLOT_WIDTH)
        The hash of its line (mod ENTRIES) and the LRU tail (the window start of an EVICT
        / EVICT_ANY, ``op[1]`` set).
    rd_slot : Out(SLOT_WIDTH)
        The window start, to the table's ``rd_slot``.
    bk_tag, bk_count, bk_last, bk_valid, bk_fresh, bk_mark_raw, bk_row, bk_sc_row_hit, bk_sides : In
        The table's window read in bank order (``BucketTable``'s ports of the same names):
        in E1a's cycle (fast pipeline: the registered read), or in E's (compact).
    ahead : In(stage_layout(params)), ahead_start : In(SLOT_WIDTH)
        The request in E1b and its window start (in E2 when the request in M is in E1a).
    cfg : In(config_layout(params))
        ``w1``, for ``t_w1``.
    window : Out(window_layout(params))
        The window of the request in E1a (E), see ``window_layout``.
    m : Out(m_stage_layout(params))
        The request in M and its window start (zero in the compact pipeline).
    busy : Out(1)
        A request is in M or in E1a (E).
    """

    def __init__(self, params, options):
        if not isinstance(options, CoreOptions):
            raise TypeError(f"options must be a CoreOptions, not {options!r}")
        self._params = p = check_params(params)
        self.m_stage = options.m_stage
        P, sw, rows = p.PROBE, p.SLOT_WIDTH, p.ROWS

        def banks(width):
            return In(data.ArrayLayout(width, P))

        super().__init__({
            "request": In(stage_layout(p)), "hash": In(sw), "tail": In(sw),
            "rd_slot": Out(sw),
            "bk_tag": banks(p.TAG_WIDTH), "bk_count": banks(p.COUNT_WIDTH),
            "bk_last": banks(p.TS_WIDTH), "bk_valid": In(P), "bk_fresh": In(P),
            "bk_mark_raw": In(P), "bk_row": banks(range(rows)),
            "bk_sc_row_hit": In(P),
            "bk_sides": In(data.ArrayLayout(sides_layout(p), P)),
            "ahead": In(stage_layout(p)), "ahead_start": In(sw),
            "cfg": In(config_layout(p)),
            "window": Out(window_layout(p)),
            "m": Out(m_stage_layout(p)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        P, sw, ts = p.PROBE, p.SLOT_WIDTH, p.TS_WIDTH
        win, mreg = self.window, self.m

        # R: the window start.
        m.d.comb += self.rd_slot.eq(Mux(self.request.op[1], self.tail, self.hash))
        # The stage before E1a (M, or R) and its window start; the lane slots are constant
        # adds from it, registered beside E1a's start.
        # (The requests and window starts are registers of their own, driving the ports:
        # Yosys folds a register's reset into its flip-flops only when its bits are not
        # copied from a wider register's.)
        mreq, m_h = Signal(stage_layout(p), name="mreq"), Signal(sw, name="m_h")
        e, e_h = Signal(stage_layout(p), name="e"), Signal(sw, name="e_h")
        pre_req = mreq if self.m_stage else self.request
        pre_h = m_h if self.m_stage else self.rd_slot
        if self.m_stage:
            m.d.sync += [mreq.eq(self.request), m_h.eq(self.rd_slot)]
            m.d.comb += [mreg.request.eq(mreq), mreg.start.eq(m_h)]
        m.d.sync += [e.eq(pre_req), e_h.eq(pre_h)]
        m.d.comb += [win.request.eq(e), win.start.eq(e_h)]
        m.d.sync += [win.lane_slot[i].eq((pre_h + i)[:sw]) for i in range(P)]
        m.d.comb += self.busy.eq(mreg.request.valid | win.request.valid)

        # The banks: the table's outputs, in E1a's cycle. Fast pipeline: in M the words are
        # in the block RAMs' own output registers (the table's registered read), with the
        # bypass registers beside them, every write up to the end of M's cycle included:
        # no logic between a block RAM and its register; E1a starts from the registers
        # and the bypass choice's multiplexer. Compact: the table's outputs are E's banks
        # (the mark as read: the mark at the end of the cycle depends on this cycle's
        # write, which E makes).
        mb = win.bank
        for b in range(P):
            m.d.comb += [
                mb[b].tag.eq(self.bk_tag[b]), mb[b].count.eq(self.bk_count[b]),
                mb[b].last.eq(self.bk_last[b]), mb[b].valid.eq(self.bk_valid[b]),
                mb[b].fresh.eq(self.bk_fresh[b]), mb[b].mark.eq(self.bk_mark_raw[b]),
                mb[b].row.eq(self.bk_row[b]), mb[b].sc_row_hit.eq(self.bk_sc_row_hit[b]),
                mb[b].sides.eq(self.bk_sides[b]),
            ]
        if not self.m_stage:
            return m

        def overlap(out, h_ahead, name):
            """Registered ``out[i][j]``: lane i of the window at ``pre_h`` is lane j of the
            window at ``h_ahead`` (``pre_h - h_ahead == j - i`` mod ENTRIES), so that a
            forward finds the lane a request ahead writes from its one-hot
            ``forward.lane`` with an AND-OR, not with slot comparators behind E2."""
            delta = Signal(sw, name=f"{name}_delta")
            m.d.comb += delta.eq(pre_h - h_ahead)
            # (a register per lane: several bits are the same comparison, and Yosys folds
            # the reset of a merged register's bits only when it is a signal of its own)
            for i in range(P):
                ov = Signal(P, name=f"{name}{i}")
                m.d.sync += [ov[j].eq(delta == ((j - i) % p.ENTRIES)) for j in range(P)]
                m.d.comb += out[i].eq(ov)

        # The request in E2 while this one is in E1a is in E1b now; the one in E2 while
        # this one is in E1b is in E1a now.
        overlap(win.overlap, self.ahead_start, "e_ov")
        overlap(win.overlap_next, win.start, "e_ov1")
        # The forwarded lane's match and age, compared a cycle ahead between the same two
        # requests (the stages move in lockstep): no tag comparison behind E2.
        m.d.sync += [win.same_line.eq(pre_req.tag == self.ahead.tag),
                     win.forward_age.eq(saturated_age(p, pre_req.t, self.ahead.t, 0)),
                     win.t_w1.eq((pre_req.t - self.cfg.w1 - 1)[:ts])]

        return m

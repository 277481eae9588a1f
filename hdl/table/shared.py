# SPDX-License-Identifier: Apache-2.0
"""What every bank of the bucket table shares (``shared``, the namespace ``w`` that the
parts in ``banks.py``, ``scrub.py`` and ``bypass.py`` take): the layouts, the window's and
the write sources' rows, the scrubber's port, the meta write, the row compares of the
bypass, the tag ``bk_sides.match`` compares with, and the checks collected."""

from types import SimpleNamespace

from amaranth import Signal

from .bypass import WindowRows
from .layouts import ent_word_layout, meta_word_layout, scrub_lane_layout, split_slot
from .scrub import scrub_port

__all__ = ["shared"]


def shared(table, m):
    """What every bank's part shares (returned as a namespace ``w``, which the parts in
    ``banks.py``, ``scrub.py`` and ``bypass.py`` take): the layouts, the
    window's and the write sources' rows, the scrubber's row pipeline and its ``scrub``
    memory, the meta write, the row compares of the bypass, the tag ``bk_sides.match``
    compares with, and the checks collected (with protection)."""
    p = table.params
    rows, pb = table.rows, p.BANK_BITS
    rw = max(0, rows.bit_length() - 1)            # row address bits

    ent_layout = ent_word_layout(p)
    meta_layout = meta_word_layout(p, table.gen_width)
    copy_layout = scrub_lane_layout(p)

    # Window addressing: bank b holds slot h + ((b - h) mod P), at row hi + (b < lo).
    h_lo, h_hi = split_slot(table.rd_slot, pb)

    w_bank, w_row = split_slot(table.wr_slot, pb)
    i_bank, i_row = split_slot(table.inv_slot, pb)
    protected = table.protection != "none"
    checks = []           # (uncorrectable, corrected, MEM_ID, slot) of every read
    # The scrubber's rows and its copy of every bank's meta (scrub.py).
    scrub = scrub_port(table, m, copy_layout, table.memory)
    meta_data = Signal(meta_layout)
    copy_data = Signal(copy_layout)               # meta_data without gen
    meta_addr = Signal(range(rows))
    m.d.comb += [
        meta_data.last.eq(table.wr_last), meta_data.fresh.eq(table.wr_mark),
        meta_data.valid.eq(~(table.inv_en | table.clear_en)),
        meta_data.gen.eq(table.generation),
        copy_data.last.eq(meta_data.last), copy_data.fresh.eq(meta_data.fresh),
        copy_data.valid.eq(meta_data.valid),
    ]
    with m.If(table.clear_en):
        m.d.comb += meta_addr.eq(table.clear_row)
    with m.Elif(table.inv_en):
        m.d.comb += meta_addr.eq(i_row)
    with m.Else():
        m.d.comb += meta_addr.eq(w_row)
    m.d.comb += scrub.write.addr.eq(meta_addr)

    # The window reads return what a read transparent for the write port would, from
    # bypass registers beside the block RAMs (bypass.py).
    rows_at = WindowRows(m, h_lo, h_hi, rw)
    w_cmp = rows_at.compare(w_row, "wr")
    pm_bank = pm_row = pm_cmp = None
    if table.pmeta_width:
        pm_bank, pm_row = split_slot(table.pm_slot, pb)
        pm_cmp = rows_at.compare(pm_row, "pm")
    i_cmp = rows_at.compare(i_row, "inv")
    clr_cmp = rows_at.compare(table.clear_row, "clear")
    sc_cmp = rows_at.compare(scrub.row_qqq, "sc_mark")

    # The tag of the request whose window is on bk_* now (rd_tag of the cycle before),
    # for bk_sides.match.
    rd_tag_q = None
    if table.output_register:
        rd_tag_q = Signal(p.TAG_WIDTH, name="rd_tag_q")
        m.d.sync += rd_tag_q.eq(table.rd_tag)
    return SimpleNamespace(
        params=p, pb=pb, rw=rw, protected=protected, checks=checks,
        ent_layout=ent_layout, meta_layout=meta_layout, copy_layout=copy_layout,
        h_lo=h_lo, h_hi=h_hi, w_bank=w_bank, w_row=w_row, i_bank=i_bank, i_row=i_row,
        pm_bank=pm_bank, pm_row=pm_row,
        scrub=scrub,
        meta_data=meta_data, copy_data=copy_data, meta_addr=meta_addr,
        rows_at=rows_at, w_cmp=w_cmp, pm_cmp=pm_cmp, i_cmp=i_cmp, clr_cmp=clr_cmp,
        sc_cmp=sc_cmp, rd_tag_q=rd_tag_q)

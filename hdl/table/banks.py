# SPDX-License-Identifier: Apache-2.0
"""One bank of the bucket table: its window arrays (``ent``, ``meta``, ``mark`` and, in the
predictor build, ``pmeta``), read at the bank's row of the window, and the datapath's
writes into them. Parts of ``BucketTable.elaborate``: ``table`` is the ``BucketTable``,
``m`` its module, ``w`` the namespace of what the banks share (``shared.py``), ``k`` bank
``b``'s."""

from types import SimpleNamespace

from amaranth import Const, Mux, Signal

from ..protect import ProtectedMemory
from ..ram import RegisteredReadRam
from .bypass import read_bypass, registered_read_bypass
from .layouts import in_bank

__all__ = ["window_array", "bank_arrays", "bank_writes", "meta_write_where", "bank_pmeta"]


def window_array(table, m, name, shape):
    """One bank's array of the window read: (write port, read port), each with
    ``addr``, ``data`` and ``en``. A ``Memory`` (``memory``), or with
    ``output_register`` a ``RegisteredReadRam`` (its read data a cycle later)."""
    protected = table.protection != "none"
    if not table.output_register:
        if protected:     # checked, not corrected (as the registered read)
            mem = ProtectedMemory(shape=shape, depth=table.rows, attrs={"no_rw_check": 1},
                                  protection=table.protection, correct=False,
                                  sweep_en=table.sweep_en, sweep_addr=table.sweep_row,
                                  memory=table.memory)
        else:
            mem = table.memory(shape=shape, depth=table.rows, init=[],
                               attrs={"no_rw_check": 1})
        m.submodules[name] = table.memories[name] = mem
        return mem.write_port(), mem.read_port()
    ram = RegisteredReadRam(shape=shape, depth=table.rows, memory=table.memory,
                            implementation=table.ram, protection=table.protection)
    m.submodules[name] = ram
    table.memories[name] = ram.memory
    if protected:
        m.d.comb += [ram.sweep_en.eq(table.sweep_en), ram.sweep_addr.eq(table.sweep_row)]
    return (SimpleNamespace(addr=ram.wr_addr, data=ram.wr_data, en=ram.wr_en),
            SimpleNamespace(addr=ram.rd_addr, data=ram.rd_data, en=Signal(),
                            error=ram.rd_error if protected else None,
                            check=ram.rd_check if protected else None))


def bank_arrays(table, m, w, b):
    """Bank ``b``'s ``ent``, ``meta`` and ``mark`` arrays, read at the bank's row of
    the window (``row``, registered as ``row_q``); returned as the bank's namespace."""
    pb, rw = w.pb, w.rw
    ent_w, ent_r = window_array(table, m, f"ent{b}", w.ent_layout)
    meta_w, meta_r = window_array(table, m, f"meta{b}", w.meta_layout)
    mark_w, mark_r = window_array(table, m, f"mark{b}", 1)

    if pb:
        row = (w.h_hi + (Const(b, pb) < w.h_lo))[:rw] if rw else Const(0, 0)
    else:
        row = w.h_hi
    row_q = Signal(range(table.rows), name=f"rd_row_q{b}")
    m.d.sync += row_q.eq(row)
    for rp in (ent_r, meta_r, mark_r):
        m.d.comb += [rp.addr.eq(row), rp.en.eq(1)]
    return SimpleNamespace(ent_w=ent_w, ent_r=ent_r, meta_w=meta_w, meta_r=meta_r,
                           mark_w=mark_w, mark_r=mark_r, row=row, row_q=row_q)


def bank_writes(table, m, w, k, b):
    """The datapath's writes into bank ``b``: an entry (``ent`` and ``meta``), an
    invalidate or a clear (``meta`` only), and the same ``meta`` word into the
    bank's lane of ``scrub``."""
    k.wr_here = table.wr_en & in_bank(w.w_bank, b)
    k.meta_en = (table.clear_en | (table.inv_en & in_bank(w.i_bank, b)) |
                 (~table.inv_en & k.wr_here))
    m.d.comb += [
        k.ent_w.addr.eq(w.w_row), k.ent_w.en.eq(k.wr_here),
        k.ent_w.data.tag.eq(table.wr_tag), k.ent_w.data.count.eq(table.wr_count),
        k.meta_w.addr.eq(w.meta_addr), k.meta_w.data.eq(w.meta_data),
        k.meta_w.en.eq(k.meta_en),
        w.scrub.write.data[b].eq(w.copy_data), w.scrub.write.en[b].eq(k.meta_en),
    ]


def meta_write_where(table, w, k, b, clear_at, inv_at, wr_at):
    """Bank ``b``'s meta write is at a row, given whether each write source's row is
    it (the sources in the priority of the meta address multiplexer). "At the row" is
    compared per write source in parallel (the sources' rows come from registers)
    rather than behind the address multiplexer."""
    return ((table.clear_en & clear_at) |
            (~table.clear_en & table.inv_en & in_bank(w.i_bank, b) & inv_at) |
            (~table.clear_en & ~table.inv_en & k.wr_here & wr_at))


def bank_pmeta(table, m, w, k, b):
    """The predictor mode's ``pmeta`` array of bank ``b``: written by ``pm``, read with
    the window, bypassed as the other arrays are, onto ``bk_pmeta``."""
    pm_w, pm_r = window_array(table, m, f"pmeta{b}", table.pmeta_width)
    m.d.comb += [pm_r.addr.eq(k.row), pm_r.en.eq(1)]
    pm_here = table.pm_en & in_bank(w.pm_bank, b)
    m.d.comb += [pm_w.addr.eq(w.pm_row), pm_w.en.eq(pm_here),
                 pm_w.data.eq(table.pm_data)]
    pm_hit = pm_here & w.rows_at.is_row(w.pm_cmp, b)
    if table.output_register:
        p_alt, p_alt_data, p_raw = registered_read_bypass(
            m, pm_r, pm_w, table.pmeta_width, pm_hit, k.row_q, f"pmeta{b}",
            reset_less=w.protected)
        m.d.comb += table.bk_pmeta[b].eq(Mux(p_alt, p_alt_data, p_raw))
    else:
        m.d.comb += table.bk_pmeta[b].eq(
            read_bypass(m, pm_r, pm_w, table.pmeta_width, pm_hit, f"pmeta{b}",
                        reset_less=w.protected))

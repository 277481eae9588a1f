# SPDX-License-Identifier: Apache-2.0
"""The bucket table's scrubber port (``hdl.table``; spec section 10: the scrubber reads
through a port of its own): the ``scrub`` memory, a copy of every bank's ``{last, fresh,
valid}`` one row per word, read one row per cycle; the snoop that keeps its read exact;
and the scrubber's mark writes into each bank's ``mark`` array.

These are parts of ``BucketTable.elaborate``: ``table`` is the ``BucketTable`` (its ports
and parameters), ``m`` its module, ``w`` the namespace of what the banks share
(``shared.py``), ``k`` bank ``b``'s.
"""

from types import SimpleNamespace

from amaranth import Cat, Const, Mux, Signal
from amaranth.lib import data

import regmap

from ..protect import ProtectedMemory
from .banks import meta_write_where

__all__ = ["scrub_port", "scrub_copy", "scrub_marks"]


def scrub_port(table, m, copy_layout, memory):
    """The scrubber's row pipeline and its ``scrub`` memory, returned as a namespace:
    ``row_q``, ``row_qq``, ``row_qqq`` (``sc_row`` one, two and three cycles later),
    ``write`` (the memory's write port, one enable per lane), ``read`` (its read port, at
    ``sc_row``) and ``data`` (the row as it is at the end of its arrival cycle, with the
    snoop of ``scrub_copy``)."""
    rows, P = table.rows, len(table.sc_set)
    protected = table.protection != "none"
    # The scrubber's row: addressed in cycle c (sc_row), read data in c + 1 (sc_row_q),
    # registered and decided on in c + 2 (sc_row_qq), marked in c + 3 (sc_row_qqq): no
    # logic behind the block RAM's output in the cycle it arrives, and the mark write
    # (and what the core's lanes take from it) comes from registers.
    sc_row_q = Signal(range(rows))
    sc_row_qq = Signal(range(rows))
    sc_row_qqq = Signal(range(rows))
    m.d.sync += [sc_row_q.eq(table.sc_row), sc_row_qq.eq(sc_row_q),
                 sc_row_qqq.eq(sc_row_qq)]

    # The scrubber's copy of every bank's meta, one row per word.
    # Read without transparency, and registered as it arrives (no logic behind the
    # block RAM beyond one multiplexer): the meta writes of the read cycle and of the
    # arrival cycle are snooped into the register instead, so that `sc_d` is the row
    # exactly as it is at the end of the arrival cycle, as a transparent read one
    # cycle later would return it. A read that meets a write of its row is therefore
    # never used, and `no_rw_check` tells Yosys so (no read-old emulation).
    if protected:
        scrub = ProtectedMemory(shape=data.ArrayLayout(copy_layout, P), depth=rows,
                                attrs={"no_rw_check": 1}, protection=table.protection,
                                sweep_en=table.sweep_en, sweep_addr=table.sweep_row,
                                memory=memory)
        table.memories["scrub"] = scrub
    else:
        scrub = memory(shape=data.ArrayLayout(copy_layout, P), depth=rows,
                       init=[], attrs={"no_rw_check": 1})
    m.submodules.scrub = scrub
    scrub_w = scrub.write_port(granularity=1)     # one lane (bank) per enable bit
    # Protected, the register is the read port's (the coded word, corrected after it)
    # and the snoop's choice and data are registered beside it.
    sc_r = scrub.read_port(**({"registered": True} if protected else {}))
    m.d.comb += [sc_r.addr.eq(table.sc_row), sc_r.en.eq(1)]
    sc_d = Signal.like(sc_r.data, name="sc_data_q")
    return SimpleNamespace(row_q=sc_row_q, row_qq=sc_row_qq, row_qqq=sc_row_qqq,
                           write=scrub_w, read=sc_r, data=sc_d)


def scrub_copy(table, m, w, k, b):
    """The scrubber's copy of bank ``b``'s slot of the row in flight (``sc_d``): the
    ``scrub`` read's lane, or the meta write of the read's or the arrival's cycle
    that it missed (the snoop)."""
    protected, copy_layout = w.protected, w.copy_layout

    def meta_write_at(row):
        return meta_write_where(table, w, k, b, table.clear_row == row, w.i_row == row,
                                w.w_row == row)
    # With protection these mask the check of the read they describe, which a
    # reset does not cancel: they are not reset then.
    at_read = Signal(name=f"sc_wr_at_read{b}", reset_less=protected)
    at_read_data = Signal(copy_layout, name=f"sc_wr_at_read_data{b}",
                          reset_less=protected)
    m.d.sync += [at_read.eq(meta_write_at(table.sc_row)),
                 at_read_data.eq(w.copy_data)]
    # The snoop's choice and data, from registers only, are kept as nets of their
    # own (`keep`) so that the block RAM's output meets one 2:1 multiplexer, not
    # the priority chain (the block RAM's 5.8 ns clock-to-output leaves room for
    # one LUT).
    snoop_now = meta_write_at(w.scrub.row_q)
    snoop_hit = Signal(name=f"sc_snoop{b}", attrs={"keep": 1})
    snoop_data = Signal(copy_layout, name=f"sc_snoop_data{b}", attrs={"keep": 1})
    m.d.comb += [snoop_hit.eq(snoop_now | at_read),
                 snoop_data.eq(Mux(snoop_now, w.copy_data, at_read_data))]
    sc_r, sc_d = w.scrub.read, w.scrub.data
    if protected:
        snoop_hit_q = Signal(name=f"sc_snoop_q{b}", reset_less=True)
        snoop_data_q = Signal(copy_layout, name=f"sc_snoop_data_q{b}", reset_less=True)
        m.d.sync += [snoop_hit_q.eq(snoop_hit), snoop_data_q.eq(snoop_data)]
        snoop_hit = snoop_hit_q
        m.d.comb += sc_d[b].eq(Mux(snoop_hit_q, snoop_data_q, sc_r.data[b]))
    else:
        m.d.sync += sc_d[b].eq(Mux(snoop_hit, snoop_data, sc_r.data[b]))
    if protected:     # the lane as read, unless the snoop replaced it
        slot = Cat(Const(b, w.pb), sc_r.error_addr) if w.pb else sc_r.error_addr
        w.checks.append((sc_r.lane_error[b] & ~snoop_hit,
                         sc_r.lane_corrected[b] & ~snoop_hit,
                         regmap.MEM_IDS["scrub"], slot))


def scrub_marks(table, m, w, k, b):
    """The scrubber's marks of bank ``b``: mark = not fresh, decided in c + 2
    (``sc_intent``, ``sc_value``) and written in c + 3 (``sc_we``), unless the datapath
    writes the slot in either cycle."""
    sc_intent = Signal(name=f"sc_intent{b}")
    sc_value = Signal(name=f"sc_value{b}")
    m.d.sync += [sc_intent.eq(table.sc_set[b] & ~(k.wr_here & (w.w_row == w.scrub.row_qq))),
                 sc_value.eq(~w.scrub.data[b].fresh)]
    sc_we = Signal(name=f"sc_we{b}")
    m.d.comb += [
        sc_we.eq(sc_intent & ~(k.wr_here & (w.w_row == w.scrub.row_qqq))),
        k.mark_w.addr.eq(w.scrub.row_qqq), k.mark_w.en.eq(sc_we),
        k.mark_w.data.eq(sc_value),
        table.sc_last[b].eq(w.scrub.data[b].last),
        table.sc_valid[b].eq(w.scrub.data[b].valid),
    ]
    k.sc_intent, k.sc_value, k.sc_we = sc_intent, sc_value, sc_we

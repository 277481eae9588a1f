# SPDX-License-Identifier: Apache-2.0
"""The bucket table's window read as a read transparent for its memory's write port
would return it (``hdl.table``): the bypass registers beside each bank's block RAM, and
"bank ``b``'s window row is a write source's row" compared once for every bank.

The bypass is made here, not by Yosys: Yosys would compare the read address (the row add
behind the hash / tail choice) with the write address, whereas here "bank ``b``'s row is
row ``r``" is compared as ``h_hi == r - (b < h_lo)``, against each write source's row and
that row minus one, both from registers and shared by every bank (``WindowRows``). The
memories carry ``no_rw_check``: a read that meets a write is never used as read.

With protection (D11) the bypass registers also mask the check of the word they replace
(a read that met a write returns an undefined word); a reset does not cancel that read, so
they are then not reset (``reset_less``).

``bank_window_registered`` and ``bank_window`` are parts of ``BucketTable.elaborate``: bank
``b``'s word on the table's ``bk_*`` outputs. ``table`` is the ``BucketTable`` (its ports and
parameters), ``m`` its module, ``w`` the namespace of what the banks share
(``shared.py``), ``k`` bank ``b``'s.
"""

from amaranth import C, Cat, Const, Mux, Signal

import regmap

from ..match import Match

__all__ = ["WindowRows", "read_bypass", "registered_read_bypass", "bank_window_registered",
           "bank_window"]


class WindowRows:
    """Whether each bank's window row is a write source's row.

    Parameters
    ----------
    m : Module
        The table's module (the comparisons are built into it).
    h_lo, h_hi : Value
        The window start's bank and row (``rd_slot``'s low ``log2(PROBE)`` bits and the
        rest): bank ``b`` is read at row ``h_hi + (b < h_lo)``.
    row_bits : int
        Bits of a row address (0 for a table of one row).
    """

    def __init__(self, m, h_lo, h_hi, row_bits):
        self._m, self._h_lo, self._h_hi, self._rw = m, h_lo, h_hi, row_bits

    def compare(self, src_row, name):
        """``(h_hi == src_row, h_hi == src_row - 1)`` for a write source's row, as signals
        ``{name}_at_hi`` and ``{name}_at_hi_m1``."""
        if not self._rw:
            return Const(1), Const(1)
        eq0, eq1 = Signal(name=f"{name}_at_hi"), Signal(name=f"{name}_at_hi_m1")
        self._m.d.comb += [eq0.eq(self._h_hi == src_row),
                           eq1.eq(self._h_hi == (src_row - 1)[:self._rw])]
        return eq0, eq1

    def is_row(self, cmp, b):
        """Bank ``b``'s window row is the source's row (``cmp``: from ``compare``)."""
        eq0, eq1 = cmp
        pb = len(self._h_lo)
        return Mux(Const(b, pb) < self._h_lo, eq1, eq0) if pb else eq0


def read_bypass(m, rp, wp, shape, hit, name, *, reset_less):
    """Read port ``rp``'s data, or what write port ``wp`` wrote to the row read in the read
    cycle (``hit``: it did), one cycle after the read: registers ``{name}_byp`` and
    ``{name}_byp_data``, the choice ``{name}_rd``."""
    hit_q = Signal(name=f"{name}_byp", reset_less=reset_less)
    data_q = Signal(shape, name=f"{name}_byp_data", reset_less=reset_less)
    out = Signal(shape, name=f"{name}_rd")
    m.d.sync += [hit_q.eq(hit), data_q.eq(wp.data)]
    m.d.comb += out.eq(Mux(hit_q, data_q, rp.data))
    return out


def registered_read_bypass(m, rp, wp, shape, hit, row_q, name, *, reset_less,
                           summary=None):
    """With the block RAM's output register: the read data of port ``rp`` (two cycles
    after its address) as a transparent read one cycle later would return it, as ``(alt,
    alt_data, raw)``: the word is ``alt_data`` if ``alt`` (a write of the read cycle,
    ``hit``, or of the cycle after, to the row read, ``row_q``), else ``raw``, the block
    RAM's registered output. ``alt`` and ``alt_data`` are registers beside the block RAM's
    output register, so the caller's logic starts from flip-flops. With ``summary`` (a
    function of a word) also a register of ``summary(alt_data)``, made before the register
    (returned fourth)."""
    hit_q = Signal(name=f"{name}_byp", reset_less=reset_less)
    data_q = Signal(shape, name=f"{name}_byp_data", reset_less=reset_less)
    m.d.sync += [hit_q.eq(hit), data_q.eq(wp.data)]
    hit_next = Signal(name=f"{name}_byp_next")
    m.d.comb += hit_next.eq(wp.en & (wp.addr == row_q))
    alt = Signal(name=f"{name}_alt", reset_less=reset_less)
    alt_data = Signal(shape, name=f"{name}_alt_data", reset_less=reset_less)
    m.d.sync += [alt.eq(hit_q | hit_next),
                 alt_data.eq(Mux(hit_next, wp.data, data_q))]
    if summary is None:
        return alt, alt_data, rp.data
    alt_summary = Signal(name=f"{name}_alt_summary", reset_less=reset_less)
    m.d.sync += alt_summary.eq(Mux(hit_next, summary(wp.data), summary(data_q)))
    return alt, alt_data, rp.data, alt_summary


def bank_window_registered(table, m, w, k, b):
    """Bank ``b``'s window word with ``output_register``, two cycles after the read:
    every write up to the end of the cycle after the read is in
    (``registered_read_bypass``); the valid bit and the generation compared on each
    side of the choice, and both sides on ``bk_sides``."""
    p, protected, pb = w.params, w.protected, w.pb
    row_q = k.row_q
    row_qq = Signal(range(table.rows), name=f"rd_row_qq{b}")
    sc_hit = Signal(name=f"rd_sc_row_hit{b}")
    m.d.sync += [row_qq.eq(row_q), sc_hit.eq(row_q == w.scrub.row_qq)]
    # (the bypassed tag compared here, a cycle ahead, with the tag of the
    # request the window is read for: only the raw word's comparison is
    # behind the block RAM's output register)
    e_alt, e_alt_data, e_raw, e_alt_tag_eq = registered_read_bypass(
        m, k.ent_r, k.ent_w, w.ent_layout, k.ent_hit, row_q, f"ent{b}",
        reset_less=protected, summary=lambda word: word.tag == table.rd_tag)

    def tracked(word):
        return word.valid & (word.gen == table.generation)
    t_alt, t_alt_data, t_raw, alt_tracked = registered_read_bypass(
        m, k.meta_r, k.meta_w, w.meta_layout, k.meta_hit, row_q, f"meta{b}",
        reset_less=protected, summary=tracked)
    # The match of the word as chosen, ``tracked & tag == rd_tag_q``, with
    # the bypass choices inside the comparison: the raw tag, and the raw
    # generation and valid bit (``tracked`` as fields compared), or the
    # bypassed words' results registered in M.
    match = Match((p.TAG_WIDTH, table.gen_width + 1), table.match)
    m.submodules[f"match{b}"] = match
    m.d.comb += [match.a.eq(Cat(e_raw.tag, t_raw.gen, t_raw.valid)),
                 match.b.eq(Cat(w.rd_tag_q, table.generation, C(1, 1))),
                 match.sel.eq(Cat(e_alt, t_alt)),
                 match.alt.eq(Cat(e_alt_tag_eq, alt_tracked))]
    k_alt, k_alt_data, k_raw = registered_read_bypass(
        m, k.mark_r, k.mark_w, 1, k.mark_hit, row_q, f"mark{b}", reset_less=protected)
    mark_rd = Mux(k_alt, k_alt_data, k_raw)
    if protected:     # the words as read, unless the bypass replaced them
        slot = Cat(Const(b, pb), row_qq) if pb else row_qq
        for name, rp, alt in (("ent", k.ent_r, e_alt), ("meta", k.meta_r, t_alt),
                              ("mark", k.mark_r, k_alt)):
            # (the check's rows, registered and ORed after the register)
            w.checks.append((rp.check & ~alt.replicate(len(rp.check)), C(0, 1),
                             regmap.MEM_IDS[name], slot))
    sides = table.bk_sides[b]
    m.d.comb += [
        table.bk_tag[b].eq(Mux(e_alt, e_alt_data.tag, e_raw.tag)),
        table.bk_count[b].eq(Mux(e_alt, e_alt_data.count, e_raw.count)),
        table.bk_last[b].eq(Mux(t_alt, t_alt_data.last, t_raw.last)),
        table.bk_valid[b].eq(Mux(t_alt, alt_tracked, tracked(t_raw))),
        table.bk_fresh[b].eq(Mux(t_alt, t_alt_data.fresh, t_raw.fresh)),
        table.bk_mark[b].eq(mark_rd), table.bk_mark_raw[b].eq(mark_rd),
        table.bk_row[b].eq(row_qq), table.bk_sc_row_hit[b].eq(sc_hit),
        sides.ent.eq(e_alt), sides.meta.eq(t_alt),
        sides.count_byp.eq(e_alt_data.count), sides.count_raw.eq(e_raw.count),
        sides.last_byp.eq(t_alt_data.last), sides.last_raw.eq(t_raw.last),
        sides.match.eq(match.match),
        sides.fresh_byp.eq(t_alt_data.fresh), sides.fresh_raw.eq(t_raw.fresh),
        sides.mark.eq(k_alt), sides.mark_byp.eq(k_alt_data), sides.mark_raw.eq(k_raw),
    ]


def bank_window(table, m, w, k, b):
    """Bank ``b``'s window word without ``output_register``, one cycle after the read:
    the reads as a transparent port would return them (``read_bypass``), and the mark
    with this cycle's scrubber write in it."""
    protected, pb, row_q = w.protected, w.pb, k.row_q
    ent_rd = read_bypass(m, k.ent_r, k.ent_w, w.ent_layout, k.ent_hit, f"ent{b}",
                         reset_less=protected)
    meta_rd = read_bypass(m, k.meta_r, k.meta_w, w.meta_layout, k.meta_hit, f"meta{b}",
                          reset_less=protected)
    mark_rd = read_bypass(m, k.mark_r, k.mark_w, 1, k.mark_hit, f"mark{b}",
                          reset_less=protected)
    if protected:         # the words as read, unless the bypass replaced them
        slot = Cat(Const(b, pb), row_q) if pb else row_q
        for name, rp, hit in (("ent", k.ent_r, k.ent_hit), ("meta", k.meta_r, k.meta_hit),
                              ("mark", k.mark_r, k.mark_hit)):
            hit_q = Signal(name=f"{name}{b}_chk_byp")
            m.d.sync += hit_q.eq(hit)
            w.checks.append((rp.error & ~hit_q, C(0, 1), regmap.MEM_IDS[name], slot))
    # The mark at the end of this cycle: this cycle's scrubber write included.
    mark_now = Signal(name=f"mark_now{b}")
    m.d.comb += mark_now.eq(Mux(k.sc_we & (row_q == w.scrub.row_qqq), k.sc_value,
                                mark_rd))
    m.d.comb += [
        table.bk_tag[b].eq(ent_rd.tag), table.bk_count[b].eq(ent_rd.count),
        table.bk_last[b].eq(meta_rd.last),
        table.bk_valid[b].eq(meta_rd.valid & (meta_rd.gen == table.generation)),
        table.bk_fresh[b].eq(meta_rd.fresh), table.bk_mark[b].eq(mark_now),
        table.bk_mark_raw[b].eq(mark_rd),
        table.bk_row[b].eq(row_q),
        table.bk_sc_row_hit[b].eq(row_q == w.scrub.row_qqq),
        table.bk_sides[b].count_raw.eq(ent_rd.count),
        table.bk_sides[b].last_raw.eq(meta_rd.last),
        table.bk_sides[b].fresh_raw.eq(meta_rd.fresh),
        table.bk_sides[b].mark_raw.eq(mark_rd),
    ]

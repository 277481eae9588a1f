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
"""

from amaranth import *

__all__ = ["WindowRows", "read_bypass", "registered_read_bypass"]


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

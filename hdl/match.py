# SPDX-License-Identifier: Apache-2.0
"""A wide comparison of chosen fields: ``Match``, in LUTs or along the ECP5's carry chain.

E1a's match of a table word is ``valid & (tag == request's tag)``, where each of the
word's memories may have been replaced by the table's bypass, whose comparison was made a
cycle ahead: per field ``k``, ``alt[k]`` if ``sel[k]`` else ``a_k == b_k``, all ANDed. In
LUT4s the 56-bit tag comparison alone is a tree four levels deep (28 XNOR pairs, then
three levels of AND), each level a LUT and a general route, behind a block RAM's output
register: the longest path of the ECP5 build. The ECP5's carry chain runs beside the
LUTs: a ``CCU2C`` is two LUT4 halves, each with a carry multiplexer (``cout = LUT4 ?
cin : LUT2``, the ``LUT2`` being the LUT4's entries with ``C = D = 0``), and the carry
crosses a whole ``CCU2C`` in about 0.07 ns as placed where a LUT level with its route
takes about 1 ns.

The ``"ccu2c"`` implementation is one chain of "a mismatch so far": the carry enters at 0
and every half either passes it on (its LUT4, with ``C`` tied to 1) or sets it (its
``LUT2``, the entries with ``C = D = 0``, reached only where the LUT4 is 0):

* a compared bit, ``A = a[i]``, ``B = b[i]``, ``D = sel[k]``: the LUT4 is ``sel[k] |
  (A == B)``, the LUT2 ``A != B``;
* a field's alternative, ``A = sel[k]``, ``B = alt[k]``, ``D = 1``: the LUT4 is ``~sel[k]
  | alt[k]``, the LUT2 ``sel[k] & ~alt[k]``;
* the readout, a half whose LUT4 is 1: ``S = ~cin``, the match.

The ``"generic"`` implementation is the expression itself. Both give the same ``match`` for
every input (proven against Yosys's simulation model of the ``CCU2C`` in
``tests/hdl/test_match.py``).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Match", "IMPLEMENTATIONS"]

#: The implementations of ``Match``.
IMPLEMENTATIONS = ("generic", "ccu2c")

# CCU2C LUT contents, index {D, C, B, A}. Every half ties C to 1, so the LUT4 proper is
# entries 4..7 (D = 0) and 12..15 (D = 1); entries 0..3 are the LUT2 that sets the carry.
#: A compared bit: D = sel; passes where sel | (A == B); sets where A != B.
COMPARE_INIT = 0b1111_0000_1001_0110
#: A field's alternative, D = 1: passes where ~A | B (A = sel, B = alt); sets where A & ~B.
ALTERNATIVE_INIT = 0b1101_0000_0000_0010
#: The readout: S = 1 ^ cin.
READOUT_INIT = 0xFFFF
#: An unused half.
UNUSED_INIT = 0x0000


class Match(wiring.Component):
    """``match`` = AND over fields ``k`` of (``alt[k]`` if ``sel[k]`` else ``a_k == b_k``),
    combinational.

    Parameters
    ----------
    widths : sequence of int
        Bits of each field (each at least 1; at least one field).
    implementation : str
        ``"generic"`` (the expression, mapped by synthesis) or ``"ccu2c"`` (ECP5 ``CCU2C``
        instances, one carry chain: ``(sum(widths) + len(widths) + 2) // 2`` of them).

    Ports
    -----
    a, b : In(sum(widths))
        The fields compared, side by side, field 0 in the least significant bits.
    sel : In(len(widths))
        Bit ``k``: field ``k`` is given by ``alt[k]`` instead of its comparison.
    alt : In(len(widths))
        Bit ``k``: field ``k``'s result where ``sel[k]``.
    match : Out(1)
    """

    def __init__(self, widths, implementation="generic"):
        widths = tuple(widths)
        if not widths:
            raise ValueError("widths must name at least one field")
        for w in widths:
            if not isinstance(w, int) or isinstance(w, bool):
                raise TypeError(f"a field width must be an integer, not {w!r}")
            if w < 1:
                raise ValueError(f"a field width must be at least 1, not {w}")
        if implementation not in IMPLEMENTATIONS:
            raise ValueError(f"implementation must be one of {IMPLEMENTATIONS}, "
                             f"not {implementation!r}")
        self.widths, self.implementation = widths, implementation
        n, total = len(widths), sum(widths)
        super().__init__({"a": In(total), "b": In(total), "sel": In(n), "alt": In(n),
                          "match": Out(1)})

    def _fields(self):
        """``(k, a_k, b_k)`` for every field."""
        start = 0
        for k, w in enumerate(self.widths):
            yield k, self.a[start:start + w], self.b[start:start + w]
            start += w

    def elaborate(self, platform):
        m = Module()
        if self.implementation == "generic":
            m.d.comb += self.match.eq(Cat(Mux(self.sel[k], self.alt[k], a == b)
                                          for k, a, b in self._fields()).all())
            return m
        # Halves in chain order, (INIT, A, B, D): the compared bits and the alternative
        # of each field, then the readout; cells of two halves.
        one = C(1, 1)
        halves = []
        for k, a, b in self._fields():
            halves += [(COMPARE_INIT, a[i], b[i], self.sel[k]) for i in range(len(a))]
            halves.append((ALTERNATIVE_INIT, self.sel[k], self.alt[k], one))
        readout = len(halves)
        halves.append((READOUT_INIT, one, one, one))
        if len(halves) % 2:
            halves.append((UNUSED_INIT, one, one, one))
        carry = C(0, 1)             # no mismatch before the first half
        sums = []
        for k in range(0, len(halves), 2):
            (init0, a0, b0, d0), (init1, a1, b1, d1) = halves[k], halves[k + 1]
            cout, s0, s1 = Signal(name=f"cout{k // 2}"), Signal(), Signal()
            m.submodules[f"ccu2c{k // 2}"] = Instance(
                "CCU2C",
                p_INIT0=C(init0, 16), p_INIT1=C(init1, 16),
                p_INJECT1_0="NO", p_INJECT1_1="NO",
                i_CIN=carry,
                i_A0=a0, i_B0=b0, i_C0=one, i_D0=d0,
                i_A1=a1, i_B1=b1, i_C1=one, i_D1=d1,
                o_S0=s0, o_S1=s1, o_COUT=cout)
            sums += [s0, s1]
            carry = cout
        m.d.comb += self.match.eq(sums[readout])
        return m

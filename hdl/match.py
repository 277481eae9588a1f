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

The ``"ccu2c"`` implementation is one chain of "a match so far" whose first field compares
two bit pairs per half: the carry is the AND of everything before it, and every half either
passes it on (its LUT4) or clears it (its ``LUT2``, the LUT4's entries with ``C = D = 0``,
reached only where the LUT4 is 0). Because the ``LUT2`` is the LUT4's own entries, a half
that uses all four inputs must read 0 at ``C = D = 0`` wherever it clears the carry: a bit
pair ``(a[j], b[j])`` on ``C``, ``D`` enters with ``b[j]`` inverted (the pair is equal where
``C != D``, so ``C = D = 0`` is a mismatch). A half with ``C`` and ``D`` tied to 1 has its
LUT4 and its ``LUT2`` independent.

* the start, ``A = a[0]``, ``B = b[0]``, ``C = D = 1``: the LUT4 is 0 and the ``LUT2``
  ``A == B`` (the carry in is not used);
* two compared bits of field 0, ``A = a[i]``, ``B = b[i]``, ``C = a[j]``, ``D = ~b[j]``: the
  LUT4 is ``(A == B) & (C != D)``, the ``LUT2`` 0 (a last single bit: ``C = 0``, ``D = 1``);
* field 0's choice, ``A = sel[0]``, ``B = alt[0]``, ``C = D = 1``: the LUT4 ``~sel[0]``, the
  ``LUT2`` ``sel[0] & alt[0]``: the carry is now field 0's result, with nothing before it
  (which is why only field 0 can have two bits per half: nothing else is free to choose);
* a compared bit of a later field ``k``, ``A = a[i]``, ``B = b[i]``, ``C = 1``, ``D =
  sel[k]``: the LUT4 ``sel[k] | (A == B)``, the ``LUT2`` 0;
* a later field's alternative, ``A = sel[k]``, ``B = alt[k]``, ``C = D = 1``: the LUT4
  ``~sel[k] | alt[k]``, the ``LUT2`` 0;
* the readout, a half whose LUT4 is 0: ``S = cin``, the match.

For E1a's fields (the 56-bit tag; the generation and the valid bit) that is 19 cells, about
1.3 ns from the first cell to the readout; one bit per half would take 32 (about 2.2 ns).

The ``"generic"`` implementation is the expression itself. Both give the same ``match`` for
every input (proven against Yosys's simulation model of the ``CCU2C`` in
``tests/hdl/test_match.py``).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .layouts import check_int

__all__ = ["Match", "IMPLEMENTATIONS", "ccu2c_cells"]

#: The implementations of ``Match``.
IMPLEMENTATIONS = ("generic", "ccu2c")

# CCU2C LUT contents, index {D, C, B, A}; entries 0..3 (C = D = 0) are also the LUT2 that
# the carry takes where the LUT4 is 0.
#: The start, C = D = 1: the LUT4 is 0, the LUT2 is A == B.
START_INIT = 0b0000_0000_0000_1001
#: Two compared bits, C = a[j], D = ~b[j]: passes where (A == B) & (C != D); clears
#: elsewhere (the LUT2, entries 0..3, is 0).
PAIR_INIT = 0b0000_1001_1001_0000
#: Field 0's choice, C = D = 1 (A = sel, B = alt): passes where ~A; else the LUT2, A & B.
FIRST_CHOICE_INIT = 0b0101_0000_0000_1000
#: A later field's compared bit, C = 1, D = sel: passes where D | (A == B); clears elsewhere.
COMPARE_INIT = 0b1111_0000_1001_0000
#: A later field's alternative, C = D = 1 (A = sel, B = alt): passes where ~A | B.
ALTERNATIVE_INIT = 0b1101_0000_0000_0000
#: The readout (LUT4 0): S = cin. Also an unused half.
READOUT_INIT = 0x0000


def ccu2c_cells(widths):
    """``CCU2C`` cells of the ``"ccu2c"`` chain for these field widths: the start, field
    0's remaining bits two per half, its choice, one half per bit and one alternative per
    later field, the readout; two halves a cell."""
    halves = 1 + widths[0] // 2 + 1 + sum(w + 1 for w in widths[1:]) + 1
    return (halves + 1) // 2


class Match(wiring.Component):
    """``match`` = AND over fields ``k`` of (``alt[k]`` if ``sel[k]`` else ``a_k == b_k``),
    combinational.

    Parameters
    ----------
    widths : sequence of int
        Bits of each field (each at least 1; at least one field).
    implementation : str
        ``"generic"`` (the expression, mapped by synthesis) or ``"ccu2c"`` (ECP5 ``CCU2C``
        instances, one carry chain: ``ccu2c_cells(widths)`` of them).

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
        if not hasattr(widths, "__iter__") or isinstance(widths, str):
            raise TypeError(f"widths must be a sequence of field widths, not {widths!r}")
        widths = tuple(widths)
        if not widths:
            raise ValueError("widths must name at least one field")
        widths = tuple(check_int(f"widths[{k}]", w, 1) for k, w in enumerate(widths))
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
        # Halves in chain order, (INIT, A, B, C, D), then cells of two halves.
        one, zero = C(1, 1), C(0, 1)
        fields = list(self._fields())
        _, first_a, first_b = fields[0]
        halves = [(START_INIT, first_a[0], first_b[0], one, one)]
        for i in range(1, len(first_a), 2):
            if i + 1 < len(first_a):
                halves.append((PAIR_INIT, first_a[i], first_b[i],
                               first_a[i + 1], ~first_b[i + 1]))
            else:
                halves.append((PAIR_INIT, first_a[i], first_b[i], zero, one))
        halves.append((FIRST_CHOICE_INIT, self.sel[0], self.alt[0], one, one))
        for k, a, b in fields[1:]:
            halves += [(COMPARE_INIT, a[i], b[i], one, self.sel[k]) for i in range(len(a))]
            halves.append((ALTERNATIVE_INIT, self.sel[k], self.alt[k], one, one))
        readout = len(halves)
        halves.append((READOUT_INIT, one, one, one, one))
        if len(halves) % 2:
            halves.append((READOUT_INIT, one, one, one, one))
        carry = zero                # (the start half does not use it)
        sums = []
        for k in range(0, len(halves), 2):
            (init0, a0, b0, c0, d0), (init1, a1, b1, c1, d1) = halves[k], halves[k + 1]
            cout, s0, s1 = Signal(name=f"cout{k // 2}"), Signal(), Signal()
            m.submodules[f"ccu2c{k // 2}"] = Instance(
                "CCU2C",
                p_INIT0=C(init0, 16), p_INIT1=C(init1, 16),
                p_INJECT1_0="NO", p_INJECT1_1="NO",
                i_CIN=carry,
                i_A0=a0, i_B0=b0, i_C0=c0, i_D0=d0,
                i_A1=a1, i_B1=b1, i_C1=c1, i_D1=d1,
                o_S0=s0, o_S1=s1, o_COUT=cout)
            sums += [s0, s1]
            carry = cout
        m.d.comb += self.match.eq(sums[readout])
        return m

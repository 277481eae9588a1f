# SPDX-License-Identifier: Apache-2.0
"""Multiplication by a constant modulo ``2**width`` without a multiplier, for the hash's
pipeline (``hdl.hash``): the constant's canonical signed digits (``csd``), a balanced tree
of shifted adds (``mul_low_shift_add``), and the carry-save form, one shifted term per
digit (``mul_terms``) reduced 3:2 a LUT level at a time (``csa_levels``,
``levels_to_two``) and resolved by one carry chain (``resolve``)."""

from amaranth import C, Cat

__all__ = ["csd", "mul_low_shift_add", "mul_terms", "csa_levels", "resolve", "levels_to_two"]


def csd(const, width):
    """Canonical signed digits of ``const mod 2**width``: ``[(shift, +1 or -1), ...]``.

    Modulo ``2**width`` a digit at ``width`` or above vanishes, so the list has at most
    ``width // 2 + 1`` entries (against up to ``width`` set bits)."""
    digits, value, shift = [], const % (1 << width), 0
    while value and shift < width:
        if value & 1:
            digit = 2 - (value & 3)        # +1 if the next bit is 0, else -1
            digits.append((shift, digit))
            value -= digit
        value >>= 1
        shift += 1
    return digits


def mul_low_shift_add(x, const, width):
    """``x * const mod 2**width`` as a balanced tree of shifted adds, no multiplier.

    The truncation is what makes this cheap: the term for digit ``i`` is only
    ``width - i`` bits wide."""
    terms = []
    for shift, digit in csd(const, width):
        term = Cat(C(0, shift), x[:width - shift]) if shift else x[:width]
        terms.append((term, digit))
    if not terms:
        return C(0, width)
    # Keep subtraction out of the leaves: start from a positive term where there is one.
    terms.sort(key=lambda t: -t[1])
    level = [t if d > 0 else (-t)[:width] for t, d in terms]
    while len(level) > 1:
        level = [(level[i] + level[i + 1])[:width] if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0][:width]


def mul_terms(x, const):
    """``x * const mod 2**32`` as carry-save operands (their sum mod ``2**32``): one
    shifted copy of ``x`` per canonical signed digit of ``const``, inverted for a negative
    digit (``-(x << s) = ~(x << s) + 1``), and one constant that collects the ``+ 1``s."""
    terms, ones = [], 0
    for shift, digit in csd(const, 32):
        if digit > 0:
            terms.append(Cat(C(0, shift), x[:32 - shift]) if shift else x[:32])
        else:
            low = C((1 << shift) - 1, shift)
            terms.append(Cat(low, ~x[:32 - shift]) if shift else ~x[:32])
            ones += 1
    if ones:
        terms.append(C(ones, 32))
    return terms


def csa_levels(vectors, levels):
    """``levels`` rounds of 3:2 carry-save reduction of 32-bit ``vectors`` (mod ``2**32``):
    every three become their bitwise sum and their carries shifted up, one LUT level with
    no carry chain. Stops early at two vectors (what an adder takes)."""
    for _ in range(levels):
        if len(vectors) <= 2:
            break
        full = len(vectors) // 3 * 3
        reduced = []
        for i in range(0, full, 3):
            a, b, c = vectors[i:i + 3]
            reduced.append(a ^ b ^ c)
            reduced.append(Cat(C(0, 1), ((a & b) | (a & c) | (b & c))[:31]))
        vectors = reduced + vectors[full:]
    return vectors


def resolve(vectors):
    """The sum of carry-save ``vectors`` that are down to two (or one): one carry chain."""
    assert len(vectors) <= 2, len(vectors)
    return vectors[0][:32] if len(vectors) == 1 else (vectors[0] + vectors[1])[:32]


def levels_to_two(count):
    """3:2 reduction levels that take ``count`` vectors down to two."""
    levels = 0
    while count > 2:
        count = count // 3 * 2 + count % 3
        levels += 1
    return levels

# SPDX-License-Identifier: Apache-2.0
"""The hash pipeline with DSP multipliers (``Murmur3Hash64`` with ``mul_stages`` 1, 2 or 3;
its docstring has the stage table).

Each 32x32-bit multiply by a constant keeps only the low 32 bits, which needs three 16x16
partial products: ``lo(x)*lo(C)`` and the low 16 bits of ``hi(x)*lo(C)`` and
``lo(x)*hi(C)``; a multiply named in ``lut_cross_products`` makes the two cross products
with shifted adds in LUTs instead."""

from amaranth import Cat

from .const_mul import mul_low_shift_add
from .rounds import C1, C2, F1, F2, mix_round, rotl32

__all__ = ["dsp_hash"]


def dsp_hash(key, seed, step, *, mul_stages, lut_cross_products):
    """The hash of ``key`` (64 bits) and ``seed`` (32 bits) through ``3 + 4 * mul_stages``
    calls of ``step(name, **values)``, which registers one stage's values and returns them
    by name; returns the last stage's registered hash."""
    def mul_consts(name, products, carry=None, post=lambda x: x):
        """Pipeline ``x * const mod 2**32`` for every ``name: (x, const)`` of ``products``.

        The products are independent and share the same stages; ``carry`` are other
        values riding along; ``post`` is applied to each product in its last stage.
        Returns a dict of the products and the carried values."""
        carry = dict(carry or {})
        if mul_stages == 3:
            # Stage i registers the operands once more, so that the placer can put
            # these copies beside the DSPs: no long wire in front of a multiplier.
            s = step(f"{name}i", **{f"{k}_x": x for k, (x, _) in products.items()},
                     **carry)
            products = {k: (s[f"{k}_x"], c) for k, (_, c) in products.items()}
            carry = {k: s[k] for k in carry}
        # Three independent 16x16 partial products per multiply; low 32 bits of
        # x * c = p0 + (p1 + p2) << 16 with p1, p2 needed only mod 2**16.
        parts = {}
        for k, (x, c) in products.items():
            c_lo, c_hi = c & 0xFFFF, c >> 16
            parts[f"{k}_p0"] = x[:16] * c_lo
            if name in lut_cross_products:
                parts[f"{k}_p1"] = mul_low_shift_add(x[16:], c_lo, 16)
                parts[f"{k}_p2"] = mul_low_shift_add(x[:16], c_hi, 16)
            else:
                parts[f"{k}_p1"] = (x[16:] * c_lo)[:16]
                parts[f"{k}_p2"] = (x[:16] * c_hi)[:16]

        def sums(parts):
            # The low half is p0's; only the upper half needs an adder (3 terms).
            return {k: post(Cat(parts[f"{k}_p0"][:16],
                                (parts[f"{k}_p0"][16:] + parts[f"{k}_p1"][:16] +
                                 parts[f"{k}_p2"][:16])[:16]))
                    for k in products}

        if mul_stages == 1:
            return step(name, **sums(parts), **carry)
        # Stage a registers the partial products (a DSP with no logic after it), stage
        # b sums them.
        s = step(f"{name}a", **parts, **carry)
        summed = sums(s)
        return step(f"{name}b", **summed,
                    **{k: v for k, v in s.items() if k not in parts})

    # The two blocks are independent of h and of each other: process them side by side,
    # their C1 multiplies in the same stages and their C2 multiplies too.
    s = mul_consts("c1", {"k1": (key[:32], C1), "k2": (key[32:], C1)},
                   {"seed": seed})
    s = mul_consts("c2", {"k1": (rotl32(s["k1"], 15), C2),
                          "k2": (rotl32(s["k2"], 15), C2)},
                   {"seed": s["seed"]})
    s = step("r1", h=mix_round(s["seed"], s["k1"]), k2=s["k2"])
    h = mix_round(s["h"], s["k2"]) ^ 8
    s = step("r2", h=h ^ (h >> 16))
    # (h ^ (h >> 13) in f1's summing stage, so f2's multipliers take registers: no
    # LUT in front of a DSP)
    h = mul_consts("f1", {"h": (s["h"], F1)}, post=lambda h: h ^ (h >> 13))["h"]
    h = mul_consts("f2", {"h": (h, F2)})["h"]
    return step("out", h=h ^ (h >> 16))["h"]

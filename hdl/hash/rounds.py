# SPDX-License-Identifier: Apache-2.0
"""MurmurHash3 x86_32's constants, its rotation and its round, as Amaranth expressions for
both pipelines (``dsp.py``, ``carry_save.py``)."""

from amaranth import C, Cat

__all__ = ["C1", "C2", "ROUND_ADD", "F1", "F2", "rotl32", "mix_round", "round_terms"]

#: The block multiplies' constants.
C1, C2 = 0xCC9E2D51, 0x1B873593
#: The round's addend.
ROUND_ADD = 0xE6546B64
#: The finaliser's constants.
F1, F2 = 0x85EBCA6B, 0xC2B2AE35


def rotl32(value, amount):
    """``value`` (32 bits) rotated left by ``amount``."""
    # A rotation is wiring only: it never costs a pipeline stage.
    return Cat(value[32 - amount:], value[:32 - amount])


def mix_round(h, k):
    """One block round, ``rotl(h ^ k, 13) * 5 + 0xe6546b64`` mod ``2**32``."""
    # h ^= k; h = rotl(h, 13); h = h * 5 + 0xe6546b64, with * 5 as (h << 2) + h.
    r = rotl32(h ^ k, 13)
    return ((r << 2) + r + ROUND_ADD)[:32]


def round_terms(h, k):
    """One block round as three carry-save operands (their sum mod ``2**32`` is
    ``mix_round(h, k)``)."""
    r = rotl32(h ^ k, 13)
    return [r, Cat(C(0, 2), r[:30]), C(ROUND_ADD, 32)]

# SPDX-License-Identifier: Apache-2.0
"""The hash pipeline without a multiplier (``Murmur3Hash64`` with ``mul_stages = 0``; its
docstring has the stage table): every multiply by a constant is one shifted copy of its
operand per canonical signed digit, reduced by rows of 3:2 carry-save adders."""

from .const_mul import csa_levels, levels_to_two, mul_terms, resolve
from .rounds import C1, C2, F1, F2, round_terms, rotl32

__all__ = ["carry_save_hash"]


def carry_save_hash(key, seed, step):
    """The hash of ``key`` (64 bits) and ``seed`` (32 bits) with ``mul_stages=0``: eight
    calls of ``step(name, **values)``, which registers one stage's values and returns
    them by name, and no multiplier; returns the last stage's registered hash.

    Every value between the stages is held either resolved or in carry-save form (a
    list of vectors whose sum mod ``2**32`` is the value), so a stage boundary may
    fall anywhere inside a multiply's adder tree."""
    keys = {"k1": key[:32], "k2": key[32:]}
    # 1: k *= C1, all reduction levels but the last.
    c1 = {k: mul_terms(x, C1) for k, x in keys.items()}
    s = step("c1", seed=seed,
             **{k: csa_levels(t, levels_to_two(len(t)) - 1) for k, t in c1.items()})
    # 2: C1's last level and its adder; rotl 15; C2's first two levels.
    s = step("c2a", seed=s["seed"],
             **{k: csa_levels(mul_terms(rotl32(resolve(csa_levels(s[k], 1)), 15),
                                          C2), 2) for k in keys})
    # 3: the rest of C2 and its adder.
    s = step("c2b", seed=s["seed"],
             **{k: resolve(csa_levels(s[k], len(s[k]))) for k in keys})
    # 4: the first round whole; the second round's xor and its one reduction level.
    h1 = resolve(csa_levels(round_terms(s["seed"], s["k1"]), 1))
    s = step("r", h=csa_levels(round_terms(h1, s["k2"]), 1))
    # 5: the second round's adder; h ^= 8; h ^= h >> 16; F1's first two levels.
    h = resolve(s["h"]) ^ 8
    s = step("f1a", h=csa_levels(mul_terms(h ^ (h >> 16), F1), 2))
    # 6: the rest of F1 and its adder.
    s = step("f1b", h=resolve(csa_levels(s["h"], len(s["h"]))))
    # 7: h ^= h >> 13; F2's first four levels.
    h = s["h"]
    s = step("f2a", h=csa_levels(mul_terms(h ^ (h >> 13), F2), 4))
    # 8: the rest of F2, its adder and h ^= h >> 16 (registered output).
    h = resolve(csa_levels(s["h"], len(s["h"])))
    return step("out", h=h ^ (h >> 16))["h"]

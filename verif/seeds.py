# SPDX-License-Identifier: Apache-2.0
"""The seed of a random run, as every harness of ``verif/`` reads it from the environment.

``$KVASU_SEED`` (the cocotb regression also takes ``$RANDOM_SEED`` and ``$SEED``, cocotb's
own names) is read as a Python integer literal (``12``, ``0x10``), so one value means one
seed to the cocotb regression, the fast harness's tests, the soaks and ``make sim``.
"""

from __future__ import annotations

import os
import random

__all__ = ["SEED_VARIABLES", "env_seed", "run_seed"]

#: The variables the cocotb regression reads, in order (the others read the first only).
SEED_VARIABLES = ("KVASU_SEED", "RANDOM_SEED", "SEED")


def env_seed(names: tuple[str, ...] = SEED_VARIABLES[:1]) -> int | None:
    """The seed the first of ``names`` that is set (and not empty) gives, or ``None``.
    ``ValueError``, naming the variable, for a value that is no integer >= 0."""
    for name in names:
        text = os.environ.get(name)
        if text:
            try:
                value = int(text, 0)
            except ValueError:
                value = -1
            if value < 0:
                raise ValueError(f"{name} must be an integer >= 0, not {text!r}")
            return value
    return None


def run_seed(names: tuple[str, ...] = SEED_VARIABLES[:1]) -> int:
    """:func:`env_seed`, else a fresh 32-bit seed."""
    seed = env_seed(names)
    return random.SystemRandom().getrandbits(32) if seed is None else seed

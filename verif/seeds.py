# SPDX-License-Identifier: Apache-2.0
"""The seed of a random run, as the harnesses of ``verif/`` read it from the environment.

``$KVASU_SEED`` is read as a Python integer literal (``12``, ``0x10``), so one value means
one seed to the cocotb regression (which also takes ``$RANDOM_SEED``, cocotb's own name,
and ``$SEED``), the fast harness's tests, ``make sim``, the soaks, the firmware test and
``make hostile``. The fault campaign and the mutation draw take theirs from ``--seed``
(``make faults``' ``FAULTS_SEED``, ``make mutation``'s ``MUTATION_SEED``).
"""

from __future__ import annotations

import os
import random

__all__ = ["SEED_VARIABLES", "env_seed", "run_seed", "announced_seed", "cli_seed"]

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


def cli_seed(given: int | None, parser) -> int:
    """A command's seed: ``given`` (its ``--seed``), else :func:`run_seed`; a
    ``$KVASU_SEED`` that is no integer is the ``argparse`` ``parser``'s usage error."""
    if given is not None:
        return given
    try:
        return run_seed()
    except ValueError as error:
        parser.error(str(error))


def announced_seed() -> int:
    """:func:`run_seed`, printed as ``KVASU_SEED=N`` (the tests' ``seed`` fixtures: pytest
    shows it with a failing test's output)."""
    seed = run_seed()
    print(f"KVASU_SEED={seed}")
    return seed

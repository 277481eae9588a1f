# SPDX-License-Identifier: Apache-2.0
"""How the docs write a figure, for the tests that check the docs against their records."""


def grouped(n: int) -> str:
    """An integer as the docs write it: groups of three digits apart by a space."""
    return f"{n:,}".replace(",", " ")

# SPDX-License-Identifier: Apache-2.0
"""Choosing among values by a one-hot set of flags: the pipeline's lanes and the loop
detector's steps are picked this way."""

from amaranth import Mux

__all__ = ["select"]


def select(one_hot, values):
    """``values[i]`` for the one bit ``i`` of ``one_hot`` that is set: an AND-OR select, no
    encoder/decoder or adder behind it."""
    out = 0
    for i, value in enumerate(values):
        out = out | Mux(one_hot[i], value, 0)
    return out

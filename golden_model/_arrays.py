# SPDX-License-Identifier: Apache-2.0
"""Validation of the integer sequences given to the model and the trace format (an integer
is :func:`regmap.arguments.is_int`'s)."""

from __future__ import annotations

import numpy as np

from regmap.arguments import is_int

__all__ = ["uint_array"]


def uint_array(name: str, values, max_value: int, dtype=np.uint64) -> np.ndarray:
    """``values`` (a numpy array or a sequence of ints) as a 1-d ``dtype`` array.

    Raises ``TypeError`` if the values are not integers and ``ValueError`` if the array is
    not one-dimensional or a value lies outside ``0..max_value``. Python sequences are
    checked element by element: ``numpy.asarray`` would silently turn a list that mixes
    small ints and ints of 2**63 or more into floats.
    """
    if isinstance(values, np.ndarray):
        array = values
        if array.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
        if array.size and array.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers, not {array.dtype}")
        low = int(array.min()) if array.size else 0
        high = int(array.max()) if array.size else 0
    else:
        items = list(values)
        for item in items:
            if not is_int(item):
                kind = "a sequence" if isinstance(item, (list, tuple, np.ndarray)) else \
                    type(item).__name__
                raise (ValueError if kind == "a sequence" else TypeError)(
                    f"{name} must be a one-dimensional sequence of integers, found {kind}")
        items = [int(item) for item in items]
        low, high = (min(items), max(items)) if items else (0, 0)
        array = items
    if low < 0 or high > max_value:
        if isinstance(array, np.ndarray):
            bad = int(np.flatnonzero((array < 0) | (array > max_value))[0])
        else:
            bad = next(i for i, value in enumerate(array) if not 0 <= value <= max_value)
        raise ValueError(f"{name} must hold values 0..{max_value}, found {low}..{high} "
                         f"(the first outside at index {bad}: {int(array[bad])})")
    return np.asarray(array, dtype=dtype)

# SPDX-License-Identifier: Apache-2.0
"""Checks of arguments shared by every command of the project: the shipped ones
(``kv-asu-generate``, ``kv-asu-regmap``, ``python -m golden_model.bench``), the benches and
studies (``tools/``) and the RTL runs (``verif.replay``, ``verif.sim_main``), and of the
integers the golden model and the workload generators are given. A bad command-line
argument is refused before any work, in one line, with exit status 2.

* :func:`is_int`, :func:`check_int`: an integer (Python's or numpy's, not a bool) within
  bounds, refused with ``TypeError`` / ``ValueError`` naming it.
* :func:`int_range`: an argparse ``type`` for an integer within bounds.
* :func:`positive_number`: an argparse ``type`` for a positive, finite number.
* :func:`unwritable`: why an output file or folder cannot be written, or ``None``.
* :func:`check_writable`: an output file (``--out``) or folder (``--build``) that can be
  written, checked before the run rather than found unwritable after it.

They live in ``regmap`` because it is the one package that every shipped part and every
tool already imports (the golden model may not import ``hdl``, nor ``hdl`` the model).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["is_int", "check_int", "int_range", "positive_number", "unwritable",
           "check_writable"]


def is_int(value) -> bool:
    """``value`` is an integer: a Python or numpy integer, not a bool (``True`` is an int in
    Python, but a flag where a count belongs is a caller's mistake)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _bounds(low: int, high: int | None) -> str:
    return f"{low}..{high}" if high is not None else f"at least {low}"


def check_int(name: str, value, low: int, high: int | None = None) -> int:
    """``value`` as an int if :func:`is_int` and within ``low..high`` (no upper bound if
    ``high`` is None), else a ``TypeError`` / ``ValueError`` naming ``name``."""
    if not is_int(value):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {_bounds(low, high)}, not {value}")
    return value


def int_range(low: int, high: int | None = None, *, why: str = ""):
    """An argparse ``type``: an integer (decimal or ``0x``) in ``low..high`` (no upper bound
    if ``high`` is None). ``why``: added to the message of a value out of range."""
    bounds = _bounds(low, high)

    def parse(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"must be {bounds}, not {value}" + (f" ({why})" if why else ""))
        return value
    parse.__name__ = f"integer {bounds}"          # argparse names the type by it
    return parse


def positive_number(unit: str):
    """An argparse ``type``: a finite number above 0, of ``unit`` (named in the message)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not 0 < value < math.inf:
            raise argparse.ArgumentTypeError(
                f"must be a positive number of {unit}, not {text!r}")
        return value
    parse.__name__ = f"positive number of {unit}"
    return parse


def unwritable(path: Path, *, folder: bool = False) -> str | None:
    """Why ``path`` cannot be written, or ``None``: a file (``folder`` False) that exists is
    opened for appending, a folder that exists gets a temporary file; where ``path`` does not
    exist, a temporary file is made in the nearest folder above it that does (where the
    missing folders would be made). Nothing is changed."""
    path = Path(path)
    if path.exists():
        if folder and not path.is_dir():
            return "is a file, not a folder"
        if not folder and path.is_dir():
            return "is a folder, not a file"
        where = path if folder else path.parent
    else:
        where = next(parent for parent in path.absolute().parents if parent.exists())
        if not where.is_dir():
            return f"{where} is a file, not a folder"
    if path.exists() and not folder:
        what, probe = "cannot write it", lambda: open(path, "ab")
    else:
        what, probe = f"cannot make a file in {where}", lambda: tempfile.TemporaryFile(dir=where)
    try:
        with probe():
            pass
    except OSError as exc:
        return f"{what} ({exc.strerror or exc})"
    return None


def check_writable(path: Path, option: str, *, folder: bool = False) -> Path:
    """``path`` if :func:`unwritable` finds nothing against it; else prints
    ``error: OPTION PATH: reason`` and exits with status 2."""
    reason = unwritable(path, folder=folder)
    if reason is not None:
        print(f"error: {option} {path}: {reason}", file=sys.stderr)
        raise SystemExit(2)
    return Path(path)

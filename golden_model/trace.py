# SPDX-License-Identifier: Apache-2.0
"""Request traces: a stream of KV-ASU requests stored as a NumPy ``.npz`` file.

Layout of the file (``numpy.savez_compressed``), one entry per array, all of one length N:

============== ========== ===============================================================
name           dtype      meaning
============== ========== ===============================================================
``cycle``      ``uint64`` cycle at which the request is accepted; never decreases
``op``         ``uint8``  op code 0..3 (OBSERVE, QUERY, EVICT, EVICT_ANY)
``addr``       ``uint64`` byte address (so the format holds ``ADDR_WIDTH <= 64``)
``min_tlevel`` ``uint8``  0..3
``meta``       ``str``    optional, a 0-d unicode array holding a JSON object
============== ========== ===============================================================

``meta`` is free-form standard JSON (no NaN or infinity); by convention ``meta["params"]`` holds the elaboration parameters
the trace was made for (lower-case keys, as :class:`golden_model.KvAsuModel` takes them),
``meta["config"]`` a configuration to commit before replaying it (keys ``c3`` ...
``hash_seed``) and ``meta["description"]`` a sentence. ``python -m golden_model.replay``
uses ``params`` and ``config``.

The files load without pickling (``allow_pickle=False``).
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib

import numpy as np

from ._arrays import uint_array

__all__ = ["Trace", "save_trace", "load_trace", "TRACE_ARRAYS", "write_file_replacing"]

#: The request arrays of a trace and their dtypes, in the order of the file.
TRACE_ARRAYS = {"cycle": np.uint64, "op": np.uint8, "addr": np.uint64, "min_tlevel": np.uint8}

# The largest value each array may hold.
_LIMITS = {"cycle": 2**64 - 1, "op": 3, "addr": 2**64 - 1, "min_tlevel": 3}


def _validated(name: str, values) -> np.ndarray:
    """``values`` as a one-dimensional array of the dtype of ``name``, range-checked."""
    return uint_array(f"trace array {name!r}", values, _LIMITS[name], TRACE_ARRAYS[name])


class Trace:
    """A validated request stream: numpy arrays ``cycle``, ``op``, ``addr``,
    ``min_tlevel`` of one length, and a ``meta`` dict.

    Raises ``ValueError`` for arrays of different lengths, decreasing cycles, an op or a
    ``min_tlevel`` outside 0..3 or a value that does not fit its dtype, and ``TypeError`` for
    non-integer arrays or a ``meta`` that is not a JSON-serialisable dict (``ValueError``
    for one holding a NaN or an infinity, which standard JSON has no words for).
    """

    __slots__ = ("cycle", "op", "addr", "min_tlevel", "meta")

    def __init__(self, cycle, op, addr, min_tlevel, meta=None):
        self.cycle = _validated("cycle", cycle)
        self.op = _validated("op", op)
        self.addr = _validated("addr", addr)
        self.min_tlevel = _validated("min_tlevel", min_tlevel)
        lengths = {name: len(getattr(self, name)) for name in TRACE_ARRAYS}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"trace arrays must have the same length, got {lengths}")
        if len(self.cycle) > 1 and bool((self.cycle[1:] < self.cycle[:-1]).any()):
            first = int(np.argmax(self.cycle[1:] < self.cycle[:-1])) + 1
            raise ValueError(f"trace cycles must not decrease: cycle[{first}] = "
                             f"{int(self.cycle[first])} < cycle[{first - 1}] = "
                             f"{int(self.cycle[first - 1])}")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise TypeError(f"trace meta must be a dict, not {type(meta).__name__}")
        try:
            # Standard JSON, so that any reader takes the file: a NaN or an infinity would
            # be written as a bare word that only Python's json reads back.
            json.dumps(meta, allow_nan=False)
        except ValueError as error:
            raise ValueError(f"trace meta must be standard JSON: {error}") from None
        self.meta = meta

    def __len__(self) -> int:
        return len(self.cycle)

    def __repr__(self) -> str:
        return f"<Trace of {len(self)} requests, meta keys {sorted(self.meta)}>"


def write_file_replacing(path: str | os.PathLike, write) -> None:
    """Call ``write(file)`` on a new temporary file in the folder of ``path`` (of a link's
    target), then rename it to ``path`` (``os.replace``): a failed write (a full disk, a
    size limit, an interrupt) leaves the file that was at ``path`` as it was, and the
    temporary file is removed. A ``path`` that exists and is no regular file (``/dev/null``,
    a pipe) is written in place, not replaced."""
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):   # (a folder fails in open)
        with open(target, "wb") as file:
            write(file)
        return
    folder, name = os.path.split(target)
    partial = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.partial")
    # O_EXCL: a new file of the umask's mode, as open(path, "wb") would make it
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(fd, "wb") as file:
            write(file)
        os.replace(partial, target)
    except BaseException:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise


def save_trace(path: str | os.PathLike, cycle, op, addr, min_tlevel, meta=None) -> None:
    """Validate a request stream and write it to ``path`` (exactly that name) as ``.npz``.

    ``meta`` is an optional JSON-serialisable dict (see the module docstring). The file is
    written under a temporary name in the same folder and renamed to ``path`` when
    complete, so a failed write leaves an earlier file at ``path`` intact (and no
    temporary file).
    """
    trace = Trace(cycle, op, addr, min_tlevel, meta)
    arrays = {name: getattr(trace, name) for name in TRACE_ARRAYS}
    arrays["meta"] = np.array(json.dumps(trace.meta, sort_keys=True, allow_nan=False))
    # a file object, so numpy does not append ".npz"
    write_file_replacing(path, lambda file: np.savez_compressed(file, **arrays))


def load_trace(path: str | os.PathLike) -> Trace:
    """Read and validate a trace written by :func:`save_trace`.

    Raises ``ValueError``, naming the file, for anything in the file that is not a valid
    trace: not an ``.npz`` archive or a damaged one, an array missing, of the wrong kind
    (floats, bools, strings ...) or out of range, arrays of different lengths, a ``meta``
    that is not a 0-d str array holding a standard JSON object (``FileNotFoundError`` if
    there is no file).
    """
    name = os.fspath(path)
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except FileNotFoundError:
        raise
    except OSError as error:                # a folder, no permission, ...
        raise ValueError(f"{name} cannot be read as a trace: {error}") from None
    if head != b"PK\x03\x04":                # an .npz is a zip archive
        raise ValueError(f"{name} is not a KV-ASU trace: not an .npz archive")
    # A damaged member shows only when it is read: zlib and zipfile errors (a bad CRC) come
    # from the reads below, not from opening the archive.
    damaged = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)
    try:
        data = np.load(path, allow_pickle=False)
    except damaged as error:
        raise ValueError(f"{name} is not a KV-ASU trace: a damaged .npz archive "
                         f"({error or type(error).__name__})") from None
    with data:
        missing = [array for array in TRACE_ARRAYS if array not in data.files]
        if missing:
            raise ValueError(f"{name} is not a KV-ASU trace: "
                             f"missing array(s) {', '.join(missing)}")
        try:
            arrays = {array: data[array] for array in TRACE_ARRAYS}
            meta_array = data["meta"] if "meta" in data.files else np.array("{}")
        except damaged as error:             # (an object array, which needs pickling, too)
            raise ValueError(f"{name} is not a KV-ASU trace: an array that cannot be read "
                             f"({error or type(error).__name__})") from None
    if meta_array.shape != () or meta_array.dtype.kind != "U":
        raise ValueError(f"{name}: meta must be a 0-d str array holding a JSON object, not an "
                         f"array of shape {meta_array.shape} and dtype {meta_array.dtype}")
    try:
        meta = json.loads(str(meta_array))
    except json.JSONDecodeError as error:
        raise ValueError(f"{name}: meta is not JSON ({error})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{name}: meta must be a JSON object")
    try:
        return Trace(**arrays, meta=meta)
    except (TypeError, ValueError) as error:   # what is in a file is a value, not a type
        raise ValueError(f"{name}: {error}") from None

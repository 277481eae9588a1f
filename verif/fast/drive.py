# SPDX-License-Identifier: Apache-2.0
"""Running the built harness: the request stream, the AXI4-Lite operations, the AXI
master's behaviour and the faults encoded into its input file (``encode``), the run
(``run``) and its recorded output (``read_result``)."""

from __future__ import annotations

import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from regmap import AXIL_ADDR_WIDTH, Params

from ..codec import Codec
from .records import AxiMaster, FastResult, Hang, HarnessError, Mismatch

__all__ = ["encode", "encode_fault", "run", "read_result", "failure", "check_build",
           "check_faults", "BUILD_PARAMS", "BUILD_MEMORIES"]

_MAGIC = 0x3154564B   # 'KVT1'

#: The harness's exit statuses (verif/fast/harness.cpp): the block broke the protocol, the
#: block hung, the harness itself failed.
_BLOCK_FAILED, _HANG, _HARNESS_ERROR = 2, 3, 4

#: Beside the built harness: the ``Params.as_dict()`` it was built for (``build``).
BUILD_PARAMS = "kvasu_fast.params.json"
#: Beside a harness built for fault injection: its memory arrays, ``[name, width, depth]``
#: each, named as a :class:`Fault` names them (``build``).
BUILD_MEMORIES = "kvasu_fast.memories.json"


def failure(status: int, message: str) -> Exception:
    """The exception for a harness that ended with exit status ``status`` (not 0; negative:
    killed by that signal, as ``subprocess`` gives it) and stderr ``message``:
    :class:`Hang` (3), :class:`Mismatch` (2: the block broke the protocol), or
    :class:`HarnessError` for the harness's own error (4), a signal or anything else."""
    if status == _HANG:
        return Hang(f"harness failed ({status}): {message}")
    if status == _BLOCK_FAILED:
        return Mismatch(f"harness failed ({status}): {message}")
    what = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
    return HarnessError(f"the harness itself failed ({what}): {message}")


def check_build(exe: Path, params: Params) -> None:
    """``ValueError`` if the harness ``exe`` was built for other parameters than ``params``
    (its :data:`BUILD_PARAMS` file; a build of a given Verilog has none and passes)."""
    recorded = Path(exe).with_name(BUILD_PARAMS)
    if recorded.exists():
        import json
        built = json.loads(recorded.read_text())
        if built != params.as_dict():
            diff = {k: (v, built.get(k)) for k, v in params.as_dict().items()
                    if built.get(k) != v}
            raise ValueError(f"params: the harness {exe} was built for other parameters "
                             f"({', '.join(f'{k} {b} built, {v} given' for k, (v, b) in diff.items())})")


def check_faults(exe: Path, faults) -> None:
    """``ValueError`` naming the field for a :class:`Fault` the harness ``exe`` could not
    inject: a ``memory`` it does not have, a ``word`` or ``bit`` outside it (its
    :data:`BUILD_MEMORIES` file; ``ValueError`` too for a harness built without fault
    injection)."""
    faults = list(faults)
    if not faults:
        return
    recorded = Path(exe).with_name(BUILD_MEMORIES)
    if not recorded.exists():
        raise ValueError(f"faults: the harness {exe} was not built for fault injection")
    import json
    arrays = {name: (width, depth) for name, width, depth in json.loads(recorded.read_text())}
    for fault in faults:
        if fault.memory not in arrays:
            raise ValueError(f"a fault's memory: the harness has no memory array "
                             f"{fault.memory!r}")
        width, depth = arrays[fault.memory]
        if not 0 <= fault.word < depth:
            raise ValueError(f"a fault's word must be 0..{depth - 1} in {fault.memory}, "
                             f"not {fault.word}")
        if not 0 <= fault.bit < width:
            raise ValueError(f"a fault's bit must be 0..{width - 1} in {fault.memory}, "
                             f"not {fault.bit}")


def _u(name: str, value, bits: int) -> int:
    """``value`` as an unsigned field of ``bits`` bits, or ``TypeError`` / ``ValueError``
    naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    value = int(value)
    if not 0 <= value < 1 << bits:
        raise ValueError(f"{name} must be 0..{(1 << bits) - 1}, not {value}")
    return value


def _check_barriers(axi_ops, requests: int) -> None:
    """A barrier the harness could never pass, or never leave, would idle it for ever (an
    idle harness is not a hang: a trace's gaps may be long): refuse a barrier at more
    requests than there are, and one before the last request without a release after it."""
    open_barrier = None
    for op in axi_ops:
        if op.kind == "barrier":
            if not 0 <= op.addr <= requests:
                raise ValueError(f"a barrier at request {op.addr}: the stream has {requests}")
            if open_barrier is not None:
                raise ValueError(f"a barrier at request {op.addr} inside the barrier at "
                                 f"{open_barrier.addr} (no release between them)")
            open_barrier = op
        elif op.kind == "release":
            open_barrier = None
    if open_barrier is not None and open_barrier.addr < requests:
        raise ValueError(f"the barrier at request {open_barrier.addr} has no release, and "
                         f"{requests - open_barrier.addr} requests are after it")


def encode(codec: Codec, requests, axi_ops, faults=(), master: AxiMaster | None = None) -> bytes:
    """requests: iterable of (not_before, op, addr, min_tlevel). ``ValueError`` for a
    barrier the harness could not pass or leave (``_check_barriers``), and, naming the
    field, for an operand out of its range: a negative ``not_before`` or fault ``cycle``,
    ``word`` or ``bit``; an AXI address of ``AXIL_ADDR_WIDTH`` bits or more, ``data`` of
    more than 32 bits, ``strb`` of more than 4 (``TypeError`` for a non-integer)."""
    requests, axi_ops = list(requests), list(axi_ops)
    _check_barriers(axi_ops, len(requests))
    out = bytearray(struct.pack("<III", _MAGIC, codec.req_words, codec.rsp_words))
    if master is not None and master != AxiMaster():
        out += struct.pack("<IQIII", 7, 0, master.ready_permille, master.reads, master.skew)
    word_fmt = f"<{codec.req_words}I"
    mask = 0xFFFF_FFFF
    for i, (not_before, op, addr, min_tlevel) in enumerate(requests):
        payload = codec.pack_req(int(op), int(addr), int(min_tlevel))
        out += struct.pack("<IQ", 0, _u(f"request {i}'s not_before", not_before, 64))
        out += struct.pack(word_fmt, *((payload >> (32 * i)) & mask
                                        for i in range(codec.req_words)))
    for i, op in enumerate(axi_ops):
        what = f"AXI operation {i} ({op.kind})"
        not_before = _u(f"{what}'s not_before", op.not_before, 64)
        if op.kind == "write":
            out += struct.pack("<IQIII", 1, not_before,
                               _u(f"{what}'s addr", op.addr, AXIL_ADDR_WIDTH),
                               _u(f"{what}'s data", op.data, 32),
                               _u(f"{what}'s strb", op.strb, 4))
        elif op.kind == "read":
            out += struct.pack("<IQI", 2, not_before,
                               _u(f"{what}'s addr", op.addr, AXIL_ADDR_WIDTH))
        elif op.kind == "barrier":
            out += struct.pack("<IQI", 3, not_before, _u(f"{what}'s addr", op.addr, 32))
        elif op.kind == "release":
            out += struct.pack("<IQ", 4, not_before)
        else:
            raise ValueError(f"AxiOp kind must be write, read, barrier or release, "
                             f"not {op.kind!r}")
    for fault in faults:
        out += encode_fault(fault, record=True)
    return bytes(out)


def encode_fault(fault, *, record: bool = False) -> bytes:
    """A :class:`Fault` as the harness reads it: a kind 5 record (``record``), or the
    cycle and the rest as within a run record (kind 6). ``ValueError`` naming the field for
    a negative or too wide ``cycle``, ``word`` or ``bit``, ``TypeError`` for a ``memory``
    that is not a string."""
    if not isinstance(fault.memory, str):
        raise TypeError(f"a fault's memory must be a string, not {type(fault.memory).__name__}")
    name = fault.memory.encode()
    fields = (_u("a fault's cycle", fault.cycle, 64), _u("a fault's word", fault.word, 32),
              _u("a fault's bit", fault.bit, 32), len(name))
    if record:
        return struct.pack("<IQIII", 5, *fields) + name
    return struct.pack("<QIII", *fields) + name


def run(exe: Path, params: Params, requests, axi_ops=(), *, ready_permille: int = 1000,
        seed: int = 1, waves: Path | None = None, workdir: Path | None = None,
        faults=(), progress=None, master: AxiMaster | None = None) -> FastResult:
    """Run a request stream (and AXI operations) through the built harness.

    ``faults``: :class:`Fault` upsets to inject (a harness built with ``faults=True``).
    ``master``: how the AXI master behaves (:class:`AxiMaster`; ``None``: the plain one).
    ``progress``: called as ``progress(cycle, accepted, left)`` every 2**24 cycles of the
    run (the requests accepted so far and those left), for a long run's progress line.
    ``ready_permille``: the response consumer ready in a cycle with this probability (per
    mille, 0..1000; 1000: always).
    ``ValueError`` (before the run) for an ``exe`` built for other ``params``
    (:func:`check_build`), faults it could not inject (:func:`check_faults`), a
    ``ready_permille`` outside 0..1000 or an operand out of range (:func:`encode`).
    Raises :class:`Hang` if the block stops making progress, :class:`Mismatch` if it
    breaks the protocol (an answer owed to nothing), :class:`HarnessError` if the harness
    itself fails (:func:`failure`)."""
    import time
    if isinstance(ready_permille, bool) or not isinstance(ready_permille, (int, np.integer)):
        raise TypeError(f"ready_permille must be an integer, not {type(ready_permille).__name__}")
    if not 0 <= ready_permille <= 1000:
        raise ValueError(f"ready_permille must be 0..1000, not {ready_permille}")
    check_build(exe, params)
    faults = list(faults)
    check_faults(exe, faults)
    codec = Codec(params)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tmp = Path(tmp)
        (tmp / "in.bin").write_bytes(encode(codec, requests, axi_ops, faults, master))
        cmd = [str(exe), str(tmp / "in.bin"), str(tmp / "rsp.bin"), str(tmp / "axi.bin"),
               str(ready_permille), str(seed)] + ([str(waves)] if waves else [])
        start = time.monotonic()
        with open(tmp / "stderr.txt", "w+") as err, \
                subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True) as proc:
            for line in proc.stdout:
                fields = line.split()
                if progress is not None and fields[:1] == ["progress"]:
                    progress(*(int(x) for x in fields[1:4]))
            returncode = proc.wait()
            err.seek(0)
            stderr = err.read().strip()
        seconds = time.monotonic() - start
        if returncode:
            raise failure(returncode, stderr)
        return read_result(codec, (tmp / "rsp.bin").read_bytes(),
                           (tmp / "axi.bin").read_bytes(), seconds)


def read_result(codec: Codec, rsp: bytes, axi: bytes, seconds: float) -> FastResult:
    """A :class:`FastResult` from the harness's OUT_RSP and OUT_AXI files' bytes."""
    rec = np.dtype([("acc", "<u8"), ("rsp", "<u8"), ("w", "<u4", (codec.rsp_words,))])
    raw = np.frombuffer(rsp, dtype=rec)
    axi_rec = np.dtype([("kind", "<u4"), ("addr", "<u4"), ("rdata", "<u4"),
                        ("resp", "<u4"), ("start", "<u8"), ("done", "<u8")])
    ops = np.frombuffer(axi, dtype=axi_rec)
    cycles = int(max(raw["rsp"].max(initial=0), ops["done"].max(initial=0))) + 1
    return FastResult(raw["acc"].copy(), raw["rsp"].copy(), raw["w"].copy(),
                      [tuple(int(x) for x in r) for r in ops], seconds, cycles)

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

from regmap import Params

from ..codec import Codec
from .records import AxiMaster, FastResult, Hang, Mismatch

__all__ = ["encode", "run", "read_result"]

_MAGIC = 0x3154564B   # 'KVT1'


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
    barrier the harness could not pass or leave (``_check_barriers``)."""
    requests, axi_ops = list(requests), list(axi_ops)
    _check_barriers(axi_ops, len(requests))
    out = bytearray(struct.pack("<III", _MAGIC, codec.req_words, codec.rsp_words))
    if master is not None and master != AxiMaster():
        out += struct.pack("<IQIII", 7, 0, master.ready_permille, master.reads, master.skew)
    word_fmt = f"<{codec.req_words}I"
    mask = 0xFFFF_FFFF
    for not_before, op, addr, min_tlevel in requests:
        payload = codec.pack_req(int(op), int(addr), int(min_tlevel))
        out += struct.pack("<IQ", 0, int(not_before))
        out += struct.pack(word_fmt, *((payload >> (32 * i)) & mask
                                        for i in range(codec.req_words)))
    for op in axi_ops:
        if op.kind == "write":
            out += struct.pack("<IQIII", 1, op.not_before, op.addr, op.data, op.strb)
        elif op.kind == "read":
            out += struct.pack("<IQI", 2, op.not_before, op.addr)
        elif op.kind == "barrier":
            out += struct.pack("<IQI", 3, op.not_before, op.addr)
        elif op.kind == "release":
            out += struct.pack("<IQ", 4, op.not_before)
        else:
            raise ValueError(f"AxiOp kind must be write, read, barrier or release, "
                             f"not {op.kind!r}")
    for fault in faults:
        name = fault.memory.encode()
        out += struct.pack("<IQIII", 5, fault.cycle, fault.word, fault.bit, len(name)) + name
    return bytes(out)


def run(exe: Path, params: Params, requests, axi_ops=(), *, ready_permille: int = 1000,
        seed: int = 1, waves: Path | None = None, workdir: Path | None = None,
        faults=(), progress=None, master: AxiMaster | None = None) -> FastResult:
    """Run a request stream (and AXI operations) through the built harness.

    ``faults``: :class:`Fault` upsets to inject (a harness built with ``faults=True``).
    ``master``: how the AXI master behaves (:class:`AxiMaster`; ``None``: the plain one).
    ``progress``: called as ``progress(cycle, accepted, left)`` every 2**24 cycles of the
    run (the requests accepted so far and those left), for a long run's progress line.
    Raises :class:`Hang` if the block stops making progress, :class:`Mismatch` if the
    harness fails otherwise."""
    import time
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
        if returncode == 3:
            raise Hang(f"harness failed ({returncode}): {stderr}")
        if returncode:
            raise Mismatch(f"harness failed ({returncode}): {stderr}")
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

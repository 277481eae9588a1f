# SPDX-License-Identifier: Apache-2.0
"""What soft-error protection costs in the ECP5 build (docs/spec-decisions.md D11): Yosys
synthesis (``synth_ecp5``, no placement) of the ECP5 target's design with
``CoreOptions.protection`` as built (``"auto"``) and ``"none"``, every cell count of each,
and the difference.

``python -m fpga.protection_cost [--out build/fpga/protection] [--only auto|none]`` prints
the table and writes ``protection_cost.json`` (``--only``: synthesise that one again, take
the other from its earlier run in ``--out``, which must be of the netlist the sources build
now). A synthesis count, not a placement: Fmax is not measured here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from regmap.arguments import check_writable

from .flow import TARGETS, _parse_yosys_stat, harness_verilog
from .flow import synthesise as flow_synthesise
from .placements import netlist_id

__all__ = ["synthesise", "main"]

#: ECP5 cell types summed into the report's columns.
COLUMNS = {"LUT4": ("LUT4",), "FF": ("TRELLIS_FF",), "CCU2C": ("CCU2C",),
           "DP16KD": ("DP16KD",), "MULT18X18D": ("MULT18X18D",),
           "distributed RAM": ("TRELLIS_DPR16X4",)}


def synthesise(protection: str, out: Path) -> dict:
    """Synthesise the ECP5 target with ``protection``; the cell counts."""
    target = TARGETS["ecp5"]
    options = dataclasses.replace(target.options, protection=protection)
    out.mkdir(parents=True, exist_ok=True)
    _, seconds = flow_synthesise(target, out, options)
    return _report(protection, options, out, seconds)


def _report(protection, options, out, seconds):
    cells = _parse_yosys_stat((out / "yosys.log").read_text())
    summary = {col: sum(cells.get(c, 0) for c in types) for col, types in COLUMNS.items()}
    run = {"protection": protection, "options": options.as_dict(),
           "netlist": netlist_id((out / "top.v").read_text()), "cells": cells,
           "summary": summary, "synth_s": None if seconds is None else round(seconds, 1)}
    (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")
    return run


def _current_netlist(protection: str) -> str:
    """The name of the netlist the sources build now for ``protection``."""
    target = TARGETS["ecp5"]
    options = dataclasses.replace(target.options, protection=protection)
    return netlist_id(harness_verilog(target, options)[1])


def _earlier(protection: str, out: Path) -> dict:
    """The run of an earlier invocation in ``out``; ``ValueError`` if there is none, or it
    is of another netlist than the sources build now (its counts would be compared with
    a netlist they are not of)."""
    try:
        run = json.loads((out / "run.json").read_text())
    except (OSError, ValueError):
        raise ValueError(f"no earlier run in {out}: run without --only") from None
    now = _current_netlist(protection)
    if run.get("netlist") != now:
        raise ValueError(f"the earlier run in {out} is of netlist {run.get('netlist')}, "
                         f"the sources build {now} now: run without --only")
    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=Path("build/fpga/protection"))
    ap.add_argument("--only", choices=("auto", "none"), default=None)
    args = ap.parse_args(argv)
    check_writable(args.out, "--out", folder=True)
    start = time.monotonic()
    # (the earlier run is checked before the long synthesis of the other)
    try:
        earlier = {p: _earlier(p, args.out / p) for p in ("auto", "none")
                   if args.only not in (None, p)}
    except ValueError as error:
        print(f"error: --only {args.only}: {error}", file=sys.stderr)
        return 2
    runs = {p: earlier[p] if p in earlier else synthesise(p, args.out / p)
            for p in ("auto", "none")}
    diff = {col: runs["auto"]["summary"][col] - runs["none"]["summary"][col]
            for col in COLUMNS}
    report = {"target": "ecp5", "runs": runs, "protection_cost": diff,
              "wall_seconds": round(time.monotonic() - start, 1)}
    print(f"{'':16}" + "".join(f"{c:>17}" for c in COLUMNS))
    for name, run in runs.items():
        print(f"{'protection=' + name:16}" + "".join(f"{run['summary'][c]:>17}" for c in COLUMNS))
    print(f"{'difference':16}" + "".join(f"{diff[c]:>+17}" for c in COLUMNS))
    (args.out / "protection_cost.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out / 'protection_cost.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

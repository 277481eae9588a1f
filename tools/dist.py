# SPDX-License-Identifier: Apache-2.0
"""Write the shipped Verilog under ``dist/``: ``python -m tools.dist`` (``make dist``).

Three builds ship, each as module ``kv_asu`` in its own folder (compile one of them):

``dist/default/kv_asu.v``
    The default parameters and implementation options (``hdl.generate``'s output).
``dist/predictor/kv_asu.v``
    The default parameters with the predictor mode (``CoreOptions(predictor=True,
    protection="none")``, ``hdl.generate --predictor --protection none``: the mode's own
    memories have no check bits, so the build has no soft-error protection).
``dist/ice40/kv_asu.v``
    The reduced build of ``make fpga``'s iCE40 target (``fpga.flow.TARGETS["ice40"]``:
    its parameters and implementation options, so the two never drift apart).

Each file starts with a comment naming the build, its parameters, its latency and the
parameters the hand-written wrapper (``dist/kv_asu_wrapper.v``) needs for it.
``--check`` regenerates in memory and exits 1, naming the files that differ, when the
checked-in Verilog is not what the generator gives now.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from hdl.core import CoreOptions
from hdl.generate import header, wrapper_params
from regmap import Params

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
REGENERATE = "make dist   (= python -m tools.dist)"

__all__ = ["Build", "BUILDS", "wrapper_params", "render", "main", "REGENERATE"]


@dataclasses.dataclass(frozen=True)
class Build:
    name: str
    description: str
    params: dict            # overrides of regmap.Params defaults
    options: CoreOptions    # build choices of hdl.top.KvAsu

    @property
    def path(self) -> Path:
        return DIST / self.name / "kv_asu.v"

    def wrapper_params(self) -> dict[str, int]:
        """The wrapper's width parameters for this build."""
        return wrapper_params(Params(**self.params))


def _builds() -> dict[str, Build]:
    from fpga.flow import TARGETS
    ice40 = TARGETS["ice40"]
    return {
        "default": Build("default", "default parameters and options", {}, CoreOptions()),
        "predictor": Build("predictor", "default parameters with the predictor mode, "
                           "no soft-error protection", {},
                           CoreOptions(predictor=True, protection="none")),
        "ice40": Build("ice40", "reduced build of the iCE40 UP5K target", dict(ice40.params),
                       ice40.options),
    }


BUILDS = _builds()


def render(build: Build) -> str:
    """The shipped text of one build: the header comment and the generated Verilog."""
    from hdl.generate import to_verilog
    from hdl.top import KvAsu
    params = Params(**build.params)
    top = KvAsu(params, build.options)
    return header(params, build.options, top.latency,
                  title=f"KV-ASU {build.name} build ({build.description})",
                  origin="Generated from hdl/ by `make dist` (python -m tools.dist); "
                         "do not edit by hand.",
                  wrapper_file="dist/kv_asu_wrapper.v") + to_verilog(top, name="kv_asu")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.dist", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="compare with the checked-in files instead of writing them")
    parser.add_argument("--build", action="append", choices=sorted(BUILDS),
                        help="only this build (repeatable; default: all)")
    args = parser.parse_args(argv)
    stale = []
    for name in args.build or sorted(BUILDS):
        build = BUILDS[name]
        text = render(build)
        rel = build.path.relative_to(ROOT)
        if args.check:
            if not build.path.exists() or build.path.read_text() != text:
                stale.append(str(rel))
            continue
        build.path.parent.mkdir(parents=True, exist_ok=True)
        build.path.write_text(text)
        print(f"wrote {rel}")
    if stale:
        print(f"out of date: {', '.join(stale)}; regenerate with: {REGENERATE}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

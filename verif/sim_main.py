# SPDX-License-Identifier: Apache-2.0
"""``make sim``: the KV-ASU RTL (default configuration) under Verilator on the built-in
streaming-video KV trace, checked against the golden model.

    python -m verif.sim_main [--build build/sim] [--preset small] [--no-waves] [--seed N]

Prints a line per frame as the simulation runs (figures read from the RTL's statistics
registers over AXI4-Lite) and a summary; writes the waveform to ``<build>/kv_asu.fst``, the
per-frame figures to ``<build>/sim_main.json``, their plot (``verif.sim_plot``) to
``<build>/sim_main.png`` and the Verilator build's log to ``<build>/build.log`` (the
simulator's output goes to the terminal). The waveform, figures and plot of an earlier run
are deleted first; their paths are printed on a pass, with the command that opens the
waveform in GTKWave with ``docs/sim.gtkw`` (a failed run prints the waveform's, which ends
at the failure). The
seed (``--seed``, else ``$KVASU_SEED``, else a fresh one) seeds the testbench and
Verilator's random initial values; it is printed, and ``--seed`` with it reproduces the run.
Exits non-zero if any response or statistic differs from the golden model.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from regmap.arguments import check_writable
from verif import runner as R
from verif.seeds import cli_seed


#: The longest trace (in cycles) ``make sim`` simulates: cocotb runs a few thousand cycles
#: per second here (the built-in trace, 118 937 cycles, in about half a minute), so a
#: preset at its real frame rate (500 M cycles) would take days.
MAX_CYCLES = 10_000_000

#: GTKWave save file for the waveform: clk, rst, the request and response handshakes, the
#: payloads' fields and a few internals, all from the ``kv_asu`` scope.
GTKW = Path(__file__).resolve().parent.parent / "docs" / "sim.gtkw"


def plot_figures(figures: Path, out: Path) -> bool:
    """Draw ``figures`` (``sim_main.json``) to ``out`` (``sim_main.png``) and print its path;
    without matplotlib, or if the figures cannot be plotted, print one line saying why
    instead. True if the plot was written."""
    import json
    from verif.sim_plot import plot
    try:
        print(f"per-frame plot: {plot(json.loads(figures.read_text()), out)}")
        return True
    except ImportError as exc:
        print(f"plot skipped: {exc} (matplotlib is in the `eval` extra, which make sim's "
              f"default EXTRAS install)")
    except (OSError, ValueError) as exc:
        print(f"plot skipped: {figures}: {exc}")
    return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verif.sim_main", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", type=Path, default=Path("build/sim"), help="build/output folder")
    ap.add_argument("--preset", default="small", help="evaluation.workload preset")
    ap.add_argument("--no-waves", action="store_true", help="do not dump a waveform")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the testbench and of Verilator's random initial values "
                         "(default: $KVASU_SEED, else a fresh one; printed)")
    args = ap.parse_args(argv)
    seed = cli_seed(args.seed, ap)            # (the cocotb runs' variable, $KVASU_SEED)
    from evaluation.workload import PRESETS, video_kv_requests
    if args.preset not in PRESETS:
        ap.error(f"--preset must be one of {', '.join(PRESETS)}, not {args.preset!r}")
    span = int(video_kv_requests(PRESETS[args.preset])[0][-1]) + 1
    if span > MAX_CYCLES:
        ap.error(f"the {args.preset!r} trace spans {span:,} cycles (its frames at their real "
                 f"rate), more than cocotb simulates in reasonable time ({MAX_CYCLES:,}); "
                 f"replay it on the fast harness instead: python -m evaluation.workload "
                 f"{args.preset} --trace {args.preset}.npz && python -m verif.replay "
                 f"{args.preset}.npz")
    check_writable(args.build, "--build", folder=True)
    R.ensure_path()
    logging.basicConfig(level=logging.WARNING)
    for name in ("cocotb", "Verilator", "cocotb_tools"):
        logging.getLogger(name).setLevel(logging.WARNING)
    from cocotb_tools.check_results import get_results
    from regmap import Params

    waves = not args.no_waves and os.environ.get("WAVES", "1") not in ("0", "")
    build = args.build.resolve()
    build.mkdir(parents=True, exist_ok=True)
    fst, figures, results = build / "kv_asu.fst", build / "sim_main.json", build / "results.xml"
    png = build / "sim_main.png"
    for old in (fst, figures, results, png):   # an earlier run's: not this run's outputs
        old.unlink(missing_ok=True)
    params = Params()
    print(f"make sim: seed {seed} (--seed {seed} reproduces the run)", flush=True)
    t0 = time.monotonic()
    print(f"make sim: generating the Verilog of the default configuration and building it "
          f"with Verilator{' (FST tracing on)' if waves else ''}; log: {build / 'build.log'}",
          flush=True)
    runner = R.get_runner("verilator")
    runner.log.setLevel(logging.WARNING)         # its "Running command ..." lines
    runner = R.build("verilator", "default", params, build, waves=waves,
                     log_file=build / "build.log", runner=runner)
    print(f"built in {time.monotonic() - t0:.0f} s; simulating", flush=True)
    env = {"COCOTB_LOG_LEVEL": "WARNING", "GPI_LOG_LEVEL": "WARNING",
           "KVASU_TRACE_PRESET": args.preset,
           "PYTHONWARNINGS": "ignore::DeprecationWarning"}
    if os.environ.get("COCOTB_LOG_LEVEL"):
        env["COCOTB_LOG_LEVEL"] = os.environ["COCOTB_LOG_LEVEL"]
    try:
        R.run(runner, "verilator", "default", params, build, ["verif.cocotb_sim_main"],
              seed=seed, waves=waves, extra_env=env)
    except SystemExit as exc:
        print(f"make sim: the simulator exited with {exc.code}", file=sys.stderr)
        return 1
    try:
        n, failed = get_results(results)
    except RuntimeError as exc:
        print(f"make sim: {exc}", file=sys.stderr)
        return 1
    passed = bool(n) and not failed and figures.exists()
    if passed:
        if waves:
            print(f"waveform: {fst}")
            print(f"view: gtkwave {fst} {GTKW}")
        print(f"per-frame figures: {figures}")
        plot_figures(figures, png)
    elif fst.exists():                          # this run's: the earlier one's was deleted
        print(f"waveform (up to the failure): {fst}")
    print(f"make sim: {'PASSED' if passed else 'FAILED'} (seed {seed}, "
          f"{time.monotonic() - t0:.0f} s)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""The non-blocking mode's figures (docs/spec-decisions.md D13).

``python -m tools.bench_nonblocking [--out build/bench_nonblocking.json] [--requests N] [--config default]``

Runs ``verif.cocotb_bench_nonblocking`` on the Verilated RTL (the cocotb testbench: every
request decided by the golden model's admission rule, every response and statistic checked)
for back-to-back EVICT_ANY, the streaming-video KV trace with its GC EVICTs, and that trace
with a FLUSH or a COMMIT every 500 cycles, in the blocking mode and in MODE.NONBLOCKING;
prints a table and writes the figures to ``--out``, a file of its own (``make bench``
rewrites ``build/bench.json`` whole).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from verif import runner as R


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench_nonblocking", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("build/bench_nonblocking.json"))
    ap.add_argument("--requests", type=int, default=3000, help="requests per video pattern")
    ap.add_argument("--config", default="default", choices=sorted(R.CONFIGS))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    R.ensure_path()
    logging.basicConfig(level=logging.WARNING)
    from regmap import Params
    params = Params(**R.CONFIGS[args.config])
    build = (Path("build") / "verif" / f"verilator-{args.config}").resolve()
    t0 = time.monotonic()
    print(f"building the {args.config} configuration with Verilator ({build})", flush=True)
    runner = R.build("verilator", args.config, params, build, log_file=build / "build.log")
    figures = build / "bench_nonblocking.json"
    figures.unlink(missing_ok=True)
    print(f"built in {time.monotonic() - t0:.0f} s; running the patterns", flush=True)
    R.run(runner, "verilator", args.config, params, build, ["verif.cocotb_bench_nonblocking"],
          seed=args.seed, log_file=build / "bench_nonblocking.log",
          extra_env={"KVASU_BENCH_OUT": str(figures),
                     "KVASU_BENCH_REQUESTS": str(args.requests),
                     "PYTHONWARNINGS": "ignore::DeprecationWarning"})
    if not figures.exists():
        print(f"no figures: see {build / 'bench_nonblocking.log'}", file=sys.stderr)
        return 1
    data = json.loads(figures.read_text())
    print(f"{'pattern':34s} {'mode':12s} {'presented':>9s} {'taken':>6s} {'dropped':>7s} "
          f"{'cycles':>7s} {'not ready':>9s} {'taken/cycle':>11s}")
    for mode, patterns in data["patterns"].items():
        for name, f in patterns.items():
            print(f"{name:34s} {mode:12s} {f['presented']:9d} {f['taken']:6d} "
                  f"{f['dropped']:7d} {f['cycles']:7d} {f['not_ready_cycles']:9d} "
                  f"{f['taken_per_cycle']:11.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({**data, "seed": args.seed, "config": args.config},
                                   indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

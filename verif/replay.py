# SPDX-License-Identifier: Apache-2.0
"""Replay a request trace through the Verilated RTL and check it against the golden model.

``python -m verif.replay TRACE.npz [--param NAME=VALUE ...] [--ready PERMILLE] [--predictor]``

The trace is a golden-model trace file (``golden_model.trace``; the evaluation's workloads
write them). Its ``meta["params"]`` choose the configuration unless ``--param`` overrides
it. Each request is offered at its trace cycle (later if the block holds ``ready`` low);
the golden model answers each one at the cycle the RTL accepted it. Every response is
compared field by field, then all statistics registers and OCCUPANCY are read over
AXI4-Lite and compared with the model's. Prints both sets of statistics; exits 1 on any
difference, and on a hang (the block stops making progress: no handshake for 100 000
cycles while one is owed); exits 3 if the harness itself fails (not the RTL; 2: a usage
error). ``--ready``: the share of cycles, per mille (1..1000), with the response consumer
ready. ``--predictor`` replays on the predictor build in
``POLICY.MODE = 1`` (docs/spec-predictor.md), committed before the first request.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from golden_model import KvAsuModel, Trace, load_trace
from regmap import PARAM_NAMES, REG, STAT_REGISTERS, Params, param_overrides
from regmap.arguments import check_writable, int_range

from . import fast
from .predictor_soak import OPTIONS as PREDICTOR_OPTIONS, commit_policy

__all__ = ["replay", "main"]


def replay(trace: Trace | Path, params: Params, build: Path, ready_permille: int = 1000,
           progress=None, predictor: bool = False) -> dict:
    """Replay ``trace`` (a loaded ``Trace``, or the path of its file) through the harness
    built for ``params`` in ``build``; return a summary (``fast.check``'s, with both sets
    of statistics and OCCUPANCY). ``progress``: as ``fast.run``'s. With ``predictor`` the
    build is ``verif.predictor_soak.OPTIONS``'s (``CoreOptions.predictor``) and
    ``POLICY.MODE = 1`` is committed before the first request, the golden model following
    the commit. Raises ``fast.Mismatch`` on any difference."""
    if not isinstance(trace, Trace):
        trace = load_trace(trace)
    if len(trace) and int(trace.addr.max()) >> params.ADDR_WIDTH:
        first = int(np.argmax(trace.addr >> np.uint64(params.ADDR_WIDTH) != 0))
        raise ValueError(f"request {first} of the trace has address {int(trace.addr[first]):#x}, "
                         f"wider than ADDR_WIDTH = {params.ADDR_WIDTH}")
    requests = list(zip(trace.cycle.tolist(), trace.op.tolist(), trace.addr.tolist(),
                        trace.min_tlevel.tolist()))
    # (with the predictor: the requests held until POLICY.MODE = 1 is committed)
    axi = ([fast.AxiOp("barrier", 0), *commit_policy(1), fast.AxiOp("release")]
           if predictor else [])
    axi += [fast.AxiOp("barrier", len(requests))]
    for reg in STAT_REGISTERS:
        axi += [fast.AxiOp("read", reg.offset), fast.AxiOp("read", reg.offset + 4)]
    axi += [fast.AxiOp("read", REG["OCCUPANCY"].offset), fast.AxiOp("release")]
    options = PREDICTOR_OPTIONS if predictor else None
    exe = fast.build(params, build, options=options)
    result = fast.run(exe, params, requests, axi, ready_permille=ready_permille,
                      progress=progress)
    model = KvAsuModel(params)
    summary = fast.check(params, model, requests, axi, result,   # raises on a difference
                         predictor=predictor, latency=fast.build_latency(params, options))
    rtl_stats = {}
    words = [rec[2] for rec in result.axi if rec[0] == 2]          # the reads' data
    for i, reg in enumerate(STAT_REGISTERS):
        rtl_stats[reg.stat] = words[2 * i] | words[2 * i + 1] << 32
    summary.update(rtl_stats=rtl_stats, model_stats=model.stats.as_dict(),
                   rtl_occupancy=words[-1], model_occupancy=model.occupancy,
                   policy=model.policy)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verif.replay",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("trace", type=Path)
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--ready", type=int_range(1, 1000, why="per mille of cycles with the "
                                              "response consumer ready; 1000: always"),
                    default=1000, help="response ready, per mille (1..1000)")
    ap.add_argument("--build", type=Path, default=Path("build/replay"))
    ap.add_argument("--predictor", action="store_true",
                    help="the predictor build, POLICY.MODE = 1 committed before the first request")
    args = ap.parse_args(argv)
    check_writable(args.build, "--build", folder=True)      # (the Verilator build's folder)
    try:
        trace = load_trace(args.trace)
    except (OSError, ValueError) as err:
        ap.error(str(err))
    # Only block parameters: a workload generator may keep its own settings in the meta.
    meta = trace.meta.get("params") or {}
    meta_params = {k.upper(): v for k, v in meta.items() if k.upper() in PARAM_NAMES}
    try:
        params = Params(**{**meta_params, **param_overrides(args.param)})
    except ValueError as err:
        ap.error(str(err))
    name = "_".join(f"{k}{v}" for k, v in sorted(params.as_dict().items()))
    if args.predictor:
        name += "_predictor"
    last_cycle = int(trace.cycle[-1]) if len(trace) else 0

    def progress(cycle, accepted, left):
        print(f"replay: cycle {cycle:,} of about {last_cycle:,}, {accepted:,} requests "
              f"accepted, {left:,} to go", file=sys.stderr, flush=True)
    try:
        s = replay(trace, params, args.build / name, args.ready, progress=progress,
                   predictor=args.predictor)
    except fast.Hang as err:
        print(f"replay: HANG: the RTL stopped making progress (no handshake for 100 000 cycles "
              f"while one was owed; --ready {args.ready}):\n{err}")
        return 1
    except fast.Mismatch as err:
        print(f"replay: MISMATCH between the RTL and the golden model:\n{err}")
        return 1
    except fast.HarnessError as err:
        print(f"replay: HARNESS ERROR (a failure of the test harness, not of the RTL):\n{err}")
        return 3
    except ValueError as err:
        ap.error(f"{args.trace}: {err}")
    print(f"replay: {s['requests']} requests over {s['cycles']} cycles ({s['policy']} mode); "
          f"every response and statistic equal to the golden model's")
    print(f"  {'statistic':14s} {'RTL':>12s} {'model':>12s}")
    for k, v in s["rtl_stats"].items():
        print(f"  {k:14s} {v:12d} {s['model_stats'][k]:12d}")
    print(f"  {'occupancy':14s} {s['rtl_occupancy']:12d} {s['model_occupancy']:12d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

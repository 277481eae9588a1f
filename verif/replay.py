# SPDX-License-Identifier: Apache-2.0
"""Replay a request trace through the Verilated RTL and check it against the golden model.

``python -m verif.replay TRACE.npz [--param NAME=VALUE ...] [--no-trace-config]
[--config K=V,...] [--ready PERMILLE] [--predictor] [--max-cycles N]``

The trace is a golden-model trace file (``golden_model.trace``; the evaluation's workloads
write them), read as ``python -m golden_model.replay`` reads it: its ``meta["params"]``
choose the block's parameters unless ``--param`` overrides them (keys in any case; the
keys that are no parameter of the block, a workload generator's own settings, are named in
a note on stderr and ignored), its ``meta["config"]`` is committed before the first
request, and only the low ``ADDR_WIDTH`` bits of an address exist in the block (spec D2: a
note counts the addresses with higher bits). ``--config K=V,...`` (``golden_model.replay``'s
option) is committed with it, its values over the trace's; ``--no-trace-config`` leaves
``meta["config"]`` out, so the replay starts from the build's reset configuration (plus
``--config`` if given): the way to replay a trace whose configuration does not fit the
parameters given with ``--param`` (a real-decoder trace's windows, meant for ``TS_WIDTH``
8, on the fast harness's small build with ``TS_WIDTH`` 4: docs/decoder.md). The harness simulates every cycle up to the
last request's, some 10**5 to 10**6 cycles a second: a trace whose last request is after
``--max-cycles`` (default 2**32, hours) is refused, not started. Each request is offered at its trace cycle (later if the block holds ``ready`` low);
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
from golden_model.replay import ignored_note, parse_config, trace_settings
from regmap import REG, STAT_REGISTERS, Params, param_overrides
from regmap.arguments import check_writable, int_range

from . import fast
from .predictor_soak import OPTIONS as PREDICTOR_OPTIONS, commit_policy

__all__ = ["replay", "main", "MAX_CYCLES"]

#: The default bound of ``--max-cycles``: the harness simulates every cycle, idle or not,
#: some 10**5 to 10**6 a second, so a trace that ends later would run for hours or (a gap
#: of 2**40 cycles, a cycle near 2**64) for ever; the README's 1080p30 replay, 500 M
#: cycles, takes 14 minutes.
MAX_CYCLES = 1 << 32

#: Cycles a second the estimate of a refused trace's run time assumes (the README's
#: 1080p30 replay: 500 M cycles in 14 minutes).
_CYCLES_PER_SECOND = 600_000


def _wide_addresses(trace: Trace, addr_width: int) -> np.ndarray:
    """The indices of the requests of ``trace`` whose address has bits above
    ``addr_width``."""
    if addr_width >= 64:
        return np.zeros(0, np.intp)
    return np.flatnonzero(trace.addr >> np.uint64(addr_width))


def replay(trace: Trace | Path, params: Params, build: Path, ready_permille: int = 1000,
           progress=None, predictor: bool = False, config: dict | None = None) -> dict:
    """Replay ``trace`` (a loaded ``Trace``, or the path of its file) through the harness
    built for ``params`` in ``build``; return a summary (``fast.check``'s, with both sets
    of statistics and OCCUPANCY, and the model's final ``config``). ``progress``: as
    ``fast.run``'s. With ``predictor`` the build is ``verif.predictor_soak.OPTIONS``'s
    (``CoreOptions.predictor``) and ``POLICY.MODE = 1`` is committed before the first
    request, the golden model following the commit. ``config``: configuration values
    (``golden_model.Config`` keys, lower case) written to their shadow registers and
    committed before the first request, as ``golden_model.replay`` commits a trace's
    ``meta["config"]`` (an illegal one is refused by the block and the model alike: check
    it first). An address's bits above ``ADDR_WIDTH`` are dropped (spec D2: they do not
    exist in the block, and the golden model ignores them too). Raises ``fast.Mismatch``
    on any difference."""
    if not isinstance(trace, Trace):
        trace = load_trace(trace)
    addr = trace.addr
    if len(_wide_addresses(trace, params.ADDR_WIDTH)):
        addr = addr & np.uint64((1 << params.ADDR_WIDTH) - 1)
    requests = list(zip(trace.cycle.tolist(), trace.op.tolist(), addr.tolist(),
                        trace.min_tlevel.tolist()))
    # The configuration, then (with the predictor) POLICY.MODE = 1, committed by one CTRL
    # write with the requests held until it is done.
    writes = [fast.AxiOp("write", REG[key.upper()].offset, value, 0xF)
              for key, value in (config or {}).items()]
    if predictor:
        writes += commit_policy(1)
    elif writes:
        writes.append(fast.AxiOp("write", REG["CTRL"].offset,
                                 REG["CTRL"].mask("ENABLE") | REG["CTRL"].mask("COMMIT"), 0xF))
    axi = [fast.AxiOp("barrier", 0), *writes, fast.AxiOp("release")] if writes else []
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
                         predictor=predictor, latency=fast.build_latency(params, options),
                         always_ready=ready_permille == 1000)
    rtl_stats = {}
    words = [rec[2] for rec in result.axi if rec[0] == 2]          # the reads' data
    for i, reg in enumerate(STAT_REGISTERS):
        rtl_stats[reg.stat] = words[2 * i] | words[2 * i + 1] << 32
    summary.update(rtl_stats=rtl_stats, model_stats=model.stats.as_dict(),
                   rtl_occupancy=words[-1], model_occupancy=model.occupancy,
                   policy=model.policy, config=model.config.as_dict())
    return summary


def _refuse(message: str):
    """A trace or an option this command cannot run: one ``error:`` line, exit status 2
    (before any build)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _duration(seconds: float) -> str:
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600),
                       ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.0f} seconds"


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
    ap.add_argument("--no-trace-config", action="store_true",
                    help="leave the trace's meta['config'] out: start from the build's reset "
                         "configuration (for a trace whose configuration does not fit --param, "
                         "e.g. windows meant for a wider TS_WIDTH)")
    ap.add_argument("--config", default="", metavar="K=V,...",
                    help="configuration committed before the first request, over the trace's "
                         "meta['config'] (or the reset one with --no-trace-config), e.g. "
                         "c3=3,c2=2 (as python -m golden_model.replay's)")
    ap.add_argument("--max-cycles", type=int_range(0), default=MAX_CYCLES, metavar="N",
                    help="refuse a trace whose last request is after cycle N (default "
                         "2**32: the harness simulates every cycle)")
    args = ap.parse_args(argv)
    check_writable(args.build, "--build", folder=True)      # (the Verilator build's folder)
    try:
        trace = load_trace(args.trace)
        # meta["params"] and meta["config"] read as golden_model.replay reads them: one
        # meaning of a trace for the model's command and the RTL's.
        given, config, ignored = trace_settings(trace, args.trace)
        if args.no_trace_config:
            config = {}
        config.update(parse_config(args.config))
    except (OSError, ValueError) as err:
        _refuse(str(err))
    if ignored:
        print(ignored_note(args.trace, ignored), file=sys.stderr)
    meta_params = {k.upper(): v for k, v in given.items()}
    try:
        params = Params(**{**meta_params, **param_overrides(args.param)})
        from hdl.core import check_core_params
        check_core_params(params)    # (what the RTL cannot build: refused before the build)
    except (TypeError, ValueError) as err:
        _refuse(f"parameters (meta['params'] of {args.trace}, then --param): {err}")
    if config:
        try:                # refused here, not by the block after a build
            KvAsuModel(params).commit(0, **config)
        except (TypeError, ValueError) as err:
            where = ("--config" if args.no_trace_config else
                     f"meta['config'] of {args.trace}" + (", then --config" if args.config else ""))
            hint = ("" if args.no_trace_config else
                    " (--no-trace-config replays from the build's reset configuration)")
            _refuse(f"{where}: {err}{hint}")
    last_cycle = int(trace.cycle[-1]) if len(trace) else 0
    if last_cycle > args.max_cycles:
        _refuse(f"{args.trace}: its last request is at cycle {last_cycle:,}, after "
                f"--max-cycles {args.max_cycles:,}: the harness simulates every cycle (some "
                f"{_CYCLES_PER_SECOND:,} a second), which would take about "
                f"{_duration(last_cycle / _CYCLES_PER_SECOND)}; a larger --max-cycles runs "
                f"it anyway (python -m golden_model.replay replays it through the model alone)")
    wide = _wide_addresses(trace, params.ADDR_WIDTH)
    if len(wide):
        print(f"note: {args.trace}: {len(wide)} request(s) have address bits above "
              f"ADDR_WIDTH = {params.ADDR_WIDTH} (the first: request {int(wide[0])}, "
              f"{int(trace.addr[wide[0]]):#x}): the block has no such bits (spec D2), so only "
              f"the low {params.ADDR_WIDTH} are replayed, as golden_model.replay reads them",
              file=sys.stderr)
    name = "_".join(f"{k}{v}" for k, v in sorted(params.as_dict().items()))
    if args.predictor:
        name += "_predictor"

    def progress(cycle, accepted, left):
        print(f"replay: cycle {cycle:,} of about {last_cycle:,}, {accepted:,} requests "
              f"accepted, {left:,} to go", file=sys.stderr, flush=True)
    try:
        s = replay(trace, params, args.build / name, args.ready, progress=progress,
                   predictor=args.predictor, config=config)
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
        _refuse(f"{args.trace}: {err}")
    print(f"replay: {s['requests']} requests over {s['cycles']} cycles ({s['policy']} mode); "
          f"every response and statistic equal to the golden model's")
    print(f"  {'statistic':14s} {'RTL':>12s} {'model':>12s}")
    for k, v in s["rtl_stats"].items():
        print(f"  {k:14s} {v:12d} {s['model_stats'][k]:12d}")
    print(f"  {'occupancy':14s} {s['rtl_occupancy']:12d} {s['model_occupancy']:12d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

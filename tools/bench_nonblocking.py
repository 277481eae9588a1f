# SPDX-License-Identifier: Apache-2.0
"""The non-blocking mode's figures (docs/spec-decisions.md D13).

``python -m tools.bench_nonblocking [--out build/bench_nonblocking.json] [--requests N] [--config default] [--seed S] [--sweep-requests N] [--reset-sweep-only] [--predictor]``

Runs ``verif.cocotb_bench_nonblocking`` on the Verilated RTL (the cocotb testbench: every
request decided by the golden model's admission rule, every response and statistic checked)
for back-to-back EVICT_ANY, the streaming-video KV trace with its GC EVICTs, and that trace
with a FLUSH or a COMMIT every 500 cycles, in the blocking mode and in MODE.NONBLOCKING;
prints a table and writes the figures to ``--out``, a file of its own (``make bench``
rewrites ``build/bench.json`` whole).

It also measures the stream presented back to back from the first cycle after a reset that
wraps the table generations (D12: its clear sweep) in the build that resets ``MODE`` to 0
(the default) and in the one that resets it to ``NONBLOCKING``
(``CoreOptions(mode_reset=1)``, D13 "The reset mode"), in ``amaranth.sim`` (a build option,
not a register write: the Verilated default build cannot show it); every request is
decided by the golden model's admission rule and every response checked against the
model. ``--reset-sweep-only`` runs only that part.

``--predictor`` runs the patterns on the predictor build instead (``CoreOptions(predictor=
True, protection="none")``), in both policies (``POLICY.MODE`` 0 and 1), without the
post-reset part (the same in either build).

``--requests`` is the length of each video pattern: the three take consecutive slices of
the trace, so at most a third of its requests. ``--seed`` seeds the cocotb run and the
post-reset stream; it is printed and written to ``--out``.

Per pattern (and per post-reset stream) the JSON has the requests ``presented`` (a request
the blocking block does not take counts once per cycle it is presented), ``taken`` and
``dropped``, ``cycles`` (from the first presentation to the last, both counted),
``not_ready_cycles`` and ``taken_fraction_of_cycles`` (``taken / cycles`` rounded to 4
places, the table's ``taken/cycles``; :func:`taken_fraction_of_cycles` is its one
definition, which the cocotb side uses too). The last is not ``tools.bench``'s
``requests_per_cycle``, the rate between the first acceptance and the last
(``tools.bench.acceptance_rate``): 256 EVICT_ANYs taken one per 4 cycles give 0.2507 here
(256 / 1 021), 0.2500 there; in the non-blocking mode, where a request is presented in
every cycle, it is the share of the presented requests taken.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from regmap.arguments import check_writable, int_range
from verif import runner as R


def video_requests() -> int:
    """The requests of the streaming-video KV trace the video patterns slice."""
    from evaluation.workload import video_kv_requests
    return len(video_kv_requests()[1])


def reset_sweep(params, mode_reset: int, requests: int, seed: int) -> dict:
    """Figures of ``requests`` OBSERVE / QUERY (drawn from ``seed``) presented back to back
    from the first cycle after the reset that wraps the generations, in a build of
    ``params`` with ``mode_reset``. A request the blocking block does not take is presented
    again in the next cycle."""
    import random

    from amaranth import ClockDomain, Elaboratable, Module
    from amaranth.sim import Simulator

    import regmap
    from golden_model import KvAsuModel
    from golden_model.admission import Admission, BuildTiming
    from hdl.core import CoreOptions
    from hdl.table import GEN_WIDTH
    from hdl.top import KvAsu
    from verif.codec import Codec

    dut = KvAsu(params, CoreOptions(mode_reset=mode_reset))
    rows = params.ENTRIES // params.PROBE
    rule = Admission(BuildTiming(latency=dut.latency, evict_gap=dut.core.evict_gap,
                                 evict_evict_gap=dut.core.evict_evict_gap,
                                 rows=rows, credits=dut.core.fifo_depth))
    rng = random.Random(seed)
    ops = (regmap.OPS["OBSERVE"], regmap.OPS["QUERY"])
    lines = [rng.randrange(1, 1 << 20) for _ in range(max(8, params.ENTRIES // 2))]
    items = [(rng.choice(ops), (rng.choice(lines) << params.LINE_SHIFT) &
              ((1 << params.ADDR_WIDTH) - 1)) for _ in range(requests)]
    codec = Codec(params)
    fields = codec.rsp_names
    out = {"presented": 0, "taken": 0, "dropped": 0, "not_ready_cycles": 0, "cycles": 0,
           "mismatches": 0}

    class Wrap(Elaboratable):
        def __init__(self):
            self.cd = ClockDomain("sync")

        def elaborate(self, platform):
            m = Module()
            m.domains.sync = self.cd
            m.submodules.dut = dut
            return m

    wrap = Wrap()

    async def bench(ctx):
        ctx.set(dut.rsp.ready, 1)
        for _ in range(2 ** GEN_WIDTH):                # the last reset wraps and sweeps
            ctx.set(wrap.cd.rst, 1)
            await ctx.tick()
            ctx.set(wrap.cd.rst, 0)
            await ctx.tick()
        ctx.set(wrap.cd.rst, 1)
        await ctx.tick()
        ctx.set(wrap.cd.rst, 0)
        model = KvAsuModel(params, mode_reset=mode_reset)
        rule.reset(sweeps=True)
        expected, k, edge = [], 0, 0
        while k < len(items) or rule.rsp_offered(edge) or expected:
            edge = ctx.get(dut.timebase.cycle)
            if ctx.get(dut.rsp.valid):
                want = expected.pop(0) if expected else None
                got = codec.unpack_rsp(ctx.get(dut.rsp.payload).as_value().value)
                if want is None or {f: got[f] for f in fields} != want:
                    out["mismatches"] += 1
            op = addr = None
            if k < len(items):
                op, addr = items[k]
                ctx.set(dut.req.valid, 1)
                ctx.set(dut.req.payload.op, op)
                ctx.set(dut.req.payload.addr, addr)
                out["presented"] += 1
                out["cycles"] = edge + 1
                if not ctx.get(dut.req.ready):
                    out["not_ready_cycles"] += 1
            else:
                ctx.set(dut.req.valid, 0)
            taken = rule.step(edge, op, True, nonblocking=model.nonblocking)
            if op is not None and bool(ctx.get(dut.req.ready)) != (model.nonblocking or taken):
                out["mismatches"] += 1              # the rule's ready is not the RTL's
            if taken:
                expected.append(model.request(edge, op, addr).as_dict())
                k += 1
            elif taken is False and model.nonblocking:
                model.drop(edge)
                k += 1
            await ctx.tick()
            if edge > 4 * len(items) + 4 * rows + 100:
                raise RuntimeError("the reset-sweep stream does not finish")
        out["taken"], out["dropped"] = rule.taken, rule.dropped
        out["stat_req_dropped_model"] = model.stats.req_dropped

    sim = Simulator(wrap)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    out["taken_fraction_of_cycles"] = taken_fraction_of_cycles(out["taken"], out["cycles"])
    return out


def taken_fraction_of_cycles(taken: int, cycles: int) -> float | None:
    """The figures' ``taken_fraction_of_cycles`` (the module docstring), here and in
    ``verif.cocotb_bench_nonblocking``: the ``taken`` requests over the ``cycles`` from the
    first presentation to the last, rounded to 4 places; ``None`` (no figure) for no cycle.
    Not a rate between acceptances (``tools.bench.acceptance_rate``)."""
    return round(taken / cycles, 4) if cycles else None


def _fraction_cell(figures: dict) -> str:
    """A pattern's ``taken_fraction_of_cycles`` as the tables print it."""
    fraction = figures["taken_fraction_of_cycles"]
    return f"{'-':>12s}" if fraction is None else f"{fraction:12.3f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench_nonblocking", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("build/bench_nonblocking.json"))
    ap.add_argument("--requests", type=int_range(1), default=3000,
                    help="requests per video pattern")
    ap.add_argument("--config", default="default", choices=sorted(R.CONFIGS))
    ap.add_argument("--seed", type=int_range(0), default=1,
                    help="seed of the cocotb run and of the post-reset stream")
    ap.add_argument("--sweep-requests", type=int_range(1), default=None,
                    help="requests after the wrapping reset (default ENTRIES / PROBE + 200)")
    ap.add_argument("--reset-sweep-only", action="store_true",
                    help="only the post-reset sweep in amaranth.sim (no Verilator build)")
    ap.add_argument("--predictor", action="store_true",
                    help="the predictor build, both policies (no post-reset part)")
    args = ap.parse_args(argv)
    if args.predictor and args.reset_sweep_only:
        ap.error("--predictor has no post-reset part")
    if not args.reset_sweep_only:
        # (the cocotb run slices the trace into its three video patterns only after the
        # Verilator build: a longer slice would come back short or empty)
        total = video_requests()
        if args.requests > total // 3:
            ap.error(f"argument --requests: must be 1..{total // 3} (the three video "
                     f"patterns take consecutive slices of the trace's {total} requests), "
                     f"not {args.requests}")
    check_writable(args.out, "--out")         # (written at the end of the run)
    R.ensure_path()
    logging.basicConfig(level=logging.WARNING)
    from regmap import Params
    params = Params(**R.CONFIGS[args.config])
    n = (params.ENTRIES // params.PROBE + 200 if args.sweep_requests is None
         else args.sweep_requests)
    sweep = {}
    if not args.predictor:
        print(f"the stream after a wrapping reset ({n} requests, amaranth.sim, seed "
              f"{args.seed})", flush=True)
        sweep = {f"mode_reset={mode}": reset_sweep(params, mode, n, args.seed)
                 for mode in (0, 1)}
        print(f"{'build':14s} {'presented':>9s} {'taken':>6s} {'dropped':>7s} "
              f"{'cycles':>7s} {'not ready':>9s} {'taken/cycles':>12s} {'mismatches':>10s}")
    for name, f in sweep.items():
        print(f"{name:14s} {f['presented']:9d} {f['taken']:6d} {f['dropped']:7d} "
              f"{f['cycles']:7d} {f['not_ready_cycles']:9d} {_fraction_cell(f)} "
              f"{f['mismatches']:10d}")
    if any(f["mismatches"] for f in sweep.values()):
        print("the RTL differs from the model after the wrapping reset", file=sys.stderr)
        return 1
    if args.reset_sweep_only:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"reset_sweep": sweep, "seed": args.seed,
                                        "config": args.config}, indent=1) + "\n")
        print(f"wrote {args.out}")
        return 0
    options = None
    if args.predictor:
        from hdl.core import CoreOptions
        options = CoreOptions(predictor=True, protection="none")
    build = R.build_dir_for("verilator", args.config, options)
    t0 = time.monotonic()
    print(f"building the {args.config} configuration with Verilator ({build}); seed "
          f"{args.seed}", flush=True)
    runner = R.build("verilator", args.config, params, build, log_file=build / "build.log",
                     options=options)
    figures = build / "bench_nonblocking.json"
    figures.unlink(missing_ok=True)
    print(f"built in {time.monotonic() - t0:.0f} s; running the patterns", flush=True)
    R.run(runner, "verilator", args.config, params, build, ["verif.cocotb_bench_nonblocking"],
          seed=args.seed, log_file=build / "bench_nonblocking.log", options=options,
          extra_env={"KVASU_BENCH_OUT": str(figures),
                     "KVASU_BENCH_REQUESTS": str(args.requests),
                     "PYTHONWARNINGS": "ignore::DeprecationWarning"})
    if not figures.exists():
        print(f"no figures: see {build / 'bench_nonblocking.log'}", file=sys.stderr)
        return 1
    data = json.loads(figures.read_text())
    print(f"{'pattern':34s} {'mode':12s} {'presented':>9s} {'taken':>6s} {'dropped':>7s} "
          f"{'cycles':>7s} {'not ready':>9s} {'taken/cycles':>12s}")
    for mode, patterns in data["patterns"].items():
        for name, f in patterns.items():
            print(f"{name:34s} {mode:12s} {f['presented']:9d} {f['taken']:6d} "
                  f"{f['dropped']:7d} {f['cycles']:7d} {f['not_ready_cycles']:9d} "
                  f"{_fraction_cell(f)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({**data, "reset_sweep": sweep, "seed": args.seed,
                                    "config": args.config, "predictor": args.predictor},
                                   indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

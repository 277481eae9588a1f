# SPDX-License-Identifier: Apache-2.0
"""Soak of the predictor build: mixed requests through the Verilated RTL of a core with
``CoreOptions.predictor``, mostly in ``POLICY.MODE = 1``, every response and register
access checked against the golden model.

``python -m verif.predictor_soak --requests 1000000 [--seed S] [--config small|medium|large]
[--ready 700] [--chunk 50000] [--out build/predictor_soak.json]``

Each chunk is a fresh run of the fast C++ harness (verif/fast; a reset): it commits
``POLICY = 1`` first, then runs seeded traffic (``verif.soak.Traffic``'s mix of hot,
colliding and random lines with gaps; runtime-like loops somewhat longer than the bank
with an EVICT after most new lines, so that ghosts, revivals and both ghost frees of P8
occur; and loops over lines of sampled windows among lines read once, so that the loop
detector enters and leaves loop mode and its shadows reach their bound), random response
back-pressure, and at quiescent points reads every statistic,
commits random configurations with ``POLICY`` 1 (or now and then 0 and back: each change
flushes), and fuzzes the register window while requests flow, with flushes among the
accesses (sixteen in a row once per chunk: the clear sweep of D12) and the chunk's AXI
master as ``verif.soak.axi_master`` makes it (B and R back-pressured in turn: every soak of
two chunks or more has 70 % and 30 % ready). The golden model, switched by the register
mirror as the block is, checks everything. Prints a line per chunk and, on a pass, writes
a JSON summary (``--out``; an earlier run's is deleted first, so a failed run leaves none);
nothing here depends on wall-clock time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shlex
import sys
import time
from pathlib import Path

from golden_model import KvAsuModel
from golden_model.predictor import SAMPLE_SHIFT, is_sampled
from hdl.core import CoreOptions
from regmap import OPS, REG, Params
from regmap.arguments import check_int, check_writable, int_range

from . import fast
from .seeds import cli_seed
from .soak import Traffic, _stat_reads, axi_master
from .tb.addresses import AddrSpace

__all__ = ["CONFIGS", "OPTIONS", "commit_policy", "predictor_soak", "main"]

#: The build under test: the predictor mode, unprotected (its requirement), one DSP stage
#: per hash multiply (the simulation benches' choice).
OPTIONS = CoreOptions(predictor=True, protection="none", hash_mul_stages=1)

CONFIGS = {
    # Windows collide, the ghost list fills, both frees of an EVICT occur; ticks of 16
    # cycles keep W3 and W1 a few requests long (an EVICT takes 3 cycles after 7 free of
    # list moves, an OBSERVE one, docs/rtl-predictor.md).
    "small": Params(ENTRIES=32, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=8, COUNT_WIDTH=4,
                    TS_WIDTH=8, TICK_SHIFT=4),
    # Loop-detector shadows of 16 entries and four sampled windows in 64.
    "medium": Params(ENTRIES=256, PROBE=4, ADDR_WIDTH=48, LINE_SHIFT=8, COUNT_WIDTH=8,
                     TS_WIDTH=8, TICK_SHIFT=4),
    # The default build's table: an occupancy of 1024 and 2048 lines, where PSEL's step
    # (P11) falls from 4 to 2 and 1, is reached (a loop of 1.25 to 2 banks fills it).
    "large": Params(ENTRIES=2048, PROBE=4, ADDR_WIDTH=48, LINE_SHIFT=8, COUNT_WIDTH=8,
                    TS_WIDTH=8, TICK_SHIFT=4),
}

CTRL = REG["CTRL"]
POLICY = REG["POLICY"]


def commit_policy(value: int, not_before: int = 0) -> list:
    """POLICY = ``value`` committed (with MODE 0, which fuzzing may have left with
    reserved bits: the soak stays blocking, as verif.soak's)."""
    return [fast.AxiOp("write", POLICY.offset, value, 0xF, not_before),
            fast.AxiOp("write", REG["MODE"].offset, 0, 0xF, not_before),
            fast.AxiOp("write", CTRL.offset, CTRL.mask("ENABLE") | CTRL.mask("COMMIT"), 0xF,
                       not_before)]


def _loop_requests(params: Params, rng: random.Random, n: int, start: int) -> list:
    """A runtime over a loop of 1.25 to 2 banks: OBSERVE each line in turn, an EVICT (or a
    burst of them) after most, QUERYs between."""
    size = int(params.ENTRIES * rng.choice((1.25, 1.5, 2)))
    loop = [rng.getrandbits(params.TAG_WIDTH) for _ in range(size)]
    out, cycle, k = [], start, 0
    while len(out) < n:
        cycle += rng.choice((0, 0, 1, 3))
        out.append((cycle, OPS["OBSERVE"], loop[k % size] << params.LINE_SHIFT, rng.randrange(4)))
        k += 1
        if rng.random() < 0.6:
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                out.append((cycle, rng.choice((OPS["EVICT"], OPS["EVICT_ANY"])), 0, 0))
        if rng.random() < 0.15:
            out.append((cycle, OPS["QUERY"], rng.choice(loop) << params.LINE_SHIFT, 3))
    return out[:n]


def _sampled_loop_requests(params: Params, rng: random.Random, n: int, start: int,
                           size: int | None = None) -> list:
    """Loop mode entered and left (P11): a loop over lines of sampled windows (home slot a
    multiple of 16 under ``HASH_SEED`` 0). Longer than a shadow holds (up to twice), the BIP
    shadow hits where the LRU one cannot and ``PSEL`` climbs; as long as a shadow or
    shorter, the LRU shadow hits where the BIP one does not and ``PSEL`` falls. Between the
    loop's lines, 0 to 3 lines read once, which fill the table (a shadow's bound is
    ``occupancy >> 4``) and, sampled or not, hit in neither shadow. ``size``: the loop's
    lines (default: 1 to twice a shadow's entries plus one, drawn)."""
    depth = max(1, params.ENTRIES >> SAMPLE_SHIFT)
    if size is None:
        size = rng.randint(1, 2 * depth + 1)
    home = AddrSpace(params, rng).h
    loop = []
    while len(loop) < size:
        tag = rng.getrandbits(params.TAG_WIDTH)
        if is_sampled(home(tag)):
            loop.append(tag)
    out, cycle, k = [], start, 0
    while len(out) < n:
        cycle += rng.choice((0, 1, 2))
        out.append((cycle, OPS["OBSERVE"], loop[k % len(loop)] << params.LINE_SHIFT, rng.randrange(4)))
        k += 1
        for _ in range(rng.randrange(4)):
            out.append((cycle, OPS["OBSERVE"], rng.getrandbits(params.TAG_WIDTH) << params.LINE_SHIFT, 0))
        if rng.random() < 0.05:
            out.append((cycle, OPS["QUERY"], rng.choice(loop) << params.LINE_SHIFT, 3))
    return out[:n]


def predictor_soak(params: Params, total: int, seed: int, build_dir: Path, *,
                   chunk: int = 50_000, ready_permille: int = 700, checkpoints: int = 3,
                   fuzz: int = 100, out=sys.stdout) -> dict:
    """Run ``total`` requests (at least 1) in chunks of ``chunk``; raise ``fast.Mismatch``
    on the first bad chunk."""
    check_int("total", total, 1)
    check_int("chunk", chunk, 1)
    rng = random.Random(seed)
    print(f"predictor soak: {total} requests, seed {seed}, params {params.as_dict()}",
          file=out, flush=True)
    exe = fast.build(params, build_dir, options=OPTIONS)
    latency = fast.build_latency(params, OPTIONS)
    traffic = Traffic(params, rng)
    done, start, chunks, axi_codes, switches, sweeps = 0, time.monotonic(), 0, {}, 0, 0
    masters = []
    stats_total = {}
    while done < total:
        n = min(chunk, total - done)
        requests = []
        while len(requests) < n:            # alternate the three kinds of traffic
            kind = rng.random()
            if kind < 0.3:
                make, lengths = (lambda k: traffic.requests(k, 0)), (200, 2000)
            elif kind < 0.85:
                make, lengths = (lambda k: _loop_requests(params, rng, k, 0)), (200, 2000)
            else:
                make, lengths = (lambda k: _sampled_loop_requests(params, rng, k, 0)), (2000, 8000)
            requests += make(min(n - len(requests), rng.randrange(*lengths)))
        axi = [fast.AxiOp("barrier", 0)] + commit_policy(1) + [fast.AxiOp("release")]
        for i, k in enumerate(sorted(rng.sample(range(1, n), min(checkpoints, n - 1)))):
            axi += traffic.checkpoint_fuzz(i, fuzz)
            axi += [fast.AxiOp("barrier", k)] + _stat_reads(0)
            if rng.random() < 0.7:
                axi += traffic.config_writes(0)[:-1]
            if rng.random() < 0.25:          # a switch to the article's policy and back
                axi += commit_policy(0) + _stat_reads(0)
                switches += 1
            axi += commit_policy(1) + _stat_reads(0) + [fast.AxiOp("release")]
        axi += [fast.AxiOp("barrier", n)] + _stat_reads(0) + [fast.AxiOp("release")]
        harness_seed = rng.getrandbits(32)
        master = axi_master(rng, chunks)
        masters.append(dataclasses.asdict(master))
        result = fast.run(exe, params, requests, axi, ready_permille=ready_permille,
                          seed=harness_seed, master=master)
        model = KvAsuModel(params)
        checked = fast.check(params, model, requests, axi, result, predictor=True,
                             latency=latency)
        for code, count in checked["axi_responses"].items():
            axi_codes[code] = axi_codes.get(code, 0) + count
        sweeps += checked["sweeps"]
        for name, value in model.stats.as_dict().items():
            stats_total[name] = stats_total.get(name, 0) + value
        done += n
        chunks += 1
        print(f"predictor soak: chunk {chunks}: {done}/{total} requests, 0 mismatches, "
              f"{result.cycles} cycles, policy {model.policy}, occupancy {model.occupancy}, "
              f"B/R ready {master.ready_permille / 10:g} %", file=out, flush=True)
    summary = {"requests": done, "mismatches": 0, "seed": seed, "chunk": chunk,
               "ready_permille": ready_permille, "chunks": chunks,
               "policy_switches": switches, "axi_responses": axi_codes, "sweeps": sweeps,
               "axi_masters": masters,
               "model_stats_of_last_runs": stats_total, "params": params.as_dict(),
               "options": OPTIONS.as_dict(),
               "wall_seconds": round(time.monotonic() - start, 1)}
    print(f"predictor soak: PASS {done} requests, 0 mismatches, seed {seed}", file=out,
          flush=True)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verif.predictor_soak",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int_range(1), default=1_000_000,
                    help="requests in all (default 1000000)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of every random choice (default: $KVASU_SEED, else a fresh "
                         "one; printed)")
    ap.add_argument("--config", choices=sorted(CONFIGS), default="small")
    ap.add_argument("--ready", type=int_range(1, 1000, why="per mille of cycles with the "
                                              "response consumer ready; 1000: always"),
                    default=700, help="response ready, per mille (1..1000)")
    ap.add_argument("--chunk", type=int_range(1), default=50_000,
                    help="requests per harness run, a reset between (default 50000)")
    ap.add_argument("--build", type=Path, default=Path("build/predictor_soak"),
                    help="build folder (the harness of --config in a folder of its name)")
    ap.add_argument("--out", type=Path, default=Path("build/predictor_soak.json"),
                    help="the JSON summary, written on a pass (an earlier one is deleted "
                         "first)")
    args = ap.parse_args(argv)
    check_writable(args.build / args.config, "--build", folder=True)
    check_writable(args.out, "--out")
    args.out.unlink(missing_ok=True)     # an earlier run's: a failed run leaves none
    seed = cli_seed(args.seed, ap)
    try:
        summary = predictor_soak(CONFIGS[args.config], args.requests, seed,
                                 args.build / args.config, chunk=args.chunk,
                                 ready_permille=args.ready)
    except fast.Mismatch as exc:
        print(f"predictor soak: FAIL (seed {seed}): {exc}", file=sys.stderr)
        # every option that shapes the traffic (the chunk too: each chunk draws its own)
        print("predictor soak: reproduce: " + shlex.join(
            ["python", "-m", "verif.predictor_soak", "--config", args.config, "--requests",
             str(args.requests), "--chunk", str(args.chunk), "--ready", str(args.ready),
             "--seed", str(seed), "--build", str(args.build), "--out", str(args.out)]),
              file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({**summary, "config": args.config}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""Throughput of the golden model: ``python -m golden_model.bench [--requests N] [--seed S]``.

Replays a mixed random request stream (500 000 requests by default) through a
default-parameter model with the fast path :meth:`KvAsuModel.run` (without and with
response objects), then its first 100 000 requests with one :meth:`KvAsuModel.request`
call each, and prints requests per second (of wall-clock time, and for the fast path also
of this process's CPU time, which a busy machine disturbs less). It writes no file. This
is the measurement quoted in ``docs/golden-model.md``; no test times anything.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from regmap.arguments import check_int, int_range

from .model import KvAsuModel, Op
from .murmur3 import tag_hash

__all__ = ["mixed_stream", "main"]


def _colliding_lines(rng, count: int, windows: int, entries: int) -> np.ndarray:
    """``count`` random lines that hash (seed 0) into ``windows`` windows of ``entries``."""
    homes = set(rng.integers(0, entries, windows).tolist())
    lines: list[int] = []
    while len(lines) < count:
        for line in rng.integers(0, 2**48, 4096, dtype=np.uint64).tolist():
            if tag_hash(line, 0) % entries in homes:
                lines.append(line)
    return np.array(lines[:count], dtype=np.uint64)


def mixed_stream(n: int, seed: int = 0, line_shift: int = 8, hot_lines: int = 1500,
                 entries: int = 2048):
    """A reproducible mixed request stream: ``(cycles, ops, addrs, min_tlevels)`` arrays.

    Ops: 60 % OBSERVE, 30 % QUERY, 7 % EVICT, 3 % EVICT_ANY. Addresses, at random offsets
    inside their line: 65 % from a pool of ``hot_lines`` random lines, 25 % random 48-bit
    lines, 10 % from 48 lines that share 8 windows of a table of ``entries`` slots (with
    the reset seed), so that windows fill, replace and drop. Gaps between requests: mostly
    one cycle, sometimes tens to thousands (lines go cold), rarely a million.
    ``line_shift`` is at most 16, so that a 48-bit line's address fits in 64 bits.
    """
    for name, value, low, high in (("n", n, 0, None), ("seed", seed, 0, None),
                                   ("line_shift", line_shift, 0, 16),
                                   ("hot_lines", hot_lines, 1, None),
                                   ("entries", entries, 1, None)):
        check_int(name, value, low, high)
    rng = np.random.default_rng(seed)
    ops = rng.choice(np.array([Op.OBSERVE, Op.QUERY, Op.EVICT, Op.EVICT_ANY], np.uint8), n,
                     p=[0.60, 0.30, 0.07, 0.03])
    pool = rng.integers(0, 2**48, hot_lines, dtype=np.uint64)
    colliding = _colliding_lines(rng, 48, 8, entries)
    kind = rng.random(n)
    lines = np.where(kind < 0.65, pool[rng.integers(0, hot_lines, n)],
                     np.where(kind < 0.9, rng.integers(0, 2**48, n, dtype=np.uint64),
                              colliding[rng.integers(0, len(colliding), n)]))
    addrs = (lines << np.uint64(line_shift)) | rng.integers(0, 1 << line_shift, n,
                                                            dtype=np.uint64)
    gaps = np.where(rng.random(n) < 0.97, 1, rng.geometric(1 / 200, n)).astype(np.uint64)
    gaps[rng.random(n) < 1e-4] = 1_000_000
    cycles = np.cumsum(gaps, dtype=np.uint64)
    min_tlevels = rng.integers(0, 4, n, dtype=np.uint8)
    return cycles, ops, addrs, min_tlevels


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m golden_model.bench", description=__doc__)
    parser.add_argument("--requests", type=int_range(1), default=500_000, help="stream length")
    parser.add_argument("--seed", type=int_range(0), default=0, help="stream seed")
    args = parser.parse_args(argv)

    cycles, ops, addrs, min_tlevels = mixed_stream(args.requests, args.seed)

    model = KvAsuModel()
    start, start_cpu = time.perf_counter(), time.process_time()
    model.run(cycles, ops, addrs, min_tlevels)
    fast, fast_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    print(f"run():               {args.requests / fast:12,.0f} requests/s "
          f"({args.requests} requests in {fast:.2f} s; "
          f"{args.requests / fast_cpu:,.0f} per CPU second)")
    stats = model.stats
    print("stream mix: " + ", ".join(
        f"{name}={getattr(stats, name)}" for name in
        ("observe_hits", "inserts", "replacements", "drops", "query_hits", "evicts",
         "evicts_empty")))

    model = KvAsuModel()
    start = time.perf_counter()
    model.run(cycles, ops, addrs, min_tlevels, responses=True)
    seconds = time.perf_counter() - start
    print(f"run(responses=True): {args.requests / seconds:12,.0f} requests/s")

    model = KvAsuModel()
    count = min(args.requests, 100_000)
    request = model.request
    start = time.perf_counter()
    for cycle, op, addr, min_tlevel in zip(cycles[:count].tolist(), ops[:count].tolist(),
                                           addrs[:count].tolist(), min_tlevels[:count].tolist()):
        request(cycle, op, addr, min_tlevel)
    slow = time.perf_counter() - start
    print(f"request():           {count / slow:12,.0f} requests/s "
          f"({count} requests in {slow:.2f} s, one Response each)")


if __name__ == "__main__":
    main()

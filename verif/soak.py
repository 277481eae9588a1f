# SPDX-License-Identifier: Apache-2.0
"""Soak: millions of mixed requests through the Verilated RTL, every response checked.

``python -m verif.soak --requests 10000000 [--seed S] [--config default|small|probe1]
[--ready 700] [--chunk 250000] [--build build/soak]``

Traffic is generated in chunks (seeded; the seed is printed and reproduces the run):
OBSERVE / QUERY / EVICT / EVICT_ANY over a mix of hot lines, lines that collide in one
window, and random lines; back-to-back requests, short gaps and idle gaps far longer than
``2**TS_WIDTH`` ticks; random response back-pressure. Inside each chunk, at quiescent
points, it reads every statistic and OCCUPANCY, writes random shadow configurations and
commits them (legal and illegal), flushes, clears statistics and the error bit; between
them it fuzzes the register window while requests flow, with flushes among the accesses
(sixteen in a row once per chunk, so that every chunk runs the clear sweep of D12). Each
chunk's AXI master (``axi_master``) back-pressures B and R in 70 % of cycles, in 30 % or not
at all, in turn (so every soak of two chunks or more has both), and draws two or three
reads outstanding and AW and W apart. The RTL runs in the fast C++ harness
(verif/fast); the golden model and the register mirror then check every response and
every register access. A line of progress per chunk.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import shlex
import sys
import time
from pathlib import Path

from golden_model import KvAsuModel
from regmap import CONFIG_NAMES, OPS, REG, REGISTERS, STAT_REGISTERS, Params
from regmap.arguments import check_int, check_writable, int_range

from . import fast
from .regmirror import TableGenerations
from .seeds import cli_seed
from .tb.addresses import AddrSpace

__all__ = ["CONFIGS", "Traffic", "AXI_READY_PERMILLE", "axi_master", "soak", "main"]

# Small enough that windows collide, replacements and drops are frequent, and the 4-bit
# timestamps wrap every few dozen cycles.
_SMALL = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=8, COUNT_WIDTH=4, TS_WIDTH=4,
                TICK_SHIFT=1)

CONFIGS = {
    "default": Params(),
    "small": _SMALL,
    # "small" with one slot per window: the table's rows are the LRU's words, so a
    # recovery's sweep rewrites the table's last row in its last cycle (D11's settle).
    "probe1": dataclasses.replace(_SMALL, PROBE=1),
}

CTRL = REG["CTRL"]


class Traffic:
    """Seeded mixed request and register traffic for one configuration."""

    def __init__(self, params: Params, rng: random.Random):
        self.p, self.rng = params, rng
        tag_mask = (1 << params.TAG_WIDTH) - 1
        self.tag_mask = tag_mask
        # A pool of lines that share one window under the default seed.
        target = rng.randrange(params.ENTRIES)
        home = AddrSpace(params, rng).h
        self.colliding = []
        while len(self.colliding) < 3 * params.PROBE:
            tag = rng.getrandbits(params.TAG_WIDTH)
            if (home(tag) - target) % params.ENTRIES < params.PROBE:
                self.colliding.append(tag)
        self.hot = [rng.getrandbits(params.TAG_WIDTH) for _ in range(max(8, params.ENTRIES // 4))]
        self.tick = 1 << params.TICK_SHIFT
        self.wrap = (1 << params.TS_WIDTH) * self.tick

    def addr(self) -> int:
        r = self.rng.random()
        if r < 0.45:
            tag = self.rng.choice(self.hot)
        elif r < 0.75:
            tag = self.rng.choice(self.colliding)
        else:
            tag = self.rng.getrandbits(self.p.TAG_WIDTH)
        line = tag | (self.rng.getrandbits(self.p.ADDR_WIDTH - self.p.LINE_SHIFT) & ~self.tag_mask
                      if self.rng.random() < 0.1 else 0)     # aliases above the tag bits
        offset = self.rng.getrandbits(self.p.LINE_SHIFT) if self.p.LINE_SHIFT else 0
        return (line << self.p.LINE_SHIFT | offset) & ((1 << self.p.ADDR_WIDTH) - 1)

    def gap(self) -> int:
        r = self.rng.random()
        if r < 0.80:
            return 0
        if r < 0.97:
            return self.rng.randrange(1, 4 * self.tick)
        if r < 0.995:
            return self.rng.randrange(self.tick, 300 * self.tick)
        return self.rng.randrange(self.wrap, 20 * self.wrap)  # far beyond 2**TS_WIDTH ticks

    def requests(self, n: int, start_cycle: int):
        ops = (OPS["OBSERVE"],) * 11 + (OPS["QUERY"],) * 6 + (OPS["EVICT"],) * 2 + \
              (OPS["EVICT_ANY"],)
        cycle, out = start_cycle, []
        for _ in range(n):
            cycle += self.gap()
            out.append((cycle, self.rng.choice(ops), self.addr(), self.rng.randrange(4)))
        return out

    def drain_refill(self, start_cycle: int):
        """EVICTs whose LRU tail is within W1 (an EVICT refuses it, an EVICT_ANY takes it):
        EVICT_ANYs until the list is empty, then one to three lines and at once three
        EVICTs or EVICT_ANYs. Elsewhere the tail is older than W1: the admission's gaps
        and the response back-pressure stretch a run far beyond W1."""
        evicts = (OPS["EVICT"], OPS["EVICT_ANY"])
        out = [(start_cycle, OPS["EVICT_ANY"], 0, 0)] * (self.p.ENTRIES + 1)
        out += [(start_cycle, OPS["OBSERVE"], self.addr(), 0)
                for _ in range(self.rng.randint(1, 3))]
        return out + [(start_cycle, self.rng.choice(evicts), 0, 0) for _ in range(3)]

    def mixed(self, n: int, start_cycle: int):
        """``requests`` in segments of 50 to 500, with a ``drain_refill`` now and then (one
        segment in 20 for 16 entries, rarer in proportion for larger tables, whose drain is
        longer)."""
        out, cycle = [], start_cycle
        while len(out) < n:
            if self.rng.random() < 0.05 * min(1.0, 16 / self.p.ENTRIES):
                segment = self.drain_refill(cycle)
            else:
                segment = self.requests(self.rng.randrange(50, 500), cycle)
            out += segment
            cycle = segment[-1][0]
        return out[:n]

    def config_writes(self, not_before: int) -> list:
        """Random shadow values (mostly legal, sometimes not) and a CTRL write."""
        p, rng = self.p, self.rng
        c2 = rng.randint(1, min(p.COUNT_MAX, 8))
        c3 = rng.randint(c2, min(p.COUNT_MAX, 12))
        w = sorted(rng.randint(0, p.WMAX) for _ in range(3))
        cfg = {"C3": c3, "C2": c2, "W3": w[0], "W2": w[1], "W1": w[2],
               "HASH_SEED": rng.choice((0, 0, 0, rng.getrandbits(32)))}
        if rng.random() < 0.2:                      # break one rule
            cfg[rng.choice(("C2", "W3", "W1"))] = rng.choice((0, p.WMAX + 1, p.COUNT_MAX + 1,
                                                              0xFFFF_FFFF))
        ops = [fast.AxiOp("write", REG[name].offset, value, 0xF, not_before)
               for name, value in cfg.items() if name in CONFIG_NAMES]
        # The soak stays blocking (the fast checker takes every handshake as accepted):
        # MODE back to 0, which also clears the reserved bits fuzz() may have left in it.
        ops.append(fast.AxiOp("write", REG["MODE"].offset, 0, 0xF, not_before))
        bits = CTRL.mask("ENABLE") | CTRL.mask("COMMIT")
        for action in ("FLUSH", "CLEAR_STATS", "CLEAR_ERROR", "CLEAR_SOFT_ERROR"):
            if rng.random() < 0.2:
                bits |= CTRL.mask(action)
        ops.append(fast.AxiOp("write", CTRL.offset, bits, 0xF, not_before))
        return ops


    def fuzz(self, n: int, flushes: int = 0) -> list:
        """Random register traffic for a non-quiescent stretch: any word of the 4 KiB
        window (mapped, read-only, unmapped), random data and strobes. CTRL writes keep
        ENABLE set (or skip byte 0) so the request stream is never stopped for good; reads
        of live counters are not compared, only their response codes. ``flushes`` plain
        CTRL flushes (``ENABLE | FLUSH``) go in at random places among the ``n``."""
        rng, ops = self.rng, []
        live = {r.offset for r in STAT_REGISTERS} | {r.offset + 4 for r in STAT_REGISTERS} | \
            {REG["OCCUPANCY"].offset, REG["STATUS"].offset, REG["CYCLE"].offset,
             REG["CYCLE"].offset + 4}
        mapped = sorted({off for r in REGISTERS for off in r.offsets})
        for _ in range(n):
            addr = rng.choice(mapped) if rng.random() < 0.7 else rng.randrange(0, 4096, 4)
            addr |= rng.randrange(4)                       # the low bits are ignored
            if rng.random() < 0.5:
                ops.append(fast.AxiOp("read", addr, check=(addr & ~3) not in live))
                continue
            data, strb = rng.getrandbits(32), rng.randrange(16)
            if addr & ~3 == CTRL.offset:
                data |= CTRL.mask("ENABLE")
            if addr & ~3 == REG["MODE"].offset:     # reserved bits yes, NONBLOCKING never
                data &= ~REG["MODE"].mask("NONBLOCKING")
            ops.append(fast.AxiOp("write", addr, data, strb))
        flush = fast.AxiOp("write", CTRL.offset, CTRL.mask("ENABLE") | CTRL.mask("FLUSH"), 0xF)
        for _ in range(flushes):
            ops.insert(rng.randrange(len(ops) + 1), flush)
        return ops

    def checkpoint_fuzz(self, i: int, n: int) -> list:
        """The ``fuzz(n)`` before a chunk's ``i``-th checkpoint, concurrent with live
        requests: at the first, a generation wrap's flushes (D12's 16: every chunk runs the
        clear sweep), at the others zero to three."""
        flushes = TableGenerations.GENERATIONS if i == 0 else self.rng.randrange(4)
        return self.fuzz(n, flushes=flushes)


#: BREADY and RREADY high in this share of cycles (per mille), chunk after chunk in turn:
#: the back-pressured masters first, so that a soak of two chunks (the CI's) has both.
AXI_READY_PERMILLE = (700, 300, 1000)


def axi_master(rng: random.Random, chunk: int) -> fast.AxiMaster:
    """How the AXI master of chunk ``chunk`` (from 0) behaves: BREADY and RREADY high in
    the chunk's share of cycles (``AXI_READY_PERMILLE``, in turn: a draw left a soak of two
    chunks without any B or R back-pressure one time in nine); two or three reads
    outstanding (the plain master, one operation at a time, is the other fast-harness
    users'); AWVALID and WVALID 0 to 3 cycles apart (both drawn)."""
    rng.randrange(3)   # the draw the share had: every seed's traffic stays the one it gave
    return fast.AxiMaster(ready_permille=AXI_READY_PERMILLE[chunk % len(AXI_READY_PERMILLE)],
                          reads=rng.randint(2, 3), skew=rng.randint(0, 3))


def _stat_reads(not_before: int) -> list:
    ops = []
    for reg in STAT_REGISTERS:
        ops += [fast.AxiOp("read", reg.offset, not_before=not_before),
                fast.AxiOp("read", reg.offset + 4, not_before=not_before)]
    ops.append(fast.AxiOp("read", REG["OCCUPANCY"].offset, not_before=not_before))
    ops.append(fast.AxiOp("read", REG["STATUS"].offset, not_before=not_before))
    return ops


def soak(params: Params, total: int, seed: int, build_dir: Path, *, chunk: int = 250_000,
         ready_permille: int = 700, checkpoints: int = 4, fuzz: int = 200,
         out=sys.stdout) -> dict:
    """Run ``total`` requests (at least 1) in chunks of ``chunk``; raise ``fast.Mismatch``
    on the first bad chunk."""
    check_int("total", total, 1)
    check_int("chunk", chunk, 1)
    rng = random.Random(seed)
    print(f"soak: {total} requests, seed {seed}, params {params.as_dict()}", file=out, flush=True)
    exe = fast.build(params, build_dir)
    latency = fast.build_latency(params)
    traffic = Traffic(params, rng)
    done, start, sim_s, sim_cycles = 0, time.monotonic(), 0.0, 0
    chunk_index, axi_codes, sweeps, masters, checked_requests = 0, {}, 0, [], 0
    while done < total:
        n = min(chunk, total - done)
        # Each chunk is a fresh run of the harness (and so a reset of the DUT and a new
        # model): the reset path is exercised once per chunk as well.
        requests = traffic.mixed(n, 0)
        axi = []
        for i, k in enumerate(sorted(rng.sample(range(1, n), min(checkpoints, n - 1)))):
            axi += traffic.checkpoint_fuzz(i, fuzz)
            axi += [fast.AxiOp("barrier", k)] + _stat_reads(0)
            if rng.random() < 0.7:
                axi += traffic.config_writes(0)
            axi += _stat_reads(0) + [fast.AxiOp("release")]
        axi += [fast.AxiOp("barrier", n)] + _stat_reads(0) + [fast.AxiOp("release")]
        harness_seed = rng.getrandbits(32)
        master = axi_master(rng, chunk_index)
        masters.append(dataclasses.asdict(master))
        result = fast.run(exe, params, requests, axi, ready_permille=ready_permille,
                          seed=harness_seed, master=master)
        model = KvAsuModel(params)
        checked = fast.check(params, model, requests, axi, result, latency=latency)
        for code, count in checked["axi_responses"].items():
            axi_codes[code] = axi_codes.get(code, 0) + count
        sweeps += checked["sweeps"]
        checked_requests += checked["requests"]
        done += n
        chunk_index += 1
        sim_s += result.seconds
        sim_cycles += result.cycles
        elapsed = time.monotonic() - start
        print(f"soak: chunk {chunk_index}: {done}/{total} requests, 0 mismatches, "
              f"{result.cycles} cycles, occupancy {model.occupancy}, "
              f"B/R ready {master.ready_permille / 10:g} %, "
              f"{done / elapsed:,.0f} req/s overall", file=out, flush=True)
    print(f"soak: register accesses checked: {axi_codes}; clear sweeps run: {sweeps}",
          file=out, flush=True)
    summary = {"requests": done, "checked": checked_requests, "mismatches": 0, "seed": seed, "chunks": chunk_index,
               "axi_responses": axi_codes, "sweeps": sweeps, "axi_masters": masters,
               "rtl_seconds": round(sim_s, 1), "rtl_cycles": sim_cycles,
               "wall_seconds": round(time.monotonic() - start, 1)}
    print(f"soak: PASS {done} requests, 0 mismatches, seed {seed}, "
          f"{summary['wall_seconds']} s", file=out, flush=True)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int_range(1), default=10_000_000,
                    help="requests in all (default 10000000)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of every random choice (default: $KVASU_SEED, else a fresh "
                         "one; printed)")
    ap.add_argument("--config", choices=sorted(CONFIGS), default="default")
    ap.add_argument("--ready", type=int_range(1, 1000, why="per mille of cycles with the "
                                              "response consumer ready; 1000: always"),
                    default=700, help="response ready, per mille (1..1000)")
    ap.add_argument("--chunk", type=int_range(1), default=250_000,
                    help="requests per harness run, a reset between (default 250000)")
    ap.add_argument("--build", type=Path, default=Path("build/soak"),
                    help="build folder (the harness of --config in a folder of its name)")
    args = ap.parse_args(argv)
    check_writable(args.build / args.config, "--build", folder=True)
    seed = cli_seed(args.seed, ap)
    try:
        soak(CONFIGS[args.config], args.requests, seed, args.build / args.config,
             chunk=args.chunk, ready_permille=args.ready)
    except fast.Mismatch as err:
        print(f"soak: FAIL (seed {seed}): {err}", flush=True)
        # every option that shapes the traffic (the chunk too: each chunk draws its own)
        print("soak: reproduce: " + shlex.join(
            ["python", "-m", "verif.soak", "--config", args.config, "--requests",
             str(args.requests), "--chunk", str(args.chunk), "--ready", str(args.ready),
             "--seed", str(seed), "--build", str(args.build)]), flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

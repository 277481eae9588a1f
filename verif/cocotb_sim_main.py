# SPDX-License-Identifier: Apache-2.0
"""cocotb side of ``make sim``: the RTL on the built-in streaming-video KV trace.

The trace is ``evaluation.workload.video_kv_requests`` (preset ``$KVASU_TRACE_PRESET``,
default ``small``): QUERY + OBSERVE per KV read, OBSERVE per KV write, background and
per-frame EVICT / EVICT_ANY. Requests are presented at their trace cycles (shifted by a
constant start offset) and accepted as soon as the block is ready.

Per frame, the figures printed come from the RTL's own registers, read over AXI4-Lite at
the frame boundaries (deltas of the 64-bit statistics counters and of CYCLE), and are
checked against the golden model for the same requests at the same acceptance cycles; every
response is also checked field by field by the testbench's scoreboard, and how long each
request waited to be taken after its trace cycle against D13's admission rule
(``verif.sim_waits``). Any difference fails the test (and ``make sim`` exits non-zero).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import cocotb
import numpy as np

from regmap import REG, STAT_NAMES, STAT_REGISTERS
from golden_model.admission import BuildTiming
from verif.kvasu_tb import KvAsuTB, Mismatch, ReqItem
from verif.sim_waits import admission_waits, stall_cycles, wait_figures
from verif.sim_plot import frame_figures

START = 200         # trace cycle 0 is presented this many cycles after the first read


def say(text=""):
    """Print straight to the terminal, unbuffered, outside cocotb's logging."""
    sys.__stdout__.write(text + "\n")
    sys.__stdout__.flush()


async def read_cycle(tb: KvAsuTB):
    lo, _ = await tb.rd(REG["CYCLE"].offset)
    hi, _ = await tb.rd(REG["CYCLE"].offset + 4)
    return lo | hi << 32


async def read_stats(tb: KvAsuTB):
    """Every statistic from the RTL (LO then HI: one atomic sample each)."""
    out = {}
    for reg in STAT_REGISTERS:
        lo, r1 = await tb.rd(reg.offset)
        hi, r2 = await tb.rd(reg.offset + 4)
        if r1 or r2:
            raise Mismatch(f"reading {reg.name} gave {r1!r}/{r2!r}")
        out[reg.stat] = lo | hi << 32
    return out


def fmt_frame(label, d, slip):
    f = frame_figures({**d, "stall": slip})     # (the plot's figures, verif.sim_plot)
    mix_s = "/".join(f"{m:3.0f}" if d["observes"] else "  -" for m in f["mix"])
    return (f"{label:>7s} {f['requests']:8d} {mix_s:>15s} {f['q_hit']:7.1f}% {f['kv_hit']:7.1f}% "
            f"{d['inserts']:6d} {d['replacements']:6d} {d['drops']:6d} {d['evicts']:6d} "
            f"{f['req_per_cycle']:7.3f} {slip:6d}")


HEADER = (f"{'frame':>7s} {'requests':>8s} {'T0/T1/T2/T3 %':>15s} {'q-hit':>8s} {'kv-hit':>8s} "
          f"{'insert':>6s} {'repl':>6s} {'drop':>6s} {'evict':>6s} {'req/cyc':>7s} {'stall':>6s}")


@cocotb.test()
async def streaming_video_trace(dut):
    from evaluation.workload import PRESETS, describe, video_kv_requests

    tb = KvAsuTB(dut, name="streaming_video_trace")   # the reproduce line names the test
    preset = os.environ.get("KVASU_TRACE_PRESET", "small")
    params = PRESETS[preset]
    cycle, op, addr, mt, frame = video_kv_requests(params)
    frames = [int(f) for f in np.unique(frame)]
    await tb.start()
    say(f"trace: evaluation.workload.video_kv_requests, preset '{preset}': {describe(params)}")
    say(f"       {len(cycle)} requests, {len(frames)} frames, trace cycles 0..{int(cycle[-1])}")
    say(f"DUT:   kv_asu {tb.p.as_dict()}")
    say("q-hit = QUERY hits (tlevel_before >= min_tlevel); kv-hit = OBSERVEs of lines already "
        "at T1..T3; req/cyc over the frame's active cycles (CYCLE register); stall = cycles "
        "the block was not ready for a request at its trace cycle")
    say("")
    say(HEADER)
    t_wall = time.monotonic()
    prev_model = tb.model.stats.as_dict()
    totals = {n: 0 for n in STAT_NAMES}
    totals["cycle"] = 0
    total_stall = 0
    waits = []              # per request: acceptance cycle - trace cycle
    per_frame = []
    base = None
    for f in frames:
        idx = np.nonzero(frame == f)[0]
        start_rtl = await read_stats(tb)
        if base is None:        # trace cycle 0 a little after start-up and the first read
            base = tb.cycle_now() + START
        items = [ReqItem(int(op[i]), int(addr[i]), int(mt[i]), at=base + int(cycle[i]))
                 for i in idx]
        await tb.wait_until_cycle(items[0].at - 30)
        c_start = await read_cycle(tb)
        n0 = tb.scoreboard.received
        tb.send_items(items)
        await tb.drain()
        c_end = await read_cycle(tb)
        hist = list(tb.scoreboard.history)[len(tb.scoreboard.history) - len(items):]
        taken = [c for c, _, _ in hist]
        stall = stall_cycles([it.at for it in items], taken)
        waits.extend(c - it.at for c, it in zip(taken, items))
        end_rtl = await read_stats(tb)
        d = {k: end_rtl[k] - start_rtl[k] for k in end_rtl}
        d["cycle"] = c_end - c_start
        model = tb.model.stats.as_dict()
        dm = {k: model[k] - prev_model[k] for k in model}
        bad = {k: (dm[k], d[k]) for k in dm if dm[k] != d[k]}
        if bad or tb.scoreboard.received - n0 != len(items):
            say(f"MISMATCH in frame {f}: statistic (model, rtl): {bad}")
            raise Mismatch(f"frame {f}: RTL statistics differ from the golden model: {bad}")
        prev_model = model
        total_stall += stall
        for k in totals:
            totals[k] += d[k]
        per_frame.append({"frame": int(f), **d, "stall": stall})
        say(fmt_frame(str(f), d, stall))
    occ, _ = await tb.rd(REG["OCCUPANCY"].offset)
    if occ != tb.model.occupancy:
        raise Mismatch(f"OCCUPANCY {occ} != model {tb.model.occupancy}")
    say("-" * len(HEADER))
    say(fmt_frame("total", totals, total_stall))
    wall = time.monotonic() - t_wall
    rule = admission_waits(cycle, op, BuildTiming(**tb.cfg["timing"]))
    if waits != rule:
        first = next(i for i, (a, b) in enumerate(zip(waits, rule)) if a != b)
        raise Mismatch(f"request {first} waited {waits[first]} cycles after its trace cycle; "
                       f"D13's admission rule says {rule[first]}")
    waited = wait_figures(waits, tb.scoreboard.build_latency)
    say("")
    say(f"waits: a request is accepted {waited['mean']:.1f} cycles after its trace cycle on average "
        f"(99th percentile {waited['p99']}, longest {waited['max']}; {waited['waited']} of {len(waits)} "
        f"requests waited): in a burst every request behind an EVICT's gap waits as long as it did")
    if waited["latency"] is not None:
        say(f"       so a response comes {waited['mean'] + waited['latency']:.1f} cycles after its request's "
            f"trace cycle on average (longest {waited['max'] + waited['latency']}), the {waited['latency']}-cycle "
            f"latency included")
    say(f"checked against the golden model: {tb.scoreboard.received} responses (every field), "
        f"{len(frames)} frames of statistics, OCCUPANCY {occ}: all match; every request's wait is "
        f"D13's admission rule's")
    say(f"simulated {tb.cycle_now()} cycles in {wall:.1f} s wall "
        f"({tb.cycle_now() / wall:,.0f} cycles/s)")
    out = Path(tb.cfg.get("cov_dir") or ".").parent
    (out / "sim_main.json").write_text(json.dumps(
        {"preset": preset, "seed": tb.seed, "frames": per_frame,
         "totals": {**totals, "stall": total_stall}, "waits": waited, "occupancy": occ,
         "responses_checked": tb.scoreboard.received,
         "simulated_cycles": tb.cycle_now()}, indent=1))
    tb.finish()

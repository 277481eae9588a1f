# SPDX-License-Identifier: Apache-2.0
"""cocotb side of ``make bench-nonblocking`` (``tools/bench_nonblocking.py``): request
streams through the RTL in the blocking mode and in ``MODE.NONBLOCKING`` (D13), every
request decided by the golden model's admission rule and every response checked; per
pattern the request presentations (a request the blocking block does not take is presented
again in the next cycle, so it counts once per cycle it waits), the requests taken and
dropped, the cycles from the first presentation to the last (both counted), the cycles in
which a presented request met ``req.ready`` low, and ``taken_fraction_of_cycles``, the
requests taken over those cycles (``tools.bench_nonblocking.taken_fraction_of_cycles``,
its one definition; that module's docstring says how it differs from ``tools.bench``'s
``requests_per_cycle``, with an example). The figures go to the JSON file named by
``$KVASU_BENCH_OUT``. On a build with the predictor mode the patterns run in both policies
(``POLICY.MODE`` 0 and 1).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cocotb.triggers import ClockCycles

from regmap import REG
from tools.bench_nonblocking import taken_fraction_of_cycles
from verif.cocotb_nonblocking import video_items
from verif.kvasu_tb import COMMIT, ENABLE, EVICT_ANY, FLUSH, OBSERVE, KvAsuTB, ReqItem, tb_test

NONBLOCKING = REG["MODE"].mask("NONBLOCKING")
POLICY_MODE = REG["POLICY"].mask("MODE")


async def measure(tb, front, name, items, *, writes=(), every=0):
    """Present ``items`` back to back (and the CTRL ``writes`` in turn every ``every``
    cycles while they run); return the figures."""
    p0, t0, d0, n0 = front.presented, front.rule.taken, front.drops, front.not_ready
    dropped0 = await tb.read_reg("STAT_REQ_DROPPED")
    front.first_presented = None
    tb.send_items(items)
    k = 0
    while tb.driver.busy() and writes:
        await ClockCycles(tb.dut.clk, every)
        if not (tb.driver.cur or tb.driver.reqq):
            break
        await tb.write_ctrl(writes[k % len(writes)])
        k += 1
    await tb.drain()
    cycles = front.last_presented - front.first_presented + 1   # first to last presented
    dropped = await tb.read_reg("STAT_REQ_DROPPED")    # compared with the model's count
    await tb.check_quiescent(name)
    taken = front.rule.taken - t0
    out = {"presented": front.presented - p0, "taken": taken,
           "dropped": front.drops - d0, "stat_req_dropped": dropped - dropped0,
           "ctrl_writes": k, "cycles": cycles,
           "not_ready_cycles": front.not_ready - n0,
           "taken_fraction_of_cycles": taken_fraction_of_cycles(taken, cycles)}
    tb.log.warning("%-34s %s", name, out)
    return out


@tb_test(timeout_ms=2000)
async def bench_nonblocking(tb: KvAsuTB):
    """The bench's patterns in both modes (see the module docstring)."""
    front = tb.use_front_door()
    n = int(os.environ.get("KVASU_BENCH_REQUESTS", "3000"))
    results = {}
    warm = [ReqItem(OBSERVE, addr) for addr in tb.spread_addrs(min(256, tb.p.ENTRIES // 4))]
    runs = [("blocking", 0, 0), ("nonblocking", NONBLOCKING, 0)]
    if tb.predictor_build:
        runs += [("predictor_blocking", 0, POLICY_MODE),
                 ("predictor_nonblocking", NONBLOCKING, POLICY_MODE)]
    for mode_name, mode, policy in runs:
        await tb.commit(MODE=mode, POLICY=policy)
        res = results[mode_name] = {}
        await tb.flush()
        tb.send_items(warm)
        await tb.drain()
        res["evict_any_back_to_back"] = await measure(
            tb, front, f"{mode_name} EVICT_ANY back to back",
            [ReqItem(EVICT_ANY) for _ in range(len(warm))])
        res["video_kv_trace"] = await measure(
            tb, front, f"{mode_name} video trace with GC", video_items(tb, n))
        res["video_kv_trace_flush_every_500"] = await measure(
            tb, front, f"{mode_name} video + FLUSH every 500", video_items(tb, n, start=n),
            writes=[FLUSH | ENABLE], every=500)
        res["video_kv_trace_commit_every_500"] = await measure(
            tb, front, f"{mode_name} video + COMMIT every 500",
            video_items(tb, n, start=2 * n), writes=[COMMIT | ENABLE], every=500)
    await tb.commit(MODE=0, POLICY=0)
    out = os.environ.get("KVASU_BENCH_OUT")
    if out:
        Path(out).write_text(json.dumps({"params": tb.p.as_dict(), "timing": tb.cfg["timing"],
                                         "requests": n, "patterns": results}, indent=1))

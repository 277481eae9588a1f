# SPDX-License-Identifier: Apache-2.0
"""cocotb test of the build whose reset mode is non-blocking (``CoreOptions(mode_reset=1)``,
docs/spec-decisions.md D13 "The reset mode").

It runs only on a build made with ``mode_reset=1`` (the run configuration's ``options``,
verif/runner.py; verif/test_kv_asu.py builds one); the golden model is built the same way
(``KvAsuModel(mode_reset=1)``, ``KvAsuTB.new_model``). Every presented request is decided by
the model's admission rule (``verif.tb.front.FrontDoor``), never by the RTL, and the test
checks: ``MODE`` and ``ACT_MODE`` read 1 after every reset; ``req.ready`` is 1 in every cycle
with ``rst`` low, across the resets that step the table generation and through the clear
sweep of the reset that wraps them (D12); the requests presented back to back in that
sweep are dropped (no response) and the others taken, one for one as the rule says;
``STAT_REQ_DROPPED`` and every other statistic equal the model's; every response is the
model's; a commit of ``MODE = 0`` gives the blocking block until the next reset.
"""

from __future__ import annotations

import cocotb

from regmap import REG
from verif.kvasu_tb import COMMIT, ENABLE, OBSERVE, QUERY, KvAsuTB, ReqItem, tb_test

NONBLOCKING = REG["MODE"].mask("NONBLOCKING")


def _stream(tb: KvAsuTB, n: int, addrs) -> list[ReqItem]:
    """``n`` OBSERVE / QUERY requests over ``addrs``, back to back."""
    return [ReqItem(QUERY if i % 3 == 2 else OBSERVE, addrs[i % len(addrs)])
            for i in range(n)]


@tb_test(skip=lambda cfg: None if int((cfg.get("options") or {}).get("mode_reset", 0)) == NONBLOCKING
         else "a build without mode_reset=1")
async def mode_reset_nonblocking(tb: KvAsuTB):
    """The reset mode NONBLOCKING: no not-ready cycle after any reset, the wrapping reset's
    sweep drops exactly the requests presented in its ``ENTRIES / PROBE`` edges."""
    front = tb.use_front_door()
    rows = tb.p.ENTRIES // tb.p.PROBE
    assert tb.model.nonblocking and tb.model.mode == NONBLOCKING
    assert await tb.read_reg("MODE") == NONBLOCKING
    assert await tb.read_reg("ACT_MODE") == NONBLOCKING
    addrs = tb.spread_addrs(min(12, tb.p.ENTRIES // 2))

    # Resets that step the table generation (no sweep), each followed by a stream.
    while not front.generations.wraps_next:
        await tb.reset()
        assert await tb.read_reg("ACT_MODE") == NONBLOCKING
        tb.send_items(_stream(tb, 20, addrs))
        await tb.drain()
    await tb.check_quiescent("after the generation steps")
    assert front.not_ready == 0, f"{front.not_ready} not-ready cycles (seed {tb.seed})"

    # The reset that wraps: the clear sweep runs with req.ready 1, and the requests queued
    # as soon as reset is released are presented back to back through it.
    presented0, drops0 = front.presented, front.drop_reasons["clear sweep"]
    await tb.reset()
    assert tb.driver.reset_sweeps, "the reset did not wrap the generations"
    front.first_presented = None
    n = rows + 24
    tb.send_items(_stream(tb, n, addrs))
    await tb.drain()
    swept = front.drop_reasons["clear sweep"] - drops0
    first = front.first_presented
    assert first is not None and first < rows, (first, rows)
    # one drop per edge of the sweep from the first presented request on (edges 0 .. rows-1)
    assert swept == rows - first, (swept, rows, first, tb.seed)
    assert front.presented - presented0 == n
    assert front.not_ready == 0, f"{front.not_ready} not-ready cycles (seed {tb.seed})"
    await tb.check_quiescent("after the wrapping reset's sweep")   # STAT_REQ_DROPPED too
    assert await tb.read_reg("STAT_REQ_DROPPED") == tb.model.stats.req_dropped == swept

    # A commit of MODE = 0: the blocking block, until the next reset.
    await tb.commit(MODE=0)
    assert await tb.read_reg("ACT_MODE") == 0
    tb.send_items(_stream(tb, 30, addrs))
    await tb.drain()
    await tb.reset()
    assert await tb.read_reg("MODE") == NONBLOCKING
    assert await tb.read_reg("ACT_MODE") == NONBLOCKING
    tb.send_items(_stream(tb, 30, addrs))
    await cocotb.triggers.ClockCycles(tb.dut.clk, 5)
    await tb.write_ctrl(COMMIT | ENABLE)          # commits the shadow MODE, 1: unchanged
    await tb.drain()
    await tb.check_quiescent("after the mode change and the reset")
    tb.log.info("mode_reset=1: %d presented, %d dropped %s, %d not-ready cycles",
                front.presented, front.drops, dict(front.drop_reasons), front.not_ready)
    tb.cov.hit("mode_reset.sweep_drops", swept)

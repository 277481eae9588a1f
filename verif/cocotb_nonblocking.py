# SPDX-License-Identifier: Apache-2.0
"""cocotb test of the non-blocking mode (docs/spec-decisions.md D13).

In ``MODE.NONBLOCKING`` the block's ``req.ready`` is 1 and the requests it cannot take are
dropped. The test decides every presented request with the golden model's admission rule
(``verif.tb.front.FrontDoor`` over ``golden_model.admission``), never with the RTL's
decision, and checks: ``req.ready`` high in every cycle of the mode, ``rsp.valid`` equal to
the rule's prediction in every cycle, every response equal to the model's, and
``STAT_REQ_DROPPED`` (with every other statistic) equal to the model's.
"""

from __future__ import annotations

import itertools
import os

import cocotb

from cocotbext.axi import AxiResp

import regmap
from regmap import REG, REGISTERS
from verif.kvasu_tb import (CLEAR_ERROR, CLEAR_STATS, COMMIT, ENABLE, EVICT, EVICT_ANY, FLUSH,
                            OBSERVE, ST_ERROR, KvAsuTB, ReqItem, tb_test)

NONBLOCKING = REG["MODE"].mask("NONBLOCKING")


def video_items(tb: KvAsuTB, n: int, start: int = 0) -> list[ReqItem]:
    """``n`` requests of the built-in streaming-video KV stream (QUERY + OBSERVE per read,
    OBSERVE per write, background and per-frame GC EVICTs), back to back."""
    from evaluation.workload import video_kv_requests
    _cycle, op, addr, mt, _frame = video_kv_requests()
    mask = (1 << tb.p.ADDR_WIDTH) - 1
    return [ReqItem(int(o), int(a) & mask, int(m))
            for o, a, m in zip(op[start:start + n], addr[start:start + n], mt[start:start + n])]


async def set_mode(tb: KvAsuTB, mode: int):
    await tb.commit(MODE=mode)
    assert await tb.read_reg("ACT_MODE") == mode


async def stream_with(tb: KvAsuTB, items, *writes, after: int = 40):
    """Present ``items`` back to back; ``after`` cycles in, issue the CTRL ``writes`` one
    after the other while the stream runs; wait for everything."""
    tb.send_items(items)
    await cocotb.triggers.ClockCycles(tb.dut.clk, after)
    for value in writes:
        await tb.write_ctrl(value)
    await tb.drain()


async def refused_writes_in_stream(tb: KvAsuTB, front, items):
    """``items`` presented back to back in ``MODE.NONBLOCKING`` with refused writes among
    them: an illegal commit (SLVERR and STATUS.ERROR; an action write all the same, so its
    window drops as D13 rule 4 says), a write to a read-only word (SLVERR) and one to an
    unmapped word (DECERR), neither an action. Every drop is the rule's (``front``, the
    front door), every response and statistic the model's, nothing else changes; the
    shadows are legal again and STATUS.ERROR clear at the end."""
    await tb.write_reg("C3", 1)
    await tb.write_reg("C2", tb.p.COUNT_MAX)                 # C2 > C3: illegal
    action_drops = front.drop_reasons["action write"]
    unmapped = max(set(range(0, 1 << regmap.AXIL_ADDR_WIDTH, 4)) -
                   {o for reg in REGISTERS for o in reg.offsets})
    tb.send_items(items)
    await cocotb.triggers.ClockCycles(tb.dut.clk, 30)
    await tb.write_ctrl(COMMIT | ENABLE)                     # refused (checked: SLVERR)
    assert await tb.wr_bytes(REG["STATUS"].offset, b"\xff" * 4) == AxiResp.SLVERR
    assert await tb.wr_bytes(unmapped, b"\xff" * 4) == AxiResp.DECERR
    await tb.drain()
    assert front.drop_reasons["action write"] > action_drops, front.drop_reasons
    assert await tb.read_reg("STATUS") & ST_ERROR
    assert await tb.read_reg("ACT_MODE") == NONBLOCKING
    await tb.commit(C2=1, C3=tb.p.COUNT_MAX)                 # legal again
    await tb.write_ctrl(CLEAR_ERROR | ENABLE)
    await tb.check_quiescent("after refused writes in the stream")


async def evicts_behind_held_responses(tb: KvAsuTB, addrs, gap: int) -> int:
    """An OBSERVE of each of ``addrs``, each followed, ``gap`` idle cycles later, by an
    EVICT or EVICT_ANY (taken: ``gap`` covers the build's EVICT gap, and with fewer than
    ``CREDITS / 2`` addresses no credit runs out), while the consumer
    holds ``rsp.ready`` low 30 cycles in 35: the EVICTs' responses go into the response FIFO
    behind responses still waiting, and each must come out once, in order, the model's (the
    scoreboard). Returns how many EVICT / EVICT_ANY requests were answered
    (``STAT_EVICTS`` and ``STAT_EVICTS_EMPTY``, the model's, read and compared)."""
    async def evicts():
        return await tb.read_reg("STAT_EVICTS") + await tb.read_reg("STAT_EVICTS_EMPTY")

    before = await evicts()
    held = itertools.cycle([False] * 30 + [True] * 5)
    tb.driver.rsp_ready_fn = lambda: next(held)
    items = []
    for i, addr in enumerate(addrs):
        items += [ReqItem(OBSERVE, addr), ReqItem(EVICT_ANY if i % 2 else EVICT, gap=gap)]
    tb.send_items(items)
    await tb.drain()
    tb.driver.rsp_ready_fn = None
    await tb.check_quiescent("EVICTs taken behind held responses")
    return await evicts() - before


def _front_door_too_slow(cfg):
    full = os.environ.get("KVASU_MATRIX") == "full"
    if cfg.get("sim") != "verilator" or not (full or cfg.get("name") in ("default", "small")):
        return "Verilator, default and small configurations (or KVASU_MATRIX=full) only"
    return None


@tb_test(skip=_front_door_too_slow)
async def nonblocking_never_stalls(tb: KvAsuTB):
    """MODE.NONBLOCKING: EVICTs back to back, the video stream with its GC EVICTs, flush /
    commit / CLEAR_STATS writes in the stream, a generation-wrap sweep, a response consumer
    that back-pressures, and a reset in mid-stream; every drop predicted. The front door
    runs Python in every cycle, so ``make test`` runs this on Verilator's default and small
    configurations only (2-4 s each); ``make cocotb-full`` (``KVASU_MATRIX=full``) also on
    the tiny one. Icarus never (the same Verilog, many times slower; the rest of the
    regression covers its 4-state view of it)."""
    front = tb.use_front_door()
    await set_mode(tb, NONBLOCKING)
    lines = tb.spread_lines(min(48, tb.p.ENTRIES // 2))
    await tb.batch([(OBSERVE, line) for line in lines])

    # EVICT / EVICT_ANY back to back: one in EVICT_GAP + 1 taken, the others dropped.
    evicts = [ReqItem(EVICT_ANY if i % 3 else EVICT) for i in range(21)]
    await stream_with(tb, evicts, after=0)
    assert front.drop_reasons["evict gap"] > 0, front.drop_reasons

    # The video stream with FLUSH, COMMIT and CLEAR_STATS writes in it (each write's
    # window drops, D13 rule 4), and the commit's new W1.
    n = 400
    await stream_with(tb, video_items(tb, n), FLUSH | ENABLE, CLEAR_STATS | ENABLE,
                      COMMIT | ENABLE)
    assert front.drop_reasons["action write"] > 0, front.drop_reasons

    await refused_writes_in_stream(tb, front, video_items(tb, 200, start=n // 4))

    # CTRL.ENABLE = 0 in the stream (a plain write, acting at once): dropped (rule 1).
    await stream_with(tb, video_items(tb, 120, start=n // 2), 0, ENABLE, after=20)
    assert front.drop_reasons["disabled"] > 0, front.drop_reasons

    # A generation wrap in the stream: the flush that uses the last generation sweeps, and
    # the sweep's requests are dropped (rule 5).
    while not front.generations.wraps_next:
        await tb.flush()
    rows = tb.p.ENTRIES // tb.p.PROBE
    await stream_with(tb, video_items(tb, rows + 60, start=n), FLUSH | ENABLE, after=20)
    assert front.drop_reasons["clear sweep"] > 0, front.drop_reasons

    # A consumer that holds rsp.ready low most of the time: the credits run out (rule 3).
    tb.driver.rsp_ready_fn = lambda: tb.rng.random() < 0.25
    await stream_with(tb, video_items(tb, 150, start=2 * n), after=0)
    tb.driver.rsp_ready_fn = None
    assert front.drop_reasons["credits"] > 0, front.drop_reasons
    await tb.check_quiescent("after the sweep and the back-pressure")
    # EVICTs taken while responses wait in the FIFO: none of theirs lost (nor duplicated)
    assert await evicts_behind_held_responses(tb, lines[:8], front.rule.timing.evict_gap + 1) == 8
    # (read_reg compares with the model's count: the drops since the CLEAR_STATS above)
    assert await tb.read_reg("STAT_REQ_DROPPED") > 0

    # A reset in mid-stream: the block is as new and blocking (MODE resets to 0). Then the
    # mode changes in mid-stream, to non-blocking and back (a commit takes effect at its
    # write response, D13); in the blocking stretches the RTL's ready must be the rule's.
    tb.send_items(video_items(tb, 100, start=3 * n))
    await cocotb.triggers.ClockCycles(tb.dut.clk, 40)
    await tb.reset()
    assert await tb.read_reg("ACT_MODE") == 0
    assert await tb.read_reg("STAT_REQ_DROPPED") == 0
    await tb.write_reg("MODE", NONBLOCKING)
    await stream_with(tb, video_items(tb, 80, start=3 * n + 100), COMMIT | ENABLE, after=10)
    assert await tb.read_reg("ACT_MODE") == NONBLOCKING
    await tb.write_reg("MODE", 0)
    await stream_with(tb, [ReqItem(EVICT_ANY) for _ in range(10)] +
                      video_items(tb, 100, start=3 * n + 180), COMMIT | ENABLE, after=12)
    assert await tb.read_reg("ACT_MODE") == 0
    await tb.check_quiescent("after reset and two mode changes in the stream")
    tb.log.info("dropped %d requests: %s", front.drops, dict(front.drop_reasons))
    for reason in front.drop_reasons:
        tb.cov.hit(f"nonblocking.drop.{reason.replace(' ', '_')}", front.drop_reasons[reason])


def _bready_low(edges: int):
    """A pause generator for cocotbext-axi's B channel: ``BREADY`` low for ``edges`` clock
    cycles, high for one, over and over."""
    return itertools.cycle([True] * edges + [False])


@tb_test(skip=_front_door_too_slow)
async def bready_low_action_writes(tb: KvAsuTB):
    """CTRL action writes with ``BREADY`` held low (cocotbext-axi's ``AxiLiteMaster`` keeps
    it high unless paused), so that a write response is offered at edge ``f`` and taken at a
    later edge ``b``, with a stream presented at every edge through each write. D13: a
    committed ``MODE`` decides from ``f`` ("The register"), a drop at ``f`` or later counts
    after a ``CLEAR_STATS`` ("Statistics around CLEAR_STATS"), and the write's window lasts
    through ``b`` (rule 4). The register mirror applies every action write at ``f``; the
    front door decides every presented request (in the blocking stretches the RTL's
    ``ready`` must be the rule's, in the mode it must be 1), and every response,
    ``STAT_REQ_DROPPED`` and every other statistic is checked against the model. A CTRL
    write of ``ENABLE`` alone, no action, decides from its ``f`` too (D13 rule 1): in the
    mode the requests at ``f .. b`` of a write of 0 are dropped as disabled, and those of
    the write of 1 after it are taken."""
    front = tb.use_front_door()
    hold = 6
    n = 160
    await tb.batch([(OBSERVE, line) for line in tb.spread_lines(min(24, tb.p.ENTRIES // 2))])
    b_channel = tb.axil.write_if.b_channel
    # the mode, committed with BREADY high; then every write with BREADY low
    await set_mode(tb, NONBLOCKING)
    b_channel.set_pause_generator(_bready_low(hold))
    waits0 = sum(w * c for w, c in tb.registers.b_waits.items())

    # CLEAR_STATS in the stream, in the mode: the drops of its window before f are cleared,
    # those at f .. b count after it (compared at the quiescent point)
    dropped0 = front.drop_reasons["action write"]
    await stream_with(tb, video_items(tb, n), CLEAR_STATS | ENABLE, after=30)
    assert front.drop_reasons["action write"] > dropped0, front.drop_reasons
    await tb.check_quiescent("CLEAR_STATS with BREADY low")
    assert await tb.read_reg("STAT_REQ_DROPPED") > 0

    # MODE = 0 committed in the stream: blocking from f (req.ready the rule's, low
    # through b), then MODE = 1 again: drops from f, with a FLUSH written in the stream too
    await tb.write_reg("MODE", 0)
    await stream_with(tb, video_items(tb, n, start=n), COMMIT | ENABLE, after=30)
    assert await tb.read_reg("ACT_MODE") == 0
    await tb.write_reg("MODE", NONBLOCKING)
    await stream_with(tb, video_items(tb, 2 * n, start=2 * n), COMMIT | ENABLE,
                      FLUSH | ENABLE, CLEAR_STATS | ENABLE, after=30)
    assert await tb.read_reg("ACT_MODE") == NONBLOCKING
    await tb.check_quiescent("MODE commits, FLUSH and CLEAR_STATS with BREADY low")

    # ENABLE alone, off and on again in the stream, in the mode: disabled from each f
    disabled0 = front.drop_reasons["disabled"]
    await stream_with(tb, video_items(tb, n, start=4 * n), 0, ENABLE, after=30)
    assert front.drop_reasons["disabled"] > disabled0, front.drop_reasons
    await tb.check_quiescent("ENABLE alone with BREADY low")
    b_channel.clear_pause_generator()
    waits = sum(w * c for w, c in tb.registers.b_waits.items()) - waits0
    tb.log.info("B handshake edges after f: %s; drops %s", dict(tb.registers.b_waits),
                dict(front.drop_reasons))
    assert max(tb.registers.b_waits) >= 3 and waits > 0, dict(tb.registers.b_waits)
    tb.cov.hit("axil.bready_low_action_writes", waits)

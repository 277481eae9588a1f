# SPDX-License-Identifier: Apache-2.0
"""The core's soft-error checks and recovery (docs/spec-decisions.md D11) in amaranth.sim:
one bit of a tracked line's table word flipped in the simulator, then what the core
reports, what it answers, when it takes requests again and what its memories hold."""

import pytest
from amaranth.hdl import Fragment
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from golden_model.soft_errors import recovery_bound
from hdl.core import CoreOptions, KvAsuCore
from hdl.core.recovery import Recovery
from hdl.protect import ProtectedMemory
from regmap import MEM_IDS
from tests.hdl.harness import (BENCH_OPTIONS, OBSERVE, QUERY, ResetWrap, _Top, addr_of,
                               default_cfg, pulse_reset, small_params)


def _data(mem):
    return mem.storage if isinstance(mem, ProtectedMemory) else mem.data


def _memories(core):
    mems = {name: m for name, m in core.table.memories.items()}
    mems.update(core.lru.memories)
    return mems


def _configure(ctx, core, p):
    """The default configuration, enabled, the consumer always ready."""
    for name, value in default_cfg(p).items():
        ctx.set(getattr(core.cfg, name), value)
    ctx.set(core.enable, 1)
    ctx.set(core.rsp.ready, 1)


async def _accept(ctx, core, op, addr, cycle=None):
    """Present a request until accepted; the value of ``cycle`` (a signal) in the cycle it
    was accepted in."""
    ctx.set(core.req.payload.op, op)
    ctx.set(core.req.payload.addr, addr)
    ctx.set(core.req.payload.min_tlevel, 0)
    ctx.set(core.req.valid, 1)
    while True:
        ready, now = ctx.get(core.req.ready), None if cycle is None else ctx.get(cycle)
        await ctx.tick()
        if ready:
            ctx.set(core.req.valid, 0)
            return now


async def _response(ctx, core):
    """The next response's payload."""
    while True:
        valid, payload = ctx.get(core.rsp.valid), ctx.get(core.rsp.payload)
        await ctx.tick()
        if valid:
            return payload


def test_recovery_validates():
    with pytest.raises(ValueError):
        Recovery(0)
    with pytest.raises(ValueError, match="settle"):
        Recovery(4, settle=0)
    with pytest.raises(ValueError):
        CoreOptions(protection="hamming")
    with pytest.raises(ValueError):
        CoreOptions(compact=True, protection="secded")
    assert not CoreOptions(compact=True).protected and CoreOptions().protected
    with pytest.raises(TypeError):           # the coded words' memory is a class
        ProtectedMemory(shape=4, depth=4, memory=None)
    # Another memory class holds the coded words (the formal harness's register model).
    calls = []

    def memory(**kw):
        calls.append(kw["shape"])
        return Memory(**kw)
    core = KvAsuCore(small_params(), memory=memory)
    Fragment.get(core, None)
    assert core.options.protected and calls
    for mem in core.lru.memories.values():      # ProtectedMemory, over `memory`
        assert isinstance(mem, ProtectedMemory) and mem.storage is None
        assert mem.inner.shape == mem.code.width


@pytest.mark.parametrize("bank_word", ["ent"])
def test_flip_in_a_window_word_recovers(bank_word):
    p = small_params()
    core = KvAsuCore(p, BENCH_OPTIONS)
    top = _Top(core)
    bound = recovery_bound(p, core.latency)
    line, other = addr_of(p, 5), addr_of(p, 9)
    seen = {}

    async def bench(ctx):
        _configure(ctx, core, p)

        async def accept(op, addr):
            return await _accept(ctx, core, op, addr, top.tb.cycle)

        async def response():
            return await _response(ctx, core)

        await ctx.tick().repeat(p.ENTRIES // p.PROBE + 5)   # past any clear sweep
        await accept(OBSERVE, line)
        first = await response()
        assert first.tracked
        slot = seen["slot"] = first.slot
        await ctx.tick().repeat(10)
        # Flip bit 0 of the line's word in its bank (a data bit: tag bit 0).
        mem = core.table.memories[f"{bank_word}{slot % p.PROBE}"]
        row = slot // p.PROBE
        ctx.set(_data(mem)[row], ctx.get(_data(mem)[row]) ^ 1)
        q_cycle = await accept(QUERY, line)
        # The next request is presented at once and waits out the recovery.
        ctx.set(core.req.payload.op, OBSERVE)
        ctx.set(core.req.payload.addr, other)
        ctx.set(core.req.valid, 1)
        d = ready_again = None
        rsp = None
        for _ in range(4 * bound):
            if d is not None and ctx.get(top.tb.cycle) == d + 1:
                # The report comes a cycle after the detection.
                assert ctx.get(core.err_started)
                seen["mem"], seen["addr"] = ctx.get(core.err_mem), ctx.get(core.err_addr)
            else:
                assert not ctx.get(core.err_started)
            if ctx.get(core.recovery_start):
                assert d is None, "one recovery"
                d = ctx.get(top.tb.cycle)
            if ctx.get(core.rsp.valid) and rsp is None:
                rsp = ctx.get(core.rsp.payload)
            if d is not None and ctx.get(top.tb.cycle) > d:
                if ctx.get(core.req.ready):
                    ready_again = ctx.get(top.tb.cycle)
                    assert not ctx.get(core.recovering)
                    await ctx.tick()
                    ctx.set(core.req.valid, 0)
                    break
                assert ctx.get(core.recovering)
            await ctx.tick()
        assert d is not None and ready_again is not None
        seen["d"], seen["q"], seen["ready"] = d, q_cycle, ready_again
        assert rsp is not None and not rsp.present and not rsp.tracked   # untracked
        # Every word of every table and LRU memory is the zero code word (the LRU write
        # of the request that inserted the line landed before the sweep).
        for name, m in _memories(core).items():
            data = _data(m)
            assert all(ctx.get(data[i]) == 0 for i in range(data.depth)), name
        after = await response()
        assert after.tracked and not after.present                       # an insert
        assert ctx.get(core.occupancy) == 1

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run_until(5e-3)
    assert seen, "the bench did not finish"
    assert seen["mem"] == MEM_IDS[bank_word] and seen["addr"] == seen["slot"]
    # D11: the QUERY (accepted before d) decided after d, so it was answered untracked;
    # ready low from d + 1 and high again within the bound.
    assert seen["q"] > seen["d"] - core.decision_lag
    assert 0 < seen["ready"] - seen["d"] <= bound


@pytest.mark.parametrize("reset_at", ["drain", "after_the_sweep_rewrote_the_word"])
def test_a_reset_abandons_a_recovery_and_an_error_left_in_memory_is_found_again(reset_at):
    """D10 / D11: a reset does not rewrite the block RAM. A reset during a recovery abandons
    it, sweep included: an uncorrectable word the sweep had not yet rewritten is found again
    after the reset and starts a new recovery, which ends within the bound with every word
    rewritten; a word the sweep had already rewritten starts nothing."""
    p = small_params()
    core = KvAsuCore(p, BENCH_OPTIONS)
    wrap = ResetWrap(_Top(core))
    bound = recovery_bound(p, core.latency)
    line = addr_of(p, 5)
    seen = {}

    async def bench(ctx):
        _configure(ctx, core, p)

        async def accept(op, addr):
            await _accept(ctx, core, op, addr)

        async def response():
            return await _response(ctx, core)

        async def recovery_starts(cycles):
            """The cycles (from now) in which a recovery starts, over ``cycles`` cycles."""
            starts = []
            for c in range(cycles):
                if ctx.get(core.recovery_start):
                    starts.append(c)
                await ctx.tick()
            return starts

        await ctx.tick().repeat(p.ENTRIES // p.PROBE + 5)   # past any clear sweep
        await accept(OBSERVE, line)
        slot = (await response()).slot
        await ctx.tick().repeat(10)
        mem = core.table.memories[f"ent{slot % p.PROBE}"]
        row = slot // p.PROBE
        ctx.set(_data(mem)[row], ctx.get(_data(mem)[row]) ^ 1)
        await accept(QUERY, line)
        while not ctx.get(core.recovery_start):
            await ctx.tick()
        await ctx.tick()
        assert ctx.get(core.recovering)
        if reset_at != "drain":
            while ctx.get(_data(mem)[row]) != 0:
                assert ctx.get(core.recovering)
                await ctx.tick()
        seen["bad_at_reset"] = ctx.get(_data(mem)[row]) != 0
        await pulse_reset(ctx, wrap)
        assert not ctx.get(core.recovering)                 # the recovery is abandoned
        # (the idle pipeline reads the last request's window, the line's, again)
        starts = await recovery_starts(p.ENTRIES // p.PROBE + core.latency + 3)
        seen["starts"] = starts
        if starts:
            ready_low = 1
            while not ctx.get(core.req.ready):
                ready_low += 1
                assert ready_low <= bound, "the new recovery ends within the bound"
                await ctx.tick()
            assert ctx.get(_data(mem)[row]) == 0                # the word rewritten
        # Either way the block is clean now: the line is untracked, and neither its
        # QUERY's window read nor the idle re-reads of it after that start a recovery.
        await accept(QUERY, line)
        after = await response()
        assert not after.present and not after.tracked
        seen["later"] = await recovery_starts(p.ENTRIES // p.PROBE + core.latency + 3)

    sim = Simulator(wrap)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run_until(5e-3)
    assert "later" in seen, "the bench did not finish"
    if reset_at == "drain":
        assert seen["bad_at_reset"] and len(seen["starts"]) == 1
    else:
        assert not seen["bad_at_reset"] and seen["starts"] == []
    assert seen["later"] == []

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.lru.LruList against a Python list, one command per cycle (back to back)."""

import os
import random

import pytest
from amaranth.sim import Simulator

from hdl.lru import LruCmd, LruList

from .harness import small_params

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261129"))


def run(params, n_cmds, rng, idle_rate, registered=True):
    dut = LruList(params, registered=registered)
    n = params.ENTRIES
    log = []

    async def bench(ctx):
        model = []          # head first
        cycle = 0
        last_cmd = LruCmd.NONE
        popped = []
        for _ in range(n_cmds):
            # the previous command executes this cycle; the one before is visible now
            if not ctx.get(dut.busy):
                assert ctx.get(dut.empty) == (not model)
                if model:
                    assert ctx.get(dut.head) == model[0]
                    assert ctx.get(dut.tail) == model[-1]
            linked = set(model)
            choices = []
            if len(linked) < n:
                choices.append("insert")
            if linked:
                choices.append("touch")
                if not ctx.get(dut.busy):
                    choices += ["pop"] * 2
            if rng.random() < idle_rate or not choices:
                cmd = "none"
            else:
                cmd = rng.choice(choices)
            if cmd == "insert":
                s = rng.choice([x for x in range(n) if x not in linked])
                ctx.set(dut.cmd, LruCmd.INSERT)
                ctx.set(dut.slot, s)
                model.insert(0, s)
            elif cmd == "touch":
                # favour the head, the tail and their neighbours: the corner cases
                cand = model[:2] + model[-2:] + [rng.choice(model)]
                s = rng.choice(cand)
                ctx.set(dut.cmd, LruCmd.TOUCH)
                ctx.set(dut.slot, s)
                model.remove(s)
                model.insert(0, s)
            elif cmd == "pop":
                ctx.set(dut.cmd, LruCmd.POP)
                ctx.set(dut.slot, model[-1])        # a POP's slot is the tail
                popped.append(model.pop())
                log.append(("pop", ctx.get(dut.tail), popped[-1]))
            else:
                ctx.set(dut.cmd, LruCmd.NONE)
            await ctx.tick()
        ctx.set(dut.cmd, LruCmd.NONE)
        await ctx.tick().repeat(dut.tail_lag)
        # drain: the pops come out in LRU order
        while model:
            assert ctx.get(dut.tail) == model[-1]
            ctx.set(dut.cmd, LruCmd.POP)
            ctx.set(dut.slot, model.pop())
            await ctx.tick()
            ctx.set(dut.cmd, LruCmd.NONE)
            await ctx.tick().repeat(dut.tail_lag - 1)
        assert ctx.get(dut.empty)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for _, tail, expect in log:
        assert tail == expect


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "compact"])
@pytest.mark.parametrize("entries,idle", [(4, 0.0), (16, 0.0), (16, 0.3), (2, 0.1)])
def test_lru_random(entries, idle, registered):
    p = small_params(ENTRIES=entries, PROBE=min(4, entries))
    rng = random.Random(f"{SEED}-{entries}-{idle}")
    run(p, 1500, rng, idle, registered)


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "compact"])
def test_flush_empties(registered):
    p = small_params()
    dut = LruList(p, registered=registered)

    async def bench(ctx):
        for s in (3, 5):
            ctx.set(dut.cmd, LruCmd.INSERT)
            ctx.set(dut.slot, s)
            await ctx.tick()
        ctx.set(dut.cmd, LruCmd.NONE)
        await ctx.tick().repeat(dut.tail_lag - 1)
        assert (ctx.get(dut.head), ctx.get(dut.tail), ctx.get(dut.empty)) == (5, 3, 0)
        ctx.set(dut.flush, 1)
        await ctx.tick()
        ctx.set(dut.flush, 0)
        assert ctx.get(dut.empty)
        ctx.set(dut.cmd, LruCmd.INSERT)
        ctx.set(dut.slot, 7)
        await ctx.tick()
        ctx.set(dut.cmd, LruCmd.NONE)
        await ctx.tick().repeat(dut.tail_lag - 1)
        assert (ctx.get(dut.head), ctx.get(dut.tail), ctx.get(dut.empty)) == (7, 7, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_registered_must_be_a_bool():
    with pytest.raises(TypeError, match="registered must be a bool"):
        LruList(small_params(), registered=1)

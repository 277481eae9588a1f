# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.lru.LruList against a Python list, one command per cycle (back to back)."""

import os
import random

import pytest
from amaranth import Module
from amaranth.sim import Simulator

from hdl.lru import LruCmd, LruList

from .harness import small_params

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261129"))


def no_cmd_from_cmd(dut):
    """``dut`` inside a module that drives ``no_cmd`` as the exact decode of ``cmd`` (the
    core drives it from registers; a refill is then skipped in no cycle)."""
    m = Module()
    m.submodules.dut = dut
    m.d.comb += dut.no_cmd.eq(dut.cmd == LruCmd.NONE)
    return m


def run(params, n_cmds, rng, idle_rate, registered=True):
    dut = LruList(params, registered=registered)
    n = params.ENTRIES
    log = []

    async def bench(ctx):
        model = []          # head first
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

    sim = Simulator(no_cmd_from_cmd(dut))
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

    sim = Simulator(no_cmd_from_cmd(dut))
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_registered_must_be_a_bool():
    with pytest.raises(TypeError, match="registered must be a bool"):
        LruList(small_params(), registered=1)


def run_pop_bursts(params, n_cmds, rng, spacing, lookahead, protection="none"):
    """Bursts of POPs behind POPs only, between runs of TOUCH / INSERT, against a Python
    list. Each POP's slot is ``evict_slot`` read ``lookahead`` cycles before it (with
    ``pop_now`` the POP given in that cycle): 4 is the core's (an EVICT reads it in R, 4
    cycles before its E2), with a POP at most every ``spacing`` cycles and none within 7
    cycles of a TOUCH / INSERT (the core's EVICT gaps), and then ``evict_slot`` must be
    known; 0 reads it in the POP's cycle, where a POP waits until it is known. The chain is
    checked whenever no TOUCH / INSERT is in flight. Some command-less cycles have
    ``no_cmd`` low (the core's OBSERVE that drops: no refill then), with a TOUCH's gap
    behind them. Returns counts for non-vacuity."""
    dut = LruList(params, protection=protection)
    n = params.ENTRIES
    stats = {"past_tail": 0, "checked": 0, "chain_slots_checked": 0, "drops": 0}
    codes = {"none": LruCmd.NONE, "insert": LruCmd.INSERT, "touch": LruCmd.TOUCH,
             "pop": LruCmd.POP}

    async def bench(ctx):
        model = []          # head first, every command given so far applied
        issued = []         # the commands of the previous cycles, newest last
        scheduled = {}      # cycle -> the slot of the POP given then
        popped = {}         # cycle -> the slot a POP given then unlinked
        last_move = -100    # the cycle of the last TOUCH / INSERT
        last_pop_decided = -100
        burst = 0
        for c in range(n_cmds):
            pending = issued[-2:]         # in C2 and C3
            moves = any(x in ("insert", "touch") for x in pending)
            cmd, slot = "none", 0
            drop = False
            if c in scheduled:
                cmd, slot = "pop", scheduled.pop(c)
                assert model and slot == model[-1], (c, slot, model)
                popped[c] = model.pop()
            ctx.set(dut.pop_now, cmd == "pop")
            await ctx.delay(1e-9)
            if not moves:
                # the valid chain is the list's last slots as ``tail`` has it (before the
                # POPs given now and in C2 / C3)
                chain = [ctx.get(dut.chain[k]) for k in range(3)]
                valid = [ctx.get(dut.chain_valid[k]) for k in range(3)]
                settled = model + [popped[x] for x in (c, c - 1, c - 2) if x in popped]
                assert valid[0] == bool(settled)
                for k in range(3):
                    if valid[k]:
                        assert chain[k] == settled[-1 - k], (c, k, chain, valid, settled)
                        stats["chain_slots_checked"] += k > 0
            if burst == 0 and not scheduled and rng.random() < 0.1:
                burst = rng.randrange(2, 12)
            may_pop = (burst and not moves and not scheduled
                       and c - last_pop_decided >= spacing and c - last_move >= 7 - lookahead
                       and (model if lookahead else (model and cmd == "none")))
            if may_pop:
                known = ctx.get(dut.evict_known)
                if lookahead and not known:
                    raise AssertionError(f"cycle {c}: no chain slot for a POP {lookahead} "
                                         f"cycles later; pending {pending}")
                if known:
                    target = ctx.get(dut.evict_slot)
                    assert target == model[-1], (c, target, model)
                    stats["checked"] += 1
                    # read past the tail: a POP given now or in C2 / C3
                    stats["past_tail"] += (cmd == "pop") or "pop" in pending
                    last_pop_decided = c
                    burst -= 1
                    if lookahead:
                        scheduled[c + lookahead] = target
                    else:
                        cmd, slot = "pop", target
                        popped[c] = model.pop()
            elif cmd == "none" and not scheduled and not burst and rng.random() < 0.6:
                linked = set(model)
                if rng.random() < 0.15:
                    # an OBSERVE that gives no command (a drop): ``no_cmd`` low, so the
                    # chain skips this cycle's refill, with a move's EVICT gap behind it
                    drop = True
                    last_move = c
                    stats["drops"] += 1
                elif len(linked) < n and (not linked or rng.random() < 0.5):
                    slot = rng.choice([x for x in range(n) if x not in linked])
                    cmd = "insert"
                    model.insert(0, slot)
                elif linked:
                    slot = rng.choice(model[:2] + model[-2:] + [rng.choice(model)])
                    cmd = "touch"
                    model.remove(slot)
                    model.insert(0, slot)
                last_move = c if cmd != "none" else last_move
            elif burst and not model:
                burst = 0
            ctx.set(dut.pop_now, cmd == "pop")
            ctx.set(dut.no_cmd, cmd == "none" and not drop)
            ctx.set(dut.cmd, codes[cmd])
            ctx.set(dut.slot, slot)
            issued.append(cmd)
            await ctx.tick()
        ctx.set(dut.cmd, LruCmd.NONE)
        ctx.set(dut.no_cmd, 1)
        ctx.set(dut.pop_now, 0)
        await ctx.tick().repeat(dut.tail_lag)
        assert ctx.get(dut.empty) == (not model)
        if model:
            assert (ctx.get(dut.head), ctx.get(dut.tail)) == (model[0], model[-1])

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return stats


@pytest.mark.parametrize("protection", ["none", "secded"])
@pytest.mark.parametrize("entries", [4, 16])
@pytest.mark.parametrize("spacing,lookahead", [(4, 4), (5, 4), (2, 0), (1, 0)])
def test_pop_bursts_from_the_chain(entries, spacing, lookahead, protection):
    """POPs behind POPs, their slot from ``evict_slot``: as the core gives them (read 4
    cycles ahead, at the EVICT gaps: always known), and closer, read in the POP's own
    cycle (the list takes a POP behind POPs in any cycle)."""
    p = small_params(ENTRIES=entries, PROBE=min(4, entries))
    seed = f"{SEED}-pops-{entries}-{spacing}-{lookahead}-{protection}"
    print(f"seed {seed}")
    stats = run_pop_bursts(p, 2000, random.Random(seed), spacing, lookahead, protection)
    assert stats["past_tail"] > 50 and stats["chain_slots_checked"] > 100, stats
    assert stats["drops"] > 10, stats

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.predictor's shadow directory, bimodal counter and loop detector (spec-predictor.md
P11) against the golden model's ``ShadowDirectory``, ``bimodal_step``, ``shadow_capacity``,
``psel_update`` and ``is_sampled``, cycle by cycle: one access every cycle (a burst of
sampled OBSERVEs), the order of the signatures after every cycle, bounds that shrink
(double drops) and grow, flushes."""

import os
import random

import pytest
from amaranth.sim import Simulator

import golden_model.predictor as gm
from regmap import Params
from hdl.predictor import BimodalCounter, LoopDetector, ShadowDirectory

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))


def walk(ctx, obs, depth):
    """The directory's signatures from the LRU end to the MRU end (place ``length - 1``
    down to place 0), checking that the valid places are exactly ``0 .. length - 1``."""
    length = ctx.get(obs.length)
    assert length <= depth
    assert ctx.get(obs.valid) == (1 << length) - 1, "the valid places are not 0 .. length - 1"
    return [ctx.get(obs.sig[j]) for j in reversed(range(length))]


@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("bimodal", [False, True], ids=["lru", "bip"])
@pytest.mark.parametrize("depth", [1, 2, 5, 8])
def test_shadow_matches_model(depth, bimodal, stages):
    """With ``stages=2`` the hit and the update of an access come a cycle later: the test
    checks them against the model's outcome of the access of the cycle before."""
    seed = f"{SEED}-shadow-{depth}-{bimodal}-{stages}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = ShadowDirectory(depth, bimodal=bimodal, stages=stages, observe=True)
    counts = {"hit": 0, "double": 0, "flush": 0, "same": 0}

    async def bench(ctx):
        model = gm.ShadowDirectory(bimodal=bimodal)
        alphabet = rng.sample(range(1 << 16), 3 * depth + 2)
        cap = depth
        pending = (False, [], 0)        # stages=2: the outcome of the access in S2
        last_valid, last_sig = False, None
        for cycle in range(1000):
            if rng.random() < 0.05:
                cap = rng.randrange(0, depth + 1)     # 0 acts as 1
            valid = rng.random() < 0.9
            if rng.random() < 0.3:                    # a loop over the alphabet's start
                sig = alphabet[cycle % (depth + 2)]
            elif rng.random() < 0.2 and last_sig is not None:
                sig = last_sig                        # the access ahead's signature
            else:
                sig = rng.choice(alphabet)
            # stages=2: a flush only when no access is in S2 (the component's rule).
            flush = (rng.random() < 0.004 if stages == 1 else
                     not last_valid and rng.random() < 0.05)
            counts["flush"] += flush
            counts["same"] += valid and last_valid and sig == last_sig
            ctx.set(dut.access.valid, valid)
            ctx.set(dut.access.payload.sig, sig)
            ctx.set(dut.access.payload.cap, cap)
            ctx.set(dut.flush, flush)
            if flush and stages == 2:                 # the access of this cycle follows it
                model = gm.ShadowDirectory(bimodal=bimodal)
                pending = (pending[0], [], 0)         # S2 holds no access: empty after it
            before = len(model.order)
            expect = model.access(sig, max(1, cap)) if valid else False
            if valid and not expect and len(model.order) == before - 1:
                counts["double"] += 1
            counts["hit"] += expect
            if flush and stages == 1:                 # the flush wins over this access
                model = gm.ShadowDirectory(bimodal=bimodal)
            outcome = (expect, list(model.order), model.counter)
            if stages == 1:
                assert ctx.get(dut.hit) == int(expect), cycle
                await ctx.tick()
                check = outcome
            else:
                assert ctx.get(dut.hit) == int(pending[0]), cycle
                await ctx.tick()
                check, pending = pending, outcome
            if not (stages == 2 and cycle == 0):
                assert walk(ctx, dut.observe, depth) == check[1], cycle
                assert ctx.get(dut.counter) == check[2], cycle
            last_valid, last_sig = valid, sig
        assert counts["hit"] > 50 and counts["flush"] > 0 and counts["same"] > 50
        if depth > 1:
            assert counts["double"] > 0       # two drops in one access were exercised

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_bimodal_counter_matches_model():
    seed = f"{SEED}-bip"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = BimodalCounter()

    async def bench(ctx):
        counter = 0
        for cycle in range(300):
            step, flush = rng.random() < 0.7, rng.random() < 0.01
            ctx.set(dut.step, step)
            ctx.set(dut.flush, flush)
            after, at_lru_end = gm.bimodal_step(counter)
            assert ctx.get(dut.at_lru_end) == int(at_lru_end), cycle
            await ctx.tick()
            counter = 0 if flush else after if step else counter
            assert ctx.get(dut.counter) == counter, cycle

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("entries,stages,cycles", [(64, 2, 5000), (128, 1, 5000), (2048, 2, 3000)])
def test_loop_detector_matches_model(entries, stages, cycles):
    """Phases of a loop one longer than the shadows (BIP-only hits: PSEL climbs into loop
    mode) and of a random set twice their size (LRU-only hits bring it down), unsampled
    OBSERVEs between, occupancies that change the bound and (2048 entries) the step."""
    p = Params(ENTRIES=entries, PROBE=4)
    seed = f"{SEED}-loop-{entries}-{stages}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = LoopDetector(p, stages=stages)
    depth = max(1, entries >> gm.SAMPLE_SHIFT)
    seen = {"loop": 0, "down": 0, "steps": set()}

    async def bench(ctx):
        sa, sb = gm.ShadowDirectory(bimodal=False), gm.ShadowDirectory(bimodal=True)
        psel = gm.PSEL_INIT
        sigs = rng.sample(range(1 << 16), 4 * depth)
        occupancy = entries
        phase = "loop"
        i = 0
        pending = (False, False, False, psel)    # stages=2: the OBSERVE in S2's outcome
        for cycle in range(cycles):
            if cycle % (cycles // 2) == cycles // 2 - 1:
                phase = "hot" if phase == "loop" else "loop"
            if rng.random() < 0.003:
                occupancy = rng.randrange(entries // 4, entries + 1)
            valid = rng.random() < 0.95
            home = rng.randrange(entries) & ~15 if rng.random() < 0.8 else rng.randrange(entries)
            sampled = valid and gm.is_sampled(home)
            i += sampled            # the sampled stream: a loop of depth + 1 lines, or random
            if phase == "loop":
                sig = sigs[i % (depth + 1)]
            else:
                sig = sigs[rng.randrange(2 * depth)]
            ctx.set(dut.observe.valid, valid)
            ctx.set(dut.observe.payload.home, home)
            ctx.set(dut.observe.payload.sig, sig)
            ctx.set(dut.observe.payload.occupancy, occupancy)
            hit_a = hit_b = False
            if sampled:
                cap = gm.shadow_capacity(occupancy)
                hit_a, hit_b = sa.access(sig, cap), sb.access(sig, cap)
                new = gm.psel_update(psel, hit_a, hit_b, occupancy)
                seen["down"] += new < psel
                seen["steps"].add(gm.psel_step(occupancy))
                psel = new
            assert ctx.get(dut.sampled) == int(sampled), cycle
            outcome = (hit_a, hit_b, psel >= gm.PSEL_LOOP, psel)
            if stages == 2:
                outcome, pending = pending, outcome
            hit_a, hit_b, loop_next, after = outcome
            assert (ctx.get(dut.hit_lru), ctx.get(dut.hit_bip)) == (int(hit_a), int(hit_b)), cycle
            assert ctx.get(dut.loop_next) == int(loop_next), cycle
            await ctx.tick()
            assert ctx.get(dut.psel) == after, cycle
            assert ctx.get(dut.loop) == int(after >= gm.PSEL_LOOP), cycle
            seen["loop"] += after >= gm.PSEL_LOOP
        ctx.set(dut.observe.valid, 0)
        await ctx.tick()                          # stages=2: the last OBSERVE leaves S2
        assert ctx.get(dut.psel) == psel
        ctx.set(dut.flush, 1)
        await ctx.tick()
        assert ctx.get(dut.psel) == 0 and ctx.get(dut.loop) == 0
        assert ctx.get(dut.shadow_lru.hit) == 0

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert seen["loop"] > 100 and seen["down"] > 10     # loop mode entered, and left
    assert seen["steps"] == ({4, 2, 1} if entries == 2048 else {4})


@pytest.mark.parametrize("kw,exc,match", [
    ({"depth": 0, "bimodal": False}, ValueError, "depth"),
    ({"depth": "8", "bimodal": False}, TypeError, "depth"),
    ({"depth": 8, "bimodal": 1}, TypeError, "bimodal"),
    ({"depth": 8, "bimodal": False, "sig_width": 0}, ValueError, "sig_width"),
    ({"depth": 8, "bimodal": False, "observe": None}, TypeError, "observe"),
])
def test_shadow_parameters_validated(kw, exc, match):
    with pytest.raises(exc, match=match):
        ShadowDirectory(**kw)

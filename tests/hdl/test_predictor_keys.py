# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.predictor's key and level (spec-predictor.md P4, P5) against the golden model's
``key_of``, ``seen_step`` and ``level_of``; its constants against the model's."""

import os
import random

import pytest
from amaranth.sim import Simulator

import golden_model.predictor as gm
from regmap import Params
from hdl.predictor import ReuseKey, ReuseLevel
from hdl.predictor.keys import answer_key
from hdl.predictor import constants as c

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))


def test_constants_are_the_models():
    assert c.PT_ENTRIES == gm.PT_ENTRIES and (1 << c.PT_WIDTH) - 1 == gm.PT_MAX
    assert c.PT_INIT == gm.PT_INIT and (1 << c.BURST_WIDTH) - 1 == gm.BURST_MAX
    assert c.ABSENT_KEY == gm.ABSENT_KEY and c.SAMPLE_SHIFT == gm.SAMPLE_SHIFT
    assert (1 << c.SEEN_WIDTH) - 1 == gm.SEEN_MAX and c.PA_ENTRIES == gm.PA_ENTRIES
    assert gm.answer_key(gm.ABSENT_KEY, 0) == c.ABSENT_KEY << c.SEEN_WIDTH
    assert c.SIG_SHIFT == gm.SIG_SHIFT and c.SIG_WIDTH == 32 - gm.SIG_SHIFT
    assert (1 << c.PSEL_WIDTH) - 1 == gm.PSEL_MAX and 1 << (c.PSEL_WIDTH - 1) == gm.PSEL_LOOP
    assert c.PSEL_DOWN == gm.PSEL_DOWN and (1 << c.BIP_WIDTH) - 1 == gm.BIP_MASK
    assert (c.PSEL_STEP_MAX, c.PSEL_STEP_SHIFT) == (gm.PSEL_STEP_MAX, gm.PSEL_STEP_SHIFT)
    assert (1 << c.GSEL_WIDTH) - 1 == gm.GSEL_MAX and 1 << (c.GSEL_WIDTH - 1) == gm.GSEL_ON
    assert c.GSEL_INIT == gm.GSEL_INIT and c.GSEL_HIT == gm.GSEL_HIT
    assert c.GSEL_DEAD == gm.GSEL_DEAD and (1 << c.EPOCH_WIDTH) - 1 == gm.EPOCH_MASK
    assert c.EPOCH_SHIFT == gm.EPOCH_SHIFT and c.PROBE_EXPIRY == gm.PROBE_EXPIRY
    assert (1 << c.EPS_WIDTH) - 1 == gm.EPS_MASK


def test_answer_key_is_the_models():
    """The RTL's ``answer_key`` (the index into ``PA``) is the model's for every key and count,
    given as values or as integers (each widened to its field: the index is 9 bits), and
    refuses a key or a count of another width."""
    from amaranth import Const, Signal
    for key in range(c.PT_ENTRIES):
        for seen in range(gm.SEEN_MAX + 1):
            want = (gm.answer_key(key, seen), c.ANSWER_KEY_WIDTH)
            got = Const.cast(answer_key(Const(key, c.KEY_WIDTH), seen))
            assert (got.value, len(got)) == want
            got = Const.cast(answer_key(key, Const(seen, c.SEEN_WIDTH)))
            assert (got.value, len(got)) == want
    with pytest.raises(ValueError, match="seen must be 3 bits"):
        answer_key(Const(0, c.KEY_WIDTH), Signal(2))
    with pytest.raises(ValueError, match="key must be 6 bits"):
        answer_key(Signal(5), 0)


def _cases(params, exhaustive, rng, n):
    wmax = params.WMAX
    if exhaustive:
        return [(b, s, w) for b in range(8) for s in range(wmax + 2) for w in range(wmax + 1)]
    return [(rng.randrange(8), rng.randrange(wmax + 2), rng.randrange(wmax + 1))
            for _ in range(n)]


@pytest.mark.parametrize("ts_width,exhaustive", [(4, True), (8, False)])
def test_key_matches_model(ts_width, exhaustive):
    p = Params(TS_WIDTH=ts_width)
    seed = f"{SEED}-key-{ts_width}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = ReuseKey(p)
    cases = _cases(p, exhaustive, rng, 600)

    async def bench(ctx):
        for n, (burst, sage, w3) in enumerate(cases):
            seen = n % (gm.SEEN_MAX + 1)      # every count, saturated ones included
            ctx.set(dut.burst, burst)
            ctx.set(dut.sage, sage)
            ctx.set(dut.seen, seen)
            ctx.set(dut.w3, w3)
            ctx.set(dut.known, 1)
            key, new_burst, near = gm.key_of(burst, sage, w3, p.WMAX)
            got = (ctx.get(dut.key), ctx.get(dut.burst_next), ctx.get(dut.near),
                   ctx.get(dut.seen_next))
            assert got == (key, new_burst, int(near), gm.seen_step(seen)), (burst, sage, w3,
                                                                           seen)
            ctx.set(dut.known, 0)             # absent: the first-sight key, no training
            got = (ctx.get(dut.key), ctx.get(dut.burst_next), ctx.get(dut.near),
                   ctx.get(dut.seen_next))
            assert got == (gm.ABSENT_KEY, 0, 0, 0), (burst, sage, w3, seen)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("ts_width,exhaustive", [(4, True), (8, False)])
def test_level_matches_model(ts_width, exhaustive):
    p = Params(TS_WIDTH=ts_width)
    seed = f"{SEED}-level-{ts_width}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = ReuseLevel(p)
    wmax = p.WMAX
    if exhaustive:
        cases = [(pr, s, w3, w1) for pr in (0, 1) for s in range(wmax + 2)
                 for w3 in range(wmax + 1) for w1 in range(w3, wmax + 1)]
    else:
        cases = []
        for _ in range(600):
            w3 = rng.randrange(wmax + 1)
            cases.append((rng.randrange(2), rng.randrange(wmax + 2), w3,
                          rng.randrange(w3, wmax + 1)))

    async def bench(ctx):
        for pred, sage, w3, w1 in cases:
            for name, v in (("pred", pred), ("sage", sage), ("w3", w3), ("w1", w1)):
                ctx.set(getattr(dut, name), v)
            ctx.set(dut.live, 1)
            assert ctx.get(dut.level) == gm.level_of(pred, sage, w3, w1), (pred, sage, w3, w1)
            ctx.set(dut.live, 0)
            assert ctx.get(dut.level) == 0

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()

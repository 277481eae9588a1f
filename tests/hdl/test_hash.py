# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.hash.Murmur3Hash64 against the mmh3 package, in amaranth.sim."""

import os
import random

import mmh3
import pytest
from amaranth.sim import Simulator

from hdl.hash import CARRY_SAVE_LATENCY, MULTIPLIES, Murmur3Hash64

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261129"))
EDGE_KEYS = [0, 1, 2**64 - 1, 2**32 - 1, 2**32, 0x8000_0000_0000_0000, 0x0123_4567_89AB_CDEF]
EDGE_SEEDS = [0, 1, 0xFFFF_FFFF, 0x8000_0000, 0x9747B28C]


def reference(key, seed):
    return mmh3.hash(key.to_bytes(8, "little"), seed, signed=False)


def run_stream(dut, vectors):
    """Present one (key, seed) per cycle, back to back; check each hash `latency` cycles on."""
    got = []

    async def bench(ctx):
        for cycle in range(len(vectors) + dut.latency - 1):
            if cycle < len(vectors):
                ctx.set(dut.key, vectors[cycle][0])
                ctx.set(dut.seed, vectors[cycle][1])
            else:
                ctx.set(dut.key, 0)
                ctx.set(dut.seed, 0)
            await ctx.tick()
            # After `cycle + 1` edges the hash of input `cycle + 1 - latency` is out.
            index = cycle + 1 - dut.latency
            if index >= 0:
                got.append(ctx.get(dut.hash))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(got) == len(vectors)
    for (key, seed), value in zip(vectors, got):
        assert value == reference(key, seed), f"key={key:#x} seed={seed:#x}"


@pytest.mark.parametrize("lut_cross_products", [False, True, ("c1", "f2")],
                         ids=["dsp", "lut", "mixed"])
@pytest.mark.parametrize("mul_stages", [1, 2, 3])
def test_stream_random_and_edges(mul_stages, lut_cross_products):
    print(f"random seed {SEED} (set KV_ASU_TEST_SEED to change)")
    rng = random.Random(SEED + mul_stages + 10 * len(str(lut_cross_products)))
    vectors = [(k, s) for k in EDGE_KEYS for s in EDGE_SEEDS]
    vectors += [(rng.getrandbits(64), rng.getrandbits(32)) for _ in range(300)]
    # Keys that differ in one bit, back to back, with the seed changing every cycle: a
    # pipeline stage that mixed up neighbouring items would show here.
    base = rng.getrandbits(64)
    vectors += [(base ^ (1 << i), rng.getrandbits(32)) for i in range(64)]
    run_stream(Murmur3Hash64(mul_stages=mul_stages, lut_cross_products=lut_cross_products),
               vectors)


def test_carry_save_stream_random_and_edges():
    # mul_stages=0: every multiply a carry-save tree in LUTs, stage boundaries inside the
    # trees; the same vectors as above, and keys whose products carry through every bit.
    print(f"random seed {SEED} (set KV_ASU_TEST_SEED to change)")
    rng = random.Random(SEED + 1000)
    vectors = [(k, s) for k in EDGE_KEYS for s in EDGE_SEEDS]
    vectors += [(rng.getrandbits(64), rng.getrandbits(32)) for _ in range(400)]
    base = rng.getrandbits(64)
    vectors += [(base ^ (1 << i), rng.getrandbits(32)) for i in range(64)]
    vectors += [(rng.getrandbits(32) << 32 | 0xFFFF_FFFF, 0xFFFF_FFFF) for _ in range(20)]
    run_stream(Murmur3Hash64(mul_stages=0), vectors)


def test_latency_attribute():
    assert Murmur3Hash64().latency == 11
    assert Murmur3Hash64(mul_stages=3).latency == 15
    assert Murmur3Hash64(mul_stages=2).latency == 11
    assert Murmur3Hash64(mul_stages=1).latency == 7
    assert Murmur3Hash64(mul_stages=1, lut_cross_products=True).latency == 7
    assert Murmur3Hash64(mul_stages=0).latency == CARRY_SAVE_LATENCY == 8


@pytest.mark.parametrize("mul_stages", [0, 2])
def test_latency_is_exact(mul_stages):
    # A single non-zero key in a stream of zeros: the output differs from hash(0, 0) in
    # exactly one cycle, `latency` edges after the key was presented.
    dut = Murmur3Hash64(mul_stages=mul_stages)
    key, seed = 0xDEAD_BEEF_0BAD_F00D, 0x1234_5678
    seen = []

    async def bench(ctx):
        ctx.set(dut.key, key)
        ctx.set(dut.seed, seed)
        await ctx.tick()
        ctx.set(dut.key, 0)
        ctx.set(dut.seed, 0)
        for edge in range(1, dut.latency + 4):
            seen.append((edge, ctx.get(dut.hash)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    hits = [edge for edge, value in seen if value == reference(key, seed)]
    assert hits == [dut.latency]


def test_parameter_validation():
    with pytest.raises(TypeError):
        Murmur3Hash64(mul_stages="2")
    with pytest.raises(TypeError):
        Murmur3Hash64(mul_stages=True)
    with pytest.raises(ValueError):
        Murmur3Hash64(mul_stages=4)
    with pytest.raises(ValueError, match="DSP"):
        Murmur3Hash64(mul_stages=0, lut_cross_products=True)
    with pytest.raises(TypeError):
        Murmur3Hash64(lut_cross_products=1)
    with pytest.raises(TypeError):
        Murmur3Hash64(lut_cross_products="c1")
    with pytest.raises(ValueError):
        Murmur3Hash64(lut_cross_products={"c1", "f3"})
    assert Murmur3Hash64(lut_cross_products=True).lut_cross_products == set(MULTIPLIES)
    assert Murmur3Hash64().lut_cross_products == frozenset()


def test_shift_add_helper():
    # The LUT multiplier against Python for every constant half the hash uses and a few
    # awkward ones (all ones, a single bit, alternating bits).
    from amaranth.sim import Simulator
    from amaranth import Module, Signal
    from hdl.hash.const_mul import mul_low_shift_add
    consts = [0x2D51, 0xCC9E, 0x3593, 0x1B87, 0xCA6B, 0x85EB, 0xAE35, 0xC2B2,
              0xFFFF, 0x8000, 0x5555, 0xAAAA, 0x0001, 0x0000]
    x = Signal(16)
    outs = [Signal(16, name=f"y{i}") for i in range(len(consts))]
    m = Module()
    m.d.comb += [o.eq(mul_low_shift_add(x, c, 16)) for o, c in zip(outs, consts)]
    rng = random.Random(SEED)

    async def bench(ctx):
        for value in [0, 1, 0xFFFF, 0x8000] + [rng.getrandbits(16) for _ in range(100)]:
            ctx.set(x, value)
            for o, c in zip(outs, consts):
                assert ctx.get(o) == value * c % 65536, (hex(value), hex(c))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


def test_ports():
    dut = Murmur3Hash64()
    assert len(dut.key) == 64 and len(dut.seed) == 32 and len(dut.hash) == 32


def test_carry_save_helpers():
    # mul_terms + csa_levels + resolve against Python for the hash's constants and
    # awkward ones (all ones, the top bit, alternating bits), every level count.
    from amaranth import C, Module, Signal
    from hdl.hash.const_mul import csa_levels, levels_to_two, mul_terms, resolve
    consts = [0xCC9E2D51, 0x1B873593, 0x85EBCA6B, 0xC2B2AE35, 5,
              0xFFFF_FFFF, 0x8000_0000, 0x5555_5555, 0xAAAA_AAAA, 1, 0]
    x = Signal(32)
    m = Module()
    outs = []

    def held(vectors, name):
        # each level's vectors in signals of their own, as the hash's stage registers hold
        # them (a 3:2 level reads each input twice: unheld, the expression tree doubles
        # with every level, and so does the simulator's compile time)
        out = [Signal(32, name=f"{name}_{k}") for k in range(len(vectors))]
        m.d.comb += [o.eq(v) for o, v in zip(out, vectors)]
        return out

    for i, c in enumerate(consts):
        terms = mul_terms(x, c) or [C(0, 32)]
        levels = levels_to_two(len(terms))
        for split in range(min(levels, 2) + 1):
            # a partial reduction in one call, then the rest level by level: the sum is the
            # same whatever the split (splits beyond 2 repeat the same calls, at a compile
            # time that doubles with every unheld level)
            vectors = held(csa_levels(terms, split), f"c{i}s{split}")
            for level in range(split, levels):
                vectors = held(csa_levels(vectors, 1), f"c{i}s{split}l{level}")
            o = Signal(32, name=f"y{i}_{split}")
            m.d.comb += o.eq(resolve(vectors))
            outs.append((o, c))
    rng = random.Random(SEED)

    async def bench(ctx):
        for value in [0, 1, 0xFFFF_FFFF, 0x8000_0000] + [rng.getrandbits(32) for _ in range(28)]:
            ctx.set(x, value)
            for o, c in outs:
                assert ctx.get(o) == value * c % 2**32, (hex(value), hex(c))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert levels_to_two(14) == 6 and levels_to_two(2) == 0 and levels_to_two(3) == 1

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.stats.StatisticsCounters against a Python reference of flip-flop counters.

Every cycle the testbench checks every counter's exact value (``peek``) and that no
pre-counter exceeds the bound the class documents; reads follow the register block's
schedule (reserve in the AR handshake cycle, sample in the next, at most one read in flight)
and their ``rd_data`` is compared with the reference value of the sample cycle. Seeds are
printed; set KV_ASU_TEST_SEED to change them.
"""

import os
import random

import pytest
from amaranth.sim import Simulator

from hdl.stats import StatisticsCounters

from .harness import ResetWrap

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261129"))


async def read_counter(ctx, dut, i):
    """One read by the contract: a ``rd_reserve`` cycle, then ``rd_en``; returns
    ``rd_data`` of the cycle ``read_latency`` after ``rd_en`` (``rd_en`` is low again
    then)."""
    ctx.set(dut.rd_reserve, 1)
    await ctx.tick()
    ctx.set(dut.rd_reserve, 0)
    ctx.set(dut.rd_en, 1)
    ctx.set(dut.rd_addr, i)
    await ctx.tick()
    ctx.set(dut.rd_en, 0)
    await ctx.tick().repeat(dut.read_latency - 1)
    return ctx.get(dut.rd_data)


def simulate(dut, bench):
    top = ResetWrap(dut)
    sim = Simulator(top)
    sim.add_clock(1e-8)

    async def testbench(ctx):
        await bench(ctx, top.cd.rst)

    sim.add_testbench(testbench)
    sim.run()


class Reference:
    """Flip-flop counters: value(c + 1) = value(c) + inc(c), or inc(c) after a clear, or 0
    after a reset cycle."""

    def __init__(self, count, width):
        self.mask = (1 << width) - 1
        self.v = [0] * count

    def step(self, inc, clear=False, reset=False):
        for i in range(len(self.v)):
            bit = inc >> i & 1
            if reset:
                self.v[i] = 0
            elif clear:
                self.v[i] = bit
            else:
                self.v[i] = (self.v[i] + bit) & self.mask


def run_random(count, width, cycles, seed, *, ones_runs=True, clears=True, resets=True,
               pokes=(), adversarial=False, stages=3, protection="none", flips=0.0):
    """Random increments, reads on the register block's schedule, clears, resets, pokes.

    ``pokes``: values to preload at random times into random counters (carry tests).
    ``flips``: with ``protection``, the chance per cycle of flipping one bit of a stored
    word that holds a clean code word (a single upset, which SECDED corrects: the
    counters must not notice; every one corrected must be reported, never uncorrectable).
    Returns statistics of what was exercised.
    """
    rng = random.Random(seed)
    print(f"seed {seed} (count={count}, width={width}, cycles={cycles}, stages={stages})")
    dut = StatisticsCounters(count=count, width=width, stages=stages, protection=protection)
    ref = Reference(count, width)
    seen = {"flips": 0, "corrected": 0, "reads": 0, "forwards": 0, "max_pre": 0, "clears": 0, "resets": 0, "pokes": 0, "ones": 0,
            "wraps": 0, "carries16": 0, "carries32": 0}

    async def bench(ctx, rst):
        mode, mode_left = "random", 0
        phase = []            # the read schedule still to play: "R", ("E", addr), "F", ...
        pending = None        # (due, addr, expected) of a read in flight
        density = 0.5
        for cycle in range(cycles):
            # -- check the state of this cycle
            for i in range(count):
                got = dut.peek(ctx, i)
                assert got == ref.v[i], (cycle, i, got, ref.v[i])
            pre = dut.pre_values(ctx)
            assert max(pre) <= dut.max_gap, (cycle, pre)
            if protection != "none":
                assert not ctx.get(dut.err_uncorrectable), cycle
                seen["corrected"] += ctx.get(dut.err_corrected)
                if rng.random() < flips:
                    i = rng.randrange(count)
                    word = ctx.get(dut._data[i])
                    if not any(dut._code.decode_int(word)[1:]):
                        ctx.set(dut._data[i], word ^ 1 << rng.randrange(dut._code.width))
                        seen["flips"] += 1
            seen["max_pre"] = max(seen["max_pre"], max(pre))
            if pending is not None and pending[0] == cycle:
                _, addr, expected = pending
                got = ctx.get(dut.rd_data)
                assert got == expected, (cycle, addr, hex(got), hex(expected))
                seen["reads"] += 1
                pending = None

            # -- choose this cycle's inputs
            if mode_left == 0:
                mode = rng.choice(["random", "random", "ones", "sparse", "zeros"]
                                  if ones_runs else ["random", "sparse", "zeros"])
                mode_left = rng.randrange(1, 400)
                density = rng.choice([0.1, 0.5, 0.9])
            mode_left -= 1
            if mode == "ones" or adversarial:
                inc = (1 << count) - 1
                seen["ones"] += 1
            elif mode == "zeros":
                inc = 0
            elif mode == "sparse":
                inc = sum(1 << i for i in range(count) if rng.random() < 0.05)
            else:
                inc = sum(1 << i for i in range(count) if rng.random() < density)

            if not phase:
                r = rng.random()
                if adversarial or r < 0.3:
                    # A statistic read, back to back: R E F F (the fastest the block reads).
                    phase = ["R", "E", "F", "F"]
                elif r < 0.45:
                    phase = ["R", "F", "F"]      # a read of another register
                else:
                    phase = ["F"] * rng.randrange(1, 20)
            step = phase.pop(0)
            reserve = step == "R"
            rd_en = step == "E"
            addr = 0
            if rd_en:
                r = rng.random()
                if adversarial and r < 0.35:
                    # The counter the pointer is about to visit: it must step over it next.
                    addr = ctx.get(dut._ptr)
                elif adversarial and r < 0.7:
                    # The counter the pointer visited last, which stage C is writing now:
                    # its sum must be forwarded.
                    addr = (ctx.get(dut._ptr) - 1) % count
                else:
                    addr = rng.randrange(count)
                pending = (cycle + dut.read_latency, addr, ref.v[addr])
                if (stages == 3 and ctx.get(dut._c_active) and
                        ctx.get(dut._c_addr) == addr):
                    seen["forwards"] += 1
            clear = clears and not rd_en and rng.random() < 0.002
            if clears and rd_en and rng.random() < 0.02:
                clear = True          # a sample in the clear cycle returns the old value
            reset = resets and rng.random() < 0.0007
            if reset:
                pending = None
                phase = []
                reserve = rd_en = False
                seen["resets"] += 1
            seen["clears"] += clear
            if pokes and not reset and not rd_en and pending is None and rng.random() < 0.01:
                i = rng.randrange(count)
                value = rng.choice(pokes)
                dut.poke(ctx, i, value)
                ref.v[i] = value
                seen["pokes"] += 1
            wrap_before = [v for v in ref.v]

            ctx.set(dut.inc, inc)
            ctx.set(dut.clear, clear)
            ctx.set(dut.rd_reserve, reserve)
            ctx.set(dut.rd_en, rd_en)
            ctx.set(dut.rd_addr, addr)
            ctx.set(rst, reset)
            await ctx.tick()
            ref.step(inc, clear=clear, reset=reset)
            if not (clear or reset):
                # Counted across 2**16 (2**32) or wrapped around 2**width.
                seen["carries16"] += sum(1 for a, b in zip(wrap_before, ref.v)
                                         if a >> 16 != b >> 16)
                seen["carries32"] += sum(1 for a, b in zip(wrap_before, ref.v)
                                         if a >> 32 != b >> 32)
                seen["wraps"] += sum(1 for a, b in zip(wrap_before, ref.v) if b < a)
        ctx.set(rst, 0)

    simulate(dut, bench)
    print(seen)
    return seen


@pytest.mark.parametrize("stages", [3, 2])
def test_protected_counters_correct_single_upsets(stages):
    """SECDED words (D11): random single-bit upsets of the stored words change no counter
    and no read, and are reported as corrected."""
    seen = run_random(13, 64, 3000, SEED + 7 + stages, stages=stages, protection="auto",
                      flips=0.05, resets=False, pokes=(2**32 - 3, 2**64 - 5))
    assert seen["flips"] > 50 and seen["corrected"] > 0 and seen["reads"] > 100


def test_protected_counter_restarts_at_an_uncorrectable_word():
    """Two flipped bits: the visit that finds them (cycle d) restarts that counter from
    the increments of d on, reports it, and leaves the others alone."""
    dut = StatisticsCounters(count=6, width=16, protection="auto")
    out = {}

    async def bench(ctx, rst):
        ctx.set(dut.inc, 0b1111)
        await ctx.tick().repeat(40)
        # (not while a visit of counter 2 is in flight: its write-back would undo it; with
        # six counters each is out of the protected engine's five stages at times)
        total = 40
        while any(ctx.get(active) and ctx.get(addr) == 2
                  for active, addr, _ in dut._in_flight()) or dut._d_pending(ctx, 2):
            await ctx.tick()
            total += 1
        word = ctx.get(dut._data[2])
        ctx.set(dut._data[2], word ^ 0b101)            # two data bits of counter 2
        counts = 0
        for _ in range(20):
            if ctx.get(dut.err_uncorrectable):
                out["index"] = ctx.get(dut.err_index)
                out["d"] = counts
                counts = 0
            await ctx.tick()
            counts += 1
        ctx.set(dut.inc, 0)
        await ctx.tick().repeat(12)
        out["values"] = [dut.peek(ctx, i) for i in range(4)]
        out["since"], out["total"] = counts, total + 20

    simulate(dut, bench)
    assert out["index"] == 2
    # Counter 2 holds the increments of the cycles from d on; the others every one.
    assert out["values"][2] == out["since"]
    assert out["values"][0] == out["values"][1] == out["values"][3] == out["total"]
    assert 0 < out["values"][2] < out["total"]


def test_read_of_a_counter_as_it_restarts():
    """A read sampled in the cycle d in which a visit finds the counter's word
    uncorrectable (the register block reading it just then) returns 0, the value of a
    counter that restarts at d, and takes none of the increments before d."""
    dut = StatisticsCounters(count=6, width=16, protection="auto")
    out = {}

    async def bench(ctx, rst):
        ctx.set(dut.inc, 0b1111)
        await ctx.tick().repeat(40)
        while any(ctx.get(active) and ctx.get(addr) == 2
                  for active, addr, _ in dut._in_flight()) or dut._d_pending(ctx, 2):
            await ctx.tick()
        ctx.set(dut._data[2], ctx.get(dut._data[2]) ^ 0b110)          # two bits
        while not (ctx.get(dut._b_active) and ctx.get(dut._b_addr) == 2):
            await ctx.tick()
        ctx.set(dut.rd_reserve, 1)             # the visit of counter 2 is in stage B
        await ctx.tick()
        ctx.set(dut.rd_reserve, 0)
        ctx.set(dut.rd_en, 1)
        ctx.set(dut.rd_addr, 2)
        out["restart"] = (ctx.get(dut.err_uncorrectable), ctx.get(dut.err_index))
        await ctx.tick()
        ctx.set(dut.rd_en, 0)
        since = 1                               # cycles counted from d on
        for _ in range(dut.read_latency - 1):
            await ctx.tick()
            since += 1
        out["read"] = ctx.get(dut.rd_data)
        ctx.set(dut.inc, 0)
        await ctx.tick().repeat(12)
        out["value"], out["since"] = dut.peek(ctx, 2), since

    simulate(dut, bench)
    assert out["restart"] == (1, 2)
    assert out["read"] == 0
    assert out["value"] == out["since"]


def test_read_of_a_counter_the_cycle_after_it_restarts():
    """A read sampled in d + 1 (reserved in the cycle d a visit finds the counter's word
    uncorrectable) returns the one increment of d: the restart of d, applied from
    registers in d + 1, has its effect in d."""
    dut = StatisticsCounters(count=6, width=16, protection="auto")
    out = {}

    async def bench(ctx, rst):
        ctx.set(dut.inc, 0b1111)
        await ctx.tick().repeat(40)
        while any(ctx.get(active) and ctx.get(addr) == 2
                  for active, addr, _ in dut._in_flight()) or dut._d_pending(ctx, 2):
            await ctx.tick()
        ctx.set(dut._data[2], ctx.get(dut._data[2]) ^ 0b11 << 7)      # two bits
        while not (ctx.get(dut._c_active) and ctx.get(dut._c_addr) == 2):
            await ctx.tick()
        out["restart"] = (ctx.get(dut.err_uncorrectable), ctx.get(dut.err_index))
        ctx.set(dut.rd_reserve, 1)             # cycle d: the visit is in stage C
        await ctx.tick()
        ctx.set(dut.rd_reserve, 0)
        ctx.set(dut.rd_en, 1)                  # d + 1
        ctx.set(dut.rd_addr, 2)
        await ctx.tick()
        ctx.set(dut.rd_en, 0)
        since = 2                               # cycles counted from d on
        for _ in range(dut.read_latency - 1):
            await ctx.tick()
            since += 1
        out["read"] = ctx.get(dut.rd_data)
        ctx.set(dut.inc, 0)
        await ctx.tick().repeat(12)
        out["value"], out["since"] = dut.peek(ctx, 2), since
        out["other"] = dut.peek(ctx, 1)

    simulate(dut, bench)
    assert out["restart"] == (1, 2)
    assert out["read"] == 1
    assert out["value"] == out["since"]
    assert out["other"] > out["since"]


def test_ports_and_parameters():
    dut = StatisticsCounters()                     # the KV-ASU's 14 statistics
    assert (dut.count, dut.width, dut.stages, dut.read_latency) == (14, 64, 3, 2)
    assert len(dut.inc) == 14 and len(dut.rd_data) == 64
    assert dut.max_gap == 30 and dut.pre_width == 5
    assert StatisticsCounters(stages=2).read_latency == 1
    for bad in ((1, 64), (13, 0)):
        with pytest.raises(ValueError):
            StatisticsCounters(*bad)
    with pytest.raises(TypeError, match="count"):
        StatisticsCounters("13", 64)
    with pytest.raises(ValueError, match="stages"):
        StatisticsCounters(stages=4)


def test_docs_state_the_statistics_as_built():
    """docs/registers.md and docs/rtl.md give the statistics' number and the pre-counters'
    width as the built engine has them (a new statistic changes both)."""
    import re
    from pathlib import Path
    import regmap
    docs = Path(__file__).resolve().parents[2] / "docs"
    dut = StatisticsCounters()
    count, pre = len(regmap.STAT_NAMES), dut.pre_width
    assert dut.count == count
    registers = (docs / "registers.md").read_text()
    rtl = (docs / "rtl.md").read_text()
    stated = {
        "registers.md, block RAM": re.findall(r"one (\d+) x 64-bit block RAM", registers),
        "registers.md, pre-counter": re.findall(r"(\d+)-bit pre-counter", registers),
        "rtl.md, stat_inc": re.findall(r"`stat_inc` Out\((\d+)\)", rtl),
        "rtl.md, inc": re.findall(r"`inc` In\((\d+)\)", rtl),
        "rtl.md, addresses": re.findall(r"`(?:rd_addr|err_index)` (?:In|Out)\(range\((\d+)\)\)",
                                        rtl),
        "rtl.md, statistics": re.findall(r"the (\d+) x 64-bit statistics", rtl),
        "rtl.md, pre-counters": re.findall(r"(\d+)-bit pre-counters", rtl),
    }
    want = {name: (pre if "pre-counter" in name else count) for name in stated}
    for name, found in stated.items():
        values = [int(v) for v in found]
        assert values and set(values) == {want[name]}, (name, values, want[name])


def test_random_carries_at_20_and_64_bits():
    """Random traffic with values preloaded just below a carry or the wrap-around: at width
    20, carries across bit 15/16 and the wrap at 2**20 (with clears and resets); at width
    64, carries across bit 31/32 and the wrap at 2**64. (One test for both widths: 8 000
    cycles each reach every count asserted; the other random tests of this file add
    64-bit carries of their own.)"""
    pokes = [0xFFF0, 0xFFFE, 0xFFFF, 0x1FFFF, 0xFFFE0, 0xFFFFD, 0xFFFFF, 0x7FFF]
    seen = run_random(13, 20, 8000, SEED, pokes=pokes)
    assert seen["reads"] > 300 and seen["pokes"] > 50 and seen["clears"] and seen["resets"]
    assert seen["wraps"] > 0 and seen["carries16"] > 0
    pokes = [0xFFFF_FFF0, 0xFFFF_FFFF, 0x0000_0001_FFFF_FFFE, 0xFFFF_FFFF_FFFF_FFF0,
             0xFFFF_FFFF_FFFF_FFFF, 0x0000_FFFF_FFFF_FFE0, 0x1234_5678_FFFF_FFFF]
    seen = run_random(13, 64, 8000, SEED + 1, pokes=pokes)
    assert seen["reads"] > 300 and seen["pokes"] > 50
    assert seen["wraps"] > 0 and seen["carries32"] > 0


def test_all_ones_back_to_back_reads():
    # Increments on every counter in every cycle while statistic reads come as fast as the
    # register block can issue them, half of them aimed at the counter the round-robin
    # pointer is about to visit: the worst case for the pre-counters.
    rng_seed = SEED + 2
    seen = run_random(13, 64, 8000, rng_seed, clears=False, resets=False, adversarial=True)
    assert seen["reads"] > 1500
    assert seen["forwards"] > 300      # reads of the counter stage C is writing
    assert seen["max_pre"] >= 20       # the schedule really does stretch the gap


def test_two_stages_random_and_back_to_back():
    # The two-stage engine (small devices): same contract, one cycle of read latency.
    pokes = [0xFFFF_FFFF, 0xFFFF_FFFF_FFFF_FFF0, 0x0000_0001_FFFF_FFFE]
    seen = run_random(13, 64, 8000, SEED + 20, pokes=pokes, stages=2)
    assert seen["reads"] > 200 and seen["pokes"] > 30 and seen["carries32"] > 0
    seen = run_random(13, 64, 6000, SEED + 21, clears=False, resets=False,
                      adversarial=True, stages=2)
    assert seen["reads"] > 1000 and seen["max_pre"] >= 20


@pytest.mark.parametrize("count", [2, 3])
def test_random_few_counters(count):
    # With two or three counters the pointer itself comes back to the counter that stage C
    # is writing (forwarding) or that stage B holds (step-over).
    pokes = [0xFFFF_FFFF, 0xFFFF_FFFF_FFFF_FFF0]
    seen = run_random(count, 64, 6000, SEED + 10 + count, pokes=pokes)
    assert seen["reads"] > 200 and seen["forwards"] > 20 and seen["pokes"] > 20


def test_all_ones_long_stretch():
    """All ones for every cycle, no reads, then reads of everything."""
    count, width = 13, 64
    dut = StatisticsCounters(count=count, width=width)

    async def bench(ctx, rst):
        n = 3000
        ctx.set(dut.inc, (1 << count) - 1)
        for _ in range(n):
            await ctx.tick()
            assert max(dut.pre_values(ctx)) <= count + 1
        ctx.set(dut.inc, 0)
        for i in range(count):
            assert await read_counter(ctx, dut, i) == n, i
            await ctx.tick()

    simulate(dut, bench)


def test_reset_reads_zero_and_counts():
    """After a reset the memory still holds the old values: every counter reads 0 and the
    increments of the cycles right after the reset count."""
    count = 13
    dut = StatisticsCounters(count=count, width=64)

    async def bench(ctx, rst):
        for i in range(count):
            dut.poke(ctx, i, 0x1111_0000_0000_0000 * (i + 1) + 77)
        await ctx.tick().repeat(40)
        ctx.set(rst, 1)
        ctx.set(dut.inc, (1 << count) - 1)     # lost: reset cycle
        await ctx.tick()
        ctx.set(rst, 0)
        for i in range(count):
            assert dut.peek(ctx, i) == 0
        ctx.set(dut.inc, 0b1010101010101)
        await ctx.tick()
        ctx.set(dut.inc, 0)
        for i in range(count):
            expected = (0b1010101010101 >> i) & 1
            assert dut.peek(ctx, i) == expected
            assert await read_counter(ctx, dut, i) == expected, i
        # Still right once the engine has written every word.
        await ctx.tick().repeat(40)
        assert ctx.get(dut._valid) == (1 << count) - 1
        for i in range(count):
            assert dut.peek(ctx, i) == (0b1010101010101 >> i) & 1

    simulate(dut, bench)


def test_clear_with_increments_and_sample():
    """clear zeroes everything; an increment of the clear cycle counts after it; a sample in
    the clear cycle returns the value before the clear and the clear still holds."""
    count = 13
    dut = StatisticsCounters(count=count, width=64)

    async def bench(ctx, rst):
        for i in range(count):
            dut.poke(ctx, i, 1000 + i)
        ctx.set(dut.inc, (1 << count) - 1)
        await ctx.tick().repeat(7)
        ctx.set(dut.rd_reserve, 1)
        await ctx.tick()
        ctx.set(dut.rd_reserve, 0)
        ctx.set(dut.rd_en, 1)
        ctx.set(dut.rd_addr, 5)
        ctx.set(dut.clear, 1)
        ctx.set(dut.inc, 0b100000)               # counts after the clear
        await ctx.tick()
        ctx.set(dut.rd_en, 0)
        ctx.set(dut.clear, 0)
        ctx.set(dut.inc, 0)
        for i in range(count):
            assert dut.peek(ctx, i) == (1 if i == 5 else 0), i
        await ctx.tick().repeat(dut.read_latency - 1)
        assert ctx.get(dut.rd_data) == 1005 + 8
        await ctx.tick().repeat(40)
        for i in range(count):
            assert dut.peek(ctx, i) == (1 if i == 5 else 0), i

    simulate(dut, bench)


# ---- through the register block's AXI4-Lite read path ------------------------------------

@pytest.mark.parametrize("stats_stages", [3, 2])
def test_regs_reads_under_increments_and_backpressure(stats_stages):
    """KvAsuRegisters: statistics read over AXI while every statistic may count in every
    cycle (long all-ones stretches), with random AR gaps and RREADY delays, mixed with other
    reads. A LO read returns the count of the increments of every cycle up to and including
    its AR handshake cycle (the sample is taken in the next cycle), HI returns the latch."""
    import regmap
    from regmap import REG, STAT_NAMES
    from hdl.regs import KvAsuRegisters
    from .test_regs import OKAY, Manager

    seed = SEED + 3
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = KvAsuRegisters(stats_stages=stats_stages)
    bus = dut.axil
    n = len(STAT_NAMES)
    values = [[0] * n]        # values[c][i]: counter i in cycle c
    handshakes = []           # (cycle, araddr) of every AR handshake
    done = []

    async def monitor(ctx):
        cycle = 0
        async for _, _, arvalid, arready, araddr, inc in ctx.tick().sample(
                bus.arvalid, bus.arready, bus.araddr, dut.stat_inc):
            if arvalid and arready:
                handshakes.append((cycle, araddr))
            values.append([v + (inc >> i & 1) for i, v in enumerate(values[-1])])
            cycle += 1

    async def core(ctx):
        ctx.set(dut.core_idle, 1)
        mode_left, ones = 0, False
        while not done:
            if mode_left == 0:
                ones, mode_left = rng.random() < 0.5, rng.randrange(1, 300)
            mode_left -= 1
            ctx.set(dut.stat_inc, (1 << n) - 1 if ones else rng.getrandbits(n))
            await ctx.tick()

    async def manager(ctx):
        mgr = Manager(bus)
        mgr.idle(ctx)
        others = [REG["ID"], REG["C3"], REG["STATUS"], REG["CYCLE"]]
        reads = 0
        for _ in range(400):
            for _ in range(rng.choice([0, 0, 0, 1, 3])):
                await ctx.tick()
            if rng.random() < 0.15:
                reg = rng.choice(others)
                data, resp = await mgr.read(ctx, reg.offset, rready_delay=rng.choice([0, 2]))
                assert resp == OKAY
                continue
            k = rng.randrange(n)
            reg = regmap.STAT_REGISTERS[k]
            delay = rng.choice([0, 0, 1, 2, 5])
            lo, resp = await mgr.read(ctx, reg.offsets[0], rready_delay=delay)
            assert resp == OKAY
            cycle, addr = handshakes[-1]
            assert addr == reg.offsets[0]
            expected = values[cycle + 1][k]
            assert lo == expected & 0xFFFF_FFFF, (reg.name, cycle, lo, expected)
            hi, resp = await mgr.read(ctx, reg.offsets[1], rready_delay=delay)
            assert (hi, resp) == (expected >> 32, OKAY)
            reads += 1
        assert reads > 250
        done.append(True)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(manager)
    sim.add_testbench(core)
    sim.add_process(monitor)
    sim.run_until(1e-8 * 20000)
    assert done, "the manager did not finish"

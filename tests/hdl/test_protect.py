# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.protect: parity and SECDED codes, ProtectedMemory in amaranth.sim (clean reads, every
single-bit flip detected or corrected, double flips reported), the drop-in use by the table
and the LRU list, and D11's table of protection per memory."""

import functools
import os
import random
import re
from pathlib import Path

import pytest
from amaranth import Module
from amaranth.lib import data
from amaranth.sim import Simulator

import regmap
from hdl.ecc import Code, choose_protection, dp16kd_count, secded_check_bits
from hdl.protect import ProtectedMemory
from hdl.table import GEN_WIDTH
from regmap import Params

from . import test_lru, test_table

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "0"))   # added to each case's own seed

SPEC = Path(__file__).parents[2] / "docs" / "spec-decisions.md"


# ---- the codes (Python reference) -----------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 4, 6, 11])
def test_secded_corrects_every_single_and_detects_every_double_flip(k):
    code = Code("secded", k)
    assert code.width == k + secded_check_bits(k)
    for value in range(1 << k):
        word = code.encode_int(value)
        assert code.decode_int(word) == (value, False, False)
        for a in range(code.width):
            assert code.decode_int(word ^ 1 << a) == (value, True, False), (value, a)
            for b in range(a + 1, code.width):
                assert code.decode_int(word ^ 1 << a ^ 1 << b)[1:] == (False, True), \
                    (value, a, b)


def test_parity_detects_every_single_flip():
    code = Code("parity", 5)
    for value in range(32):
        word = code.encode_int(value)
        assert code.decode_int(word) == (value, False, False)
        for a in range(code.width):
            assert code.decode_int(word ^ 1 << a)[1:] == (False, True)   # data as stored


def test_check_bit_counts():
    assert [secded_check_bits(k) for k in (1, 4, 11, 26, 57, 64, 72)] == [3, 4, 5, 6, 7, 8, 8]
    with pytest.raises(ValueError):
        secded_check_bits(0)


@pytest.mark.parametrize("build", ["ProtectedMemory", "RegisteredReadRam", "BucketTable",
                                   "LruList", "StatisticsCounters", "CoreOptions"])
def test_every_component_refuses_an_unknown_protection_alike(build):
    from hdl.core.options import CoreOptions
    from hdl.lru import LruList
    from hdl.ram import RegisteredReadRam
    from hdl.stats import StatisticsCounters
    from hdl.table import BucketTable
    make = {
        "ProtectedMemory": lambda v: ProtectedMemory(shape=8, depth=4, protection=v),
        "RegisteredReadRam": lambda v: RegisteredReadRam(shape=8, depth=4, protection=v),
        "BucketTable": lambda v: BucketTable(Params(), protection=v),
        "LruList": lambda v: LruList(Params(), protection=v),
        "StatisticsCounters": lambda v: StatisticsCounters(protection=v),
        "CoreOptions": lambda v: CoreOptions(protection=v),
    }[build]
    name = "CoreOptions.protection" if build == "CoreOptions" else "protection"
    for bad in ("ecc", "SECDED"):
        with pytest.raises(ValueError, match=re.escape(
                f"{name} must be one of auto, secded, parity, none, not {bad!r}")):
            make(bad)
    for bad in (None, 1):
        with pytest.raises(TypeError, match=re.escape(
                f"{name} must be a str, one of auto, secded, parity, none, not {bad!r}")):
            make(bad)


def test_bad_arguments():
    with pytest.raises(ValueError, match="protection must be one of"):
        ProtectedMemory(shape=8, depth=4, protection="ecc")
    with pytest.raises(ValueError, match="depth"):
        ProtectedMemory(shape=8, depth=0)
    mem = ProtectedMemory(shape=8, depth=4)
    mem.write_port(granularity=4)
    with pytest.raises(ValueError, match="same granularity"):
        mem.write_port()


# ---- ProtectedMemory in the simulator -----------------------------------------------------

def simulate(mem, bench):
    m = Module()
    m.submodules.mem = mem
    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("protection,width", [("secded", 10), ("parity", 10), ("secded", 1),
                                              ("secded", 36)])
def test_every_flip_of_every_word_is_corrected_or_detected(protection, width):
    depth = 4
    mem = ProtectedMemory(shape=width, depth=depth, protection=protection)
    wp, rp = mem.write_port(), mem.read_port()
    rng = random.Random(SEED + width)
    values = [rng.getrandbits(width) for _ in range(depth)]
    coded = mem.code.width
    seen = {"clean": 0, "single": 0, "double": 0}

    async def read(ctx, addr):
        ctx.set(rp.addr, addr)
        await ctx.tick()
        return (ctx.get(rp.data), ctx.get(rp.corrected), ctx.get(rp.error),
                ctx.get(rp.error_addr))

    async def bench(ctx):
        for addr, value in enumerate(values):
            ctx.set(wp.addr, addr)
            ctx.set(wp.data, value)
            ctx.set(wp.en, 1)
            await ctx.tick()
        ctx.set(wp.en, 0)
        for addr, value in enumerate(values):
            assert await read(ctx, addr) == (value, 0, 0, addr)
            seen["clean"] += 1
            stored = ctx.get(mem.storage[addr])
            assert stored == mem.code.encode_int(value)
            for a in range(coded):
                ctx.set(mem.storage[addr], stored ^ 1 << a)
                got = await read(ctx, addr)
                if protection == "secded":
                    assert got == (value, 1, 0, addr), (addr, a)
                else:
                    assert got[1:] == (0, 1, addr), (addr, a)
                seen["single"] += 1
                if protection == "secded":
                    for b in range(a + 1, coded):
                        ctx.set(mem.storage[addr], stored ^ 1 << a ^ 1 << b)
                        assert (await read(ctx, addr))[1:] == (0, 1, addr), (addr, a, b)
                        seen["double"] += 1
            ctx.set(mem.storage[addr], stored)
            assert await read(ctx, addr) == (value, 0, 0, addr)

    simulate(mem, bench)
    assert seen["single"] == depth * coded
    if protection == "secded":
        assert seen["double"] == depth * coded * (coded - 1) // 2


def test_lanes_are_coded_and_flagged_apart():
    lane = data.StructLayout({"last": 4, "fresh": 1, "valid": 1})
    mem = ProtectedMemory(shape=data.ArrayLayout(lane, 4), depth=2, protection="secded")
    wp = mem.write_port(granularity=1)        # one lane per enable bit, as the scrub memory
    rp = mem.read_port()
    assert mem.lanes == 4 and mem.code.k == 6 and mem.code.kind == "secded"

    async def bench(ctx):
        for i in range(4):                     # write the lanes one at a time
            ctx.set(wp.addr, 1)
            ctx.set(wp.data[i].last, 3 + i)
            ctx.set(wp.data[i].valid, 1)
            ctx.set(wp.en, 1 << i)
            await ctx.tick()
        ctx.set(wp.en, 0)
        ctx.set(rp.addr, 1)
        await ctx.tick()
        assert [ctx.get(rp.data[i].last) for i in range(4)] == [3, 4, 5, 6]
        assert ctx.get(rp.lane_corrected) == 0 and ctx.get(rp.lane_error) == 0
        stored = ctx.get(mem.storage[1])
        ctx.set(mem.storage[1], stored ^ 1 << (2 * mem.code.width + 1))    # lane 2
        await ctx.tick()
        assert ctx.get(rp.lane_corrected) == 0b0100 and ctx.get(rp.corrected) == 1
        assert ctx.get(rp.data[2].last) == 5 and ctx.get(rp.error) == 0
        ctx.set(mem.storage[1], stored ^ 0b11)                              # lane 0, twice
        await ctx.tick()
        assert ctx.get(rp.lane_error) == 0b0001 and ctx.get(rp.error) == 1

    simulate(mem, bench)


def test_initial_contents_are_code_words():
    mem = ProtectedMemory(shape=8, depth=3, init=[0x5A, 0xFF, 0])
    rp = mem.read_port()

    async def bench(ctx):
        for addr, value in enumerate([0x5A, 0xFF, 0]):
            ctx.set(rp.addr, addr)
            await ctx.tick()
            assert (ctx.get(rp.data), ctx.get(rp.corrected), ctx.get(rp.error)) == \
                (value, 0, 0)

    simulate(mem, bench)


# ---- a drop-in for the table and the LRU list ---------------------------------------------

class CountedMemory(ProtectedMemory):
    """A ProtectedMemory that keeps a list of its instances (so a test knows it was used)."""
    made = []

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        CountedMemory.made.append(self)


def test_table_works_on_protected_memories(monkeypatch):
    from hdl.table import BucketTable
    CountedMemory.made.clear()
    monkeypatch.setattr(test_table, "BucketTable",
                        functools.partial(BucketTable, memory=CountedMemory))
    test_table.test_window_reads(16, 4)
    test_table.test_reads_meet_every_write_source(16, 4)
    test_table.test_valid_stale_inv_clear_scrub_port()
    assert len(CountedMemory.made) == 3 * (4 * 3 + 1)     # ent, meta, mark per bank; scrub


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "compact"])
def test_lru_works_on_protected_memories(monkeypatch, registered):
    from hdl.lru import LruList
    CountedMemory.made.clear()
    monkeypatch.setattr(test_lru, "LruList", functools.partial(LruList, memory=CountedMemory))
    test_lru.test_lru_random(16, 0.0, registered)
    assert len(CountedMemory.made) == 4 and all(m.code.kind == "secded"
                                                for m in CountedMemory.made)


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "compact"])
def test_protected_lru_list(monkeypatch, registered):
    """The LRU list with SECDED banks (their read ports registered and corrected after the
    register) behaves as the unprotected list, in the six- and the three-stage pipeline."""
    from hdl.lru import LruList
    monkeypatch.setattr(test_lru, "LruList", functools.partial(LruList, protection="secded"))
    test_lru.test_lru_random(16, 0.0, registered)
    test_lru.test_lru_random(16, 0.3, registered)


def test_registered_read_port():
    """``read_port(registered=True)``: the word of the address of two cycles before,
    corrected, with its flags and address; bad arguments refused."""
    mem = ProtectedMemory(shape=8, depth=4, protection="secded")
    wp, rp = mem.write_port(), mem.read_port(registered=True)
    with pytest.raises(ValueError, match="registered"):
        mem.read_port(registered=True, domain="comb")
    with pytest.raises(TypeError, match="registered"):
        mem.read_port(registered=1)

    async def bench(ctx):
        for addr in range(4):
            ctx.set(wp.addr, addr)
            ctx.set(wp.data, 0x10 + addr)
            ctx.set(wp.en, 1)
            await ctx.tick()
        ctx.set(wp.en, 0)
        ctx.set(mem.storage[2], ctx.get(mem.storage[2]) ^ 1 << 3)      # one bit of word 2
        ctx.set(mem.storage[3], ctx.get(mem.storage[3]) ^ 0b11)        # two of word 3
        got = []
        for addr in (0, 1, 2, 3, 0, 0):
            ctx.set(rp.addr, addr)
            await ctx.tick()
            got.append((ctx.get(rp.data), ctx.get(rp.corrected), ctx.get(rp.error),
                        ctx.get(rp.error_addr)))
        # Each read shows two cycles after its address (the first shown is the read of
        # the last write's cycle, which met it: its flags are dropped).
        assert got[1:] == [(0x10, 0, 0, 0), (0x11, 0, 0, 1), (0x12, 1, 0, 2),
                           (got[4][0], 0, 1, 3), (0x10, 0, 0, 0)]

    simulate(mem, bench)


# ---- D11's table ----------------------------------------------------------------------------

def test_spec_table_is_the_rule_applied_to_the_default_build():
    p = Params()
    meta = p.TS_WIDTH + 2             # {last, fresh, valid}: a `scrub` lane
    memories = {      # D11 table row -> (word bits, words, granule bits)
        "`ent` per bank (1)": (p.TAG_WIDTH + p.COUNT_WIDTH, p.ENTRIES // p.PROBE, None),
        "`meta` per bank (2)": (meta + GEN_WIDTH, p.ENTRIES // p.PROBE, None),
        "`mark` per bank (3)": (1, p.ENTRIES // p.PROBE, None),
        "`scrub` (4)": (p.PROBE * meta, p.ENTRIES // p.PROBE, meta),
        "`prev0`, `prev1`, `next0`, `next1` (5..8)": (p.SLOT_WIDTH, p.ENTRIES, None),
        "statistics (9)": (64, len(regmap.STAT_NAMES), None),
    }
    section = SPEC.read_text().split("## D11.")[1]
    rows = {cells[0]: cells[1:] for line in section.splitlines()
            if line.startswith("| `") or line.startswith("| statistics")
            for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    for name, (width, depth, granule) in memories.items():
        word, words, gran, code, coded, brams = rows[name]
        kind = choose_protection(width, depth, granule)
        g = granule or width
        coded_bits = width // g * (g + secded_check_bits(g) if kind == "secded" else g + 1)
        assert int(re.findall(r"\d+", word)[-1]) == width, name
        assert int(words) == depth and code.lower() == kind, name
        assert gran == ("lane" if granule else "word"), name
        assert int(coded) == coded_bits, name
        assert brams == f"{dp16kd_count(width, depth)}, {dp16kd_count(coded_bits, depth)}", name

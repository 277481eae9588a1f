# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.ram.RegisteredReadRam: the read data two cycles after the address, from a
register; its DP16KD tiling; and hdl.table.BucketTable with ``output_register``: the
window two cycles after its address, with every write of the read cycle and of the cycle
after bypassed in."""

import os
import random

import pytest
from amaranth.back import rtlil
from amaranth.lib import data

from hdl.ram import RegisteredReadRam, dp16kd_mode
from hdl.table import BucketTable

from .harness import sim_run, small_params
from .test_table import check_window, clear_sweep, random_source

#: Added to each test's seed of its random cases (``KV_ASU_TEST_SEED``, else 0: the cases
#: each test has always drawn); printed by a failing test (conftest.py).
SEED = int(os.environ.get("KV_ASU_TEST_SEED", "0"))


def test_registered_read_latency_and_contents():
    """Random writes and reads; a read's data is the word of two cycles before, as it was
    before the read cycle's write (reads that meet a write of their address in their own
    cycle are not checked: undefined)."""
    rng = random.Random(SEED + 20261201)
    depth, width = 13, 11
    dut = RegisteredReadRam(shape=width, depth=depth)
    mem = [0] * depth

    async def bench(ctx):
        expected = []                   # per cycle: the word its read returns, or None
        for k in range(400):
            addr = rng.randrange(depth)
            ctx.set(dut.rd_addr, addr)
            write = rng.random() < 0.6
            w_addr, w_data = rng.randrange(depth), rng.getrandbits(width)
            ctx.set(dut.wr_en, write)
            ctx.set(dut.wr_addr, w_addr)
            ctx.set(dut.wr_data, w_data)
            expected.append(None if write and w_addr == addr else mem[addr])
            if write:
                mem[w_addr] = w_data
            await ctx.tick()
            if k and expected[k - 1] is not None:
                assert ctx.get(dut.rd_data) == expected[k - 1], k
                # a register: it does not follow the next cycle's address
                ctx.set(dut.rd_addr, (addr + 1) % depth)
                assert ctx.get(dut.rd_data) == expected[k - 1], k

    sim_run(dut, bench)


@pytest.mark.parametrize("width,depth,mode,blocks", [
    (72, 512, 36, 2), (14, 512, 18, 1), (1, 512, 1, 1), (40, 512, 36, 2),
    (11, 2048, 9, 2), (24, 2048, 9, 3), (64, 13, 36, 2), (9, 2049, 4, 3),
])
def test_dp16kd_tiling(width, depth, mode, blocks):
    assert dp16kd_mode(width, depth) == (mode, blocks)


def test_dp16kd_instances():
    """The ``dp16kd`` implementation is DP16KD blocks with the read output register on,
    as many as the tiling says, and nothing else between the RAM and ``rd_data``."""
    dut = RegisteredReadRam(shape=data.StructLayout({"a": 50, "b": 22}), depth=512,
                            implementation="dp16kd")
    text = rtlil.convert(dut)
    assert text.count("cell \\DP16KD ") == 2
    assert text.count('parameter \\REGMODE_B "OUTREG"') == 2
    assert text.count("parameter \\DATA_WIDTH_B 36") == 2
    assert dut.memory is None


def test_parameters_refused():
    with pytest.raises(TypeError):
        RegisteredReadRam(shape=4, depth="8")
    with pytest.raises(ValueError):
        RegisteredReadRam(shape=4, depth=0)
    with pytest.raises(ValueError):
        RegisteredReadRam(shape=4, depth=8, implementation="bram")
    with pytest.raises(ValueError):
        RegisteredReadRam(shape=4, depth=20000, implementation="dp16kd")
    with pytest.raises(TypeError):
        BucketTable(small_params(), output_register=1)
    with pytest.raises(ValueError):
        BucketTable(small_params(), ram="dp16kd")          # needs output_register


@pytest.mark.parametrize("entries,probe", [(16, 4), (32, 4), (8, 2), (4, 1), (8, 8)])
def test_registered_window_meets_writes_of_both_cycles(entries, probe):
    """With ``output_register`` the window addressed in cycle c is on ``bk_*`` in c + 2
    and is the table as it is at the end of c + 1: the writes, invalidates and clears of
    c and of c + 1 included, generation compared; and each bank's ``bk_sides.match`` is
    that word's valid bit and its tag's comparison with ``rd_tag`` of c + 1 (a tag of the
    window's own lines most of the time, so that matches happen on both sides of the
    bypass choices)."""
    p = small_params(ENTRIES=entries, PROBE=probe)
    dut = BucketTable(p, output_register=True)
    rng = random.Random(SEED + entries * 1000 + probe)
    rows = entries // probe
    model = {}
    matches = [0, 0]

    async def bench(ctx):
        await clear_sweep(ctx, dut, rows)
        await ctx.tick()
        reads = []                          # window start per cycle
        for _ in range(700):
            h = rng.randrange(entries)
            ctx.set(dut.rd_slot, h)
            # a write source aimed at the window just read or the one before, mostly
            recent = rng.choice(reads[-1:] + [h])
            target = (recent + rng.randrange(probe)) % entries if rng.random() < 0.8 \
                else rng.randrange(entries)
            op = random_source(ctx, dut, rng, target, model)
            # the tag the window read in the cycle before is compared with
            near = [model[(reads[-1] + i) % entries][0] for i in range(probe)
                    if reads and (reads[-1] + i) % entries in model]
            tag = (rng.choice(near) if near and rng.random() < 0.7
                   else rng.getrandbits(p.TAG_WIDTH))
            ctx.set(dut.rd_tag, tag)
            reads.append(h)
            await ctx.tick()
            if len(reads) >= 2:
                # the window addressed in the cycle before this one's
                check_window(ctx, dut, reads[-2], model, (op, target))
                for b in range(probe):
                    expected = ctx.get(dut.bk_valid[b]) & (ctx.get(dut.bk_tag[b]) == tag)
                    assert ctx.get(dut.bk_sides[b].match) == expected, (op, target, b)
                    matches[expected] += 1
        print(f"bank matches / not: {matches[1]} / {matches[0]}")
        assert matches[1] > 50

    sim_run(dut, bench)

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.table.BucketTable: window reads in probe order (with wrap-around), read-during-write
transparency, valid bits, generations and stale marks, the scrubber row port, invalidate
and the clear sweep; and
hdl.scrubber.Scrubber's stale decision."""

import os
import random
from types import SimpleNamespace

import pytest
from amaranth import Elaboratable, Module

from hdl.scrubber import Scrubber
from hdl.table import BucketTable

from .harness import sim_run, small_params

#: Added to each test's seed of its random cases (``KV_ASU_TEST_SEED``, else 0: the cases
#: each test has always drawn); printed by a failing test (conftest.py).
SEED = int(os.environ.get("KV_ASU_TEST_SEED", "0"))


def window(ctx, dut, h):
    """The window read at ``h`` (addressed in the previous cycle) in probe order, from the
    table's bank-order ports ``bk_*``: lane ``i`` is bank ``(h + i) mod PROBE``, at the row
    of slot ``h + i``. ``valid``, ``stale``, ``mark``: bit ``i`` per lane; ``tag``,
    ``count``, ``last``: lists."""
    p = dut.params
    P = p.PROBE
    out = SimpleNamespace(valid=0, stale=0, mark=0, tag=[], count=[], last=[])
    for i in range(P):
        s = (h + i) % p.ENTRIES
        b = s % P
        assert ctx.get(dut.bk_row[b]) == s // P, (h, i)
        fresh, mark = ctx.get(dut.bk_fresh[b]), ctx.get(dut.bk_mark_raw[b])
        out.valid |= ctx.get(dut.bk_valid[b]) << i
        out.stale |= (fresh ^ mark) << i
        out.mark |= ctx.get(dut.bk_mark[b]) << i
        out.tag.append(ctx.get(dut.bk_tag[b]))
        out.count.append(ctx.get(dut.bk_count[b]))
        out.last.append(ctx.get(dut.bk_last[b]))
    return out


def random_source(ctx, dut, rng, target, model):
    """Set one random write source of the table for this cycle, aimed at slot ``target``
    (a write, an invalidate, a clear of its row, or none), and apply it to ``model``
    (slot -> ``(tag, count, last)`` of the tracked slots); return its name."""
    p = dut.params
    probe = p.PROBE
    op = rng.choices(["wr", "inv", "clear", "none"], [5, 2, 1, 2])[0]
    ctx.set(dut.wr_en, op == "wr")
    ctx.set(dut.inv_en, op == "inv")
    ctx.set(dut.clear_en, op == "clear")
    if op == "wr":
        entry = (rng.getrandbits(p.TAG_WIDTH), rng.randrange(1 << p.COUNT_WIDTH),
                 rng.randrange(1 << p.TS_WIDTH))
        ctx.set(dut.wr_slot, target)
        ctx.set(dut.wr_tag, entry[0])
        ctx.set(dut.wr_count, entry[1])
        ctx.set(dut.wr_last, entry[2])
        model[target] = entry
    elif op == "inv":
        ctx.set(dut.inv_slot, target)
        model.pop(target, None)
    elif op == "clear":
        row = target // probe
        ctx.set(dut.clear_row, row)
        for b in range(probe):
            model.pop(row * probe + b, None)
    return op


def check_window(ctx, dut, h, model, context):
    """The window at ``h`` on the ``bk_*`` ports is ``model``'s (slot -> ``(tag, count,
    last)`` of the tracked slots): tracked exactly where the model has the slot, with its
    entry."""
    p = dut.params
    win = window(ctx, dut, h)
    for i in range(p.PROBE):
        s = (h + i) % p.ENTRIES
        assert (win.valid >> i) & 1 == (s in model), (context, h, i)
        if s in model:
            assert (win.tag[i], win.count[i], win.last[i]) == model[s], (context, h, i)


async def clear_sweep(ctx, dut, rows):
    """The sweep a core makes when a flush or reset wraps the table generations: every slot
    untracked."""
    ctx.set(dut.clear_en, 1)
    for row in range(rows):
        ctx.set(dut.clear_row, row)
        await ctx.tick()
    ctx.set(dut.clear_en, 0)


@pytest.mark.parametrize("entries,probe", [(16, 4), (8, 2), (4, 1), (8, 8), (4, 4)])
def test_window_reads(entries, probe):
    p = small_params(ENTRIES=entries, PROBE=probe)
    dut = BucketTable(p)
    rng = random.Random(SEED + entries * 10 + probe)
    model = {}

    async def write(ctx, slot, tag, count, last):
        ctx.set(dut.wr_en, 1)
        ctx.set(dut.wr_slot, slot)
        ctx.set(dut.wr_tag, tag)
        ctx.set(dut.wr_count, count)
        ctx.set(dut.wr_last, last)
        model[slot] = (tag, count, last)

    async def bench(ctx):
        # fill half the slots
        for slot in rng.sample(range(entries), entries // 2):
            await write(ctx, slot, rng.getrandbits(p.TAG_WIDTH), rng.randrange(8),
                        rng.randrange(1 << p.TS_WIDTH))
            await ctx.tick()
        ctx.set(dut.wr_en, 0)
        for h in list(range(entries)) * 2:
            ctx.set(dut.rd_slot, h)
            # a write in the same cycle as the read is seen by the read (transparency)
            if rng.random() < 0.5:
                slot = (h + rng.randrange(probe)) % entries
                await write(ctx, slot, rng.getrandbits(p.TAG_WIDTH), rng.randrange(8),
                            rng.randrange(1 << p.TS_WIDTH))
            else:
                ctx.set(dut.wr_en, 0)
            await ctx.tick()
            ctx.set(dut.wr_en, 0)
            win = window(ctx, dut, h)
            for i in range(probe):
                s = (h + i) % entries
                assert (win.valid >> i) & 1 == (s in model), (h, i)
                assert (win.stale >> i) & 1 == 0
                if s in model:
                    tag, count, last = model[s]
                    assert (win.tag[i], win.count[i], win.last[i]) == (tag, count, last), (h, i)

    sim_run(dut, bench)


@pytest.mark.parametrize("entries,probe", [(16, 4), (32, 4), (8, 2), (4, 1)])
def test_reads_meet_every_write_source(entries, probe):
    """A window read in the cycle of a write, an invalidate or a clear of a slot it reads
    (in either of the window's rows) returns the slot as it is after that cycle."""
    p = small_params(ENTRIES=entries, PROBE=probe)
    dut = BucketTable(p)
    rng = random.Random(SEED + entries * 100 + probe)
    rows = entries // probe
    model = {}              # slot -> (tag, count, last) of a tracked slot

    async def bench(ctx):
        await clear_sweep(ctx, dut, rows)
        for _ in range(600):
            h = rng.randrange(entries)
            ctx.set(dut.rd_slot, h)
            # one source per cycle, aimed at the window being read most of the time
            target = (h + rng.randrange(probe)) % entries if rng.random() < 0.8 \
                else rng.randrange(entries)
            op = random_source(ctx, dut, rng, target, model)
            await ctx.tick()
            check_window(ctx, dut, h, model, (op, target))

    sim_run(dut, bench)


def test_valid_stale_inv_clear_scrub_port():
    p = small_params()             # 16 entries, 4 banks, 4 rows
    dut = BucketTable(p)

    async def bench(ctx):
        for slot in (0, 5, 6, 7, 15):
            ctx.set(dut.wr_en, 1)
            ctx.set(dut.wr_slot, slot)
            ctx.set(dut.wr_last, slot)
            await ctx.tick()
        ctx.set(dut.wr_en, 0)
        # scrub row 1 (slots 4..7): its data comes two cycles after the address
        ctx.set(dut.sc_row, 1)
        await ctx.tick()
        await ctx.tick()
        assert ctx.get(dut.sc_valid) == 0b1110
        assert [ctx.get(dut.sc_last[b]) for b in (1, 2, 3)] == [5, 6, 7]
        # decide to mark slots 5, 6 and 7 stale, while slot 6 is written in the same cycle
        ctx.set(dut.sc_set, 0b1110)
        ctx.set(dut.wr_en, 1)
        ctx.set(dut.wr_slot, 6)
        ctx.set(dut.wr_last, 9)
        await ctx.tick()
        # the marks are written in the next cycle, in which slot 7 is written: both written
        # slots stay fresh
        ctx.set(dut.sc_set, 0)
        ctx.set(dut.wr_slot, 7)
        ctx.set(dut.wr_last, 10)
        ctx.set(dut.rd_slot, 4)
        assert ctx.get(dut.sc_mark_row) == 1
        assert ctx.get(dut.sc_mark_intent) == 0b1010
        assert ctx.get(dut.sc_mark_en) == 0b0010
        await ctx.tick()
        ctx.set(dut.wr_en, 0)
        win = window(ctx, dut, 4)
        assert win.last[2:] == [9, 10]                  # transparent reads
        assert win.valid == 0b1110
        assert win.stale == 0b0010                      # slot 5 only
        # a write with the lane's mark clears stale (the scrubber's mark is 'not fresh')
        assert win.mark & 0b0010
        ctx.set(dut.wr_en, 1)
        ctx.set(dut.wr_slot, 5)
        ctx.set(dut.wr_mark, (win.mark >> 1) & 1)
        await ctx.tick()
        ctx.set(dut.wr_en, 0)
        assert window(ctx, dut, 4).stale == 0
        # invalidate slot 6; window 14 wraps to 14, 15, 0, 1
        ctx.set(dut.inv_en, 1)
        ctx.set(dut.inv_slot, 6)
        ctx.set(dut.rd_slot, 14)
        await ctx.tick()
        ctx.set(dut.inv_en, 0)
        win = window(ctx, dut, 14)
        assert win.valid == 0b0110                      # slots 15 and 0
        assert win.last[1] == 15
        ctx.set(dut.rd_slot, 4)
        await ctx.tick()
        assert window(ctx, dut, 4).valid == 0b1010      # slots 5 and 7
        # the clear sweep: one row per cycle
        ctx.set(dut.clear_en, 1)
        for row in range(dut.rows):
            ctx.set(dut.clear_row, row)
            await ctx.tick()
        ctx.set(dut.clear_en, 0)
        for h in (0, 4, 12):
            ctx.set(dut.rd_slot, h)
            await ctx.tick()
            assert window(ctx, dut, h).valid == 0

    sim_run(dut, bench)


def test_generations():
    """D12: a slot is tracked only in the generation it was written in (every write,
    invalidate and clear stores the current one); the window's read in the cycle the
    generation changes already uses the new one; the scrubber's copy has no generation
    (``sc_valid`` is the valid bit alone)."""
    p = small_params()             # 16 entries, 4 banks, 4 rows
    dut = BucketTable(p)

    async def read(ctx, h):
        ctx.set(dut.rd_slot, h)
        await ctx.tick()
        return window(ctx, dut, h)

    async def write(ctx, slot, last):
        ctx.set(dut.wr_en, 1)
        ctx.set(dut.wr_slot, slot)
        ctx.set(dut.wr_last, last)
        await ctx.tick()
        ctx.set(dut.wr_en, 0)

    async def bench(ctx):
        for slot in (4, 5):
            await write(ctx, slot, slot)              # generation 0
        assert (await read(ctx, 4)).valid == 0b0011
        ctx.set(dut.generation, 1)
        assert (await read(ctx, 4)).valid == 0       # an old generation reads untracked
        await write(ctx, 6, 9)                       # generation 1
        win = await read(ctx, 4)
        assert win.valid == 0b0100 and win.last[2] == 9
        # the scrubber still sees the valid bits of every generation
        ctx.set(dut.sc_row, 1)
        await ctx.tick()
        await ctx.tick()
        assert ctx.get(dut.sc_valid) == 0b0111
        # a write in the cycle of the read, of the current generation (the bypass)
        ctx.set(dut.generation, 2)
        ctx.set(dut.rd_slot, 4)
        await write(ctx, 7, 3)
        assert window(ctx, dut, 4).valid == 0b1000
        # back to generation 0 (what the core never does while a slot of it is valid: it
        # sweeps first): slots 4 and 5 are tracked again, 6 and 7 not
        ctx.set(dut.generation, 0)
        assert (await read(ctx, 4)).valid == 0b0011

    sim_run(dut, bench)


class _ScrubTop(Elaboratable):
    def __init__(self, p, lag):
        self.table = BucketTable(p)
        self.scrub = Scrubber(p, lag=lag)

    def elaborate(self, platform):
        m = Module()
        m.submodules.table = t = self.table
        m.submodules.scrub = s = self.scrub
        m.d.comb += [t.sc_row.eq(s.sc_row), s.sc_last.eq(t.sc_last),
                     s.sc_valid.eq(t.sc_valid), t.sc_set.eq(s.sc_set)]
        return m


def test_scrubber_marks_only_old_slots():
    # TS_WIDTH 4 (WMAX 7), TICK_SHIFT 1, 4 rows: every slot is visited every 4 cycles.
    p = small_params(TS_WIDTH=4, TICK_SHIFT=1)
    lag = 3
    top = _ScrubTop(p, lag)
    t, s = top.table, top.scrub

    async def bench(ctx):
        cycle = 100
        # The counter is frozen here; the scrubber registers its reference tick a cycle
        # ahead, for the cycle the table writes its decision (cycle + 2 - lag), so a frozen
        # 98 acts as cycle 100.
        ctx.set(s.cycle, cycle - 2)
        # slot 9 written with the tick of cycle 100 - lag; slot 10 ten ticks earlier
        ref = ((cycle - lag) >> 1) % 16
        for slot, last in ((9, ref), (10, (ref - 10) % 16), (11, (ref - 7) % 16)):
            ctx.set(t.wr_en, 1)
            ctx.set(t.wr_slot, slot)
            ctx.set(t.wr_last, last)
            await ctx.tick()
        ctx.set(t.wr_en, 0)
        for _ in range(8):
            await ctx.tick()
        ctx.set(t.rd_slot, 8)
        await ctx.tick()
        # 10 is 10 ticks old (> WMAX = 7): stale; 11 is exactly 7: not; 9 fresh
        win = window(ctx, t, 8)
        assert win.valid == 0b1110
        assert win.stale == 0b0100

    sim_run(top, bench)


@pytest.mark.parametrize("output_register", [False, True], ids=["direct", "registered"])
@pytest.mark.parametrize("entries,probe", [(16, 4), (8, 2), (4, 1)])
def test_pmeta_array_reads_with_every_write(entries, probe, output_register):
    """The predictor build's ``pmeta`` array (docs/rtl-predictor.md): its word of every
    lane of a window is the last one written to the slot (0 before any), a ``pm`` write
    in the read cycle (and, with the registered read, in the cycle after) included,
    whatever the table's other writes do in the same cycles; the entries beside it are
    unchanged by it."""
    from hdl.core.interfaces import pmeta_layout
    width = pmeta_layout().size
    p = small_params(ENTRIES=entries, PROBE=probe)
    dut = BucketTable(p, pmeta_width=width, output_register=output_register)
    rng = random.Random(SEED + entries * 1000 + probe * 10 + output_register)
    rows = entries // probe
    model = {}                       # slot -> (tag, count, last) of a tracked slot
    pmeta = [0] * entries            # the pmeta word of every slot
    lag = dut.read_latency

    async def bench(ctx):
        await clear_sweep(ctx, dut, rows)
        history = []                 # (h, entries after the write cycle, pmeta after it)
        for n in range(700):
            h = rng.randrange(entries)
            ctx.set(dut.rd_slot, h)
            target = (h + rng.randrange(probe)) % entries if rng.random() < 0.8 \
                else rng.randrange(entries)
            random_source(ctx, dut, rng, target, model)
            write = rng.random() < 0.7
            ctx.set(dut.pm_en, write)
            if write:
                # the slot of the entry write most of the time, another one otherwise
                slot = target if rng.random() < 0.6 else (h + rng.randrange(probe)) % entries
                word = rng.getrandbits(width)
                ctx.set(dut.pm_slot, slot)
                ctx.set(dut.pm_data, word)
                pmeta[slot] = word
            history.append((h, dict(model), list(pmeta)))
            await ctx.tick()
            if len(history) >= lag:
                # the window addressed lag - 1 cycles ago, as the table is at the end of
                # its read cycle (direct) or of the cycle after it (registered)
                h_rd = history[-lag][0]
                _, seen_model, seen_pm = history[-1]
                if lag == 1:
                    check_window(ctx, dut, h_rd, seen_model, n)
                for i in range(probe):
                    s = (h_rd + i) % entries
                    assert ctx.get(dut.bk_pmeta[s % probe]) == seen_pm[s], (n, h_rd, i)

    sim_run(dut, bench)


def test_pmeta_width_validation():
    p = small_params(ENTRIES=16, PROBE=4)
    assert "pm_en" not in BucketTable(p).signature.members
    with pytest.raises(ValueError, match="pmeta_width"):
        BucketTable(p, pmeta_width=-1)
    with pytest.raises(ValueError, match="protection='none'"):
        BucketTable(p, pmeta_width=15, protection="parity")

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.predictor.ReuseTable (``PT`` and ``PA``, spec-predictor.md P4, P9) against the golden
model's rule ``pt_train``, cycle by cycle: a training and a lookup every cycle, the same entry
often (the forward), runs into both saturations, and flushes."""

import os
import random

import pytest
from amaranth.sim import Simulator

import golden_model.predictor as gm
from hdl.predictor import ReuseTable

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))


TABLES = {"PT": (gm.PT_ENTRIES, 6), "PA": (gm.PA_ENTRIES, 9)}


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("bias", [0.0, 0.5, 0.9], ids=["random", "mixed", "saturating"])
def test_reuse_table_matches_model(bias, table):
    seed = f"{SEED}-pt-{bias}" + ("" if table == "PT" else f"-{table}")
    print(f"seed {seed}")
    rng = random.Random(seed)
    entries, key_width = TABLES[table]
    dut = ReuseTable(entries, key_width=key_width)
    forwards = [0]
    saturated = [0]

    async def bench(ctx):
        pt = [gm.PT_INIT] * entries
        hot = rng.sample(range(entries), 3)
        drift = rng.random() < 0.5
        for cycle in range(1500):
            if cycle % 250 == 0:
                drift = not drift          # long runs one way: both saturations
            train = rng.random() < 0.85
            tkey = rng.choice(hot) if rng.random() < 0.6 else rng.randrange(entries)
            near = (rng.random() < 0.5) if rng.random() > bias else drift
            lkey = tkey if rng.random() < 0.4 else (rng.choice(hot) if rng.random() < 0.5
                                                     else rng.randrange(entries))
            flush = rng.random() < 0.003
            ctx.set(dut.train.valid, train)
            ctx.set(dut.train.payload.key, tkey)
            ctx.set(dut.train.payload.near, near)
            ctx.set(dut.lookup, lkey)
            ctx.set(dut.flush, flush)
            # The model: train, then look up (P4).
            after = list(pt)
            if train:
                after[tkey] = gm.pt_train(pt[tkey], near)
                forwards[0] += tkey == lkey
                saturated[0] += after[tkey] == pt[tkey]
            value = after[lkey]
            assert ctx.get(dut.value) == value, cycle
            assert ctx.get(dut.predict) == int(value >= gm.PT_INIT)
            assert ctx.get(dut.zero) == int(value == 0)
            await ctx.tick()
            pt = [gm.PT_INIT] * entries if flush else after
            # The entries this cycle touched every cycle, all every 16th and after flushes.
            if cycle % 16 == 0 or flush:
                assert [ctx.get(dut.counters[i]) for i in range(entries)] == pt, cycle
            else:
                for i in {tkey, lkey}:
                    assert ctx.get(dut.counters[i]) == pt[i], (cycle, i)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert forwards[0] > 60           # the same-entry forward was exercised
    assert saturated[0] > 20          # and training at 0 or 15


@pytest.mark.parametrize("table", TABLES)
def test_reuse_table_what_if_lookups_match_model(table):
    """Each what-if lookup reads its key as its own assumed training would leave the table
    (the model's ``pt_train`` applied to that entry only), whatever the real training."""
    seed = f"{SEED}-pt-what-if" + ("" if table == "PT" else f"-{table}")
    print(f"seed {seed}")
    rng = random.Random(seed)
    entries, key_width = TABLES[table]
    dut = ReuseTable(entries, key_width=key_width, what_ifs=3)
    own_forwards = [0]
    # keys from a few entries (forwards) spread over the whole table (high key bits too)
    pool = sorted(rng.sample(range(entries), 8))

    async def bench(ctx):
        pt = [gm.PT_INIT] * entries
        for cycle in range(1200):
            train, tkey, near = rng.random() < 0.8, rng.choice(pool), rng.random() < 0.5
            ctx.set(dut.train.valid, train)
            ctx.set(dut.train.payload.key, tkey)
            ctx.set(dut.train.payload.near, near)
            asked = []
            for i in range(3):
                q = (rng.random() < 0.7, rng.choice(pool), rng.choice(pool),
                     rng.random() < 0.5)
                for name, v in zip(("train", "tkey", "key", "near"), q):
                    ctx.set(getattr(dut.what_if[i], name), v)
                asked.append(q)
            for i, (qtrain, qtkey, qkey, qnear) in enumerate(asked):
                hit = qtrain and qtkey == qkey
                own_forwards[0] += hit
                value = gm.pt_train(pt[qkey], qnear) if hit else pt[qkey]
                assert ctx.get(dut.what_if_value[i]) == value, (cycle, i)
                assert ctx.get(dut.what_if_predict[i]) == int(value >= gm.PT_INIT)
                assert ctx.get(dut.what_if_zero[i]) == int(value == 0)
            await ctx.tick()
            if train:
                pt[tkey] = gm.pt_train(pt[tkey], near)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert own_forwards[0] > 200


@pytest.mark.parametrize("table", TABLES)
def test_reuse_table_what_if_at_every_counter_value(table):
    """Every counter value 0..15, each what-if training (none, a step up, a step down; the
    same entry or another): the what-if's value, prediction and zero test are the model's.
    The prediction and the zero test are read from flags chosen by the assumed training, so
    the values at the thresholds (0, 1, 7, 8, 9, 15) are the cases that tell them apart."""
    entries, key_width = TABLES[table]
    dut = ReuseTable(entries, key_width=key_width, what_ifs=1)
    key, other = entries - 1, 1            # (the top entry: every key bit in play)
    checked = [0]

    async def bench(ctx):
        for target in range(gm.PT_MAX + 1):
            # Flush to 8, then train ``key`` one step per cycle to ``target``.
            ctx.set(dut.flush, 1)
            await ctx.tick()
            ctx.set(dut.flush, 0)
            value = gm.PT_INIT
            ctx.set(dut.train.payload.key, key)
            while value != target:
                near = target > value
                ctx.set(dut.train.valid, 1)
                ctx.set(dut.train.payload.near, near)
                await ctx.tick()
                value = gm.pt_train(value, near)
            ctx.set(dut.train.valid, 0)
            assert ctx.get(dut.counters[key]) == target
            q = dut.what_if[0]
            ctx.set(q.key, key)
            for train in (0, 1):
                for tkey in (key, other):
                    for near in (0, 1):
                        ctx.set(q.train, train)
                        ctx.set(q.tkey, tkey)
                        ctx.set(q.near, near)
                        want = gm.pt_train(target, near) if train and tkey == key else target
                        got = (ctx.get(dut.what_if_value[0]), ctx.get(dut.what_if_predict[0]),
                               ctx.get(dut.what_if_zero[0]))
                        assert got == (want, int(want >= gm.PT_INIT), int(want == 0)), \
                            (target, train, tkey, near)
                        checked[0] += 1

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert checked[0] == 16 * 8


def test_reuse_table_reset_is_eight():
    dut = ReuseTable()

    async def bench(ctx):
        assert all(ctx.get(dut.counters[i]) == gm.PT_INIT for i in range(gm.PT_ENTRIES))
        ctx.set(dut.lookup, 17)
        assert ctx.get(dut.predict) == 1 and ctx.get(dut.zero) == 0

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("bad,exc", [(3, ValueError), (128, ValueError), (1, ValueError),
                                     ("64", TypeError), (True, TypeError)])
def test_reuse_table_entries_validated(bad, exc):
    with pytest.raises(exc, match="entries"):
        ReuseTable(bad)


@pytest.mark.parametrize("bad,exc", [(0, ValueError), ("9", TypeError), (True, TypeError)])
def test_reuse_table_key_width_validated(bad, exc):
    with pytest.raises(exc, match="key_width"):
        ReuseTable(key_width=bad)


def test_reuse_table_entries_within_key_width():
    ReuseTable(512, key_width=9)
    with pytest.raises(ValueError, match="2..64"):
        ReuseTable(512)


@pytest.mark.parametrize("bad,exc", [(-1, ValueError), ("2", TypeError), (True, TypeError)])
def test_reuse_table_what_ifs_validated(bad, exc):
    with pytest.raises(exc, match="what_ifs"):
        ReuseTable(what_ifs=bad)

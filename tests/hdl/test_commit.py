# SPDX-License-Identifier: Apache-2.0
"""``Commit`` (E2 and L) alone in amaranth.sim: the T-level before, the hit and their
statistics against the golden model's classification, and the recovery's poison
(docs/spec-decisions.md D11) registered beside the decision and applied behind E2's
registers."""

import os
import random

import pytest

import regmap
from golden_model.model import _tlevel
from hdl.core.commit import Commit
from hdl.layouts import STAT_NAMES
from hdl.lru import LruCmd
from tests.hdl.harness import sim_run, small_params

#: The seed of the random cases (``KV_ASU_TEST_SEED``, else 20251); printed by a failing
#: test (conftest.py).
SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20251"))

OBSERVE, QUERY = regmap.OPS["OBSERVE"], regmap.OPS["QUERY"]
EVICT = regmap.OPS["EVICT"]


def test_commit_validates():
    with pytest.raises(ValueError):
        Commit(small_params(), registered=False, protected=True)
    assert "poison" not in Commit(small_params(), registered=True).signature.members


@pytest.mark.parametrize("protected", [False, True], ids=["unprotected", "protected"])
def test_tlevel_before_and_hit_match_the_model(protected):
    """Random lines and configurations (seeded): the response's ``tlevel_before`` and
    ``hit`` and the ``obs_t*`` / ``query_hits`` statistics are the model's T-level of
    the line as found (0 if absent) against ``min_tlevel``."""
    p = small_params()
    rng = random.Random(SEED)
    dut = Commit(p, registered=True, protected=protected)
    wmax = (1 << (p.TS_WIDTH - 1)) - 1
    cmax = (1 << p.COUNT_WIDTH) - 1
    cases = []
    for _ in range(300):
        w = sorted(rng.randint(0, wmax) for _ in range(3))
        c2 = rng.randint(1, cmax)
        cases.append(dict(
            op=rng.choice([OBSERVE, QUERY]), min_tlevel=rng.randint(0, 3),
            present=rng.randint(0, 1), cnt=rng.randint(1, cmax),
            age=rng.randint(0, wmax + 1), c2=c2, c3=rng.randint(c2, cmax),
            w3=w[0], w2=w[1], w1=w[2]))

    async def testbench(ctx):
        for i, cs in enumerate(cases):
            d, cfg = dut.decision, dut.cfg
            ctx.set(d.valid, 1)
            ctx.set(d.op, cs["op"])
            ctx.set(d.min_tlevel, cs["min_tlevel"])
            ctx.set(d.present, cs["present"])
            ctx.set(d.hit_cnt, cs["cnt"])
            ctx.set(d.hit_age, cs["age"])
            for k in ("c3", "c2", "w3", "w2", "w1"):
                ctx.set(getattr(cfg, k), cs[k])
            await ctx.tick()            # into E2
            ctx.set(d.valid, 0)
            await ctx.tick()            # into L
            level = (_tlevel(cs["cnt"], cs["age"], cs["c3"], cs["c2"], cs["w3"], cs["w2"],
                             cs["w1"]) if cs["present"] else 0)
            hit = int(level >= cs["min_tlevel"])
            rsp = dut.response.payload
            assert ctx.get(dut.response.valid), i
            assert ctx.get(rsp.tlevel_before) == level, (i, cs)
            assert ctx.get(rsp.hit) == hit, (i, cs)
            inc = ctx.get(dut.stat_inc)
            bits = {name: (inc >> STAT_NAMES.index(name)) & 1 for name in STAT_NAMES}
            if cs["op"] == OBSERVE:
                assert [bits[f"obs_t{lv}"] for lv in range(4)] == [
                    int(lv == level) for lv in range(4)], (i, cs)
            else:
                assert bits["query_hits"] == hit and not any(
                    bits[f"obs_t{lv}"] for lv in range(4)), (i, cs)
    sim_run(dut, testbench)


def test_poison_clears_effects_behind_the_registers():
    """A poisoned decision (``poison`` high in the cycle it enters E2) has no effect: no
    write, no invalidate, no LRU command, an untracked line's response and statistics;
    ``forward_ahead`` still carries E2's registers as they are. The same decision not
    poisoned writes, and a poisoned EVICT takes nothing."""
    p = small_params()
    dut = Commit(p, registered=True, protected=True)

    def bit(inc, name):
        return (inc >> STAT_NAMES.index(name)) & 1

    async def commit(ctx, poison, **fields):
        d = dut.decision
        for name in ("present", "any_free", "vict_t0", "take", "wr", "inv", "wr_lane"):
            ctx.set(getattr(d, name), 0)
        ctx.set(d.valid, 1)
        for name, value in fields.items():
            ctx.set(getattr(d, name), value)
        ctx.set(dut.poison, poison)
        await ctx.tick()
        ctx.set(d.valid, 0)
        ctx.set(dut.poison, 0)
        e2 = {name: ctx.get(getattr(dut.forward, name)) for name in ("write", "lane",
                                                                      "invalidate")}
        ahead = {name: ctx.get(getattr(dut.forward_ahead, name)) for name in (
            "write", "lane", "invalidate")}
        cmd = ctx.get(dut.lru_cmd)
        present = ctx.get(dut.e2.present)
        await ctx.tick()
        rsp = {name: ctx.get(getattr(dut.response.payload, name)) for name in (
            "present", "tracked", "victim_valid", "hit")}
        return e2, ahead, cmd, present, rsp, ctx.get(dut.stat_inc), ctx.get(dut.occupancy)

    async def testbench(ctx):
        ctx.set(dut.cfg.w1, 3)
        insert = dict(op=OBSERVE, any_free=1, wr=1, wr_lane=0b10, wr_slot=5, cnt_after=1,
                      min_tlevel=1)
        e2, ahead, cmd, present, rsp, inc, occ = await commit(ctx, 1, **insert)
        assert e2 == {"write": 0, "lane": 0, "invalidate": 0}
        assert ahead == {"write": 1, "lane": 0b10, "invalidate": 0}
        assert cmd == LruCmd.NONE and not present
        assert rsp == {"present": 0, "tracked": 0, "victim_valid": 0, "hit": 0}
        assert bit(inc, "observes") and bit(inc, "drops") and not bit(inc, "inserts")
        assert bit(inc, "obs_t0")
        await ctx.tick()
        assert ctx.get(dut.occupancy) == 0
        e2, ahead, cmd, present, rsp, inc, occ = await commit(ctx, 0, **insert)
        assert e2 == {"write": 1, "lane": 0b10, "invalidate": 0} and e2 == ahead
        assert cmd == LruCmd.INSERT
        assert rsp["tracked"] and bit(inc, "inserts") and not bit(inc, "drops")
        await ctx.tick()
        assert ctx.get(dut.occupancy) == 1
        # A present line's QUERY, poisoned: absent; an EVICT, poisoned: nothing taken.
        e2, ahead, cmd, present, rsp, inc, occ = await commit(
            ctx, 1, op=QUERY, present=1, hit_cnt=3, min_tlevel=0)
        assert not present and rsp["present"] == 0 and rsp["hit"] == 1   # min_tlevel 0
        e2, ahead, cmd, present, rsp, inc, occ = await commit(
            ctx, 1, op=EVICT, take=1, inv=1, tail_slot=5)
        assert e2["invalidate"] == 0 and ahead["invalidate"] == 1 and cmd == LruCmd.NONE
        assert bit(inc, "evicts_empty") and not bit(inc, "evicts") and not rsp["victim_valid"]
        await ctx.tick()
        assert ctx.get(dut.occupancy) == 1
    sim_run(dut, testbench)

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's stage components on their own, against the rules of
docs/spec-predictor.md as this test states them: ``PredictorDecision`` (P6-P8: the match,
then the first free lane, the oldest ghost lane, the oldest live lane if beyond W1; an
EVICT's take) on random windows, and ``GhostFrees`` (P8: where each FREE reads, and the
two frees an EVICT plans from the counts it leaves) on random sequences. The core-level
tests (``test_predictor_core.py``) check the whole mode against the golden model."""

import os
import random

from amaranth.sim import Simulator

import regmap
from regmap import Params
from hdl.core.predictor_decision import PredictorDecision
from hdl.core.predictor_frees import GhostFrees

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261204"))
OPS = regmap.OPS


def _oldest(lanes, ages):
    """The lane of greatest age among ``lanes``, ties to the lowest offset (None if none)."""
    best = None
    for i in lanes:
        if best is None or ages[i] > ages[best]:
            best = i
    return best


def _expected(case, P):
    """What the request does, from the spec's rules."""
    valid, ghost, match, ages, beyond = (case[k] for k in ("valid", "ghost", "match", "ages",
                                                          "beyond"))
    op, req_valid, free_req = case["op"], case["req_valid"], case["free"]
    obs = req_valid and op == OPS["OBSERVE"]
    evict = req_valid and not free_req and op in (OPS["EVICT"], OPS["EVICT_ANY"])
    hit = match.index(1) if 1 in match else None
    present = hit is not None and not (valid[hit] and ghost[hit])
    revive = hit is not None and bool(valid[hit] and ghost[hit])
    d = dict(obs=obs, query=req_valid and op == OPS["QUERY"], evict=evict,
             free=req_valid and free_req, present=present, revive=revive,
             take=evict and not case["list_empty"],
             victim=_oldest(range(P), ages), ins_free=False, ins_ghost=False, replace=False)
    wr = hit
    if obs and hit is None:
        free_lanes = [i for i in range(P) if not valid[i]]
        ghosts = [i for i in range(P) if valid[i] and ghost[i]]
        if free_lanes:
            d["ins_free"], wr = True, free_lanes[0]
        elif ghosts:
            d["ins_ghost"], wr = True, _oldest(ghosts, ages)
        elif beyond[d["victim"]]:
            d["replace"], wr = True, d["victim"]
    d["inserted"] = (obs and revive) or d["ins_free"] or d["ins_ghost"] or d["replace"]
    d["writes"] = (obs and present) or d["inserted"]
    d["wr_lane"] = wr
    return d


def test_predictor_decision_follows_p6_p8():
    p = Params(ENTRIES=64, PROBE=4)
    P = p.PROBE
    seed = f"{SEED}-decision"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = PredictorDecision(p)
    w1 = 5
    seen = {k: 0 for k in ("present", "revive", "ins_free", "ins_ghost", "replace", "drop",
                           "take", "empty")}

    async def bench(ctx):
        for n in range(1500):
            valid = [rng.random() < 0.8 for _ in range(P)]
            ghost = [v and rng.random() < 0.3 for v in valid]
            ages = [rng.randrange(9) for _ in range(P)]     # ties on purpose
            match = [0] * P
            if rng.random() < 0.4:
                match[rng.randrange(P)] = 1                 # one copy of a tag per window
            # (a match needs a valid lane; an invalid lane's match is never set)
            match = [m & v for m, v in zip(match, valid)]
            case = dict(valid=valid, ghost=ghost, match=match, ages=ages,
                        beyond=[a > w1 for a in ages],
                        op=rng.choice(list(OPS.values())), req_valid=rng.random() < 0.9,
                        free=rng.random() < 0.15, list_empty=rng.random() < 0.2)
            e = dut.e2
            ctx.set(e.lanes.request.valid, case["req_valid"])
            ctx.set(e.lanes.request.op, case["op"])
            ctx.set(e.free, case["free"])
            ctx.set(e.ahead_wrote, 0)
            ctx.set(e.lanes.forwarded, 0)
            for i in range(P):
                ctx.set(e.lanes.lane[i].valid, valid[i])
                ctx.set(e.lanes.lane[i].match, match[i])
                ctx.set(e.pm[i].ghost, ghost[i])
                for j in range(P):
                    ctx.set(e.lanes.older[i][j], int(ages[i] > ages[j]))
            ctx.set(e.lanes.beyond_w1, sum(int(a > w1) << i for i, a in enumerate(ages)))
            ctx.set(dut.list_empty, case["list_empty"])
            want = _expected(case, P)
            d = dut.decision
            got = {k: bool(ctx.get(getattr(d, k))) for k in
                   ("obs", "query", "evict", "free", "present", "revive", "take", "ins_free",
                    "ins_ghost", "replace", "inserted", "writes")}
            for k, v in got.items():
                assert v == bool(want[k]), (n, k, case, want)
            assert ctx.get(d.victim) == 1 << want["victim"], (n, case)
            if want["writes"]:
                assert ctx.get(d.wr_lane) == 1 << want["wr_lane"], (n, case, want)
            for k in ("present", "revive", "ins_free", "ins_ghost", "replace", "take"):
                seen[k] += want[k]
            seen["drop"] += want["obs"] and not want["writes"]
            seen["empty"] += want["evict"] and not want["take"]

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    assert all(seen.values()), seen


def test_ghost_frees_follow_p8():
    p = Params(ENTRIES=64, PROBE=4)
    seed = f"{SEED}-frees"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = GhostFrees(p)
    seen = {"none": 0, "one": 0, "two": 0, "flushed": 0}

    async def bench(ctx):
        plan = []
        for n in range(2000):
            # R: where the request there reads.
            tail, gtail, gtail2 = (rng.randrange(64) for _ in range(3))
            gcount = rng.choice([0, 1, 2, rng.randrange(3, 64)])
            free_r = rng.choice([0, 1, 2])
            ctx.set(dut.tail, tail)
            ctx.set(dut.gtail, gtail)
            ctx.set(dut.gtail2, gtail2)
            ctx.set(dut.gcount, gcount)
            ctx.set(dut.gempty, gcount == 0)
            ctx.set(dut.free_r, free_r)
            if free_r == 1:
                want = tail if gcount == 0 else gtail       # FREE 1: the ghost tail
            elif free_r == 2:
                want = tail if gcount == 1 else gtail2      # FREE 2: the ghost before it
            else:
                want = tail                                 # an EVICT: the LRU tail
            assert ctx.get(dut.evict_start) == want, (n, free_r, gcount)
            # E2: an EVICT plans its two FREEs, each FREE uses its part of the plan.
            kind = rng.choice(["evict", "free", "free", "other"])
            take = kind == "evict" and rng.random() < 0.8
            live = rng.randrange(1 if take else 0, 64)     # (a take needs a live line)
            flush = rng.random() < 0.02
            ctx.set(dut.evict, kind == "evict")
            ctx.set(dut.free, kind == "free")
            ctx.set(dut.take, take)
            ctx.set(dut.live, live)
            ctx.set(dut.flush, flush)
            if kind == "free":
                assert ctx.get(dut.freeing) == (plan[0] if plan else 0), (n, plan)
            await ctx.tick()
            if flush:
                plan = []
                seen["flushed"] += 1
            elif kind == "evict":
                # P8: after the take the ghosts are gcount + 1 and the live lines
                # live - 1; free while the ghosts outnumber the live lines, at most twice.
                g, l = gcount + take, live - take
                plan = [int(take and g > l), int(take and g - 1 > l)]
                seen[("none", "one", "two")[sum(plan)]] += 1
            elif kind == "free":
                plan = plan[1:]

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert all(seen.values()), seen

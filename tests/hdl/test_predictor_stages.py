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


def _rng(name):
    """The seeded generator of one test (its seed printed: ``KV_ASU_TEST_SEED`` reruns it)."""
    seed = f"{SEED}-{name}"
    print(f"seed {seed}")
    return random.Random(seed)


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
    rng = _rng("decision")
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
    rng = _rng("frees")
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


def _random_decision(rng, P):
    """A decision ``PredictorDecision`` can give: one outcome, its one-hot lanes."""
    kind = rng.choice(["present", "present_old", "revive", "ins_free", "ins_ghost",
                       "replace", "drop", "query", "take", "empty", "free", "none"])
    lane = rng.randrange(P)
    d = dict(obs=kind in ("present", "present_old", "revive", "ins_free", "ins_ghost",
                          "replace", "drop"),
             query=kind == "query", evict=kind in ("take", "empty"), free=kind == "free",
             present=kind in ("present", "present_old"), revive=kind == "revive",
             hit_old=kind == "present_old", ins_free=kind == "ins_free",
             ins_ghost=kind == "ins_ghost", replace=kind == "replace", take=kind == "take")
    d["known"] = d["present"] or d["revive"]
    d["hit_lane"] = 1 << lane if d["known"] else 0
    d["victim"] = 1 << rng.randrange(P)
    d["inserted"] = d["revive"] or d["ins_free"] or d["ins_ghost"] or d["replace"]
    d["writes"] = d["present"] or d["inserted"]
    d["wr_lane"] = (d["hit_lane"] if d["known"] else 1 << lane) if d["writes"] else 0
    return kind, d


def test_predictor_writes_follow_p6_p8():
    """``PredictorWrites``: the table and ``pmeta`` writes and the list move of every
    outcome, as P6-P8 state them (a hit keeps the line's count plus one within W1, else the
    count restarts at 1; an insert goes to the live head or, ``to_tail``, the live tail; an
    EVICT's take moves its line to the ghost head as a ghost; a FREE that frees takes its
    ghost off the list and untracks it)."""
    from hdl.predictor.lists import ListFrom, ListTo
    from hdl.core.predictor_writes import PredictorWrites
    from hdl.core.interfaces import pmeta_layout
    p = Params(ENTRIES=64, PROBE=4)
    P = p.PROBE
    rng = _rng("writes")
    dut = PredictorWrites(p)
    seen = {}

    async def bench(ctx):
        for n in range(1500):
            kind, d = _random_decision(rng, P)
            freeing = kind == "free" and rng.random() < 0.6
            to_tail = rng.random() < 0.3
            slots = [rng.randrange(p.ENTRIES) for _ in range(P)]
            counts = [rng.randrange(1, p.COUNT_MAX + 1) for _ in range(P)]
            pm0 = rng.randrange(1 << 15)
            written = rng.randrange(1 << 15)
            start, t = rng.randrange(p.ENTRIES), rng.randrange(1 << p.TS_WIDTH)
            tag = rng.randrange(1 << p.TAG_WIDTH)
            marks = rng.randrange(1 << P)
            e = dut.e2
            ctx.set(e.lanes.request.tag, tag)
            ctx.set(e.lanes.request.t, t)
            ctx.set(e.lanes.start, start)
            ctx.set(e.mark, marks)
            ctx.set(e.pm[0].as_value(), pm0)
            for i in range(P):
                ctx.set(e.lanes.lane[i].slot, slots[i])
                ctx.set(e.lanes.lane[i].count_inc, min(counts[i] + 1, p.COUNT_MAX))
            for k, v in d.items():
                ctx.set(getattr(dut.decision, k), v)
            ctx.set(dut.written.as_value(), written)
            ctx.set(dut.to_tail, to_tail)
            ctx.set(dut.freeing, freeing)
            wr = d["wr_lane"].bit_length() - 1
            hit = d["hit_lane"].bit_length() - 1
            count = (min(counts[hit] + 1, p.COUNT_MAX) if d["present"] and not d["hit_old"]
                     else 1)
            assert ctx.get(dut.wr_en) == d["writes"], (n, kind)
            assert ctx.get(dut.forward.lane) == d["wr_lane"], (n, kind)
            assert ctx.get(dut.forward.invalidate) == freeing, (n, kind)
            assert ctx.get(dut.inv_en) == freeing, (n, kind)
            if freeing:
                assert ctx.get(dut.inv_slot) == start
            assert ctx.get(dut.ahead.free) == freeing
            if d["writes"]:
                assert ctx.get(dut.wr_slot) == slots[wr], (n, kind)
                assert ctx.get(dut.wr_tag) == tag and ctx.get(dut.wr_last) == t
                assert ctx.get(dut.wr_count) == count, (n, kind, count)
                assert ctx.get(dut.wr_mark) == (marks >> wr) & 1
                assert ctx.get(dut.ahead.count_inc) == min(count + 1, p.COUNT_MAX)
                assert (ctx.get(dut.pm_en), ctx.get(dut.pm_slot), ctx.get(dut.pm_data)) == (
                    1, slots[wr], written), (n, kind)
            elif d["take"]:
                fields = {name: f for name, f in pmeta_layout()}
                ghost = pm0 | 1 << fields["ghost"].offset       # ghost set,
                for name in ("probe", "stamp"):                 # probe and stamp cleared
                    f = fields[name]
                    ghost &= ~(((1 << f.width) - 1) << f.offset)
                assert (ctx.get(dut.pm_en), ctx.get(dut.pm_slot)) == (1, start), (n, kind)
                assert ctx.get(dut.pm_data) == ghost, (n, kind, hex(pm0))
            else:
                assert ctx.get(dut.pm_en) == 0, (n, kind)
            move = dut.move
            if d["writes"]:
                frm = (ListFrom.LIVE if d["present"] or d["replace"] else
                       ListFrom.GHOST if d["revive"] or d["ins_ghost"] else ListFrom.NONE)
                to = (ListTo.LIVE_HEAD if d["present"] or not to_tail else ListTo.LIVE_TAIL)
                want = (1, slots[wr], frm, to)
            elif d["take"]:
                want = (1, start, ListFrom.LIVE, ListTo.GHOST_HEAD)
            elif freeing:
                want = (1, start, ListFrom.GHOST, ListTo.NONE)
            else:
                want = (0,)
            got = (ctx.get(move.valid), ctx.get(move.payload.slot), ctx.get(move.payload.frm),
                   ctx.get(move.payload.to))
            assert got[:len(want)] == want, (n, kind, got, want)
            seen[(kind, freeing, to_tail and d["inserted"])] = True

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    kinds = {k[0] for k in seen}
    assert len(kinds) == 12 and any(k[1] for k in seen) and any(k[2] for k in seen), seen


def test_predictor_carry_delays_and_forwards():
    """``PredictorCarry``: the signature reaches E1b three cycles after R, a FREE's flags
    R ``hash_latency`` cycles after s0 and E1b three after that, and each lane's ``pmeta``
    word is the table's word of its bank, or the mode's write of that cycle to its slot."""
    from hdl.core.predictor_carry import PredictorCarry
    p = Params(ENTRIES=64, PROBE=4)
    P, lh = p.PROBE, 5
    rng = _rng("carry")
    dut = PredictorCarry(p, hash_latency=lh)
    seen = {"written": 0, "read": 0, "free": 0}

    async def bench(ctx):
        sigs, frees = [], []
        for n in range(600):
            sig, free = rng.randrange(1 << 16), rng.choice([0, 0, 1, 2])
            lanes = [rng.randrange(p.ENTRIES) for _ in range(P)]
            banks = [rng.randrange(1 << 15) for _ in range(P)]
            pm_en, pm_data = rng.random() < 0.5, rng.randrange(1 << 15)
            pm_slot = rng.choice(lanes) if rng.random() < 0.7 else rng.randrange(p.ENTRIES)
            ctx.set(dut.hash_sig, sig)
            ctx.set(dut.s0_free, free)
            for i in range(P):
                ctx.set(dut.lane_slot[i], lanes[i])
                ctx.set(dut.bk_pmeta[i], banks[i])
            ctx.set(dut.pm_en, pm_en)
            ctx.set(dut.pm_slot, pm_slot)
            ctx.set(dut.pm_data, pm_data)
            sigs.append(sig)
            frees.append(free)
            if len(frees) > lh:
                assert ctx.get(dut.free_r) == frees[-1 - lh], n
            await ctx.tick()
            if len(sigs) >= 3:
                assert ctx.get(dut.sig) == sigs[-3], n
            if len(frees) >= lh + 3:
                assert ctx.get(dut.free) == (frees[-lh - 3] != 0), n
                seen["free"] += frees[-lh - 3] != 0
            for i in range(P):
                hit = pm_en and pm_slot == lanes[i]
                want = pm_data if hit else banks[lanes[i] % P]
                assert ctx.get(dut.pmeta[i].as_value()) == want, (n, i, hit)
                seen["written" if hit else "read"] += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert all(seen.values()), seen

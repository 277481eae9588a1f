# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.predictor.LiveGhostLists (the LRU and the ghost list, spec-predictor.md P3, P10)
against the golden model's list operations (``golden_model.lists``: ``unlink``,
``link_at_head``, ``link_at_tail``, the ones the predictor mode's request loop uses), a move every cycle: the ends of
both lists and ``gcount`` each cycle (``tail_lag`` after the move), the prefetched
``gtail2`` whenever it is valid (and that it is, ``2 * tail_lag`` cycles after a move), and
both lists' order in the pointer banks at the end."""

import os
import random

import pytest
from amaranth.sim import Simulator

from golden_model.lists import link_at_head, link_at_tail, unlink, walk_list
from regmap import Params
from hdl.predictor.lists import ListFrom, ListTo, LiveGhostLists

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))
NONE = -1

KINDS = ["touch", "insert_head", "insert_tail", "revive_head", "revive_tail", "to_tail",
         "evict", "free", "idle"]


def run(entries, registered, n_cmds, rng, flush_rate, idle_rate=0.0):
    p = Params(ENTRIES=entries, PROBE=min(4, entries))
    dut = LiveGhostLists(p, registered=registered)
    used = {k: 0 for k in KINDS}

    async def bench(ctx):
        prev, nxt = [NONE] * entries, [NONE] * entries
        ends = [NONE, NONE, NONE, NONE]            # head, tail, ghead, gtail
        where = {}                                 # slot -> "live" / "ghost"
        snaps = []
        lag = dut.tail_lag
        want_flush, flushes = False, 0
        idle_run, prefetched = 0, 0          # cycles since the last move; gtail2 checks

        def check(snap):
            nonlocal prefetched
            h, t, gh, gt, gc, gt2 = snap
            if ctx.get(dut.gtail2_valid) and gc >= 2:
                assert ctx.get(dut.gtail2) == gt2, "gtail2 is not prev[gtail]"
                prefetched += 1
            if idle_run >= 2 * lag:
                assert ctx.get(dut.gtail2_valid), f"no gtail2 {idle_run} cycles after a move"
            assert ctx.get(dut.empty) == (h == NONE)
            assert ctx.get(dut.gempty) == (gh == NONE)
            if h != NONE:
                assert (ctx.get(dut.head), ctx.get(dut.tail)) == (h, t)
            if gh != NONE:
                assert (ctx.get(dut.ghead), ctx.get(dut.gtail)) == (gh, gt)
            assert ctx.get(dut.gcount) == gc

        for cycle in range(n_cmds):
            if len(snaps) >= lag:
                check(snaps[-lag])
            live = [s for s, w in where.items() if w == "live"]
            ghosts = [s for s, w in where.items() if w == "ghost"]
            free = [s for s in range(entries) if s not in where]
            kinds = ["idle"]
            if free:
                kinds += ["insert_head", "insert_tail"]
            if live:
                kinds += ["touch", "touch", "to_tail", "evict", "evict"]
            if ghosts:
                kinds += ["revive_head", "revive_tail", "free", "free"]
            kind = "idle" if rng.random() < idle_rate else rng.choice(kinds)
            # A flush waits until no move is in C2 or C3 (the unit's rule), moving nothing.
            want_flush = want_flush or rng.random() < flush_rate
            flush = want_flush and not ctx.get(dut.busy)
            if want_flush:
                kind = "idle"
                want_flush = not flush
                flushes += flush
            used[kind] += 1
            h, t, gh, gt = ends
            frm, to, s = ListFrom.NONE, ListTo.NONE, 0
            if kind == "touch":
                corners = [x for x in (h, t, nxt[h] if h != NONE else NONE,
                                       prev[t] if t != NONE else NONE) if x != NONE]
                s = rng.choice(corners + [rng.choice(live)])
                frm, to = ListFrom.LIVE, ListTo.LIVE_HEAD
            elif kind == "to_tail":
                s = rng.choice([h, rng.choice(live)])
                frm, to = ListFrom.LIVE, ListTo.LIVE_TAIL
            elif kind.startswith("insert"):
                s = rng.choice(free)
                to = ListTo.LIVE_HEAD if kind.endswith("head") else ListTo.LIVE_TAIL
            elif kind.startswith("revive"):
                s = rng.choice([gh, gt, rng.choice(ghosts)])
                frm = ListFrom.GHOST
                to = ListTo.LIVE_HEAD if kind.endswith("head") else ListTo.LIVE_TAIL
            elif kind == "evict":
                s, frm, to = t, ListFrom.LIVE, ListTo.GHOST_HEAD
            elif kind == "free":
                s, frm = gt, ListFrom.GHOST
            # The model's list operations, in the order of its request loop.
            if frm == ListFrom.LIVE:
                h, t = unlink(prev, nxt, s, h, t)
            elif frm == ListFrom.GHOST:
                gh, gt = unlink(prev, nxt, s, gh, gt)
            if to == ListTo.LIVE_HEAD:
                h, t = link_at_head(prev, nxt, s, h, t)
                where[s] = "live"
            elif to == ListTo.LIVE_TAIL:
                h, t = link_at_tail(prev, nxt, s, h, t)
                where[s] = "live"
            elif to == ListTo.GHOST_HEAD:
                gh, gt = link_at_head(prev, nxt, s, gh, gt)
                where[s] = "ghost"
            elif kind != "idle":
                del where[s]
            if flush:
                prev, nxt = [NONE] * entries, [NONE] * entries
                h = t = gh = gt = NONE
                where = {}
            ends = [h, t, gh, gt]
            ctx.set(dut.cmd.valid, kind != "idle")
            ctx.set(dut.cmd.payload.slot, s)
            ctx.set(dut.cmd.payload.frm, frm)
            ctx.set(dut.cmd.payload.to, to)
            ctx.set(dut.flush, flush)
            await ctx.tick()
            idle_run = idle_run + 1 if kind == "idle" else 0
            gcount = sum(1 for w in where.values() if w == "ghost")
            snaps.append((h, t, gh, gt, gcount, prev[gt] if gcount >= 2 else NONE))
            if flush:                              # the ends are empty in the next cycle
                snaps[-lag:] = [(NONE, NONE, NONE, NONE, 0, NONE)] * lag
        ctx.set(dut.cmd.valid, 0)
        ctx.set(dut.flush, 0)
        await ctx.tick().repeat(8)                 # every pointer write has landed
        check(snaps[-1])
        banks = dut.memories

        def logical(name, s):
            return ctx.get(banks[f"{name}0"].data[s]) ^ ctx.get(banks[f"{name}1"].data[s])

        h, t, gh, gt = ends
        for head, tail, name in ((h, t, "LRU list"), (gh, gt, "ghost list")):
            expect = walk_list(prev, nxt, head, tail, entries, name)    # tail to head
            got, s = [], tail
            for _ in range(len(expect)):
                got.append(s)
                if len(got) < len(expect):
                    q = logical("prev", s)
                    assert logical("next", q) == s, f"{name}: next[prev[{s}]] != {s}"
                    s = q
            assert got == expect, name
        assert flushes > 0 or flush_rate == 0
        used["prefetched"] = prefetched

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return used


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "compact"])
@pytest.mark.parametrize("entries,flush_rate", [(4, 0.0), (16, 0.0), (16, 0.01), (2, 0.02)])
def test_lists_match_model(entries, flush_rate, registered):
    seed = f"{SEED}-lists-{entries}-{flush_rate}-{registered}"
    print(f"seed {seed}")
    used = run(entries, registered, 1000, random.Random(seed), flush_rate)
    assert all(used[k] > 10 for k in KINDS), used


@pytest.mark.parametrize("registered", [True, False], ids=["registered", "compact"])
@pytest.mark.parametrize("entries", [4, 16])
def test_gtail2_prefetch(entries, registered):
    """``gtail2``: moves with runs of idle cycles between them (as an EVICT's gap gives):
    whenever ``gtail2_valid`` it is ``prev[gtail]`` of the reference lists, and it is valid
    once ``2 * tail_lag`` cycles have passed without a move."""
    seed = f"{SEED}-gtail2-{entries}-{registered}"
    print(f"seed {seed}")
    used = run(entries, registered, 1500, random.Random(seed), 0.005, idle_rate=0.6)
    assert used["prefetched"] > 50, used


def test_lists_registered_must_be_a_bool():
    with pytest.raises(TypeError, match="registered must be a bool"):
        LiveGhostLists(Params(), registered=1)


def test_lists_observe_must_be_a_bool():
    with pytest.raises(TypeError, match="observe must be a bool"):
        LiveGhostLists(Params(), observe="yes")


@pytest.mark.parametrize("registered", [True, False])
def test_lists_observe_port_only_on_request(registered):
    """The formal views' port (formal/predictor_props.py ``ListsWellFormed``) is there with
    ``observe=True`` only, shaped as ``LruList``'s for the same pipeline."""
    from hdl.lru import LruObservationSignature
    assert "observe" not in LiveGhostLists(Params(), registered=registered).signature.members
    lists = LiveGhostLists(Params(), registered=registered, observe=True)
    assert lists.signature.members["observe"].signature.members == \
        LruObservationSignature(Params(), registered=registered).members

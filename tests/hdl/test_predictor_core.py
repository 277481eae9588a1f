# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""The core built with the predictor mode (``CoreOptions.predictor``) in amaranth.sim,
against the golden model: with ``policy`` 1 every response, statistic and the occupancy
equal ``KvAsuModel(policy="predictor")``'s on seeded random streams (OBSERVE, QUERY,
EVICT, EVICT_ANY, idle gaps, flushes); with ``policy`` 0 the build answers as the article's
model. Beside the model, a monitor checks every move the core gives its ``LiveGhostLists``
against the condition under which the lists are proven well formed (formal.md P10)."""

import os
import random

import pytest

from golden_model import KvAsuModel
from hdl.core import CoreOptions
from hdl.predictor import ListFrom, ListTo

from .harness import EVICT, EVICT_ANY, OBSERVE, QUERY, CoreBench, addr_of, small_params

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))
OPTIONS = CoreOptions(predictor=True, protection="none", hash_mul_stages=1)
CFG = dict(c3=3, c2=2, w3=2, w2=4, w1=8)


def script_of(p, rng, n, tags, evict_rate=0.12, gap_rate=0.1, max_gap=40, flushes=0):
    script = []
    recent = []
    for k in range(n):
        x = rng.random()
        tag = rng.choice(recent) if recent and rng.random() < 0.35 else rng.choice(tags)
        recent = (recent + [tag])[-4:]
        if x < evict_rate:
            script.append(("req", rng.choice((EVICT, EVICT_ANY)), rng.getrandbits(8),
                           rng.randrange(4)))
        elif x < evict_rate + 0.3:
            script.append(("req", QUERY, addr_of(p, tag) | rng.randrange(1 << p.LINE_SHIFT),
                           rng.randrange(4)))
        else:
            script.append(("req", OBSERVE, addr_of(p, tag), rng.randrange(4)))
        if rng.random() < gap_rate:
            script.append(("idle", rng.randrange(1, max_gap)))
        if flushes and (k + 1) % (n // (flushes + 1)) == 0 and k < n - 1:
            script.append(("flush",))
    return script


def loop_script(p, rng, n, tags):
    """A runtime's pattern over a loop somewhat longer than its bank (half the table): the
    bank filled first, then an EVICT after every OBSERVE (two now and then, so that the
    ghost list outgrows the live lines and an EVICT frees two ghosts; none now and then),
    QUERYs between: ghosts, revivals, probes and both frees."""
    bank = p.ENTRIES // 2
    loop = tags[:bank + bank // 3]
    script, k = [], 0
    while len(script) < n:
        tag = loop[k % len(loop)] if rng.random() < 0.9 else rng.choice(tags)
        script.append(("req", OBSERVE, addr_of(p, tag), rng.randrange(4)))
        if k >= bank:
            evicts = rng.choices((0, 1, 2, 3), (1, 6, 2, 1))[0]
            script += [("req", rng.choice((EVICT, EVICT_ANY)), 0, 0)] * evicts
        k += 1
        if rng.random() < 0.2:
            script.append(("req", QUERY, addr_of(p, rng.choice(loop)), 3))
        if rng.random() < 0.03:
            script.append(("idle", rng.randrange(1, 3 * p.WMAX << p.TICK_SHIFT)))
    return script


def ghost_rule_script(p, rng, tags, lines=8, rounds=4, evicts=6):
    """The ghost rule's candidates (P6.2, P12): ``lines`` lines OBSERVEd round after round,
    each reused ``lines`` ticks later (beyond W3, within WMAX: the key of a far reuse,
    whose ``PT`` counter every round trains down to 0), other lines behind them, EVICTs
    that make ghosts of the oldest, then each line OBSERVEd again (a revival whose
    ``PT[key]`` is 0) with an EVICT right behind it (it takes the live tail, where a
    demoted revival went)."""
    trained, filler = tags[:lines], tags[lines:2 * lines]
    gap = 1 << p.TICK_SHIFT
    script = []
    for _ in range(rounds):
        for tag in trained:
            script += [("req", OBSERVE, addr_of(p, tag), rng.randrange(4)), ("idle", gap)]
    script += [("req", OBSERVE, addr_of(p, tag), rng.randrange(4)) for tag in filler]
    script += [("req", rng.choice((EVICT, EVICT_ANY)), 0, 0) for _ in range(evicts)]
    script.append(("idle", gap))
    for tag in trained:
        script += [("req", OBSERVE, addr_of(p, tag), rng.randrange(4)),
                   ("req", rng.choice((EVICT, EVICT_ANY)), 0, 0)]
    return script


class ListMoveMonitor:
    """The core's side of the lists' proof (docs/formal.md P10, ``ListsWellFormed``): at
    every clock edge, a move given to ``core.predictor.lists`` names the list its slot is
    on once the moves given before it are done (where the proof assumes it), and a flush
    comes with no move given in the same cycle or in flight (``busy``). ``moves`` counts
    the moves seen by ``(frm, to)``, so a test can require that each kind occurred."""

    def __init__(self, core):
        self.lists = core.predictor.lists
        self.moves = {}

    async def process(self, ctx):
        lists = self.lists
        place = {}                   # each slot's list after every move given so far
        to_place = {ListTo.NONE: ListFrom.NONE, ListTo.LIVE_HEAD: ListFrom.LIVE,
                    ListTo.LIVE_TAIL: ListFrom.LIVE, ListTo.GHOST_HEAD: ListFrom.GHOST}
        async for _, rst, valid, move, flush, busy in ctx.tick().sample(
                lists.cmd.valid, lists.cmd.payload, lists.flush, lists.busy):
            if rst:
                place.clear()
                continue
            if flush:
                assert not valid and not busy, "a flush with a list move given or in flight"
                place.clear()
                continue
            if valid:
                slot, frm, to = move.slot, ListFrom(move.frm), ListTo(move.to)
                assert place.get(slot, ListFrom.NONE) == frm, \
                    f"move of slot {slot} from {frm.name}, which is on {place.get(slot, ListFrom.NONE).name}"
                place[slot] = to_place[to]
                self.moves[(frm.name, to.name)] = self.moves.get((frm.name, to.name), 0) + 1


def model_of(p, results, cfg, policy, preset=None):
    """The golden model's responses, statistics and occupancy for the bench's events, and
    how often the mode's cases occurred (revivals of a ghost, EVICTs that freed two, the
    ghost rule's candidates, of them those it demoted to the tail and those it made probes,
    OBSERVEs in loop mode)."""
    model = KvAsuModel(params=p)
    model.commit(0, policy=1 if policy else 0, **cfg)
    for name, value in (preset or {}).items():
        setattr(model._predictor, name, value)
    expected = []
    seen = {"revivals": 0, "double_frees": 0, "candidates": 0, "demoted": 0, "probes": 0,
            "loop_observes": 0}
    for ev in results["events"]:
        if ev[0] == "req":
            _, op, addr, mt, tick = ev
            state = model._predictor
            if state is not None:
                gcount = state.gcount
                tag = model.tag_of(addr)
                if op == OBSERVE and any(model._tag[s] == tag and state.ghost[s]
                                         for s in model.window_of(addr)):
                    seen["revivals"] += 1
                eps, probes = state.eps, sum(state.probe)
            expected.append(model.request(tick << p.TICK_SHIFT, op, addr, mt).as_dict())
            if state is not None and op == OBSERVE:
                seen["loop_observes"] += state.loop_mode
                if state.eps != eps:            # a candidate steps eps (P6.2)
                    seen["candidates"] += 1
                    seen["probes" if sum(state.probe) > probes else "demoted"] += 1
            if state is not None and op in (EVICT, EVICT_ANY) and expected[-1]["victim_valid"]:
                seen["double_frees"] += gcount + 1 - state.gcount == 2
        elif ev[0] == "flush":
            model.flush()
    return model, expected, seen


def check(p, results, cfg, policy, preset=None):
    model, expected, seen = model_of(p, results, cfg, policy, preset)
    got = results["responses"]
    assert len(got) == len(expected)
    for n, (g, x) in enumerate(zip(got, expected)):
        assert g == x, f"response {n}: got {g}, expected {x} ({results['events'][:n + 2][-3:]})"
    assert results["stats"] == model.stats.as_dict()
    assert results["occupancy"][-1] == model.occupancy
    return model, seen


@pytest.mark.parametrize("kind", ["small", "probe2", "tight_ts", "entries64"])
def test_predictor_build_matches_the_model(kind):
    seed = f"{SEED}-predictor-core-{kind}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    # OBSERVEs and QUERYs of the mode come one per cycle, an EVICT with two FREEs behind it
    # and 7 cycles free of list moves before it (Admission's rule for the mode): ticks of
    # 1 or 2 cycles keep W3 and W1 a few requests long, so that every class of P4 and
    # level of P5 occurs (and lines grow old enough to be replaced).
    cfg = dict(c3=3, c2=2, w3=6, w2=12, w1=30)
    if kind == "small":
        p = small_params(TS_WIDTH=8, TICK_SHIFT=1)
    elif kind == "probe2":
        p = small_params(PROBE=2, ENTRIES=8, TS_WIDTH=6, TICK_SHIFT=1, COUNT_WIDTH=2)
        cfg = dict(c3=3, c2=2, w3=3, w2=8, w1=20)
    elif kind == "tight_ts":       # the scrubber at its limit; every age near saturation
        p = small_params(TS_WIDTH=3, TICK_SHIFT=0)
        cfg = dict(c3=3, c2=2, w3=1, w2=2, w1=3)
    else:
        p = small_params(ENTRIES=64, TS_WIDTH=8, TICK_SHIFT=1)
    tags = rng.sample(range(1, 1 << 12), 3 * p.ENTRIES)
    script = script_of(p, rng, 100, tags, flushes=1) + loop_script(p, rng, 180, tags)
    bench = CoreBench(p, OPTIONS, cfg=cfg, policy=1)
    monitor = ListMoveMonitor(bench.core)
    res = bench.run(script, max_cycles=100000, monitors=[monitor.process])
    model, seen = check(p, res, cfg, True)
    s = model.stats
    print(seen, s, monitor.moves)
    # every kind of move the mode makes (rtl-predictor.md), each checked by the monitor
    assert {("NONE", "LIVE_HEAD"), ("LIVE", "LIVE_HEAD"), ("LIVE", "GHOST_HEAD"),
            ("GHOST", "NONE"), ("GHOST", "LIVE_HEAD")} <= set(monitor.moves), monitor.moves
    assert s.inserts and s.observe_hits and s.evicts and s.replacements, s
    assert seen["revivals"] > 2 and seen["double_frees"] > 0, seen
    if kind != "tight_ts":
        assert s.obs_t3 and s.obs_t1, s
    check_admission(res["accepted"], bench.core.predictor_gap)


def check_admission(accepted, gap):
    """Admission's rule for the mode: a request right behind an OBSERVE and one right
    behind a QUERY at least once (the forwarding is exercised); the request after an EVICT
    3 cycles behind it at the closest (its two FREEs between), and that exercised; an
    EVICT never within ``gap`` cycles of an OBSERVE or of an EVICT's last FREE."""
    behind = {OBSERVE: [], QUERY: [], EVICT: []}
    for (a, at), (b, bt) in zip(accepted, accepted[1:]):
        behind[EVICT if a[1] == EVICT_ANY else a[1]].append(bt - at)
    assert min(behind[OBSERVE]) == 1, behind[OBSERVE]
    assert min(behind[QUERY]) == 1, behind[QUERY]
    print("closest behind", {op: min(gaps) for op, gaps in behind.items()})
    assert min(behind[EVICT]) == 3, behind[EVICT]
    moves = []          # the acceptance cycles of list moves: OBSERVEs, EVICTs, FREEs
    for (a, at) in accepted:
        if a[1] in (EVICT, EVICT_ANY):
            assert not moves or at - moves[-1] > gap, (at, moves[-3:])
            moves += [at, at + 1, at + 2]
        elif a[1] == OBSERVE:
            moves.append(at)


def test_predictor_build_in_article_policy_matches_the_article_model():
    seed = f"{SEED}-predictor-core-article"
    print(f"seed {seed}")
    rng = random.Random(seed)
    p = small_params()
    tags = rng.sample(range(1, 1 << 12), 3 * p.ENTRIES)
    script = script_of(p, rng, 300, tags, gap_rate=0.05)
    bench = CoreBench(p, OPTIONS, cfg=CFG, policy=0)
    res = bench.run(script)
    check(p, res, CFG, False)
    assert len(res["responses"]) == 300


@pytest.mark.parametrize("preset", [{"psel": 1023}, {"psel": 515, "gsel": 63},
                                    {"psel": 0, "gsel": 63}],
                         ids=["loop_mode", "rule_on_near_loop", "rule_on"])
def test_predictor_build_from_preset_selectors(preset):
    """The selectors preset (PSEL in loop mode, or just above its threshold with GSEL's
    ghost rule on: the bimodal insertion of P11, the whole run in loop mode; PSEL below
    it with the rule on: the ghost rule of P6.2 / P12, its tail links and a probe, on
    ``ghost_rule_script``'s revivals), which a short stream from reset does not reach."""
    seed = f"{SEED}-predictor-core-preset-{sorted(preset.items())}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    p = small_params(ENTRIES=32, TS_WIDTH=8, TICK_SHIFT=4)
    cfg = dict(c3=3, c2=2, w3=6, w2=12, w1=30)
    tags = rng.sample(range(1, 1 << 12), 3 * p.ENTRIES)

    async def poke(ctx, core):
        if "psel" in preset:
            ctx.set(core.predictor.loop.psel, preset["psel"])
        if "gsel" in preset:
            ctx.set(core.predictor.guard.gsel, preset["gsel"])
        await ctx.tick()

    rule = preset["psel"] < 512
    script = (ghost_rule_script(p, rng, tags) if rule else loop_script(p, rng, 150, tags)) \
        + script_of(p, rng, 40, tags)
    bench = CoreBench(p, OPTIONS, cfg=cfg, policy=1, on_start=poke)
    monitor = ListMoveMonitor(bench.core)
    res = bench.run(script, max_cycles=100000, monitors=[monitor.process])
    model, seen = check(p, res, cfg, True, preset)
    print(seen, model.stats, monitor.moves)
    assert seen["revivals"] > 2, seen
    if rule:
        # the ghost rule ran: revivals demoted to the live tail and one made a probe, the
        # run outside loop mode, so that every ghost -> live tail move was a demotion
        assert seen["demoted"] >= 2 and seen["probes"] >= 1, seen
        assert seen["loop_observes"] == 0, seen
        assert monitor.moves.get(("GHOST", "LIVE_TAIL"), 0) == seen["demoted"], monitor.moves
    else:
        assert seen["candidates"] == 0 and seen["loop_observes"] > 0, seen

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.core.KvAsuCore in amaranth.sim: directed scenarios with hand-computed responses,
timing (fixed latency, one request per cycle), back-pressure, flush, configuration and
randomised runs against a small independent model (tests/hdl/harness.py, not the golden
model)."""

import os
import random

import pytest

from hdl.core import CoreOptions

from .harness import (BENCH_OPTIONS, EVICT, EVICT_ANY, OBSERVE, QUERY, CoreBench, addr_of,
                      check_against_ref, hash_slot, small_params, tags_in_window)

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261129"))
# The builds the benches run: the reference (one request at a time), the fast pipeline and
# the compact one of the iCE40 build, each with the shortest hash.
SERIAL = CoreOptions(serial=True, hash_mul_stages=1)
COMPACT = CoreOptions(compact=True, hash_mul_stages=1)
MODES = [pytest.param(SERIAL, id="serial"), pytest.param(BENCH_OPTIONS, id="pipelined"),
         pytest.param(COMPACT, id="compact")]

# Small windows so that every level is reachable (TICK_SHIFT = 1: a tick is 2 cycles).
CFG = dict(c3=3, c2=2, w3=2, w2=4, w1=8)


def rsp(**kw):
    """A response with every field zero except ``kw`` (decision D5)."""
    r = dict(op=0, present=0, tlevel_before=0, tracked=0, tlevel=0, hit=0, victim_valid=0,
             count=0, slot=0, victim_tag=0)
    r.update(kw)
    return r


def obs(p, tag, mt=0):
    return ("req", OBSERVE, addr_of(p, tag), mt)


def qry(p, tag, mt=0):
    return ("req", QUERY, addr_of(p, tag), mt)


SCALE = 16


def timed(*pairs):
    """``(step, item)`` pairs -> script; a step is SCALE cycles (half a tick with
    ``directed_params``), longer than a serial-mode request."""
    out = []
    for step, item in pairs:
        out += [("at", step * SCALE), item]
    return out


def directed_params(**kw):
    # TICK_SHIFT = 5: one tick is 32 cycles = 2 steps, as TICK_SHIFT = 1 with 1-cycle steps.
    return small_params(TICK_SHIFT=5, **kw)


def run(p, script, options, cfg=CFG, **kw):
    bench = CoreBench(p, options, cfg=cfg)
    res = bench.run(script, **kw)
    return bench, res


@pytest.mark.parametrize("options", MODES)
def test_levels_counts_and_cold_reset(options):
    p = directed_params()
    a = 5
    sa = hash_slot(p, a)
    script = timed(
        (0, obs(p, a)),          # t=0 insert
        (1, obs(p, a)),          # t=0 hit: before T1 (count 1), after count 2 -> T2
        (2, obs(p, a)),          # t=1 before (2, age 1) T2; after count 3 -> T3
        (3, qry(p, a, 3)),       # t=1 (3, 0): T3, hit
        (8, qry(p, a, 3)),       # t=4 age 3: > W3, C>=C2, <= W2: T2, no hit
        (12, qry(p, a, 1)),      # t=6 age 5: T1 (> W2, <= W1)
        (20, qry(p, a, 1)),      # t=10 age 9 > W1: T0, count still 3
        (22, obs(p, a, 1)),      # t=11 age 10: cold, count reset to 1
        (23, qry(p, 99, 0)),     # untracked: hit because min_tlevel 0
    )
    bench, res = run(p, script, options)
    assert [c for _, c in res["accepted"]] == [SCALE * x for x in (0, 1, 2, 3, 8, 12, 20, 22, 23)]
    got = res["responses"]
    assert got[0] == rsp(tracked=1, tlevel=1, hit=1, count=1, slot=sa)
    assert got[1] == rsp(present=1, tlevel_before=1, tracked=1, tlevel=2, hit=1, count=2, slot=sa)
    assert got[2] == rsp(present=1, tlevel_before=2, tracked=1, tlevel=3, hit=1, count=3, slot=sa)
    assert got[3] == rsp(op=1, present=1, tlevel_before=3, tracked=1, tlevel=3, hit=1, count=3,
                         slot=sa)
    assert got[4] == rsp(op=1, present=1, tlevel_before=2, tracked=1, tlevel=2, hit=0, count=3,
                         slot=sa)
    assert got[5] == rsp(op=1, present=1, tlevel_before=1, tracked=1, tlevel=1, hit=1, count=3,
                         slot=sa)
    assert got[6] == rsp(op=1, present=1, tlevel_before=0, tracked=1, tlevel=0, hit=0, count=3,
                         slot=sa)
    assert got[7] == rsp(present=1, tlevel_before=0, tracked=1, tlevel=1, hit=0, count=1, slot=sa)
    assert got[8] == rsp(op=1, hit=1)
    st = res["stats"]
    assert (st["observes"], st["observe_hits"], st["inserts"], st["queries"],
            st["query_hits"]) == (4, 3, 1, 5, 3)
    assert (st["obs_t0"], st["obs_t1"], st["obs_t2"], st["obs_t3"]) == (2, 1, 1, 0)
    assert res["occupancy"][-1] == 1


@pytest.mark.parametrize("options", MODES)
def test_window_full_drop_and_saturated_replacement(options):
    p = directed_params()
    h = 6
    t0, t1, t2, t3, t4 = tags_in_window(p, h, 5)
    slots = [(h + i) % p.ENTRIES for i in range(4)]
    script = timed(
        (0, obs(p, t0)), (1, obs(p, t1)), (2, obs(p, t2)), (3, obs(p, t3)),  # t = 0, 0, 1, 1
        (4, obs(p, t4)),          # t=2: window full, nothing T0: drop
        (10, obs(p, t0)),         # t=5: touch t0
        (50, obs(p, t4)),         # t=25: ages 20,25,24,24 all saturate to 16:
                                  # tie -> lowest offset: t0's slot, not t1 (oldest)
        (51, qry(p, t0)), (52, qry(p, t4)),
    )
    bench, res = run(p, script, options)
    got = res["responses"]
    for i in range(4):
        assert got[i] == rsp(tracked=1, tlevel=1, hit=1, count=1, slot=slots[i])
    assert got[4] == rsp(hit=1)                                   # drop
    assert got[5] == rsp(present=1, tlevel_before=1, tracked=1, tlevel=2, hit=1, count=2,
                         slot=slots[0])
    assert got[6] == rsp(tracked=1, tlevel=1, hit=1, count=1, slot=slots[0], victim_valid=1,
                         victim_tag=t0)
    assert got[7] == rsp(op=1, hit=1)                             # t0 gone
    assert got[8] == rsp(op=1, present=1, tlevel_before=1, tracked=1, tlevel=1, hit=1, count=1,
                         slot=slots[0])
    st = res["stats"]
    assert (st["inserts"], st["drops"], st["replacements"], st["observe_hits"]) == (4, 1, 1, 1)
    assert res["occupancy"][-1] == 4


@pytest.mark.parametrize("options", MODES)
def test_replacement_prefers_oldest_below_saturation(options):
    p = directed_params()
    h = 3
    t0, t1, t2, t3, t4 = tags_in_window(p, h, 5)
    slots = [(h + i) % p.ENTRIES for i in range(4)]
    script = timed(
        (0, obs(p, t0)),          # t=0
        (4, obs(p, t1)),          # t=2
        (5, obs(p, t2)),          # t=2
        (8, obs(p, t3)),          # t=4
        (26, obs(p, t4)),         # t=13: ages 13, 11, 11, 9: the oldest, t0, is T0
    )
    bench, res = run(p, script, options)
    got = res["responses"]
    assert got[4] == rsp(tracked=1, tlevel=1, hit=1, count=1, slot=slots[0], victim_valid=1,
                         victim_tag=t0)


@pytest.mark.parametrize("options", MODES)
def test_lru_order_and_evicts(options):
    p = directed_params()
    a, b, c = 10, 11, 12
    sa, sb, sc = (hash_slot(p, x) for x in (a, b, c))
    assert len({sa, sb, sc}) == 3
    script = timed(
        (0, ("req", EVICT, 0, 0)),           # empty: nothing
        (1, ("req", EVICT_ANY, 0, 0)),       # empty: nothing
        (10, obs(p, a)), (11, obs(p, b)), (12, obs(p, c)), (13, obs(p, a)),  # a c b (tail)
        (14, ("req", EVICT, 0, 3)),          # tail b is not T0: nothing
        (15, ("req", EVICT_ANY, 0, 3)),      # b
        (60, ("req", EVICT, 0, 0)),          # t=30: c is T0 (age > 8): c
        (61, ("req", EVICT_ANY, 0, 0)),      # a
        (62, ("req", EVICT_ANY, 0, 0)),      # empty
        (63, obs(p, b)),                     # b back in (same slot: window empty)
        (64, ("req", EVICT_ANY, 0, 0)),      # b
    )
    bench, res = run(p, script, options)
    got = res["responses"]
    assert got[0] == rsp(op=2) and got[1] == rsp(op=3)
    assert got[6] == rsp(op=2)
    assert got[7] == rsp(op=3, victim_valid=1, victim_tag=b, slot=sb)
    assert got[8] == rsp(op=2, victim_valid=1, victim_tag=c, slot=sc)
    assert got[9] == rsp(op=3, victim_valid=1, victim_tag=a, slot=sa)
    assert got[10] == rsp(op=3)
    assert got[11]["slot"] == sb and got[11]["tracked"] == 1
    assert got[12] == rsp(op=3, victim_valid=1, victim_tag=b, slot=sb)
    st = res["stats"]
    assert (st["evicts"], st["evicts_empty"]) == (4, 4)
    assert res["occupancy"][-1] == 0
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("options", MODES)
def test_no_aliasing_after_long_idle(options):
    # TS_WIDTH = 3: stored times wrap every 8 ticks (1 tick = 1 cycle); WMAX = 3.
    p = small_params(TS_WIDTH=3, TICK_SHIFT=0)
    cfg = dict(c3=2, c2=1, w3=1, w2=2, w1=3)
    a = 7
    sa = hash_slot(p, a)
    script = [("at", 0), obs(p, a)]
    start = 0
    for gap in (8, 16, 64, 100, 7, 9, 4, 3, 200):
        start += gap + 12 + 1
        script += [("at", start), qry(p, a), obs(p, a)]
    bench, res = run(p, script, options, cfg=cfg)
    got = res["responses"]
    for n in range(1, len(got), 2):
        q = got[n]
        assert q["present"] == 1 and q["slot"] == sa
    check_against_ref(p, res, cfg)
    # each QUERY's level before is T0 exactly when its gap since the OBSERVE before it is
    # over W1:
    ages = []
    acc = [c for _, c in res["accepted"]]
    for n in range(1, len(acc), 2):
        ages.append(acc[n] - acc[n - 1])
    for n, age in enumerate(ages):
        q = got[1 + 2 * n]
        assert (q["tlevel_before"] == 0) == (age > cfg["w1"]), (age, q)


@pytest.mark.parametrize("options", MODES)
def test_flush_and_config(options):
    p = small_params()
    script = [obs(p, x) for x in range(1, 9)] + [
        ("flush",),
        qry(p, 1), obs(p, 2),
        ("cfg", dict(c3=7, c2=7, w3=0, w2=0, w1=0)),
        ("at", 60), qry(p, 2),          # age > 0 = W1: T0
    ]
    bench, res = run(p, script, options)
    got = res["responses"]
    assert got[8] == rsp(op=1, hit=1)
    assert got[9]["tracked"] == 1 and got[9]["present"] == 0
    assert got[10]["present"] == 1 and got[10]["tlevel_before"] == 0
    assert res["occupancy"][-1] == 1


@pytest.mark.parametrize("options", MODES)
def test_flushes_by_generation(options):
    """D12: a flush starts a new table generation in one cycle (no clear sweep, the
    request stream waits only for the bench's own hold); the 16th flush finds every
    generation used and sweeps (``flushing`` for ENTRIES / PROBE cycles). Lines tracked
    before a flush are gone after it, in every generation, including after the sweep and
    into the generation numbers used again; every response against the reference."""
    from hdl.table import GEN_WIDTH
    p = small_params()
    rng = random.Random(f"{SEED}-flushes-{options}")
    print(f"seed {SEED}-flushes-{options}")
    tags = rng.sample(range(1, 1 << 12), 2 * p.ENTRIES)
    flushes = 2 ** GEN_WIDTH + 4
    script = []
    for _ in range(flushes):
        script += _random_script(p, rng, 6 if options.serial else 14, tags, gap_rate=0.05,
                                 max_gap=4)
        script.append(("flush",))
    script += _random_script(p, rng, 10, tags)
    bench, res = run(p, script, options)
    check_against_ref(p, res, CFG)
    assert res["flushing_cycles"] == p.ENTRIES // p.PROBE       # one sweep, at flush 16
    if not options.serial:
        # ready was low only for the bench's hold, the EVICT gap and the one sweep
        evict_waits = sum(1 for ev in res["events"] if ev[0] == "req" and ev[1] >= EVICT)
        assert res["stalls"] <= p.ENTRIES // p.PROBE + 7 * evict_waits + 1


@pytest.mark.parametrize("options", [BENCH_OPTIONS, COMPACT], ids=["pipelined", "compact"])
def test_one_per_cycle_fixed_latency(options):
    p = small_params()
    rng = random.Random(SEED)
    script = [("req", rng.choice((OBSERVE, QUERY)), addr_of(p, rng.randrange(1, 40)),
               rng.randrange(4)) for _ in range(200)]
    bench, res = run(p, script, options)
    acc = [c for _, c in res["accepted"]]
    assert acc == list(range(len(script)))          # one per cycle, no bubble
    lat = [r - a for a, r in zip(acc, res["rsp_cycles"])]
    assert set(lat) == {bench.core.latency}
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("hash_mul_stages", [2, 3])
def test_fixed_latency_longer_hash(hash_mul_stages):
    # The DSP hash with 2 (the default) and 3 stages per multiply: 4 cycles more per stage,
    # still one request per cycle.
    p = small_params()
    rng = random.Random(SEED + hash_mul_stages)
    script = [("req", rng.choice((OBSERVE, QUERY, EVICT)), addr_of(p, rng.randrange(1, 40)),
               rng.randrange(4)) for _ in range(150)]
    bench, res = run(p, script, CoreOptions(hash_mul_stages=hash_mul_stages))
    assert bench.core.hash_latency == 3 + 4 * hash_mul_stages
    lat = [r - a for (_, a), r in zip(res["accepted"], res["rsp_cycles"])]
    assert set(lat) == {bench.core.latency}
    check_against_ref(p, res, CFG)


def test_serial_mode_throughput():
    p = small_params()
    bench, res = run(p, [obs(p, 1), obs(p, 2), qry(p, 1)], SERIAL)
    acc = [c for _, c in res["accepted"]]
    lat = [r - a for a, r in zip(acc, res["rsp_cycles"])]
    assert set(lat) == {bench.core.latency}
    assert acc[1] - acc[0] == bench.core.latency - 1   # the next once L has emptied


def _random_script(p, rng, n, tags, evict_rate=0.1, gap_rate=0.1, max_gap=40):
    script = []
    for _ in range(n):
        x = rng.random()
        if x < evict_rate:
            script.append(("req", rng.choice((EVICT, EVICT_ANY)), rng.getrandbits(8), rng.randrange(4)))
        elif x < evict_rate + 0.35:
            script.append(("req", QUERY, addr_of(p, rng.choice(tags)) | rng.randrange(1 << p.LINE_SHIFT), rng.randrange(4)))
        else:
            script.append(("req", OBSERVE, addr_of(p, rng.choice(tags)), rng.randrange(4)))
        if rng.random() < gap_rate:
            script.append(("idle", rng.randrange(1, max_gap)))
    return script


# The serial mode differs from the pipelined one only in admission (one request in
# flight): it runs the small configuration and the scrubber at its limit (tight_ts); the
# other corners (PROBE 2 and 1, aliasing tags) change the datapath, which the pipelined and
# compact runs check.
RANDOM_RUNS = [(m, k) for k in ("small", "tight_ts", "probe2", "probe1", "tag_alias", "count1")
               for m in MODES if m.id != "serial" or k in ("small", "tight_ts")]


@pytest.mark.parametrize("options, kind",
                         [pytest.param(m.values[0], k, id=f"{k}-{m.id}") for m, k in RANDOM_RUNS])
def test_random_against_model(options, kind):
    rng = random.Random(f"{SEED}-{options}-{kind}")
    if kind == "small":
        p, cfg = small_params(), CFG
    elif kind == "tight_ts":       # scrubber at its limit: ROWS = 4 = 2**(TS-1+SHIFT)
        p, cfg = small_params(TS_WIDTH=3, TICK_SHIFT=0), dict(c3=3, c2=2, w3=1, w2=2, w1=3)
    elif kind == "probe2":
        p, cfg = small_params(PROBE=2, ENTRIES=8, TS_WIDTH=4, TICK_SHIFT=0, COUNT_WIDTH=2), \
            dict(c3=3, c2=2, w3=2, w2=4, w1=6)
    elif kind == "probe1":
        p, cfg = small_params(PROBE=1, ENTRIES=4, TS_WIDTH=4, TICK_SHIFT=1), \
            dict(c3=3, c2=2, w3=2, w2=4, w1=6)
    elif kind == "count1":         # a 1-bit count: every count and its forwards saturate at 1
        p, cfg = small_params(COUNT_WIDTH=1), dict(c3=1, c2=1, w3=2, w2=4, w1=6)
    else:                          # TAG_WIDTH 5 of 20 line bits: lines alias by their tag
        p, cfg = small_params(TAG_WIDTH=5, COUNT_WIDTH=2), CFG
    tags = rng.sample(range(1, 1 << 12), 3 * p.ENTRIES)
    if kind == "tag_alias":
        tags = [t | (rng.getrandbits(6) << 12) for t in rng.sample(range(1, 1 << 6), 12)]
    script = _random_script(p, rng, 150 if options.serial else 400, tags)
    bench, res = run(p, script, options, cfg=cfg)
    check_against_ref(p, res, cfg)


@pytest.mark.parametrize("options", MODES)
def test_backpressure_random(options):
    p = small_params()
    rng = random.Random(SEED + 7)
    tags = rng.sample(range(1, 200), 30)
    script = _random_script(p, rng, 100 if options.serial else 300, tags, gap_rate=0.03)
    pattern = [rng.random() < 0.4 for _ in range(4096)]
    stall = lambda c: pattern[c % 4096] and not (2000 < c < 2100)
    bench, res = run(p, script, options, rsp_ready=lambda c: stall(c) if c > 30 else c % 50 > 40)
    check_against_ref(p, res, CFG)


# ---- EVICT beside the observed stream (the fast and the compact pipeline) ------------------
FAST = [pytest.param(BENCH_OPTIONS, id="pipelined"), pytest.param(COMPACT, id="compact")]


@pytest.mark.parametrize("options", FAST)
def test_evict_without_waits_beside_queries(options):
    """A QUERY gives no LRU command, so an EVICT right behind one is taken in the next
    cycle; the request right behind an EVICT is taken in the next cycle too, and an
    OBSERVE of the victim's line there sees the line gone (E1b forwards the invalidate)."""
    p = directed_params()
    a, b = 10, 11
    sa, sb = hash_slot(p, a), hash_slot(p, b)
    assert abs(sa - sb) >= p.PROBE
    script = timed((0, obs(p, a)), (1, obs(p, b))) + [
        ("at", 2 * SCALE),
        qry(p, a), ("req", EVICT_ANY, 0, 0),    # pops a, the tail
        obs(p, a),                              # a again: a miss, inserted where it was
        qry(p, a), qry(p, b),
    ]
    bench, res = run(p, script, options)
    acc = [c for _, c in res["accepted"]]
    assert acc[2:] == list(range(acc[2], acc[2] + 5)), acc      # one per cycle
    got = res["responses"]
    assert got[2] == rsp(op=1, present=1, tlevel_before=1, tracked=1, tlevel=1, hit=1, count=1,
                         slot=sa)
    assert got[3] == rsp(op=3, victim_valid=1, victim_tag=a, slot=sa)
    assert got[4] == rsp(tracked=1, tlevel=1, hit=1, count=1, slot=sa)      # present=0
    assert got[5]["present"] == 1 and got[5]["slot"] == sa and got[5]["count"] == 1
    assert got[6]["present"] == 1 and got[6]["slot"] == sb
    assert res["occupancy"][-1] == 2
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("options", FAST)
@pytest.mark.parametrize("backpressure", [False, True], ids=["ready", "backpressure"])
def test_evicts_interleaved_with_queries_at_full_rate(options, backpressure):
    """EVICT and EVICT_ANY with six QUERYs between them: one request per cycle throughout
    (consumer always ready); EVICT takes nothing (no tail is T0 yet), EVICT_ANY pops the
    tails in LRU order, and every QUERY of a line already popped misses; then under
    response back-pressure."""
    p = directed_params()
    lines = [20 + k for k in range(6)]
    script = timed(*[(k, obs(p, x)) for k, x in enumerate(lines)]) + [("at", 8 * SCALE)]
    asked = []
    for k in range(len(lines) + 2):
        script.append(("req", EVICT_ANY if k % 2 else EVICT, 0, 0))
        asked.append(None)
        for j in range(6):
            script.append(qry(p, lines[(k + j) % len(lines)]))
            asked.append(lines[(k + j) % len(lines)])
    rsp_ready = (lambda c: c % 3 != 0) if backpressure else None
    bench, res = run(p, script, options, rsp_ready=rsp_ready)
    n = len(lines)
    got = res["responses"]
    assert all(r["tracked"] for r in got[:n])
    acc = [c for _, c in res["accepted"]][n:]
    if not backpressure:
        assert acc == list(range(acc[0], acc[0] + len(acc))), acc
    gone = set()
    popped = []
    for line, r in zip(asked, got[n:]):
        if line is None:
            assert r["victim_valid"] == (r["op"] == EVICT_ANY and len(popped) < n), r
            if r["victim_valid"]:
                popped.append(r["victim_tag"])
                gone.add(r["victim_tag"])
        else:
            assert r["present"] == (line not in gone), (line, r)
    assert popped == lines[:4]
    assert res["stats"]["evicts"] == 4 and res["stats"]["evicts_empty"] == 4
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("options", FAST)
def test_evict_right_after_insert_of_the_tail(options):
    """An OBSERVE that inserts into the empty list makes its line the tail; the EVICT_ANY
    after it (at the EVICT gap) pops it, and an EVICT_ANY right behind QUERYs on the
    then empty list takes nothing, in the next cycle."""
    p = directed_params()
    a = 30
    sa = hash_slot(p, a)
    script = ([("at", 0), obs(p, a), ("req", EVICT_ANY, 0, 0)] + [qry(p, a)] * 6 +
              [("req", EVICT_ANY, 0, 0), qry(p, a)])
    bench, res = run(p, script, options)
    acc = [c for _, c in res["accepted"]]
    gap = bench.core.evict_gap
    assert acc == [0] + list(range(gap + 1, gap + 10)), acc
    got = res["responses"]
    assert got[1] == rsp(op=3, victim_valid=1, victim_tag=a, slot=sa)
    assert all(r == rsp(op=1, hit=1) for r in got[2:8] + got[9:])
    assert got[8] == rsp(op=3)
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("options", FAST)
@pytest.mark.parametrize("kind", ["ready", "backpressure"])
def test_random_evict_heavy_back_to_back(options, kind):
    """A third of the requests EVICT / EVICT_ANY, the rest QUERY and OBSERVE of a few
    colliding lines, presented back to back (no idle gaps), against the model."""
    rng = random.Random(f"{SEED}-evict-heavy-{options}-{kind}")
    print(f"seed {SEED}-evict-heavy-{options}-{kind}")
    p = small_params()
    tags = rng.sample(range(1, 1 << 12), 2 * p.ENTRIES)
    script = _random_script(p, rng, 500, tags, evict_rate=0.3, gap_rate=0.0)
    if kind == "ready":
        bench, res = run(p, script, options)
    else:
        pattern = [rng.random() < 0.5 for _ in range(4096)]
        bench, res = run(p, script, options, rsp_ready=lambda c: pattern[c % 4096])
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("options", FAST)
def test_evict_burst_back_to_back(options):
    """EVICT / EVICT_ANY bursts presented back to back: the first waits EVICT_GAP cycles
    after the last OBSERVE, each next one EVICT_EVICT_GAP cycles after the one before
    (measured: one per 4 cycles in the default pipeline, per 3 in the compact one); each
    reads the tail the POPs ahead of it leave (the LRU list's chain), so the victims come
    in LRU order; a young tail is not taken by EVICT (the chain does not move), and the
    EVICTs past the end of the list find it empty. Then, with every tail T0, a burst of
    EVICTs takes them all and finds the list empty after the last."""
    p = directed_params()
    lines = [40 + k for k in range(6)]
    young = [EVICT_ANY, EVICT, EVICT_ANY, EVICT_ANY, EVICT, EVICT_ANY]
    script = [("at", 0)] + [obs(p, x) for x in lines]
    script += [("req", op, 0, 0) for op in young]
    late = 40 * 32                           # every line 40 ticks old: T0 (W1 = 8)
    script += [("at", late)] + [("req", EVICT, 0, 0)] * 4 + [("req", EVICT_ANY, 0, 0)]
    bench, res = run(p, script, options)
    core = bench.core
    acc = [c for _, c in res["accepted"]]
    n = len(lines)
    assert acc[:n] == list(range(n))                 # the OBSERVEs at one per cycle
    step = core.evict_evict_gap + 1
    first = acc[n - 1] + core.evict_gap + 1
    assert acc[n:n + len(young)] == [first + step * k for k in range(len(young))], acc
    assert acc[n + len(young):] == [late + step * k for k in range(5)], acc
    if options is BENCH_OPTIONS:
        assert step == 4 and core.evict_gap == 6
    got = res["responses"][n:]
    victims = [r["victim_tag"] if r["victim_valid"] else None for r in got]
    assert victims == [40, None, 41, 42, None, 43] + [44, 45, None, None, None], victims
    assert all(r == rsp(op=r["op"]) for r in got if not r["victim_valid"])
    assert res["stats"]["evicts"] == 6 and res["stats"]["evicts_empty"] == 5
    assert res["occupancy"][-1] == 0
    check_against_ref(p, res, CFG)


@pytest.mark.parametrize("options", FAST)
@pytest.mark.parametrize("entries", [4, 8])
def test_random_evict_bursts_short_lists(options, entries):
    """Random mixes with EVICT / EVICT_ANY bursts on short lists (the chain reaching the
    head, the list emptied in a burst, EVICTs of the empty list), presented back to back,
    against the model."""
    seed = f"{SEED}-evict-bursts-{options}-{entries}"
    rng = random.Random(seed)
    print(f"seed {seed}")
    p = small_params(ENTRIES=entries, PROBE=min(4, entries))
    tags = rng.sample(range(1, 1 << 12), 3 * entries)
    script = []
    for _ in range(60):
        for _ in range(rng.randrange(0, entries + 1)):
            script.append(("req", rng.choice([OBSERVE, OBSERVE, QUERY]),
                           addr_of(p, rng.choice(tags)), rng.randrange(4)))
        for _ in range(rng.randrange(1, entries + 3)):
            if rng.random() < 0.2:
                script.append(qry(p, rng.choice(tags)))
            script.append(("req", rng.choice([EVICT, EVICT_ANY, EVICT_ANY]), 0, 0))
    bench, res = run(p, script, options)
    evicts = [r for r in res["responses"] if r["op"] in (EVICT, EVICT_ANY)]
    assert sum(r["victim_valid"] for r in evicts) > 50
    assert sum(not r["victim_valid"] for r in evicts) > 20
    check_against_ref(p, res, CFG)


def test_pipeline_timing_of_the_builds():
    """``PipelineTiming``: the cycle counts docs/rtl.md states for the fast pipeline
    (hash latency 11: R at a+12, M, E1a, E1b, E2, L, the FIFO's two cycles) and the compact
    one, and the predictor mode's gap; a wrong argument is refused."""
    from hdl.core import PipelineTiming
    fast = PipelineTiming(CoreOptions(), 11)
    assert (fast.eval_lag, fast.latency, fast.fifo_depth, fast.decision_lag) == (14, 19, 21, 16)
    assert (fast.evict_gap, fast.evict_evict_gap, fast.predictor_gap) == (6, 3, None)
    assert PipelineTiming(CoreOptions(predictor=True, protection="none"), 11).predictor_gap == 7
    compact = PipelineTiming(CoreOptions(compact=True), 11)
    assert (compact.latency, compact.evict_gap, compact.evict_evict_gap) == (16, 2, 2)
    # L's statistics, and a drop's one cycle before them (D13)
    assert (fast.stat_lag, fast.drop_stat_lag) == (17, 16)
    assert (compact.stat_lag, compact.drop_stat_lag) == (14, 13)
    with pytest.raises(TypeError, match="CoreOptions"):
        PipelineTiming({"compact": True}, 11)
    with pytest.raises(ValueError, match="hash_latency"):
        PipelineTiming(CoreOptions(), -1)
    for bad in ("a", True, 11.0):
        with pytest.raises(TypeError, match="hash_latency"):
            PipelineTiming(CoreOptions(), bad)


def test_the_protection_built():
    """``CoreOptions.built_protection``: the options' protection in the fast pipeline, none
    in the compact one (which the core and the register block are built with)."""
    assert CoreOptions().built_protection == "auto"
    assert CoreOptions(protection="parity").built_protection == "parity"
    assert CoreOptions(protection="none").built_protection == "none"
    assert CoreOptions(compact=True).built_protection == "none"

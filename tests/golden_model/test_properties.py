# SPDX-License-Identifier: Apache-2.0
"""Properties of the golden model on random request streams (hypothesis and seeded random).

After every request: the LRU list is a valid doubly linked list of exactly the tracked
slots, ordered by last access; no line is tracked twice and each sits in its own window;
occupancy matches; the statistics add up; and the response and the whole table agree with
a naive re-reading of the spec (``helpers.ReferenceModel``).
"""

import random

import numpy as np
import pytest
from hypothesis import given, strategies as st

from golden_model import KvAsuModel, Op, Response
from regmap import Params

from .helpers import PROPERTY_SETTINGS, ReferenceModel


@st.composite
def small_params(draw):
    entries = draw(st.sampled_from([8, 16, 32]))
    probe = draw(st.sampled_from([1, 2, 4]))
    return Params(ENTRIES=entries, PROBE=probe, ADDR_WIDTH=32, LINE_SHIFT=4,
                  TAG_WIDTH=draw(st.sampled_from([3, 6, 28])),
                  COUNT_WIDTH=draw(st.sampled_from([1, 2, 3, 16])),
                  TS_WIDTH=draw(st.sampled_from([2, 3, 4, 8])),
                  TICK_SHIFT=draw(st.integers(0, 2)))


@st.composite
def legal_config(draw, params):
    c3 = draw(st.integers(1, min(params.COUNT_MAX, 6)))
    c2 = draw(st.integers(1, c3))
    w1 = draw(st.integers(0, params.WMAX))
    w2 = draw(st.integers(0, w1))
    w3 = draw(st.integers(0, w2))
    config = {"c3": c3, "c2": c2, "w3": w3, "w2": w2, "w1": w1,
              "hash_seed": draw(st.sampled_from([0, 1, 0xFFFF_FFFF]))}
    keys = draw(st.sets(st.sampled_from(sorted(config)), min_size=1))
    return {key: config[key] for key in keys}


def gap_strategy(params):
    tick = 1 << params.TICK_SHIFT
    wrap = (1 << params.TS_WIDTH) * tick          # one period of the stored timestamp
    return st.one_of(
        st.sampled_from([0, 1, tick, (params.WMAX + 1) * tick, wrap, 3 * wrap, 10**6]),
        st.integers(0, 4 * tick), st.integers(0, 2 * wrap))


@st.composite
def scenario(draw):
    params = draw(small_params())
    pool_size = draw(st.integers(2, 3 * params.ENTRIES))
    pool = draw(st.lists(st.integers(0, 2**32 - 1), min_size=pool_size, max_size=pool_size))
    step = st.one_of(
        st.tuples(st.just("request"), gap_strategy(params),
                  st.sampled_from([Op.OBSERVE] * 5 + [Op.QUERY] * 3 + [Op.EVICT, Op.EVICT_ANY]),
                  st.integers(0, pool_size - 1), st.integers(0, 3)),
        st.tuples(st.just("commit"), legal_config(params)),
        st.tuples(st.just("flush")),
        st.tuples(st.just("clear_stats")),
    )
    steps = draw(st.lists(step, min_size=1, max_size=120))
    return params, pool, steps


def check_stats_add_up(model):
    s = model.stats
    assert s.observes == s.inserts + s.replacements + s.drops + s.observe_hits
    assert s.observes == s.obs_t0 + s.obs_t1 + s.obs_t2 + s.obs_t3
    assert s.queries >= s.query_hits


def check_response(model, params, r, addr, cycle):
    """What a response says must be true of the table right after it."""
    assert all(isinstance(v, int) for v in r)
    if r.op in (Op.OBSERVE, Op.QUERY):
        where = model.find(addr)
        assert r.tracked == int(where is not None)
        if r.tracked:
            state = model.slot_state(r.slot)
            assert where == r.slot and state.count == r.count
            if r.op == Op.OBSERVE:
                assert state.last == cycle >> params.TICK_SHIFT and model.head == r.slot
        else:
            assert (r.slot, r.count, r.tlevel) == (0, 0, 0)
        if r.op == Op.QUERY:
            assert (r.tracked, r.tlevel) == (r.present, r.tlevel_before)
    else:
        assert (r.present, r.tlevel_before, r.tracked, r.tlevel, r.count, r.hit) == (0,) * 6
        if r.victim_valid:
            assert model.slot_state(r.slot).valid == 0
    if not r.victim_valid:
        assert r.victim_tag == 0
    assert 0 <= r.count <= params.COUNT_MAX and 0 <= r.slot < params.ENTRIES


@PROPERTY_SETTINGS
@given(scenario())
def test_random_streams_keep_every_invariant(case):
    params, pool, steps = case
    model, reference = KvAsuModel(params=params), ReferenceModel(params)
    cycle = 0
    for step in steps:
        if step[0] == "request":
            _, gap, op, index, min_tlevel = step
            cycle += gap
            addr = (pool[index] << params.LINE_SHIFT) | (index % (1 << params.LINE_SHIFT))
            occupancy = model.occupancy
            r = model.request(cycle, op, addr, min_tlevel)
            assert r == reference.request(cycle, op, addr, min_tlevel), (step, r)
            check_response(model, params, r, addr, cycle)
            assert model.occupancy - occupancy == int(
                r.op == Op.OBSERVE and r.tracked and not r.present and not r.victim_valid
            ) - int(r.op in (Op.EVICT, Op.EVICT_ANY) and r.victim_valid)
        elif step[0] == "commit":
            # a subset of keys merged with the active set may be illegal: then nothing changes
            merged = {**reference.config, **step[1]}
            legal = (1 <= merged["c2"] <= merged["c3"] <= params.COUNT_MAX
                     and 0 <= merged["w3"] <= merged["w2"] <= merged["w1"] <= params.WMAX)
            if legal:
                model.commit(cycle, **step[1])
                reference.commit(**step[1])
            else:
                with pytest.raises(ValueError, match="illegal configuration"):
                    model.commit(cycle, **step[1])
        elif step[0] == "flush":
            model.flush()
            reference.flush()
        else:
            model.clear_stats()
            reference.stats = dict.fromkeys(reference.stats, 0)
        model.check_invariants()
        assert model.lru_order() == reference.lru
        assert [s.tag if s.valid else None for s in model.slot_states()] == \
            [line and line["tag"] for line in reference.slots]
        assert model.stats.as_dict() == reference.stats
        assert model.config.as_dict() == reference.config
        check_stats_add_up(model)


@PROPERTY_SETTINGS
@given(scenario())
def test_query_right_after_observe_reports_the_line(case):
    params, pool, steps = case
    model = KvAsuModel(params=params)
    cycle = 0
    for step in steps:
        if step[0] != "request":
            continue
        _, gap, op, index, min_tlevel = step
        cycle += gap
        addr = pool[index] << params.LINE_SHIFT
        r = model.request(cycle, Op.OBSERVE, addr, min_tlevel)
        q = model.request(cycle, Op.QUERY, addr, min_tlevel)
        assert (q.present, q.tracked) == (r.tracked, r.tracked)
        if r.tracked:
            assert (q.count, q.slot, q.tlevel_before, q.tlevel) == (
                r.count, r.slot, r.tlevel, r.tlevel)


def random_stream(rng, params, n):
    """A random request stream with collisions, aliasing, idle gaps and every op.

    Half the line pool is random; the other half is lines that share three windows (with
    the reset seed), so that windows fill, replace and drop even in a 2048-slot table.
    """
    line_bits = min(params.ADDR_WIDTH - params.LINE_SHIFT, 70)
    pool = [rng.getrandbits(line_bits) for _ in range(rng.choice([8, params.ENTRIES]))]
    probe_model = KvAsuModel(params=params)
    homes = {rng.randrange(params.ENTRIES): 0 for _ in range(3)}
    while any(found < params.PROBE + 3 for found in homes.values()):
        line = rng.getrandbits(line_bits)
        home = probe_model.home_of(line << params.LINE_SHIFT)
        if home in homes and homes[home] < params.PROBE + 3:
            homes[home] += 1
            pool.append(line)
    tick = 1 << params.TICK_SHIFT
    cycles, ops, addrs, mins, cycle = [], [], [], [], 0
    for _ in range(n):
        roll = rng.random()
        cycle += (rng.choice([10**6, (1 << params.TS_WIDTH) * tick]) if roll < 0.002 else
                  rng.randrange(0, 300 * tick) if roll < 0.05 else rng.randrange(0, 2 * tick))
        cycles.append(cycle)
        ops.append(rng.choices([0, 1, 2, 3], [55, 30, 10, 5])[0])
        # bits above ADDR_WIDTH do not exist: add some (within 64 bits for numpy's sake,
        # unless ADDR_WIDTH is wider)
        high = rng.getrandbits(max(64 - params.ADDR_WIDTH, 4 if params.ADDR_WIDTH > 64 else 0))
        addrs.append((high << params.ADDR_WIDTH) | (rng.choice(pool) << params.LINE_SHIFT)
                     | rng.getrandbits(params.LINE_SHIFT))
        mins.append(rng.randrange(4))
    return cycles, ops, addrs, mins


PARAM_SETS = [
    Params(),
    Params(ENTRIES=16, PROBE=4, TICK_SHIFT=0),
    Params(ENTRIES=32, PROBE=2, TS_WIDTH=4, COUNT_WIDTH=3, TICK_SHIFT=1),
    Params(ENTRIES=8, PROBE=8, ADDR_WIDTH=24, LINE_SHIFT=6, TAG_WIDTH=5),
    Params(ENTRIES=64, PROBE=1, ADDR_WIDTH=100, LINE_SHIFT=8, TAG_WIDTH=64),
]


def test_long_random_streams_match_the_reference(seed):
    rng = random.Random(seed)
    for params in PARAM_SETS:
        model, reference = KvAsuModel(params=params), ReferenceModel(params)
        cycles, ops, addrs, mins = random_stream(rng, params, 3000)
        for i, request in enumerate(zip(cycles, ops, addrs, mins)):
            if i % 1000 == 500:
                config = {"c3": 2, "c2": 1, "w1": params.WMAX, "w2": 3, "w3": 1,
                          "hash_seed": rng.getrandbits(32)}
                model.commit(request[0], **config)
                reference.commit(**config)
            assert model.request(*request) == reference.request(*request), (params, i)
        model.check_invariants()
        assert model.lru_order() == reference.lru
        assert model.stats.as_dict() == reference.stats
        check_stats_add_up(model)


def test_run_equals_request_by_request(seed):
    # the fast path and request() share one implementation; check them anyway, with
    # numpy arrays and with lists, and with state carried over between calls
    rng = random.Random(seed)
    for params in PARAM_SETS:
        stream = random_stream(rng, params, 4000)
        one, bulk = KvAsuModel(params=params), KvAsuModel(params=params)
        expected = [one.request(*request) for request in zip(*stream)]
        half = 2000
        got = bulk.run(*(column[:half] for column in stream), responses=True)
        if params.ADDR_WIDTH <= 64:
            rest = [np.array(column[half:], dtype=np.uint64) for column in stream]
        else:
            rest = [column[half:] for column in stream]
        got += bulk.run(*rest, responses=True)
        assert got == expected
        assert all(type(r) is Response for r in got)
        assert bulk.stats == one.stats and bulk.lru_order() == one.lru_order()
        assert bulk.slot_states() == one.slot_states() and bulk.cycle == one.cycle
        fast = KvAsuModel(params=params)
        assert fast.run(*stream) is None
        assert fast.stats == one.stats and fast.slot_states() == one.slot_states()

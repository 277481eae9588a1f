# SPDX-License-Identifier: Apache-2.0
"""The golden model's soft-error recovery (decision D11): ``on_error``, ``end_recovery``,
``soft_errors``, ``clear_soft_errors``."""

import random

import pytest

from golden_model import KvAsuModel, Op
from golden_model.soft_errors import MEM_IDS
from regmap import STAT_NAMES

SMALL = dict(entries=16, probe=4, addr_width=32, line_shift=8, count_width=4, ts_width=4,
             tick_shift=1)


def traffic(rng, n, start=0, lines=40):
    """``n`` mixed requests (cycle, op, addr, min_tlevel) over ``lines`` lines."""
    out, cycle = [], start
    for _ in range(n):
        cycle += rng.choice((0, 1, 1, 2, 5, 40))
        op = rng.choice((Op.OBSERVE,) * 5 + (Op.QUERY,) * 3 + (Op.EVICT, Op.EVICT_ANY))
        out.append((cycle, int(op), rng.randrange(lines) << 8, rng.randrange(4)))
    return out


def answer(model, reqs):
    return [model.request(*r) for r in reqs]


def test_corrected_error_changes_no_response(seed):
    rng = random.Random(seed)
    before, after = traffic(rng, 300), traffic(rng, 300, start=10_000)
    clean, hit = KvAsuModel(**SMALL), KvAsuModel(**SMALL)
    assert answer(clean, before) == answer(hit, before)
    hit.on_error("ent", 5, corrected=True, cycle=9_000)
    assert answer(clean, after) == answer(hit, after)
    assert clean.stats == hit.stats
    soft = hit.soft_errors
    assert (soft.sticky, soft.recovering, soft.uncorrected, soft.corrected) == \
        (False, False, 0, 1)
    assert (soft.first.memory, soft.first.address, soft.first.uncorrectable,
            soft.first.cycle, soft.first.mem_id) == ("ent", 5, False, 9_000, MEM_IDS["ent"])


@pytest.mark.parametrize("memory", ["ent", "meta", "mark", "scrub", "prev0", "next1"])
def test_uncorrectable_error_forgets_everything_and_answers_untracked(memory, seed):
    rng = random.Random(seed)
    model = KvAsuModel(**SMALL)
    answer(model, traffic(rng, 400))
    assert model.occupancy > 0
    tracked = [s.tag << 8 for s in model.slot_states() if s.valid]
    stats_before = model.stats.as_dict()
    model.on_error(memory, 3, cycle=5_000)
    assert model.occupancy == 0 and model.head is None and model.tail is None
    # The requests between acceptance and decision at detection: untracked, no effect.
    t = model.cycle + 1
    gray = [(t, int(Op.OBSERVE), tracked[0], 0), (t + 1, int(Op.QUERY), tracked[0], 0),
            (t + 2, int(Op.QUERY), tracked[0], 1), (t + 3, int(Op.EVICT_ANY), 0, 0),
            (t + 4, int(Op.OBSERVE), 0x7700, 2)]
    rsps = answer(model, gray)
    for rsp, (_, op, _, mt) in zip(rsps, gray):
        assert (rsp.op, rsp.present, rsp.tracked, rsp.count, rsp.slot, rsp.victim_valid,
                rsp.victim_tag) == (op, 0, 0, 0, 0, 0, 0)
        assert rsp.hit == (int(mt == 0) if op != Op.EVICT_ANY else 0)
    assert model.occupancy == 0          # no effect: the OBSERVEs inserted nothing
    delta = {k: v - stats_before[k] for k, v in model.stats.as_dict().items()}
    assert delta == dict.fromkeys(STAT_NAMES, 0) | dict(
        observes=2, drops=2, obs_t0=2, queries=2, query_hits=1, evicts_empty=1)
    soft = model.soft_errors
    assert (soft.sticky, soft.recovering, soft.uncorrected) == (True, True, 1)
    assert (soft.first.memory, soft.first.address, soft.first.uncorrectable) == \
        (memory, 3, True)
    model.end_recovery()
    assert not model.soft_errors.recovering
    # Afterwards the block is empty and works normally: a line tracked before is new.
    rsp = model.request(t + 10, Op.OBSERVE, tracked[0])
    assert (rsp.present, rsp.tracked, rsp.count) == (0, 1, 1)
    model.check_invariants()


def test_after_recovery_the_model_answers_as_a_flushed_one(seed):
    rng = random.Random(seed)
    before, after = traffic(rng, 500), traffic(rng, 500, start=20_000)
    recovered, flushed = KvAsuModel(**SMALL), KvAsuModel(**SMALL)
    answer(recovered, before)
    answer(flushed, before)
    recovered.on_error("prev1", 7)
    recovered.end_recovery()
    flushed.flush()
    assert answer(recovered, after) == answer(flushed, after)
    recovered.check_invariants()


def test_run_fast_path_follows_the_recovery(seed):
    rng = random.Random(seed)
    reqs = traffic(rng, 200)
    one, many = KvAsuModel(**SMALL), KvAsuModel(**SMALL)
    for model in (one, many):
        answer(model, traffic(random.Random(seed + 1), 100))
        model.on_error("meta", 2)
    cols = list(zip(*[(c + one.cycle, op, a, m) for c, op, a, m in reqs]))
    expected = [one.request(*r) for r in zip(*cols)]
    assert many.run(*cols, responses=True) == expected
    assert one.stats == many.stats
    assert all(r.victim_valid == 0 and r.tracked == 0 for r in expected)


def test_an_error_during_a_recovery_belongs_to_it():
    model = KvAsuModel(**SMALL)
    model.request(0, Op.OBSERVE, 0x100)
    model.on_error("next0", 1, cycle=10)
    model.on_error("ent", 4, cycle=11)          # the sweep rewrites this word too
    soft = model.soft_errors
    assert soft.uncorrected == 1 and soft.first.memory == "next0"
    model.end_recovery()
    with pytest.raises(ValueError, match="no recovery"):
        model.end_recovery()


def test_uncorrectable_statistics_word_restarts_that_counter_only():
    model = KvAsuModel(**SMALL)
    for c in range(20):
        model.request(c, Op.OBSERVE, (c % 5) << 8)
    stats = model.stats.as_dict()
    index = STAT_NAMES.index("observe_hits")
    model.on_error("stats", index)
    assert model.stats.as_dict() == stats | {"observe_hits": 0}
    assert model.occupancy == 5 and not model.soft_errors.recovering
    assert model.soft_errors.sticky


def test_first_error_rule_and_clear():
    model = KvAsuModel(**SMALL)
    model.on_error("mark", 2, corrected=True)
    model.on_error("scrub", 9, corrected=True)
    assert model.soft_errors.first.memory == "mark"        # the first stays first
    model.on_error("stats", 0)
    first = model.soft_errors.first
    assert (first.memory, first.uncorrectable) == ("stats", True)   # uncorrectable wins
    model.on_error("meta", 1, corrected=True)
    assert model.soft_errors.first.memory == "stats"
    assert (model.soft_errors.corrected, model.soft_errors.uncorrected) == (3, 1)
    model.clear_soft_errors()
    soft = model.soft_errors
    assert (soft.sticky, soft.corrected, soft.uncorrected, soft.first) == (False, 0, 0, None)
    model.on_error("ent", 0)
    model.reset()                                          # D10: reset clears all
    soft = model.soft_errors
    assert (soft.sticky, soft.recovering, soft.uncorrected, soft.first) == (False, False, 0, None)


def test_on_error_refuses_bad_arguments_and_changes_nothing():
    model = KvAsuModel(**SMALL)
    model.request(0, Op.OBSERVE, 0x100)
    with pytest.raises(ValueError, match="memory must be one of"):
        model.on_error("tags", 0)
    with pytest.raises(ValueError):
        model.on_error("ent", 16)                 # 16 slots
    with pytest.raises(ValueError):
        model.on_error("stats", len(STAT_NAMES))
    with pytest.raises(TypeError):
        model.on_error("ent", 0, corrected=1)
    assert model.occupancy == 1 and model.soft_errors.first is None

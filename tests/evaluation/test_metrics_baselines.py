# SPDX-License-Identifier: Apache-2.0
"""Metrics on hand-made examples; baselines' ordering on random traces."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from evaluation.baselines import simulate_belady, simulate_fifo, simulate_lru
from evaluation.metrics import LatencyModel, classify, next_use_index, reuse_within


def test_next_use_and_reuse_within():
    keys = np.array([5, 7, 5, 5, 7, 9])
    cyc = np.array([0, 10, 50, 300, 320, 321])
    assert next_use_index(keys).tolist() == [2, 4, 3, 6, 6, 6]
    assert reuse_within(keys, cyc, 100).tolist() == [True, False, False, False, False, False]
    assert reuse_within(keys, cyc, 310).tolist() == [True, True, True, False, False, False]


def test_classify_hand_example():
    pred = np.array([1, 1, 0, 0, 1, 0], bool)
    lab = np.array([1, 0, 0, 1, 1, 0], bool)
    c = classify(pred, lab)
    # tp=2 fp=1 fn=1 tn=2
    assert c.accuracy == pytest.approx(4 / 6)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(2 / 3)
    assert c.base_rate == pytest.approx(0.5)
    assert c.trivial_accuracy == pytest.approx(0.5)
    z = classify(np.zeros(4, bool), np.array([0, 0, 0, 1], bool))
    assert (z.precision, z.recall, z.f1, z.accuracy, z.trivial_accuracy) == (0.0, 0.0, 0.0, 0.75, 0.75)


def test_latency_model():
    m = LatencyModel(bank_cycles=10, dram_cycles=100, dram_bytes_per_cycle=128, line_bytes=256)
    assert m.miss_cycles == 102
    assert m.mean(3, 1) == pytest.approx((30 + 102) / 4)
    assert m.mean(0, 0) == 0.0


def test_lru_fifo_belady_hand_example():
    seq = [1, 2, 1, 3, 2, 1]
    assert simulate_lru(seq, 2).tolist() == [False, False, True, False, False, False]
    # FIFO: the hit on 1 does not refresh it, so 3 evicts 1 and 2 still hits.
    assert simulate_fifo(seq, 2).tolist() == [False, False, True, False, True, False]
    # MIN: 3 is never used again, so it bypasses the cache; 2 and 1 then both hit.
    assert simulate_belady(seq, 2).tolist() == [False, False, True, False, True, True]
    # Without the bypass option (3 used again later), MIN evicts the farther next use.
    assert simulate_belady([1, 2, 3, 1, 3, 2], 2).tolist() == [False, False, False, True, True, False]
    # writes are never hits
    assert not simulate_lru([1, 1], 2, is_write=np.array([True, True])).any()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=200), st.integers(1, 8), st.integers(0, 2**16))
def test_belady_is_an_upper_bound(seq, cap, wseed):
    w = np.random.default_rng(wseed).random(len(seq)) < 0.2
    first = np.zeros(len(seq), bool)
    first[np.unique(seq, return_index=True)[1]] = True
    # Over every reference, MIN bounds the read hits when writes are first accesses only
    # (module docstring of evaluation.baselines); the read-optimal MIN bounds them always.
    for writes, b in ((w & first, simulate_belady(seq, cap, w & first).sum()),
                      (w, simulate_belady(seq, cap, w, read_optimal=True).sum())):
        assert b >= simulate_lru(seq, cap, writes).sum()
        assert b >= simulate_fifo(seq, cap, writes).sum()


def test_belady_beats_lru_on_a_scan():
    seq = list(range(5)) * 20  # cyclic scan larger than the cache: LRU never hits
    assert simulate_lru(seq, 4).sum() == 0
    assert simulate_belady(seq, 4).sum() > 40


def _min_by_scan(seq, cap):
    """Belady's MIN with bypass, written plainly: on a miss into a full bank, find the line
    used farthest ahead (the incoming one included) by scanning ahead."""
    resident, hits = set(), []
    for i, x in enumerate(seq):
        if x in resident:
            hits.append(True)
            continue
        hits.append(False)
        if len(resident) < cap:
            resident.add(x)
            continue

        def next_use(y):
            for j in range(i + 1, len(seq)):
                if seq[j] == y:
                    return j
            return len(seq)
        far = max(resident, key=next_use)
        if next_use(far) > next_use(x):
            resident.remove(far)
            resident.add(x)
    return hits


@pytest.mark.parametrize("seed", [1, 2])
def test_belady_hits_as_many_as_min_over_a_long_stream(seed):
    """Long enough for the heap to be rebuilt many times (it is at 4 096 entries): the same
    hit count as a plain MIN (ties between lines used equally far ahead may pick another
    victim, not another count)."""
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    seq = (rng.zipf(1.3, 12000) % 300).tolist()
    assert simulate_belady(seq, 6).sum() == sum(_min_by_scan(seq, 6))


def test_reuse_within_reads_cycles_as_the_64_bit_counter():
    keys = [1, 1]
    # A gap of 2**63 cycles or more is no reuse (an int64 difference wrapped negative).
    assert reuse_within(keys, np.array([0, 2**63 + 5], np.uint64), 100).tolist() == [False, False]
    assert reuse_within(keys, [0, 2**63 + 5], 100).tolist() == [False, False]  # Python ints
    assert reuse_within(keys, np.array([0, 2**64 - 1], np.uint64), 100).tolist() == [False, False]
    # At the top of the counter, and across 2**63, a short gap is a reuse.
    assert reuse_within(keys, np.array([2**64 - 10, 2**64 - 1], np.uint64), 100).tolist() == [True, False]
    assert reuse_within(keys, np.array([2**63 - 3, 2**63 + 3], np.uint64), 6).tolist() == [True, False]
    assert reuse_within(keys, np.array([2**63 - 3, 2**63 + 3], np.uint64), 5).tolist() == [False, False]
    # int64 cycles (as some callers cast them) are read as the same 64 bits.
    wrapped = np.array([2**63 - 3, 2**63 + 3], np.uint64).astype(np.int64)
    assert reuse_within(keys, wrapped, 6).tolist() == [True, False]


def test_reuse_within_edges_and_bad_arguments():
    assert reuse_within([], [], 100).tolist() == []
    assert reuse_within([7], [0], 100).tolist() == [False]
    assert reuse_within([7, 7, 7], [0, 100, 201], 100).tolist() == [True, False, False]  # <= window
    assert reuse_within([7, 7], [5, 5], 0).tolist() == [True, False]
    with pytest.raises(ValueError, match="window"):
        reuse_within([1, 1], [0, 1], -1)
    with pytest.raises(ValueError, match="length"):
        reuse_within([1, 1], [0], 100)


@pytest.mark.parametrize("fn", [simulate_lru, simulate_fifo, simulate_belady])
def test_baselines_refuse_an_is_write_of_another_length(fn):
    # A shorter is_write used to end the simulation there: the reads after it never hit.
    with pytest.raises(ValueError, match="is_write"):
        fn([1, 1, 1, 1], 2, [True])
    with pytest.raises(ValueError, match="is_write"):
        fn([1, 1], 2, [False] * 3)
    with pytest.raises(TypeError, match="capacity"):
        fn([1, 1], 1.5)
    with pytest.raises(ValueError, match="capacity"):
        fn([1, 1], 0)


@pytest.mark.parametrize("fn", [simulate_lru, simulate_fifo, simulate_belady])
def test_baselines_on_degenerate_streams(fn):
    assert fn([], 4).tolist() == []
    assert fn([9], 1).tolist() == [False]
    assert fn([3] * 5, 1).tolist() == [False, True, True, True, True]  # one distinct line
    assert not fn(list(range(50)), 4).any()  # no reuse
    assert fn([3, 3], 1, [True, False]).tolist() == [False, True]  # a write installs its line


def test_classify_edges():
    e = classify(np.zeros(0, bool), np.zeros(0, bool))
    assert (e.n, e.accuracy, e.mcc) == (0, 0.0, 0.0)
    c = classify(np.array([1, 0, 1, 0], bool), np.ones(4, bool))  # constant label: MCC undefined, 0
    assert (c.base_rate, c.mcc, c.recall) == (1.0, 0.0, 0.5)
    perfect = classify(np.array([1, 0, 1, 0], bool), np.array([1, 0, 1, 0], bool))
    assert perfect.mcc == pytest.approx(1.0)
    inverse = classify(np.array([1, 0, 1, 0], bool), np.array([0, 1, 0, 1], bool))
    assert inverse.mcc == pytest.approx(-1.0)


def _most_read_hits(seq, writes, cap):
    """The most read hits of any bank of ``cap`` lines (any victim, bypass allowed), by
    trying every choice."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def best(i, bank):
        if i == len(seq):
            return 0
        x = seq[i]
        if x in bank:
            return (not writes[i]) + best(i + 1, bank)
        options = [best(i + 1, bank)]  # bypass
        if len(bank) < cap:
            options.append(best(i + 1, bank | {x}))
        options += [best(i + 1, (bank - {y}) | {x}) for y in bank]
        return max(options)
    return best(0, frozenset())


def test_belady_read_optimal_is_the_most_read_hits():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 10))
        seq = rng.integers(0, 4, n).tolist()
        writes = (rng.random(n) < 0.35).tolist()
        cap = int(rng.integers(1, 3))
        got = int(simulate_belady(seq, cap, writes, read_optimal=True).sum())
        assert got == _most_read_hits(tuple(seq), tuple(writes), cap), (seq, writes, cap)
        assert got >= simulate_lru(seq, cap, writes).sum() and got >= simulate_fifo(seq, cap, writes).sum()


def test_belady_over_all_references_when_lines_are_written_again():
    # Line 2 is written again at the end: MIN keeps it for that write, worth no read hit,
    # and FIFO gets a read hit more. The read-optimal MIN does not lose it.
    seq = [5, 5, 0, 3, 2, 1, 3, 0, 1, 2, 2]
    writes = [0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    assert simulate_belady(seq, 3, writes).sum() == 3
    assert simulate_fifo(seq, 3, writes).sum() == 4
    assert simulate_belady(seq, 3, writes, read_optimal=True).sum() == _most_read_hits(tuple(seq), tuple(writes), 3)
    # Where every write is its line's first access, the two are the same.
    rng = np.random.default_rng(3)
    seq = rng.integers(0, 30, 2000)
    first = np.zeros(len(seq), bool)
    first[np.unique(seq, return_index=True)[1]] = True
    writes = first & (rng.random(len(seq)) < 0.5)
    assert np.array_equal(simulate_belady(seq, 8, writes), simulate_belady(seq, 8, writes, read_optimal=True))

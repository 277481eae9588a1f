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
    b = simulate_belady(seq, cap, w).sum()
    assert b >= simulate_lru(seq, cap, w).sum()
    assert b >= simulate_fifo(seq, cap, w).sum()


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

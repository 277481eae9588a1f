# SPDX-License-Identifier: Apache-2.0
"""evaluation.reuse_features: its replay of P4's table is the block's, and its filter."""

import random

import numpy as np
import pytest

from evaluation import reuse_features as rf
from golden_model import KvAsuModel, Op


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replayed_table_answers_as_the_predictor_mode(seed):
    """Where no line is forgotten, the replay's answers are the model's OBSERVE answers."""
    print(f"seed {seed}")
    rng = random.Random(seed)
    lines = rng.sample(range(1 << 20), 40)
    stream, cycle = [], 0
    for _ in range(3000):
        cycle += rng.choice([1, 2, 5, 20, 60, 90, 150, 400, 700])
        stream.append((rng.choice(lines[:rng.choice([5, 40])]), cycle))
    line_arr = np.array([line for line, _ in stream], np.int64)
    cycle_arr = np.array([c for _, c in stream], np.int64)
    model = KvAsuModel(policy="predictor")
    answers = []
    for line, c in stream:
        r = model.request(c, Op.OBSERVE, line << model.params.LINE_SHIFT)
        assert r.tracked
        answers.append(r.tlevel >= 3)
    k = rf.keys(line_arr, cycle_arr)
    replay = rf.online_answers(line_arr, k["key"], k["trains"], k["near"])
    assert 0 < sum(answers) < len(answers)
    assert replay.tolist() == answers


def test_filter_equals_the_exact_record_until_lines_share_an_entry():
    lines = np.array([10, 11, 9, 12, 11, 10], np.int64)
    cycles = np.arange(0, 6 * 40, 40, dtype=np.int64)
    exact = rf.neighbour_classes(lines, cycles)
    assert (rf.neighbour_classes(lines, cycles, filter_bits=4) == exact).all()
    assert exact[1].tolist() == [1, rf._ABSENT_CLASS]    # 10 seen 10 ticks before: class 1
    # 11 + 16 shares 11's entry in a 16-entry filter: the filter forgets 11, exact does not
    shared = np.array([11, 27, 10], np.int64)
    exact = rf.neighbour_classes(shared, cycles[:3])
    filtered = rf.neighbour_classes(shared, cycles[:3], filter_bits=4)
    assert exact[2, 1] != rf._ABSENT_CLASS and filtered[2, 1] == rf._ABSENT_CLASS

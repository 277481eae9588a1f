# SPDX-License-Identifier: Apache-2.0
"""evaluation.reuse_features: its replay of P4's table is the block's, and its filter."""

import random

import numpy as np
import pytest

from evaluation import reuse_features as rf
from golden_model import KvAsuModel, Op
from golden_model.predictor import answer_key


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replayed_table_answers_as_the_predictor_mode(seed):
    """Where no line is forgotten, the replay's answers with the ``+ seen`` key (P4's
    answer key) are the model's OBSERVE answers."""
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
    replay = rf.online_answers(line_arr, answer_key(k["key"], k["seen"]), k["trains"], k["near"])
    assert 0 < sum(answers) < len(answers)
    assert replay.tolist() == answers
    # the key alone (PT's, which decides only the ghost rule) answers otherwise
    assert rf.online_answers(line_arr, k["key"], k["trains"], k["near"]).tolist() != answers


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


def test_group_table_classes_by_hand():
    """Classes 0..3 from the group's stamps, 4 for a neighbour not recorded, 5 for one in
    another group (ticks are cycles >> 2: 40 cycles = 10 ticks)."""
    lines = np.array([9, 10, 11, 8, 15, 16], np.int64)
    cycles = np.arange(0, 6 * 40, 40, dtype=np.int64)
    out = rf.group_classes(lines, cycles, index_bits=4).tolist()
    absent, outside = rf._ABSENT_CLASS, rf.OUTSIDE_CLASS
    assert out[0] == [absent, absent]            # 9: 8 and 10 not seen yet
    assert out[1] == [1, absent]                 # 10: 9 seen 10 ticks before (<= W3)
    assert out[2] == [1, absent]                 # 11: 10 seen 10 ticks before
    assert out[3] == [outside, 2]                # 8: 7 is in group 0; 9 seen 30 ticks before
    assert out[4] == [absent, outside]           # 15: 14 not seen, 16 is in group 2
    assert out[5] == [outside, absent]           # 16: 15 is in group 1, 17 not seen
    # the exact record agrees wherever the neighbour is in the line's group
    exact = rf.neighbour_classes(lines, cycles)
    inside = np.array(out) != outside
    assert (np.array(out)[inside] == exact[inside]).all()


def test_group_table_forgets_a_group_another_one_replaces():
    """Two groups with one entry (same fold, different tag): the second takes the entry
    and the first's stamps are gone; a group folded to another entry is kept."""
    bits = 4
    g0, g1 = 5, (1 << bits) + 4              # folds: 5 and 4 ^ 1 = 5; tags 0 and 1
    assert rf._fold(g0, bits) == rf._fold(g1, bits)
    g2 = 6
    lines = np.array([g0 * 8 + 1, g2 * 8 + 1, g1 * 8 + 1, g0 * 8 + 2, g2 * 8 + 2], np.int64)
    cycles = np.arange(0, 5 * 8, 8, dtype=np.int64)
    out = rf.group_classes(lines, cycles, index_bits=bits).tolist()
    assert out[3][0] == rf._ABSENT_CLASS          # g0's line 1 forgotten by g1
    assert out[4][0] == 0                         # g2's line 1 kept, 6 ticks before: class 0


def test_group_table_stamps_wrap_as_the_blocks_do():
    """A stamp is ``ts_width`` bits: an age of 256 + 5 ticks reads as 5."""
    lines = np.array([1, 2], np.int64)
    cycles = np.array([0, (256 + 5) * 4], np.int64)
    assert rf.group_classes(lines, cycles, index_bits=4)[1, 0] == 0
    assert rf.neighbour_classes(lines, cycles)[1, 0] == 3       # the exact record: > WMAX


def test_plot_draws_every_workload(tmp_path):
    rows = {"a": {"split": "held-out", "mcc_keys": 0.3, "mcc_neighbours_group12": 0.6},
            "b": {"split": "fresh", "mcc_keys": -0.1, "mcc_neighbours_group12": 0.2}}
    path = tmp_path / "sub" / "mcc.png"
    rf.plot(rows, [("keys", "keys"), ("groups", "neighbours_group12")], path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

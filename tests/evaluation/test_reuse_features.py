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


def test_streams_of_different_lengths_are_refused():
    """A ``cycles`` shorter than ``lines`` was read as far as it went, and the rest of the
    answer was uninitialised memory."""
    lines = np.array([1, 2, 3, 1, 2, 3], np.int64)
    cycles = np.arange(0, 60, 10, dtype=np.int64)
    for call in (lambda: rf.keys(lines, cycles[:3]),
                 lambda: rf.neighbour_classes(lines, cycles[:3]),
                 lambda: rf.neighbour_classes(lines, cycles[:3], filter_bits=4),
                 lambda: rf.group_classes(lines, cycles[:3], index_bits=4),
                 lambda: rf.study(lines, cycles[:3], (4,), (4,))):
        with pytest.raises(ValueError, match="same length"):
            call()
    k = rf.keys(lines, cycles)
    with pytest.raises(ValueError, match="differ in length"):
        rf.online_answers(lines, k["key"][:3], k["trains"], k["near"])


def test_an_empty_stream_has_no_mcc():
    empty = np.array([], np.int64)
    with pytest.raises(ValueError, match="no access"):
        rf.study(empty, empty, (4,), (4,))


def test_table_sizes_at_their_edges():
    """A group table of one entry (``index_bits`` 0) shares it between every group (its fold
    looped forever); a negative line (its fold looped forever), a negative or huge size
    are refused; a numpy integer is a size."""
    lines = np.array([100, 200, 300, 100, 200, 300], np.int64)
    cycles = np.arange(0, 60, 10, dtype=np.int64)
    assert rf._fold(12345, 0) == 0
    one = rf.group_classes(lines, cycles, index_bits=0)
    # groups 12, 25, 37 take the one entry in turn: nothing of a neighbour is ever held
    assert set(one.ravel().tolist()) <= {rf._ABSENT_CLASS, rf.OUTSIDE_CLASS}
    assert (rf.group_classes(lines, cycles, index_bits=np.int64(4))
            == rf.group_classes(lines, cycles, index_bits=4)).all()
    for bits in (-1, rf.MAX_TABLE_BITS + 1):
        with pytest.raises(ValueError, match="index_bits"):
            rf.group_classes(lines, cycles, index_bits=bits)
        with pytest.raises(ValueError, match="filter_bits"):
            rf.neighbour_classes(lines, cycles, filter_bits=bits)
    with pytest.raises(ValueError, match=">= 0"):
        rf.group_classes(-lines, cycles, index_bits=4)


def _never(split):
    raise AssertionError("the workloads were made before the arguments were checked")


@pytest.mark.parametrize("argv", [["--filter-bits", "-1"], ["--group-index-bits", "0", "25"],
                                  ["--filter-bits", "x"]])
def test_cli_refuses_a_bad_table_size(argv, capsys, monkeypatch):
    monkeypatch.setattr(rf, "_workloads", _never)
    with pytest.raises(SystemExit) as exit_:
        rf.main(argv)
    assert exit_.value.code == 2
    assert "error: argument" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--json", "--plot"])
def test_cli_checks_its_outputs_before_the_run(option, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(rf, "_workloads", _never)
    with pytest.raises(SystemExit) as exit_:
        rf.main([option, str(tmp_path)])              # a folder, not a file
    assert exit_.value.code == 2
    assert f"error: {option} {tmp_path}: is a folder" in capsys.readouterr().err


def _two_workloads(split):
    rng = np.random.default_rng(3)
    lines = rng.integers(0, 64, 400).astype(np.int64)
    cycles = np.cumsum(rng.integers(1, 60, 400)).astype(np.int64)
    return {"a one": ("held-out", lines, cycles), "b two": ("held-out", lines[::-1].copy(), cycles)}


def test_cli_refuses_a_workload_name_nothing_holds(monkeypatch, tmp_path, capsys):
    """(An empty selection printed an empty table, and ``--plot`` then failed.)"""
    monkeypatch.setattr(rf, "_workloads", _two_workloads)
    with pytest.raises(SystemExit) as exit_:
        rf.main(["--workload", "three", "--plot", str(tmp_path / "p.png")])
    assert exit_.value.code == 2
    assert "'three'" in capsys.readouterr().err and not (tmp_path / "p.png").exists()


def test_cli_writes_json_and_a_png_whatever_the_plots_suffix(monkeypatch, tmp_path):
    import json

    monkeypatch.setattr(rf, "_workloads", _two_workloads)
    out, plot = tmp_path / "d" / "f.json", tmp_path / "d" / "f.pdf"
    assert rf.main(["--workload", "two", "--filter-bits", "4", "--group-index-bits", "4",
                    "--json", str(out), "--plot", str(plot)]) == 0
    data = json.loads(out.read_text())
    assert list(data["workloads"]) == ["b two"] and data["filter_bits"] == [4]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"       # --help: F (PNG)

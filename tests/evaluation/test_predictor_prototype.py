# SPDX-License-Identifier: Apache-2.0
"""The first-sight prototypes of evaluation.predictor_prototype: where a first sight goes,
and which guard learns from it."""

from evaluation import fresh
from evaluation import predictor_prototype as pp

FIRST_SIGHT_KEY = 4     # P4: burst 0, class 4 (a line neither live nor a ghost)


def _full_bank(sim, lines):
    for cycle, line in enumerate(lines):
        sim.access(line, cycle * 1000)      # far apart: no burst, class 3 on a second access
    assert list(sim.bank) == list(lines)


def _first_sight(sim, line=999):
    """Access a new line while the first-sight counter is 0; return (LRU end, MRU end)."""
    sim.pred.pt[FIRST_SIGHT_KEY] = 0
    sim.access(line, 10**6)
    order = list(sim.bank)
    return order[0], order[-1]


def test_guarded_never_demotes_a_first_sight():
    sim = pp.Guarded(4)
    _full_bank(sim, range(4))
    sim.gsel = 63                           # the ghost rule on: still only ghosts are demoted
    assert _first_sight(sim)[1] == 999
    assert 999 not in sim.probes


def test_shared_guard_demotes_three_in_four_and_probes_the_fourth():
    sim = pp.GuardedFirstSight(4)
    _full_bank(sim, range(4))
    sim.gsel, sim.k = 63, 0
    assert _first_sight(sim, 100)[0] == 100        # k 1: LRU end
    assert _first_sight(sim, 101)[0] == 101        # k 2
    assert _first_sight(sim, 102)[0] == 102        # k 3
    lru_end, mru_end = _first_sight(sim, 103)      # k 0: a probe at the MRU end
    assert mru_end == 103 and 103 in sim.probes


def test_shared_guard_off_makes_every_first_sight_a_probe():
    sim = pp.GuardedFirstSight(4)
    _full_bank(sim, range(4))
    assert sim.gsel < 32
    for line in (100, 101, 102):
        assert _first_sight(sim, line)[1] == line
        assert line in sim.probes


def test_own_guard_learns_from_its_probes_only():
    sim = pp.GuardedFirstSight(4, own=True)
    _full_bank(sim, range(4))
    gsel = sim.gsel
    assert _first_sight(sim, 100)[1] == 100 and 100 in sim.fprobes
    for line in (101, 102, 103, 104):            # probes too; 104 evicts 100 unread: +1
        _first_sight(sim, line)
    assert 100 not in sim.fprobes and sim.fsel == 32
    assert sim.gsel == gsel                      # the ghost rule's guard did not move
    sim.fsel, sim.fk = 40, 0
    assert _first_sight(sim, 200)[0] == 200      # its own guard on: demoted


def test_switch_variant_makes_no_probes():
    sim = pp.GuardedFirstSight(4, probes=False)
    _full_bank(sim, range(4))
    assert _first_sight(sim, 100)[1] == 100
    assert 100 not in sim.probes


def test_synthetic_split_is_the_fresh_non_kv_streams():
    streams = pp.synthetic_workloads()
    assert list(streams) == [fresh.ZIPF["name"], fresh.SCAN_MIX["name"]]
    for stream in streams.values():
        assert len(stream) > 0 and len(stream.line) == len(stream.cycle)


def test_psel_step_is_p11_s_at_step_max_4():
    """``guarded``'s step is P11's ``s = max(1, 4 >> (bank >> 10))``; ``guarded_step1`` keeps 1."""
    for bank, step in ((16, 4), (1023, 4), (1024, 2), (2047, 2), (2048, 1), (8192, 1)):
        sim = pp.PROTOTYPES["guarded"](bank)
        assert (sim.up, sim.down) == (step, 8 * step), bank
        assert pp.PROTOTYPES["guarded_step1"](bank).up == 1
    assert pp.PROTOTYPES["guarded_step128"](16).up == 128          # a shadow of one line


def test_a_loop_longer_than_a_small_bank_reaches_loop_mode_with_the_step():
    """600 lines x 40 through a bank of 150: 0 % with s = 1, hits with s = 4 (P11)."""
    stream = pp.loop_workloads()["cyclic loop, 600 lines x 40"]
    assert len(stream) == 600 * 40 and len(set(stream.line.tolist())) == 600
    rates = {}
    for name in ("guarded", "guarded_step1"):
        sim = pp.PROTOTYPES[name](150)
        rates[name] = sum(sim.access(x, c) for x, c in zip(stream.line.tolist(), stream.cycle.tolist()))
    assert rates["guarded_step1"] == 0 and rates["guarded"] > 0.1 * len(stream), rates


def test_neighbour_predictor_keys_are_the_studys():
    """``guarded_neighbours``' predictor indexes its counters by the key the study of
    evaluation.reuse_features replays: P4's key, then the group table's two classes."""
    import random

    import numpy as np

    from evaluation import reuse_features as rf

    seed = 5
    print(f"seed {seed}")
    rng = random.Random(seed)
    lines, cycles, cycle = [], [], 0
    for _ in range(2000):
        cycle += rng.choice([1, 4, 30, 200, 900])
        lines.append(rng.randrange(64) + rng.choice([0, 1 << 20]))
        cycles.append(cycle)
    line_arr, cycle_arr = np.array(lines, np.int64), np.array(cycles, np.int64)
    k = rf.keys(line_arr, cycle_arr)
    nb = rf.group_classes(line_arr, cycle_arr, index_bits=12)
    study = ((k["key"] * 8 + nb[:, 0]) * 8 + nb[:, 1]).tolist()
    pred = pp.NeighbourReusePredictor()
    got = []
    for line, c in zip(lines, cycles):
        pred.observe(line, c)
        got.append(pred.history[line][2])
    assert got == study
    assert len(set(nb[:, 0].tolist())) == 6       # every class, OUTSIDE_CLASS among them


def test_seen_predictor_answers_as_the_studys_seen_key_and_keeps_p4s_counter():
    """``guarded_seen``' predictor: its answers are the study's ``+ seen`` replay where no
    line is forgotten, and the counter the ghost rule reads is P4's table's."""
    import random

    import numpy as np

    from evaluation import reuse_features as rf
    from golden_model.predictor import answer_key

    seed = 6
    print(f"seed {seed}")
    rng = random.Random(seed)
    lines, cycles, cycle = [], [], 0
    for _ in range(3000):
        cycle += rng.choice([1, 4, 30, 90, 200, 900])
        lines.append(rng.randrange(rng.choice([4, 40])))
        cycles.append(cycle)
    line_arr, cycle_arr = np.array(lines, np.int64), np.array(cycles, np.int64)
    k = rf.keys(line_arr, cycle_arr)
    replay = rf.online_answers(line_arr, answer_key(k["key"], k["seen"]), k["trains"], k["near"])
    seen, plain = pp.SeenReusePredictor(), pp.ReusePredictor()
    answers, counters = [], []
    for line, c in zip(lines, cycles):
        answers.append(seen.observe(line, c))
        plain.observe(line, c)
        counters.append(seen.counter == plain.counter)
    assert answers == replay.tolist()
    assert all(counters)
    assert 0 < sum(answers) < len(answers)


def test_every_prototype_refuses_a_bank_of_no_line():
    """(RRIP looped forever at capacity 0, the others failed with a KeyError at the first
    miss.) A numpy integer is a capacity."""
    import numpy as np
    import pytest

    for name, make in pp.PROTOTYPES.items():
        with pytest.raises(ValueError, match="capacity"):
            make(0)
        sim = make(np.int64(2))
        assert [sim.access(x, c) for x, c in ((1, 0), (2, 1), (1, 2))][-1], name


def test_evaluate_refuses_a_workload_too_small_for_its_banks():
    import numpy as np
    import pytest

    stream = fresh.Stream(line=np.array([1, 2, 3, 4, 5, 1], np.int64), cycle=np.arange(6, dtype=np.int64))
    with pytest.raises(ValueError, match="'five lines': 5 distinct lines"):
        pp.evaluate({"five lines": stream}, prototypes=["guarded"])


def _no_run():
    raise AssertionError("the run started before the outputs were checked")


def _small_split():
    import numpy as np

    line = np.tile(np.arange(40, dtype=np.int64), 3)
    return {"loop": fresh.Stream(line=line, cycle=np.arange(len(line), dtype=np.int64))}


def test_cli_checks_json_and_merge_before_the_run(tmp_path, monkeypatch, capsys):
    import pytest

    monkeypatch.setattr(pp, "loop_workloads", _no_run)
    not_json = tmp_path / "old.json"
    not_json.write_text("{not json")
    a_list = tmp_path / "list.json"
    a_list.write_text("[1, 2]")
    for argv, message in ((["--json", str(tmp_path)], "is a folder"),
                          (["--merge", str(tmp_path)], "is a folder"),
                          (["--merge", str(not_json)], "not a JSON file"),
                          (["--merge", str(a_list)], "not results of this script"),
                          (["--prototypes", "guarded,"], "unknown prototypes: ''")):
        with pytest.raises(SystemExit) as exit_:
            pp.main(["--split", "loops", *argv])
        assert exit_.value.code == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not_json.read_text() == "{not json"


def test_cli_writes_and_merges_into_new_folders(tmp_path, monkeypatch):
    import json

    monkeypatch.setattr(pp, "loop_workloads", _small_split)
    out, merge = tmp_path / "a" / "r.json", tmp_path / "b" / "m.json"
    assert pp.main(["--split", "loops", "--prototypes", "guarded", "--json", str(out),
                    "--merge", str(merge)]) == 0
    assert json.loads(out.read_text()) == json.loads(merge.read_text())
    assert pp.main(["--split", "loops", "--prototypes", "dip", "--merge", str(merge)]) == 0
    row = json.loads(merge.read_text())["loops"]["loop"]["banks"]["1/2"]
    assert {"guarded", "dip", "lru", "belady"} <= set(row)

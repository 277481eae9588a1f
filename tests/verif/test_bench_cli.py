# SPDX-License-Identifier: Apache-2.0
"""The command lines of the benches and studies (``verif.hostile``,
``tools.bench_nonblocking``, ``tools.evict_queue``): a bad value refused before any work
in one argparse line, an output checked before the run, a random run's seed printed and
written with its figures, so that the run reproduces from either (no Verilator build
here: every piece of work that needs one is replaced by a stand-in that fails the test)."""

import json

import pytest

from tools import bench_nonblocking, evict_queue
from verif import hostile


@pytest.fixture
def not_a_folder(tmp_path):
    """A path under a file: nothing can be written there, whoever runs the test."""
    (tmp_path / "file").write_text("x\n")
    return tmp_path / "file" / "x"


@pytest.fixture
def no_work(monkeypatch):
    """Every entry point's first piece of work fails the test if it is reached."""
    def reached(*args, **kwargs):
        raise AssertionError("the run started before its arguments were checked")
    from verif import fast, runner
    for obj, name in ((fast, "build"), (runner, "build"), (hostile, "attack"),
                      (hostile, "attack_rtl"), (bench_nonblocking, "reset_sweep")):
        monkeypatch.setattr(obj, name, reached)


def _refused(capsys, main, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err.strip().splitlines()[-1], err     # one line, after the usage
    return err


@pytest.mark.parametrize("argv, message", [
    (["--lines", "0"], "--lines: must be at least 1, not 0"),
    (["--lines", "-4"], "--lines: must be at least 1, not -4"),
    (["--rounds", "0"], "--rounds: must be at least 1, not 0"),
    (["--seed", "-1"], "--seed: must be at least 0, not -1"),
], ids=["lines 0", "lines -4", "rounds 0", "seed -1"])
def test_hostile_refuses_a_bad_number(argv, message, no_work, capsys):
    _refused(capsys, hostile.main, argv, message)


@pytest.mark.parametrize("argv", [["--json", "{bad}"], ["--rtl", "--build", "{bad}"]],
                         ids=" ".join)
def test_hostile_refuses_an_unwritable_output_before_the_run(argv, not_a_folder, no_work,
                                                             capsys):
    argv = [a.format(bad=not_a_folder) for a in argv]
    err = _refused(capsys, hostile.main, argv, f"error: {argv[-2]} {not_a_folder}: ")
    assert len(err.strip().splitlines()) == 1


def test_hostile_json_holds_what_reproduces_the_run(tmp_path, capsys):
    first, again = tmp_path / "a.json", tmp_path / "b.json"
    assert hostile.main(["--lines", "6", "--rounds", "2", "--json", str(first)]) == 0
    report = json.loads(first.read_text())
    seed, secret = report["search_seed"], report["secret_hash_seed"]
    out = capsys.readouterr().out
    assert f"search seed {seed}," in out and f"secret HASH_SEED {secret:#010x}" in out
    assert (report["lines"], report["rounds"]) == (6, 2)
    assert hostile.main(["--lines", "6", "--rounds", "2", "--seed", str(seed),
                         "--json", str(again)]) == 0
    assert json.loads(again.read_text()) == report


def test_bench_nonblocking_refuses_more_requests_than_the_trace_holds(no_work, capsys):
    # its three video patterns take consecutive slices of the trace's 30 122 requests
    for argv in (["--requests", "10041"], ["--requests", "20000", "--predictor"]):
        _refused(capsys, bench_nonblocking.main, argv,
                 "--requests: must be 1..10040 (the three video patterns")
    _refused(capsys, bench_nonblocking.main, ["--seed", "-3"], "--seed: must be at least 0")


def test_bench_nonblocking_prints_its_seed(tmp_path, monkeypatch, capsys):
    def sweep(params, mode_reset, requests, seed):
        return {"presented": requests, "taken": requests, "dropped": 0, "cycles": requests,
                "not_ready_cycles": 0, "taken_per_cycle": 1.0, "mismatches": 0}
    monkeypatch.setattr(bench_nonblocking, "reset_sweep", sweep)
    out = tmp_path / "s.json"
    assert bench_nonblocking.main(["--reset-sweep-only", "--sweep-requests", "2",
                                   "--seed", "17", "--out", str(out)]) == 0
    assert "seed 17" in capsys.readouterr().out
    assert json.loads(out.read_text())["seed"] == 17


def test_evict_queue_depth_is_an_integer():
    timing = evict_queue.BuildTiming(latency=19, evict_gap=6, evict_evict_gap=3, rows=512)
    with pytest.raises(TypeError, match="depth"):
        evict_queue.post_evicts([0], [evict_queue.OPS["EVICT"]], True, back_to_back=True,
                                timing=timing)

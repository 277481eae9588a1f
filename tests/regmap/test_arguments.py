# SPDX-License-Identifier: Apache-2.0
"""The command lines (the shipped kv-asu-regmap and golden_model.bench, the benches and
studies of tools/, verif.replay, verif.sim_main) refuse a bad number or an output they
cannot write before any work (exit status 2, one line), through the shared checks of
``regmap.arguments``."""

import argparse
from pathlib import Path

import numpy as np
import pytest

from golden_model.trace import save_trace
import golden_model.bench
import regmap.cli
from regmap import arguments as cli
from tools import bench, bench_nonblocking, bench_predictor, evict_queue, evict_speculation
from verif import replay, sim_main


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
    for obj, name in ((fast, "build"), (runner, "build"), (runner, "build_timing"),
                      (evict_queue, "default_timing"), (bench_nonblocking, "reset_sweep"),
                      (replay, "replay")):
        monkeypatch.setattr(obj, name, reached)


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.npz"
    save_trace(path, np.arange(3, dtype=np.uint64), np.zeros(3, np.uint8),
               np.array([0x100, 0x200, 0x300], np.uint64), np.zeros(3, np.uint8))
    return path


def test_int_range():
    parse = cli.int_range(1, 1000)
    assert parse("1") == 1 and parse("1000") == 1000 and parse("0x10") == 16
    for text in ("0", "1001", "-5", "x", "1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)
    assert cli.int_range(0)("123456789") == 123456789
    with pytest.raises(argparse.ArgumentTypeError, match="at least 0, not -1"):
        cli.int_range(0)("-1")


def test_unwritable(tmp_path, not_a_folder):
    assert cli.unwritable(tmp_path / "new" / "deeper" / "x.json") is None   # folders made later
    assert cli.unwritable(tmp_path, folder=True) is None
    assert "is a folder" in cli.unwritable(tmp_path)
    assert "is a file" in cli.unwritable(tmp_path / "file", folder=True)
    assert "is a file, not a folder" in cli.unwritable(not_a_folder / "y.json")
    assert "is a file, not a folder" in cli.unwritable(not_a_folder, folder=True)
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]                 # nothing made


def _refused(capsys, main, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err
    return err


@pytest.mark.parametrize("main, argv", [
    (bench.main, ["--out", "{bad}"]),
    (bench.main, ["--build", "{bad}"]),
    (bench.main, ["--fpga", "--fpga-dir", "{bad}"]),
    (bench_predictor.main, ["--out", "{bad}"]),
    (bench_predictor.main, ["--build", "{bad}"]),
    (bench_nonblocking.main, ["--out", "{bad}"]),
    (evict_queue.main, ["--out", "{bad}"]),
    (evict_speculation.main, ["--out", "{bad}"]),
    (sim_main.main, ["--build", "{bad}"]),
    (regmap.cli.main, ["--format", "c", "--out", "{bad}"]),
], ids=lambda x: getattr(x, "__module__", None) or " ".join(x))
def test_an_unwritable_output_is_refused_before_the_run(main, argv, not_a_folder, no_work,
                                                          capsys):
    argv = [a.format(bad=not_a_folder) for a in argv]
    err = _refused(capsys, main, argv, f"error: {argv[-2]} {not_a_folder}: ")
    assert len(err.strip().splitlines()) == 1


def test_replay_refuses_an_unwritable_build_folder(trace, not_a_folder, no_work, capsys):
    _refused(capsys, replay.main, [str(trace), "--build", str(not_a_folder)],
             f"error: --build {not_a_folder}: ")


@pytest.mark.parametrize("main, argv, message", [
    (bench.main, ["--requests", "-3"], "--requests: must be at least 1, not -3"),
    (bench.main, ["--requests", "0"], "--requests: must be at least 1, not 0"),
    (bench_predictor.main, ["--requests", "-1"], "--requests: must be at least 1"),
    (evict_speculation.main, ["--requests", "0"], "--requests: must be at least 1"),
    (evict_speculation.main, ["--random-configs", "-2"], "--random-configs: must be at least 0"),
    (evict_queue.main, ["--depths", "0", "-1"], "--depths: must be at least 0, not -1"),
    (bench_nonblocking.main, ["--sweep-requests", "-5"], "--sweep-requests: must be at least 1"),
    (bench_nonblocking.main, ["--sweep-requests", "0"], "--sweep-requests: must be at least 1"),
    (bench_nonblocking.main, ["--requests", "0"], "--requests: must be at least 1"),
    (golden_model.bench.main, ["--requests", "0"], "--requests: must be at least 1, not 0"),
    (golden_model.bench.main, ["--seed", "-1"], "--seed: must be at least 0, not -1"),
], ids=lambda x: getattr(x, "__module__", None) or " ".join(x))
def test_a_number_out_of_range_is_refused(main, argv, message, no_work, capsys):
    _refused(capsys, main, argv, message)


@pytest.mark.parametrize("ready", ["-5", "0", "1001", "5000"])
def test_replay_refuses_a_ready_share_outside_the_harness_range(trace, tmp_path, ready,
                                                                no_work, capsys):
    # the harness takes 0..1000 per mille (1000 and above: always ready); 0 never takes a
    # response, so a run with any request could only hang
    _refused(capsys, replay.main, [str(trace), "--build", str(tmp_path / "b"), "--ready", ready],
             f"--ready: must be 1..1000, not {int(ready)}")
    assert not (tmp_path / "b").exists()


def test_replay_reports_a_hang_as_a_hang(trace, tmp_path, monkeypatch, capsys):
    from verif import fast

    def hang(*args, **kwargs):
        raise fast.Hang("harness failed (3): kvasu_fast: no progress for 100000 cycles")
    monkeypatch.setattr(replay, "replay", hang)
    assert replay.main([str(trace), "--build", str(tmp_path / "b"), "--ready", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("replay: HANG: the RTL stopped making progress")
    assert "MISMATCH" not in out and "no progress for 100000 cycles" in out


def test_the_sweep_length_given_is_the_one_run(tmp_path, monkeypatch):
    runs = []

    def sweep(params, mode_reset, requests, seed):
        runs.append(requests)
        return {"presented": requests, "taken": requests, "dropped": 0, "cycles": requests,
                "not_ready_cycles": 0, "taken_per_cycle": 1.0, "mismatches": 0}
    monkeypatch.setattr(bench_nonblocking, "reset_sweep", sweep)
    out = tmp_path / "s.json"
    assert bench_nonblocking.main(["--reset-sweep-only", "--sweep-requests", "1",
                                   "--out", str(out)]) == 0
    assert runs == [1, 1] and out.exists()


def test_regmap_writes_into_folders_still_to_be_made(tmp_path):
    out = tmp_path / "new" / "include" / "kv_asu_regs.h"
    assert regmap.cli.main(["--format", "c", "--out", str(out)]) == 0
    assert out.read_text() == (Path(__file__).parents[2] / "sw" / "kv_asu_regs.h").read_text()

# SPDX-License-Identifier: Apache-2.0
"""The command lines (the shipped kv-asu-regmap and golden_model.bench, the benches and
studies of tools/, verif.replay, verif.sim_main, verif.hostile) refuse a bad number or an
output they cannot write before any work (exit status 2, one line), through the shared
checks of ``regmap.arguments``; a random run's seed is printed and written with its
figures, so that the run reproduces from either (no Verilator build here: every piece of
work that needs one is replaced by a stand-in that fails the test)."""

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from golden_model.trace import save_trace
import golden_model.bench
import regmap.cli
from regmap import arguments as cli
from tools import bench, bench_nonblocking, bench_predictor, evict_queue, evict_speculation
from verif import hostile, replay, sim_main


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
                      (replay, "replay"), (hostile, "attack"), (hostile, "attack_rtl")):
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
    assert message in err.strip().splitlines()[-1], err     # one line, after the usage
    return err


@pytest.mark.parametrize("main, argv", [
    (bench.main, ["--out", "{bad}"]),
    (bench.main, ["--build", "{bad}"]),
    (bench.main, ["--fpga", "--fpga-dir", "{bad}"]),
    (bench.main, ["--cocotb", "--record", "{bad}"]),
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


def test_bench_record_needs_the_cocotb_speed(tmp_path, no_work, capsys):
    # (the kept record has every simulation speed the README quotes)
    _refused(capsys, bench.main, ["--record", str(tmp_path / "r.json")],
             "--record keeps the cocotb speed too: pass --cocotb")
    assert not (tmp_path / "r.json").exists()


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
                "not_ready_cycles": 0, "taken_fraction_of_cycles": 1.0, "mismatches": 0}
    monkeypatch.setattr(bench_nonblocking, "reset_sweep", sweep)
    out = tmp_path / "s.json"
    assert bench_nonblocking.main(["--reset-sweep-only", "--sweep-requests", "1",
                                   "--out", str(out)]) == 0
    assert runs == [1, 1] and out.exists()


def test_regmap_writes_into_folders_still_to_be_made(tmp_path):
    out = tmp_path / "new" / "include" / "kv_asu_regs.h"
    assert regmap.cli.main(["--format", "c", "--out", str(out)]) == 0
    assert out.read_text() == (Path(__file__).parents[2] / "sw" / "kv_asu_regs.h").read_text()


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
                "not_ready_cycles": 0, "taken_fraction_of_cycles": 1.0, "mismatches": 0}
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


def test_python_m_regmap_takes_the_cli_options():
    """``python -m regmap`` is ``regmap.cli``: its default output is the Markdown table, its
    ``--format c`` the C header, and an option it does not know is refused."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]

    def run(*args):
        return subprocess.run([sys.executable, "-m", "regmap", *args], cwd=root, capture_output=True,
                              text=True)

    assert run().stdout == (root / "docs" / "registers-table.md").read_text()
    assert run("--format", "c").stdout == (root / "sw" / "kv_asu_regs.h").read_text()
    refused = run("--bogus")
    assert refused.returncode == 2 and "--bogus" in refused.stderr
    assert refused.stderr.startswith("usage: python -m regmap")

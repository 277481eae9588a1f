# SPDX-License-Identifier: Apache-2.0
"""The command lines of the soaks (``verif.soak``, ``verif.predictor_soak``), of the fault
campaign (``verif.faults``) and of ``make sim`` (``verif.sim_main``): a bad argument is
refused before any Verilator build, in one ``error:`` line with exit status 2; what a run
prints and writes is enough to run it again. No Verilator: the build and the harness are
replaced (``no_build``, ``fake_harness``)."""

import json
import logging
import types

import pytest

from verif import fast, faults, predictor_soak, sim_main, soak


@pytest.fixture
def no_build(monkeypatch):
    """``fast.build`` replaced by a failure: a refusal must come before it."""
    def build(*args, **kwargs):
        raise AssertionError("a Verilator build was started")
    monkeypatch.setattr(fast, "build", build)


@pytest.fixture
def fake_harness(monkeypatch, tmp_path):
    """The build, the harness run and its check replaced: the soaks' own code runs (their
    traffic, their summary), the RTL does not. ``failing`` set: the check fails."""
    state = types.SimpleNamespace(failing=False)
    monkeypatch.setattr(fast, "build", lambda *args, **kwargs: tmp_path / "harness")
    monkeypatch.setattr(fast, "build_latency", lambda *args, **kwargs: 4)
    monkeypatch.setattr(fast, "run", lambda *args, **kwargs: types.SimpleNamespace(
        cycles=100, seconds=0.0))

    def check(params, model, requests, axi, result, **kwargs):
        if state.failing:
            raise fast.Mismatch("a response differs")
        return {"axi_responses": {"OKAY": len(axi)}, "sweeps": 1, "requests": len(requests)}
    monkeypatch.setattr(fast, "check", check)
    return state


def _refused(main, argv, capsys, message):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err


@pytest.mark.parametrize("main", [soak.main, predictor_soak.main], ids=["soak", "predictor"])
@pytest.mark.parametrize("argv, message", [
    (["--requests", "0"], "argument --requests: must be at least 1, not 0"),
    (["--requests", "-5"], "argument --requests: must be at least 1, not -5"),
    (["--chunk", "0"], "argument --chunk: must be at least 1, not 0"),      # looped forever
    (["--chunk", "-1"], "argument --chunk: must be at least 1, not -1"),
])
def test_soak_counts_refused(main, argv, message, no_build, capsys, tmp_path):
    _refused(main, argv + ["--build", str(tmp_path / "b"),
                           *(["--out", str(tmp_path / "s.json")]
                             if main is predictor_soak.main else [])], capsys, message)


@pytest.mark.parametrize("main", [soak.main, predictor_soak.main], ids=["soak", "predictor"])
def test_soak_unwritable_build_refused(main, no_build, capsys, tmp_path):
    (tmp_path / "file").write_text("")
    _refused(main, ["--requests", "10", "--build", str(tmp_path / "file" / "b")], capsys,
             f"error: --build {tmp_path / 'file' / 'b'}")


def test_predictor_soak_unwritable_out_refused_before_the_run(no_build, capsys, tmp_path):
    """Found unwritable after a soak of hours, before; now before the build."""
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "s.json"
    _refused(predictor_soak.main, ["--requests", "10", "--build", str(tmp_path / "b"),
                                   "--out", str(out)], capsys, f"error: --out {out}")


def test_soak_function_refuses_a_chunk_of_nothing(no_build, tmp_path):
    for run in (soak.soak, predictor_soak.predictor_soak):
        with pytest.raises(ValueError, match="chunk must be at least 1"):
            run(soak.CONFIGS["small"], 10, 1, tmp_path, chunk=0)
        with pytest.raises(ValueError, match="total must be at least 1"):
            run(soak.CONFIGS["small"], 0, 1, tmp_path)


def test_predictor_soak_json_reproduces_the_run(fake_harness, tmp_path, capsys):
    """The summary holds every option that changes the run (the chunk size changes the
    draws, the response ready the harness's), and passes the strict JSON parser."""
    out = tmp_path / "s.json"
    argv = ["--requests", "30", "--chunk", "10", "--seed", "5", "--ready", "600",
            "--config", "small", "--build", str(tmp_path / "b"), "--out", str(out)]
    assert predictor_soak.main(argv) == 0
    summary = json.loads(out.read_text(), parse_constant=lambda name: 1 / 0)
    assert {k: summary[k] for k in ("seed", "chunk", "ready_permille", "config", "requests",
                                    "chunks")} == \
        {"seed": 5, "chunk": 10, "ready_permille": 600, "config": "small", "requests": 30,
         "chunks": 3}


def test_predictor_soak_failure_leaves_no_summary(fake_harness, tmp_path, capsys):
    """A failed soak exits 1 and leaves no summary: not an earlier run's, which says 0
    mismatches."""
    out = tmp_path / "s.json"
    out.write_text(json.dumps({"mismatches": 0}))
    fake_harness.failing = True
    assert predictor_soak.main(["--requests", "20", "--chunk", "10", "--seed", "5",
                                "--build", str(tmp_path / "b"), "--out", str(out)]) == 1
    assert "FAIL (seed 5)" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("main, module", [(soak.main, "verif.soak"),
                                          (predictor_soak.main, "verif.predictor_soak")],
                         ids=["soak", "predictor"])
def test_a_failed_soak_prints_its_whole_command_and_takes_kvasu_seed(
        main, module, fake_harness, tmp_path, capsys, monkeypatch):
    """Without ``--seed`` a soak runs with ``$KVASU_SEED`` (read as the other harnesses
    read it); a failure prints every option that shapes the traffic, the chunk too."""
    monkeypatch.setenv("KVASU_SEED", "0x21")
    fake_harness.failing = True
    out = ["--out", str(tmp_path / "s.json")] if main is predictor_soak.main else []
    argv = ["--requests", "20", "--chunk", "10", "--ready", "600", "--config", "small",
            "--build", str(tmp_path / "b"), *out]
    assert main(argv) == 1
    text = "".join(capsys.readouterr())
    assert "FAIL (seed 33)" in text
    assert (f"reproduce: python -m {module} --config small --requests 20 --chunk 10 "
            f"--ready 600 --seed 33 --build {tmp_path / 'b'}") in text
    monkeypatch.setenv("KVASU_SEED", "seven")
    _refused(main, argv, capsys, "KVASU_SEED must be an integer >= 0, not 'seven'")


@pytest.mark.parametrize("argv, message", [
    (["--faults", "0"], "argument --faults: must be at least 1, not 0"),  # divided by 0
    (["--faults", "-3"], "argument --faults: must be at least 1, not -3"),
    (["--requests", "0"], "argument --requests: must be at least 1, not 0"),
    (["--per-traffic", "0"], "argument --per-traffic: must be at least 1, not 0"),
    (["--jobs", "0"], "argument --jobs: must be at least 1, not 0"),
    (["--replay", "-1", "--seed", "3"], "argument --replay: must be at least 0, not -1"),
])
def test_faults_counts_refused(argv, message, no_build, capsys, tmp_path):
    _refused(faults.main, argv + ["--out", str(tmp_path / "f")], capsys, message)
    assert not (tmp_path / "f").exists()


def test_faults_unwritable_out_refused(no_build, capsys, tmp_path):
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "f"
    _refused(faults.main, ["--faults", "3", "--out", str(out)], capsys, f"error: --out {out}")


def test_faults_campaign_refuses_no_runs(no_build, tmp_path):
    with pytest.raises(ValueError, match="n_faults must be at least 1"):
        faults.campaign(soak.CONFIGS["small"], 0, 1, tmp_path)


def _fake_campaign(monkeypatch, **found):
    """``faults.campaign`` replaced by one that finds ``found`` (the summary's counts): by
    default a protected double-bit campaign whose one silent run is in a parity-coded
    memory (a measurement, not a failure)."""
    def campaign(params, n, seed, build, **kwargs):
        classes = {"masked": n - 1, "detected_recovered": 0, "detected_unrecovered": 0,
                   "silent": 1, "hang": 0}
        return {"seed": seed, "faults": n, "params": params.as_dict(), "protected": True,
                "bits_per_fault": 2, "classes": classes, "by_memory": {"scrub": classes},
                "codes": {"scrub": "parity"}, "fault_free_failures": [],
                "misreported": 0, "recoveries_over_bound": 0, "recoveries_too_short": 0,
                **found}
    monkeypatch.setattr(faults, "campaign", campaign)
    monkeypatch.setattr(faults, "plot", lambda summary, path: None)


def test_faults_summary_names_the_config(monkeypatch, tmp_path, capsys):
    """``--replay K --seed S`` needs the campaign's ``--config``: the summary names it. A
    silent run in a parity-coded memory of a double-bit campaign is a measurement, not a
    failure: exit status 0."""
    _fake_campaign(monkeypatch)
    assert faults.main(["--config", "probe1", "--faults", "3", "--seed", "9",
                        "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "campaign.json").read_text())
    assert summary["config"] == "probe1" and summary["seed"] == 9


@pytest.mark.parametrize("found, message", [
    ({"fault_free_failures": [{"fault_free": "silent"}]}, "fault-free runs failed 1"),
    ({"misreported": 2}, "misreported 2"),
    ({"recoveries_over_bound": 1}, "recoveries over the bound 1"),
    ({"recoveries_too_short": 3}, "recoveries not reported 3"),
    ({"bits_per_fault": 1}, "silent 1"),
    ({"codes": {"scrub": "secded"}}, "silent in a SECDED memory 1"),
    ({"classes": {"masked": 2, "detected_recovered": 0, "detected_unrecovered": 0,
                  "silent": 0, "hang": 1}}, "hangs 1"),
])
def test_faults_failed_check_exits_1(found, message, monkeypatch, tmp_path, capsys):
    """A fault-free run that failed, a report that is not the upset's, or a miss of D11's
    targets on the protected core (a silent run of a single-bit campaign or in a SECDED
    memory, a hang) is a failed check of the block: exit status 1, the summary written all
    the same."""
    _fake_campaign(monkeypatch, **found)
    assert faults.main(["--faults", "3", "--seed", "9", "--out", str(tmp_path)]) == 1
    assert f"faults: FAIL (seed 9): {message}" in capsys.readouterr().err
    assert json.loads((tmp_path / "campaign.json").read_text())["seed"] == 9


@pytest.mark.parametrize("argv, env, expected", [
    ([], None, None), (["--seed", "77"], "5", 77), ([], "0x10", 16)])
def test_sim_main_prints_the_seed_it_runs(argv, env, expected, tmp_path, monkeypatch,
                                          capsys):
    """The seed the run used (the testbench's and Verilator's initial values') is printed,
    a fresh one included, and ``--seed`` with it passes the same seed; ``--seed`` before
    ``$KVASU_SEED``, that before a fresh one."""
    from verif import runner as R
    if env is None:
        monkeypatch.delenv("KVASU_SEED", raising=False)
    else:
        monkeypatch.setenv("KVASU_SEED", env)
    seen = {}

    class Runner:
        log = logging.getLogger("test")

    def run(*args, seed=None, **kwargs):
        seen["seed"] = seed
        raise SystemExit(1)
    monkeypatch.setattr(R, "get_runner", lambda sim: Runner())
    monkeypatch.setattr(R, "build", lambda *args, **kwargs: Runner())
    monkeypatch.setattr(R, "run", run)
    assert sim_main.main(argv + ["--build", str(tmp_path / "sim")]) == 1
    seed = seen["seed"]
    assert isinstance(seed, int) and (expected is None or seed == expected)
    assert f"--seed {seed} reproduces" in capsys.readouterr().out


def test_sim_main_refuses_a_kvasu_seed_that_is_no_integer(monkeypatch, tmp_path, capsys):
    from verif import runner as R

    def build(*args, **kwargs):
        raise AssertionError("a Verilator build was started")
    monkeypatch.setattr(R, "get_runner", build)
    monkeypatch.setattr(R, "build", build)
    monkeypatch.setenv("KVASU_SEED", "seven")
    _refused(sim_main.main, ["--build", str(tmp_path / "sim")], capsys,
             "KVASU_SEED must be an integer >= 0, not 'seven'")
    assert not (tmp_path / "sim").exists()

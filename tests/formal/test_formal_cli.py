# SPDX-License-Identifier: Apache-2.0
"""``python -m formal.run``'s command line: a choice of jobs it cannot run as given, or an
output it cannot write, is refused before any job, in one line with exit status 2. No
proof runs: ``run_job`` is replaced."""

import json

import pytest

from formal import run


@pytest.fixture
def jobs_run(monkeypatch):
    """``run.run_job`` replaced: the names of the jobs ``main`` runs, each passing."""
    names = []

    def fake(name, job, outdir, *, verbose=False):
        names.append(name)
        return {"name": name, "status": "PASS", "mode": job["mode"], "depth": job["depth"],
                "time_s": 0.0}
    monkeypatch.setattr(run, "run_job", fake)
    return names


def _refused(argv, capsys, message):
    with pytest.raises(SystemExit) as exit_:
        run.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err


@pytest.mark.parametrize("only", ["", ",", " , "])
def test_only_naming_no_job_is_refused(only, jobs_run, tmp_path, capsys):
    """An empty ``--only`` ran every job (``""``) or none, exit 0 (``","``)."""
    _refused(["--only", only, "--out", str(tmp_path)], capsys, "--only names no job")
    assert jobs_run == [] and not list(tmp_path.iterdir())


def test_only_with_quick_is_refused(jobs_run, tmp_path, capsys):
    """``--quick`` was dropped without a word when ``--only`` was given."""
    _refused(["--quick", "--only", "lru_bmc", "--out", str(tmp_path)], capsys,
             "--only and --quick")
    assert jobs_run == []


def test_only_runs_a_job_named_twice_once(jobs_run, tmp_path, capsys):
    assert run.main(["--only", "lru_bmc, lru_bmc", "--out", str(tmp_path)]) == 0
    assert jobs_run == ["lru_bmc"]
    summary = json.loads((tmp_path / "summary_only.json").read_text())
    assert [r["name"] for r in summary["results"]] == ["lru_bmc"] and summary["ok"]


def test_unwritable_out_is_refused(jobs_run, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "formal"
    _refused(["--only", "lru_bmc", "--out", str(out)], capsys, f"error: --out {out}")
    assert jobs_run == []


def test_a_summary_that_cannot_be_merged_is_refused_before_the_jobs(jobs_run, tmp_path,
                                                                     capsys):
    """The earlier ``--only`` results are read before the jobs run, not after them."""
    (tmp_path / "summary_only.json").write_text('{"results": [')
    _refused(["--only", "lru_bmc", "--out", str(tmp_path)], capsys,
             "summary_only.json is not a summary")
    assert jobs_run == []


def test_an_interrupt_ends_the_sby_session(monkeypatch, tmp_path):
    """SBY runs in a session of its own, which the terminal's Ctrl-C does not reach: an
    interrupt of the wait ends that session (here a ``sleep`` in SBY's place) and is
    raised again."""
    import subprocess
    started = []
    real_popen = subprocess.Popen

    class Interrupted(real_popen):
        def __init__(self, cmd, **kwargs):
            super().__init__(["sleep", "60"], start_new_session=True)
            started.append(self)

        def communicate(self, *args, **kwargs):
            raise KeyboardInterrupt

    monkeypatch.setattr(run, "build_job", lambda name, job, outdir: tmp_path)
    monkeypatch.setattr(subprocess, "Popen", Interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            run.run_job("lru_bmc", run.JOBS["lru_bmc"], tmp_path)
        assert started and started[0].poll() is not None
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_result_of_a_job_that_no_longer_exists_is_dropped(jobs_run, tmp_path):
    """``summary_only.json`` keeps the earlier ``--only`` results of jobs that exist; a
    removed job's failure would leave ``ok`` false whatever runs after it."""
    (tmp_path / "summary_only.json").write_text(json.dumps({"ok": False, "results": [
        {"name": "a_removed_job", "status": "FAIL"}, {"name": "tags_bmc", "status": "PASS"}]}))
    assert run.main(["--only", "lru_bmc", "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "summary_only.json").read_text())
    assert sorted(r["name"] for r in summary["results"]) == ["lru_bmc", "tags_bmc"]
    assert summary["ok"]


def test_the_summary_is_written_after_each_job(monkeypatch, tmp_path, capsys):
    """A run stopped part way keeps the results it has, with the commit and the tools;
    the last line of a finished run names the jobs that did not pass."""
    def fake(name, job, outdir, *, verbose=False):
        if name == "stream_order_bmc":
            raise KeyboardInterrupt
        return {"name": name, "status": "FAIL" if name == "tags_bmc" else "PASS",
                "mode": job["mode"], "depth": job["depth"], "time_s": 0.0}
    monkeypatch.setattr(run, "run_job", fake)
    with pytest.raises(KeyboardInterrupt):
        run.main(["--only", "lru_bmc,tags_bmc,stream_order_bmc", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary_only.json").read_text())
    assert [r["name"] for r in summary["results"]] == ["lru_bmc", "tags_bmc"]
    assert not summary["ok"] and not summary["complete"]
    assert {"commit", "versions", "nproc"} <= set(summary["run"])
    assert summary["run"]["versions"]["amaranth"]
    assert run.main(["--only", "lru_bmc,tags_bmc", "--out", str(tmp_path)]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("1/2 passed; not passed: tags_bmc;"), last


def test_a_run_stopped_part_way_is_not_ok(monkeypatch, tmp_path):
    """Every job so far passed, but not every job ran: the summary is not ``ok``."""
    def fake(name, job, outdir, *, verbose=False):
        if name == "tags_bmc":
            raise KeyboardInterrupt
        return {"name": name, "status": "PASS", "mode": job["mode"], "depth": job["depth"],
                "time_s": 0.0}
    monkeypatch.setattr(run, "run_job", fake)
    with pytest.raises(KeyboardInterrupt):
        run.main(["--only", "lru_bmc,tags_bmc", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary_only.json").read_text())
    assert [r["status"] for r in summary["results"]] == ["PASS"]
    assert not summary["complete"] and not summary["ok"]


def test_an_unknown_job_name_gets_a_suggestion(jobs_run, tmp_path, capsys):
    _refused(["--only", "axil_prov", "--out", str(tmp_path)], capsys,
             "did you mean axil_prove")


def test_an_unknown_prove_result_is_explained():
    """A prove job ending UNKNOWN: the base case's depth, where the induction step failed,
    the two readings, and the BMC job that gives a trace from reset."""
    job = run.JOBS["axil_prove"]
    log = ("SBY 1:00:00 [axil_prove] engine_0.induction: ##   0:00:01  Assert failed in top: "
           "/x/formal/axil_props.py:232 (_witness_.check_1043)\n")
    note = run.unknown_note(job, log)
    depth = job["depth"]
    assert f"base case clean to depth {depth}" in note
    assert "failed at axil_props.py:232" in note
    assert f"a missing helper invariant or a bug deeper than {depth}" in note
    assert note.endswith("run --only axil_bmc for a trace from reset")


def test_the_bmc_twins_of_prove_jobs_are_bmc_jobs():
    twins = {name: job["bmc"] for name, job in run.JOBS.items() if job["bmc"]}
    assert twins["axil_prove"] == ("axil_bmc",)
    for name, bmc in twins.items():
        assert run.JOBS[name]["mode"] == "prove", name
        assert all(run.JOBS[b]["mode"] == "bmc" for b in bmc), name


def test_depth_runs_the_only_jobs_shallower_into_a_summary_of_its_own(jobs_run, tmp_path, monkeypatch):
    """``--depth N``: the ``--only`` jobs at depth N, their results in summary_depth.json alone
    (a shallower PASS is never taken for the job's own)."""
    depths = []
    fake = run.run_job

    def record(name, job, outdir, *, verbose=False):
        depths.append(job["depth"])
        return fake(name, job, outdir, verbose=verbose)
    monkeypatch.setattr(run, "run_job", record)
    folders = []
    monkeypatch.setattr(run, "run_job", lambda name, job, outdir, *, verbose=False: (
        folders.append(outdir), record(name, job, outdir, verbose=verbose))[1])
    assert run.main(["--only", "lru_bmc", "--depth", "3", "--out", str(tmp_path)]) == 0
    assert depths == [3] and run.JOBS["lru_bmc"]["depth"] != 3
    assert folders == [tmp_path / "depth"]          # the job's own folder is left alone
    summary = json.loads((tmp_path / "summary_depth.json").read_text())
    assert [(r["name"], r["depth"]) for r in summary["results"]] == [("lru_bmc", 3)]
    assert not (tmp_path / "summary_only.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["--depth", "3"], "--depth is for the jobs of --only"),
    (["--quick", "--depth", "3"], "--depth is for the jobs of --only"),
    (["--only", "lru_bmc", "--depth", "0"], "--depth must be at least 1, not 0"),
    (["--only", "lru_bmc,latency_prove", "--depth", "3"], "--depth is for BMC jobs that must pass"),
])
def test_depth_without_only_or_below_1_is_refused(argv, message, jobs_run, tmp_path, capsys):
    _refused(argv + ["--out", str(tmp_path)], capsys, message)
    assert jobs_run == []

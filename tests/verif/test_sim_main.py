# SPDX-License-Identifier: Apache-2.0
"""``make sim``'s command line refuses what it cannot run before it builds anything."""

import pytest

from verif import sim_main


@pytest.mark.parametrize("preset, message", [
    ("1080p30", "python -m verif.replay 1080p30.npz"),   # 500 M cycles: the fast harness's job
    ("nope", "--preset must be one of small"),
])
def test_refused_presets(preset, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        sim_main.main(["--preset", preset, "--build", str(tmp_path / "sim")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "sim").exists()        # nothing built


def test_the_built_in_trace_fits_the_bound():
    from evaluation.workload import PRESETS, video_kv_requests
    assert int(video_kv_requests(PRESETS["small"])[0][-1]) < sim_main.MAX_CYCLES



@pytest.mark.parametrize("outcome", ["simulator exits", "test fails", "passes"])
def test_only_a_passing_run_names_its_figures(tmp_path, monkeypatch, capsys, outcome):
    """The waveform and figures of an earlier run are deleted before this one; only a run
    that passes prints their paths (a failed one does not point at an earlier run's)."""
    from verif import runner as R
    build = tmp_path / "sim"
    build.mkdir()
    old = [build / "sim_main.json", build / "kv_asu.fst", build / "results.xml"]
    for path in old:
        path.write_text("an earlier run's\n")

    class Runner:
        log = __import__("logging").getLogger("test")

    def run(*args, **kwargs):
        assert not any(p.exists() for p in old)          # gone before the simulation
        if outcome == "simulator exits":
            raise SystemExit(1)
        failures = int(outcome == "test fails")
        (build / "results.xml").write_text(
            f'<testsuites><testsuite tests="1" failures="{failures}"/></testsuites>')
        if not failures:
            (build / "sim_main.json").write_text("{}")
    monkeypatch.delenv("WAVES", raising=False)
    monkeypatch.setattr(R, "get_runner", lambda sim: Runner())
    monkeypatch.setattr(R, "build", lambda *args, **kwargs: Runner())
    monkeypatch.setattr(R, "run", run)
    code = sim_main.main(["--build", str(build)])
    out = capsys.readouterr().out
    if outcome == "passes":
        assert code == 0 and "make sim: PASSED" in out
        assert f"per-frame figures: {build / 'sim_main.json'}" in out
        assert f"waveform: {build / 'kv_asu.fst'}" in out
    else:
        assert code == 1
        assert "sim_main.json" not in out and "kv_asu.fst" not in out
        assert not (build / "sim_main.json").exists() and not (build / "kv_asu.fst").exists()

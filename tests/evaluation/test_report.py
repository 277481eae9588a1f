# SPDX-License-Identifier: Apache-2.0
"""The report's command line, its JSON and the sweeps' edge cases (no full report run)."""

import json

import numpy as np
import pytest

from evaluation import report


def _never(*args, **kwargs):
    raise AssertionError("the long run started before the output was checked")


@pytest.mark.parametrize("make", ["file", "md_dir", "json_dir"])
def test_unwritable_output_is_refused_before_the_run(make, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(report, "run_all", _never)
    docs = tmp_path / "docs"
    if make == "file":
        docs.write_text("not a directory")
    elif make == "md_dir":
        (docs / "evaluation.md").mkdir(parents=True)
    else:
        (docs / "eval" / "results.json").mkdir(parents=True)
    with pytest.raises(SystemExit) as exit_:
        report.main(["--docs", str(docs)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("usage:") and "error:" in err[-1] and str(docs) in err[-1]


def test_bad_argument_is_one_argparse_error(monkeypatch, capsys):
    monkeypatch.setattr(report, "run_all", _never)
    with pytest.raises(SystemExit) as exit_:
        report.main(["--frames", "3"])
    assert exit_.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def _reject(constant):
    raise ValueError(f"not strict JSON: {constant}")


def test_results_json_is_strict():
    results = {"a": float("nan"), "b": [np.float64("inf"), 1.5, (2, np.float32("nan"))],
               "c": {1: np.int64(3), "d": np.array([np.nan, 2.0])}, "e": None, "f": "x"}
    doc = json.loads(report.results_json(results), parse_constant=_reject)
    assert doc == {"a": None, "b": [None, 1.5, [2, None]], "c": {"1": 3, "d": [None, 2.0]}, "e": None, "f": "x"}


def test_scoring_window_follows_the_run():
    def results(frames):
        return {"workloads": [{"name": "video 1080p30", "params": {"frames": frames, "nearby_frames": 4}}]}
    assert report.scoring_window(results(6)) == (4, 6, 4)  # the full run: the last 2 of 6
    assert report.scoring_window(results(4)) == (3, 4, 4)  # --quick: the last 1 of 4


def test_prediction_scores_on_an_empty_stream_are_json():
    pytest.importorskip("golden_model")
    from evaluation.sweep import prediction_scores, workload_summary
    from evaluation.workload import generate_accesses, preset

    empty = generate_accesses(preset("small", frames=2)).first(0)
    s = prediction_scores(empty)
    assert s["scored"] == 0 and s["tlevel_share"] == [0.0] * 4
    json.loads(report.results_json({"p": s, "w": workload_summary("empty", empty)}), parse_constant=_reject)

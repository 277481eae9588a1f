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


def _stream(lines, writes, frames=None):
    """An ``Accesses`` of ``lines`` (written where ``writes``), one per cycle, frame
    ``frames`` (default all 0), without workload parameters (so every access is scored)."""
    from evaluation.workload import LINE_SHIFT, Accesses

    n = len(lines)
    z = np.zeros(n, dtype=np.int16)
    return Accesses(cycle=np.arange(n, dtype=np.uint64),
                    addr=np.asarray(lines, dtype=np.uint64) << np.uint64(LINE_SHIFT),
                    is_write=np.asarray(writes, dtype=bool), kind=np.zeros(n, dtype=np.uint8),
                    frame_index=np.zeros(n, np.int32) if frames is None else np.asarray(frames, np.int32),
                    layer=z, head=z, token=np.zeros(n, np.int32), tag_frame=np.zeros(n, np.int32), tag_row=z, tag_col=z)


def test_baseline_dram_bytes_are_all_frames_read_misses():
    # The section-2 column "DRAM MiB (all frames)": every frame's read misses, as the
    # KV-ASU rows' DRAM bytes are; the hit rate and latency stay on the steady-state reads.
    from evaluation.baselines import POLICIES
    from evaluation.metrics import LatencyModel
    from evaluation.sweep import baseline_rates, steady_mask
    from evaluation.workload import generate_accesses, preset

    acc = generate_accesses(preset("small", frames=4))
    m = steady_mask(acc)
    assert not m.all() and m.any()
    lat = LatencyModel()
    for cap in (16, 64, 256):
        got = baseline_rates(acc, cap, lat)
        for name, fn in POLICIES.items():
            kw = {"read_optimal": True} if name == "belady" else {}
            hits = fn(acc.line, cap, acc.is_write, **kw)
            misses_all = int(acc.reads.sum() - hits.sum())
            assert got[name]["dram_bytes"] == misses_all * lat.line_bytes, (name, cap)
            steady_reads, steady_hits = int((acc.reads & m).sum()), int(hits[m].sum())
            assert got[name]["hit_rate"] == steady_hits / steady_reads
            assert got[name]["mean_latency"] == lat.mean(steady_hits, steady_reads - steady_hits)


def test_belady_row_bounds_read_hits_where_lines_are_written_again():
    # Line 2 is written again: MIN over all references keeps it for that write and FIFO
    # gets more read hits. The report's Belady row is the optimum for read hits.
    from evaluation.sweep import baseline_rates

    got = baseline_rates(_stream([5, 5, 0, 3, 2, 1, 3, 0, 1, 2, 2], [0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1]), 3)
    assert got["belady"]["hit_rate"] >= got["fifo"]["hit_rate"] > 0
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        acc = _stream(rng.integers(0, 8, n), rng.random(n) < 0.3, np.sort(rng.integers(0, 3, n)))
        cap = int(rng.integers(1, 5))
        got = baseline_rates(acc, cap)
        assert got["belady"]["hit_rate"] >= max(got["lru"]["hit_rate"], got["fifo"]["hit_rate"])
        assert got["belady"]["dram_bytes"] <= min(got["lru"]["dram_bytes"], got["fifo"]["dram_bytes"])

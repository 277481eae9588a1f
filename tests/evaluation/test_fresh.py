# SPDX-License-Identifier: Apache-2.0
"""evaluation.fresh: its traces are none of the tuned or reported ones, the Zipf stream is
what it says, and the CLI writes its report, figures and JSON."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from evaluation import compare_report, decoder, fresh
from evaluation.predictor_prototype import TRAINING_NAMES
from evaluation.workload import preset
from golden_model.trace import save_trace


def test_zipf_stream_is_seeded_and_skewed():
    a = fresh.zipf_stream(20_000, 500, 0.9, seed=3)
    b = fresh.zipf_stream(20_000, 500, 0.9, seed=3)
    c = fresh.zipf_stream(20_000, 500, 0.9, seed=4)
    assert np.array_equal(a.line, b.line) and not np.array_equal(a.line, c.line)
    assert len(a) == 20_000 and a.line.min() >= 0 and a.line.max() < 500
    assert np.array_equal(a.cycle, np.arange(20_000))
    counts = np.sort(np.bincount(a.line, minlength=500))[::-1]
    # Zipf(0.9) over 500 ranks: rank 1 draws 1 / sum(r ** -0.9) = 10.9 % of the accesses,
    # rank 100 0.17 %
    assert 0.095 < counts[0] / len(a) < 0.125
    assert counts[0] > 30 * counts[99]
    uniform = fresh.zipf_stream(20_000, 500, 0.0, seed=3)
    assert np.bincount(uniform.line, minlength=500).max() < 80


@pytest.mark.parametrize("kw", [{"accesses": 0}, {"lines": 0}, {"alpha": -0.5}])
def test_zipf_stream_rejects_bad_arguments(kw):
    args = {"accesses": 10, "lines": 10, "alpha": 0.9, "seed": 0} | kw
    with pytest.raises(ValueError, match="must be"):
        fresh.zipf_stream(**args)


def test_scan_mix_stream_is_a_hot_set_a_cyclic_scan_and_one_offs():
    a = fresh.scan_mix_stream(30_000, 300, 1.0, 900, 0.5, 0.4, seed=3)
    b = fresh.scan_mix_stream(30_000, 300, 1.0, 900, 0.5, 0.4, seed=3)
    c = fresh.scan_mix_stream(30_000, 300, 1.0, 900, 0.5, 0.4, seed=4)
    assert np.array_equal(a.line, b.line) and not np.array_equal(a.line, c.line)
    assert len(a) == 30_000 and np.array_equal(a.cycle, np.arange(30_000))
    hot, scan, once = a.line < 300, (a.line >= 300) & (a.line < 1200), a.line >= 1200
    assert abs(hot.mean() - 0.5) < 0.02 and abs(scan.mean() - 0.4) < 0.02
    # the scan visits its lines in order, cyclically, from the first
    assert np.array_equal(a.line[scan], 300 + np.arange(scan.sum()) % 900)
    # a one-off is read once; the one-offs are numbered in order
    assert np.array_equal(a.line[once], 1200 + np.arange(once.sum()))
    # the hot set is skewed: its most popular line draws far more than its 100th
    counts = np.sort(np.bincount(a.line[hot], minlength=300))[::-1]
    assert counts[0] > 30 * counts[99]


@pytest.mark.parametrize("kw", [{"accesses": 0}, {"hot_lines": 0}, {"scan_lines": 0}, {"alpha": -1.0},
                                {"hot_share": 0.7}, {"scan_share": -0.1}])
def test_scan_mix_stream_rejects_bad_arguments(kw):
    args = {"accesses": 10, "hot_lines": 10, "alpha": 1.0, "scan_lines": 10, "hot_share": 0.5,
            "scan_share": 0.4, "seed": 0} | kw
    with pytest.raises(ValueError, match="must be"):
        fresh.scan_mix_stream(**args)


def test_fresh_traces_are_none_of_the_tuned_or_reported_ones():
    """Seeds 0 (the report) and 1-3 (the training split) are never used; the decoder text
    is neither of the two shipped texts."""
    for name, base, overrides in fresh.VIDEO:
        assert name not in TRAINING_NAMES
        assert preset(base, **overrides).seed not in (0, 1, 2, 3), name
    text = hashlib.sha256(fresh.DECODER_TEXT.read_bytes()).digest()
    for used in (decoder.TRAIN_TEXT, decoder.HELDOUT_TEXT):
        assert hashlib.sha256(used.read_bytes()).digest() != text


def test_the_cli_writes_its_report(tmp_path, monkeypatch):
    """main() on a small stream (the real workloads take minutes): the targets table, a
    figure per workload, and the JSON with every bank, marked as the fresh split."""
    name = "IID Zipf(0.9) small"
    monkeypatch.setattr(fresh, "fresh_workloads",
                        lambda progress, with_decoder=True: {name: fresh.zipf_stream(2000, 240, 0.9, 5)})
    assert fresh.main(["--docs", str(tmp_path), "--no-decoder"]) == 0
    doc = json.loads((tmp_path / "eval" / "fresh.json").read_text())
    assert doc[name]["split"] == "fresh" and list(doc[name]["banks"]) == ["1/8", "1/4", "1/2"]
    text = (tmp_path / "evaluation-fresh.md").read_text()
    rate = doc[name]["banks"]["1/8"]["policies"]["kv_asu_predictor"]["hit_rate"]
    bank = doc[name]["banks"]["1/8"]["bank_lines"]
    assert bank == doc[name]["distinct_lines"] // 8
    assert f"| {name} | fresh | 1/8 ({bank}) |" in text and f"**{100 * rate:.1f} %**" in text
    assert (tmp_path / "eval" / "fresh_iid_zipf_0_9_small.png").stat().st_size > 0


def _trace(path, lines, op=0):
    n = len(lines)
    save_trace(path, np.arange(n), np.full(n, op, np.uint8), np.asarray(lines, np.uint64) << np.uint64(8),
               np.zeros(n, np.uint8))
    return path


def test_the_cli_runs_on_given_traces(tmp_path):
    """--trace: the same table and figures on the traces given, named by file, split 'given'."""
    a = _trace(tmp_path / "a.npz", fresh.zipf_stream(1500, 200, 0.9, 8).line)
    b = _trace(tmp_path / "b.npz", np.tile(np.arange(90), 12))          # a loop of 90 lines
    out = tmp_path / "out"
    assert fresh.main(["--trace", str(a), "--trace", str(b), "--docs", str(out)]) == 0
    doc = json.loads((out / "eval" / "fresh.json").read_text())
    assert list(doc) == ["a.npz", "b.npz"] and {e["split"] for e in doc.values()} == {"given"}
    assert doc["b.npz"]["distinct_lines"] == 90 and doc["b.npz"]["banks"]["1/2"]["bank_lines"] == 45
    # a loop of 90 through a bank of 45: LRU never hits, Belady keeps 44 of each pass
    pol = doc["b.npz"]["banks"]["1/2"]["policies"]
    assert pol["lru"]["hits"] == 0 and pol["belady"]["hits"] > 0
    text = (out / "evaluation-fresh.md").read_text()
    assert "| b.npz | given | 1/2 (45) |" in text and "All traces:" in text
    assert (out / "eval" / "fresh_b_npz.png").stat().st_size > 0


def test_the_cli_refuses_a_trace_it_cannot_use(tmp_path, capsys):
    empty = _trace(tmp_path / "e.npz", np.arange(4), op=1)              # QUERYs only
    shift = tmp_path / "s.npz"
    save_trace(shift, np.arange(4), np.zeros(4, np.uint8), np.arange(4, dtype=np.uint64),
               np.zeros(4, np.uint8), meta={"params": {"line_shift": 70}})
    for argv, message in (([str(tmp_path / "missing.npz")], "no such file"), ([str(empty)], "no OBSERVE"),
                          ([str(shift)], "s.npz: parameters (meta['params'] of the trace): "
                                         "LINE_SHIFT must be 0..ADDR_WIDTH-1 (63), not 70")):
        with pytest.raises(SystemExit) as exit_info:
            fresh.main(["--trace", argv[0], "--docs", str(tmp_path / "o")])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_traces_of_one_file_name_are_kept_apart_and_a_file_given_twice_is_refused(tmp_path):
    """Two traces named alike in different folders are both compared, each under a name of
    its own; the same file given twice is an error, not a workload replaced."""
    (tmp_path / "sub").mkdir()
    a = _trace(tmp_path / "sub" / "x.npz", np.tile(np.arange(3), 20))
    b = _trace(tmp_path / "x.npz", np.arange(60))
    streams = fresh.trace_streams([a, b])
    assert len(streams) == 2 and [len(np.unique(s.line)) for s in streams.values()] == [3, 60]
    with pytest.raises(ValueError, match="given twice"):
        fresh.trace_streams([a, b, a])


def test_an_output_folder_it_cannot_make_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    a = _trace(tmp_path / "a.npz", np.arange(40))
    (tmp_path / "afile").write_text("")
    monkeypatch.setattr(compare_report, "run", lambda *args: pytest.fail("the run started"))
    with pytest.raises(SystemExit) as exit_info:
        fresh.main(["--trace", str(a), "--docs", str(tmp_path / "afile")])
    assert exit_info.value.code == 2 and "--docs" in capsys.readouterr().err


def test_a_case_without_a_gap_is_not_counted_for_the_half_gap_target():
    """Where Belady is no better than LRU (one line read again and again) the half-gap target
    says nothing: the row is not counted as meeting it, and the summary says how many such
    rows there were."""
    def bank(lru, belady, mine):
        pol = {"lru": {"hit_rate": lru}, "belady": {"hit_rate": belady}, "arc": {"hit_rate": lru},
               "kv_asu_article": {"mcc": 0.0},
               "kv_asu_predictor": {"hit_rate": mine, "gap_closed": None, "mcc": 0.0}}
        return {"bank_lines": 1, "best_libcachesim": "arc", "policies": pol}
    comparison = {"one line": {"split": "given", "banks": {"1/2": bank(0.99, 0.99, 0.99)}},
                  "loop": {"split": "given", "banks": {"1/2": bank(0.0, 0.5, 0.3)}}}
    rows = compare_report.targets(comparison)
    assert [r["half_gap"] for r in rows] == [None, True]
    text = compare_report.targets_summary("All", rows)
    assert "met in 1 of 1 cases with a gap to close (1 without one" in text


def test_cases_without_an_anchor_or_a_gap_are_counted_as_such():
    """A case where no libCacheSim policy ran meets 'at least the best' neither way (None);
    with cases without a gap, the summary says that the two other hit-rate targets count
    every case; a best policy with LRU's hit count is marked in the table and the summary."""
    def bank(lru, belady, mine, best):
        pol = {"lru": {"hit_rate": lru, "hits": int(100 * lru)},
               "belady": {"hit_rate": belady, "hits": int(100 * belady)},
               "lrb": {"hit_rate": lru, "hits": int(100 * lru)},
               "kv_asu_article": {"mcc": 0.0},
               "kv_asu_predictor": {"hit_rate": mine, "gap_closed": None, "mcc": 0.0}}
        return {"bank_lines": 1, "best_libcachesim": best, "policies": pol}
    comparison = {"tiny": {"split": "given", "banks": {"1/8": bank(0.0, 0.0, 0.0, None)}},
                  "loop": {"split": "given", "banks": {"1/2": bank(0.2, 0.5, 0.3, "lrb")}}}
    rows = compare_report.targets(comparison)
    assert [r["beats_best"] for r in rows] == [None, True]
    assert [r["best_is_lru"] for r in rows] == [False, True]
    text = compare_report.targets_summary("All", rows)
    assert ("'at least the best libCacheSim policy' in 1 of the 1 where a libCacheSim policy ran "
            "(1 of them against a best policy with LRU's hit count), 'never below LRU' in 2 of all 2"
            in text), text
    table = compare_report.targets_table(rows, lambda rows, header: repr(rows))
    assert "lrb 20.0 % (LRU's hit count)" in table
    assert "LRU's in 2 of the 2 cases" in compare_report.lrb_sentence(comparison)


def test_a_case_without_a_defined_mcc_is_reported_as_such():
    """A trace in which no access is reused within the window leaves the MCC undefined
    (``None`` from evaluation.compare): the report shows n/a, counts the row as neither
    meeting nor missing the MCC target, and says so in the summary."""
    pol = {"lru": {"hit_rate": 0.0}, "belady": {"hit_rate": 0.0}, "arc": {"hit_rate": 0.0},
           "kv_asu_article": {"mcc": None},
           "kv_asu_predictor": {"hit_rate": 0.0, "gap_closed": None, "mcc": None}}
    comparison = {"no reuse": {"split": "given", "banks": {"1/2": {
        "bank_lines": 4, "best_libcachesim": "arc", "policies": pol}}}}
    rows = compare_report.targets(comparison)
    assert rows[0]["mcc_ok"] is None
    table = compare_report.targets_table(rows, lambda rows, header: repr(rows))
    assert "n/a (article n/a)" in table
    text = compare_report.targets_summary("All", rows)
    assert "MCC >= 0.5 in 0 (1 without a defined MCC" in text


def test_a_trace_of_floats_is_refused_in_one_line(tmp_path, capsys):
    """A float array in a trace was a TypeError that trace_streams let through: a traceback."""
    path = _trace(tmp_path / "f.npz", np.arange(10))
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    with open(path, "wb") as f:
        np.savez(f, **{**arrays, "cycle": np.arange(10, dtype=np.float64)})
    with pytest.raises(SystemExit) as exit_info:
        fresh.main(["--trace", str(path), "--docs", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and f"error: {path}: trace array 'cycle'" in err
    assert not (tmp_path / "o").exists()          # nothing made for a run refused


def test_names_whose_figures_would_share_a_file_are_kept_apart(tmp_path):
    """'A.npz' and 'a.npz', or 'a.npz' and 'a_npz', have one slug: the second one's figure
    would have replaced the first's, and the report shown it twice."""
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    paths = [_trace(tmp_path / "x" / "A.npz", np.arange(8)), _trace(tmp_path / "a_npz", np.arange(9)),
             _trace(tmp_path / "y" / "a.npz", np.arange(10))]
    streams = fresh.trace_streams(paths)
    slugs = [compare_report.slug(name) for name in streams]
    assert len(set(slugs)) == 3 and list(streams)[0] == "A.npz"
    assert [len(s) for s in streams.values()] == [8, 9, 10]


@pytest.mark.parametrize("in_the_way", ["evaluation-fresh.md", "eval/fresh.json", "eval/fresh_a_npz.png"])
def test_an_output_it_cannot_write_is_refused_before_the_run(tmp_path, capsys, monkeypatch, in_the_way):
    """A folder where the markdown, the JSON or a figure goes was found only when written,
    after the run (a traceback after many minutes)."""
    a = _trace(tmp_path / "a.npz", np.arange(40))
    (tmp_path / "o" / in_the_way).mkdir(parents=True)
    monkeypatch.setattr(compare_report, "run", lambda *args: pytest.fail("the run started"))
    with pytest.raises(SystemExit) as exit_info:
        fresh.main(["--trace", str(a), "--docs", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and in_the_way.split("/")[-1] in err and "is a folder" in err


def test_a_json_that_would_hold_a_nan_is_not_written(tmp_path, capsys, monkeypatch):
    a = _trace(tmp_path / "a.npz", np.arange(40))
    monkeypatch.setattr(compare_report, "run", lambda workloads, say, previous=None: {"a.npz": {"x": float("nan")}})
    assert fresh.main(["--trace", str(a), "--docs", str(tmp_path / "o")]) == 1
    assert "not written" in capsys.readouterr().err
    assert not (tmp_path / "o" / "eval" / "fresh.json").exists()


def test_settings_of_a_trace_that_are_not_applied_are_reported(tmp_path, capsys):
    """As python -m evaluation.compare does: the KV-ASU runs with its own configuration, and
    a trace's meta that asks for another is named, not silently ignored."""
    path = tmp_path / "c.npz"
    save_trace(path, np.arange(60), np.zeros(60, np.uint8), np.tile(np.arange(6, dtype=np.uint64), 10) << 8,
               np.zeros(60, np.uint8), meta={"config": {"c3": 9}, "params": {"frames": 2}})
    out = tmp_path / "o"
    assert fresh.main(["--trace", str(path), "--docs", str(out)]) == 0
    assert "c3=9 are not applied" in capsys.readouterr().err
    doc = json.loads((out / "eval" / "fresh.json").read_text())
    assert doc["c.npz"]["trace_settings_not_applied"] == {"c3": {"trace": 9, "used": 5}}


def test_a_file_name_cannot_break_the_markdown_table():
    assert fresh._escaped("a|b[1].npz") == "a\\|b\\[1\\].npz"
    assert fresh._escaped("two\nlines") == "two lines"


def test_no_decoder_with_given_traces_is_refused(tmp_path, capsys):
    """--no-decoder chooses among the built-in workloads; with --trace it would be ignored
    without a word."""
    a = _trace(tmp_path / "a.npz", np.arange(40))
    with pytest.raises(SystemExit) as exit_info:
        fresh.main(["--trace", str(a), "--no-decoder", "--docs", str(tmp_path / "d")])
    assert exit_info.value.code == 2 and "--no-decoder" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_the_figure_marks_rates_below_its_axis_and_policies_that_did_not_run(tmp_path):
    """A rate under the axis's floor (a quarter below LRU's lowest) is written on the axis,
    and a policy that did not run is marked "n/r": neither is drawn as an empty slot."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as real

    class Keep:                     # pyplot, but keeps the figures open to look at
        figures = []

        def subplots(self, *args, **kwargs):
            fig, ax = real.subplots(*args, **kwargs)
            self.figures.append(ax)
            return fig, ax

        def close(self, fig):
            pass
    pol = {name: {"hit_rate": 0.9} for name in compare_report.SHOWN}
    pol.update(lru={"hit_rate": 0.8}, sieve={"hit_rate": 0.1}, lirs={"hit_rate": None})
    comparison = {"w": {"split": "given", "distinct_lines": 8,
                        "banks": {"1/2": {"bank_lines": 4, "policies": pol}}}}
    keep = Keep()
    compare_report.plots(comparison, tmp_path, keep, prefix="t_")
    texts = sorted(t.get_text() for t in keep.figures[0].texts)
    assert texts == ["n/r", "\u219310 %"], texts
    assert (tmp_path / compare_report.figure_file("w", "t_")).is_file()
    real.close("all")


def test_the_shipped_table_and_policies_that_did_not_run_are_reported():
    """Where the comparison gives the KV-ASU a larger table than the shipped builds', the
    table shows its size and the predictor's rate with the shipped table, and the summary
    counts the targets again with it; a policy that did not run is named with its error,
    and a case where no libCacheSim policy ran says so instead of a name."""
    def bank(mine, shipped, arc):
        pol = {"lru": {"hit_rate": 0.2}, "belady": {"hit_rate": 0.6},
               "arc": {"hit_rate": arc} if arc is not None else {"hit_rate": None, "error": "aborted"},
               "kv_asu_article": {"mcc": 0.0},
               "kv_asu_predictor": {"hit_rate": mine, "gap_closed": None, "mcc": 0.6}}
        if shipped is not None:
            pol["kv_asu_predictor_shipped"] = {"hit_rate": shipped}
        return {"bank_lines": 100, "entries": 8192 if shipped is not None else 2048,
                "best_libcachesim": "arc" if arc is not None else None, "policies": pol}
    comparison = {"big": {"split": "given", "banks": {"1/8": bank(0.45, 0.3, 0.35)}},
                  "small": {"split": "given", "banks": {"1/8": bank(0.5, None, None)}}}
    rows = compare_report.targets(comparison)
    assert [r["shipped"] for r in rows] == [0.3, None]
    table = compare_report.targets_table(rows, lambda rows, header: repr((rows, header)))
    assert "**45.0 %** (2048: 30.0 %)" in table and "8192" in table and "none ran" in table
    text = compare_report.targets_summary("All", rows)
    assert "half-gap target is met in 2 of 2" in text
    assert ("Over the same 2 cases with the rate of a 2048-entry table in the 1 where the table here is larger: "
            "half-gap 1, 'at least the best libCacheSim policy' 0, 'never below LRU' 2") in text, text
    assert compare_report.not_run_sentence(comparison) == (
        "**Did not run** (1): arc on small at 1/8 (aborted). 'best libCacheSim' is the best of the policies "
        "that ran.\n")
    del comparison["small"]
    assert compare_report.not_run_sentence(comparison) == ""


def test_the_training_split_alone_makes_the_same_choices():
    """Section 8 says that the choices made with the held-out traces in view come out the
    same on the training traces alone; the figures it gives are the kept record's."""
    chosen = compare_report.training_choices(json.loads(compare_report.PROTOTYPE_RECORD.read_text()))
    assert chosen["below_lru"]["guarded"] < chosen["below_lru"]["dueling_bip"]
    assert chosen["mcc_ok"]["guarded_seen"] > chosen["mcc_ok"]["guarded_neighbours"]
    assert max(chosen["step_points"], key=chosen["step_points"].get) == 4
    assert chosen["unguarded_worst"][2] < 0
    text = (compare_report.PROTOTYPE_RECORD.parent.parent / "evaluation.md").read_text()
    assert f"without the guard {chosen['below_lru']['dueling_bip']} fall below LRU" in text
    assert f"up to {-chosen['unguarded_worst'][2]:.2f} points" in text


def test_the_sparse_decoder_traces_overlap_as_section_8_says():
    """The training and held-out sparse decoder traces: the same cycles, and the share of
    accesses the same line at the same place that section 8 states."""
    a = decoder.cached_accesses("train", sparse=True, n_tokens=192)
    b = decoder.cached_accesses("heldout", sparse=True, n_tokens=192)
    assert np.array_equal(a.cycle, b.cycle)
    assert round(float(np.mean(a.line == b.line)), 2) == compare_report.SPARSE_DECODER_OVERLAP


def test_a_near_copy_is_what_the_page_says():
    """The fresh workload the page calls a near copy of section 8's trace repeats the share
    of that trace's accesses in place that the page states, and is left out of the summary."""
    from evaluation.workload import generate_accesses
    (name, base, overrides), = [v for v in fresh.VIDEO if v[0] in fresh.NEAR_COPIES]
    mine = generate_accesses(preset(base, **overrides))
    report = generate_accesses(preset(base, **{**overrides, "seed": 0}))
    assert np.array_equal(mine.cycle, report.cycle)
    assert f"{100 * np.mean(mine.line == report.line):.1f} %" in fresh.NEAR_COPIES[name]


def test_reuse_baselines_reruns_only_the_baselines_and_says_so(tmp_path, capsys):
    """``--reuse-baselines`` takes libCacheSim's and the article mode's figures from the
    folder's fresh.json, reruns the rest, and the page names what it took; without a
    fresh.json to take them from it is a usage error before any run."""
    a = _trace(tmp_path / "a.npz", np.tile(np.arange(30), 6))
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as exit_info:
        fresh.main(["--trace", str(a), "--docs", str(out), "--reuse-baselines"])
    assert exit_info.value.code == 2 and "fresh.json" in capsys.readouterr().err
    assert fresh.main(["--trace", str(a), "--docs", str(out)]) == 0
    first = json.loads((out / "eval" / "fresh.json").read_text())
    assert fresh.main(["--trace", str(a), "--docs", str(out), "--reuse-baselines"]) == 0
    again = json.loads((out / "eval" / "fresh.json").read_text())
    doc = again["a.npz"]["banks"]["1/2"]
    assert "lirs" in doc["reused_from_previous_run"] and "lru" not in doc["reused_from_previous_run"]
    assert doc["policies"]["lirs"] == first["a.npz"]["banks"]["1/2"]["policies"]["lirs"]
    assert "**Provenance.**" in (out / "evaluation-fresh.md").read_text()


def test_the_prototypes_record_holds_every_split():
    """Section 8 reads the training and held-out figures of the prototypes' record, and
    spec-predictor.md the synthetic streams' and the loops': each split is there."""
    record = json.loads(compare_report.PROTOTYPE_RECORD.read_text())
    assert {"train", "heldout", "synthetic", "loops"} <= set(record)
    assert {"dueling", "dueling_bip", "guarded"} <= set(next(iter(record["heldout"].values()))["banks"]["1/8"])


def test_the_shipped_table_figures_the_readme_quotes_are_the_records():
    """README: the SmolLM2 rates at 1/8 with the 2048-entry table, and the sparse decoder's
    loss at 1/2, as section 8's record has them."""
    banks = {name: entry["banks"] for name, entry in json.loads(
        (compare_report.PROTOTYPE_RECORD.parent / "results.json").read_text())["policy_comparison"].items()}
    dense, sparse = banks["SmolLM2 decode, dense"], banks["SmolLM2 decode, sparse top-4 pages"]

    def shipped(bank):
        return bank["policies"]["kv_asu_predictor_shipped"]["hit_rate"]
    loss = 100 * (sparse["1/2"]["policies"]["lru"]["hit_rate"] - shipped(sparse["1/2"]))
    readme = " ".join((compare_report.PROTOTYPE_RECORD.parents[2] / "README.md").read_text().split())
    assert (f"{100 * shipped(dense['1/8']):.1f} % (dense) and {100 * shipped(sparse['1/8']):.1f} % (sparse)"
            in readme)
    assert f"falls {loss:.1f} points below LRU" in readme


def test_decoder_md_states_the_overlap_section_8_does():
    text = " ".join((compare_report.PROTOTYPE_RECORD.parents[1] / "decoder.md").read_text().split())
    share = round(100 * compare_report.SPARSE_DECODER_OVERLAP)
    assert f"{share} % of their accesses are the same line at the same place" in text
    assert f"the other {100 - share} %" in text

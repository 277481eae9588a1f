# SPDX-License-Identifier: Apache-2.0
"""The real-attention workload: block selection on a hand example, and the cached trace."""

from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

from evaluation import real_attention as ra


def test_select_blocks_covers_the_mass():
    # one layer, one head, 4 queries over 4 keys, causal
    p = np.array([[[[1.0, 0, 0, 0],
                    [0.5, 0.5, 0, 0],
                    [0.05, 0.05, 0.9, 0],
                    [0.6, 0.0, 0.1, 0.3]]]])
    offs, blocks = ra.select_blocks(p, block_tokens=2, mass=0.9, top_k=8)
    sel = [blocks[offs[i]:offs[i + 1]].tolist() for i in range(4)]
    assert sel == [[0], [0], [1], [0, 1]]
    offs, blocks = ra.select_blocks(p, block_tokens=1, mass=0.9, top_k=1)
    assert [blocks[offs[i]:offs[i + 1]].tolist() for i in range(4)] == [[0], [0], [2], [0]]


def test_cached_trace_is_causal_and_laid_out():
    # The cache ships with the repository, so the workload needs no model packages.
    assert ra.CACHE.exists(), f"{ra.CACHE} is missing: run python -m evaluation.real_attention"
    prm = ra.AttentionParams(order="decode", query_limit=32)
    a = ra.generate_attention_accesses(prm)
    assert len(a) > 0 and np.all(np.diff(a.cycle.astype(np.int64)) > 0)
    nb = -(-prm.max_tokens // prm.block_tokens)
    line = a.line.astype(np.int64) - (prm.base_addr >> 8)
    assert np.all(line >= 0) and np.all(line < ra.LAYERS * ra.HEADS * nb)
    # a query at position q only reads blocks that hold tokens <= q, all already written
    written = set()
    for x, w in zip(line.tolist(), a.is_write.tolist()):
        if w:
            written.add(x)
        else:
            assert x in written


@pytest.mark.parametrize("bad", [
    {"query_limit": 0}, {"query_limit": -3}, {"tokens_per_frame": 0}, {"tokens_per_frame": -1},
    {"access_interval_cycles": 0}, {"access_interval_cycles": -1}, {"block_tokens": 0},
    {"top_k": 0}, {"top_k": -1}, {"max_tokens": 0}, {"max_tokens": 513}, {"mass": 0.0},
    {"mass": 1.5}, {"mass": float("nan")}, {"base_addr": -256}, {"base_addr": 0x2_0000_0007},
    {"base_addr": 1 << 64}, {"order": "Decode"}, {"query_limit": 2.5}, {"block_tokens": True}])
def test_params_refuse_what_would_give_a_wrong_workload(bad):
    """(``query_limit`` -3 in prefill order wrote all but the last two blocks and read none;
    ``tokens_per_frame`` 0 or -1 gave frame 0 or negative frames; ``base_addr`` -256 or
    2**70 wrapped, one not on a line lost its low bits.)"""
    with pytest.raises((TypeError, ValueError), match=next(iter(bad))):
        ra.AttentionParams(**bad)


def test_params_take_numpy_integers_as_ints():
    """(A numpy ``max_tokens`` failed in the cache's key, which is JSON.)"""
    prm = ra.AttentionParams(max_tokens=np.int64(512), top_k=np.int32(8), query_limit=np.int64(4))
    assert prm.selection_key() == ra.AttentionParams().selection_key()
    assert type(prm.max_tokens) is int and type(prm.query_limit) is int
    assert len(ra.generate_attention_accesses(prm)) == len(
        ra.generate_attention_accesses(ra.AttentionParams(query_limit=4)))


def test_select_blocks_never_picks_a_block_without_attention():
    """Where the selected blocks' float sum stays under ``mass`` (here 1.0), the selection
    stops at the blocks that hold any attention: the rest are future blocks."""
    p = np.array([[[[1.0, 0, 0],
                    [0.6, 0.3999999, 0],
                    [0.3, 0.2, 0.4999999]]]], np.float32)
    offs, blocks = ra.select_blocks(p, block_tokens=1, mass=1.0, top_k=8)
    assert [blocks[offs[i]:offs[i + 1]].tolist() for i in range(3)] == [[0], [0, 1], [0, 1, 2]]
    with pytest.raises(ValueError, match="same tokens"):
        ra.select_blocks(p[:, :, :2], block_tokens=1, mass=0.9, top_k=8)


@pytest.mark.parametrize("kwargs", [{"block_tokens": 0}, {"top_k": -1}, {"mass": 1.5},
                                    {"mass": float("nan")}, {"mass": 0}])
def test_select_blocks_refuses_bad_arguments(kwargs):
    """(``top_k`` -1 selected every block but the last, ``mass`` 1.5 every block, future
    ones included, NaN one block.)"""
    args = {"block_tokens": 1, "mass": 0.9, "top_k": 8, **kwargs}
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ra.select_blocks(np.full((1, 1, 2, 2), 0.5), **args)


def _small_maps(text, max_tokens):
    probs = np.zeros((ra.LAYERS, ra.HEADS, 4, 4), np.float32)
    for q in range(4):
        probs[:, :, q, :q + 1] = 1.0 / (q + 1)
    return np.arange(4), probs


def test_build_selection_writes_the_cache_whole_or_not_at_all(tmp_path, monkeypatch):
    monkeypatch.setattr(ra, "attention_maps", _small_maps)
    path = tmp_path / "cache" / "sel.npz"
    assert ra.build_selection(path=path) == path
    offs, blocks, tokens, meta = ra.load_selection(path=path)
    assert tokens == 4 and len(offs) == ra.LAYERS * ra.HEADS * 4 + 1
    before = path.read_bytes()

    def cut_short(out, **arrays):                 # a disk that fills up mid-write
        with (open(out, "wb") if isinstance(out, (str, Path)) else nullcontext(out)) as f:
            f.write(before[:100])
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(ra.np, "savez_compressed", cut_short)
    with pytest.raises(OSError, match="No space"):
        ra.build_selection(path=path)
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) == ["sel.npz"]


def test_a_cache_cut_short_is_an_error_naming_the_command(tmp_path):
    path = tmp_path / "sel.npz"
    path.write_bytes(ra.CACHE.read_bytes()[:1000])
    with pytest.raises(ra.StaleSelectionError, match="not a selection cache.*make attention-cache"):
        ra.load_selection(path=path)


def test_the_model_is_not_run_past_its_positions():
    """(A text of more than 512 tokens with ``max_tokens`` above 512 failed in NumPy's
    broadcasting, after loading the model.)"""
    with pytest.raises(ValueError, match="max_tokens must be 1..512"):
        ra.attention_maps(max_tokens=513)

# SPDX-License-Identifier: Apache-2.0
"""The cached MiniLM attention selection (``evaluation.real_attention``, the encoder workload
beside the decoder's) is read, never rewritten, by the evaluation: a missing or stale cache is
an error naming ``make attention-cache``, the one command that regenerates it."""

from __future__ import annotations

import dataclasses

import pytest

from evaluation import real_attention as ra


@pytest.fixture
def no_rebuild(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the selection cache was rebuilt")
    monkeypatch.setattr(ra, "build_selection", boom)
    monkeypatch.setattr(ra, "attention_maps", boom)


def test_current_cache_loads(no_rebuild):
    offs, blocks, tokens, meta = ra.load_selection()
    assert tokens == 512 and len(offs) == ra.LAYERS * ra.HEADS * tokens + 1 and len(blocks) == offs[-1]
    assert meta["key"] == ra.AttentionParams().selection_key()


def test_stale_cache_is_an_error_and_is_not_rewritten(no_rebuild, monkeypatch, tmp_path):
    monkeypatch.setattr(ra, "available", lambda: True)        # even where the packages are installed
    before = ra.CACHE.read_bytes()
    stale = dataclasses.replace(ra.AttentionParams(), mass=0.8)
    with pytest.raises(ra.StaleSelectionError, match="regenerate it with make attention-cache"):
        ra.load_selection(stale)
    assert ra.CACHE.read_bytes() == before
    with pytest.raises(FileNotFoundError, match="make attention-cache"):
        ra.load_selection(path=tmp_path / "none.npz")
    assert not (tmp_path / "none.npz").exists()

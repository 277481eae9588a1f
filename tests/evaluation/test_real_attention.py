# SPDX-License-Identifier: Apache-2.0
"""The real-attention workload: block selection on a hand example, and the cached trace."""

import numpy as np

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

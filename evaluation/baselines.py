# SPDX-License-Identifier: Apache-2.0
"""Fast-bank baselines without the KV-ASU: LRU, FIFO and Belady's MIN (offline oracle).

All of them see the same access stream as the KV-ASU runtime and share its bank
semantics: a bank of ``capacity`` lines; a read of a resident line is a hit; a read of a
non-resident line is a miss, fetched from DRAM and installed; a write installs its line
(write-allocate) and is neither a hit nor a miss. When a line must be installed into a
full bank, the policy picks the victim. Belady's MIN may also decline to install a line
(bypass) when that line's next use is farther away than every resident line's: with
bypass, MIN maximises hits over all references, so it is an upper bound for any online
policy on reads here (writes count as references it must not miss for free, which only
helps the bound on this workload, where a written line is always read later).
"""

from __future__ import annotations

import heapq
from collections import OrderedDict

import numpy as np

from .metrics import next_use_index


def _check(lines, is_write, capacity):
    lines = np.asarray(lines)
    if is_write is None:
        is_write = np.zeros(len(lines), dtype=bool)
    is_write = np.asarray(is_write, dtype=bool)
    if capacity < 1:
        raise ValueError("capacity must be >= 1")
    return lines.tolist(), is_write.tolist()


def _simulate_queue(lines, capacity: int, is_write, refresh_on_hit: bool) -> np.ndarray:
    """A bank that evicts from the front of a queue; a hit moves the line to the back
    only if ``refresh_on_hit`` (LRU), else lines leave in arrival order (FIFO)."""
    ls, ws = _check(lines, is_write, capacity)
    bank: OrderedDict = OrderedDict()
    hits = np.zeros(len(ls), dtype=bool)
    for i, (x, w) in enumerate(zip(ls, ws)):
        if x in bank:
            if refresh_on_hit:
                bank.move_to_end(x)
            if not w:
                hits[i] = True
        else:
            if len(bank) >= capacity:
                bank.popitem(last=False)
            bank[x] = None
    return hits


def simulate_lru(lines, capacity: int, is_write=None) -> np.ndarray:
    """Per access: True if it is a read that hit. Least recently used eviction."""
    return _simulate_queue(lines, capacity, is_write, refresh_on_hit=True)


def simulate_fifo(lines, capacity: int, is_write=None) -> np.ndarray:
    """Per access: True if it is a read that hit. First-in first-out eviction."""
    return _simulate_queue(lines, capacity, is_write, refresh_on_hit=False)


def simulate_belady(lines, capacity: int, is_write=None) -> np.ndarray:
    """Per access: True if it is a read that hit. Belady's MIN with bypass (offline)."""
    arr = np.asarray(lines)
    nxt = next_use_index(arr).tolist()
    ls, ws = _check(arr, is_write, capacity)
    resident: dict = {}  # line -> its next use
    heap: list = []  # (-next_use, line), lazily invalidated
    # The heap gains an entry per access; rebuilt from ``resident`` when it holds this many,
    # it stays in proportion to the bank, not to the trace (the victim, the first valid
    # entry in (-next_use, line) order, does not depend on the stale entries).
    compact_at = 4 * max(capacity, 1024)
    hits = np.zeros(len(ls), dtype=bool)
    for i, (x, w) in enumerate(zip(ls, ws)):
        nu = nxt[i]
        if len(heap) >= compact_at:
            heap = [(-u, y) for y, u in resident.items()]
            heapq.heapify(heap)
        if x in resident:
            if not w:
                hits[i] = True
            resident[x] = nu
            heapq.heappush(heap, (-nu, x))
            continue
        if len(resident) < capacity:
            resident[x] = nu
            heapq.heappush(heap, (-nu, x))
            continue
        # Find the resident line with the farthest next use (skip stale heap entries).
        while True:
            negnu, y = heap[0]
            if resident.get(y) == -negnu:
                break
            heapq.heappop(heap)
        if -negnu <= nu:  # the incoming line is needed last: bypass
            continue
        heapq.heappop(heap)
        del resident[y]
        resident[x] = nu
        heapq.heappush(heap, (-nu, x))
    return hits


POLICIES = {"lru": simulate_lru, "fifo": simulate_fifo, "belady": simulate_belady}

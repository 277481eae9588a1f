# SPDX-License-Identifier: Apache-2.0
"""Fast-bank baselines without the KV-ASU: LRU, FIFO and Belady's MIN (offline oracle).

All of them see the same access stream as the KV-ASU runtime and share its bank
semantics: a bank of ``capacity`` lines; a read of a resident line is a hit; a read of a
non-resident line is a miss, fetched from DRAM and installed; a write installs its line
(write-allocate) and is neither a hit nor a miss. When a line must be installed into a
full bank, the policy picks the victim. Belady's MIN may also decline to install a line
(bypass) when that line's next use is farther away than every resident line's: with
bypass, MIN maximises hits over all references, reads and writes alike. That is the most
read hits any policy can have only when no line is written after its first access (a
line's write is then never a hit): true of the video and SmolLM2 workloads. Where lines
are written again (the MiniLM workload writes each 2-token block twice), MIN may keep a
line for a write hit, which counts for nothing, at the cost of a read hit, and LRU or
FIFO can then beat it on reads. ``simulate_belady(..., read_optimal=True)`` is the
optimum for read hits on any stream.
"""

from __future__ import annotations

import functools
import heapq
from collections import OrderedDict

import numpy as np

from .metrics import next_use_index


def _check(lines, is_write, capacity):
    """The stream as lists ``(lines, is_write)``, after checking the arguments: one
    ``is_write`` flag per line (None: all reads) and an integer ``capacity >= 1``."""
    lines = np.asarray(lines)
    if is_write is None:
        is_write = np.zeros(len(lines), dtype=bool)
    is_write = np.asarray(is_write, dtype=bool)
    # The simulations zip the two: a shorter is_write would silently end the stream early.
    if is_write.shape != lines.shape:
        raise ValueError(f"is_write has {is_write.size} flags for {lines.size} lines")
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)):
        raise TypeError(f"capacity must be an integer, not {capacity!r}")
    if capacity < 1:
        raise ValueError("capacity must be >= 1")
    return lines.tolist(), is_write.tolist()


def _simulate_queue(lines, capacity: int, is_write, refresh_on_hit: bool) -> np.ndarray:
    """A bank that evicts from the front of a queue; a hit moves the line to the back
    only if ``refresh_on_hit`` (LRU), else lines leave in arrival order (FIFO). Arguments
    as :func:`simulate_lru`'s; returns per access whether it is a read that hit."""
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
    """A bank of ``capacity`` lines with least recently used eviction, over the stream
    ``lines`` (one line number per access; ``is_write``: one bool per access, None for all
    reads). Returns a bool array: per access, True if it is a read that hit."""
    return _simulate_queue(lines, capacity, is_write, refresh_on_hit=True)


def simulate_fifo(lines, capacity: int, is_write=None) -> np.ndarray:
    """A bank of ``capacity`` lines with first-in first-out eviction, over the stream
    ``lines`` (one line number per access; ``is_write``: one bool per access, None for all
    reads). Returns a bool array: per access, True if it is a read that hit."""
    return _simulate_queue(lines, capacity, is_write, refresh_on_hit=False)


def simulate_belady(lines, capacity: int, is_write=None, *, read_optimal: bool = False) -> np.ndarray:
    """A bank of ``capacity`` lines run by Belady's MIN with bypass (offline: it reads the
    whole stream ahead), over ``lines`` (one line number per access; ``is_write``: one bool
    per access, None for all reads). Returns a bool array: per access, True if it is a read
    that hit.

    ``read_optimal=False``: MIN over every reference (the most hits, reads and writes
    together; module docstring). ``read_optimal=True``: the most read hits. A line whose
    next access is a write is then worth nothing to keep (the write can install it again
    at no cost), so its next use counts as never; the same farthest-next-use rule is
    then optimal, keeping a line across a gap being worth one hit exactly when the gap
    ends in a read. Both are the same on a stream where every write is its line's first
    access.
    """
    arr = np.asarray(lines)
    ls, ws = _check(arr, is_write, capacity)
    nxt = next_use_index(arr).tolist()
    if read_optimal:
        never = len(ls)
        nxt = [never if j < never and ws[j] else j for j in nxt]   # next access a write
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


#: The baselines by name, each giving per access whether it is a read that hit; Belady's is
#: the read-optimal MIN, the most read hits any policy can have (also where lines are
#: written again).
POLICIES = {"lru": simulate_lru, "fifo": simulate_fifo,
            "belady": functools.partial(simulate_belady, read_optimal=True)}

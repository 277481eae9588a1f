# SPDX-License-Identifier: Apache-2.0
"""The core's observation port: the state of every stage in flight, for the formal
harness (``KvAsuCore(..., observe=True)``; real builds leave it out)."""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out

from .interfaces import (ForwardSignature, decision_layout, lanes_layout, stage_layout,
                         window_layout)
from .window import m_stage_layout

__all__ = ["ObservationSignature"]


class ObservationSignature(wiring.Signature):
    """What the core's invariants are stated on (all ``Out`` from the core).

    Members
    -------
    hash_stage : ArrayLayout(stage_layout(params), hash_latency + 1)
        The requests beside the hash: s0 (just accepted) .. s[Lh] (in R).
    m : m_stage_layout(params)
        The request in M and its window start (zero when compact).
    window : window_layout(params)
        The request in E1a (E when compact) and its window (``WindowRead.window``).
    lanes : lanes_layout(params)
        The request in E1b and its lane results (``LaneCompare.lanes``; compact: E's).
    e2 : decision_layout(params)
        The decision in E2 (``Commit.e2``).
    forward : ForwardSignature(params)
        E2's table write and invalidate.
    l_valid : 1
        A request is in L (its response enters the FIFO this cycle).
    occupancy_inc, occupancy_dec : 1
        The insert / eviction L counts into the occupancy at the end of this cycle.
    inflight : range(fifo_depth + 1)
        Requests accepted and not yet taken from the response FIFO (the credits used).
    fifo_level : range(fifo_depth + 1)
        Responses in the FIFO.
    sweep_row : range(ROWS)
        The clear sweep's next row (while ``flushing``).
    sc_mark_row : range(ROWS)
        The row of the scrubber's mark write this cycle.
    lru_pending : ArrayLayout(lru_command_layout, n)
        The LRU commands whose head / tail update is still pending (C2, and C3 with the
        six-stage list), as ``LruList.pending`` has them.
    lru : LruObservationSignature
        The LRU list's pointer writes in flight and bypass state (``LruList.observe``).
    """

    def __init__(self, params, *, hash_latency, fifo_depth, lru_pending_layout, lru):
        p = params
        rows = p.ENTRIES // p.PROBE
        super().__init__({
            "hash_stage": Out(data.ArrayLayout(stage_layout(p), hash_latency + 1)),
            "m": Out(m_stage_layout(p)),
            "window": Out(window_layout(p)),
            "lanes": Out(lanes_layout(p)),
            "e2": Out(decision_layout(p)),
            "forward": Out(ForwardSignature(p)),
            "l_valid": Out(1),
            "occupancy_inc": Out(1), "occupancy_dec": Out(1),
            "inflight": Out(range(fifo_depth + 1)),
            "fifo_level": Out(range(fifo_depth + 1)),
            "sweep_row": Out(range(rows)),
            "sc_mark_row": Out(range(rows)),
            "lru_pending": Out(lru_pending_layout),
            "lru": Out(lru),
        })

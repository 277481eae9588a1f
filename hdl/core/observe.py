# SPDX-License-Identifier: Apache-2.0
"""The core's observation port: the state of every stage in flight, for the formal
harness (``KvAsuCore(..., observe=True)``; real builds leave it out)."""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out

from .interfaces import (ForwardSignature, decision_layout, lanes_layout, stage_layout,
                         window_layout)
from .window import m_stage_layout

__all__ = ["ObservationSignature", "drive_observation"]


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
        The row the clear sweep clears this cycle (while ``flushing``).
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
        rows = p.ROWS
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


def drive_observation(m, observe, *, hash_stage, admission, window, lanes, commit, table,
                      lru, fifo):
    """Drive the core's ``observe`` port (``ObservationSignature``) in ``m`` from the
    stages' own ports: nothing is observed that is not a port of a stage, so the formal
    harness states its invariants on the same signals the stages connect through.

    ``hash_stage`` is the list of the requests beside the hash (s0 .. s[Lh]); the others
    are the core's ``Admission``, ``WindowRead``, ``LaneCompare``, ``Commit``,
    ``BucketTable``, ``LruList`` and response FIFO.
    """
    m.d.comb += [observe.hash_stage[k].eq(x) for k, x in enumerate(hash_stage)]
    m.d.comb += [getattr(observe.forward, name).eq(getattr(commit.forward, name))
                 for name in commit.forward.signature.members]
    m.d.comb += [
        observe.m.eq(window.m), observe.window.eq(window.window),
        observe.lanes.eq(lanes.lanes), observe.e2.eq(commit.e2),
        observe.l_valid.eq(commit.response.valid),
        observe.occupancy_inc.eq(commit.occupancy_inc),
        observe.occupancy_dec.eq(commit.occupancy_dec),
        observe.inflight.eq(admission.inflight), observe.fifo_level.eq(fifo.level),
        observe.sweep_row.eq(admission.sweep_row),
        observe.sc_mark_row.eq(table.sc_mark_row),
        observe.lru_pending.eq(lru.pending),
    ]
    m.d.comb += [getattr(observe.lru, name).eq(getattr(lru.observe, name))
                 for name in lru.observe.signature.members]

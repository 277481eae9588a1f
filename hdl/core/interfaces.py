# SPDX-License-Identifier: Apache-2.0
"""What travels between the core's stages: the request as a stage holds it, the decision
of the evaluation, and E2's write back to the stages before it (``ForwardSignature``)."""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out

__all__ = ["stage_layout", "bank_layout", "lane_layout", "decision_layout", "ForwardSignature"]


def stage_layout(p):
    """A request in a pipeline stage: ``valid``, ``op``, ``min_tlevel``, its line's ``tag``
    and its time ``t`` (the tick at acceptance)."""
    return data.StructLayout({
        "valid": 1, "op": 2, "min_tlevel": 2, "tag": p.TAG_WIDTH, "t": p.TS_WIDTH,
    })


def bank_layout(p):
    """One bank's word of a window as M registers it (bank order): the entry, its valid,
    fresh and mark bits, its table row, and whether that row is the row of the scrubber's
    mark write in the next cycle (``sc_row_hit``)."""
    return data.StructLayout({
        "tag": p.TAG_WIDTH, "count": p.COUNT_WIDTH, "last": p.TS_WIDTH,
        "valid": 1, "fresh": 1, "mark": 1, "row": range(p.ENTRIES // p.PROBE),
        "sc_row_hit": 1,
    })


def lane_layout(p):
    """One lane's result as E1a registers it for E1b: tracked, matching, its saturated age,
    tag, count, mark, slot, the count plus one and plus two (saturating), and whether its
    row is the row of the scrubber's mark write in E1b's cycle (``sc_row_hit``)."""
    return data.StructLayout({
        "valid": 1, "match": 1, "age": p.TS_WIDTH, "tag": p.TAG_WIDTH,
        "count": p.COUNT_WIDTH, "mark": 1, "slot": p.SLOT_WIDTH,
        "count_inc": p.COUNT_WIDTH, "count_inc2": p.COUNT_WIDTH,
        "sc_row_hit": 1,
    })


def decision_layout(p):
    """The evaluation's decision for one request (from its window's lanes): the request
    itself (as ``stage_layout``), the matching lane (``present``, ``hit_*``), the first
    free lane (``any_free``, ``free_*``), the victim (``vict_*``; ``vict_t0``: it is T0),
    the LRU tail for an EVICT (``take``, ``tail_*``; ``tail_slot`` is also the window
    start), and the write an OBSERVE makes (``wr*``, ``cnt_after*``)."""
    P, sw, ts = p.PROBE, p.SLOT_WIDTH, p.TS_WIDTH
    return data.StructLayout({
        "valid": 1, "op": 2, "min_tlevel": 2, "tag": p.TAG_WIDTH, "t": ts,
        "present": 1, "hit_slot": sw, "hit_cnt": p.COUNT_WIDTH, "hit_age": ts, "hit_mark": 1,
        "any_free": 1, "free_slot": sw, "free_mark": 1,
        "vict_t0": 1, "vict_slot": sw, "vict_tag": p.TAG_WIDTH, "vict_mark": 1,
        "take": 1, "tail_tag": p.TAG_WIDTH, "tail_slot": sw,
        "wr_lane": P,      # one-hot: the lane an OBSERVE writes (0: none)
        "wr_slot": sw,     # and its slot and mark (E2's write without a multiplexer)
        "wr_mark": 1,
        "wr": 1,           # a valid OBSERVE that writes: E2's write enable
        "inv": 1,          # a valid EVICT that takes the tail: E2's invalidate enable
        "cnt_after": p.COUNT_WIDTH,      # the count an OBSERVE leaves (E2's write)
        "cnt_after_inc": p.COUNT_WIDTH,  # and one more (for a follower of the line)
    })


class ForwardSignature(wiring.Signature):
    """E2's table write and invalidate, as the commit stage drives them: into the table,
    and back into the stages behind it (M's snoop, E1a's lanes, E1b's versions), which
    see the line the request ahead leaves before the table does.

    Members (all ``Out`` from the commit stage)
    -------------------------------------------
    write : 1
        An OBSERVE writes a slot this cycle.
    lane : PROBE
        One-hot: the lane of its window it writes (0 if none).
    slot, tag, last, count, mark
        The entry written: slot, tag, last-access tick, count, and the mark it carries.
    count_inc : COUNT_WIDTH
        ``min(count + 1, COUNT_MAX)``: the count a follower of the same line leaves.
    invalidate : 1
        An EVICT / EVICT_ANY untracks the LRU tail this cycle.
    window : SLOT_WIDTH
        The window start of the request in E2; for an EVICT the tail slot it untracks
        (lane 0).
    """

    def __init__(self, p):
        super().__init__({
            "write": Out(1), "lane": Out(p.PROBE), "slot": Out(p.SLOT_WIDTH),
            "tag": Out(p.TAG_WIDTH), "last": Out(p.TS_WIDTH), "count": Out(p.COUNT_WIDTH),
            "count_inc": Out(p.COUNT_WIDTH), "mark": Out(1),
            "invalidate": Out(1), "window": Out(p.SLOT_WIDTH),
        })

# SPDX-License-Identifier: Apache-2.0
"""What travels between the core's stages: the request as a stage holds it, the decision
of the evaluation, and E2's write back to the stages before it (``ForwardSignature``)."""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out

from ..table import sides_layout

__all__ = ["pmeta_layout", "stage_layout", "bank_layout", "lane_layout", "window_layout",
           "lanes_layout", "decision_layout", "ForwardSignature"]


def pmeta_layout():
    """The predictor mode's per-slot fields (docs/spec-predictor.md P3, P12), the word of
    the table's ``pmeta`` array in a build with the mode (``BucketTable(pmeta_width=...)``):
    ``ghost`` (the slot holds an evicted line), ``burst`` (accesses in a row within W3),
    ``pkey`` (the key of the line's latest OBSERVE), ``pred`` (its prediction), ``probe``
    and ``stamp`` (the guard's probe and its epoch), ``seen`` (the line's earlier
    OBSERVEs): 18 bits."""
    from ..predictor.constants import BURST_WIDTH, EPOCH_WIDTH, KEY_WIDTH, SEEN_WIDTH
    return data.StructLayout({"ghost": 1, "burst": BURST_WIDTH, "pkey": KEY_WIDTH, "pred": 1,
                              "probe": 1, "stamp": EPOCH_WIDTH, "seen": SEEN_WIDTH})


def stage_layout(p):
    """A request in a pipeline stage: ``valid``, ``op``, ``min_tlevel``, its line's ``tag``
    and its time ``t`` (the tick at acceptance)."""
    return data.StructLayout({
        "valid": 1, "op": 2, "min_tlevel": 2, "tag": p.TAG_WIDTH, "t": p.TS_WIDTH,
    })


def bank_layout(p):
    """One bank's word of a window as E1a reads it (bank order; in the fast pipeline the
    table's registered read, M's): the entry, its valid, fresh and mark bits, its table
    row, whether that row is the row of the scrubber's mark write in E1a's cycle
    (``sc_row_hit``), and its word on both sides of the table's bypass choices (``sides``,
    ``hdl.table.sides_layout``: the count, stamp, fresh bit, mark, valid bit, raw tag, and
    the bypassed tag's comparison with the request's, made in M)."""
    return data.StructLayout({
        "tag": p.TAG_WIDTH, "count": p.COUNT_WIDTH, "last": p.TS_WIDTH,
        "valid": 1, "fresh": 1, "mark": 1, "row": range(p.ROWS),
        "sc_row_hit": 1, "sides": sides_layout(p),
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


def window_layout(p):
    """The window of the request entering E1a (E in the compact pipeline), as
    ``WindowRead`` hands it to ``LaneCompare``: the request, its window start, each lane's
    slot, the banks' words (bank order), and what E1a's forwards need, registered a cycle
    ahead (split evaluation only):

    * ``overlap[i][j]``: lane ``i`` is lane ``j`` of the window of the request in E2 (the
      write E1a forwards);
    * ``overlap_next[i][j]``: the same for the request in E1b (the write E1b's version
      pick forwards);
    * ``same_line``, ``forward_age``: this request's line is the line of the request in
      E2, and the age E2's write leaves it;
    * ``t_w1``: ``t - W1 - 1``, for E1a's "older than W1" comparisons.
    """
    P, sw, ts = p.PROBE, p.SLOT_WIDTH, p.TS_WIDTH
    return data.StructLayout({
        "request": stage_layout(p), "start": sw,
        "lane_slot": data.ArrayLayout(sw, P),
        "bank": data.ArrayLayout(bank_layout(p), P),
        "overlap": data.ArrayLayout(P, P), "overlap_next": data.ArrayLayout(P, P),
        "same_line": 1, "forward_age": ts, "t_w1": ts,
    })


def lanes_layout(p):
    """The lanes of the request in E1b (in E: of the request in E), as ``LaneCompare``
    hands them to ``Versions``: the request, its window start, every lane's result
    (``lane_layout``), and the victim choice's age comparisons, all from registers in the
    split evaluation:

    * ``older[i][j]``: lane ``i``'s age exceeds lane ``j``'s, both as read (the split
      evaluation) or as forwarded (compact: no forward);
    * ``forwarded``: lane ``i`` holds E2's forwarded write; ``forward_older[j]`` /
      ``older_forward[i]``: the forwarded age exceeds lane ``j``'s as read / lane ``i``'s
      as read exceeds the forwarded age (``Versions`` picks ``older`` from these three);
    * ``older_ahead[i]`` / ``ahead_older[i]``: lane ``i``'s age exceeds / is exceeded by
      the age the request ahead (in E2 next cycle) leaves its line (``age_ahead``);
    * ``beyond_w1[i]``, ``ahead_beyond_w1``: lane ``i``'s / ``age_ahead`` exceeds W1;
    * ``same_line_ahead``: this request's line is the line of the request ahead;
    * ``ahead_in_window[j]``: lane ``j`` of the request ahead's window is in this window;
      ``ahead_lane[i][j]``: it is lane ``i`` of this window.
    """
    P, ts = p.PROBE, p.TS_WIDTH
    return data.StructLayout({
        "request": stage_layout(p), "start": p.SLOT_WIDTH,
        "lane": data.ArrayLayout(lane_layout(p), P),
        "older": data.ArrayLayout(P, P),
        "forwarded": P, "forward_older": P, "older_forward": P,
        "older_ahead": P, "ahead_older": P, "beyond_w1": P, "ahead_beyond_w1": 1,
        "same_line_ahead": 1, "age_ahead": ts,
        "ahead_in_window": P, "ahead_lane": data.ArrayLayout(P, P),
    })


def decision_layout(p):
    """The evaluation's decision for one request (from its window's lanes): the request
    itself (as ``stage_layout``), whether a lane matches (``present``; its slot, count
    and age ``hit_*``), whether a lane is free (``any_free``), the victim (``vict_lane``,
    one-hot; ``vict_t0``: it is T0),
    the LRU tail for an EVICT (``take``, ``tail_slot``, also the window start; its tag is
    lane 0's), and the write an OBSERVE makes (``wr*``, ``cnt_after*``). The tags are
    carried per lane (``lane_tag``, with the line the request ahead leaves in the lane it
    writes) and the victim's one-hot (``vict_lane``), so that the victim's tag, which only
    the response needs, is selected in E2 rather than behind the version pick."""
    P, sw, ts = p.PROBE, p.SLOT_WIDTH, p.TS_WIDTH
    return data.StructLayout({
        "valid": 1, "op": 2, "min_tlevel": 2, "tag": p.TAG_WIDTH, "t": ts,
        "present": 1, "hit_slot": sw, "hit_cnt": p.COUNT_WIDTH, "hit_age": ts,
        "any_free": 1,
        "vict_t0": 1, "vict_lane": P,
        "take": 1, "tail_slot": sw,
        "lane_tag": data.ArrayLayout(p.TAG_WIDTH, P),
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
    and back into the stages behind it (E1a's lanes, E1b's versions; the table bypasses the
    write of M's cycle itself), which see the line the request ahead leaves before the
    table does.

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

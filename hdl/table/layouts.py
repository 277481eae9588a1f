# SPDX-License-Identifier: Apache-2.0
"""The bucket table's shapes and addressing: the generation width, a slot's ``ent`` and
``meta`` words, a bank's word on both sides of the bypass (``sides_layout``), the rotation
of bank order into probe order, and a slot's bank and row."""

from amaranth import Array, Const
from amaranth.lib import data

from ..layouts import check_int

__all__ = ["GEN_WIDTH", "MAX_GEN_WIDTH", "check_gen_width", "ent_word_layout",
           "meta_word_layout", "scrub_lane_layout", "sides_layout", "probe_order", "split_slot", "in_bank"]

#: Bits of the table generation (docs/spec-decisions.md D12): ``2**GEN_WIDTH`` generations,
#: so every ``2**GEN_WIDTH``-th flush or reset sweeps the valid bits.
GEN_WIDTH = 4
#: The widest generation a build may choose: every slot's word stores the generation, and
#: with 16 bits the clear sweep already runs only once in 65536 flushes, so more bits would
#: cost block RAM in every slot and buy nothing.
MAX_GEN_WIDTH = 16


def check_gen_width(gen_width):
    """``gen_width`` if it is an integer 1 .. ``MAX_GEN_WIDTH``; ``TypeError`` /
    ``ValueError`` otherwise."""
    return check_int("gen_width", gen_width, 1, MAX_GEN_WIDTH)


def ent_word_layout(p):
    """A slot's word in an ``ent`` bank: its tag and its count."""
    return data.StructLayout({"tag": p.TAG_WIDTH, "count": p.COUNT_WIDTH})


def meta_word_layout(p, gen_width):
    """A slot's word in a ``meta`` bank: its last-access stamp, the generation it was
    written in, its fresh bit (the scrubber's stale marks) and its valid bit."""
    return data.StructLayout({"last": p.TS_WIDTH, "gen": gen_width, "fresh": 1, "valid": 1})


def scrub_lane_layout(p):
    """A slot's lane in a ``scrub`` row: the ``meta`` word without its generation."""
    return data.StructLayout({"last": p.TS_WIDTH, "fresh": 1, "valid": 1})


def sides_layout(p):
    """A bank's word on both sides of the window read's bypass choices
    (``BucketTable.bk_sides``): ``ent`` / ``meta`` / ``mark``, the choice of the ``ent`` /
    ``meta`` / ``mark`` word (the bypassed word if set); the ``*_raw`` fields from the block
    RAM's read, the ``*_byp`` ones from the bypass registers: the count, the last-access
    stamp, the fresh bit, the mark; and ``match``, the word as chosen is tracked and holds
    the tag of the request the window is read for (``rd_tag``), made on both sides and
    chosen inside one comparison (``hdl.match.Match``)."""
    return data.StructLayout({
        "ent": 1, "count_raw": p.COUNT_WIDTH, "count_byp": p.COUNT_WIDTH, "match": 1,
        "meta": 1, "last_raw": p.TS_WIDTH, "last_byp": p.TS_WIDTH,
        "fresh_raw": 1, "fresh_byp": 1,
        "mark": 1, "mark_raw": 1, "mark_byp": 1,
    })


def probe_order(bank_values, lo, i):
    """Lane ``i`` of a window whose lane 0 is in bank ``lo``: ``bank_values`` (one value
    per bank, bank order) rotated into probe order, lane ``i`` = bank ``(lo + i) mod P``
    (PROBE is a power of two). The one rotation of the design: the core's E stage rotates
    the table's bank-order words (registered in M, or straight from ``bk_*``) with it.
    """
    pb = len(bank_values).bit_length() - 1
    if not pb:
        return bank_values[0]
    return Array(bank_values)[(lo + i)[:pb]]


def split_slot(slot, pb):
    """``(bank, row)`` of a slot: its low ``pb`` bits and the rest."""
    return slot[:pb], slot[pb:]


def in_bank(bank, b):
    """The slot whose bank is ``bank`` (from ``split_slot``) is in bank ``b``."""
    return (bank == b) if len(bank) else Const(1)

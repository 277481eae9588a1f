# SPDX-License-Identifier: Apache-2.0
"""Soft errors in the golden model: decision D11 of ``docs/spec-decisions.md``.

The RTL checks every block-RAM word it reads. This module is the model's side of what a
check that fails does, so that a scoreboard told of an error (by the RTL's ``ERR_*``
registers, or by a fault-injection harness) keeps predicting every response:

- a *corrected* error (SECDED, one bit) changes no state; it is counted and may become the
  "first error";
- an *uncorrectable* error in a table or LRU memory starts a recovery: the block forgets
  every line (a flush), the requests that were between acceptance and their decision when
  it was detected are answered as untracked lines with no effect, and the block is empty
  afterwards;
- an uncorrectable error in a statistics word restarts that counter from zero.

:class:`KvAsuModel` holds a :class:`SoftErrorState` and calls :func:`recovery_responses`
for the requests of a recovery; the methods a scoreboard calls are
``KvAsuModel.on_error``, ``KvAsuModel.end_recovery``, ``KvAsuModel.soft_errors`` and
``KvAsuModel.clear_soft_errors``.
"""

from __future__ import annotations

from typing import NamedTuple

import regmap

__all__ = ["MEM_IDS", "TABLE_MEMORIES", "LRU_MEMORIES", "STATS_MEMORY", "FirstError",
           "SoftErrors", "SoftErrorState", "recovery_bound", "recovery_responses"]

#: The memories of D11, by name, with the ``MEM_ID`` the ``ERR_FIRST_MEM`` register reports.
MEM_IDS = dict(regmap.MEM_IDS)
TABLE_MEMORIES = ("ent", "meta", "mark", "scrub")
LRU_MEMORIES = ("prev0", "prev1", "next0", "next1")
STATS_MEMORY = "stats"

_COUNTER_MAX = 2**32 - 1        # ERR_UNCORRECTED and ERR_CORRECTED saturate at 32 bits


def recovery_bound(params, latency: int) -> int:
    """D11's recovery bound ``R`` of a block of ``params`` and request latency ``latency``:
    ``req.ready`` rises again at most ``LATENCY + ENTRIES + 3`` cycles after the detection
    (the sweep's ``ENTRIES`` cycles and two for the reads issued before the sweep rewrote
    their word), ``LATENCY + ENTRIES + 4`` with ``PROBE`` 1 (the table's last row is
    rewritten in the sweep's last cycle: three for a read of it in that cycle). The model
    is untimed; the testbenches hold the block to this."""
    return latency + params.ENTRIES + (4 if params.PROBE == 1 else 3)


class FirstError(NamedTuple):
    """``ERR_FIRST_*``: where and when the first error since the last clear was found."""
    memory: str
    address: int          # a slot (table and LRU memories) or a counter index (statistics)
    uncorrectable: bool
    cycle: int | None     # the detection cycle, if the caller knows it

    @property
    def mem_id(self) -> int:
        return MEM_IDS[self.memory]


class SoftErrors(NamedTuple):
    """The soft-error registers of D11 as read: ``sticky`` (``STATUS.SOFT_ERROR``),
    ``recovering`` (``STATUS.RECOVERING``), ``uncorrected`` (``ERR_UNCORRECTED``),
    ``first`` (``ERR_FIRST_*``, None if none); and ``corrected``, the corrected errors the
    model was told of, which is *not* ``ERR_CORRECTED``: the register counts cycles with a
    corrected read, a health figure the model does not predict (D11)."""
    sticky: bool
    recovering: bool
    uncorrected: int
    corrected: int
    first: FirstError | None


class SoftErrorState:
    """The model's soft-error registers (see :class:`SoftErrors`), mutable."""

    def __init__(self):
        self.recovering = False
        self.clear()

    def snapshot(self) -> SoftErrors:
        return SoftErrors(self.sticky, self.recovering, self.uncorrected, self.corrected,
                          self.first)

    def record(self, memory: str, address: int, uncorrectable: bool, cycle) -> None:
        """Count one error and keep it as the first if it is (an uncorrectable error
        replaces a corrected first one, never the other way round)."""
        if uncorrectable:
            self.sticky = True
            self.uncorrected = min(self.uncorrected + 1, _COUNTER_MAX)
        else:
            self.corrected = min(self.corrected + 1, _COUNTER_MAX)
        if self.first is None or (uncorrectable and not self.first.uncorrectable):
            self.first = FirstError(memory, address, uncorrectable, cycle)

    def clear(self) -> None:
        """``CTRL.CLEAR_SOFT_ERROR``: everything but a recovery under way."""
        self.sticky = False
        self.uncorrected = self.corrected = 0
        self.first = None


def recovery_responses(ops, min_tlevels, stats: list, stat_index: dict,
                       out: list | None) -> None:
    """Requests accepted during a recovery (D11 step 2): each is answered as a line the
    block does not track, and changes nothing but the statistics.

    ``stats`` is the model's counter list (indexed by ``stat_index[name]``); ``out``, if a
    list, receives the responses as tuples in ``Response`` field order.
    """
    observe, query = regmap.OPS["OBSERVE"], regmap.OPS["QUERY"]   # else EVICT, EVICT_ANY
    for op, min_tlevel in zip(ops, min_tlevels):
        if op == observe:
            for name in ("observes", "drops", "obs_t0"):
                stats[stat_index[name]] += 1
            row = (op, 0, 0, 0, 0, 0, int(min_tlevel == 0), 0, 0, 0)
        elif op == query:
            hit = int(min_tlevel == 0)
            stats[stat_index["queries"]] += 1
            stats[stat_index["query_hits"]] += hit
            row = (op, 0, 0, 0, 0, 0, hit, 0, 0, 0)
        else:
            stats[stat_index["evicts_empty"]] += 1
            row = (op, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if out is not None:
            out.append(row)

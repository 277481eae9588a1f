# SPDX-License-Identifier: Apache-2.0
"""``Recovery``: what the core does when a table or LRU word fails its check
(docs/spec-decisions.md D11, "forget everything").

In the cycle ``d`` an uncorrectable error is seen (``error``) with no recovery running, the
sequencer starts: from ``d + 1`` ``active`` is high, which holds ``req.ready`` low; every
request that reaches the decision from ``d`` on is an untracked line with no effect (the
core gates its decision with ``active | error``). Once the core is ``idle`` (every accepted request
answered into the response FIFO) it gives one ``flush`` pulse (the LRU list empty, the
occupancy 0) and then sweeps: ``sweep_en`` with ``sweep_addr`` = 0, 1, .., ``ENTRIES - 1``,
one word of every table and LRU memory per cycle (the table's ``ENTRIES / PROBE`` rows in
the first cycles). ``active`` stays high for ``settle`` more cycles, so that the reads
issued before the sweep rewrote their word have arrived and, like every error seen while
``active``, belong to this recovery: two, or three when the table's last row is rewritten
in the sweep's last cycle (``PROBE`` 1), where a read of it in that cycle reads the old
word and its check is registered three cycles later (the table's registered read, two
cycles, and the check's register). See ``settle_cycles``.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_int

__all__ = ["Recovery", "connect_recovery", "settle_cycles"]


def settle_cycles(params) -> int:
    """The cycles ``Recovery.active`` stays high after the sweep's last write in a core of
    ``params`` (D11): 2, or 3 with ``PROBE`` 1. A table read in the cycle a sweep write
    rewrites its word returns the old word (read before write), and its check is registered
    three cycles after; with ``PROBE`` 2 or more the table's rows are rewritten at least
    ``ENTRIES / 2`` cycles before the sweep's end, with ``PROBE`` 1 in its last cycle."""
    return 3 if params.PROBE == 1 else 2


class Recovery(wiring.Component):
    """The soft-error recovery sequencer.

    Parameters
    ----------
    entries : int
        Words swept (``ENTRIES``: the LRU banks' depth, the deepest memory).
    settle : int
        Cycles ``active`` stays high after the last sweep write (``settle_cycles``; 2 by
        default).

    Ports
    -----
    error : In(1)
        An uncorrectable error in a table or LRU memory this cycle.
    idle : In(1)
        The core has no accepted request in flight (``Admission.idle``).
    start : Out(1)
        A recovery starts: ``error`` while not ``active`` (combinational).
    active : Out(1)
        A recovery is running (from the cycle after ``start`` to the end of the settle).
    flush : Out(1)
        One-cycle pulse: the drain is over; flush the LRU list and the occupancy.
    sweep_en : Out(1), sweep_addr : Out(range(entries))
        Write the zero code word to word ``sweep_addr`` of every memory (registers: high
        exactly in the cycles of the ``SWEEP`` state).
    """

    def __init__(self, entries, settle=2):
        check_int("entries", entries, 1)
        check_int("settle", settle, 1)
        self.entries, self.settle = entries, settle
        super().__init__({
            "error": In(1), "idle": In(1),
            "start": Out(1), "active": Out(1), "flush": Out(1),
            "sweep_en": Out(1), "sweep_addr": Out(range(entries)),
        })

    def elaborate(self, platform):
        m = Module()
        addr = self.sweep_addr
        settle = Signal(range(self.settle + 1))
        m.d.comb += self.start.eq(self.error & ~self.active)
        with m.FSM(name="recovery"):
            with m.State("IDLE"):
                with m.If(self.error):
                    m.d.sync += self.active.eq(1)
                    m.next = "DRAIN"
            with m.State("DRAIN"):
                with m.If(self.idle):
                    m.d.comb += self.flush.eq(1)
                    m.d.sync += [addr.eq(0), self.sweep_en.eq(1)]
                    m.next = "SWEEP"
            with m.State("SWEEP"):
                m.d.sync += addr.eq(addr + 1)
                with m.If(addr == self.entries - 1):
                    m.d.sync += [settle.eq(self.settle), self.sweep_en.eq(0)]
                    m.next = "SETTLE"
            with m.State("SETTLE"):
                m.d.sync += settle.eq(settle - 1)
                with m.If(settle == 1):
                    m.d.sync += self.active.eq(0)
                    m.next = "IDLE"
        return m


def connect_recovery(m, recovery, *, table, lru, admission, report):
    """Wire ``recovery`` in ``m`` to the memories it sweeps and to the error report
    (D11).

    The table's (``BucketTable``) and the LRU list's (``LruList``) checks are registered
    before they are used: the recovery starts from the registered checks (their OR,
    ``report.err_uncorrectable``: the detection cycle ``d``), and the report collected from
    them (which memory, which slot; the table's first) is registered once more for the
    register block. ``admission`` gives ``idle``; ``report`` is the core, whose ports
    ``err_started``, ``err_corrected``, ``err_mem``, ``err_addr``, ``err_uncorrectable``,
    ``recovery_start`` and ``recovering`` are driven here.
    """
    rec, rows = recovery, table.rows
    table_first = table.err_uncorrectable | (table.err_corrected & ~lru.err_uncorrectable)
    # The report of the detection cycle, registered for the register block.
    m.d.sync += [
        report.err_started.eq(rec.start),
        report.err_corrected.eq(table.err_corrected | lru.err_corrected),
        report.err_mem.eq(Mux(table_first, table.err_mem, lru.err_mem)),
        report.err_addr.eq(Mux(table_first, table.err_slot, lru.err_slot)),
    ]
    m.d.comb += [
        report.err_uncorrectable.eq(table.err_uncorrectable | lru.err_uncorrectable),
        rec.error.eq(report.err_uncorrectable),
        rec.idle.eq(admission.idle),
        report.recovery_start.eq(rec.start),
        report.recovering.eq(rec.active),
        lru.sweep_en.eq(rec.sweep_en), lru.sweep_addr.eq(rec.sweep_addr),
        table.sweep_en.eq(rec.sweep_en & (rec.sweep_addr < rows)),
        table.sweep_row.eq(rec.sweep_addr[:max(0, rows.bit_length() - 1)]),
    ]

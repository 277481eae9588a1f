# SPDX-License-Identifier: Apache-2.0
"""The timestamp scrubber: marks lines stale before their stored time can alias.

A slot keeps only ``TS_WIDTH`` bits of its last-access tick. The scrubber visits one table
row (``PROBE`` slots, one per bank) per cycle, so every slot once every
``ROWS = ENTRIES / PROBE`` cycles, and sets the ``stale`` mark of every tracked slot whose
age exceeds ``WMAX`` at a reference time. A stale slot's saturated age is ``WMAX + 1``
whatever its stored ``last``; a slot that is not stale is at most
``WMAX + ceil(ROWS / 2**TICK_SHIFT)`` ticks old, which is below ``2**TS_WIDTH`` when
``ROWS <= 2**(TS_WIDTH - 1 + TICK_SHIFT)`` (checked by the core), so its modular age is
exact. The mark is cleared by the next write of the slot.

The table writes a decision in the cycle after it is made. The reference time is the tick
of the request in the core's evaluation stage in that cycle: ``tick(cycle + 1 - lag)`` with
``lag`` the core's acceptance-to-evaluation latency. So every write the scrubber sees is of
a time not later than the reference (no negative ages), and every request that reads a
mark once it is written has a time not earlier than the reference (a mark never claims a
line older than it is for that request).

See docs/rtl.md, "Scrubber".
"""

from amaranth import *
from amaranth.lib import wiring, data
from amaranth.lib.wiring import In, Out

from .layouts import check_int, check_params

__all__ = ["Scrubber", "connect_scrubber"]


class Scrubber(wiring.Component):
    """Round-robin row scrubber.

    Parameters
    ----------
    params : regmap.Params
    lag : int
        Cycles from a request's acceptance to its evaluation stage in the core (at least
        0; default 0).

    Ports
    -----
    cycle : In(64)
        The cycle counter.
    sc_row : Out(range(ROWS))
        Row to read this cycle (advances every cycle, wraps).
    sc_last : In(ArrayLayout(TS_WIDTH, PROBE)), sc_valid : In(PROBE)
        ``last`` and ``valid`` of the row addressed two cycles before (from the table).
    sc_set : Out(PROBE)
        Mark lane ``b`` of that row stale (the table writes the mark in the next cycle).
    """

    def __init__(self, params=None, *, lag=0):
        params = check_params(params)
        check_int("lag", lag, 0)
        self._params = params
        self._lag = lag
        self.rows = params.ROWS
        super().__init__({
            "cycle": In(64),
            "sc_row": Out(range(self.rows)),
            "sc_last": In(data.ArrayLayout(params.TS_WIDTH, params.PROBE)),
            "sc_valid": In(params.PROBE),
            "sc_set": Out(params.PROBE),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        ts, sh = p.TS_WIDTH, p.TICK_SHIFT
        if self.rows > 1:
            m.d.sync += self.sc_row.eq(Mux(self.sc_row == self.rows - 1, 0, self.sc_row + 1))
        # ref = tick(cycle + 1 - lag) (the cycle the table writes the mark), made one
        # cycle ahead into a register (off the path from the scrubber's data to its mark).
        # Wrong only in the first cycle after reset, when no slot is tracked (a reset starts
        # a new table generation).
        ref = Signal(ts)
        m.d.sync += ref.eq((self.cycle[:ts + sh] + 2 - self._lag)[:ts + sh][sh:])
        for b in range(p.PROBE):
            age = (ref - self.sc_last[b])[:ts]
            # age > WMAX == 2**(TS_WIDTH-1) - 1: the top bit of the age
            m.d.comb += self.sc_set[b].eq(self.sc_valid[b] & age[ts - 1])
        return m


def connect_scrubber(m, scrubber, *, table, cycle):
    """Wire ``scrubber`` in ``m`` to ``table``'s scrubber row port (``BucketTable``'s
    ``sc_row``, ``sc_last``, ``sc_valid``, ``sc_set``) and to the cycle counter ``cycle``."""
    m.d.comb += [
        scrubber.cycle.eq(cycle),
        table.sc_row.eq(scrubber.sc_row),
        scrubber.sc_last.eq(table.sc_last),
        scrubber.sc_valid.eq(table.sc_valid),
        table.sc_set.eq(scrubber.sc_set),
    ]

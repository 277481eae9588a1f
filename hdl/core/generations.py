# SPDX-License-Identifier: Apache-2.0
"""The table generation and the clear sweep (docs/spec-decisions.md D12), as the admission
keeps them: a flush, or a reset, untracks every line by starting a new generation in one
cycle, and only when every generation since the last sweep has been used does it clear the
table row by row instead."""

from amaranth import *

__all__ = ["table_generations"]


def table_generations(m, *, gen_width, rows, flush):
    """The generation, the count of generations used since the last sweep, whether the
    clear sweep runs and its row, as registers of ``m`` with no reset (their power-up
    values are generation 0, count 0, no sweep, for a block RAM that is all zero). A
    ``flush``, or the first cycle of a reset (however many cycles ``rst`` is high), starts
    a new generation, or, when all ``2**gen_width`` have been used, the sweep of ``rows``
    rows, which ends with the count at 0; a reset during a sweep starts it again at row 0
    and a flush during it does nothing."""
    generation = Signal(gen_width, reset_less=True)
    used = Signal(range(2 ** gen_width), reset_less=True)
    sweeping = Signal(reset_less=True)
    sweep_row = Signal(range(rows), reset_less=True)
    rst = ResetSignal()
    rst_q = Signal(reset_less=True)
    m.d.sync += rst_q.eq(rst)
    untrack = Signal()           # a flush, or the first cycle of a reset
    m.d.comb += untrack.eq(Mux(rst, ~rst_q, flush))
    with m.If(sweeping):
        with m.If(rst):
            m.d.sync += sweep_row.eq(0)     # starts (again) at cycle 0 after reset
        with m.Else():
            m.d.sync += sweep_row.eq(sweep_row + 1)
            with m.If(sweep_row == rows - 1):
                m.d.sync += [sweeping.eq(0), sweep_row.eq(0), used.eq(0)]
    with m.Elif(untrack):
        with m.If(used == 2 ** gen_width - 1):
            m.d.sync += [sweeping.eq(1), sweep_row.eq(0)]   # every generation used
        with m.Else():
            m.d.sync += [generation.eq(generation + 1), used.eq(used + 1)]
    return generation, used, sweeping, sweep_row

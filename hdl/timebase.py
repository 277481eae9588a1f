# SPDX-License-Identifier: Apache-2.0
"""Cycle counter of the KV-ASU (spec section 4, decision D3).

``Timebase`` counts clock cycles: ``cycle`` is 0 during the first cycle after reset, so a
request accepted at the rising edge that ends the cycle in which ``cycle == c`` has the
time ``t = c >> TICK_SHIFT``. The top level feeds the same counter to the core and to the
register block (``CYCLE``).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

__all__ = ["Timebase"]


class Timebase(wiring.Component):
    """64-bit free-running cycle counter, reset to 0 by the synchronous reset.

    Ports
    -----
    cycle : Out(64)
        Number of rising edges with reset low before the current cycle (wraps at 2**64).
    """

    cycle: Out(64)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.cycle.eq(self.cycle + 1)
        return m

# SPDX-License-Identifier: Apache-2.0
"""The bimodal insertion counter of the predictor mode (spec-predictor.md P11): the main
list's ``bip`` and a BIP shadow's ``sbip`` are each one of these."""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .constants import BIP_WIDTH

__all__ = ["BimodalCounter"]


class BimodalCounter(wiring.Component):
    """A 5-bit counter, advanced by each bimodal insertion: the insertion goes to the LRU
    end unless the counter wraps to 0 (once in 32).

    Ports
    -----
    step : In(1)
        A bimodal insertion this cycle: the counter advances at the end of the cycle.
    at_lru_end : Out(1)
        For this cycle's insertion: ``(counter + 1) mod 32 != 0`` (combinational; valid
        whatever ``step``).
    flush : In(1)
        The counter to 0 at the end of the cycle (wins over ``step``).
    counter : Out(5)
        The counter (a register, reset 0).
    """

    def __init__(self):
        super().__init__({
            "step": In(1),
            "at_lru_end": Out(1),
            "flush": In(1),
            "counter": Out(BIP_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        nxt = Signal(BIP_WIDTH)
        # (counter + 1) mod 32 != 0 is counter != 31: a 5-input AND, not an increment's carry.
        m.d.comb += [nxt.eq(self.counter + 1),
                     self.at_lru_end.eq(self.counter != 2**BIP_WIDTH - 1)]
        with m.If(self.flush):
            m.d.sync += self.counter.eq(0)
        with m.Elif(self.step):
            m.d.sync += self.counter.eq(nxt)
        return m

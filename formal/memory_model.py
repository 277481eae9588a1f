# SPDX-License-Identifier: Apache-2.0
"""Soundness of the memory substitute: ``FormalMemory`` behaves like
``amaranth.lib.memory.Memory`` for the port configurations the design uses.

Both memories get the same free write port (address, data, enable) and the same free read
ports (one transparent for the write port, one not: the design's ports are all
non-transparent, the transparent one keeps the substitute faithful to the library for any
use); after each read port has been enabled once (the library port's data
register has no defined initial value), the read data must be equal every cycle. BMC (the
library memory's contents are not visible to the harness, so this is not inductive); the
depth is several times the memory depth, so every address is written, read, overwritten
and read back with and without same-cycle collisions.
"""

from amaranth import *
from amaranth.hdl import Assert
from amaranth.hdl._ast import AnySeq
from amaranth.lib.memory import Memory

from .common import FormalMemory, reset_assumptions

__all__ = ["MemoryModelEquivalence"]


class MemoryModelEquivalence(Elaboratable):
    def __init__(self, width=3, depth=4, *, granularity=None, upsets=False,
                 mutant_no_transparency=False):
        self.width, self.depth = width, depth
        # A write port with lanes of `granularity` bits (ProtectedMemory's coded lanes),
        # and the memory with its upset port, never used (FormalMemory(upsets=True)).
        self.granularity, self.upsets = granularity, upsets
        self.mutant = mutant_no_transparency   # sanity job: the check must then fail

    def elaborate(self, platform):
        m = Module()
        reset_assumptions(m)
        ref = Memory(shape=self.width, depth=self.depth, init=[])
        dut = FormalMemory(shape=self.width, depth=self.depth, init=[], upsets=self.upsets)
        m.submodules.ref, m.submodules.dut = ref, dut
        g = self.granularity
        wps = [ref.write_port(granularity=g), dut.write_port(granularity=g)]
        rts = [ref.read_port(transparent_for=(wps[0],)),
               dut.read_port(transparent_for=() if self.mutant else (wps[1],))]
        rns = [ref.read_port(), dut.read_port()]
        aw = len(wps[0].addr)
        w_addr, w_data, w_en = AnySeq(aw), AnySeq(self.width), AnySeq(len(wps[0].en))
        if self.upsets:
            m.d.comb += [dut.upset_en.eq(0), dut.upset_addr.eq(AnySeq(aw)),
                         dut.upset_mask.eq(AnySeq(self.width))]
        for wp in wps:
            m.d.comb += [wp.addr.eq(w_addr), wp.data.eq(w_data), wp.en.eq(w_en)]
        for pair in (rts, rns):
            addr, en = AnySeq(aw), AnySeq(1)
            for rp in pair:
                m.d.comb += [rp.addr.eq(addr), rp.en.eq(en)]
            seen = Signal()
            with m.If(en):
                m.d.sync += seen.eq(1)
            with m.If(seen):
                m.d.comb += Assert(pair[0].data == pair[1].data)   # check: same-data
        return m

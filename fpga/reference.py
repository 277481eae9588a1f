# SPDX-License-Identifier: Apache-2.0
"""The bare-block-RAM reference design: the speed a block-RAM read allows on a device.

Every lookup of the KV-ASU starts with a block-RAM read whose data goes through logic into
a register. ``BlockRamReference`` is that and nothing else: a 2048 x 24 block RAM whose
read data goes through one 24-bit adder into a register. Placed and routed by the same flow
(the same out-of-context harness around it), its Fmax is what the device gives a design
with a block RAM on its critical path, the yardstick for the core's figure on the same
device and speed grade.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

__all__ = ["BlockRamReference"]


class BlockRamReference(wiring.Component):
    """A ``depth`` x ``width`` block RAM read into an adder, registered.

    Parameters
    ----------
    depth : int
        Words of the RAM (2048 by default: one of the table's banks).
    width : int
        Bits per word (24 by default).

    Ports
    -----
    rd_addr : In(range(depth))
        Read address; the word is out one cycle later (the block RAM's synchronous read).
    addend : In(width)
        Added to the word read; sampled with ``rd_addr``.
    wr_en, wr_addr, wr_data : In
        A write port, so that the RAM is not a constant.
    sum : Out(width)
        ``word + addend`` (mod ``2**width``), registered: ``latency`` cycles after
        ``rd_addr`` and ``addend``.

    Attributes
    ----------
    latency : int
        2: the read, then the registered sum.
    """

    latency = 2

    def __init__(self, depth=2048, width=24):
        for name, value in (("depth", depth), ("width", width)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be an integer, not {value!r}")
            if value < 2:
                raise ValueError(f"{name} must be at least 2, not {value}")
        self.depth, self.width = depth, width
        super().__init__({
            "rd_addr": In(range(depth)),
            "addend": In(width),
            "wr_en": In(1),
            "wr_addr": In(range(depth)),
            "wr_data": In(width),
            "sum": Out(width),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=self.width, depth=self.depth, init=[])
        rd, wr = mem.read_port(), mem.write_port()
        addend = Signal(self.width)
        m.d.comb += [rd.addr.eq(self.rd_addr),
                     wr.en.eq(self.wr_en), wr.addr.eq(self.wr_addr), wr.data.eq(self.wr_data)]
        m.d.sync += [addend.eq(self.addend),
                     self.sum.eq((rd.data + addend)[:self.width])]
        return m

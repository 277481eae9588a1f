# SPDX-License-Identifier: Apache-2.0
"""The bare-block-RAM reference design: the speed a block-RAM read allows on a device.

Every lookup of the KV-ASU starts with a block-RAM read whose data goes through logic into
a register. ``BlockRamReference`` is that and nothing else: a 2048 x 24 block RAM whose
read data goes through one 24-bit adder into a register. Placed and routed by the same flow
(the same out-of-context harness around it), its Fmax is what the device gives a design
with a block RAM on its critical path, the yardstick for the core's figure on the same
device and speed grade.

With ``output_register=True`` the RAM is the ECP5's DP16KD instantiated directly with its
read port's output register on (``REGMODE_B = "OUTREG"``), which Yosys's block-RAM
inference (``memory_libmap`` with ``brams_16kd.txt``) never turns on: the read takes one
cycle more, and the word leaves the block from a register, not from the RAM array.
"""

from amaranth import Cat, ClockSignal, Const, Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from regmap.arguments import check_int

__all__ = ["BlockRamReference"]


class BlockRamReference(wiring.Component):
    """A ``depth`` x ``width`` block RAM read into an adder, registered.

    Parameters
    ----------
    depth : int
        Words of the RAM (2048 by default: one of the table's banks).
    width : int
        Bits per word (24 by default).
    output_register : bool
        ECP5 only: DP16KD instances (2048 x 9 each) with the read port's output register
        (``REGMODE_B = "OUTREG"``) instead of an inferred memory; one cycle more latency.

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
        2: the read, then the registered sum (3 with ``output_register``: the read, the
        RAM's output register, the sum).
    """

    def __init__(self, depth=2048, width=24, *, output_register=False):
        depth, width = check_int("depth", depth, 2), check_int("width", width, 2)
        if not isinstance(output_register, bool):
            raise TypeError(f"output_register must be a bool, not {output_register!r}")
        if output_register and depth > _DP16KD_X9_DEPTH:
            raise ValueError(f"with output_register the depth is at most "
                             f"{_DP16KD_X9_DEPTH} (one DP16KD in 2048 x 9), not {depth}")
        self.depth, self.width = depth, width
        self.output_register = output_register
        self.latency = 3 if output_register else 2
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
        addend = Signal(self.width)
        if self.output_register:
            word = self._dp16kd_outreg(m)
            addend_q = Signal(self.width)    # the addend waits for the output register
            m.d.sync += [addend_q.eq(self.addend), addend.eq(addend_q)]
        else:
            m.submodules.mem = mem = Memory(shape=self.width, depth=self.depth, init=[])
            rd, wr = mem.read_port(), mem.write_port()
            m.d.comb += [rd.addr.eq(self.rd_addr), wr.en.eq(self.wr_en),
                         wr.addr.eq(self.wr_addr), wr.data.eq(self.wr_data)]
            m.d.sync += addend.eq(self.addend)
            word = rd.data
        m.d.sync += self.sum.eq((word + addend)[:self.width])
        return m

    def _dp16kd_outreg(self, m):
        """The RAM as DP16KD instances in 2048 x 9 (port A writes, port B reads with its
        output register); returns the read word."""
        word = Signal(self.width)
        n_ram = -(-self.width // 9)
        data = Cat(self.wr_data, Const(0, 9 * n_ram - self.width))
        out = Signal(9 * n_ram)

        def address(prefix, addr):
            # x9 mode: the word address on AD[13:3], AD[2:0] unused
            bits = Cat(Const(0, 3), addr, Const(0, 11 - len(addr)))
            return {f"i_{prefix}{k}": bits[k] for k in range(14)}

        for r in range(n_ram):
            m.submodules[f"ram{r}"] = Instance(
                "DP16KD",
                p_DATA_WIDTH_A=9, p_DATA_WIDTH_B=9,
                p_REGMODE_A="NOREG", p_REGMODE_B="OUTREG",
                p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL",
                p_CSDECODE_A="0b000", p_CSDECODE_B="0b000",
                p_RESETMODE="SYNC", p_GSR="DISABLED",
                i_CLKA=ClockSignal(), i_CEA=1, i_OCEA=1, i_WEA=self.wr_en, i_RSTA=0,
                i_CSA0=0, i_CSA1=0, i_CSA2=0,
                i_CLKB=ClockSignal(), i_CEB=1, i_OCEB=1, i_WEB=0, i_RSTB=0,
                i_CSB0=0, i_CSB1=0, i_CSB2=0,
                **address("ADA", self.wr_addr), **address("ADB", self.rd_addr),
                **{f"i_DIA{k}": data[9 * r + k] for k in range(9)},
                **{f"i_DIB{k}": 0 for k in range(9)},
                **{f"o_DOB{k}": out[9 * r + k] for k in range(9)},
            )
        m.d.comb += word.eq(out[:self.width])
        return word


#: Words of one DP16KD in its 9-bit-wide configuration.
_DP16KD_X9_DEPTH = 2048

# SPDX-License-Identifier: Apache-2.0
"""A block RAM whose read data leaves it from a register: ``RegisteredReadRam``.

A block RAM's read is synchronous: the word read in cycle ``c`` is out of the RAM array
during ``c + 1``. On the ECP5 that word takes about 5.8 ns (speed 6) to leave the DP16KD,
so any logic between it and the next register costs most of a 10 ns cycle. The DP16KD has
an output register of its own (``REGMODE_B = "OUTREG"``) that Yosys's block-RAM inference
never turns on. This RAM always registers the read data once more, raw, with nothing in
front of the register: the word read in cycle ``c`` is on ``rd_data`` during ``c + 2``.

One structure for every build: the generic implementation is a ``Memory`` (or any
memory class with its interface, such as the formal harness's register model) followed
by a flip-flop register; the ``"dp16kd"`` implementation is the same register mapped into
the ECP5 DP16KD's own output register (DP16KD instances, tiled over the word). Both are
cycle-for-cycle the same: the register updates every cycle (no enable, no reset), as the
DP16KD's does with ``OCE`` high and ``RST`` low.

A read issued in the cycle of a write to the same address returns an undefined word (no
transparency, ``no_rw_check``): the caller bypasses such reads itself.

With ``protection`` (docs/spec-decisions.md D11) every word is stored with check bits
(``hdl.ecc.Code``) and checked *after* the output register, in parallel with the use of
the data: ``rd_error`` says the registered word is not a code word (the OR of ``rd_check``,
the parities of ``Code.check_rows``, which a user may register before ORing); the data is never
corrected (the read is on the core's latency-critical path; D11 makes any failed check of
the window arrays uncorrectable). ``sweep_en`` / ``sweep_addr`` write the zero code word.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .ecc import Code, check_protection, choose_protection
from .layouts import check_int, check_shape

__all__ = ["RegisteredReadRam", "IMPLEMENTATIONS", "dp16kd_mode", "check_memory"]

#: The implementations of ``RegisteredReadRam``.
IMPLEMENTATIONS = ("generic", "dp16kd")

# DP16KD data widths and the words of one block in each (16 Kib, plus parity bits).
_DP16KD_MODES = ((1, 16384), (2, 8192), (4, 4096), (9, 2048), (18, 1024), (36, 512))


def check_memory(memory):
    """``memory`` if it can be a ``memory`` parameter: a class of elaboratables (such as
    ``amaranth.lib.memory.Memory``) or another callable that makes one (a function, a
    ``functools.partial``); ``TypeError`` otherwise (``None``, or a class such as ``int``
    that makes no elaboratable)."""
    if not callable(memory) or (isinstance(memory, type)
                                and not issubclass(memory, Elaboratable)):
        raise TypeError(f"memory must be a memory class, not {memory!r}")
    return memory


def dp16kd_mode(width, depth):
    """The DP16KD data width that holds ``width`` x ``depth`` in the fewest blocks (the
    narrowest among equals), and how many blocks: ``(mode_width, blocks)``. The word is
    tiled across blocks side by side; a depth beyond one block's in the narrowest mode
    (16384) is not supported (``ValueError`` naming ``depth``)."""
    fits = [(-(-width // w), w) for w, words in _DP16KD_MODES if depth <= words]
    if not fits:
        raise ValueError(f"depth must be at most 16384 for a DP16KD RAM (one block's words "
                         f"in its narrowest mode), not {depth}")
    blocks, mode = min(fits)
    return mode, blocks


class RegisteredReadRam(wiring.Component):
    """One write port and one read port whose data is registered once more.

    Parameters
    ----------
    shape : shape-castable
        The word (at least 1 bit).
    depth : int
        Words (at least 1).
    memory : class
        The memory of the generic implementation (default ``amaranth.lib.memory.Memory``;
        the formal harness gives its register model), built as
        ``memory(shape=, depth=, init=[], attrs={"no_rw_check": 1})`` with one write port
        and one non-transparent read port.
    implementation : str
        ``"generic"`` (``memory`` and a flip-flop register) or ``"dp16kd"`` (ECP5 DP16KD
        instances with the read port's output register, ``REGMODE_B = "OUTREG"``; the
        contents start undefined, which the generic one starts at zero).
    protection : str
        ``"none"`` (default), ``"auto"`` (``hdl.ecc.choose_protection``), ``"secded"``
        or ``"parity"``: check bits on every word, checked after the output register.

    Ports
    -----
    wr_addr : In(range(depth)), wr_data : In(shape), wr_en : In(1)
        Write ``wr_data`` to ``wr_addr`` at the end of the cycle when ``wr_en``.
    rd_addr : In(range(depth))
        Read address, sampled every cycle.
    rd_data : Out(shape)
        The word at the ``rd_addr`` of two cycles before, as it was before that cycle's
        write (a write in the read's own cycle to its address makes it undefined), from a
        register.
    rd_error : Out(1), rd_check : Out(len(code.check_rows()))
        Only when protected: the registered word fails its check (``rd_error``), and which
        check rows it fails (``rd_check``, the syndrome ``Code.failed_rows``), for the
        caller's correction and error report.
    sweep_en : In(1), sweep_addr : In(range(depth))
        Only when protected: write the zero code word to ``sweep_addr`` at the end of the
        cycle (a clear sweep; it takes the place of the write port's write).

    Attributes
    ----------
    memory : memory instance or None
        The generic implementation's memory (for the formal views of its contents);
        ``None`` for ``"dp16kd"``.
    latency : int
        2: ``rd_addr`` to ``rd_data``.
    """

    latency = 2

    def __init__(self, *, shape, depth, memory=Memory, implementation="generic",
                 protection="none"):
        check_int("depth", depth, 1)
        if implementation not in IMPLEMENTATIONS:
            raise ValueError(f"implementation must be one of {IMPLEMENTATIONS}, "
                             f"not {implementation!r}")
        check_memory(memory)
        width = check_shape("shape", shape)
        check_protection(protection)
        self.shape, self.depth, self.implementation = shape, depth, implementation
        ports = {
            "wr_addr": In(range(depth)), "wr_data": In(shape), "wr_en": In(1),
            "rd_addr": In(range(depth)), "rd_data": Out(shape),
        }
        if protection == "auto":
            protection = choose_protection(width, depth)
        code = Code(protection, width)
        if protection != "none":
            ports.update({"rd_error": Out(1), "rd_check": Out(len(code.check_rows())),
                          "sweep_en": In(1), "sweep_addr": In(range(depth))})
        super().__init__(ports)
        self.width = width
        self.protection = protection
        self.code = code
        #: bits per stored word (with the check bits)
        self.stored_width = self.code.width
        if implementation == "dp16kd":
            dp16kd_mode(self.stored_width, depth)   # (refuses a depth it cannot hold)
            self.memory = None
        else:
            self.memory = memory(shape=self.stored_width if protection != "none" else shape,
                                 depth=depth, init=[], attrs={"no_rw_check": 1})
            self._wp = self.memory.write_port()
            self._rp = self.memory.read_port()

    def _stored_write(self, m):
        """(addr, data, en) of the stored word's write: the write port's, coded, or the
        sweep's zero code word."""
        if self.protection == "none":
            return self.wr_addr, Value.cast(self.wr_data), self.wr_en
        addr, dat, en = (Signal.like(self.wr_addr, name="st_addr"),
                         Signal(self.stored_width, name="st_data"), Signal(name="st_en"))
        m.d.comb += [addr.eq(Mux(self.sweep_en, self.sweep_addr, self.wr_addr)),
                     dat.eq(Mux(self.sweep_en, 0, self.code.encode(self.wr_data))),
                     en.eq(self.wr_en | self.sweep_en)]
        return addr, dat, en

    def _stored_read(self, m, word):
        """``rd_data`` (and ``rd_error``) from the registered stored word."""
        if self.protection == "none":
            m.d.comb += Value.cast(self.rd_data).eq(word)
            return
        m.d.comb += [Value.cast(self.rd_data).eq(word[:self.width]),
                     self.rd_check.eq(self.code.failed_rows(word)),
                     self.rd_error.eq(self.rd_check.any())]

    def elaborate(self, platform):
        m = Module()
        if self.implementation == "dp16kd":
            self._dp16kd(m)
            return m
        m.submodules.memory = self.memory
        wp, rp = self._wp, self._rp
        addr, dat, en = self._stored_write(m)
        m.d.comb += [wp.addr.eq(addr), wp.data.eq(dat),
                     wp.en.eq(en), rp.addr.eq(self.rd_addr), rp.en.eq(1)]
        if self.protection == "none":
            m.d.sync += self.rd_data.eq(rp.data)       # the read data register
            return m
        word = Signal(self.stored_width, name="rd_word")
        m.d.sync += word.eq(rp.data)                   # the read data register
        self._stored_read(m, word)
        return m

    def _dp16kd(self, m):
        """The RAM as DP16KD blocks side by side: port A writes, port B reads through its
        output register. In the 36-bit mode the read word comes out on both ports' data
        pins, so both output registers are on."""
        width = self.stored_width
        mode, blocks = dp16kd_mode(width, self.depth)
        abits = {1: 0, 2: 1, 4: 2, 9: 3, 18: 4, 36: 5}[mode]   # sub-word address bits
        wide = mode == 36
        wr_addr, wr_data, wr_en = self._stored_write(m)
        data_in = Cat(wr_data, Const(0, mode * blocks - width))
        data_out = Signal(mode * blocks)

        def address(prefix, addr, byte_enables=()):
            bits = Cat(Const(0, abits), addr, Const(0, 14 - abits - len(addr)))
            pins = {f"i_{prefix}{k}": bits[k] for k in range(14)}
            # x18 / x36 writes: the low address pins are the byte enables
            for k, enable in enumerate(byte_enables):
                pins[f"i_{prefix}{k}"] = enable
            return pins

        # As Yosys's own DP16KD map: x36 (pseudo dual port) writes with WEA high and the
        # four byte enables on ADA0..3; x18 with WEA and both byte enables high.
        if wide:
            write_enable, byte_enables = Const(1), [wr_en] * 4
        else:
            write_enable, byte_enables = wr_en, [Const(1)] * (2 if mode == 18 else 0)

        for n in range(blocks):
            d_in = data_in[mode * n:mode * (n + 1)]
            d_out = data_out[mode * n:mode * (n + 1)]
            half = min(mode, 18)
            pins = {f"i_DIA{k}": d_in[k] for k in range(half)}
            pins.update({f"i_DIB{k}": (d_in[18 + k] if wide else Const(0))
                         for k in range(half)})
            if wide:
                pins.update({f"o_DOA{k}": d_out[k] for k in range(18)})
                pins.update({f"o_DOB{k}": d_out[18 + k] for k in range(18)})
            else:
                pins.update({f"o_DOB{k}": d_out[k] for k in range(mode)})
            m.submodules[f"block{n}"] = Instance(
                "DP16KD",
                p_DATA_WIDTH_A=mode, p_DATA_WIDTH_B=mode,
                p_REGMODE_A="OUTREG" if wide else "NOREG", p_REGMODE_B="OUTREG",
                p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL",
                p_CSDECODE_A="0b000", p_CSDECODE_B="0b000",
                p_RESETMODE="SYNC", p_ASYNC_RESET_RELEASE="SYNC", p_GSR="DISABLED",
                i_CLKA=ClockSignal(), i_CEA=1, i_OCEA=1, i_WEA=write_enable, i_RSTA=0,
                i_CSA0=0, i_CSA1=0, i_CSA2=0,
                i_CLKB=ClockSignal(), i_CEB=1, i_OCEB=1, i_WEB=0, i_RSTB=0,
                i_CSB0=0, i_CSB1=0, i_CSB2=0,
                **address("ADA", wr_addr, byte_enables),
                **address("ADB", self.rd_addr),
                **pins,
            )
        self._stored_read(m, data_out[:width])

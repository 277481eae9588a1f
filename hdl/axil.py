# SPDX-License-Identifier: Apache-2.0
"""AXI4-Lite: the interface signature, the response codes and a subordinate.

``AxiLiteSignature`` describes the bus from the **manager's** side (the side that drives the
addresses), as AMBA does; a subordinate declares its port with ``In(AxiLiteSignature(...))``.
Member names are the AMBA signal names in lower case, so a component port named ``axil``
becomes Verilog ports ``axil__awaddr``, ``axil__awvalid``, ... that ``cocotbext-axi`` binds
with the prefix ``axil_`` (its bus separator is ``_``, the names then start ``_awaddr``:
pass ``AxiLiteBus.from_prefix(dut, "axil_")``).
"""

from amaranth import *
from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["AxiResp", "AxiLiteSignature", "RegisterAccessSignature",
           "AxiLiteObservationSignature", "AxiLiteSubordinate"]


def check_addr_width(addr_width, *, minimum):
    """``TypeError`` unless ``addr_width`` is an integer, ``ValueError`` below ``minimum``."""
    if not isinstance(addr_width, int) or isinstance(addr_width, bool):
        raise TypeError(f"addr_width must be an integer, not {addr_width!r}")
    if addr_width < minimum:
        raise ValueError(f"addr_width must be at least {minimum}, not {addr_width}")


class AxiResp(enum.Enum, shape=2):
    """AXI ``BRESP`` / ``RRESP`` response codes."""

    OKAY = 0    # normal access success
    EXOKAY = 1  # exclusive access okay (never used by AXI4-Lite subordinates)
    SLVERR = 2  # subordinate error: the access reached the subordinate, which refused it
    DECERR = 3  # decode error: no subordinate at this address


class AxiLiteSignature(wiring.Signature):
    """AXI4-Lite bus, from the manager's view.

    Parameters
    ----------
    addr_width : int
        Byte address width, at least 1.
    data_width : int
        Data width in bits: 32 or 64 (the only widths AXI4-Lite allows).

    Members
    -------
    awaddr : Out(addr_width)
        Write address (byte address).
    awprot : Out(3)
        Write protection type.
    awvalid : Out(1)
        Write address valid.
    awready : In(1)
        Write address ready.
    wdata : Out(data_width)
        Write data.
    wstrb : Out(data_width // 8)
        Write strobes, one per byte of ``wdata``.
    wvalid : Out(1)
        Write data valid.
    wready : In(1)
        Write data ready.
    bresp : In(2)
        Write response, an :class:`AxiResp` value.
    bvalid : In(1)
        Write response valid.
    bready : Out(1)
        Write response ready.
    araddr : Out(addr_width)
        Read address (byte address).
    arprot : Out(3)
        Read protection type.
    arvalid : Out(1)
        Read address valid.
    arready : In(1)
        Read address ready.
    rdata : In(data_width)
        Read data.
    rresp : In(2)
        Read response, an :class:`AxiResp` value.
    rvalid : In(1)
        Read data valid.
    rready : Out(1)
        Read data ready.

    ``bresp`` and ``rresp`` are plain 2-bit members (not :class:`AxiResp`-shaped) so that the
    signature connects to any AXI4-Lite port whatever its author chose; compare them with
    ``AxiResp.X.value`` or drive them with ``AxiResp.X``.
    """

    def __init__(self, addr_width, data_width=32):
        check_addr_width(addr_width, minimum=1)
        if not isinstance(data_width, int) or isinstance(data_width, bool):
            raise TypeError(f"data_width must be an integer, not {data_width!r}")
        if data_width not in (32, 64):
            raise ValueError(f"AXI4-Lite data_width must be 32 or 64, not {data_width}")
        self._addr_width = addr_width
        self._data_width = data_width
        super().__init__({
            "awaddr": Out(addr_width),
            "awprot": Out(3),
            "awvalid": Out(1),
            "awready": In(1),
            "wdata": Out(data_width),
            "wstrb": Out(data_width // 8),
            "wvalid": Out(1),
            "wready": In(1),
            "bresp": In(2),
            "bvalid": In(1),
            "bready": Out(1),
            "araddr": Out(addr_width),
            "arprot": Out(3),
            "arvalid": Out(1),
            "arready": In(1),
            "rdata": In(data_width),
            "rresp": In(2),
            "rvalid": In(1),
            "rready": Out(1),
        })

    @property
    def addr_width(self):
        return self._addr_width

    @property
    def data_width(self):
        return self._data_width

    def __eq__(self, other):
        # wiring.Signature compares subclasses by identity unless they say otherwise.
        return (isinstance(other, AxiLiteSignature)
                and self.addr_width == other.addr_width
                and self.data_width == other.data_width)

    def __hash__(self):
        return hash((AxiLiteSignature, self.addr_width, self.data_width))

    def __repr__(self):
        return f"AxiLiteSignature({self.addr_width}, {self.data_width})"


class RegisterAccessSignature(wiring.Signature):
    """The accesses an :class:`AxiLiteSubordinate` hands to a register file, from the
    subordinate's side. Addresses are word addresses (byte address bits 1:0 dropped).

    Members
    -------
    w_valid : Out(1)
        A write to a writable word waits for its answer (its AW and W beats have been
        taken and no write response is pending). Stays high, with ``w_addr``, ``w_data``
        and ``w_strb`` stable, until the cycle of ``w_done``.
    w_addr : Out(addr_width - 2)
        Word address of the write.
    w_data : Out(32)
        Write data.
    w_strb : Out(4)
        Write strobes, one per byte of ``w_data``.
    w_done : In(1)
        The register file answers the write in this cycle (only while ``w_valid``); its
        response goes out on B from the next cycle.
    w_error : In(1)
        With ``w_done``: answer ``SLVERR`` instead of ``OKAY``.
    b_busy : Out(1)
        A write response is on B, waiting for ``bready``.
    ar_accept : Out(1)
        The AR handshake happens in this cycle (the read of ``ar_addr``).
    ar_addr : Out(addr_width - 2)
        Word address on ``araddr`` (meaningful with ``ar_accept``).
    r_valid : Out(1)
        One cycle after the AR handshake of a read of a readable word: the register file
        answers it now (``r_done``) or later.
    r_addr : Out(addr_width - 2)
        Word address of the read (with ``r_valid``).
    r_done : In(1)
        The register file answers the read in this cycle with ``r_data`` (while
        ``r_valid``, or in a later cycle before any other read is accepted).
    r_data : In(32)
        Read data, with ``r_done``.
    """

    def __init__(self, addr_width):
        check_addr_width(addr_width, minimum=3)
        super().__init__({
            "w_valid": Out(1),
            "w_addr": Out(addr_width - 2),
            "w_data": Out(32),
            "w_strb": Out(4),
            "w_done": In(1),
            "w_error": In(1),
            "b_busy": Out(1),
            "ar_accept": Out(1),
            "ar_addr": Out(addr_width - 2),
            "r_valid": Out(1),
            "r_addr": Out(addr_width - 2),
            "r_done": In(1),
            "r_data": In(32),
        })


class AxiLiteObservationSignature(wiring.Signature):
    """What a proof sees of an :class:`AxiLiteSubordinate`'s channel state
    (``AxiLiteSubordinate(observe=True)``), from the subordinate's side. Word addresses, as
    on ``regs``.

    Members
    -------
    aw_full, w_full, ar_full : Out(1)
        A write address, write data, read address beat has been taken and is held (until
        the B handshake for the write's, until the read goes to the register file or is
        answered for the read's).
    r_wait : Out(1)
        A read has gone to the register file, which has not answered it yet.
    aw_word, ar_word : Out(addr_width - 2)
        The word addresses held (with ``aw_full``, ``ar_full``).
    w_mapped, w_writable, r_readable : Out(1)
        Their decodes, registered with them: ``aw_word`` is mapped, is writable;
        ``ar_word`` is readable.
    """

    def __init__(self, addr_width):
        check_addr_width(addr_width, minimum=3)
        super().__init__({
            "aw_full": Out(1), "w_full": Out(1), "ar_full": Out(1), "r_wait": Out(1),
            "aw_word": Out(addr_width - 2), "ar_word": Out(addr_width - 2),
            "w_mapped": Out(1), "w_writable": Out(1), "r_readable": Out(1),
        })


class AxiLiteSubordinate(wiring.Component):
    """AXI4-Lite subordinate with 32-bit data in front of a register file: the handshakes
    and the response codes.

    AW and W are accepted independently, in either order or together, one write at a time:
    after both have been taken ``awready`` and ``wready`` stay low until the B handshake.
    One read at a time: ``arready`` is low from the AR handshake until the R handshake.
    ``bvalid``/``rvalid`` and their payloads hold until ``bready``/``rready``. Address bits
    1:0 and ``AxPROT`` are ignored.

    A write to a word outside ``readable`` is answered ``DECERR``, a write to a readable word
    outside ``writable`` ``SLVERR``; neither reaches the register file. A read outside
    ``readable`` is answered ``DECERR`` with data 0. Every other access goes to the register
    file on ``regs``, which answers it (``w_done``/``w_error``, ``r_done``/``r_data``) in
    the cycle it is presented or later.

    Latency: B comes 2 cycles after the later of the AW and W handshakes, and R 2 cycles
    after the AR handshake, when the register file answers in the cycle it is presented;
    each cycle it waits adds one.

    Parameters
    ----------
    addr_width : int
        Byte address width of the bus, at least 3.
    readable : iterable of int
        Byte offsets of the mapped words (multiples of 4 inside the window).
    writable : iterable of int
        Byte offsets of the words that take writes; a subset of ``readable``.
    observe : bool
        Add the ``observe`` port (``False`` by default: real builds leave it out).
    src_loc_at : int
        As for any Amaranth elaboratable (where an unused-instance warning points).

    Ports
    -----
    axil : In(AxiLiteSignature(addr_width))
        The AXI4-Lite bus (this component is the subordinate).
    regs : Out(RegisterAccessSignature(addr_width))
        The accesses to the register file.
    observe : Out(AxiLiteObservationSignature(addr_width))
        Only with ``observe``: the channel state, for the proofs (formal/axil_props.py).

    Attributes
    ----------
    readable, writable : frozenset of int
        The byte offsets of the parameters.
    """

    def __init__(self, addr_width, *, readable, writable, observe=False, src_loc_at=0):
        check_addr_width(addr_width, minimum=3)
        readable, writable = frozenset(readable), frozenset(writable)
        for offset in readable:
            if not isinstance(offset, int) or offset % 4 or not 0 <= offset < 1 << addr_width:
                raise ValueError(f"readable offset {offset!r} is not a word inside the "
                                 f"{1 << addr_width}-byte window")
        if not writable <= readable:
            raise ValueError(f"writable offsets {sorted(writable - readable)} are not readable")
        if not isinstance(observe, bool):
            raise TypeError(f"observe must be a bool, not {observe!r}")
        self.readable, self.writable = readable, writable
        self.observed = observe
        self._addr_width = addr_width
        super().__init__({
            "axil": In(AxiLiteSignature(addr_width)),
            "regs": Out(RegisterAccessSignature(addr_width)),
            **({"observe": Out(AxiLiteObservationSignature(addr_width))} if observe else {}),
        })

    @staticmethod
    def word_in(word, offsets):
        """``word`` (a word address) is one of the byte ``offsets``."""
        return Cat(word == offset >> 2 for offset in sorted(offsets)).any()

    def elaborate(self, platform):
        m = Module()
        bus, regs = self.axil, self.regs

        # ---- write channel -------------------------------------------------------------
        aw_full = Signal()
        aw_word = Signal(self._addr_width - 2)
        w_full = Signal()
        w_data = Signal(32)
        w_strb = Signal(4)
        bvalid = Signal()
        bresp = Signal(2)
        m.d.comb += [
            bus.awready.eq(~aw_full),
            bus.wready.eq(~w_full),
            bus.bvalid.eq(bvalid),
            bus.bresp.eq(bresp),
        ]
        # Whether the word is mapped and writable is decoded from AWADDR in the handshake
        # cycle and registered with the word, so that the write enables of the register
        # file sit behind flip-flops and not behind the address decode.
        w_mapped = Signal()
        w_writable = Signal()
        with m.If(bus.awvalid & ~aw_full):
            m.d.sync += [aw_full.eq(1), aw_word.eq(bus.awaddr[2:]),
                         w_mapped.eq(self.word_in(bus.awaddr[2:], self.readable)),
                         w_writable.eq(self.word_in(bus.awaddr[2:], self.writable))]
        with m.If(bus.wvalid & ~w_full):
            m.d.sync += [w_full.eq(1), w_data.eq(bus.wdata), w_strb.eq(bus.wstrb)]

        w_pending = aw_full & w_full & ~bvalid
        m.d.comb += [
            regs.w_valid.eq(w_pending & w_writable),
            regs.w_addr.eq(aw_word),
            regs.w_data.eq(w_data),
            regs.w_strb.eq(w_strb),
            regs.b_busy.eq(bvalid),
        ]
        # bresp follows the pending write's answer so far (OKAY while the register file
        # has not answered); bvalid rises with the answer.
        with m.If(w_pending):
            with m.If(~w_mapped):
                m.d.sync += [bvalid.eq(1), bresp.eq(AxiResp.DECERR)]
            with m.Elif(~w_writable):
                m.d.sync += [bvalid.eq(1), bresp.eq(AxiResp.SLVERR)]
            with m.Else():
                m.d.sync += [bvalid.eq(regs.w_done),
                             bresp.eq(Mux(regs.w_done & regs.w_error,
                                          AxiResp.SLVERR, AxiResp.OKAY))]
        with m.If(bvalid & bus.bready):
            m.d.sync += [bvalid.eq(0), aw_full.eq(0), w_full.eq(0)]

        # ---- read channel --------------------------------------------------------------
        # AR is registered; the register file sees the word in the next cycle. Whether it
        # is readable is decoded in the handshake cycle and registered with it (``r_valid``
        # and what the register file does with it then start from flip-flops).
        ar_full = Signal()
        ar_word = Signal(self._addr_width - 2)
        r_readable = Signal()
        r_wait = Signal()          # the register file has not answered the read yet
        rvalid = Signal()
        rdata = Signal(32)
        rresp = Signal(2)
        arready = ~ar_full & ~r_wait & ~rvalid
        m.d.comb += [
            bus.arready.eq(arready),
            bus.rvalid.eq(rvalid),
            bus.rdata.eq(rdata),
            bus.rresp.eq(rresp),
            regs.ar_accept.eq(bus.arvalid & arready),
            regs.ar_addr.eq(bus.araddr[2:]),
            regs.r_valid.eq(ar_full & r_readable),
            regs.r_addr.eq(ar_word),
        ]
        with m.If(regs.ar_accept):
            m.d.sync += [ar_full.eq(1), ar_word.eq(bus.araddr[2:]),
                         r_readable.eq(self.word_in(bus.araddr[2:], self.readable))]
        with m.If(rvalid & bus.rready):
            m.d.sync += rvalid.eq(0)
        with m.If(ar_full):
            # rdata reads 0 until the register file's answer
            m.d.sync += [ar_full.eq(0), rdata.eq(0), rresp.eq(AxiResp.OKAY)]
            with m.If(~r_readable):
                m.d.sync += [rvalid.eq(1), rresp.eq(AxiResp.DECERR)]
            with m.Elif(~regs.r_done):
                m.d.sync += r_wait.eq(1)
        with m.If(regs.r_done & (regs.r_valid | r_wait)):
            m.d.sync += [rvalid.eq(1), rdata.eq(regs.r_data), r_wait.eq(0)]

        if self.observed:
            obs = self.observe
            m.d.comb += [obs.aw_full.eq(aw_full), obs.w_full.eq(w_full),
                         obs.ar_full.eq(ar_full), obs.r_wait.eq(r_wait),
                         obs.aw_word.eq(aw_word), obs.ar_word.eq(ar_word),
                         obs.w_mapped.eq(w_mapped), obs.w_writable.eq(w_writable),
                         obs.r_readable.eq(r_readable)]
        return m

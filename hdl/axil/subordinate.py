# SPDX-License-Identifier: Apache-2.0
"""``AxiLiteSubordinate``: the AXI4-Lite handshakes and response codes in front of a
register file."""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .signatures import (AxiLiteObservationSignature, AxiLiteSignature, AxiResp,
                         RegisterAccessSignature, check_addr_width)

__all__ = ["AxiLiteSubordinate"]


def _offsets(name, offsets):
    """The byte offsets of the parameter ``name`` as a ``frozenset`` of integers;
    ``TypeError`` for anything else (their values are checked by the caller)."""
    try:
        offsets = frozenset(offsets)
    except TypeError:
        raise TypeError(f"{name} must be an iterable of byte offsets, "
                        f"not {offsets!r}") from None
    for offset in offsets:
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise TypeError(f"{name} offset {offset!r} is not an integer")
    return offsets


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
        readable, writable = _offsets("readable", readable), _offsets("writable", writable)
        for offset in readable:
            if offset % 4 or not 0 <= offset < 1 << addr_width:
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

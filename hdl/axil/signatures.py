# SPDX-License-Identifier: Apache-2.0
"""The AXI4-Lite signatures (the bus, the register file's accesses, the subordinate's
observation port) and the response codes."""

from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["AxiResp", "AxiLiteSignature", "RegisterAccessSignature",
           "AxiLiteObservationSignature", "check_addr_width"]


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

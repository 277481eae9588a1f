# SPDX-License-Identifier: Apache-2.0
"""AXI4-Lite interface signature and response codes.

``AxiLiteSignature`` describes the bus from the **manager's** side (the side that drives the
addresses), as AMBA does; a subordinate declares its port with ``In(AxiLiteSignature(...))``.
Member names are the AMBA signal names in lower case, so a component port named ``axil``
becomes Verilog ports ``axil__awaddr``, ``axil__awvalid``, ... that ``cocotbext-axi`` binds
with the prefix ``axil_`` (its bus separator is ``_``, the names then start ``_awaddr``:
pass ``AxiLiteBus.from_prefix(dut, "axil_")``).
"""

from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["AxiResp", "AxiLiteSignature"]


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
        if not isinstance(addr_width, int) or isinstance(addr_width, bool):
            raise TypeError(f"addr_width must be an integer, not {addr_width!r}")
        if addr_width < 1:
            raise ValueError(f"addr_width must be at least 1, not {addr_width}")
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

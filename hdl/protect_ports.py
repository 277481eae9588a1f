# SPDX-License-Identifier: Apache-2.0
"""The ports of ``hdl.protect.ProtectedMemory`` and the logic behind each: a write port
encodes its words into the memory of coded words; a read port decodes what that memory
returns, checks it and flags it (``hdl.protect`` says what the flags mean)."""

from amaranth import *

__all__ = ["WritePort", "ReadPort"]


class WritePort:
    """A write port of a ``ProtectedMemory`` (``ProtectedMemory.write_port`` makes it).

    Attributes
    ----------
    addr, data, en : Signal
        As ``amaranth.lib.memory``'s write port: the word's address, its data (of the
        memory's shape) and one enable bit per lane.
    coded : Signal or None
        With ``precoded``: the coded words written (``lanes * code.width`` bits), given by
        the user; ``data`` is then unused.
    inner : write port
        The port of the memory of coded words that this port drives.
    """

    def __init__(self, mem, inner, domain, granularity, precoded=False):
        self.addr = Signal(range(mem.depth), name="wr_addr")
        self.data = Signal(mem.shape, name="wr_data")
        self.en = Signal(mem.lanes, name="wr_en")
        self.domain, self.granularity = domain, granularity
        self.precoded = precoded
        self.coded = Signal(mem.lanes * mem.code.width, name="wr_coded") if precoded else None
        self.inner = inner

    def build(self, m, n, *, code, lanes, sweep=None):
        """Port ``n``'s logic in ``m``: its words encoded by ``code`` (or given coded) into
        the inner memory's port; with ``sweep`` (``(sweep_en, sweep_addr)``, the first port
        only) the recovery sweep's zero code words instead while ``sweep_en`` is high."""
        g = code.k
        raw = Value.cast(self.data)
        coded = (self.coded if self.precoded else
                 Cat(code.encode(raw[i * g:(i + 1) * g]) for i in range(lanes)))
        if sweep is not None:
            sweep_en, sweep_addr = sweep
            m.d.comb += [
                self.inner.addr.eq(Mux(sweep_en, sweep_addr, self.addr)),
                self.inner.en.eq(Mux(sweep_en, (1 << lanes) - 1, self.en)),
                self.inner.data.eq(Mux(sweep_en, 0, coded)),
            ]
            return
        m.d.comb += [
            self.inner.addr.eq(self.addr),
            self.inner.en.eq(self.en),
            self.inner.data.eq(coded),
        ]


class ReadPort:
    """A read port of a ``ProtectedMemory`` (``ProtectedMemory.read_port`` makes it).

    Attributes
    ----------
    addr, en, data : Signal
        As ``amaranth.lib.memory``'s read port; ``data`` corrected (SECDED, ``correct``).
    raw, flip : Signal
        The stored data bits as read and their correction (``data`` is ``raw ^ flip``).
    coded : Signal
        The coded word as read.
    error, corrected, lane_error, lane_corrected, error_addr : Signal
        The check's flags and the address of the read they are of (``hdl.protect``).
    inner : read port
        The port of the memory of coded words that this port reads.
    """

    def __init__(self, mem, inner, domain, registered=False):
        self.addr = Signal(range(mem.depth), name="rd_addr")
        self.data = Signal(mem.shape, name="rd_data")
        self.raw = Signal(mem.width, name="rd_raw")
        self.flip = Signal(mem.width, name="rd_flip")
        self.en = Signal(init=1, name="rd_en")
        self.error = Signal(name="rd_error")
        self.corrected = Signal(name="rd_corrected")
        self.lane_error = Signal(mem.lanes, name="rd_lane_error")
        self.lane_corrected = Signal(mem.lanes, name="rd_lane_corrected")
        self.coded = Signal(mem.lanes * mem.code.width, name="rd_coded")
        self.error_addr = Signal(range(mem.depth), name="rd_error_addr")
        self.domain = domain
        self.registered = registered
        self.inner = inner

    def build(self, m, n, *, code, lanes, correct, write_ports):
        """Port ``n``'s logic in ``m``: the coded word read (registered first with
        ``registered``), decoded per lane by ``code`` (corrected if ``correct``), its flags
        masked where the read met a write of one of ``write_ports``, and the address of
        the read whose word it is."""
        g = code.k
        word = self.inner.data
        if self.registered:
            # The coded word registered as it leaves the block RAM; decoded after.
            word_q = Signal.like(word, name=f"rp{n}_word")
            m.d[self.domain] += word_q.eq(word)
            word = word_q
        decoded = [code.decode_split(m, word[i * code.width:(i + 1) * code.width],
                                     f"rp{n}_lane{i}", correct=correct)
                   for i in range(lanes)]
        # A synchronous read that met a write of its word (a lane of it) returns an
        # undefined word on a block RAM (no_rw_check): its check says nothing, and the
        # user does not use such a word as read, so its flags are dropped.
        met = Const(0, lanes)
        if self.domain != "comb" and write_ports:
            # Not reset: a reset does not cancel the block RAM's read, so the mask
            # must outlive it with the undefined word it describes.
            met = Signal(lanes, name=f"rp{n}_met_write", reset_less=True)
            m.d[self.domain] += met.eq(Cat(
                Cat(wp.inner.en[i] & (wp.inner.addr == self.addr)
                    for wp in write_ports).any() for i in range(lanes)))
            if self.registered:
                met_q = Signal(lanes, name=f"rp{n}_met_write_q", reset_less=True)
                m.d[self.domain] += met_q.eq(met)
                met = met_q
        m.d.comb += [
            self.inner.addr.eq(self.addr),
            self.inner.en.eq(self.en),
            Value.cast(self.data).eq(Cat(d for d, _, _, _ in decoded)),
            self.coded.eq(word),
            self.raw.eq(Cat(word[i * code.width:i * code.width + g] for i in range(lanes))),
            self.flip.eq(Cat(f for _, _, _, f in decoded)),
            self.lane_corrected.eq(Cat(c for _, c, _, _ in decoded) & ~met),
            self.lane_error.eq(Cat(e for _, _, e, _ in decoded) & ~met),
            self.corrected.eq(self.lane_corrected.any()),
            self.error.eq(self.lane_error.any()),
        ]
        if self.domain == "comb":
            m.d.comb += self.error_addr.eq(self.addr)
        elif self.registered:
            addr_q = Signal.like(self.error_addr, name=f"rp{n}_addr_q")
            with m.If(self.en):
                m.d[self.domain] += addr_q.eq(self.addr)
            m.d[self.domain] += self.error_addr.eq(addr_q)
        else:
            with m.If(self.en):
                m.d[self.domain] += self.error_addr.eq(self.addr)

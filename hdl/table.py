"""The bucket table: per-slot tag, count and last-access time, banked for window reads.

Slot ``s`` lives in bank ``s mod PROBE`` at row ``s // PROBE``. A window
``h, h+1, ..., h+PROBE-1`` (mod ``ENTRIES``) touches each bank exactly once, so one
synchronous read of every bank returns the whole window in one cycle; the lanes are then
rotated into probe order (lane ``i`` is slot ``h + i``).

Storage:

* per bank, a ``Memory`` of ``{tag, count}`` (one read port) and a ``Memory`` of ``last``
  (two read ports: the window read and the scrubber's row read; a synthesiser maps it to
  two block RAMs written in step);
* per slot, a ``valid`` and a ``stale`` bit in registers (``ENTRIES`` bits each), so that a
  reset or a flush clears the table in one cycle and the scrubber can set stale marks
  without a memory write port.

All read ports are transparent for the write port: a read issued in the cycle of a write to
the same slot returns the written entry. The ``valid`` and ``stale`` lanes are read
combinationally from the registers in the cycle the memory data arrives, so they too
reflect every write up to the previous cycle. Together this means a window read issued in
cycle ``c`` sees every update made in cycles up to and including ``c``: a pipeline that
reads in one cycle and writes in the next needs no forwarding.
"""

from amaranth import *
from amaranth.lib import wiring, data
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .bitvec import onehot
from .layouts import check_params

__all__ = ["BucketTable"]


class BucketTable(wiring.Component):
    """Banked bucket table with a PROBE-wide window read.

    Ports
    -----
    rd_slot : In(SLOT_WIDTH)
        First slot ``h`` of the window to read; sampled every cycle.
    rd_valid, rd_stale : Out(PROBE)
        Bit ``i``: slot ``h + i`` (of the window addressed in the previous cycle) is
        tracked / is marked stale. Combinational from the current register state.
    rd_tag : Out(ArrayLayout(TAG_WIDTH, PROBE)), rd_count : Out(ArrayLayout(COUNT_WIDTH, PROBE)),
    rd_last : Out(ArrayLayout(TS_WIDTH, PROBE))
        Lane ``i``: the entry of slot ``h + i``, one cycle after ``rd_slot``.
    wr_en, wr_slot, wr_tag, wr_count, wr_last : In
        Write one entry; also sets its ``valid`` bit and clears its ``stale`` bit.
    inv_en, inv_slot : In
        Clear the ``valid`` bit of one slot (never in the same cycle as a write to it).
    flush : In(1)
        Clear every ``valid`` bit (takes effect at the end of the cycle).
    sc_row : In(range(ROWS))
        Scrubber row read: slots ``row * PROBE + b`` for every bank ``b``.
    sc_last : Out(ArrayLayout(TS_WIDTH, PROBE)), sc_valid : Out(PROBE)
        Lane ``b``: ``last`` (one cycle after ``sc_row``) and ``valid`` (current) of slot
        ``row * PROBE + b`` of the row addressed in the previous cycle.
    sc_set : In(PROBE)
        Set the ``stale`` bit of lane ``b`` of that row; ignored for a slot written
        (``wr_en``) in the same cycle, whose write wins.
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        p = params
        self.rows = p.ENTRIES // p.PROBE
        super().__init__({
            "rd_slot": In(p.SLOT_WIDTH),
            "rd_valid": Out(p.PROBE),
            "rd_stale": Out(p.PROBE),
            "rd_tag": Out(data.ArrayLayout(p.TAG_WIDTH, p.PROBE)),
            "rd_count": Out(data.ArrayLayout(p.COUNT_WIDTH, p.PROBE)),
            "rd_last": Out(data.ArrayLayout(p.TS_WIDTH, p.PROBE)),
            "wr_en": In(1),
            "wr_slot": In(p.SLOT_WIDTH),
            "wr_tag": In(p.TAG_WIDTH),
            "wr_count": In(p.COUNT_WIDTH),
            "wr_last": In(p.TS_WIDTH),
            "inv_en": In(1),
            "inv_slot": In(p.SLOT_WIDTH),
            "flush": In(1),
            "sc_row": In(range(self.rows)),
            "sc_last": Out(data.ArrayLayout(p.TS_WIDTH, p.PROBE)),
            "sc_valid": Out(p.PROBE),
            "sc_set": In(p.PROBE),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        P, rows = p.PROBE, self.rows
        pb = P.bit_length() - 1
        rw = max(0, rows.bit_length() - 1)            # row address bits

        def split(slot):                               # -> (bank, row)
            return slot[:pb], slot[pb:]

        ent_layout = data.StructLayout({"tag": p.TAG_WIDTH, "count": p.COUNT_WIDTH})

        # Window addressing: bank b holds slot h + ((b - h) mod P), at row hi + (b < lo).
        h_lo, h_hi = split(self.rd_slot)
        lo_q = Signal(max(pb, 1), name="rd_lo_q")
        m.d.sync += lo_q.eq(h_lo if pb else 0)
        row_q = [Signal(range(rows), name=f"rd_row_q{b}") for b in range(P)]

        w_bank, w_row = split(self.wr_slot)
        i_bank, i_row = split(self.inv_slot)
        sc_row_q = Signal(range(rows))
        m.d.sync += sc_row_q.eq(self.sc_row)

        wr_dec = onehot(m, w_row, rows, name="wr_dec")
        inv_dec = onehot(m, i_row, rows, name="inv_dec")
        sc_dec = onehot(m, sc_row_q, rows, name="sc_dec")

        bank_ent, bank_last, bank_sc_last = [], [], []
        valid = [Signal(rows, name=f"valid{b}") for b in range(P)]
        stale = [Signal(rows, name=f"stale{b}") for b in range(P)]
        for b in range(P):
            ent = Memory(shape=ent_layout, depth=rows, init=[])
            last = Memory(shape=p.TS_WIDTH, depth=rows, init=[])
            m.submodules[f"ent{b}"] = ent
            m.submodules[f"last{b}"] = last
            ent_w = ent.write_port()
            last_w = last.write_port()
            ent_r = ent.read_port(transparent_for=(ent_w,))
            last_r = last.read_port(transparent_for=(last_w,))
            sc_r = last.read_port(transparent_for=(last_w,))

            if pb:
                row = (h_hi + (Const(b, pb) < h_lo))[:rw] if rw else Const(0, 0)
            else:
                row = h_hi
            m.d.comb += [
                ent_r.addr.eq(row), last_r.addr.eq(row),
                ent_r.en.eq(1), last_r.en.eq(1),
                sc_r.addr.eq(self.sc_row), sc_r.en.eq(1),
            ]
            m.d.sync += row_q[b].eq(row)
            hit_bank = (w_bank == b) if pb else Const(1)
            m.d.comb += [
                ent_w.addr.eq(w_row), last_w.addr.eq(w_row),
                ent_w.data.tag.eq(self.wr_tag), ent_w.data.count.eq(self.wr_count),
                last_w.data.eq(self.wr_last),
                ent_w.en.eq(self.wr_en & hit_bank), last_w.en.eq(self.wr_en & hit_bank),
            ]
            bank_ent.append(ent_r.data)
            bank_last.append(last_r.data)
            bank_sc_last.append(sc_r.data)

            # valid / stale registers of this bank (row masks from shared row decoders).
            inv_bank = (i_bank == b) if pb else Const(1)
            wr_mask = Signal(rows, name=f"wr_mask{b}")
            inv_mask = Signal(rows, name=f"inv_mask{b}")
            sc_mask = Signal(rows, name=f"sc_mask{b}")
            m.d.comb += [
                wr_mask.eq(Mux(self.wr_en & hit_bank, wr_dec, 0)),
                inv_mask.eq(Mux(self.inv_en & inv_bank, inv_dec, 0)),
                sc_mask.eq(Mux(self.sc_set[b], sc_dec, 0)),
            ]
            with m.If(self.flush):
                m.d.sync += valid[b].eq(0)
            with m.Else():
                m.d.sync += valid[b].eq((valid[b] & ~inv_mask) | wr_mask)
            m.d.sync += stale[b].eq((stale[b] | sc_mask) & ~wr_mask)

            m.d.comb += [
                self.sc_last[b].eq(sc_r.data),
                self.sc_valid[b].eq(valid[b].bit_select(sc_row_q, 1)),
            ]

        # Rotate banks into probe order: lane i is bank (lo + i) mod P.
        bv = [valid[b].bit_select(row_q[b], 1) for b in range(P)]
        bs = [stale[b].bit_select(row_q[b], 1) for b in range(P)]
        for i in range(P):
            if pb:
                sel = (lo_q + i)[:pb]
                m.d.comb += [
                    self.rd_tag[i].eq(Array(e.tag for e in bank_ent)[sel]),
                    self.rd_count[i].eq(Array(e.count for e in bank_ent)[sel]),
                    self.rd_last[i].eq(Array(bank_last)[sel]),
                    self.rd_valid[i].eq(Array(bv)[sel]),
                    self.rd_stale[i].eq(Array(bs)[sel]),
                ]
            else:
                m.d.comb += [
                    self.rd_tag[i].eq(bank_ent[0].tag),
                    self.rd_count[i].eq(bank_ent[0].count),
                    self.rd_last[i].eq(bank_last[0]),
                    self.rd_valid[i].eq(bv[0]),
                    self.rd_stale[i].eq(bs[0]),
                ]
        return m

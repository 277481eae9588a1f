# SPDX-License-Identifier: Apache-2.0
"""The bucket table: per-slot tag, count, last-access time and valid bit, banked for window
reads, all in block RAM.

Slot ``s`` lives in bank ``s mod PROBE`` at row ``s // PROBE``. A window
``h, h+1, ..., h+PROBE-1`` (mod ``ENTRIES``) touches each bank exactly once, so one
synchronous read of every bank returns the whole window in one cycle; the lanes are then
rotated into probe order (lane ``i`` is slot ``h + i``).

Storage, per bank (every array a ``Memory`` with one write port, or with ``output_register``
a ``RegisteredReadRam``):

* ``ent``: ``{tag, count}``, written by ``wr``; one read port (the window);
* ``meta``: ``{last, gen, fresh, valid}``, written by ``wr`` (valid), ``inv`` and ``clear``
  (invalid), every write with the current ``generation`` in ``gen``; one read port (the
  window);
* ``mark``: one bit written only by the scrubber; one read port (the window);
* ``pmeta`` (only with ``pmeta_width``, the predictor build, docs/rtl-predictor.md): the
  predictor mode's per-slot word, written by ``pm`` (its own write port: with the slot's
  entry write, or alone, the ghost write of an EVICT); one read port (the window). It has
  no valid bit: a slot's tracking is ``meta``'s, and a slot that becomes tracked has its
  word written in the same cycle;

and one ``scrub`` memory of whole rows (``PROBE`` lanes of ``{last, fresh, valid}``: no
``gen``), written in step with every bank's ``meta`` (lane write enables), read by the
scrubber one row per cycle: its "port of its own" (spec section 10), one memory for all
banks rather than a second read port per bank.

**Stale marks without a shared write port.** A slot is *stale* when ``fresh != mark``. The
scrubber owns ``mark``: to mark a slot stale it writes ``mark = not fresh`` (idempotent, so
it never needs to read ``mark``); the datapath owns ``fresh``: a write stores
``fresh = mark``, which makes the slot not stale. So each bit has one writer and no memory
needs a second write port. The caller passes the mark of the slot it writes
(``wr_mark``): the bank's ``bk_mark`` from the window read that chose the slot, which is
the mark the slot has at the end of the window's evaluation cycle (the scrubber's write of
that cycle included). The scrubber's decision (``sc_set``) is registered and written in
the next cycle; it is dropped for a slot written (``wr``) in either cycle (the write wins:
the slot has just been accessed), so the mark cannot change between that cycle and the
write if the write follows at once (one evaluation stage); a core with a second stage
forwards the marks of the cycle between (``bk_mark`` already includes the scrubber write
of its own cycle, so a write in the next cycle is exact).

**Generations and clearing.** A slot is tracked (``bk_valid``) when its valid bit is set
*and* its ``gen`` is the current ``generation``: the core untracks every line in one cycle
by moving ``generation`` on (a flush, a reset; docs/spec-decisions.md D12). A slot of an
older generation reads as untracked whatever else it holds. Once the core has used every
generation it clears the valid bits by a sweep: ``clear_en`` writes ``valid = 0`` to row
``clear_row`` of every bank (one row per cycle, ``ENTRIES / PROBE`` cycles for the table),
with ``ready`` low. The scrubber's copy keeps no ``gen``: its ``sc_valid`` is the valid bit
alone, so the scrubber may mark a slot of an older generation stale, which nothing reads
(the write that next tracks the slot clears the mark).

The window's reads are transparent for the write port of their memory: a read issued in the
cycle of a write to the same slot returns the written entry. (The block RAM ports are not
transparent: a bypass register per memory (``hdl.table_bypass``), set by comparing the
window's rows with the write sources' registered rows, does it. The scrubber's read of
``scrub`` is not transparent at all; it snoops the writes instead, ``hdl.table_scrub``.) So a
window read issued in cycle ``c`` sees every update made in cycles up to and including
``c``: a pipeline that reads in one cycle and writes in the next needs no forwarding.

**The registered read** (``output_register``, the fast pipeline). A block RAM's word takes
most of a cycle to leave the RAM (about 5.8 ns on the ECP5 at speed 6), so any logic
between it and a register limits the clock. With ``output_register`` the window's
``ent``, ``meta`` and ``mark`` arrays are each a ``hdl.ram.RegisteredReadRam``: the word is
registered raw as it leaves the RAM (on the ECP5 in the DP16KD's own output register) and
is on ``bk_*`` two cycles after ``rd_slot``. The bypass then covers two cycles: beside
each output register, a register holds the word written to the row read in the read cycle
or in the cycle after (the later one wins; the second compared against the registered
row, every input a register), and ``bk_*`` is the one or the other, with the generation
compared on each side of that choice. So the window addressed in cycle ``c`` is the table
as it is at the end of ``c + 1``: a pipeline that writes in the cycle after the read
needs no snoop of its own. Both sides of every choice are outputs too (``bk_sides``), and
the bypassed tag is compared with ``rd_tag`` before its register, so that a caller's logic
on the window starts from the output registers rather than behind the choices.
"""

from types import SimpleNamespace

from amaranth import *
from amaranth.lib import wiring, data
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .layouts import check_params
from .match import IMPLEMENTATIONS as MATCH_IMPLEMENTATIONS
from .ecc import PROTECTIONS
from .protect import ProtectedMemory, collect_errors
from .ram import IMPLEMENTATIONS, RegisteredReadRam
from .table_bypass import (WindowRows, bank_window, bank_window_registered, read_bypass,
                           registered_read_bypass)
from .table_scrub import scrub_copy, scrub_marks, scrub_port

__all__ = ["BucketTable", "probe_order", "sides_layout", "GEN_WIDTH"]

#: Bits of the table generation (docs/spec-decisions.md D12): ``2**GEN_WIDTH`` generations,
#: so every ``2**GEN_WIDTH``-th flush or reset sweeps the valid bits.
GEN_WIDTH = 4


def sides_layout(p):
    """A bank's word on both sides of the window read's bypass choices
    (``BucketTable.bk_sides``): ``ent`` / ``meta`` / ``mark``, the choice of the ``ent`` /
    ``meta`` / ``mark`` word (the bypassed word if set); the ``*_raw`` fields from the block
    RAM's read, the ``*_byp`` ones from the bypass registers: the count, the last-access
    stamp, the fresh bit, the mark; and ``match``, the word as chosen is tracked and holds
    the tag of the request the window is read for (``rd_tag``), made on both sides and
    chosen inside one comparison (``hdl.match.Match``)."""
    return data.StructLayout({
        "ent": 1, "count_raw": p.COUNT_WIDTH, "count_byp": p.COUNT_WIDTH, "match": 1,
        "meta": 1, "last_raw": p.TS_WIDTH, "last_byp": p.TS_WIDTH,
        "fresh_raw": 1, "fresh_byp": 1,
        "mark": 1, "mark_raw": 1, "mark_byp": 1,
    })


def probe_order(bank_values, lo, i):
    """Lane ``i`` of a window whose lane 0 is in bank ``lo``: ``bank_values`` (one value
    per bank, bank order) rotated into probe order, lane ``i`` = bank ``(lo + i) mod P``
    (PROBE is a power of two). The one rotation of the design: the core's E stage rotates
    the table's bank-order words (registered in M, or straight from ``bk_*``) with it.
    """
    pb = len(bank_values).bit_length() - 1
    if not pb:
        return bank_values[0]
    return Array(bank_values)[(lo + i)[:pb]]


class BucketTable(wiring.Component):
    """Banked bucket table with a PROBE-wide window read.

    Ports
    -----
    rd_slot : In(SLOT_WIDTH)
        First slot ``h`` of the window to read; sampled every cycle. Slot ``h + i`` (lane
        ``i``) is in bank ``(h + i) mod PROBE``; its entry appears on the ``bk_*`` outputs
        of that bank one cycle later (the caller rotates them into probe order,
        ``probe_order``).
    wr_en, wr_slot, wr_tag, wr_count, wr_last, wr_mark : In
        Write one entry; it becomes tracked and not stale (``wr_mark``: see above).
    inv_en, inv_slot : In
        Untrack one slot (never in the same cycle as ``wr_en`` or ``clear_en``).
    pm_en, pm_slot, pm_data : In, only with ``pmeta_width``
        Write ``pm_data`` (``pmeta_width`` bits) to the ``pmeta`` word of ``pm_slot``: in
        any cycle, with or without the other writes (its own array and port).
    clear_en : In(1), clear_row : In(range(ROWS))
        Untrack the ``PROBE`` slots of row ``clear_row`` (never with ``wr_en`` or
        ``inv_en``).
    generation : In(gen_width)
        The current generation: stored with every write; a slot whose stored one differs
        reads as untracked (``bk_valid`` low). Changes only while no window read is in
        flight.
    sc_row : In(range(ROWS))
        Scrubber row read: slots ``row * PROBE + b`` for every bank ``b``.
    sc_last : Out(ArrayLayout(TS_WIDTH, PROBE)), sc_valid : Out(PROBE)
        Lane ``b``: ``last`` and ``valid`` of slot ``row * PROBE + b`` of the row addressed
        two cycles before (the block RAM's output is registered first).
    sc_set : In(PROBE)
        Mark lane ``b`` of that row stale. The mark is written in the next cycle, from
        registers (``sc_mark_*``), and is dropped for a slot written (``wr_en``) in this
        cycle or in that one, whose write wins.
    bk_tag, bk_count, bk_last, bk_valid, bk_fresh, bk_mark, bk_row : Out
        The window read in bank order (bank ``b``: row ``bk_row[b]``), one cycle after
        ``rd_slot`` straight from the block RAMs, or with ``output_register`` two cycles
        after it from their output registers and the bypass registers (the table at the
        end of the cycle before). ``bk_mark`` is the mark at the end of this cycle, which
        depends on this cycle's ``wr_*``: pass it as ``wr_mark`` when writing that slot
        (``output_register``: the same as ``bk_mark_raw``); ``bk_mark_raw`` the mark as
        read; a slot is stale when ``bk_fresh != bk_mark_raw``.
    bk_pmeta : Out(ArrayLayout(pmeta_width, PROBE)), only with ``pmeta_width``
        The window's ``pmeta`` words in bank order, read and bypassed as ``bk_tag`` is (the
        ``pm`` writes up to the same cycle are in).
    bk_sc_row_hit : Out(PROBE)
        Bank ``b``'s row ``bk_row[b]`` is the row of this cycle's scrubber mark write
        (``sc_mark_row``; with ``output_register`` a register).
    rd_tag : In(TAG_WIDTH)
        With ``output_register``: the tag the window read in flight is compared with (the
        tag of the request whose window is on ``bk_*`` in the next cycle), for
        ``bk_sides.match``. Unused without ``output_register``.
    bk_sides : Out(ArrayLayout(sides_layout(params), PROBE))
        Bank ``b``'s word as the two sides of the bypass choices (``sides_layout``):
        ``bk_count[b]`` / ``bk_tag[b]`` is the ``*_byp`` side if ``ent`` else the ``*_raw``
        one, ``bk_last[b]``, ``bk_fresh[b]``, ``bk_valid[b]`` likewise by ``meta``,
        ``bk_mark_raw[b]`` by ``mark``; every one a register with ``output_register`` (the
        ``*_raw`` the block RAMs' output registers), so that a caller can do its logic on
        both sides and choose after it; ``match`` is ``bk_valid[b] & (bk_tag[b] ==
        rd_tag)`` (``rd_tag`` of the cycle before), the raw word's tag, generation and
        valid bit compared where the bypass did not replace it, the bypassed word's results
        (made in the cycle before, from registers) where it did, the choices inside the
        comparison (``hdl.match.Match``: on the ECP5 one carry chain from the output
        registers). Without ``output_register``: ``ent = meta = mark = 0``, the raw sides
        the outputs, ``match`` 0.
    sc_mark_en : Out(PROBE), sc_mark_row : Out(range(ROWS)), sc_mark_value : Out(PROBE)
        The scrubber's mark write of this cycle (bank ``b`` of row ``sc_mark_row`` gets
        mark ``sc_mark_value[b]`` if ``sc_mark_en[b]``), for a caller that holds window
        lanes in registers and keeps their marks current.
    sc_mark_row_next : Out(range(ROWS))
        The row of the next cycle's mark write (a register), for a caller that compares
        rows with it a cycle ahead.
    sc_mark_intent : Out(PROBE)
        ``sc_mark_en`` before this cycle's ``wr_en`` drops it: a register, for a caller
        that must not wait for this cycle's write (the slot that write drops is the one it
        writes, whose mark the caller takes from the write).

    sweep_en : In(1), sweep_row : In(range(ROWS)), only with ``protection``
        The soft-error recovery's sweep (docs/spec-decisions.md D11): write the zero code
        word to row ``sweep_row`` of every array (``ent``, ``meta``, ``mark`` of every
        bank and ``scrub``) instead of their own writes.
    err_uncorrectable, err_corrected : Out(1), only with ``protection``
        One cycle after the checks (``hdl.protect.collect_errors``, registered: the
        detection cycle of D11): a read checked in the cycle before whose word the table
        uses failed its check (uncorrectable), or was corrected (``scrub`` only: the
        window arrays are checked, not corrected, any failed check is uncorrectable). A
        window read replaced by the bypass, and a ``scrub`` lane replaced by the snoop, is
        not checked.
    err_mem : Out(4), err_slot : Out(SLOT_WIDTH), only with ``protection``
        The memory (``regmap.MEM_IDS``) and slot of one of them: the first uncorrectable
        (in ``MEM_ID`` then bank order), else the first corrected.

    Parameters
    ----------
    params : regmap.Params or None
    memory : class
        The memory every array is built from (default ``amaranth.lib.memory.Memory``; the
        formal harness gives its register model).
    gen_width : int
        Bits of ``generation`` (default ``GEN_WIDTH``).
    output_register : bool
        The window arrays with a registered read (see above): ``bk_*`` two cycles after
        ``rd_slot`` instead of one.
    ram : str
        ``RegisteredReadRam``'s implementation of the window arrays with
        ``output_register``: ``"generic"`` (``memory`` and a register) or ``"dp16kd"``
        (the ECP5's DP16KD with its output register).
    match : str
        ``hdl.match.Match``'s implementation of ``bk_sides.match`` with
        ``output_register``: ``"generic"`` (the expression) or ``"ccu2c"`` (the ECP5's
        carry chain).
    protection : str
        ``"none"`` (default) or a ``hdl.ecc.PROTECTIONS`` code: check bits on every
        word of every array (D11; the coded words in ``memory``).
    pmeta_width : int
        Bits of the predictor's per-slot word (``hdl.core.interfaces.pmeta_layout``); 0
        (default): no ``pmeta`` array and none of its ports, the table of the article's
        build. Needs ``protection="none"``.

    Attributes
    ----------
    rows : int
        ``ENTRIES // PROBE``: rows per bank, and cycles of a full clear sweep.
    read_latency : int
        Cycles from ``rd_slot`` to ``bk_*``: 1, or 2 with ``output_register``.
    memories : dict
        After elaboration: bank ``b``'s memories by name, ``ent{b}`` (``{tag, count}``),
        ``meta{b}`` (``{last, gen, fresh, valid}``) and ``mark{b}``, for the formal views of
        the contents (with the register-model memory; ``None`` for ``"dp16kd"``); with
        ``protection`` also ``scrub`` (a ``ProtectedMemory``), for testbenches.
    """

    def __init__(self, params=None, *, memory=Memory, gen_width=GEN_WIDTH,
                 output_register=False, ram="generic", match="generic", protection="none",
                 pmeta_width=0):
        params = check_params(params)
        if not isinstance(pmeta_width, int) or isinstance(pmeta_width, bool) or pmeta_width < 0:
            raise ValueError(f"pmeta_width must be a non-negative integer, not {pmeta_width!r}")
        if pmeta_width and protection != "none":
            raise ValueError("pmeta_width needs protection='none' (the predictor's array has "
                             "no check bits)")
        self.pmeta_width = pmeta_width
        if not isinstance(gen_width, int) or gen_width < 1:
            raise ValueError(f"gen_width must be a positive integer, not {gen_width!r}")
        if not isinstance(output_register, bool):
            raise TypeError(f"output_register must be a bool, not {output_register!r}")
        if ram not in IMPLEMENTATIONS:
            raise ValueError(f"ram must be one of {IMPLEMENTATIONS}, not {ram!r}")
        if ram != "generic" and not output_register:
            raise ValueError(f"ram={ram!r} needs output_register=True (it is the "
                             f"implementation of the registered window arrays)")
        if match not in MATCH_IMPLEMENTATIONS:
            raise ValueError(f"match must be one of {MATCH_IMPLEMENTATIONS}, not {match!r}")
        if match != "generic" and not output_register:
            raise ValueError(f"match={match!r} needs output_register=True (bk_sides.match "
                             f"is made only there)")
        if protection not in PROTECTIONS:
            raise ValueError(f"protection must be one of {PROTECTIONS}, not {protection!r}")
        self.protection = protection
        self._params = params
        self._memory = memory
        self.output_register = output_register
        self.ram = ram
        self.match = match
        self.read_latency = 2 if output_register else 1
        self.gen_width = gen_width
        p = params
        self.rows = p.ENTRIES // p.PROBE
        super().__init__({
            "rd_slot": In(p.SLOT_WIDTH),
            "wr_en": In(1),
            "wr_slot": In(p.SLOT_WIDTH),
            "wr_tag": In(p.TAG_WIDTH),
            "wr_count": In(p.COUNT_WIDTH),
            "wr_last": In(p.TS_WIDTH),
            "wr_mark": In(1),
            "inv_en": In(1),
            "inv_slot": In(p.SLOT_WIDTH),
            "clear_en": In(1),
            "clear_row": In(range(self.rows)),
            "generation": In(gen_width),
            "sc_row": In(range(self.rows)),
            "sc_last": Out(data.ArrayLayout(p.TS_WIDTH, p.PROBE)),
            "sc_valid": Out(p.PROBE),
            "sc_set": In(p.PROBE),
            "bk_tag": Out(data.ArrayLayout(p.TAG_WIDTH, p.PROBE)),
            "bk_count": Out(data.ArrayLayout(p.COUNT_WIDTH, p.PROBE)),
            "bk_last": Out(data.ArrayLayout(p.TS_WIDTH, p.PROBE)),
            "bk_valid": Out(p.PROBE),
            "bk_fresh": Out(p.PROBE),
            "bk_mark": Out(p.PROBE),
            "bk_mark_raw": Out(p.PROBE),
            "bk_row": Out(data.ArrayLayout(range(self.rows), p.PROBE)),
            "bk_sc_row_hit": Out(p.PROBE),
            "rd_tag": In(p.TAG_WIDTH),
            "bk_sides": Out(data.ArrayLayout(sides_layout(p), p.PROBE)),
            "sc_mark_en": Out(p.PROBE),
            "sc_mark_row": Out(range(self.rows)),
            "sc_mark_value": Out(p.PROBE),
            "sc_mark_row_next": Out(range(self.rows)),
            "sc_mark_intent": Out(p.PROBE),
            **({"pm_en": In(1), "pm_slot": In(p.SLOT_WIDTH), "pm_data": In(pmeta_width),
                "bk_pmeta": Out(data.ArrayLayout(pmeta_width, p.PROBE))}
               if pmeta_width else {}),
            **({"sweep_en": In(1), "sweep_row": In(range(self.rows)),
                "err_uncorrectable": Out(1), "err_corrected": Out(1),
                "err_mem": Out(4), "err_slot": Out(p.SLOT_WIDTH)}
               if protection != "none" else {}),
        })

    def elaborate(self, platform):
        m = Module()
        self.memories = {}
        w = self._shared(m)
        for b in range(self._params.PROBE):
            k = self._bank_arrays(m, w, b)
            self._bank_writes(m, w, k, b)
            scrub_copy(self, m, w, k, b)
            scrub_marks(self, m, w, k, b)
            k.ent_hit = k.wr_here & w.rows_at.is_row(w.w_cmp, b)
            if self.pmeta_width:
                self._bank_pmeta(m, w, k, b)
            k.meta_hit = self._meta_write_where(w, k, b, w.rows_at.is_row(w.clr_cmp, b),
                                                w.rows_at.is_row(w.i_cmp, b),
                                                w.rows_at.is_row(w.w_cmp, b))
            k.mark_hit = k.sc_we & w.rows_at.is_row(w.sc_cmp, b)
            m.d.comb += [self.sc_mark_en[b].eq(k.sc_we), self.sc_mark_value[b].eq(k.sc_value),
                         self.sc_mark_intent[b].eq(k.sc_intent)]
            if self.output_register:
                bank_window_registered(self, m, w, k, b)
            else:
                bank_window(self, m, w, k, b)
        m.d.comb += [self.sc_mark_row.eq(w.scrub.row_qqq), self.sc_mark_row_next.eq(w.scrub.row_qq)]
        if w.protected:
            collect_errors(m, self, sorted(w.checks, key=lambda c: c[2]), registered=True)
        return m

    def _shared(self, m):
        """What every bank's part shares (returned as a namespace ``w``, which the parts in
        ``hdl.table_scrub`` and ``hdl.table_bypass`` also take): the layouts, the
        window's and the write sources' rows, the scrubber's row pipeline and its ``scrub``
        memory, the meta write, the row compares of the bypass, the tag ``bk_sides.match``
        compares with, and the checks collected (with protection)."""
        p = self._params
        P, rows = p.PROBE, self.rows
        pb = P.bit_length() - 1
        rw = max(0, rows.bit_length() - 1)            # row address bits

        ent_layout = data.StructLayout({"tag": p.TAG_WIDTH, "count": p.COUNT_WIDTH})
        meta_layout = data.StructLayout({"last": p.TS_WIDTH, "gen": self.gen_width,
                                         "fresh": 1, "valid": 1})
        copy_layout = data.StructLayout({"last": p.TS_WIDTH, "fresh": 1, "valid": 1})

        # Window addressing: bank b holds slot h + ((b - h) mod P), at row hi + (b < lo).
        h_lo, h_hi = _split(self.rd_slot, pb)

        w_bank, w_row = _split(self.wr_slot, pb)
        i_bank, i_row = _split(self.inv_slot, pb)
        protected = self.protection != "none"
        checks = []           # (uncorrectable, corrected, MEM_ID, slot) of every read
        # The scrubber's rows and its copy of every bank's meta (hdl/table_scrub.py).
        scrub = scrub_port(self, m, copy_layout, self._memory)
        meta_data = Signal(meta_layout)
        copy_data = Signal(copy_layout)               # meta_data without gen
        meta_addr = Signal(range(rows))
        m.d.comb += [
            meta_data.last.eq(self.wr_last), meta_data.fresh.eq(self.wr_mark),
            meta_data.valid.eq(~(self.inv_en | self.clear_en)),
            meta_data.gen.eq(self.generation),
            copy_data.last.eq(meta_data.last), copy_data.fresh.eq(meta_data.fresh),
            copy_data.valid.eq(meta_data.valid),
        ]
        with m.If(self.clear_en):
            m.d.comb += meta_addr.eq(self.clear_row)
        with m.Elif(self.inv_en):
            m.d.comb += meta_addr.eq(i_row)
        with m.Else():
            m.d.comb += meta_addr.eq(w_row)
        m.d.comb += scrub.write.addr.eq(meta_addr)

        # The window reads return what a read transparent for the write port would, from
        # bypass registers beside the block RAMs (hdl/table_bypass.py).
        rows_at = WindowRows(m, h_lo, h_hi, rw)
        w_cmp = rows_at.compare(w_row, "wr")
        pm_bank = pm_row = pm_cmp = None
        if self.pmeta_width:
            pm_bank, pm_row = _split(self.pm_slot, pb)
            pm_cmp = rows_at.compare(pm_row, "pm")
        i_cmp = rows_at.compare(i_row, "inv")
        clr_cmp = rows_at.compare(self.clear_row, "clear")
        sc_cmp = rows_at.compare(scrub.row_qqq, "sc_mark")

        # The tag of the request whose window is on bk_* now (rd_tag of the cycle before),
        # for bk_sides.match.
        rd_tag_q = None
        if self.output_register:
            rd_tag_q = Signal(p.TAG_WIDTH, name="rd_tag_q")
            m.d.sync += rd_tag_q.eq(self.rd_tag)
        return SimpleNamespace(
            params=p, meta_write_where=self._meta_write_where,
            pb=pb, rw=rw, protected=protected, checks=checks,
            ent_layout=ent_layout, meta_layout=meta_layout, copy_layout=copy_layout,
            h_lo=h_lo, h_hi=h_hi, w_bank=w_bank, w_row=w_row, i_bank=i_bank, i_row=i_row,
            pm_bank=pm_bank, pm_row=pm_row,
            scrub=scrub,
            meta_data=meta_data, copy_data=copy_data, meta_addr=meta_addr,
            rows_at=rows_at, w_cmp=w_cmp, pm_cmp=pm_cmp, i_cmp=i_cmp, clr_cmp=clr_cmp,
            sc_cmp=sc_cmp, rd_tag_q=rd_tag_q)

    def _window_array(self, m, name, shape):
        """One bank's array of the window read: (write port, read port), each with
        ``addr``, ``data`` and ``en``. A ``Memory`` (``memory``), or with
        ``output_register`` a ``RegisteredReadRam`` (its read data a cycle later)."""
        protected = self.protection != "none"
        if not self.output_register:
            if protected:     # checked, not corrected (as the registered read)
                mem = ProtectedMemory(shape=shape, depth=self.rows, attrs={"no_rw_check": 1},
                                      protection=self.protection, correct=False,
                                      sweep_en=self.sweep_en, sweep_addr=self.sweep_row,
                                      memory=self._memory)
            else:
                mem = self._memory(shape=shape, depth=self.rows, init=[],
                                   attrs={"no_rw_check": 1})
            m.submodules[name] = self.memories[name] = mem
            return mem.write_port(), mem.read_port()
        ram = RegisteredReadRam(shape=shape, depth=self.rows, memory=self._memory,
                                implementation=self.ram, protection=self.protection)
        m.submodules[name] = ram
        self.memories[name] = ram.memory
        if protected:
            m.d.comb += [ram.sweep_en.eq(self.sweep_en), ram.sweep_addr.eq(self.sweep_row)]
        return (SimpleNamespace(addr=ram.wr_addr, data=ram.wr_data, en=ram.wr_en),
                SimpleNamespace(addr=ram.rd_addr, data=ram.rd_data, en=Signal(),
                                error=ram.rd_error if protected else None,
                                check=ram.rd_check if protected else None))

    def _bank_arrays(self, m, w, b):
        """Bank ``b``'s ``ent``, ``meta`` and ``mark`` arrays, read at the bank's row of
        the window (``row``, registered as ``row_q``); returned as the bank's namespace."""
        pb, rw = w.pb, w.rw
        ent_w, ent_r = self._window_array(m, f"ent{b}", w.ent_layout)
        meta_w, meta_r = self._window_array(m, f"meta{b}", w.meta_layout)
        mark_w, mark_r = self._window_array(m, f"mark{b}", 1)

        if pb:
            row = (w.h_hi + (Const(b, pb) < w.h_lo))[:rw] if rw else Const(0, 0)
        else:
            row = w.h_hi
        row_q = Signal(range(self.rows), name=f"rd_row_q{b}")
        m.d.sync += row_q.eq(row)
        for rp in (ent_r, meta_r, mark_r):
            m.d.comb += [rp.addr.eq(row), rp.en.eq(1)]
        return SimpleNamespace(ent_w=ent_w, ent_r=ent_r, meta_w=meta_w, meta_r=meta_r,
                               mark_w=mark_w, mark_r=mark_r, row=row, row_q=row_q)

    def _bank_writes(self, m, w, k, b):
        """The datapath's writes into bank ``b``: an entry (``ent`` and ``meta``), an
        invalidate or a clear (``meta`` only), and the same ``meta`` word into the
        bank's lane of ``scrub``."""
        k.wr_here = self.wr_en & _in_bank(w.w_bank, b)
        k.meta_en = (self.clear_en | (self.inv_en & _in_bank(w.i_bank, b)) |
                     (~self.inv_en & k.wr_here))
        m.d.comb += [
            k.ent_w.addr.eq(w.w_row), k.ent_w.en.eq(k.wr_here),
            k.ent_w.data.tag.eq(self.wr_tag), k.ent_w.data.count.eq(self.wr_count),
            k.meta_w.addr.eq(w.meta_addr), k.meta_w.data.eq(w.meta_data),
            k.meta_w.en.eq(k.meta_en),
            w.scrub.write.data[b].eq(w.copy_data), w.scrub.write.en[b].eq(k.meta_en),
        ]

    def _meta_write_where(self, w, k, b, clear_at, inv_at, wr_at):
        """Bank ``b``'s meta write is at a row, given whether each write source's row is
        it (the sources in the priority of the meta address multiplexer). "At the row" is
        compared per write source in parallel (the sources' rows come from registers)
        rather than behind the address multiplexer."""
        return ((self.clear_en & clear_at) |
                (~self.clear_en & self.inv_en & _in_bank(w.i_bank, b) & inv_at) |
                (~self.clear_en & ~self.inv_en & k.wr_here & wr_at))

    def _bank_pmeta(self, m, w, k, b):
        """The predictor mode's ``pmeta`` array of bank ``b``: written by ``pm``, read with
        the window, bypassed as the other arrays are, onto ``bk_pmeta``."""
        pm_w, pm_r = self._window_array(m, f"pmeta{b}", self.pmeta_width)
        m.d.comb += [pm_r.addr.eq(k.row), pm_r.en.eq(1)]
        pm_here = self.pm_en & _in_bank(w.pm_bank, b)
        m.d.comb += [pm_w.addr.eq(w.pm_row), pm_w.en.eq(pm_here),
                     pm_w.data.eq(self.pm_data)]
        pm_hit = pm_here & w.rows_at.is_row(w.pm_cmp, b)
        if self.output_register:
            p_alt, p_alt_data, p_raw = registered_read_bypass(
                m, pm_r, pm_w, self.pmeta_width, pm_hit, k.row_q, f"pmeta{b}",
                reset_less=w.protected)
            m.d.comb += self.bk_pmeta[b].eq(Mux(p_alt, p_alt_data, p_raw))
        else:
            m.d.comb += self.bk_pmeta[b].eq(
                read_bypass(m, pm_r, pm_w, self.pmeta_width, pm_hit, f"pmeta{b}",
                            reset_less=w.protected))

def _split(slot, pb):
    """``(bank, row)`` of a slot: its low ``pb`` bits and the rest."""
    return slot[:pb], slot[pb:]


def _in_bank(bank, b):
    """The slot whose bank is ``bank`` (from ``_split``) is in bank ``b``."""
    return (bank == b) if len(bank) else Const(1)

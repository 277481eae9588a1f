# SPDX-License-Identifier: Apache-2.0
"""``BucketTable``: the bucket table's component, its ports and parameters; ``elaborate``
builds each bank from the parts of ``banks.py``, ``scrub.py`` and ``bypass.py`` over what
``shared.py`` makes once (the design: ``hdl.table``)."""

from amaranth import Module
from amaranth.lib import wiring, data
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..layouts import check_params
from ..match import IMPLEMENTATIONS as MATCH_IMPLEMENTATIONS
from ..ecc import check_protection
from ..error_report import collect_errors
from ..ram import IMPLEMENTATIONS
from .banks import bank_arrays, bank_pmeta, bank_writes, meta_write_where
from .bypass import bank_window, bank_window_registered
from .layouts import GEN_WIDTH, sides_layout
from .scrub import scrub_copy, scrub_marks
from .shared import shared

__all__ = ["BucketTable"]


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
        One cycle after the checks (``hdl.error_report.collect_errors``, registered: the
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
    params : regmap.Params
        The elaboration parameters, checked.
    memory : class
        The memory class the arrays are built from (the ``memory`` parameter).
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
        check_protection(protection)
        self.protection = protection
        self.params = params
        self.memory = memory
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
        w = shared(self, m)
        for b in range(self.params.PROBE):
            k = bank_arrays(self, m, w, b)
            bank_writes(self, m, w, k, b)
            scrub_copy(self, m, w, k, b)
            scrub_marks(self, m, w, k, b)
            k.ent_hit = k.wr_here & w.rows_at.is_row(w.w_cmp, b)
            if self.pmeta_width:
                bank_pmeta(self, m, w, k, b)
            k.meta_hit = meta_write_where(self, w, k, b, w.rows_at.is_row(w.clr_cmp, b),
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

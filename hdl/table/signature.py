# SPDX-License-Identifier: Apache-2.0
"""The ports of the bucket table (``BucketTable``): the window read, the writes, the
clear sweep, the scrubber's row port and its mark writes, and, in some builds, the
predictor's per-slot words and the soft-error report."""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from regmap import MEM_ID_WIDTH

from ..layouts import check_params
from .layouts import sides_layout

__all__ = ["BucketTableSignature"]


class BucketTableSignature(wiring.Signature):
    """The bucket table's signature.

    Parameters
    ----------
    params : regmap.Params
    gen_width : int
        Bits of ``generation``.
    pmeta_width : int
        Bits of the predictor's per-slot word; 0: no ``pm_*`` / ``bk_pmeta`` ports.
    protected : bool
        Adds the recovery sweep's and the error report's ports.

    ``output_register`` below is ``BucketTable``'s parameter: the window arrays read
    through a register (which changes the timing of the ``bk_*`` ports, not the ports).

    Members (as the table sees them)
    --------------------------------
    rd_slot : In(SLOT_WIDTH)
        First slot ``h`` of the window to read; sampled every cycle. Slot ``h + i`` (lane
        ``i``) is in bank ``(h + i) mod PROBE``; its entry appears on the ``bk_*`` outputs
        of that bank ``read_latency`` cycles later (1, or 2 with ``output_register``; the
        caller rotates them into probe order, ``probe_order``).
    wr_en, wr_slot, wr_tag, wr_count, wr_last, wr_mark : In
        Write one entry; it becomes tracked and not stale (``wr_mark``: ``hdl.table``, "Stale marks").
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
    bk_tag, bk_count, bk_last, bk_valid, bk_fresh, bk_mark, bk_mark_raw, bk_row : Out
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

    sweep_en : In(1), sweep_row : In(range(ROWS)), only with ``protected``
        The soft-error recovery's sweep (docs/spec-decisions.md D11): write the zero code
        word to row ``sweep_row`` of every array (``ent``, ``meta``, ``mark`` of every
        bank and ``scrub``) instead of their own writes.
    err_uncorrectable, err_corrected : Out(1), only with ``protected``
        One cycle after the checks (``hdl.error_report.collect_errors``, registered: the
        detection cycle of D11): a read checked in the cycle before whose word the table
        uses failed its check (uncorrectable), or was corrected (``scrub`` only: the
        window arrays are checked, not corrected, any failed check is uncorrectable). A
        window read replaced by the bypass, and a ``scrub`` lane replaced by the snoop, is
        not checked.
    err_mem : Out(MEM_ID_WIDTH), err_slot : Out(SLOT_WIDTH), only with ``protected``
        The memory (``regmap.MEM_IDS``) and slot of one of them: the first uncorrectable
        (in ``MEM_ID`` then bank order), else the first corrected.
    """

    def __init__(self, params, *, gen_width, pmeta_width=0, protected=False):
        p = check_params(params)
        rows = p.ROWS
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
            "clear_row": In(range(rows)),
            "generation": In(gen_width),
            "sc_row": In(range(rows)),
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
            "bk_row": Out(data.ArrayLayout(range(rows), p.PROBE)),
            "bk_sc_row_hit": Out(p.PROBE),
            "rd_tag": In(p.TAG_WIDTH),
            "bk_sides": Out(data.ArrayLayout(sides_layout(p), p.PROBE)),
            "sc_mark_en": Out(p.PROBE),
            "sc_mark_row": Out(range(rows)),
            "sc_mark_value": Out(p.PROBE),
            "sc_mark_row_next": Out(range(rows)),
            "sc_mark_intent": Out(p.PROBE),
            **({"pm_en": In(1), "pm_slot": In(p.SLOT_WIDTH), "pm_data": In(pmeta_width),
                "bk_pmeta": Out(data.ArrayLayout(pmeta_width, p.PROBE))}
               if pmeta_width else {}),
            **({"sweep_en": In(1), "sweep_row": In(range(rows)),
                "err_uncorrectable": Out(1), "err_corrected": Out(1),
                "err_mem": Out(MEM_ID_WIDTH), "err_slot": Out(p.SLOT_WIDTH)}
               if protected else {}),
        })

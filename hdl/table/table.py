# SPDX-License-Identifier: Apache-2.0
"""``BucketTable``: the bucket table's component, its ports and parameters; ``elaborate``
builds each bank from the parts of ``banks.py``, ``scrub.py`` and ``bypass.py`` over what
``shared.py`` makes once (the design: ``hdl.table``)."""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from ..layouts import check_int, check_params
from ..match import IMPLEMENTATIONS as MATCH_IMPLEMENTATIONS
from ..ecc import check_protection
from ..error_report import collect_errors
from ..ram import IMPLEMENTATIONS, check_memory
from .banks import bank_arrays, bank_pmeta, bank_writes, meta_write_where
from .bypass import bank_window, bank_window_registered
from .layouts import GEN_WIDTH, check_gen_width
from .scrub import scrub_copy, scrub_marks
from .shared import shared
from .signature import BucketTableSignature

__all__ = ["BucketTable"]


class BucketTable(wiring.Component):
    """Banked bucket table with a PROBE-wide window read.

    Ports
    -----
    As ``BucketTableSignature(params, ...)`` lists them (``hdl.table.signature``).

    Parameters
    ----------
    params : regmap.Params or None
    memory : class
        The memory every array is built from (default ``amaranth.lib.memory.Memory``; the
        formal harness gives its register model).
    gen_width : int
        Bits of ``generation`` (default ``GEN_WIDTH``; at least 1).
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
        check_int("pmeta_width", pmeta_width, 0)
        check_gen_width(gen_width)
        if pmeta_width and protection != "none":
            raise ValueError("pmeta_width needs protection='none' (the predictor's array has "
                             "no check bits)")
        self.pmeta_width = pmeta_width
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
        self.memory = check_memory(memory)
        self.output_register = output_register
        self.ram = ram
        self.match = match
        self.read_latency = 2 if output_register else 1
        self.gen_width = gen_width
        p = params
        self.rows = p.ROWS
        super().__init__(BucketTableSignature(params, gen_width=gen_width,
                                              pmeta_width=pmeta_width,
                                              protected=protection != "none"))

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

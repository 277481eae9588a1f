# SPDX-License-Identifier: Apache-2.0
"""Admission: which request the core takes in a cycle (and, in the non-blocking mode, which
it drops), the table generation and the clear sweep."""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import check_int, check_params, request_layout
from ..table import GEN_WIDTH, check_gen_width
from .generations import table_generations
from .interfaces import stage_layout
from .options import CoreOptions

__all__ = ["Admission"]

OBSERVE = regmap.OPS["OBSERVE"]


class Admission(wiring.Component):
    """Accepts requests into the pipeline (stage s0) as credits, the EVICT gaps and the
    clear sweep allow, and keeps the table generation (docs/spec-decisions.md D12).

    A flush, and a reset, untrack every line by starting a new table generation in one
    cycle; only when every generation since the last sweep has been used does it run the
    clear sweep instead (``flushing``), which ends with the count of used generations at
    0. The generation, that count and the sweep are state of the table's block RAM rather
    than of the pipeline: they have no reset (their power-up values are generation 0,
    count 0, no sweep, for a block RAM that is all zero), and a reset counts as one flush
    (once, however many cycles ``rst`` is high; nothing while a sweep runs, which untracks
    everything anyway). A sweep holds at row 0 while ``rst`` is high, so that after any
    reset that sweeps ``ready`` rises in cycle ``ENTRIES / PROBE``.

    Non-blocking mode (``nonblocking``, docs/spec-decisions.md D13): ``req.ready`` is 1 and a
    request presented in a cycle in which the blocking block's ``ready`` would be low (the
    reasons above, unchanged) is dropped: it does not enter s0, uses no credit, opens no
    EVICT gap, and pulses ``dropped``.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``serial``: one request in flight at most.
    fifo_depth : int
        Responses the response FIFO holds: the credits (at least 1).
    evict_gap : int
        At least 1. An EVICT / EVICT_ANY is refused while an OBSERVE accepted in one of the
        ``evict_gap`` previous cycles could still move the LRU tail or a slot of the LRU
        list's chain (the EVICT reads the table in R at the tail the POPs in flight leave,
        which shows E2's TOUCH / INSERT ``tail_lag`` cycles later). A QUERY gives no LRU
        command. Nothing else waits for an EVICT: the request right behind one is accepted
        in the next cycle (E1b forwards the invalidate as it forwards a write).
    evict_evict_gap : int or None
        An EVICT / EVICT_ANY is refused while an EVICT / EVICT_ANY was accepted in one of
        the ``evict_evict_gap`` previous cycles (``None``: ``evict_gap``): behind EVICTs
        only, the LRU list's chain gives the tail their POPs leave, once each of them has
        decided whether it pops (E2, a register, by the later EVICT's R).
    predictor_gap : int or None
        Only with ``options.predictor``: while ``policy`` is 1, an EVICT / EVICT_ANY is
        refused while a request that gives a list move (an OBSERVE, an EVICT, a FREE) was
        accepted in one of the ``predictor_gap`` previous cycles (``None``:
        ``evict_gap``), so that the lists' ends and the ``gtail2`` prefetch are settled
        at its R and at its FREEs' (docs/rtl-predictor.md, "EVICT in this mode").
    gen_width : int
        Bits of the table generation (default ``hdl.table.GEN_WIDTH``; 1 ..
        ``MAX_GEN_WIDTH``).

    Ports
    -----
    req : In(stream.Signature(request_layout(params)))
        The core's requests (see ``KvAsuCore``).
    enable, hold, flush : In(1)
        The register block's controls (see ``KvAsuCore``).
    nonblocking : In(1)
        The committed ``MODE.NONBLOCKING``.
    dropped : Out(1)
        A request is dropped this cycle (``req.valid`` high, taken not, ``nonblocking``).
    cycle : In(64)
        The cycle counter; an accepted request's time is ``cycle >> TICK_SHIFT``.
    pop : In(1)
        A response leaves the response FIFO this cycle (a credit returns).
    busy : In(1)
        A request is in a stage after s0 (the hash's delay line up to L).
    policy : In(1)
        Only with ``options.predictor``: the committed ``POLICY.MODE``. While 1, an
        accepted EVICT / EVICT_ANY is followed by two FREEs, the ghost frees of P8, put
        into s0 in the next two cycles (``req.ready`` low in them), and an EVICT waits for
        ``predictor_gap`` cycles free of OBSERVE, EVICT and FREE acceptances; OBSERVE and
        QUERY take no other rule.
    s0 : Out(stage_layout(params))
        The request accepted in the previous cycle (a register; ``valid`` low if none), or
        a FREE (an ``EVICT_ANY`` to the stages; ``s0_free`` says which).
    s0_free : Out(2)
        Only with ``options.predictor``: s0 holds the first (bit 0) or the second (bit 1)
        FREE after an EVICT. A FREE is no request: it uses no credit and has no response.
    flushing : Out(1)
        The clear sweep runs: from the cycle after a ``flush`` (or a reset) that finds
        every generation used, one table row per cycle for ``ENTRIES / PROBE`` cycles; no
        request is accepted meanwhile.
    generation : Out(gen_width)
        The current table generation (``BucketTable.generation``): moves on at the end of
        a ``flush`` cycle or a reset cycle that does not start the sweep.
    generations_used : Out(range(2**gen_width))
        Generations started since the last sweep ended: a slot whose valid bit is set holds
        one of the last ``generations_used + 1`` generations.
    sweep_row : Out(range(ENTRIES // PROBE))
        The row the sweep clears this cycle.
    idle : Out(1)
        A register: high when the pipeline was empty and accepted nothing in the previous
        cycle, so it is empty now (a stage is only ever filled from the one before it or by
        an acceptance). One cycle late, never early: it feeds the register block's CTRL
        sequencing, which clears every statistic.
    inflight : Out(range(fifo_depth + 1))
        Requests accepted whose response has not left the FIFO (the credits used).
    """

    def __init__(self, params, options, *, fifo_depth, evict_gap, evict_evict_gap=None,
                 predictor_gap=None, gen_width=GEN_WIDTH):
        params = check_params(params)
        if not isinstance(options, CoreOptions):
            raise TypeError(f"options must be a CoreOptions, not {options!r}")
        self._params, self._options = params, options
        check_int("fifo_depth", fifo_depth, 1)
        check_int("evict_gap", evict_gap, 1)
        self.fifo_depth, self.evict_gap = fifo_depth, evict_gap
        self.evict_evict_gap = evict_gap if evict_evict_gap is None else evict_evict_gap
        check_int("evict_evict_gap", self.evict_evict_gap, 1)
        if self.evict_evict_gap > evict_gap:
            raise ValueError(f"evict_evict_gap must be 1 .. evict_gap ({evict_gap}), not "
                             f"{self.evict_evict_gap!r}")
        self.predictor_gap = evict_gap if predictor_gap is None else predictor_gap
        check_int("predictor_gap", self.predictor_gap, 1)
        if self.predictor_gap < evict_gap:
            raise ValueError(f"predictor_gap must be at least evict_gap ({evict_gap}), not "
                             f"{self.predictor_gap!r}")
        self.gen_width = check_gen_width(gen_width)
        self.rows = params.ROWS
        super().__init__({
            "req": In(stream.Signature(request_layout(params))),
            "enable": In(1), "hold": In(1), "flush": In(1), "nonblocking": In(1),
            "dropped": Out(1),
            "cycle": In(64),
            "pop": In(1),
            "busy": In(1),
            **({"policy": In(1)} if options.predictor else {}),
            "s0": Out(stage_layout(params)),
            **({"s0_free": Out(2)} if options.predictor else {}),
            "flushing": Out(1),
            "sweep_row": Out(range(self.rows)),
            "generation": Out(gen_width),
            "generations_used": Out(range(2 ** gen_width)),
            "idle": Out(1, init=1),
            "inflight": Out(range(fifo_depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params

        accept = Signal()
        can_take = Signal()     # the blocking block's ready
        m.d.comb += accept.eq(self.req.valid & can_take)
        m.d.sync += self.inflight.eq(self.inflight + accept - self.pop)

        # The table generation and the clear sweep (no reset: see the class docstring).
        generation, used, sweeping, sweep_row = table_generations(
            m, gen_width=self.gen_width, rows=self.rows, flush=self.flush)
        m.d.comb += [
            self.generation.eq(generation), self.generations_used.eq(used),
            self.flushing.eq(sweeping), self.sweep_row.eq(sweep_row),
        ]

        busy = self.s0.valid | self.busy
        m.d.sync += self.idle.eq(~busy & ~accept)

        # The EVICT gap: the OBSERVEs of the evict_gap previous cycles (a TOUCH / INSERT
        # may move the tail or a chain slot) and the EVICTs of the evict_evict_gap
        # previous cycles (whose POP, or none, is not yet decided in a register).
        op = self.req.payload.op
        recent_observe = Signal(self.evict_gap)        # bit k: accepted k + 1 cycles ago
        recent_evict = Signal(self.evict_evict_gap)
        m.d.sync += [
            recent_observe.eq(Cat(accept & (op == OBSERVE), recent_observe[:-1])),
            recent_evict.eq(Cat(accept & op[1], recent_evict[:-1])),
        ]

        ready = (self.enable & ~self.hold & ~self.flush & ~self.flushing
                 & (self.inflight < self.fifo_depth))
        is_evict = op[1]
        if self._options.serial:
            ready = ready & ~busy
        else:
            ready = ready & ~(is_evict & (recent_observe.any() | recent_evict.any()))
        s0_valid, s0_op = accept, op
        if self._options.predictor:
            free_due, wait = self._predictor_frees(m, accept)
            ready = ready & ~wait
            s0_valid = accept | free_due.any()
            s0_op = Mux(free_due.any(), regmap.OPS["EVICT_ANY"], op)
        m.d.comb += [
            can_take.eq(ready),
            self.req.ready.eq(ready | self.nonblocking),
            self.dropped.eq(self.req.valid & ~ready & self.nonblocking),
        ]

        # s0: register the request (or a FREE: an EVICT_ANY that reads the window at the
        # ghost it frees, docs/rtl-predictor.md).
        addr = self.req.payload.addr
        m.d.sync += [
            self.s0.valid.eq(s0_valid),
            self.s0.op.eq(s0_op),
            self.s0.min_tlevel.eq(self.req.payload.min_tlevel),
            self.s0.tag.eq(addr[p.LINE_SHIFT:][:p.TAG_WIDTH]),
            self.s0.t.eq(self.cycle[p.TICK_SHIFT:][:p.TS_WIDTH]),
        ]
        return m

    def _predictor_frees(self, m, accept):
        """The mode's rule (``policy`` 1): the two FREEs due in this cycle (bit k: FREE k +
        1 enters s0 at the end of it, ``s0_free``), and whether the request presented must
        wait. Nothing is accepted while a FREE is due; an EVICT waits until the
        ``predictor_gap`` previous cycles took no OBSERVE, EVICT or FREE."""
        op = self.req.payload.op
        is_evict = op[1]
        free_due = Signal(2)
        m.d.sync += [free_due.eq(Cat(accept & is_evict & self.policy, free_due[0])),
                     self.s0_free.eq(free_due)]
        recent_move = Signal(self.predictor_gap)     # bit k: k + 1 cycles ago
        gives_move = (accept & ((op == OBSERVE) | is_evict)) | free_due.any()
        m.d.sync += recent_move.eq(Cat(gives_move, recent_move[:-1]))
        wait = self.policy & (free_due.any() | (is_evict & recent_move.any()))
        return free_due, wait

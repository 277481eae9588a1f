# SPDX-License-Identifier: Apache-2.0
"""Admission: which request the core takes in a cycle, and the clear sweep."""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import request_layout
from .interfaces import stage_layout

__all__ = ["Admission"]

QUERY = regmap.OPS["QUERY"]


class Admission(wiring.Component):
    """Accepts requests into the pipeline (stage s0) as credits, the EVICT gap and the
    clear sweep allow.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``serial``: one request in flight at most.
    fifo_depth : int
        Responses the response FIFO holds: the credits.
    evict_gap : int
        An EVICT / EVICT_ANY is refused while a request that may give an LRU command (an
        OBSERVE, EVICT or EVICT_ANY; a QUERY gives none) accepted in one of the
        ``evict_gap`` previous cycles could still change the LRU tail (the EVICT reads the
        table in R at the tail, which shows E2's LRU command ``tail_lag`` cycles later).
        Nothing else waits for an EVICT: the request right behind one is accepted in the
        next cycle (E1b forwards the invalidate as it forwards a write).

    Ports
    -----
    req : In(stream.Signature(request_layout(params)))
        The core's requests (see ``KvAsuCore``).
    enable, hold, flush : In(1)
        The register block's controls (see ``KvAsuCore``).
    cycle : In(64)
        The cycle counter; an accepted request's time is ``cycle >> TICK_SHIFT``.
    pop : In(1)
        A response leaves the response FIFO this cycle (a credit returns).
    busy : In(1)
        A request is in a stage after s0 (the hash's delay line up to L).
    s0 : Out(stage_layout(params))
        The request accepted in the previous cycle (a register; ``valid`` low if none).
    flushing : Out(1)
        The clear sweep runs: from reset and from the cycle after ``flush``, one table row
        per cycle for ``ENTRIES / PROBE`` cycles; no request is accepted meanwhile.
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

    def __init__(self, params, options, *, fifo_depth, evict_gap):
        self._params, self._options = params, options
        self.fifo_depth, self.evict_gap = fifo_depth, evict_gap
        self.rows = params.ENTRIES // params.PROBE
        super().__init__({
            "req": In(stream.Signature(request_layout(params))),
            "enable": In(1), "hold": In(1), "flush": In(1),
            "cycle": In(64),
            "pop": In(1),
            "busy": In(1),
            "s0": Out(stage_layout(params)),
            "flushing": Out(1, init=1),
            "sweep_row": Out(range(self.rows)),
            "idle": Out(1, init=1),
            "inflight": Out(range(fifo_depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params

        accept = Signal()
        m.d.comb += accept.eq(self.req.valid & self.req.ready)
        m.d.sync += self.inflight.eq(self.inflight + accept - self.pop)

        # The clear sweep (after reset and after a flush): one table row per cycle.
        with m.If(self.flush):
            m.d.sync += [self.flushing.eq(1), self.sweep_row.eq(0)]
        with m.Elif(self.flushing):
            m.d.sync += self.sweep_row.eq(self.sweep_row + 1)
            with m.If(self.sweep_row == self.rows - 1):
                m.d.sync += [self.flushing.eq(0), self.sweep_row.eq(0)]

        busy = self.s0.valid | self.busy
        m.d.sync += self.idle.eq(~busy & ~accept)

        # The EVICT gap: acceptances of the evict_gap previous cycles that may move the
        # LRU tail (every op but QUERY gives an LRU command).
        moves_tail = accept & (self.req.payload.op != QUERY)
        recent = Signal(self.evict_gap)       # bit k: accepted k + 1 cycles ago
        m.d.sync += recent.eq(Cat(moves_tail, recent[:-1]))

        ready = (self.enable & ~self.hold & ~self.flush & ~self.flushing
                 & (self.inflight < self.fifo_depth))
        if self._options.serial:
            ready = ready & ~busy
        else:
            is_evict = self.req.payload.op[1]
            ready = ready & ~(is_evict & recent.any())
        m.d.comb += self.req.ready.eq(ready)

        # s0: register the request.
        addr = self.req.payload.addr
        m.d.sync += [
            self.s0.valid.eq(accept),
            self.s0.op.eq(self.req.payload.op),
            self.s0.min_tlevel.eq(self.req.payload.min_tlevel),
            self.s0.tag.eq(addr[p.LINE_SHIFT:][:p.TAG_WIDTH]),
            self.s0.t.eq(self.cycle[p.TICK_SHIFT:][:p.TS_WIDTH]),
        ]
        return m

# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU top level: core, register block and cycle counter.

Generated as the Verilog module ``kv_asu`` by ``python -m hdl.generate``.
"""

from amaranth import *
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out, connect

import regmap

from .axil import AxiLiteSignature
from .core import CoreOptions, KvAsuCore, check_core_params
from .layouts import request_layout, response_layout
from .regs import KvAsuRegisters
from .timebase import Timebase

__all__ = ["KvAsu"]


class KvAsu(wiring.Component):
    """KV-aware scheduling unit (spec ``KV-ASU.md``).

    Parameters
    ----------
    params : regmap.Params or None
        Elaboration parameters (``None``: the defaults).
    options : CoreOptions or None
        The build choices (``None``: the defaults), passed to ``KvAsuCore``; its
        ``stats_stages`` also to ``KvAsuRegisters``. None changes the article mode's answers
        but ``mode_reset`` (the mode after reset) and ``predictor`` (a second mode beside
        it), see ``CoreOptions``.

    Ports
    -----
    req : In(stream.Signature(request_layout(params)))
        Request stream (``op``, ``min_tlevel``, ``addr``; fields LSB first).
    rsp : Out(stream.Signature(response_layout(params)))
        Response stream, one per request, in order.
    axil : In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH))
        AXI4-Lite register interface (subordinate).

    Attributes
    ----------
    core, regs, timebase : the submodules (for testbenches).
    latency : int
        Core acceptance-to-response latency in cycles.
    """

    def __init__(self, params=None, options=None):
        params = check_core_params(params)
        options = CoreOptions.cast(options)
        self.params = params
        self.options = options
        self.core = KvAsuCore(params, options)
        self.regs = KvAsuRegisters(params, stats_stages=options.stats_stages,
                                   stat_lag=self.core.timing.stat_lag,
                                   protection=options.built_protection,
                                   mode_reset=options.mode_reset,
                                   predictor=options.predictor)
        self.timebase = Timebase()
        self.latency = self.core.latency
        super().__init__({
            "req": In(stream.Signature(request_layout(params))),
            "rsp": Out(stream.Signature(response_layout(params))),
            "axil": In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        m.submodules.regs = regs = self.regs
        m.submodules.timebase = tb = self.timebase

        connect(m, wiring.flipped(self.req), core.req)
        connect(m, core.rsp, wiring.flipped(self.rsp))
        connect(m, wiring.flipped(self.axil), regs.axil)
        m.d.comb += [
            core.cfg.eq(regs.cfg),
            core.enable.eq(regs.enable),
            core.nonblocking.eq(regs.nonblocking),
            core.hold.eq(regs.hold),
            core.flush.eq(regs.flush),
            core.cycle.eq(tb.cycle),
            regs.core_idle.eq(core.idle),
            regs.core_flushing.eq(core.flushing | core.recovering
                                  if self.options.protected else core.flushing),
            regs.occupancy.eq(core.occupancy),
            regs.stat_inc.eq(core.stat_inc),
            regs.cycle.eq(tb.cycle),
        ]
        if self.options.predictor:
            m.d.comb += core.policy.eq(regs.policy)
        if self.options.protected:
            # D11: the core's checks and recovery into the ERR_* registers and STATUS.
            m.d.comb += [
                regs.err_start.eq(core.err_started),
                regs.err_corrected.eq(core.err_corrected),
                regs.err_mem.eq(core.err_mem),
                regs.err_addr.eq(core.err_addr),
                regs.recovering.eq(core.recovering),
            ]
        return m

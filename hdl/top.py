"""The KV-ASU top level: core, register block and cycle counter.

Generated as the Verilog module ``kv_asu`` by ``python -m hdl.generate``.
"""

from amaranth import *
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out, connect

import regmap

from .axil import AxiLiteSignature
from .core import KvAsuCore, check_core_params
from .layouts import check_params, request_layout, response_layout
from .regs import KvAsuRegisters
from .timebase import Timebase

__all__ = ["KvAsu"]


class KvAsu(wiring.Component):
    """KV-aware scheduling unit (spec ``KV-ASU.md``).

    Parameters
    ----------
    params : regmap.Params or None
        Elaboration parameters (``None``: the defaults).
    pipelined : bool
        Passed to ``KvAsuCore`` (default ``True``: one request per cycle).
    eval_stages : int or None
        Passed to ``KvAsuCore`` (1, 2 or 3; ``None``: the core's default, 3).
    hash_lut_cross_products : bool or collection of str
        Passed to ``KvAsuCore`` (DSP/LUT trade-off of the hash; no change in behaviour).
    window_register : bool
        Passed to ``KvAsuCore`` (the M stage; speed against about 190 flip-flops).
    hash_mul_stages : int
        Passed to ``KvAsuCore`` (the hash's stages per multiply, 1, 2 or 3; each more adds
        4 cycles of latency).
    stats_stages : int
        Passed to ``KvAsuRegisters`` (the statistics engine's pipeline, 3 or 2; speed
        against about 140 flip-flops and a cycle of a statistic's read latency).
    lru_registered : bool
        Passed to ``KvAsuCore`` (the LRU list's pipeline; speed against about 300
        flip-flops and a cycle of the EVICT gap).

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

    def __init__(self, params=None, *, pipelined=True, eval_stages=None, hash_mul_stages=2,
                 hash_lut_cross_products=False, window_register=True, stats_stages=3,
                 lru_registered=True):
        params = check_core_params(params)
        self.params = params
        kw = {} if eval_stages is None else {"eval_stages": eval_stages}
        self.core = KvAsuCore(params, pipelined=pipelined, hash_mul_stages=hash_mul_stages,
                              hash_lut_cross_products=hash_lut_cross_products,
                              window_register=window_register,
                              lru_registered=lru_registered, **kw)
        self.regs = KvAsuRegisters(params, stats_stages=stats_stages)
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
            core.hold.eq(regs.hold),
            core.flush.eq(regs.flush),
            core.cycle.eq(tb.cycle),
            regs.core_idle.eq(core.idle),
            regs.core_flushing.eq(core.flushing),
            regs.occupancy.eq(core.occupancy),
            regs.stat_inc.eq(core.stat_inc),
            regs.cycle.eq(tb.cycle),
        ]
        return m

# SPDX-License-Identifier: Apache-2.0
"""The ghost frees of the predictor mode (docs/spec-predictor.md P8): where each of the two
FREEs behind an EVICT reads the table, and whether it frees."""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params

__all__ = ["GhostFrees"]


class GhostFrees(wiring.Component):
    """An EVICT that takes a line puts it at the ghost head; the two FREEs right behind it
    then free the ghost tail while the ghosts outnumber the live lines. Both are decided in
    the EVICT's E2 from the counts it leaves (the lists are settled then:
    ``Admission.predictor_gap``) and used in the FREEs' own E2.

    Parameters
    ----------
    params : regmap.Params

    Ports
    -----
    free_r : In(2)
        The request in R is the first (bit 0) or the second (bit 1) FREE after an EVICT.
    tail, gtail, gtail2 : In(SLOT_WIDTH)
        The LRU list's tail, the ghost tail and the ghost before it (``LiveGhostLists``).
    gempty : In(1), gcount : In(SLOT_WIDTH + 1)
        The ghost list is empty; its length.
    evict_start : Out(SLOT_WIDTH)
        The window start of the request in R if it is an EVICT or a FREE: the LRU tail for
        the EVICT, the ghost tail for FREE 1, the ghost before it for FREE 2; where the
        ghost list is empty (FREE 1) or holds one ghost (FREE 2), the EVICT's own line
        (the LRU tail, unchanged until the EVICT's move), which it puts at the ghost head.
    evict, take, free : In(1)
        The request in E2 is an EVICT, one that takes the LRU tail, a FREE
        (``PredictorDecision``).
    live : In(SLOT_WIDTH + 1)
        The live lines before the request in E2.
    flush : In(1)
        No FREE frees (the lists are emptied).
    freeing : Out(1)
        The FREE in E2 frees the ghost it read (lane 0 of its window).
    """

    def __init__(self, params):
        sw = check_params(params).SLOT_WIDTH
        super().__init__({
            "free_r": In(2),
            "tail": In(sw), "gtail": In(sw), "gtail2": In(sw),
            "gempty": In(1), "gcount": In(sw + 1),
            "evict_start": Out(sw),
            "evict": In(1), "take": In(1), "free": In(1),
            "live": In(sw + 1),
            "flush": In(1),
            "freeing": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        one_ghost = self.gcount == 1
        m.d.comb += self.evict_start.eq(
            Mux(self.free_r[0], Mux(self.gempty, self.tail, self.gtail),
                Mux(self.free_r[1], Mux(one_ghost, self.tail, self.gtail2), self.tail)))

        plan = Signal(2)        # bit 0: the next FREE frees; bit 1: the one after
        ghosts_after = self.gcount + self.take
        live_after = self.live - self.take
        m.d.comb += self.freeing.eq(self.free & plan[0])
        with m.If(self.flush):
            m.d.sync += plan.eq(0)
        with m.Elif(self.evict):
            m.d.sync += plan.eq(Cat(self.take & (ghosts_after > live_after),
                                    self.take & (ghosts_after > live_after + 1)))
        with m.Elif(self.free):
            m.d.sync += plan.eq(plan[1:])
        return m

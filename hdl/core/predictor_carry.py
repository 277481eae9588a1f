# SPDX-License-Identifier: Apache-2.0
"""What the predictor mode carries with a request from the hash to E1b, beside the
article's stages (docs/rtl-predictor.md): the signature, a FREE's flags and the lanes'
``pmeta`` words."""

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_int, check_params
from ..predictor.constants import SIG_WIDTH
from .interfaces import pmeta_layout

__all__ = ["PredictorCarry"]


class PredictorCarry(wiring.Component):
    """The predictor mode's inputs of E1b, carried with the request: its signature (P11,
    bits 31..16 of the hash, taken in R, through M and E1a), a FREE's flags (from s0
    through the hash stages to R, where ``GhostFrees`` reads them, and on to E1b), and its
    lanes' ``pmeta`` words (read in E1a's cycle as E1a reads the lanes' other words: the
    table's registered read, with the mode's ``pmeta`` write of that cycle forwarded;
    rotated into probe order and registered for E1b).

    Parameters
    ----------
    params : regmap.Params
    hash_latency : int
        The hash stages between s0 and R.

    Ports
    -----
    hash_sig : In(SIG_WIDTH)
        Bits 31..16 of the hash of the request in R.
    s0_free : In(2)
        The request in s0 is the first (bit 0) or the second (bit 1) FREE after an EVICT
        (``Admission.s0_free``).
    lane_slot : In(ArrayLayout(SLOT_WIDTH, PROBE))
        The slots of the lanes of the request in E1a, probe order (``WindowRead.window``).
    bk_pmeta : In(ArrayLayout(pmeta_layout().size, PROBE))
        The table's registered ``pmeta`` read, bank order (``BucketTable.bk_pmeta``).
    pm_en, pm_slot, pm_data : In
        The mode's ``pmeta`` write of this cycle (``PredictorCommit``).
    free_r : Out(2)
        ``s0_free`` of the request in R.
    sig : Out(SIG_WIDTH), free : Out(1), pmeta : Out(ArrayLayout(pmeta_layout(), PROBE))
        Of the request in E1b: its signature, whether it is a FREE (either), its lanes'
        ``pmeta`` words in probe order.
    """

    def __init__(self, params, *, hash_latency):
        self._params = p = check_params(params)
        check_int("hash_latency", hash_latency, 0)
        self._hash_latency = hash_latency
        P = p.PROBE
        super().__init__({
            "hash_sig": In(SIG_WIDTH),
            "s0_free": In(2),
            "lane_slot": In(data.ArrayLayout(p.SLOT_WIDTH, P)),
            "bk_pmeta": In(data.ArrayLayout(pmeta_layout().size, P)),
            "pm_en": In(1), "pm_slot": In(p.SLOT_WIDTH), "pm_data": In(pmeta_layout().size),
            "free_r": Out(2),
            "sig": Out(SIG_WIDTH), "free": Out(1),
            "pmeta": Out(data.ArrayLayout(pmeta_layout(), P)),
        })

    def elaborate(self, platform):
        m = Module()
        P, pb = self._params.PROBE, self._params.BANK_BITS
        lh = self._hash_latency
        # The signature: R -> M -> E1a -> E1b.
        sig_m, sig_e1a = (Signal(SIG_WIDTH, name=f"pred_sig_{x}") for x in ("m", "e1a"))
        m.d.sync += [sig_m.eq(self.hash_sig), sig_e1a.eq(sig_m), self.sig.eq(sig_e1a)]
        # A FREE's flags: s0 -> s1 .. s[Lh] (R) -> M -> E1a -> E1b.
        free = [self.s0_free]
        names = [f"s{k}" for k in range(1, lh + 1)] + ["m", "e1a", "e1b"]
        for name in names:
            stage = Signal(2, name=f"pred_free_{name}")
            m.d.sync += stage.eq(free[-1])
            free.append(stage)
        m.d.comb += [self.free_r.eq(free[lh]), self.free.eq(free[-1].any())]
        # The lanes' pmeta words: the bank of each lane's slot, or the write of this cycle.
        for i in range(P):
            bank = self.lane_slot[i][:pb]
            read = Array(self.bk_pmeta)[bank] if pb else self.bk_pmeta[0]
            written = self.pm_en & (self.pm_slot == self.lane_slot[i])
            m.d.sync += self.pmeta[i].eq(Mux(written, self.pm_data, read))
        return m

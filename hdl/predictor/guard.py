# SPDX-License-Identifier: Apache-2.0
"""The ghost rule and its guard (spec-predictor.md P6.2, P12): ``eps``, the selector
``GSEL``, the insertion clock (``epoch``, ``einserts``) and the probes' learning rule."""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params
from .constants import (EPOCH_SHIFT, EPOCH_WIDTH, EPS_WIDTH, GSEL_DEAD, GSEL_HIT,
                        GSEL_INIT, GSEL_WIDTH, PROBE_EXPIRY)

__all__ = ["Guard", "insert_layout"]


def insert_layout(params):
    """An insertion: the ``occupancy`` before it and whether it ``grows`` it by a live line
    (a revival, P6.3 a or b; not a replacement)."""
    return data.StructLayout({"occupancy": params.SLOT_WIDTH + 1, "grows": 1})


class Guard(wiring.Component):
    """The ghost rule's decision for a candidate and the guard that turns it on and off.

    One request per cycle gives at most one of each event; the events of one cycle act on
    the state the cycle before left (registers), and their effects are in the registers at
    the end of the cycle.

    Ports
    -----
    insert : In(stream.Signature(insert_layout(params), always_ready=True))
        ``valid``: an insertion this cycle (a ghost revival, P6.2, or P6.3 a, b, c),
        leaving ``occupancy`` live lines (``payload.occupancy``, plus 1 if
        ``payload.grows``): ``einserts + 1``, and if that reaches ``max(1, occupancy >> 2)``
        of the occupancy it leaves, ``einserts = 0`` and ``epoch + 1`` (mod 8).
    epoch_next : Out(3)
        The epoch after this cycle's insertion (combinational): the stamp of a probe made
        by it.
    candidate : In(1)
        A ghost revival outside loop mode whose counter ``PT[key]`` is 0: ``eps + 1``
        (mod 4).
    demote : Out(1)
        For the candidate: link it at the LRU tail (``GSEL >= 32`` and ``eps' != 0``);
        combinational, 0 without ``candidate``.
    probe : Out(1)
        For the candidate: it is linked at the head as a probe (``candidate`` and not
        ``demote``), stamped ``epoch_next``.
    reused : In(1), stamp : In(3)
        A live OBSERVE of a probe with this ``stamp``: ``GSEL - 3`` (saturating at 0) if
        ``(epoch - stamp) mod 8 < 3``, else ``GSEL + 1`` (saturating at 63).
    dead : In(1)
        A probe leaves the LRU list unobserved (EVICT, EVICT_ANY, a replacement):
        ``GSEL + 1`` (saturating). Not in the same cycle as ``reused`` (one request is
        one or the other; with both, ``reused`` counts).
    flush : In(1)
        ``GSEL = 31``, ``epoch = einserts = eps = 0`` at the end of the cycle.
    rule_on : Out(1)
        ``GSEL`` bit 5 (a register).
    gsel : Out(6), epoch : Out(3), einserts : Out(SLOT_WIDTH), eps : Out(2)
        The registers (reset 31, 0, 0, 0).

    Parameters
    ----------
    params : regmap.Params
        ``SLOT_WIDTH`` gives the widths of ``occupancy`` and ``einserts``.
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        sw = params.SLOT_WIDTH
        super().__init__({
            "insert": In(stream.Signature(insert_layout(params), always_ready=True)),
            "epoch_next": Out(EPOCH_WIDTH),
            "candidate": In(1),
            "demote": Out(1),
            "probe": Out(1),
            "reused": In(1),
            "stamp": In(EPOCH_WIDTH),
            "dead": In(1),
            "flush": In(1),
            "rule_on": Out(1),
            "gsel": Out(GSEL_WIDTH, init=GSEL_INIT),
            "epoch": Out(EPOCH_WIDTH),
            "einserts": Out(sw),
            "eps": Out(EPS_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        sw = self._params.SLOT_WIDTH
        gsel, epoch = self.gsel, self.epoch
        top = (1 << GSEL_WIDTH) - 1

        # The insertion clock. The comparison is made for both occupancies the insertion may
        # leave and picked by ``grows``, which a caller knows late (its decision).
        count = Signal(sw + 1)
        advance = Signal()
        occupancy = self.insert.payload.occupancy

        def reached(occupancy_after):
            quarter = occupancy_after >> EPOCH_SHIFT
            return (count >= quarter) | (quarter == 0)
        m.d.comb += [
            count.eq(self.einserts + 1),
            advance.eq(self.insert.valid & Mux(self.insert.payload.grows,
                                               reached(occupancy + 1), reached(occupancy))),
            self.epoch_next.eq(Mux(advance, epoch + 1, epoch)),
        ]

        # The ghost rule's decision for a candidate.
        eps_next = Signal(EPS_WIDTH)
        m.d.comb += [
            eps_next.eq(self.eps + 1),
            self.demote.eq(self.candidate & self.rule_on & (eps_next != 0)),
            self.probe.eq(self.candidate & ~self.demote),
            self.rule_on.eq(gsel[GSEL_WIDTH - 1]),
        ]

        # The guard's learning.
        elapsed = Signal(EPOCH_WIDTH)
        m.d.comb += elapsed.eq(epoch - self.stamp)
        up = Mux(gsel > top - GSEL_DEAD, top, gsel + GSEL_DEAD)
        down = Mux(gsel < GSEL_HIT, 0, gsel - GSEL_HIT)

        with m.If(self.flush):
            m.d.sync += [gsel.eq(GSEL_INIT), epoch.eq(0), self.einserts.eq(0),
                         self.eps.eq(0)]
        with m.Else():
            with m.If(self.reused):
                m.d.sync += gsel.eq(Mux(elapsed >= PROBE_EXPIRY, up, down))
            with m.Elif(self.dead):
                m.d.sync += gsel.eq(up)
            with m.If(self.insert.valid):
                m.d.sync += [self.einserts.eq(Mux(advance, 0, count)),
                             epoch.eq(self.epoch_next)]
            with m.If(self.candidate):
                m.d.sync += self.eps.eq(eps_next)
        return m

# SPDX-License-Identifier: Apache-2.0
"""The loop detector of the predictor mode (spec-predictor.md P11): which OBSERVEs are
sampled, the two shadow directories, their bound from the occupancy and the selector
``PSEL`` that says whether the block is in loop mode."""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_int, check_params
from ..onehot import select
from .constants import (PSEL_DOWN, PSEL_STEP_MAX, PSEL_STEP_SHIFT, PSEL_WIDTH, SAMPLE_SHIFT,
                        SIG_WIDTH)
from .shadow import ShadowDirectory

__all__ = ["LoopDetector", "observe_layout", "shadow_depth"]


def shadow_depth(params):
    """The entries of each shadow directory: ``max(1, ENTRIES >> SAMPLE_SHIFT)``, the
    largest bound ``max(1, occupancy >> SAMPLE_SHIFT)`` (``occupancy <= ENTRIES``)."""
    return max(1, check_params(params).ENTRIES >> SAMPLE_SHIFT)


def observe_layout(params):
    """An OBSERVE as the detector sees it: its window start ``home``, its signature ``sig``
    (bits 31..16 of the table's hash) and the ``occupancy`` before it."""
    return data.StructLayout({"home": params.SLOT_WIDTH, "sig": SIG_WIDTH,
                              "occupancy": params.SLOT_WIDTH + 1})


class LoopDetector(wiring.Component):
    """Set dueling of LRU against bimodal insertion on sampled shadow directories.

    Ports
    -----
    observe : In(stream.Signature(observe_layout(params), always_ready=True))
        ``valid``: an OBSERVE this cycle (any; the detector tests ``home mod 16 = 0``).
        Always taken, one per cycle.
    sampled : Out(1)
        This cycle's OBSERVE is sampled (combinational).
    hit_lru, hit_bip : Out(1)
        The sampled OBSERVE's outcome in the LRU shadow ``SA`` and the BIP shadow ``SB``
        (combinational): of this cycle's OBSERVE with ``stages=1``, of the cycle before's
        with ``stages=2``.
    loop_next : Out(1)
        The mode that OBSERVE uses: ``PSEL >= 512`` after its update (combinational; with
        ``stages=2`` in the cycle after the OBSERVE, its E2 in the core).
    psel : Out(10)
        ``PSEL`` (a register, reset 0): ``-8 * s`` (saturating at 0) for a sampled OBSERVE
        only ``SA`` hits, ``+s`` (saturating at 1023) for one only ``SB`` hits, with the step
        ``s = max(1, 4 >> (occupancy >> 10))`` of that OBSERVE's ``occupancy`` (updated
        with the hits: in the OBSERVE's cycle, or with ``stages=2`` in the next).
    loop : Out(1)
        ``psel`` bit 9 (a register).
    flush : In(1)
        Both shadows empty, ``PSEL`` and ``SB``'s counter 0 at the end of the cycle (with
        ``stages=2`` not in the cycle right after an OBSERVE: ``ShadowDirectory``'s rule).

    Parameters
    ----------
    params : regmap.Params
        ``ENTRIES`` gives the shadows' depth ``max(1, ENTRIES >> 4)``, ``SLOT_WIDTH`` the
        widths of ``home`` and ``occupancy``.
    stages : int
        The shadows' ``stages`` (1, or 2 by default: see ``ShadowDirectory``).
    observe_shadows : bool
        Build the shadows with their ``observe`` ports (default ``False``).

    Attributes
    ----------
    shadow_lru, shadow_bip : ShadowDirectory
        The two shadow directories, ``SA`` and ``SB`` (made by the constructor).
    """

    def __init__(self, params=None, *, stages=2, observe_shadows=False):
        params = check_params(params)
        if not isinstance(observe_shadows, bool):
            raise TypeError(f"observe_shadows must be a bool, not {observe_shadows!r}")
        check_int("stages", stages, 1, 2)
        self._params = params
        self.depth = shadow_depth(params)
        self.shadow_lru = ShadowDirectory(self.depth, bimodal=False, stages=stages,
                                          observe=observe_shadows)
        self.shadow_bip = ShadowDirectory(self.depth, bimodal=True, stages=stages,
                                          observe=observe_shadows)
        self.stages = stages
        super().__init__({
            "observe": In(stream.Signature(observe_layout(params), always_ready=True)),
            "sampled": Out(1),
            "hit_lru": Out(1),
            "hit_bip": Out(1),
            "loop_next": Out(1),
            "psel": Out(PSEL_WIDTH),
            "loop": Out(1),
            "flush": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.shadow_lru = sa = self.shadow_lru
        m.submodules.shadow_bip = sb = self.shadow_bip
        obs = self.observe.payload
        home_low = obs.home[:min(SAMPLE_SHIFT, len(obs.home))]
        m.d.comb += self.sampled.eq(self.observe.valid & (home_low == 0))
        # cap = max(1, occupancy >> 4) never exceeds depth (occupancy <= ENTRIES).
        cap = Signal(range(self.depth + 1))
        shifted = obs.occupancy >> SAMPLE_SHIFT
        m.d.comb += cap.eq(Mux(shifted == 0, 1, shifted))
        for sh in (sa, sb):
            m.d.comb += [sh.access.valid.eq(self.sampled), sh.access.payload.sig.eq(obs.sig),
                         sh.access.payload.cap.eq(cap), sh.flush.eq(self.flush)]
        m.d.comb += [self.hit_lru.eq(sa.hit), self.hit_bip.eq(sb.hit)]

        # The step of the OBSERVE whose hits update PSEL: with stages=2 they come a cycle
        # after it, so its step is registered beside its access.
        steps = [PSEL_STEP_MAX >> n for n in range(PSEL_STEP_MAX.bit_length())]   # 4, 2, 1
        halvings = obs.occupancy >> PSEL_STEP_SHIFT
        step_now = [halvings == n for n in range(len(steps) - 1)]
        step_now.append(~Cat(step_now).any())
        step_is = [Signal(name=f"step_is_{s}") for s in steps]     # one-hot
        domain = m.d.comb if self.stages == 1 else m.d.sync
        domain += [flag.eq(now) for flag, now in zip(step_is, step_now)]
        step = Signal(range(PSEL_STEP_MAX + 1))
        m.d.comb += step.eq(select(step_is, steps))

        top = (1 << PSEL_WIDTH) - 1
        psel_next = Signal(PSEL_WIDTH)
        m.d.comb += psel_next.eq(self.psel)
        with m.If(sa.hit & ~sb.hit):
            m.d.comb += psel_next.eq(Mux(self.psel < step * PSEL_DOWN, 0,
                                         self.psel - step * PSEL_DOWN))
        with m.Elif(sb.hit & ~sa.hit):
            m.d.comb += psel_next.eq(Mux(self.psel + step > top, top, self.psel + step))
        # The mode after the update, as one of the values known from the register, chosen
        # by the hits and the step (no add in front of it): unchanged, after -8 s, after +s.
        loop_reg = self.psel[PSEL_WIDTH - 1]
        half = 1 << (PSEL_WIDTH - 1)
        loop_down = select(step_is, [self.psel >= half + s * PSEL_DOWN for s in steps])
        loop_up = select(step_is, [self.psel >= half - s for s in steps])
        m.d.comb += [
            self.loop_next.eq(Mux(sa.hit & ~sb.hit, loop_down,
                                  Mux(sb.hit & ~sa.hit, loop_up, loop_reg))),
            self.loop.eq(loop_reg),
        ]
        with m.If(self.flush):
            m.d.sync += self.psel.eq(0)
        with m.Else():
            m.d.sync += self.psel.eq(psel_next)
        return m

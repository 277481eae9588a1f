# SPDX-License-Identifier: Apache-2.0
"""The key and the level of the predictor mode (spec-predictor.md P4, P5).

Both are combinational, from a slot's fields and its *saturated* age ``sage = min(age,
WMAX + 1)`` (``hdl.tlevel.saturated_age``, ``TS_WIDTH`` bits): the pipeline computes them
per lane beside the age it already has (docs/rtl-predictor.md).
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_params
from .constants import ABSENT_KEY, BURST_WIDTH, KEY_WIDTH, SEEN_WIDTH

__all__ = ["ReuseKey", "ReuseLevel", "answer_key"]


def answer_key(key, seen):
    """P4: the answer's key ``key * 8 + seen``, the index into ``PA``, of a key (``KEY_WIDTH``
    bits) and a count of earlier accesses (``SEEN_WIDTH`` bits; an integer is widened to
    the width of its field), as a value."""
    if isinstance(key, int):
        key = Const(key, KEY_WIDTH)
    if isinstance(seen, int):
        seen = Const(seen, SEEN_WIDTH)
    if len(Value.cast(key)) != KEY_WIDTH:
        raise ValueError(f"key must be {KEY_WIDTH} bits wide, not {key!r}")
    if len(Value.cast(seen)) != SEEN_WIDTH:
        raise ValueError(f"seen must be {SEEN_WIDTH} bits wide, not {seen!r}")
    return Cat(seen, key)


class ReuseKey(wiring.Component):
    """P4: the key an OBSERVE computes for its line, the burst and the count of accesses it
    leaves, and the training outcome.

    Ports
    -----
    known : In(1)
        The line is live or a ghost in its window (else: absent, the first-sight key).
    burst : In(3)
        The slot's ``burst`` (accesses in a row with gaps ``<= W3``).
    sage : In(TS_WIDTH)
        The slot's saturated age ``min(t - last, WMAX + 1)``.
    seen : In(3)
        The slot's ``seen`` (its line's earlier OBSERVEs, saturating at 7).
    w3 : In(TS_WIDTH - 1)
        The active ``W3``.
    near : Out(1)
        ``known`` and ``sage <= W3``: the outcome with which the slot's previous key
        (``pkey``) is trained (0 when not ``known``: no training then).
    burst_next : Out(3)
        ``burst'``: ``min(burst + 1, 7)`` if ``near``, else 0.
    key : Out(6)
        ``burst' * 8 + class``, ``class`` 0 if ``sage <= W3 >> 2``, 1 if ``sage <= W3``,
        2 if ``sage <= WMAX``, else 3; ``4`` (burst 0, class 4) when not ``known``.
    seen_next : Out(3)
        ``seen'``: ``min(seen + 1, 7)``; 0 when not ``known`` (a line that enters).

    Parameters
    ----------
    params : regmap.Params
        ``TS_WIDTH`` gives the widths of ``sage`` and ``w3``.
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        ts = params.TS_WIDTH
        super().__init__({
            "known": In(1),
            "burst": In(BURST_WIDTH),
            "sage": In(ts),
            "seen": In(SEEN_WIDTH),
            "w3": In(ts - 1),
            "near": Out(1),
            "burst_next": Out(BURST_WIDTH),
            "key": Out(KEY_WIDTH),
            "seen_next": Out(SEEN_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        ts = self._params.TS_WIDTH
        sage, w3 = self.sage, self.w3
        near = Signal()
        beyond_wmax = sage[ts - 1]          # sage = WMAX + 1 = 2**(TS_WIDTH - 1): its top bit
        cls = Signal(2)
        m.d.comb += near.eq(sage <= w3)
        with m.If(sage <= (w3 >> 2)):
            m.d.comb += cls.eq(0)
        with m.Elif(near):
            m.d.comb += cls.eq(1)
        with m.Elif(~beyond_wmax):
            m.d.comb += cls.eq(2)
        with m.Else():
            m.d.comb += cls.eq(3)
        def saturating_inc(value):
            """``value + 1``, staying at its field's largest value."""
            top = (1 << len(value)) - 1
            return Mux(value == top, top, value + 1)
        with m.If(self.known):
            m.d.comb += [
                self.near.eq(near),
                self.burst_next.eq(Mux(near, saturating_inc(self.burst), 0)),
                self.key.eq(Cat(cls, Const(0, 1), self.burst_next)),
                self.seen_next.eq(saturating_inc(self.seen)),
            ]
        with m.Else():
            m.d.comb += [self.near.eq(0), self.burst_next.eq(0), self.key.eq(ABSENT_KEY),
                         self.seen_next.eq(0)]
        return m


class ReuseLevel(wiring.Component):
    """P5: the level of a line in the predictor mode.

    Ports
    -----
    live : In(1)
        The line is live (tracked; not a ghost, not absent). Else the level is 0.
    pred : In(1)
        The slot's ``pred`` (the prediction of its latest OBSERVE).
    sage : In(TS_WIDTH)
        The slot's saturated age.
    w3, w1 : In(TS_WIDTH - 1)
        The active ``W3``, ``W1``.
    level : Out(2)
        3 if ``pred`` and ``sage <= W3``, else 1 if ``sage <= W1``, else 0 (never 2);
        0 when not ``live``.

    Parameters
    ----------
    params : regmap.Params
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        ts = params.TS_WIDTH
        super().__init__({
            "live": In(1),
            "pred": In(1),
            "sage": In(ts),
            "w3": In(ts - 1),
            "w1": In(ts - 1),
            "level": Out(2),
        })

    def elaborate(self, platform):
        m = Module()
        with m.If(~self.live):
            m.d.comb += self.level.eq(0)
        with m.Elif(self.pred & (self.sage <= self.w3)):
            m.d.comb += self.level.eq(3)
        with m.Elif(self.sage <= self.w1):
            m.d.comb += self.level.eq(1)
        with m.Else():
            m.d.comb += self.level.eq(0)
        return m

# SPDX-License-Identifier: Apache-2.0
"""T-level classification (spec section 5) and saturated age.

``TLevel`` is a purely combinational component: it classifies one line from its count and
its *saturated* age (``min(age, WMAX + 1)``, which fits in ``TS_WIDTH`` bits) against the
active configuration. ``saturated_age`` builds the saturated age of a stored timestamp.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .layouts import check_params, config_layout

__all__ = ["TLevel", "saturated_age", "saturated_diff"]


def saturated_age(params, t, last, stale):
    """``min(age, WMAX + 1)`` as a ``TS_WIDTH``-bit value.

    ``t`` and ``last`` are ``TS_WIDTH``-bit tick stamps; ``stale`` is the scrubber's mark
    (the true age is known to exceed ``WMAX``). When ``stale`` is low the true age is known
    to be below ``2**TS_WIDTH`` (the scrubber guarantees it), so the modular difference is
    the true age.
    """
    return saturated_diff(params, (t - last)[:params.TS_WIDTH], stale)


def saturated_diff(params, diff, stale):
    """``saturated_age`` from the stamps' difference ``diff = (t - last) mod
    2**TS_WIDTH``, for a caller that makes the subtraction itself."""
    ts = params.TS_WIDTH
    # WMAX + 1 == 2**(TS_WIDTH - 1): "diff > WMAX" is diff's top bit, and the saturated
    # value is that bit alone (no comparator after the subtraction).
    assert params.WMAX + 1 == 1 << (ts - 1)
    saturate = stale | diff[ts - 1]
    return Cat(Mux(saturate, 0, diff[:ts - 1]), saturate)


class TLevel(wiring.Component):
    """Combinational T-level of a tracked line (spec section 5).

    Ports
    -----
    count : In(COUNT_WIDTH)
        Access count of the line (at least 1 for a tracked line).
    age : In(TS_WIDTH)
        Saturated age ``min(age, WMAX + 1)`` in ticks.
    cfg : In(config_layout(params))
        Active configuration (``c3``, ``c2``, ``w3``, ``w2``, ``w1`` are used).
    level : Out(2)
        3 if ``count >= C3 and age <= W3``, else 2 if ``count >= C2 and age <= W2``,
        else 1 if ``age <= W1``, else 0. The caller forces 0 for an untracked line.
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        super().__init__({
            "count": In(params.COUNT_WIDTH),
            "age": In(params.TS_WIDTH),
            "cfg": In(config_layout(params)),
            "level": Out(2),
        })

    def elaborate(self, platform):
        m = Module()
        cfg = self.cfg
        with m.If((self.count >= cfg.c3) & (self.age <= cfg.w3)):
            m.d.comb += self.level.eq(3)
        with m.Elif((self.count >= cfg.c2) & (self.age <= cfg.w2)):
            m.d.comb += self.level.eq(2)
        with m.Elif(self.age <= cfg.w1):
            m.d.comb += self.level.eq(1)
        with m.Else():
            m.d.comb += self.level.eq(0)
        return m

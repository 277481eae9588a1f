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
    at_least : Out(3)
        Bit ``k - 1`` is ``level >= k`` (k = 1, 2, 3), each an OR of the three rules'
        comparisons side by side, so that a caller comparing the level with a threshold
        (the hit, per-level statistics) takes one AND-OR of them instead of waiting for
        ``level``'s encoding.
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        super().__init__({
            "count": In(params.COUNT_WIDTH),
            "age": In(params.TS_WIDTH),
            "cfg": In(config_layout(params)),
            "level": Out(2),
            "at_least": Out(3),
        })

    def elaborate(self, platform):
        m = Module()
        cfg, ge = self.cfg, self.at_least
        t3 = (self.count >= cfg.c3) & (self.age <= cfg.w3)
        t2 = (self.count >= cfg.c2) & (self.age <= cfg.w2)
        t1 = self.age <= cfg.w1
        m.d.comb += [ge[2].eq(t3), ge[1].eq(t3 | t2), ge[0].eq(t3 | t2 | t1)]
        # The first rule that holds, from "level >= k": 3 = 0b11, 2 = 0b10, 1 = 0b01.
        m.d.comb += self.level.eq(Cat(ge[2] | (ge[0] & ~ge[1]), ge[1]))
        return m

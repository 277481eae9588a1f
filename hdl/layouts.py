# SPDX-License-Identifier: Apache-2.0
"""Payload and configuration layouts of the KV-ASU, built from ``regmap/kv_asu.toml``.

``request_layout(params)`` / ``response_layout(params)``
    ``StructLayout`` of the request and response stream payloads, fields least significant
    first exactly as ``regmap`` lists them (so the packed Verilog ports ``req__payload`` and
    ``rsp__payload`` follow the documented bit order).
``config_layout(params)``
    The active configuration the register block drives into the core: ``c3``, ``c2``
    (``COUNT_WIDTH`` bits), ``w3``, ``w2``, ``w1`` (``TS_WIDTH - 1`` bits, enough for
    ``WMAX``) and ``hash_seed`` (32 bits).
``STAT_NAMES``
    Order of the bits of the core's ``stat_inc`` port (one increment strobe per statistic).
``RequestStatistics``
    The increments a request's response stage gives, as ``stat_inc`` bits.
"""

from amaranth import C, Cat, Shape, Signal
from amaranth.lib import data

import regmap
from regmap import Params
from regmap.arguments import check_int      # (re-exported: the components' parameter checks)

__all__ = ["request_layout", "response_layout", "config_layout", "STAT_NAMES",
           "RequestStatistics", "check_params", "check_int"]

STAT_NAMES = regmap.STAT_NAMES


class RequestStatistics:
    """The statistics a request counts: every one of ``STAT_NAMES`` but ``req_dropped``
    (D13: that one is the admission's drop). ``count(name)``: the statement that counts
    ``name`` this cycle (into the signal ``stat``); ``stat_inc()``: the increments as the
    core's ``stat_inc`` bits (``req_dropped``'s bit 0)."""

    def __init__(self):
        self.counted = [name for name in STAT_NAMES if name != "req_dropped"]
        self.stat = Signal(len(self.counted), name="stat")

    def count(self, name):
        return self.stat[self.counted.index(name)].eq(1)

    def stat_inc(self):
        return Cat(self.stat[self.counted.index(name)] if name in self.counted else C(0, 1)
                   for name in STAT_NAMES)


def check_shape(name, value) -> int:
    """The width of ``value`` if it is shape-castable and at least 1 bit wide; ``TypeError``
    for a value that is not a shape (a ``bool`` is not one here, as ``check_int`` refuses it
    for a count), ``ValueError`` for a width of 0, each naming the parameter ``name``."""
    not_a_shape = TypeError(f"{name} must be shape-castable, not {value!r}")
    if isinstance(value, bool):
        raise not_a_shape
    try:
        width = Shape.cast(value).width
    except TypeError:
        raise not_a_shape from None
    if width < 1:
        raise ValueError(f"{name} must be at least 1 bit wide, not {value!r}")
    return width


def check_params(params) -> Params:
    """Accept a ``regmap.Params`` or ``None`` (defaults); raise ``TypeError`` otherwise."""
    if params is None:
        return Params()
    if not isinstance(params, Params):
        raise TypeError(f"params must be a regmap.Params, not {params!r}")
    return params


def request_layout(params: Params) -> data.StructLayout:
    return data.StructLayout(dict(regmap.request_fields(params)))


def response_layout(params: Params) -> data.StructLayout:
    return data.StructLayout(dict(regmap.response_fields(params)))


def config_layout(params: Params) -> data.StructLayout:
    window = params.TS_WIDTH - 1
    return data.StructLayout({
        "c3": params.COUNT_WIDTH,
        "c2": params.COUNT_WIDTH,
        "w3": window,
        "w2": window,
        "w1": window,
        "hash_seed": 32,
    })

# SPDX-License-Identifier: Apache-2.0
"""The golden model's records: the op codes, the response, the configuration, the
statistics and a slot's state; the op codes, the response's fields and the configuration's
names are checked against ``regmap``'s data when imported."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import NamedTuple

import regmap
from regmap import STAT_NAMES, Params

__all__ = ["Op", "Response", "Config", "Stats", "SlotState"]


class Op(enum.IntEnum):
    """Request op codes (spec section 6; values from ``regmap.OPS``)."""

    OBSERVE = regmap.OPS["OBSERVE"]
    QUERY = regmap.OPS["QUERY"]
    EVICT = regmap.OPS["EVICT"]
    EVICT_ANY = regmap.OPS["EVICT_ANY"]


if {op.name: op.value for op in Op} != regmap.OPS:  # pragma: no cover - guards the TOML
    raise ImportError(f"golden_model.Op does not match regmap.OPS {regmap.OPS}")


class Response(NamedTuple):
    """The response to one request (spec section 6, zeroing rules of decision D5).

    Every field is an ``int`` and has a defined value, so a scoreboard compares all of them.
    Equality compares every field; :meth:`diff` names the ones that differ.
    """

    op: int
    present: int = 0
    tlevel_before: int = 0
    tracked: int = 0
    tlevel: int = 0
    count: int = 0
    hit: int = 0
    slot: int = 0
    victim_valid: int = 0
    victim_tag: int = 0

    def as_dict(self) -> dict[str, int]:
        """The fields as a plain ``{name: int}`` dict."""
        return {name: int(value) for name, value in zip(self._fields, self)}

    def diff(self, other) -> dict[str, tuple[int, int]]:
        """``{field: (mine, theirs)}`` for every field where ``other`` differs.

        ``other`` may be a :class:`Response`, or any mapping or object with the same field
        names (for example a decoded RTL response). Empty when they agree.
        """
        differences = {}
        for name, mine in zip(self._fields, self):
            theirs = int(other[name] if isinstance(other, Mapping) else getattr(other, name))
            if theirs != mine:
                differences[name] = (mine, theirs)
        return differences


if set(Response._fields) != {name for name, _ in regmap.response_fields(Params())}:
    raise ImportError("golden_model.Response fields do not match the regmap response payload")


class Config(NamedTuple):
    """The active configuration (spec section 5, registers of section 7)."""

    c3: int
    c2: int
    w3: int
    w2: int
    w1: int
    hash_seed: int

    def as_dict(self) -> dict[str, int]:
        return dict(self._asdict())


if Config._fields != tuple(name.lower() for name in regmap.CONFIG_NAMES):
    raise ImportError("golden_model.Config fields do not match regmap.CONFIG_NAMES")


class Stats(NamedTuple("_StatsFields", [(name, int) for name in STAT_NAMES])):
    """A snapshot of the statistics counters (spec section 7, decision D7), 64-bit values.

    The field names are ``regmap.STAT_NAMES``, in register order.
    """

    __slots__ = ()

    def as_dict(self) -> dict[str, int]:
        return dict(self._asdict())


class SlotState(NamedTuple):
    """One slot's state, for debugging and for comparison with the RTL's tables."""

    valid: int
    tag: int          # 0 when not valid
    count: int        # 0 when not valid
    last: int         # exact tick of the last OBSERVE; 0 when not valid
    prev: int | None  # towards the head (more recently used); None at the head or if free
    next: int | None  # towards the tail (less recently used); None at the tail or if free
    ghost: int = 0    # predictor mode: an evicted line on the ghost list (P3), not tracked

# SPDX-License-Identifier: Apache-2.0
"""Which presented request the block takes, edge by edge (docs/spec-decisions.md D13).

:class:`KvAsuModel` answers the requests it is given; it has no notion of a cycle in which
the block cannot take one. In ``MODE.NONBLOCKING`` that matters: such a request is dropped
(no response, one more ``req_dropped``), so the model needs the rule that says which. This
module is that rule, written from D13 alone: the reasons for which the blocking block's
``req.ready`` is low at an edge (``CTRL.ENABLE`` 0, the EVICT gap, with ``POLICY.MODE =
1`` also an EVICT's two FREE edges, the credits, a CTRL action write's window, a clear
sweep), computed from what a testbench sees on the block's ports and the build's
constants, never from the RTL's own decision.

Use: one :class:`Admission` per simulated block, told of every edge in order with
:meth:`Admission.step` (the request presented, if any, and ``rsp.ready``) and of the bus
events before the step of their edge (:meth:`action_write`, :meth:`write_offered`,
:meth:`write_done`, :meth:`reset`; edges count from 0 again after a reset). ``step``
returns whether the request was taken; the caller gives a taken request to
:meth:`KvAsuModel.request` at that edge and a dropped one to :meth:`KvAsuModel.drop`.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np

import regmap
from regmap.arguments import check_int, is_int

__all__ = ["Admission", "BuildTiming"]

_QUERY = regmap.OPS["QUERY"]
_EVICT_OPS = (regmap.OPS["EVICT"], regmap.OPS["EVICT_ANY"])


def _flag(name: str, value) -> bool:
    """A port level or a switch: a bool, or an integer 0 / 1 (a sampled signal)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if is_int(value) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name} must be a bool or 0 / 1, not {value!r}")


def _check_op(op) -> int | None:
    if op is None:
        return None
    if not is_int(op):
        raise TypeError(f"op must be an Op, an integer 0..3 or None, not {op!r}")
    if not 0 <= op <= 3:
        raise ValueError(f"op must be 0..3 (regmap.OPS) or None, not {op}")
    return int(op)


@dataclasses.dataclass(frozen=True)
class BuildTiming:
    """The constants of a build that D13's rule needs (docs/rtl.md lists them per build).

    ``latency``: edges from a request's acceptance to the first edge its response can be
    taken; ``evict_gap``, ``evict_evict_gap``: D13 rule 2 (the edges an EVICT waits after
    an OBSERVE, after an EVICT / EVICT_ANY; the second ``evict_gap`` unless given, at most
    ``evict_gap``); ``rows``: ``ENTRIES / PROBE``, the clear sweep's length; ``credits``:
    rule 3, ``latency + 2`` unless given; ``predictor_gap``: rule 2 with ``POLICY.MODE =
    1`` (a build with the predictor mode; ``None`` without it), at least ``evict_gap``.
    """

    latency: int
    evict_gap: int
    rows: int
    credits: int | None = None
    evict_evict_gap: int | None = None
    predictor_gap: int | None = None

    def __post_init__(self):
        for name in ("latency", "evict_gap", "rows"):
            check_int(name, getattr(self, name), 1)
        if self.evict_evict_gap is None:
            object.__setattr__(self, "evict_evict_gap", self.evict_gap)
        else:
            check_int("evict_evict_gap", self.evict_evict_gap, 1)
            if self.evict_evict_gap > self.evict_gap:
                raise ValueError(f"evict_evict_gap must be 1 .. evict_gap ({self.evict_gap}), "
                                 f"not {self.evict_evict_gap}")
        if self.predictor_gap is not None:
            check_int("predictor_gap", self.predictor_gap, self.evict_gap)
        if self.credits is None:
            object.__setattr__(self, "credits", self.latency + 2)
        else:
            check_int("credits", self.credits, 1)


@dataclasses.dataclass
class _ActionWrite:
    """One CTRL write with an action bit: its window opens at ``start`` and closes after
    ``done`` (its B handshake); ``offered`` is the edge its response is first offered."""

    start: int
    offered: int | None = None
    done: int | None = None


class Admission:
    """D13's rule: at each edge, could the blocking block take a request?

    Parameters
    ----------
    timing : BuildTiming
        The build's constants.

    Attributes
    ----------
    taken, dropped : int
        Requests taken / dropped so far (a reset keeps the counts).
    """

    def __init__(self, timing: BuildTiming):
        if not isinstance(timing, BuildTiming):
            raise TypeError(f"timing must be a BuildTiming, not {timing!r}")
        self.timing = timing
        self.taken = 0
        self.dropped = 0
        self.reset()

    # ---- events, each before the step of its edge -------------------------------------------

    def reset(self, sweeps: bool = False) -> None:
        """A hardware reset: nothing is in flight (D10 drops every response), no write.
        ``sweeps``: the reset is a generation wrap, so edges ``0 .. rows - 1`` after it are
        the clear sweep's (rule 5; the first edge with ``rst`` low is edge 0)."""
        self._outstanding = collections.deque()   # acceptance edges, oldest first
        self._last_handshake = None               # edge of the last response handshake
        self._last_observe = None                 # last taken OBSERVE
        self._last_evict = None                   # last taken EVICT / EVICT_ANY
        self._last_evict_frees = False            # ... taken with POLICY.MODE = 1
        self._writes: list[_ActionWrite] = []
        self._sweeps: list[int] = []              # edges f of the flushes that sweep
        self._last_edge = None
        if sweeps:
            self._sweeps.append(-1)               # f + 1 .. f + rows: edges 0 .. rows - 1

    def action_write(self, edge: int) -> None:
        """The later of the AW and W handshakes of a CTRL write with an action bit was at
        ``edge`` (D13 rule 4: its window opens at ``edge + 2``)."""
        self._writes.append(_ActionWrite(start=edge + 2))

    def write_offered(self, edge: int, sweeps: bool = False) -> None:
        """The oldest action write's response is first offered (``BVALID``) at ``edge``;
        ``sweeps``: it flushes and is a generation wrap (rule 5)."""
        write = next((w for w in self._writes if w.offered is None), None)
        if write is None:
            raise ValueError(f"write_offered at edge {edge}: no action write is waiting for "
                             f"its response (action_write first)")
        write.offered = edge
        if sweeps:
            self._sweeps.append(edge)

    def write_done(self, edge: int) -> None:
        """The oldest action write's B handshake was at ``edge`` (its window ends with it)."""
        write = next((w for w in self._writes if w.done is None), None)
        if write is None:
            raise ValueError(f"write_done at edge {edge}: no action write is outstanding "
                             f"(action_write first)")
        write.done = edge

    # ---- the rule ----------------------------------------------------------------------------

    def blocked(self, edge: int, op: int | None, *, enable: bool = True,
                predictor: bool = False) -> list[str]:
        """The reasons (D13 rules 1..5) for which the blocking block's ``req.ready`` is low
        at ``edge`` for a request ``op`` (``None``: for any request but an EVICT); empty when
        it would take it. ``predictor``: ``POLICY.MODE`` is 1 (rule 2's second form)."""
        op = _check_op(op)
        t = self.timing
        if predictor and t.predictor_gap is None:
            raise ValueError("POLICY.MODE = 1 needs a build with the predictor mode "
                             "(BuildTiming.predictor_gap)")
        since_observe = None if self._last_observe is None else edge - self._last_observe
        since_evict = None if self._last_evict is None else edge - self._last_evict
        why = []
        if not enable:
            why.append("disabled")
        if predictor:
            # an EVICT's FREEs take the two edges after it; an EVICT waits until neither
            # an OBSERVE nor an EVICT's FREE was in the predictor_gap edges before it
            if since_evict is not None and self._last_evict_frees and since_evict <= 2:
                why.append("evict frees")
            if op in _EVICT_OPS and (
                    (since_observe is not None and since_observe <= t.predictor_gap)
                    or (since_evict is not None and since_evict <= t.predictor_gap + 2)):
                why.append("evict gap")
        elif op in _EVICT_OPS and (
                (since_observe is not None and since_observe <= t.evict_gap)
                or (since_evict is not None and since_evict <= t.evict_evict_gap)):
            why.append("evict gap")
        if len(self._outstanding) >= t.credits:
            why.append("credits")
        if any(w.start <= edge and (w.done is None or edge <= w.done) for w in self._writes):
            why.append("action write")
        if any(f + 1 <= edge <= f + t.rows for f in self._sweeps):
            why.append("clear sweep")
        return why

    def in_sweep(self, edge: int) -> bool:
        """Whether ``edge`` is an edge of a clear sweep the rule knows of (rule 5: ``f + 1
        .. f + rows`` of a flush that sweeps, ``0 .. rows - 1`` after a reset that sweeps),
        whatever is presented: what a reset at ``edge`` (its first edge with ``rst`` high)
        finds running, which D12 says it restarts without counting. A query: it changes
        nothing. ``edge`` at or after the last stepped one (the rule forgets older sweeps)."""
        edge = check_int("edge", edge, 0)
        return any(f + 1 <= edge <= f + self.timing.rows for f in self._sweeps)

    def rsp_offered(self, edge: int) -> bool:
        """Whether a response is offered (``rsp.valid``) at ``edge`` (rule 3)."""
        if not self._outstanding:
            return False
        first = self._outstanding[0] + self.timing.latency
        if self._last_handshake is not None:
            first = max(first, self._last_handshake + 1)
        return edge >= first

    def step(self, edge: int, op: int | None, rsp_ready: bool, *, nonblocking: bool,
             enable: bool = True, predictor: bool = False) -> bool | None:
        """Edge ``edge``: a request ``op`` is presented (``None``: none) and ``rsp.ready``
        is ``rsp_ready``; ``predictor``: ``POLICY.MODE`` is 1. Returns ``True`` if the
        request is taken, ``False`` if it is not (dropped when ``nonblocking``, else it
        waits and is presented again), ``None`` without a request. Edges must increase;
        edges not stepped had no request and no response outstanding."""
        if self._last_edge is not None and edge <= self._last_edge:
            raise ValueError(f"edge {edge} after edge {self._last_edge}: edges must increase")
        op = _check_op(op)
        rsp_ready = _flag("rsp_ready", rsp_ready)
        nonblocking = _flag("nonblocking", nonblocking)
        enable = _flag("enable", enable)
        predictor = _flag("predictor", predictor)
        self._last_edge = edge
        taken = None
        if op is not None:
            taken = not self.blocked(edge, op, enable=enable, predictor=predictor)
            if taken:
                self.taken += 1
            elif nonblocking:
                self.dropped += 1
        if self.rsp_offered(edge) and rsp_ready:
            self._outstanding.popleft()
            self._last_handshake = edge
        if taken:
            self._outstanding.append(edge)
            if op in _EVICT_OPS:
                self._last_evict = edge
                self._last_evict_frees = predictor
            elif op != _QUERY:
                self._last_observe = edge
        self._forget(edge)
        return taken

    def _forget(self, edge: int) -> None:
        """Drop the writes and sweeps that can no longer matter."""
        self._writes = [w for w in self._writes if w.done is None or w.done >= edge]
        self._sweeps = [f for f in self._sweeps if f + self.timing.rows >= edge]

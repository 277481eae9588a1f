# SPDX-License-Identifier: Apache-2.0
"""The cycle counts of a built core: its latency and the gaps its admission keeps, derived
in one place from the build choices and the hash's latency.

A request accepted in cycle ``a`` meets the stages in this order::

    a: acceptance -> a+1: s0 -> ... -> a+1+Lh: R -> [M] -> E1a or E [-> E1b -> E2] -> L

and L writes the response FIFO, which shows it two cycles later (``r_rdy``).
"""

import dataclasses

from ..layouts import check_int, check_params
from ..lru import tail_lag
from .options import CoreOptions

__all__ = ["PipelineTiming", "check_core_params"]


def check_core_params(params):
    """Raise ``ValueError`` for parameters the RTL cannot implement (beyond ``regmap``).

    * The scrubber visits one row of ``PROBE`` slots per cycle, so every slot once every
      ``ENTRIES / PROBE`` cycles; that must be at most ``2**(TS_WIDTH - 1)`` ticks, i.e.
      ``ENTRIES / PROBE <= 2**(TS_WIDTH - 1 + TICK_SHIFT)``, or a stored timestamp could
      alias before the scrubber marks it stale.
    """
    params = check_params(params)
    rows = params.ROWS
    limit = 2 ** (params.TS_WIDTH - 1 + params.TICK_SHIFT)
    if rows > limit:
        raise ValueError(
            f"ENTRIES / PROBE ({rows}) must be at most 2**(TS_WIDTH - 1 + TICK_SHIFT) "
            f"({limit}): the scrubber visits one row of PROBE slots per cycle and must "
            f"visit every slot within 2**(TS_WIDTH-1) ticks (raise TS_WIDTH, TICK_SHIFT "
            f"or PROBE, or lower ENTRIES)")
    return params


@dataclasses.dataclass(frozen=True)
class PipelineTiming:
    """The cycle counts of a core built with ``options`` around a hash of ``hash_latency``.

    Parameters
    ----------
    options : CoreOptions
    hash_latency : int
        Cycles from the hash's ``key`` to its ``hash`` (``Lh``).

    Attributes
    ----------
    eval_stages : int
        3 (E1a, E1b, E2) or 1 (E: the compact pipeline).
    eval_lag : int
        Cycles from acceptance to the evaluation stage (also the scrubber's lag).
    latency : int
        Cycles from the acceptance edge to the edge at which the response can be taken
        (consumer ready).
    fifo_depth : int
        The response FIFO's depth, and so the requests in flight at most.
    stat_lag : int
        Cycles from a request's acceptance to its ``stat_inc`` pulse (L, the cycle after
        E2 or E: ``latency - 2``; ``KvAsuRegisters(stat_lag=...)``).
    drop_stat_lag : int
        Cycles from a dropped request (``MODE.NONBLOCKING``, D13) to its ``req_dropped``
        increment in ``stat_inc`` (``stat_lag - 1``: one cycle before a request's own
        increments would come, the right side of a CLEAR_STATS).
    decision_lag : int
        ``D`` of D11: cycles from a request's acceptance to the cycle after its decision
        is made (E2; ``eval_lag + 2``): a recovery that starts in cycle ``d`` poisons the
        decisions made from ``d`` on (E1b in ``d`` or later), so it answers the requests
        accepted in ``d - decision_lag + 1 .. d`` as untracked lines.
    evict_gap : int
        An EVICT / EVICT_ANY is accepted only when no OBSERVE was accepted in the
        ``evict_gap`` cycles before it (6 by default, 2 in the compact pipeline)...
    evict_evict_gap : int
        ... and no EVICT / EVICT_ANY in the ``evict_evict_gap`` cycles before it (3 by
        default: back-to-back EVICTs at one per 4 cycles; 2 in the compact pipeline).
    predictor_gap : int or None
        With ``CoreOptions.predictor``, in the predictor mode: an EVICT / EVICT_ANY is
        accepted only when no OBSERVE, EVICT or FREE was accepted in the
        ``predictor_gap`` cycles before it (7 by default; two FREEs follow every EVICT:
        back-to-back EVICTs at one per 10 cycles, the request after an EVICT waits 2).
    """

    options: CoreOptions
    hash_latency: int

    def __post_init__(self):
        if not isinstance(self.options, CoreOptions):
            raise TypeError(f"options must be a CoreOptions, not {self.options!r}")
        check_int("hash_latency", self.hash_latency, 0)

    @property
    def eval_stages(self):
        return 3 if self.options.split_evaluation else 1

    @property
    def eval_lag(self):
        return self.hash_latency + 2 + self.options.m_stage

    @property
    def latency(self):
        return self.eval_lag + 2 + self.eval_stages

    @property
    def fifo_depth(self):
        return self.latency + 2

    @property
    def stat_lag(self):
        return self.latency - 2

    @property
    def drop_stat_lag(self):
        return self.stat_lag - 1

    @property
    def decision_lag(self):
        return self.eval_lag + 2

    @property
    def evict_gap(self):
        # An EVICT reads the table in R at the LRU tail, which shows the LRU command of
        # the request ahead (given in E2) tail_lag cycles later: the cycles before an
        # EVICT's acceptance that must be free of OBSERVE acceptances.
        o = self.options
        return o.m_stage + self.eval_stages + tail_lag(o.lru_registered) - 1

    @property
    def evict_evict_gap(self):
        # Behind EVICTs only, the LRU list's chain gives in R the tail their POPs leave,
        # once each has its POP (or none) in an E2 register (lru.pop_now): the cycles
        # before an EVICT's acceptance that must be free of EVICT acceptances. (The compact
        # pipeline's list has no chain.)
        o = self.options
        return o.m_stage + self.eval_stages - 1 if o.lru_registered else self.evict_gap

    @property
    def predictor_gap(self):
        # The predictor mode's EVICT is followed by two FREEs (docs/rtl-predictor.md,
        # "EVICT in this mode"); the second reads in R, two cycles after the EVICT's R, the
        # ghost list's gtail2 prefetch, valid 2 * tail_lag cycles after the last list move
        # (given in E2): the cycles before an EVICT's acceptance free of moves.
        o = self.options
        if not o.predictor:
            return None
        return max(self.evict_gap,
                   o.m_stage + self.eval_stages + 2 * tail_lag(o.lru_registered) - 3)

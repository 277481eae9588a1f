# SPDX-License-Identifier: Apache-2.0
"""How long a trace's requests wait to be taken after their trace cycles (``make sim``'s
``waits``): the figures of a list of waits (:func:`wait_figures`), and the waits D13's
admission rule gives a trace presented at its cycles (:func:`admission_waits`), which
``make sim`` compares with the waits it measures on the RTL and the docs' test holds the
README's and running.md's figures to."""

from __future__ import annotations

import numpy as np

from golden_model.admission import Admission, BuildTiming

__all__ = ["admission_waits", "stall_cycles", "wait_figures"]


def wait_figures(waits, latency: int | None) -> dict:
    """How long requests waited for acceptance after their trace cycles (cycles): mean, 99th
    percentile, longest, how many waited at all; and the build's fixed ``latency``, so that a
    response's time from its request's trace cycle is the wait plus ``latency``."""
    w = np.asarray(waits, dtype=np.int64)
    return {"mean": round(float(w.mean()), 2), "p99": int(np.percentile(w, 99, method="higher")),
            "max": int(w.max()), "waited": int((w > 0).sum()), "latency": latency}


def stall_cycles(presented, taken) -> int:
    """``make sim``'s ``stall``: the edges the block was not ready for a request at its
    earliest, the later of its trace cycle (``presented``) and the edge after the request
    ahead of it was taken (``taken``: the acceptance cycles, in order); each such edge is
    counted once, not once per request waiting behind it."""
    stall, previous = 0, None
    for at, edge in zip((int(c) for c in presented), (int(c) for c in taken)):
        stall += edge - (at if previous is None else max(at, previous + 1))
        previous = edge
    return stall


def admission_waits(cycles, ops, timing: BuildTiming) -> list[int]:
    """Each request presented at its trace cycle (``cycles``, non-decreasing) or, behind a
    request not yet taken, at the edge after that one is taken: the edges it waited, by
    D13's rule for a blocking block with the response consumer always ready and
    ``POLICY.MODE`` 0 (``timing``: the build's constants, ``verif.runner.build_timing``)."""
    rule = Admission(timing)
    waits, edge = [], 0
    for at, op in zip((int(c) for c in cycles), (int(o) for o in ops)):
        while edge < at:                    # idle edges: responses still drain
            rule.step(edge, None, True, nonblocking=False)
            edge += 1
        while not rule.step(edge, op, True, nonblocking=False):
            edge += 1
        waits.append(edge - at)
        edge += 1
    return waits

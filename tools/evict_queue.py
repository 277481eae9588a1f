# SPDX-License-Identifier: Apache-2.0
"""What a queue of posted EVICTs would give the non-blocking mode: a measured design study
(not built).

``python -m tools.evict_queue [--depths 0 1 4 16 64] [--out F]``

In ``MODE.NONBLOCKING`` (docs/spec-decisions.md D13) an EVICT / EVICT_ANY presented inside
its gap is dropped. The design studied here posts it instead: it goes into a queue of
``depth`` EVICTs (dropped only when the queue is full), and the queue's oldest EVICT is
taken at the first edge at which no request is taken from the port and D13's rule would
take an EVICT. A presented EVICT joins the queue's end while the queue holds any, so
EVICTs keep their order; OBSERVE and QUERY never wait for the queue. Depth 0 is the mode
as built.

Every edge is decided by the golden model's admission rule
(``golden_model.admission.Admission``; the default build's constants, read from the core
as the testbench reads them, ``verif.runner.build_timing``; the response consumer always
ready), so depth 0 reproduces the non-blocking figures of ``make
bench-nonblocking`` (``tests/golden_model/test_evict_queue.py``). Patterns: the
streaming-video KV trace with its GC EVICTs presented at its own cycles (as ``make sim``
presents it) and back to back, and EVICT_ANYs back to back. For each depth: requests
taken, EVICTs dropped, EVICTs posted, and how many edges a posted EVICT waited. Prints a
table and writes JSON: ``params``, ``timing`` (D13's constants), ``ops`` (each pattern's
requests by op) and ``patterns`` (per pattern, one entry per depth: the keys of
:func:`post_evicts`). The RTL does not have the queue (docs/rtl.md, "Posted EVICTs").

The run docs/rtl.md's "Posted EVICTs" table quotes is kept in ``docs/bench/evict_queue.json``
(``python -m tools.evict_queue --out docs/bench/evict_queue.json``;
``tests/verif/test_bench_studies.py`` holds the page to it); ``make bench-nonblocking``
writes ``build/evict_queue.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
from pathlib import Path

from golden_model.admission import Admission, BuildTiming
from regmap import OPS, Params
from regmap.arguments import check_int, check_writable, int_range

__all__ = ["default_timing", "post_evicts", "main"]

_EVICTS = (OPS["EVICT"], OPS["EVICT_ANY"])


def default_timing() -> BuildTiming:
    """The default build's constants of D13's rule, from its core."""
    from verif.runner import build_timing
    return BuildTiming(**build_timing(Params()))


def post_evicts(cycles, ops, depth: int, *, back_to_back: bool, timing: BuildTiming) -> dict:
    """Present ``ops`` (at ``cycles``, or one per edge if ``back_to_back``) to a
    non-blocking block with a queue of ``depth`` posted EVICTs, until the queue is empty.

    ``timing``: the build's constants of D13's rule (:func:`default_timing`).
    Returns the requests presented, taken and dropped (with the consumer always ready, only
    EVICTs are dropped), the EVICTs posted and the edges a posted EVICT waited (mean, to
    one decimal, greatest, and the total over the posted EVICTs: ``wait_total / posted``
    is the unrounded mean). ``TypeError`` / ``ValueError`` for a ``depth`` not an integer of at least 0."""
    depth = check_int("depth", depth, 0)
    rule = Admission(timing)
    queue: collections.deque = collections.deque()     # (op, edge posted), oldest first
    taken = dropped = posted = 0
    waits = []
    i, edge, n = 0, 0, len(ops)
    while i < n or queue:
        op = None
        if i < n and (back_to_back or int(cycles[i]) <= edge):
            op, i = int(ops[i]), i + 1
        if op in _EVICTS and (queue or rule.blocked(edge, op)):
            if len(queue) < depth:
                queue.append((op, edge))
                posted += 1
            else:
                dropped += 1
            op = None                       # not the port's request for the rule
        if op is not None:
            taken += bool(rule.step(edge, op, True, nonblocking=True))
        elif queue and not rule.blocked(edge, queue[0][0]):
            qop, at = queue.popleft()
            rule.step(edge, qop, True, nonblocking=True)
            taken += 1
            waits.append(edge - at)
        else:
            rule.step(edge, None, True, nonblocking=True)
        edge += 1
        if not back_to_back and i < n and not queue:
            edge = max(edge, int(cycles[i]))
    return {
        "depth": depth, "presented": n, "taken": taken, "dropped": dropped + rule.dropped,
        "posted": posted,
        "wait_mean": round(statistics.fmean(waits), 1) if waits else None,
        "wait_max": max(waits) if waits else None,
        "wait_total": sum(waits),
    }


def patterns():
    """The streams studied: name -> (cycles, ops, back_to_back)."""
    from evaluation.workload import video_kv_requests
    cycles, ops, _, _, _ = video_kv_requests()
    return {
        "video trace at its own cycles": (cycles, ops, False),
        "video trace, 3 000 requests back to back": (cycles[:3000], ops[:3000], True),
        "256 EVICT_ANY back to back": ([0] * 256, [OPS["EVICT_ANY"]] * 256, True),
    }


def _cell(value, width):
    return f"{'-' if value is None else value:>{width}}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.evict_queue",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--depths", type=int_range(0), nargs="+", default=[0, 1, 4, 16, 64],
                    help="queue depths (0: the mode as built)")
    ap.add_argument("--out", type=Path, default=Path("build/evict_queue.json"),
                    help="the JSON file to write (default build/evict_queue.json; the kept "
                         "record is docs/bench/evict_queue.json)")
    args = ap.parse_args(argv)
    check_writable(args.out, "--out")
    timing = default_timing()
    columns = (("depth", 5), ("taken", 6), ("dropped", 7), ("posted", 6), ("wait_mean", 9),
               ("wait_max", 8))
    print(f"{'pattern':44} " + " ".join(f"{name.replace('_', ' '):>{w}}" for name, w in columns))
    figures, by_op = {}, {}
    for name, (cycles, ops, b2b) in patterns().items():
        figures[name] = []
        by_op[name] = {op: sum(int(o) == OPS[op] for o in ops) for op in OPS}
        for depth in args.depths:
            r = post_evicts(cycles, ops, depth, back_to_back=b2b, timing=timing)
            figures[name].append(r)
            print(f"{name:44} " + " ".join(_cell(r[key], w) for key, w in columns), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"params": Params().as_dict(), "timing": vars(timing),
                                    "ops": by_op, "patterns": figures}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

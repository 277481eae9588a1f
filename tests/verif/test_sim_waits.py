# SPDX-License-Identifier: Apache-2.0
"""``make sim``'s waits (verif.cocotb_sim_main): how long the video trace's requests wait to
be taken after their trace cycles, from D13's admission rule (golden_model.admission) on
the trace alone, held to what the README and docs/running.md say they are, and the
summary's arithmetic (verif.cocotb_sim_main.wait_figures) on a known list."""

from __future__ import annotations

import re
from pathlib import Path

from evaluation.workload import PRESETS, video_kv_requests
from golden_model.admission import Admission, BuildTiming
from regmap import Params
from verif.cocotb_sim_main import wait_figures
from verif.runner import build_timing

ROOT = Path(__file__).resolve().parents[2]


def _flat(path: Path) -> str:
    return " ".join(path.read_text().split())


def admission_waits() -> tuple[list[int], int]:
    """Each request of ``make sim``'s trace (preset ``small``), presented at its trace cycle
    or, behind a request not yet taken, at the edge after that one is: the edges it waited
    (blocking mode, the response consumer always ready); and the build's latency."""
    cycle, op, _addr, _mt, _frame = video_kv_requests(PRESETS["small"])
    timing = BuildTiming(**build_timing(Params()))
    rule = Admission(timing)
    waits, edge = [], 0
    for at, o in zip(cycle.tolist(), op.tolist()):
        while edge < at:                    # idle edges: responses still drain
            rule.step(edge, None, True, nonblocking=False)
            edge += 1
        while not rule.step(edge, o, True, nonblocking=False):
            edge += 1
        waits.append(edge - at)
        edge += 1
    return waits, timing.latency


def test_wait_figures():
    w = wait_figures([0, 0, 3, 1, 0, 10], 19)
    assert w == {"mean": 2.33, "p99": 10, "max": 10, "waited": 3, "latency": 19}
    assert wait_figures(list(range(200)), None)["p99"] == 198


def test_the_docs_quote_the_waits_the_rule_gives():
    waits, latency = admission_waits()
    w = wait_figures(waits, latency)
    assert w["waited"] < len(waits) and w["max"] > 0          # the trace does wait
    mean, p99, longest = round(w["mean"]), w["p99"], w["max"]
    response_mean, response_max = round(w["mean"] + latency), w["max"] + latency
    readme = _flat(ROOT / "README.md")
    waited, requests = (f"{n:,}".replace(",", " ") for n in (w["waited"], len(waits)))
    expected = (f"a request is taken {mean} cycles after its trace cycle on average (99th percentile {p99}, "
                f"longest {longest}; {waited} of {requests} wait) and its response comes "
                f"{response_mean} cycles after it (longest {response_max}), not the {latency} of the table")
    assert expected in readme, expected
    running = _flat(ROOT / "docs" / "running.md")
    expected = (f"make a request wait {mean} cycles on average (99th percentile {p99}, longest {longest}), and "
                f"its response come {response_mean} cycles after its trace cycle (longest {response_max}) with "
                f"the {latency}-cycle latency")
    assert expected in running, expected
    stalls = re.search(r"so the ([\d ]+) `stall` cycles of the `small`", running)
    assert stalls, "running.md names the stall cycles behind the waits"
    # the stall count: each edge a request was held past the later of its trace cycle and
    # the edge after the request ahead of it
    cycle = video_kv_requests(PRESETS["small"])[0].tolist()
    held, previous = 0, None
    for at, waited in zip(cycle, waits):
        taken = at + waited
        earliest = at if previous is None else max(at, previous + 1)
        held += taken - earliest
        previous = taken
    assert int(stalls.group(1).replace(" ", "")) == held

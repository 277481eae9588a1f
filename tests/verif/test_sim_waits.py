# SPDX-License-Identifier: Apache-2.0
"""``make sim``'s waits (verif.sim_waits): how long the video trace's requests wait to be
taken after their trace cycles, from D13's admission rule (golden_model.admission) on the
trace alone (``make sim`` fails where the RTL's differ), held to what the README and
docs/running.md say they are; the rule's replay on a hand-worked stream; and the summary's
arithmetic on a known list."""

from __future__ import annotations

import re
from pathlib import Path

from evaluation.workload import PRESETS, video_kv_requests
from golden_model.admission import BuildTiming
from regmap import OPS, Params
from verif.runner import build_timing
from tests.docs_text import flat, grouped
from verif.sim_waits import admission_waits, stall_cycles, wait_figures

ROOT = Path(__file__).resolve().parents[2]


def sim_waits() -> tuple[list[int], int]:
    """The waits of ``make sim``'s trace (preset ``small``) by D13's rule, and the default
    build's latency."""
    cycle, op, _addr, _mt, _frame = video_kv_requests(PRESETS["small"])
    timing = BuildTiming(**build_timing(Params()))
    return admission_waits(cycle, op, timing), timing.latency


def test_the_rule_replays_a_hand_worked_stream():
    """OBSERVE at 0, EVICT at 1: the EVICT waits for EVICT_GAP edges after the OBSERVE (taken
    at 0 + gap + 1) and the OBSERVE behind it for the EVICT; an EVICT at 20 is taken at once,
    the one at 21 after EVICT_EVICT_GAP edges behind it."""
    timing = BuildTiming(**build_timing(Params()))
    gap, evict_gap = timing.evict_gap, timing.evict_evict_gap
    observe, evict = OPS["OBSERVE"], OPS["EVICT"]
    waits = admission_waits([0, 1, 2, 20, 21], [observe, evict, observe, evict, evict], timing)
    assert waits == [0, gap, gap, 0, evict_gap]
    presented = [0, 1, 2, 20, 21]
    # the EVICT's gap edges and the second EVICT's, each once (the OBSERVE behind it adds none)
    assert stall_cycles(presented, [c + w for c, w in zip(presented, waits)]) == gap + evict_gap


def test_wait_figures():
    w = wait_figures([0, 0, 3, 1, 0, 10], 19)
    assert w == {"mean": 2.33, "p99": 10, "max": 10, "waited": 3, "latency": 19}
    assert wait_figures(list(range(200)), None)["p99"] == 198


def test_the_docs_quote_the_waits_the_rule_gives():
    waits, latency = sim_waits()
    w = wait_figures(waits, latency)
    assert w["waited"] < len(waits) and w["max"] > 0          # the trace does wait
    mean, p99, longest = round(w["mean"]), w["p99"], w["max"]
    response_mean, response_max = round(w["mean"] + latency), w["max"] + latency
    readme = flat((ROOT / "README.md").read_text())
    waited, requests = grouped(w["waited"]), grouped(len(waits))
    expected = (f"a request is taken {mean} cycles after its trace cycle on average (99th percentile {p99}, "
                f"longest {longest}; {waited} of {requests} wait) and its response comes "
                f"{response_mean} cycles after it (longest {response_max}), not the {latency} of the table")
    assert expected in readme, expected
    running = flat((ROOT / "docs" / "running.md").read_text())
    expected = (f"make a request wait {mean} cycles on average (99th percentile {p99}, longest {longest}), and "
                f"its response come {response_mean} cycles after its trace cycle (longest {response_max}) with "
                f"the {latency}-cycle latency")
    assert expected in running, expected
    stalls = re.search(r"so the ([\d ]+) `stall` cycles of the `small`", running)
    assert stalls, "running.md names the stall cycles behind the waits"
    cycle = video_kv_requests(PRESETS["small"])[0]
    assert int(stalls.group(1).replace(" ", "")) == stall_cycles(cycle, [c + w for c, w in zip(cycle, waits)])

# SPDX-License-Identifier: Apache-2.0
"""The timing diagrams of docs/rtl.md: every WaveDrom source has its SVG in docs/timing/,
rendered from that very source (the SVG records the source's SHA-256; no rendering here),
and the simulated ones (``tools.timing_diagrams``) are what the RTL does now, with the
behaviour their titles state."""

from tools import render_timing, timing_diagrams


def test_every_diagram_has_an_up_to_date_svg():
    found = render_timing.diagrams()
    assert "latency" in found
    assert set(timing_diagrams.SCENARIOS) <= set(found)
    for name, text in found.items():
        svg = render_timing.OUT / f"{name}.svg"
        assert render_timing.svg_digest(svg) == render_timing.source_digest(text), \
            f"{svg} is missing or stale: run `make docs`"


def _taken(rows):
    """The cycles in which a request was taken, and the ops of the responses in order."""
    taken = [c for c, (valid, _, ready, *_) in enumerate(rows) if valid and ready]
    answered = [op for _, _, _, rsp_valid, op, rsp_ready in rows if rsp_valid and rsp_ready]
    return taken, answered


def test_simulated_diagrams_are_the_rtls_and_say_what_it_does():
    in_page = render_timing.diagrams()
    rows = {}
    for name, scenario in timing_diagrams.SCENARIOS.items():
        rows[name] = timing_diagrams.simulate(scenario)
        assert in_page[name] == timing_diagrams.wavedrom(scenario, rows[name]), \
            f"the diagram {name} of docs/rtl.md is not what the RTL does: run `make docs`"
    ops = [op for op, _ in timing_diagrams.SCENARIOS["evict_gaps"].requests]

    # blocking: OBS 0, OBS 1, the first EVICT 6 cycles free of OBSERVE acceptances later,
    # each further EVICT 3 cycles free of EVICT acceptances later, QUERY and OBSERVE at once
    taken, answered = _taken(rows["evict_gaps"])
    assert taken == [0, 1, 8, 12, 16, 17, 18]
    assert answered == ops
    first_response = next(c for c, row in enumerate(rows["evict_gaps"]) if row[3])
    assert first_response == 19                    # the default build's latency

    # non-blocking: ready never falls, the EVICTs are dropped without a response
    nb = rows["nonblocking_drops"]
    taken, answered = _taken(nb)
    assert all(ready for _, _, ready, *_ in nb)
    assert taken == list(range(len(ops)))
    assert answered == [op for op in ops if op != "EVICT"]

    # back-pressure: 21 credits (the FIFO's depth, latency + 2); a request is taken again
    # in the cycle after a response leaves; each response leaves once
    bp = rows["backpressure"]
    taken, answered = _taken(bp)
    n = len(timing_diagrams.SCENARIOS["backpressure"].requests)
    assert len(taken) == len(answered) == n
    outstanding = max(sum(1 for c in taken if c <= t) -
                      sum(1 for _, _, _, v, _, r in bp[:t] if v and r) for t in range(len(bp)))
    assert outstanding == 21
    stall_end = timing_diagrams.SCENARIOS["backpressure"].rsp_stall[1]
    assert [c for c in taken if c > 21][0] == stall_end + 1

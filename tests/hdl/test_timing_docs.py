# SPDX-License-Identifier: Apache-2.0
"""The timing diagrams of docs/rtl.md: every WaveDrom source in docs/timing/ has its SVG,
rendered from that very source (the SVG records the source's SHA-256; no rendering here),
every source is a simulated scenario of ``tools.timing_diagrams`` and is what the RTL does
now, and the scenarios show the behaviour their titles and docs/rtl.md state."""

import regmap
from golden_model import KvAsuModel
from tools import render_timing, timing_diagrams
from tools.timing_diagrams import SCENARIOS, responses, simulate, taken


def test_every_diagram_has_an_up_to_date_svg():
    found = render_timing.diagrams()
    assert set(found) == set(SCENARIOS)
    pages = "".join(path.read_text() for path in render_timing.DOCS.glob("*.md"))
    for name, text in found.items():
        svg = render_timing.OUT / f"{name}.svg"
        assert render_timing.svg_digest(svg) == render_timing.source_digest(text), \
            f"{svg} is missing or stale: run `make docs`"
        assert f"(timing/{name}.svg)" in pages, f"no page of docs/ shows {svg}"


def _presented(rows):
    """``(cycle, request, dropped)`` of every request presented and taken or dropped."""
    return [(c, r.req, bool(r.dropped)) for c, r in enumerate(rows)
            if r.req_valid and r.req_ready]


def _check_against_model(scenario, rows):
    """Every response is the golden model's answer to the request it is labelled with
    (the k-th taken), and there is one per request taken: none lost, repeated or
    reordered."""
    model = KvAsuModel(timing_diagrams.PARAMS, mode_reset=scenario.mode_reset)
    expected = []
    for cycle, (op, line), dropped in _presented(rows):
        if dropped:
            model.drop(cycle)
        else:
            expected.append(model.request(cycle, regmap.OPS[op],
                                          line << timing_diagrams.PARAMS.LINE_SHIFT)._asdict())
    assert [fields for _, fields in responses(rows)] == expected


def _cycles(rows, what):
    return [c for c, r in enumerate(rows) if what(r)]


def test_simulated_diagrams_are_the_rtls_and_say_what_they_show():
    in_docs = render_timing.diagrams()
    rows = {}
    for name, scenario in SCENARIOS.items():
        rows[name] = simulate(scenario)
        assert in_docs[name] == timing_diagrams.wavedrom(scenario, rows[name]), \
            f"docs/timing/{name}.json is not what the RTL does: run `make docs`"
        _check_against_model(scenario, rows[name])
    timing = timing_diagrams.build(SCENARIOS["latency"]).core.timing
    assert timing.latency == 19 and timing.stat_lag == 17      # as docs/rtl.md says

    # latency: one OBSERVE taken in cycle 0; its statistics (observes, inserts, obs_t0)
    # counted in L, latency - 2 = 17; its response at the build's latency, 19; the stages
    # of the table of docs/rtl.md, each in its cycle
    lat = rows["latency"]
    assert [c for c, _ in taken(lat)] == [0]
    assert _cycles(lat, lambda r: r.stat_inc) == [timing.stat_lag]
    stats = lat[timing.stat_lag].stat_inc
    assert {n for i, n in enumerate(regmap.STAT_NAMES) if stats >> i & 1} == \
        {"observes", "inserts", "obs_t0"}
    assert _cycles(lat, lambda r: r.rsp_valid) == [timing.latency]
    assert [c for c, _ in responses(lat)] == [timing.latency]
    lh = timing.hash_latency
    assert [r.stage for r in lat] == (
        [None, "s0"] + ["hash"] * (lh - 1) + ["R", "M", "E1a", "E1b", "E2", "L"]
        + ["FIFO"] * 2 + [None] * 2)

    ops = [op for op, _ in SCENARIOS["evict_gaps"].requests]

    # blocking: OBS 0, OBS 1, the first EVICT 6 cycles free of OBSERVE acceptances later,
    # each further EVICT 3 cycles free of EVICT acceptances later, QUERY and OBSERVE at once
    gaps = rows["evict_gaps"]
    assert [c for c, _ in taken(gaps)] == [0, 1, 8, 12, 16, 17, 18]
    assert [f["op"] for _, f in responses(gaps)] == [regmap.OPS[op] for op in ops]
    assert _cycles(gaps, lambda r: r.rsp_valid)[0] == timing.latency
    assert not any(r.dropped for r in gaps)

    # non-blocking: ready never falls; the EVICTs within 6 cycles of the last OBSERVE
    # (cycle 6) are dropped without a response, the boundary included (cycle 12), and
    # counted in STAT_REQ_DROPPED one cycle before a request's own statistics would be;
    # the EVICT 7 cycles after it (cycle 13) is taken and answered
    nb = rows["nonblocking_drops"]
    assert all(r.req_ready for r in nb if r.req_valid)
    presented = _presented(nb)
    assert [c for c, _, _ in presented] == [0, 1, 2, 3, 4, 5, 6, 12, 13]
    assert [c for c, _, dropped in presented if dropped] == [2, 3, 4, 12]
    assert _cycles(nb, lambda r: r.dropped) == [2, 3, 4, 12]
    last_observe = max(c for c, (op, _), _ in presented if op == "OBSERVE")
    assert last_observe == 6 and 12 - last_observe == timing.evict_gap
    drop_bit = regmap.STAT_NAMES.index("req_dropped")
    assert timing.drop_stat_lag == timing.stat_lag - 1
    assert _cycles(nb, lambda r: r.stat_inc >> drop_bit & 1) == \
        [c + timing.drop_stat_lag for c in (2, 3, 4, 12)]
    assert taken(nb)[-1] == (13, ("EVICT", 0))
    answered = responses(nb)
    assert [f["op"] for _, f in answered] == \
        [regmap.OPS[op] for op in ("OBSERVE", "OBSERVE", "QUERY", "OBSERVE", "EVICT")]
    assert answered[-1][0] == 13 + timing.latency

    # back-pressure: 21 credits (the FIFO's depth, latency + 2); a request is taken again
    # in the cycle after a response leaves; each response leaves once, in order (checked
    # against the golden model above: the k-th response answers line k)
    bp = rows["backpressure"]
    scenario = SCENARIOS["backpressure"]
    lines = [line for _, line in scenario.requests]
    assert [req[1] for _, req in taken(bp)] == lines == list(range(1, 27))
    assert len(responses(bp)) == len(lines)
    outstanding = max(sum(1 for c, _ in taken(bp) if c <= t) -
                      sum(1 for c, _ in responses(bp) if c < t) for t in range(len(bp)))
    assert outstanding == timing.fifo_depth == 21
    assert [c for c, _ in taken(bp) if c > 21][0] == scenario.rsp_stall[1] + 1

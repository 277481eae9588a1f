# SPDX-License-Identifier: Apache-2.0
"""The README's `make bench` and `make bench-nonblocking` figures are those of the kept runs.

``docs/bench/bench.json`` is what ``python -m tools.bench --cocotb --record
docs/bench/bench.json`` kept of one run (requests per cycle and latency per pattern, the
simulation speeds); ``docs/bench/bench_nonblocking.json`` is the ``--out`` of one
``python -m tools.bench_nonblocking`` run. Every row of the README's two tables, and its
simulation speeds, are checked against them here, so that a figure edited by hand, or a
rerun whose figures moved without the README, fails; and both records are of the default
configuration, bench.json's patterns those ``tools.bench`` runs now (a pattern added or
renamed without a rerun fails; the non-blocking bench has no list of its patterns to hold
its record to).

docs/rtl-predictor.md's throughput tables are held the same way to the predictor build's
kept runs: ``docs/bench/bench_predictor.json`` (the ``--out`` of ``python -m
tools.bench_predictor --config medium --requests 1500``) and
``docs/bench/bench_nonblocking_predictor.json`` (the ``--out`` of ``python -m
tools.bench_nonblocking --predictor``)."""

import json
from pathlib import Path

import pytest

from regmap import Params
from tests.docs_text import grouped, table_rows
from tools import bench

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "bench"

#: The README's throughput rows, by their first cell, and the patterns each one quotes.
THROUGHPUT_ROWS = {
    "OBSERVE hits to random tracked lines": ("observe_hit_random",),
    "OBSERVE misses that insert": ("observe_miss_insert",),
    "OBSERVE of the same line back to back": ("observe_same_line",),
    "OBSERVE of lines colliding in one window": ("observe_window_collisions",),
    "QUERY, random lines": ("query_random",),
    "QUERY / OBSERVE alternating on one line": ("query_observe_same_line",),
    "EVICT / EVICT_ANY back to back": ("evict_t0_back_to_back", "evict_any_back_to_back"),
    "EVICT_ANY among QUERYs (one in seven)": ("evict_any_between_queries",),
    "EVICT_ANY / OBSERVE alternating": ("evict_any_observe_alternating",),
    "the streaming-video KV trace (QUERY + OBSERVE per read, GC EVICTs), its first 20 000 requests back to back":
        ("video_kv_trace",),
}

#: The README's non-blocking rows, by the start of their first cell, and the pattern each
#: one quotes (the last: the stream after a wrapping reset, in the two reset modes).
NONBLOCKING_ROWS = {
    "256 EVICT_ANY": "evict_any_back_to_back",
    "video trace with GC": "video_kv_trace",
    "the same with a FLUSH every 500 cycles": "video_kv_trace_flush_every_500",
    "the same with a COMMIT every 500 cycles": "video_kv_trace_commit_every_500",
    "712 OBSERVE / QUERY from cycle 0 after a reset that wraps": "reset_sweep",
}


def _record(name: str) -> dict:
    return json.loads((RECORD / name).read_text())


def _table(heading: str) -> dict[str, list[str]]:
    """The README's table whose header row starts with ``heading``: first cell -> the rest."""
    return table_rows((ROOT / "README.md").read_text(), f"| {heading} |")


def test_the_records_are_of_the_default_configuration_and_the_benches_patterns():
    default = Params().as_dict()
    throughput = _record("bench.json")
    assert throughput["params"] == default
    assert set(throughput) == set(bench.RECORD_KEYS)
    assert set(throughput["patterns"]) == set(bench.patterns(Params(), 8))
    nonblocking = _record("bench_nonblocking.json")
    assert nonblocking["params"] == default
    assert nonblocking["config"] == "default" and not nonblocking["predictor"]


def test_the_throughput_table_quotes_the_record():
    patterns = _record("bench.json")["patterns"]
    rows = _table("pattern")
    assert set(rows) == set(THROUGHPUT_ROWS), "README rows and THROUGHPUT_ROWS differ"
    quoted = [name for names in THROUGHPUT_ROWS.values() for name in names]
    assert sorted(quoted) == sorted(patterns), "every pattern of the record, in one row"
    for label, names in THROUGHPUT_ROWS.items():
        rate, latency = rows[label]
        for name in names:
            p = patterns[name]
            if "first" in label:            # a part of a longer stream: the label says how much
                assert f"first {grouped(p['requests'])} requests" in label, (label, p)
            assert f"{p['requests_per_cycle']:.3f}" == rate, (label, name, p, rate)
            # (a fixed latency: every response of the pattern took the same)
            assert p["latency_cycles_min"] == p["latency_cycles_max"] == int(latency), (
                label, name, p, latency)


def test_the_simulation_speeds_quote_the_record():
    speed = _record("bench.json")["simulation_speed"]
    text = " ".join((ROOT / "README.md").read_text().split())
    start = text.index("Simulation speed on this 2-core machine")
    paragraph = text[start:text.index("The speeds move", start)]
    assert "docs/bench/bench.json" in paragraph
    assert f"golden model {speed['golden_model_req_per_s'] / 1e6:.2f} M requests/s" in paragraph
    assert f"in the C++ harness {speed['fast_harness_req_per_s'] / 1e6:.2f} M requests/s" in paragraph
    assert f"{grouped(speed['cocotb_verilator_req_per_s'])} requests/s on Verilator" in paragraph


def _nonblocking_cells(record: dict, pattern: str) -> tuple[str, str]:
    """The blocking and non-blocking cells of ``pattern``'s row, as the record has them."""
    if pattern == "reset_sweep":
        blocking, nonblocking = (record["reset_sweep"][f"mode_reset={m}"] for m in (0, 1))
    else:
        blocking, nonblocking = (record["patterns"][m][pattern]
                                 for m in ("blocking", "nonblocking"))
    assert blocking["dropped"] == 0 and nonblocking["not_ready_cycles"] == 0
    return (str(blocking["not_ready_cycles"]),
            f"{grouped(nonblocking['taken'])} / {grouped(nonblocking['dropped'])}, 0")


def test_the_nonblocking_table_quotes_the_record():
    record = _record("bench_nonblocking.json")
    rows = _table("pattern (presented back to back)")
    assert len(rows) == len(NONBLOCKING_ROWS)
    for start, pattern in NONBLOCKING_ROWS.items():
        (label,) = [r for r in rows if r.startswith(start)]
        assert rows[label] == list(_nonblocking_cells(record, pattern)), (label, pattern)
    # the video rows' length, and the reset row's count of requests
    assert f"{grouped(record['requests'])} requests" in next(
        r for r in rows if r.startswith("video trace with GC"))
    assert record["reset_sweep"]["mode_reset=1"]["presented"] == 712


@pytest.mark.parametrize("mode", ["blocking", "nonblocking"])
def test_the_nonblocking_record_is_of_a_checked_run(mode):
    # every drop the testbench saw is one the block counted, and the post-reset streams
    # met no mismatch with the model
    record = _record("bench_nonblocking.json")
    for name, p in record["patterns"][mode].items():
        assert p["dropped"] == p["stat_req_dropped"], (mode, name, p)
        # (a non-blocking block is ready in every cycle: each request presented is taken
        # or dropped)
        assert (p["taken"] + p["dropped"] == p["presented"]) == (mode == "nonblocking"), (
            mode, name, p)
    for name, s in record["reset_sweep"].items():
        assert s["mismatches"] == 0 and s["dropped"] == s["stat_req_dropped_model"], (name, s)


# ---- docs/rtl-predictor.md's throughput tables: the predictor build's kept runs ----------

#: docs/rtl-predictor.md's throughput rows ("The core with the mode"), by their first cell,
#: and the patterns of ``docs/bench/bench_predictor.json`` each one quotes.
PREDICTOR_ROWS = {
    "OBSERVE (hits, inserts, one line, one window)": (
        "observe_hit_random", "observe_miss_insert", "observe_same_line",
        "observe_window_collisions"),
    "QUERY random": ("query_random",),
    "QUERY and OBSERVE of one line": ("query_observe_same_line",),
    "EVICT_ANY back to back": ("evict_any_back_to_back",),
    "EVICT_ANY among QUERYs": ("evict_any_between_queries",),
    "EVICT_ANY and OBSERVE alternating": ("evict_any_observe_alternating",),
    "EVICT back to back": ("evict_t0_back_to_back",),
    "video KV trace (its GC EVICTs among the OBSERVEs and QUERYs)": ("video_kv_trace",),
}

#: Its ``MODE.NONBLOCKING`` rows, by the start of their first cell, and the pattern of
#: ``docs/bench/bench_nonblocking_predictor.json`` each one quotes.
PREDICTOR_NONBLOCKING_ROWS = {
    "EVICT_ANY back to back (256)": "evict_any_back_to_back",
    "video trace with its GC EVICTs": "video_kv_trace",
    "the same with a FLUSH every 500 cycles": "video_kv_trace_flush_every_500",
    "the same with a COMMIT every 500 cycles": "video_kv_trace_commit_every_500",
}


def _predictor_page() -> str:
    return (ROOT / "docs" / "rtl-predictor.md").read_text()


def test_the_predictor_records_are_of_the_pages_runs():
    from hdl.core import CoreOptions
    from verif.predictor_soak import CONFIGS
    record = _record("bench_predictor.json")
    assert record["config"] == "medium"
    assert record["params"] == CONFIGS["medium"].as_dict()
    assert record["options"] == CoreOptions(predictor=True, protection="none").as_dict()
    # the patterns of tools.bench (those its own record holds to the bench, above)
    assert set(record["patterns"]) == set(_record("bench.json")["patterns"])
    assert max(p["policy1"]["requests"] for p in record["patterns"].values()) == 1500
    nonblocking = _record("bench_nonblocking_predictor.json")
    assert nonblocking["params"] == Params().as_dict()
    assert nonblocking["config"] == "default" and nonblocking["predictor"]
    assert nonblocking["requests"] == 3000 and nonblocking["seed"] == 1
    text = " ".join(_predictor_page().split())
    assert ("python -m tools.bench_predictor --config medium --requests 1500 --out "
            "docs/bench/bench_predictor.json") in text
    assert ("python -m tools.bench_nonblocking --predictor --out "
            "docs/bench/bench_nonblocking_predictor.json") in text


def test_the_predictor_throughput_table_quotes_the_record():
    patterns = _record("bench_predictor.json")["patterns"]
    rows = table_rows(_predictor_page(), "| pattern (tools.bench) |")
    assert set(rows) == set(PREDICTOR_ROWS), "page rows and PREDICTOR_ROWS differ"
    quoted = [name for names in PREDICTOR_ROWS.values() for name in names]
    assert sorted(quoted) == sorted(patterns), "every pattern of the record, in one row"
    for label, names in PREDICTOR_ROWS.items():
        mode0, mode1, cycles1 = rows[label]
        for name in names:
            p0, p1 = patterns[name]["policy0"], patterns[name]["policy1"]
            assert f"{p0['requests_per_cycle']:.3f}" == mode0, (label, name, p0, mode0)
            assert f"{p1['requests_per_cycle']:.3f}" == mode1, (label, name, p1, mode1)
            assert f"{p1['cycles_per_request']:.2f}" == cycles1, (label, name, p1, cycles1)
    # "Latency is 19 cycles for every op in both policies."
    latencies = {p[policy][k] for p in patterns.values() for policy in ("policy0", "policy1")
                 for k in ("latency_cycles_min", "latency_cycles_max")}
    (latency,) = latencies
    assert (f"Latency is {latency} cycles for every op in both policies"
            in " ".join(_predictor_page().split()))


def test_the_predictor_nonblocking_table_quotes_the_record():
    record = _record("bench_nonblocking_predictor.json")["patterns"]
    rows = table_rows(_predictor_page(), "| pattern | `POLICY.MODE = 0`: taken / dropped")
    assert len(rows) == len(PREDICTOR_NONBLOCKING_ROWS)

    def cell(p):
        assert p["not_ready_cycles"] == 0 and p["taken"] + p["dropped"] == p["presented"]
        assert p["dropped"] == p["stat_req_dropped"]        # every drop counted by the block
        return (f"{grouped(p['taken'])} / {grouped(p['dropped'])}, "
                f"{p['taken_fraction_of_cycles']:.3f}")
    for start, pattern in PREDICTOR_NONBLOCKING_ROWS.items():
        (label,) = [r for r in rows if r.startswith(start)]
        assert rows[label] == [cell(record["nonblocking"][pattern]),
                               cell(record["predictor_nonblocking"][pattern])], (label, pattern)
    # the blocking run of the video trace, in the sentence after the table
    text = " ".join(_predictor_page().split())
    mode0, mode1 = (record[m]["video_kv_trace"] for m in ("blocking", "predictor_blocking"))
    assert mode0["taken"] == mode1["taken"] == 3000
    assert (f"the video trace takes {grouped(mode0['cycles'])} cycles for its "
            f"{grouped(mode0['taken'])} requests with `POLICY.MODE = 0` "
            f"({mode0['not_ready_cycles']} not-ready cycles) and {grouped(mode1['cycles'])} "
            f"with `POLICY.MODE = 1` ({mode1['not_ready_cycles']})") in text

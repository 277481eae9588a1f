# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU performance report: throughput, latency, Fmax, resources, simulation speed.

``python -m tools.bench --out build/bench.json [--fpga] [--cocotb] [--asic-dir build]``

* Requests per cycle and latency, measured cycle-accurately on the Verilated RTL (the fast
  C++ harness, response consumer always ready) for each access pattern of the benchmark,
  every response checked against the golden model while at it. Requests per cycle is the
  rate between a pattern's first acceptance and its last (:func:`acceptance_rate`).
* Fmax and resources from the FPGA flow's reports (``build/fpga/*/report.json``; with
  ``--fpga`` the flow is run first; ``--fpga-dir docs/fpga/reports --asic-dir docs/asic``
  reads the kept ones), and the derived lookups per second (at the kept
  placement's Fmax, the best seed's, and at the worst seed's).
* The ASIC estimates ``make asic`` and ``make asic-predictor`` left
  (``build/asic/report.json``, ``build/asic-unprotected/report.json``,
  ``build/asic-predictor/report.json``): area, the period each closes at, power, latency.
* Simulation speed: requests per second through the golden model, the fast harness, and
  (with ``--cocotb``) cocotb on Verilator (the ``random_mix`` test, default configuration).

Prints a table and writes every figure to one JSON file. Nothing here passes or fails on
a wall-clock time. ``--record docs/bench/bench.json`` also writes the run's parts that no
other kept record has (:data:`RECORD_KEYS`: the FPGA and ASIC figures are kept as their
flows' reports in ``docs/fpga/`` and ``docs/asic/``): the file the README's throughput table
and simulation speeds quote, and a test holds them to it.

The JSON's keys:

* ``params``: the build's parameters (``regmap.Params``, the default configuration).
* ``patterns``: per pattern of :func:`patterns`, ``requests`` (the requests measured:
  ``--requests``, fewer where the pattern runs out of lines, and always ``ENTRIES / 4`` for
  ``evict_any_back_to_back``), ``cycles`` (the last acceptance's cycle minus the first's:
  19 999 for 20 000 requests taken one per cycle), ``requests_per_cycle`` (``(requests -
  1) / cycles``, :func:`acceptance_rate`; null for a single request), ``latency_cycles_min``
  / ``latency_cycles_max`` (cycles from a request's acceptance to its response's
  handshake; every request is offered at cycle 0, so the wait before acceptance is not
  in it).
* ``fpga``: per target of the FPGA reports in ``--fpga-dir``, their key figures
  (``fmax_mhz``, ``latency_cycles``, ``resources``... as the flow wrote them: ``fmax_mhz``
  is the kept placement's, the best of the seeds tried, ``timing_pass`` the flow's verdict
  (on every seed for a target that must pass on every seed), and ``placements`` lists every
  seed's); for the targets of the core also
  ``lookups_per_second``: ``kept_placement`` (at the kept placement's Fmax, seed
  ``kept_seed``, whether or not it meets the target: ``timing_pass``, the report's, and
  ``timing_pass_by_seed`` say), ``worst_placement`` (at the lowest Fmax of the seeds that
  placed), ``by_seed`` (seed -> lookups per second, null for a seed that failed) and
  ``requests_per_cycle`` (the slowest OBSERVE / QUERY pattern's rate, which every figure
  there multiplies). Each target's ``netlist`` is the netlist its report placed and
  ``netlist_current`` whether the sources build that netlist now
  (:func:`netlist_currency`): false for a report older than the RTL it would describe,
  whose figures are then of another design. ``fpga`` is null when there is no report,
  and then ``fpga_missing`` says where none was found and how to make them.
* ``asic``: per folder of :data:`ASIC_FOLDERS` in ``--asic-dir`` (:func:`asic_reports`):
  ``area_mm2`` / ``area_um2``, ``cells``, ``closing_period_ns``, ``fmax_mhz``,
  ``worst_path``, ``power_mw`` at ``power_activity``, ``latency_cycles`` / ``latency_ns``;
  null when there is none, and then ``asic_missing`` says why.
* ``simulation_speed``: ``golden_model_req_per_s``, ``fast_harness_req_per_s``,
  ``fast_harness_cycles_per_s`` and, with ``--cocotb``, ``cocotb_verilator_req_per_s``:
  one wall-clock sample each (they move with the machine's load).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import mmh3
import numpy as np

from golden_model import KvAsuModel
from regmap import OPS, Params
from regmap.arguments import check_writable, int_range
from verif import fast

OBSERVE, QUERY, EVICT, EVICT_ANY = (OPS[k] for k in ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY"))

__all__ = ["RECORD_KEYS", "patterns", "acceptance_rate", "rate_between", "rounded", "shown",
           "measure_patterns", "lookups_per_second", "hardware_reports", "asic_reports",
           "ASIC_FOLDERS", "ASIC_RECORDS", "main"]

#: The folders of ``--asic-dir`` that hold ASIC estimates: ``make asic``'s and ``make
#: asic-predictor``'s ``--out`` (any other folder there is not read).
ASIC_FOLDERS = ("asic", "asic-unprotected", "asic-predictor")

#: The kept ASIC records (``docs/asic/<name>.json``, the flat layout) of each folder of
#: :data:`ASIC_FOLDERS`: ``--asic-dir docs/asic`` reads them.
ASIC_RECORDS = {"asic": "protected", "asic-unprotected": "unprotected",
                "asic-predictor": "predictor"}

#: The parts of a run's report that ``--record`` keeps.
RECORD_KEYS = ("params", "patterns", "simulation_speed")


def _lines_in_window(params: Params, rng: random.Random, n: int) -> list[int]:
    """``n`` tags (drawn from ``rng``) whose home slot under hash seed 0 is the same."""
    target, tags = rng.randrange(params.ENTRIES), []
    while len(tags) < n:
        tag = rng.getrandbits(params.TAG_WIDTH)
        if mmh3.hash(tag.to_bytes(8, "little"), 0, signed=False) % params.ENTRIES == target:
            tags.append(tag)
    return tags


def patterns(params: Params, n: int, seed: int = 1) -> dict[str, tuple[list, list]]:
    """Each pattern: (warm-up requests, measured requests) as (cycle, op, addr, min_tlevel),
    for the block built with ``params``: ``n`` measured requests (fewer where a pattern
    runs out of lines: the misses that insert, the EVICT_ANYs of the tracked lines), the
    lines drawn from ``seed``.

    Every request is offered at cycle 0 (so as early as the DUT takes it): the measured
    rate is the DUT's, not the stimulus's.
    """
    rng = random.Random(seed)
    shift = params.LINE_SHIFT
    addr = lambda tag: tag << shift                                   # noqa: E731
    tracked = [rng.getrandbits(params.TAG_WIDTH) for _ in range(params.ENTRIES // 4)]
    warm = [(0, OBSERVE, addr(t), 0) for t in tracked]
    fresh = [rng.getrandbits(params.TAG_WIDTH) for _ in range(min(n, params.ENTRIES // 2))]
    window = _lines_in_window(params, rng, params.PROBE)
    video = _video_requests(params, n)
    return {
        "observe_hit_random": (warm, [(0, OBSERVE, addr(rng.choice(tracked)), 0) for _ in range(n)]),
        "observe_miss_insert": ([], [(0, OBSERVE, addr(t), 0) for t in fresh]),
        "observe_same_line": (warm[:1], [(0, OBSERVE, addr(tracked[0]), 0)] * n),
        "observe_window_collisions": ([], [(0, OBSERVE, addr(rng.choice(window)), 0)
                                           for _ in range(n)]),
        "query_random": (warm, [(0, QUERY, addr(rng.choice(tracked + fresh)), rng.randrange(4))
                                for _ in range(n)]),
        "query_observe_same_line": (warm[:1], [(0, QUERY if i % 2 else OBSERVE,
                                                addr(tracked[0]), 0) for i in range(n)]),
        "evict_any_back_to_back": (warm, [(0, EVICT_ANY, 0, 0)] * len(warm)),
        # an EVICT_ANY among QUERYs (which move no LRU tail): one request per cycle
        "evict_any_between_queries": (warm, [
            (0, EVICT_ANY, 0, 0) if i % 7 == 0 else
            (0, QUERY, addr(rng.choice(tracked + fresh)), rng.randrange(4))
            for i in range(min(n, 7 * len(warm)))]),
        # EVICT_ANY and OBSERVE alternating: the OBSERVE right behind an EVICT waits for
        # nothing, the EVICT behind an OBSERVE for the EVICT gap
        "evict_any_observe_alternating": (warm, [
            (0, EVICT_ANY, 0, 0) if i % 2 == 0 else (0, OBSERVE, addr(rng.choice(fresh)), 0)
            for i in range(n)]),
        # EVICT (pops the tail only if it is cold, T0) back to back: the first ones pop the
        # warm-up's lines, then (by design) most of the n find the list empty; an EVICT's
        # gap, so its rate, does not depend on whether it pops, and evict_any_back_to_back
        # measures EVICTs that all pop
        "evict_t0_back_to_back": (warm, [(0, EVICT, 0, 0)] * n),
        "video_kv_trace": ([], video),
    }


def _video_requests(params: Params, n: int) -> list:
    """The first ``n`` requests of the built-in streaming-video KV stream (``make sim``'s:
    QUERY + OBSERVE per KV read, OBSERVE per write, background and per-frame EVICTs),
    presented back to back."""
    from evaluation.workload import video_kv_requests
    _cycle, op, addr, mt, _frame = video_kv_requests()
    mask = (1 << params.ADDR_WIDTH) - 1
    return [(0, int(o), int(a) & mask, int(t)) for o, a, t in zip(op[:n], addr[:n], mt[:n])]


def acceptance_rate(accept_cycles) -> float | None:
    """Requests per cycle of a run from the cycles its requests were accepted at: the rate
    between the first and the last acceptance, ``(n - 1) / (last - first)`` (``n`` requests
    accepted one every ``k`` cycles give exactly ``1 / k``; counting the cycles from the
    first to the last inclusive, ``n / (last - first + 1)``, would give ``n / (k(n - 1) + 1)``).
    ``None`` for fewer than two requests: one acceptance has no rate."""
    cycles = [int(c) for c in accept_cycles]
    return rate_between(len(cycles), cycles[-1] - cycles[0] if cycles else 0)


def rate_between(requests: int, cycles: int) -> float | None:
    """Requests per cycle of ``requests`` accepted over ``cycles`` cycles from the first
    acceptance to the last: ``(requests - 1) / cycles`` (:func:`acceptance_rate`); None
    for fewer than two requests, ``ValueError`` for acceptances not increasing."""
    if requests < 2:
        return None
    if cycles <= 0:
        raise ValueError(f"{requests} acceptances over {cycles} cycles: not increasing")
    return (requests - 1) / cycles


def rounded(rate: float | None, digits: int) -> float | None:
    """``rate`` rounded to ``digits`` decimals for the JSON; None stays None."""
    return None if rate is None else round(rate, digits)


def shown(rate: float | None) -> str:
    """``rate`` as the benches print it, six characters wide; ``-`` for no rate."""
    return "     -" if rate is None else f"{rate:6.3f}"


def measure_patterns(params: Params, exe: Path, n: int, seed: int = 1) -> dict:
    """Requests per cycle and latency of each pattern of :func:`patterns` (``n`` requests,
    lines drawn from ``seed``) on the harness ``exe`` built for ``params``, checked against
    the golden model: every response, and its cycle (the consumer is always ready, so each
    response comes exactly when the build's latency and the response ahead allow)."""
    results = {}
    latency = fast.build_latency(params)
    for name, (warm, measured) in patterns(params, n, seed).items():
        if not measured:
            continue
        requests = warm + measured
        # Idle between warm-up and measurement so the pipeline is empty when timing starts.
        axi = [fast.AxiOp("barrier", len(warm)), fast.AxiOp("release")] if warm else []
        result = fast.run(exe, params, requests, axi)
        fast.check(params, KvAsuModel(params), requests, axi, result, latency=latency,
                   always_ready=True)
        acc = result.accept_cycle[len(warm):].astype(np.int64)
        lat = (result.response_cycle - result.accept_cycle)[len(warm):].astype(np.int64)
        rate = acceptance_rate(acc)
        results[name] = {
            "requests": len(measured),
            "cycles": int(acc[-1] - acc[0]),        # from the first acceptance to the last
            "requests_per_cycle": rounded(rate, 4),
            "latency_cycles_min": int(lat.min()),
            "latency_cycles_max": int(lat.max()),
        }
        print(f"  {name:28s} {shown(rate)} req/cycle   "
              f"latency {lat.min()}..{lat.max()} cycles", flush=True)
    return results


def lookups_per_second(report: dict, patterns: dict) -> dict:
    """Lookups per second of the FPGA ``report`` (one target's, as :func:`_fpga_reports`
    keeps it) at the rate of the slowest OBSERVE / QUERY pattern of ``patterns`` (as
    :func:`measure_patterns` returns them): at the kept placement's Fmax (the best of the
    seeds tried, met or not: ``timing_pass`` is the report's, ``timing_pass_by_seed`` each
    seed's), at the lowest Fmax of the seeds that placed, and per seed (None for a seed
    that failed). Every figure is None without such a rate."""
    rates = [p["requests_per_cycle"] for name, p in patterns.items()
             if name.startswith(("observe", "query")) and p["requests_per_cycle"] is not None]
    rate = min(rates) if rates else None
    kept = min(report["fmax_mhz"].values())
    seeds = report.get("placements") or []
    by_seed = {str(x["seed"]): (None if x.get("status") == "failed" else x["fmax_mhz"])
               for x in seeds}
    placed = [f for f in by_seed.values() if f is not None]
    at = (lambda mhz: None if rate is None or mhz is None else mhz * 1e6 * rate)  # noqa: E731
    return {"kept_placement": at(kept), "worst_placement": at(min(placed) if placed else kept),
            "by_seed": {seed: at(f) for seed, f in by_seed.items()},
            "timing_pass": report.get("timing_pass"),
            "timing_pass_by_seed": {str(x["seed"]): bool(x.get("timing_pass")) for x in seeds},
            "kept_seed": report.get("seed"), "requests_per_cycle": rate}


def hardware_reports(fpga_dir: Path, asic_dir: Path) -> dict:
    """The ``fpga`` and ``asic`` parts of the JSON: the reports found under ``fpga_dir``
    (:func:`_fpga_reports`) and ``asic_dir`` (:func:`asic_reports`); a part with no
    report is None, with ``fpga_missing`` / ``asic_missing`` saying where none was found
    and how to make them."""
    out: dict = {"fpga": _fpga_reports(fpga_dir) or None,
                 "asic": asic_reports(asic_dir) or None}
    if out["fpga"] is None:
        out["fpga_missing"] = (f"no reports in {fpga_dir} (<target>/report.json or "
                               f"<target>.json): run make fpga, or pass --fpga, or --fpga-dir "
                               f"where the flow wrote them (docs/fpga/reports: the kept ones)")
    if out["asic"] is None:
        out["asic_missing"] = (f"no reports in {asic_dir} ({', '.join(ASIC_FOLDERS)}: "
                               f"<folder>/report.json; or {', '.join(ASIC_RECORDS.values())}"
                               f".json): run make asic or make asic-predictor, or pass "
                               f"--asic-dir where they wrote them (docs/asic: the kept ones)")
    return out


def _fpga_reports(root: Path) -> dict:
    """The FPGA reports under ``root``: ``<target>/report.json`` as the flow writes them, or
    ``<target>.json`` as ``docs/fpga/reports`` keeps them."""
    out = {}
    for report in sorted([*root.glob("*/report.json"), *root.glob("*.json")]):
        data = json.loads(report.read_text())
        if not isinstance(data, dict) or "target" not in data or "fmax_mhz" not in data:
            continue
        out[data["target"]] = {k: data.get(k) for k in (
            "design", "description", "params", "options", "latency_cycles", "latency_ns",
            "fmax_mhz", "target_mhz", "timing_pass", "resources", "critical_path", "seed",
            "placements", "speed_grades", "netlist")}
    return out


def netlist_currency(fpga: dict, current=None) -> list[str]:
    """Mark each target of ``fpga`` (as :func:`_fpga_reports` returns them) with
    ``netlist_current``: whether its report's ``netlist`` is the one the sources build now
    (``current(target)``, by default :func:`fpga.placements.current_netlist`, which
    elaborates the target without synthesis); None where the report names no netlist or the
    flow no longer has the target. Returns the targets whose report is of another netlist."""
    if current is None:
        from fpga.placements import current_netlist as current
    stale = []
    for target, data in fpga.items():
        try:
            now = current(target)
        except ValueError:          # a target the flow no longer builds
            now = None
        data["netlist_current"] = (None if now is None or data.get("netlist") is None
                                   else data["netlist"] == now)
        if data["netlist_current"] is False:
            stale.append(target)
    return stale


def asic_reports(root: Path) -> dict:
    """The key figures of the ASIC estimates under ``root`` (``<folder>/report.json`` of each
    of :data:`ASIC_FOLDERS` that has one, as ``python -m asic.flow`` writes them, or its
    kept record ``<name>.json`` of :data:`ASIC_RECORDS`, as ``docs/asic`` has them), by
    folder name."""
    out = {}
    for folder in ASIC_FOLDERS:
        report = next((r for r in (root / folder / "report.json",
                                   root / f"{ASIC_RECORDS[folder]}.json") if r.is_file()), None)
        if report is None:
            continue
        data = json.loads(report.read_text())
        timing, power = data["timing"], data["power"]
        out[folder] = {
            "params": data["params"], "options": data.get("options"),
            "area_mm2": round(data["area_um2"]["total"] / 1e6, 4),
            "area_um2": data["area_um2"], "cells": {k: data["cells"][k] for k in
                                                     ("std_cells", "flops", "macros")},
            "closing_period_ns": timing["closing_period_ns"], "fmax_mhz": timing["fmax_mhz"],
            "worst_path": {k: timing["worst_path"][k] for k in
                           ("start", "end", "arrival_ns", "setup_ns")},
            "power_mw": power["total_mw"], "power_activity": power["activity"],
            "latency_cycles": data["latency_cycles"],
            "latency_ns": data["lookup_latency_ns"],
        }
    return out


def _model_speed(params: Params, n: int = 300_000, seed: int = 1) -> float:
    rng = np.random.default_rng(seed)
    cycles = np.cumsum(rng.integers(0, 3, n)).astype(np.uint64)
    ops = rng.choice([OBSERVE] * 6 + [QUERY] * 3 + [EVICT], n).astype(np.uint64)
    addrs = (rng.integers(0, params.ENTRIES * 2, n).astype(np.uint64) << np.uint64(params.LINE_SHIFT))
    model = KvAsuModel(params)
    start = time.perf_counter()
    model.run(cycles, ops, addrs)
    return n / (time.perf_counter() - start)


def cocotb_speed() -> dict:
    """Requests checked per second of the cocotb ``random_mix`` test on Verilator, default
    configuration (testbench, scoreboard and golden model included): the run of
    ``verif/test_kv_asu.py``, which holds the Verilator runs (Icarus is not measured)."""
    import os
    import re
    env = {**os.environ, "KVASU_CONFIGS": "default", "KVASU_TESTS": "random_mix"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                           "verif/test_kv_asu.py"], env=env, capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    out = {}
    for sim, secs, n in re.findall(r"\[(\w+)-default\] build [\d.]+s, tests ([\d.]+)s, "
                                   r"(\d+) requests checked", proc.stdout + proc.stderr):
        out[f"cocotb_{sim}_req_per_s"] = round(int(n) / float(secs))
    if proc.returncode or not out:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        raise SystemExit("cocotb speed run failed")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("build/bench.json"),
                    help="the JSON file to write every figure of the run to (default "
                         "build/bench.json; its keys: above)")
    quarter = Params().ENTRIES // 4
    ap.add_argument("--requests", type=int_range(1), default=20_000, metavar="N",
                    help="measured requests per pattern (default 20000), at most: "
                         "observe_miss_insert takes at most ENTRIES / 2 and "
                         "evict_any_between_queries at most 7 x ENTRIES / 4, and "
                         f"evict_any_back_to_back always ENTRIES / 4 ({quarter}), whatever N; "
                         "the JSON has each pattern's count")
    ap.add_argument("--fpga", action="store_true",
                    help="run the FPGA flow first (hours), into --fpga-dir")
    ap.add_argument("--fpga-dir", type=Path, default=Path("build/fpga"),
                    help="where the FPGA flow's reports are, <target>/report.json each "
                         "(default build/fpga, make fpga's) or <target>.json (the kept "
                         "docs/fpga/reports); none: the JSON's fpga is null and fpga_missing "
                         "says so")
    ap.add_argument("--build", type=Path, default=Path("build/bench"),
                    help="the folder of the Verilated fast harness (default build/bench; "
                         "an existing build is reused). --cocotb builds in "
                         "build/verif/verilator-default whatever this is, the folder make "
                         "test and make bench-nonblocking use too")
    ap.add_argument("--asic-dir", type=Path, default=Path("build"),
                    help="where make asic / make asic-predictor wrote their folders ("
                         + ", ".join(ASIC_FOLDERS) + "; default build), or docs/asic, the "
                         "kept records (" + ", ".join(f"{n}.json" for n in ASIC_RECORDS.values())
                         + ")")
    ap.add_argument("--cocotb", action="store_true",
                    help="also measure cocotb on Verilator (random_mix test)")
    ap.add_argument("--record", type=Path, default=None,
                    help="also write the run's " + ", ".join(RECORD_KEYS) + " here (the kept "
                         "record is docs/bench/bench.json; needs --cocotb)")
    args = ap.parse_args(argv)
    if args.record is not None and not args.cocotb:
        ap.error("--record keeps the cocotb speed too: pass --cocotb")
    # (before the measurement: the JSON is written at the end)
    check_writable(args.out, "--out")
    if args.record is not None:
        check_writable(args.record, "--record")
    check_writable(args.build, "--build", folder=True)
    if args.fpga:
        check_writable(args.fpga_dir, "--fpga-dir", folder=True)
    params = Params()
    report: dict = {"params": params.as_dict()}

    print(f"building the Verilated RTL in {args.build}", flush=True)
    exe = fast.build(params, args.build)
    print("throughput and latency (Verilated RTL, consumer always ready):", flush=True)
    report["patterns"] = measure_patterns(params, exe, args.requests)

    if args.fpga:
        from fpga.flow import main as fpga_main
        fpga_main(["--out", str(args.fpga_dir)])
    report.update(hardware_reports(args.fpga_dir, args.asic_dir))
    stale = []
    if report["fpga"] is not None:
        print("checking that the FPGA reports are of the netlists the sources build now",
              flush=True)
        stale = netlist_currency(report["fpga"])
    for target, data in (report["fpga"] or {}).items():
        if data.get("design", "kv_asu") != "kv_asu":
            continue        # the hash alone and the block-RAM reference answer no lookups
        fmax = min(data["fmax_mhz"].values())
        data["lookups_per_second"] = lookups = lookups_per_second(data, report["patterns"])
        res = ", ".join(f"{k} {v['used']}/{v['available']}" for k, v in data["resources"].items())
        ns = f" ({data['latency_ns']} ns)" if data.get("latency_ns") else ""
        # (a placement nextpnr failed to place or route has no Fmax)
        tried = ", ".join(f"seed {x['seed']}: " + ("failed" if x.get("status") == "failed"
                                                   else f"{x['fmax_mhz']:.1f}")
                          for x in data.get("placements") or [])
        print(f"{target}: Fmax {fmax:.1f} MHz (target {data['target_mhz']}; {tried}), "
              f"latency {data['latency_cycles']} cycles as built{ns}, {res}")
        if target in stale:
            print(f"  (of netlist {data['netlist']}, which the sources no longer build: "
                  f"the figures are of an earlier design; make fpga places the current one)")
        if lookups["kept_placement"] is not None:
            passes = lookups["timing_pass_by_seed"]
            met = [seed for seed, ok in passes.items() if ok]
            where = ("at no seed" if not met else "at every seed" if len(met) == len(passes)
                     else f"at seed{'s' * (len(met) > 1)} {', '.join(met)} only")
            print(f"  {lookups['kept_placement'] / 1e6:.1f} M lookups/s at the kept placement's "
                  f"Fmax (seed {lookups['kept_seed']}), {lookups['worst_placement'] / 1e6:.1f} "
                  f"M at the worst seed's; target met {where}")
    if report["fpga"] is None:
        print(f"(FPGA: {report['fpga_missing']})")

    for name, a in (report["asic"] or {}).items():
        o = a["options"] or {}
        print(f"{name} (protection {o.get('protection', '?')}"
              f"{', predictor' if o.get('predictor') else ''}): {a['area_mm2']} mm^2, "
              f"closes at {a['closing_period_ns']} ns ({a['fmax_mhz']} MHz), "
              f"{a['power_mw']:.1f} mW at activity {a['power_activity']}, "
              f"latency {a['latency_cycles']} cycles = {a['latency_ns']} ns")
    if report["asic"] is None:
        print(f"(ASIC: {report['asic_missing']})")

    speed = {"golden_model_req_per_s": round(_model_speed(params))}
    n = 200_000
    rng = random.Random(7)
    reqs = [(0, rng.choice((OBSERVE, QUERY)), rng.getrandbits(20) << params.LINE_SHIFT, 0)
            for _ in range(n)]
    res = fast.run(exe, params, reqs)
    fast.check(params, KvAsuModel(params), reqs, [], res, latency=fast.build_latency(params),
               always_ready=True)         # the speed run's answers are checked too
    speed["fast_harness_req_per_s"] = round(n / res.seconds)
    speed["fast_harness_cycles_per_s"] = round(res.cycles / res.seconds)
    if args.cocotb:
        print("measuring cocotb on Verilator (the random_mix test, a few minutes)", flush=True)
        speed.update(cocotb_speed())
    report["simulation_speed"] = speed
    print("simulation speed: " + ", ".join(f"{k} {v:,}" for k, v in speed.items()))

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    if args.record is not None:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(json.dumps({k: report[k] for k in RECORD_KEYS}, indent=2) + "\n")
        print(f"wrote {args.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

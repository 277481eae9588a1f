# SPDX-License-Identifier: Apache-2.0
"""The ECP5 core builds' figures in docs/fpga.md's "Measured" table are those of the kept
flow reports: ``docs/fpga/reports/<target>.json`` is the ``report.json`` of the `make fpga`
run of that target the table describes (its placements, the kept one's speed-8 figure, its
latency, resources and every group of paths that misses 100 MHz); ``ecp5-predictor.json``
is that of the predictor build's seed 1 and its speed-8 placement, which
docs/rtl-predictor.md quotes. Each row and paragraph, and the README's rows, are checked
against their report here, and each report against ``docs/fpga/placements.json`` (the same
netlist, the same Fmax per seed), so that a figure edited by hand, or a rerun whose figures
moved without the docs, fails."""

import json
import re
from pathlib import Path

import pytest

from tests.docs_text import grouped

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "docs" / "fpga" / "reports"
TARGETS = ("ecp5", "ecp5-unprotected")
#: with the predictor build's report (seed 1 and its speed-8 placement, quoted in
#: docs/rtl-predictor.md, "Placed: `ecp5-predictor`")
ALL = (*TARGETS, "ecp5-predictor")


def _report(target: str) -> dict:
    return json.loads((REPORTS / f"{target}.json").read_text())


def _row(target: str) -> str:
    """docs/fpga.md's "Measured" row of ``target`` (as it is), without Markdown emphasis."""
    text = (ROOT / "docs" / "fpga.md").read_text()
    start = text.index(f"| `{target}`, the build as it is")
    return text[start:text.index("\n", start)].replace("**", "")


def _placed(report: dict) -> dict[int, float]:
    return {p["seed"]: p["fmax_mhz"] for p in report["placements"] if p["status"] == "placed"}


@pytest.mark.parametrize("target", ALL)
def test_report_is_the_recorded_netlist(target):
    """The kept report's netlist and Fmax per seed are docs/fpga/placements.json's."""
    report = _report(target)
    record = json.loads((ROOT / "docs" / "fpga" / "placements.json").read_text())
    entries = {e["seed"]: e["fmax_mhz"] for e in record["placements"]
               if e["target"] == target and e["netlist"] == report["netlist"]
               and e["speed"] == report["speed"]}
    assert entries, f"docs/fpga/placements.json has no placement of {target}'s netlist {report['netlist']}"
    for seed, fmax in _placed(report).items():
        assert entries.get(seed) == fmax, (target, seed, fmax, entries.get(seed))


def _bare(name: str) -> str:
    """A path end as the docs name it: without Yosys's numbered instance suffixes (`$118`)."""
    return re.sub(r"\$\d+", "", name)


def _assert_group(target, groups, start, end, ns, endpoints=None):
    """A group of ``groups`` runs from ``start`` to ``end`` (the ends of its names) with
    worst delay ``ns`` (and ``endpoints`` endpoints, if given)."""
    assert any(_bare(g["start"]).endswith(start) and _bare(g["end"]).endswith(end)
               and g["worst_ns"] == float(ns)
               and (endpoints is None or g["endpoints"] == int(endpoints)) for g in groups), (
        f"{target}: `{start}` -> `{end}`, {ns} ns is no failing group of docs/fpga/reports/{target}.json")


@pytest.mark.parametrize("target", TARGETS)
def test_measured_row_quotes_the_report(target):
    report = _report(target)
    row = _row(target)
    cells = [c.strip() for c in row.strip("|").split("|")]
    fmax_cell, speed8_cell, latency_cell, lut_cell, ff_cell, bram_cell, dsp_cell = cells[1:8]
    for seed, fmax in _placed(report).items():
        assert f"seed {seed}: {fmax:.1f}" in fmax_cell, (target, seed, fmax, fmax_cell)
    # (the target counts as met only on every placement)
    assert ("not met" in fmax_cell) == (not report["every_placement_passes"]), fmax_cell
    kept = report["seed"]
    kept_fmax = _placed(report)[kept]
    grade = report["speed_grades"]["8"]
    assert grade["seed"] == kept
    assert f"seed {kept} (the kept placement): {grade['fmax_mhz']:.1f} MHz" in speed8_cell
    assert (f"{report['latency_cycles']} cycles = {report['latency_ns']:.1f} ns at "
            f"{kept_fmax:.1f} MHz ({grade['latency_ns']:.1f} ns at speed 8)") in latency_cell
    res = report["resources"]
    assert f"{grouped(res['lut']['used'])} LUT4 (TRELLIS_COMB) of {grouped(res['lut']['available'])}" in lut_cell
    assert ff_cell == grouped(res["ff"]["used"])
    assert f"{res['bram']['used']} DP16KD of {res['bram']['available']}" in bram_cell
    assert dsp_cell == str(res["dsp"]["used"])


@pytest.mark.parametrize("target", TARGETS)
def test_failing_paths_quoted_are_the_reports(target):
    """Every path the row names (`` `start` -> `end`, N ns``) is a group of the kept
    placement's ``failing_paths`` with that worst delay, and the count of endpoints and
    groups over 10 ns is the report's; a build that meets 100 MHz on its kept placement
    quotes its worst path as the kept Fmax's period."""
    report = _report(target)
    row = _row(target)
    groups = report.get("failing_paths", [])
    named = re.findall(r"`([^`]+)` -> `([^`]+)`, (\d+\.\d\d) ns", row)
    assert named, f"docs/fpga.md's {target} row names no path"
    if not groups:
        period = 1000.0 / _placed(report)[report["seed"]]
        assert [float(ns) for *_, ns in named] == [round(period, 2)], (named, period)
        return
    for start, end, ns in named:
        _assert_group(target, groups, start, end, ns)
    endpoints = sum(g["endpoints"] for g in groups)
    assert f"{endpoints} endpoints in {len(groups)} groups over 10 ns" in row


@pytest.mark.parametrize("target", ALL)
def test_readme_row_quotes_the_report(target):
    """The README's FPGA table row of ``target``: speed 8, latency and resources."""
    report = _report(target)
    text = (ROOT / "README.md").read_text()
    row = next(line for line in text.splitlines()
               if line.startswith("|") and f"`{target}`" in line).replace("**", "")
    kept = report["seed"]
    kept_fmax = _placed(report)[kept]
    grade = report["speed_grades"]["8"]
    res = report["resources"]
    for wanted in (f"{grade['fmax_mhz']:.1f} MHz (seed {kept}",
                   f"{report['latency_cycles']} cycles = {report['latency_ns']:.1f} ns at "
                   f"{kept_fmax:.1f} MHz ({grade['latency_ns']:.1f} ns at speed 8)",
                   f"| {grouped(res['lut']['used'])} LUT4 | {grouped(res['ff']['used'])} | "
                   f"{res['bram']['used']} DP16KD | {res['dsp']['used']} |"):
        assert wanted in row, f"README, {target}: {wanted!r} not in {row!r}"


def test_predictor_placed_paragraph_quotes_the_report():
    """docs/rtl-predictor.md, "Placed: `ecp5-predictor`": the kept seed's Fmax, speed 8,
    the count of endpoints and groups over 10 ns and each path it names with its worst
    delay and endpoints; and its cost table's latency row."""
    report = _report("ecp5-predictor")
    text = " ".join((ROOT / "docs" / "rtl-predictor.md").read_text().split())
    para = text[text.index("### Placed: `ecp5-predictor`"):text.index("What would shorten them")]
    para = para.replace("**", "")
    kept = report["seed"]
    kept_fmax = _placed(report)[kept]
    grade = report["speed_grades"]["8"]
    groups = report["failing_paths"]
    assert f"{kept_fmax:.1f} MHz on seed {kept}" in para
    assert f"{grade['fmax_mhz']:.1f} MHz on speed 8 (seed {kept})" in para
    endpoints = sum(g["endpoints"] for g in groups)
    assert f"Seed {kept}, the kept placement: {grouped(endpoints)} endpoints in {len(groups)} groups over 10 ns" in para
    named = re.findall(r"`([^`]+)` -> `([^`]+)`, (\d+\.\d\d) ns, (\d+) endpoints", para)
    assert len(named) >= 2, para
    for start, end, ns, n in named:
        _assert_group("ecp5-predictor", groups, start, end, ns, n)
    assert (f"{report['latency_cycles']} cycles = {report['latency_ns']:.1f} ns (seed {kept}, "
            f"{kept_fmax:.1f} MHz; {grade['latency_ns']:.1f} ns at speed 8)") in text

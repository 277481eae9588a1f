# SPDX-License-Identifier: Apache-2.0
"""``tools.bench``'s FPGA and ASIC part and its command line, without a Verilator build:
no report gives an explicit null and the reason, the kept records' flat layout is read,
and the lookups per second are given at the kept placement (the best seed's Fmax, met or
not) and at the worst seed's, each labelled so."""

import json
from pathlib import Path

import pytest

from tools import bench

ROOT = Path(__file__).resolve().parents[2]


def _patterns() -> dict:
    return json.loads((ROOT / "docs" / "bench" / "bench.json").read_text())["patterns"]


def test_no_reports_is_null_with_a_reason(tmp_path):
    got = bench.hardware_reports(tmp_path / "fpga", tmp_path / "asic")
    assert got["fpga"] is None and got["asic"] is None
    assert str(tmp_path / "fpga") in got["fpga_missing"] and "make fpga" in got["fpga_missing"]
    assert str(tmp_path / "asic") in got["asic_missing"] and "make asic" in got["asic_missing"]
    # the docstring's key list names what the JSON then holds
    for key in ("fpga_missing", "asic_missing", "lookups_per_second", "kept_placement",
                "worst_placement", "by_seed", "requests_per_cycle", "cycles"):
        assert f"``{key}``" in bench.__doc__, key


def test_the_kept_records_flat_layout_is_read():
    got = bench.hardware_reports(ROOT / "docs" / "fpga" / "reports", ROOT / "docs" / "asic")
    assert "fpga_missing" not in got and "asic_missing" not in got
    assert {"ecp5", "ecp5-unprotected"} <= set(got["fpga"])
    assert set(got["asic"]) == set(bench.ASIC_FOLDERS)
    for folder, name in bench.ASIC_RECORDS.items():
        kept = json.loads((ROOT / "docs" / "asic" / f"{name}.json").read_text())
        assert got["asic"][folder]["closing_period_ns"] == kept["timing"]["closing_period_ns"]


def test_lookups_per_second_at_the_kept_and_the_worst_placement():
    kept = json.loads((ROOT / "docs" / "fpga" / "reports" / "ecp5.json").read_text())
    report = bench.hardware_reports(ROOT / "docs" / "fpga" / "reports", ROOT / "nowhere")
    got = bench.lookups_per_second(report["fpga"]["ecp5"], _patterns())
    rate = got["requests_per_cycle"]
    assert rate == min(p["requests_per_cycle"] for name, p in _patterns().items()
                       if name.startswith(("observe", "query")))
    seeds = {str(x["seed"]): x["fmax_mhz"] for x in kept["placements"]}
    assert got["by_seed"] == {s: f * 1e6 * rate for s, f in seeds.items()}
    assert got["kept_placement"] == min(kept["fmax_mhz"].values()) * 1e6 * rate
    assert got["worst_placement"] == min(seeds.values()) * 1e6 * rate < got["kept_placement"]
    assert got["timing_pass"] is kept["timing_pass"]
    assert got["kept_seed"] == kept["seed"]
    assert got["timing_pass_by_seed"] == {str(x["seed"]): x["timing_pass"]
                                          for x in kept["placements"]}


def test_a_report_of_an_earlier_netlist_is_marked_so():
    """Each target is marked with whether the sources build its report's netlist now; a
    report without a netlist, or of a target the flow no longer has, is neither."""
    fpga = bench.hardware_reports(ROOT / "docs" / "fpga" / "reports", ROOT / "nowhere")["fpga"]
    kept = {t: d["netlist"] for t, d in fpga.items()}
    assert all(kept.values()), kept
    fpga["ecp5-old"] = {**fpga["ecp5"], "netlist": "0" * 12}
    fpga["ecp5-unnamed"] = {**fpga["ecp5"], "netlist": None}
    now = {**kept, "ecp5-unprotected": "f" * 12, "ecp5-old": "1" * 12, "ecp5-unnamed": "2" * 12}

    def current(target):
        if target not in now:
            raise ValueError(f"unknown target {target!r}")
        return now[target]

    del now["ecp5-predictor"]       # as if the flow had dropped it
    stale = bench.netlist_currency(fpga, current)
    assert sorted(stale) == ["ecp5-old", "ecp5-unprotected"]
    assert {t: d["netlist_current"] for t, d in fpga.items()} == {
        "ecp5": True, "ecp5-unprotected": False, "ecp5-predictor": None, "ecp5-old": False,
        "ecp5-unnamed": None}
    for key in ("netlist", "netlist_current"):
        assert f"``{key}``" in bench.__doc__, key


def test_a_failed_seed_has_no_figure():
    report = {"fmax_mhz": {"clk": 90.0}, "timing_pass": False, "placements": [
        {"seed": 1, "status": "placed", "fmax_mhz": 90.0},
        {"seed": 2, "status": "failed"}, {"seed": 3, "status": "placed", "fmax_mhz": 80.0}]}
    got = bench.lookups_per_second(report, {"query_random": {"requests_per_cycle": 0.5}})
    assert got["by_seed"] == {"1": 45e6, "2": None, "3": 40e6}
    assert (got["kept_placement"], got["worst_placement"]) == (45e6, 40e6)
    none = bench.lookups_per_second(report, {"evict_t0_back_to_back": {"requests_per_cycle": 0.25}})
    assert none["kept_placement"] is none["worst_placement"] is None


def test_help_names_the_module_and_describes_every_option(capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m tools.bench ")
    options = out[out.index("options:"):]
    for option in ("--out", "--requests", "--fpga ", "--fpga-dir", "--build", "--asic-dir",
                   "--cocotb", "--record"):
        line = next(x for x in options.splitlines() if x.strip().startswith(option))
        assert len(line.split()) > 2, f"{option} has no help"
    assert "evict_any_back_to_back always ENTRIES / 4" in " ".join(options.split())

# SPDX-License-Identifier: Apache-2.0
"""The ASIC figures the docs quote are those of the kept runs: ``docs/asic/*.json`` are the
``report.json`` files of the runs docs/asic.md describes (``make asic``, ``make
asic-predictor``), and every figure of docs/asic.md's table of the three builds, and of the
README's ASIC paragraph, is checked against them here, so that a figure edited by hand, or
a rerun whose figures moved without the docs, fails."""

import json
import re
from pathlib import Path

import pytest

from tests.docs_text import grouped, table_rows

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "asic"
# The table's columns, left to right, and the record each one quotes.
BUILDS = ("protected", "unprotected", "predictor")


def _record(build: str) -> dict:
    return json.loads((RECORD / f"{build}.json").read_text())


def _table_rows() -> dict[str, list[str]]:
    """docs/asic.md's table of the three builds: quantity -> its three cells."""
    return table_rows((ROOT / "docs" / "asic.md").read_text(), "| quantity | protected")


def _expected(r: dict) -> dict[str, list[str]]:
    """For each row of the table, the substrings its cell of the record ``r`` must hold."""
    a, t, p = r["area_um2"], r["timing"], r["power"]
    worst = t["worst_path"]
    return {
        "area, total": [f"{a['total'] / 1e6:.3f} mm^2"],
        "standard-cell logic / flip-flops": [
            f"{a['logic'] / 1e6:.4f} / {a['flops'] / 1e6:.4f} mm^2",
            f"{grouped(r['cells']['std_cells'])} cells", f"{grouped(r['cells']['flops'])} flip-flops"],
        "SRAM macros": [f"{a['macros'] / 1e6:.4f} mm^2", f"{r['cells']['macros']} macros"],
        "clock period it closes at": [f"{t['closing_period_ns']:.2f} ns ({t['fmax_mhz']:.1f} MHz)"],
        "worst register-to-register path": [
            worst["start"], worst["end"], f"{worst['arrival_ns']:.3f} ns + {worst['setup_ns']:.3f} ns setup"],
        "power at activity 0.1": [
            f"{p['total_mw']:.1f} mW at {p['freq_mhz']:.1f} MHz",
            f"logic {p['logic_mw']['total']['total']:.1f} mW", f"macros {p['macros_mw']:.1f} mW"],
        "energy per cycle": [f"{p['total_mw'] / p['freq_mhz']:.3f} nJ"],
        "latency": [f"{r['latency_cycles']} cycles = {r['lookup_latency_ns']:.1f} ns"],
    }


def test_records_are_the_builds_they_name():
    """Each record is the build its file names: protection on only in ``protected``, the
    predictor mode only in ``predictor``, and the same configuration throughout."""
    records = {b: _record(b) for b in BUILDS}
    assert records["protected"]["options"]["protection"] == "auto"
    assert records["unprotected"]["options"]["protection"] == "none"
    assert records["predictor"]["options"]["protection"] == "none"
    assert [records[b]["options"]["predictor"] for b in BUILDS] == [False, False, True]
    assert len({json.dumps(records[b]["params"], sort_keys=True) for b in BUILDS}) == 1


@pytest.mark.parametrize("column, build", list(enumerate(BUILDS)))
def test_three_builds_table_quotes_the_records(column, build):
    rows = _table_rows()
    for quantity, wanted in _expected(_record(build)).items():
        cell = rows[quantity][column]
        for w in wanted:
            assert w in cell.replace("`", "").replace("**", ""), (
                f"docs/asic.md, {quantity!r}, {build}: {w!r} not in {cell!r} "
                f"(the record is docs/asic/{build}.json)")


def test_readme_quotes_the_records():
    """The README's ASIC paragraph: area, clock, power, latency of each build, the
    protected and predictor builds' macros, and the three energies per cycle."""
    text = " ".join((ROOT / "README.md").read_text().split())
    para = text[text.index("ASIC estimate (`make asic`"):text.index("Simulation speed on")]
    para = para.replace("mm²", "mm^2")
    for build in BUILDS:
        r = _record(build)
        a, t, p = r["area_um2"], r["timing"], r["power"]
        for w in (f"{a['total'] / 1e6:.2f} mm^2", f"{t['closing_period_ns']:.2f} ns",
                  f"{p['total_mw']:.0f} mW", f"{r['lookup_latency_ns']:.1f} ns"):
            assert w in para, f"README: {w!r} ({build}, docs/asic/{build}.json) not in its ASIC paragraph"
        if build != "unprotected":
            w = f"{r['cells']['macros']} macros {a['macros'] / 1e6:.2f}"
            assert w in para, f"README: {w!r} ({build}) not in its ASIC paragraph"
    energies = ", ".join(f"{_record(b)['power']['total_mw'] / _record(b)['power']['freq_mhz']:.3f}"
                         for b in BUILDS)
    assert f"({energies} nJ)" in para
    fmax = _record("protected")["timing"]["fmax_mhz"]
    assert re.search(rf"\({fmax:.0f} MHz", para), f"README: the protected build's {fmax:.0f} MHz"

# SPDX-License-Identifier: Apache-2.0
"""The record of measured placements: netlists named by their logic, reports collected
without duplicates, the plot written, and the README's Fmax figures equal to the record's."""

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from tests.docs_text import flat, grouped

from fpga.placements import (collect, current_flow, current_netlist, flow_label, main,
                             netlist_id, plot, summary)

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "fpga" / "placements.json"

VERILOG = """(* src = "hdl/top.py:10" *)
module top(input a, output y);
  (* src = "hdl/top.py:12" *)
  assign y = a;
endmodule
"""


def test_a_netlist_is_named_by_its_logic_not_its_source_lines():
    moved = VERILOG.replace("top.py:10", "top.py:99").replace("top.py:12", "core.py:3")
    assert netlist_id(moved) == netlist_id(VERILOG)
    assert netlist_id(VERILOG.replace("assign y = a;", "assign y = ~a;")) != netlist_id(VERILOG)
    assert re.fullmatch(r"[0-9a-f]{12}", netlist_id(VERILOG))
    with pytest.raises(TypeError):
        netlist_id(VERILOG.encode())


def _report(tmp_path, name, placements, *, netlist=None, grades=None, verilog=VERILOG,
            target="ecp5", speed=6, target_mhz=100.0):
    out = tmp_path / name
    out.mkdir()
    report = {"target": target, "target_mhz": target_mhz, "speed": speed,
              "resources": {"lut": {"used": 10}, "ff": {"used": 20}, "bram": {"used": 3}},
              "placements": [{"seed": s, "fmax_mhz": f} for s, f in placements]}
    if speed is None:
        del report["speed"]     # an iCE40 report has no speed grade
    if netlist:
        report["netlist"] = netlist
    if grades:
        report["speed_grades"] = grades
    if verilog is not None:
        (out / "top.v").write_text(verilog)
    (out / "report.json").write_text(json.dumps(report))
    return out / "report.json"


def test_collect_merges_reports_and_replaces_a_placement_measured_again(tmp_path):
    a = _report(tmp_path, "a", [(1, 90.0), (2, 95.0)],
                grades={"6": {"seed": 2, "fmax_mhz": 95.0}, "8": {"seed": 2, "fmax_mhz": 120.0}})
    b = _report(tmp_path, "b", [(2, 96.5), (3, 80.0)])
    record = collect([a, b])
    got = {(e["seed"], e["speed"]): e["fmax_mhz"] for e in record["placements"]}
    # seed 2 at speed 6 measured twice: the later report's figure, once
    assert got == {(1, 6): 90.0, (2, 6): 96.5, (3, 6): 80.0, (2, 8): 120.0}
    assert {e["netlist"] for e in record["placements"]} == {netlist_id(VERILOG)}
    (row6, row8) = summary(record)
    assert (row6["seeds"], row6["min"], row6["max"], row6["meet"]) == ([1, 2, 3], 80.0, 96.5, 0)
    assert row6["mean"] == pytest.approx((90.0 + 96.5 + 80.0) / 3, abs=0.01)
    assert (row8["speed"], row8["meet"]) == (8, 1)
    # another netlist is another group, never merged with the first
    c = _report(tmp_path, "c", [(1, 99.0)], netlist="0123456789ab")
    assert len(summary(collect([c], record))) == 3
    # the same seed placed to another frequency is another placement, never a replacement
    d = _report(tmp_path, "d", [(1, 91.0)], target_mhz=90.0)
    rows = summary(collect([d], record))
    assert sorted((r["target_mhz"], r["speed"], r["fmax_mhz"][0]) for r in rows) == \
        [(90.0, 6, 91.0), (100.0, 6, 90.0), (100.0, 8, 120.0)]
    assert [r["meet"] for r in rows if r["target_mhz"] == 90.0] == [1]


def test_collect_can_drop_the_netlists_the_sources_no_longer_build(tmp_path):
    old = _report(tmp_path, "old", [(1, 90.0), (2, 91.0)], netlist="aaaaaaaaaaaa")
    other = _report(tmp_path, "other", [(1, 99.0)], netlist="bbbbbbbbbbbb", target="ecp5-bram")
    record = collect([old, other])
    new = _report(tmp_path, "new", [(1, 95.0)], netlist="cccccccccccc")
    kept = collect([new], record)
    assert {e["netlist"] for e in kept["placements"]} == \
        {"aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"}
    dropped = collect([new], record, drop_other_netlists=True)
    # the reports' target holds only the reports' netlist; another target is untouched
    assert sorted((e["target"], e["netlist"], e["seed"]) for e in dropped["placements"]) == \
        [("ecp5", "cccccccccccc", 1), ("ecp5-bram", "bbbbbbbbbbbb", 1)]
    out = tmp_path / "record.json"
    out.write_text(json.dumps(record))
    assert main(["collect", "--drop-other-netlists", "--record", str(out), str(new)]) == 0
    assert json.loads(out.read_text()) == dropped


def test_a_flow_is_named_by_the_options_it_was_made_with(tmp_path):
    assert flow_label({"pnr_options": [], "place_freq_mhz": 100.0, "target_mhz": 100.0}) \
        == "tool defaults"
    assert flow_label({"synth_options": ["nowidelut"], "pnr_options": ["placer=static"],
                       "place_freq_mhz": 115.0, "target_mhz": 100.0}) \
        == "synth:nowidelut placer=static place_freq=115"
    # the same seed of the same netlist in two flows: two placements, two groups
    a = _report(tmp_path, "a", [(1, 90.0)])
    b = _report(tmp_path, "b", [(1, 95.0)])
    report = json.loads(b.read_text())
    report["flow"] = {"pnr_options": ["placer=static"], "place_freq_mhz": 100.0}
    b.write_text(json.dumps(report))
    rows = summary(collect([a, b]))
    assert sorted((r["flow"], r["fmax_mhz"]) for r in rows) == [("placer=static", [95.0]),
                                                                ("tool defaults", [90.0])]


def test_collect_refuses_a_report_it_cannot_place(tmp_path):
    with pytest.raises(ValueError, match="no placements"):
        collect([_report(tmp_path, "empty", [])])
    with pytest.raises(ValueError, match="no top.v"):
        collect([_report(tmp_path, "bare", [(1, 90.0)], verilog=None)])


def test_plot_and_cli_write_the_figure(tmp_path, capsys):
    a = _report(tmp_path, "a", [(1, 90.0), (2, 101.0), (3, 80.0)])
    png = plot(collect([a]), tmp_path / "p.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    record = tmp_path / "r.json"
    assert main(["collect", "--record", str(record), str(a)]) == 0
    assert "3 seeds, 80.0-101.0 MHz" in capsys.readouterr().out
    assert main(["plot", "--record", str(record), "--out", str(tmp_path / "q.png")]) == 0
    assert (tmp_path / "q.png").exists()
    # an iCE40 report (no speed grade) is recorded, and left out of the speed-6 figure
    ice = _report(tmp_path, "ice", [(1, 17.1)], target="ice40", speed=None)
    rows = summary(collect([a, ice]))
    assert [(r["target"], r["speed"]) for r in rows] == [("ecp5", 6), ("ice40", None)]
    assert main(["plot", "--out", str(tmp_path / "r.png"), str(a), str(ice)]) == 0
    with pytest.raises(ValueError, match="no placements at speed 8"):
        plot(json.loads(record.read_text()), tmp_path / "x.png", speed=8)


@pytest.mark.parametrize("args, message", [
    (["summary", "--record", "{missing}"], "{missing}: no such file"),
    # (make fpga's plot when no target wrote a report: the shell leaves the glob)
    (["plot", "--out", "{tmp}/p.png", "{tmp}/*/report.json"], "{tmp}/*/report.json: no such"),
    (["plot", "--out", "{report}/p.png", "{report}"], "error: --out {report}/p.png: "),
    (["plot", "--speed", "5", "--out", "{tmp}/p.png", "{report}"], "invalid choice: 5"),
    (["plot", "--speed", "8", "--out", "{tmp}/p.png", "{report}"], "no placements at speed 8"),
    (["collect", "--record", "{report}/r.json", "{report}"], "error: --record {report}/r.json"),
    (["collect", "--record", "{tmp}/r.json", "{empty}"], "no placements (not a report"),
    (["collect", "--record", "{tmp}/r.json", "{not_json}"], "Expecting value"),
    (["current", "--record", "{record}", "ecp5-nothing"], "unknown target 'ecp5-nothing'"),
])
def test_the_cli_refuses_what_it_cannot_use_in_one_line(tmp_path, capsys, args, message):
    """A file to read that is missing or not a report, one to write that cannot be, a speed
    grade without placements or an unknown target: status 2 and one error line before any
    work, no traceback."""
    paths = {"tmp": tmp_path, "missing": tmp_path / "none.json",
             "report": _report(tmp_path, "a", [(1, 90.0)]),
             "empty": _report(tmp_path, "empty", []), "not_json": tmp_path / "x.json",
             "record": tmp_path / "record.json"}
    paths["not_json"].write_text("not JSON\n")
    paths["record"].write_text(json.dumps(collect([paths["report"]])))
    try:
        status = main([x.format(**paths) for x in args])
    except SystemExit as exit_:
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2 and message.format(**paths) in err and "Traceback" not in err
    assert not (tmp_path / "p.png").exists() and not (tmp_path / "r.json").exists()


def _readme_seeds_1_2_3(target):
    """The README FPGA table's "A / B / C MHz" of the row naming ``target`` (``None`` for a
    seed written ``-``: a placement that did not route)."""
    figure = r"\**([\d.]+|-)\**"
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("|") and f"`{target}`" in line:
            cell = line.split("|")[2]
            m = re.match(rf"\s*{figure} / {figure} / {figure} MHz", cell)
            assert m, f"README row of {target}: no 'A / B / C MHz' in {cell!r}"
            return [None if x == "-" else float(x) for x in m.groups()]
    raise AssertionError(f"README has no FPGA row naming `{target}`")


def _tenth(mhz: float) -> str:
    """A recorded Fmax as the README writes it: to a tenth, rounded half up."""
    return str(Decimal(str(mhz)).quantize(Decimal("0.1"), ROUND_HALF_UP))


@pytest.mark.parametrize("target", ["ecp5", "ecp5-unprotected", "ecp5-predictor", "ecp5-bram",
                                    "ecp5-bram-outreg"])
def test_the_readme_quotes_the_record(target):
    record = json.loads(RECORD.read_text())
    flow = current_flow(target)
    fmax = {e["seed"]: e["fmax_mhz"] for e in record["placements"]
            if e["target"] == target and e["speed"] == 6 and e["flow"] == flow}
    # (the report's two decimals rounded half up, as the README writes 105.05 as 105.1; a
    # seed the record does not hold, one that did not route, is "-")
    tenths = [float(_tenth(fmax[s])) if s in fmax else None for s in (1, 2, 3)]
    assert _readme_seeds_1_2_3(target) == tenths


def _rows(target: str) -> dict:
    """The record's summary rows of ``target`` in the current flow, by speed grade."""
    record = json.loads(RECORD.read_text())
    flow = current_flow(target)
    return {row["speed"]: row for row in summary(record)
            if row["target"] == target and row["flow"] == flow}


def _seeds(seeds: list[int]) -> str:
    """Seeds as the README lists them: "4, 8, 12 and 13"."""
    names = [str(s) for s in seeds]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def test_the_readme_quotes_the_records_spread_and_single_placements():
    """The README's figures over placement seeds 1 to 15 (the range of seeds 4-15, the seeds
    that meet 100 MHz, the mean) and its rows of one placement (the hash alone, the iCE40, the
    references at speed 8) are the record's, so that a rerun that moves them without the
    README fails here."""
    readme = flat((ROOT / "README.md").read_text().replace("**", ""))
    wanted = []
    for target in ("ecp5", "ecp5-unprotected"):
        row = _rows(target)[6]
        fmax = dict(zip(row["seeds"], row["fmax_mhz"]))
        later = [fmax[s] for s in range(4, 16)]
        wanted.append(f"seeds 4-15: {_tenth(min(later))} to {_tenth(max(later))} MHz")
        wanted.append(f"{_tenth(row['min'])} to {_tenth(row['max'])} MHz (mean "
                      f"{_tenth(row['mean'])}")
        meet = [s for s in row["seeds"] if fmax[s] >= row["target_mhz"]]
        if meet:
            wanted.append(f"100 MHz on seeds {_seeds(meet)})")
            wanted.append(f"100 MHz met on seeds {_seeds([s for s in meet if s > 3])}")
    bram = _rows("ecp5-bram")
    row = bram[6]
    assert row["seeds"] == list(range(1, 16))
    wanted.append(f"(seeds 1-15: {_tenth(row['min'])} to {_tenth(row['max'])} MHz, 100 MHz met on "
                  f"{row['meet']} of 15) | {_tenth(bram[8]['fmax_mhz'][0])} MHz |")
    wanted.append(f"spans {_tenth(row['min'])} to {_tenth(row['max'])} MHz over fifteen seeds and "
                  f"misses 100 MHz on {15 - row['meet']} of them")
    outreg = _rows("ecp5-bram-outreg")
    wanted.append(f"{_tenth(outreg[6]['fmax_mhz'][-1])} MHz | {_tenth(outreg[8]['fmax_mhz'][0])} MHz | 3 cycles")
    hashed = _rows("ecp5-hash")
    wanted.append(f"(`ecp5-hash`) | {_tenth(hashed[6]['fmax_mhz'][0])} MHz | "
                  f"{_tenth(hashed[8]['fmax_mhz'][0])} MHz | 8 cycles | {grouped(hashed[6]['lut'])} LUT4")
    ice40 = _rows("ice40")[None]
    wanted.append(f"| {_tenth(ice40['fmax_mhz'][0])} MHz (target {ice40['target_mhz']:g}: met) | - | "
                  f"16 cycles = {1e3 * 16 / ice40['fmax_mhz'][0]:.0f} ns | {grouped(ice40['lut'])} of 5 280 LCs")
    for text in wanted:
        assert text in readme, f"README: {text!r} not found (docs/fpga/placements.json)"


def test_the_record_holds_the_reference_as_the_sources_build_it():
    """The record names the netlist it measured; for the small reference, regenerate it
    (``python -m fpga.placements current`` does this for every target)."""
    record = json.loads(RECORD.read_text())
    recorded = {e["netlist"] for e in record["placements"] if e["target"] == "ecp5-bram"}
    assert recorded == {current_netlist("ecp5-bram")}


def test_the_fpga_page_shows_the_record(tmp_path):
    """docs/fpga.md's table is the record's (``make docs`` writes it), and ``write_doc``
    replaces only its own block."""
    from fpga.placements import DOC_BEGIN, DOC_END, markdown, write_doc
    record = json.loads(RECORD.read_text())
    page = (ROOT / "docs" / "fpga.md").read_text()
    assert f"{DOC_BEGIN}\n{markdown(record)}{DOC_END}" in page
    doc = tmp_path / "page.md"
    doc.write_text(f"before\n{DOC_BEGIN}\nold\n{DOC_END}\nafter\n")
    assert write_doc(record, doc) and not write_doc(record, doc)
    assert doc.read_text() == f"before\n{DOC_BEGIN}\n{markdown(record)}{DOC_END}\nafter\n"
    doc.write_text("no markers\n")
    with pytest.raises(ValueError, match="needs one"):
        write_doc(record, doc)

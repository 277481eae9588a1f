# SPDX-License-Identifier: Apache-2.0
"""fpga.sta on a hand-made SDF in nextpnr's format, with its arrival times worked out by hand.

    gbuf -> ram/CLKB, ff1/CLK, ff2/CLK, ff3/CLK
    ram: CLKB -> DOB0 5830 ps                     ff1: CLK -> Q 525 ps
    ram/DOB0 --1000--> lut/A;  ff1/Q --300--> lut/B;  lut: A, B -> F 236 ps
    lut/F --500--> ff2/DI (setup 0);  lut/F --2000--> ram/ADB5 (setup 134)
    ff1/Q --100--> ff3/DI (setup 0)

    ram -> lut -> ram: 5830 + 1000 + 236 + 2000 + 134 = 9200 ps
    ram -> lut -> ff2: 5830 + 1000 + 236 + 500       = 7566 ps
    ff1 -> ff3:        525 + 100                     =  625 ps
"""

import pytest

from fpga.sta import failing_groups, fan_out, main, parse_sdf

SDF = r"""(DELAYFILE
  (SDFVERSION "3.0")
  (TIMESCALE 1ps)
  (CELL
    (CELLTYPE "top")
    (INSTANCE )
    (DELAY
      (ABSOLUTE
        (INTERCONNECT \$gbuf\$clk/CLKO core.ram.0.0/CLKB (0:0:0) (0:0:0))
        (INTERCONNECT \$gbuf\$clk/CLKO core.ff1_TRELLIS_FF_Q/CLK (0:0:0) (0:0:0))
        (INTERCONNECT \$gbuf\$clk/CLKO core.ff2_TRELLIS_FF_Q_3/CLK (0:0:0) (0:0:0))
        (INTERCONNECT \$gbuf\$clk/CLKO core.ff3_TRELLIS_FF_Q/CLK (0:0:0) (0:0:0))
        (INTERCONNECT core.ram.0.0/DOB0 core.lut_LUT4_Z/A (900:950:1000) (900:950:1000))
        (INTERCONNECT core.ff1_TRELLIS_FF_Q/Q core.lut_LUT4_Z/B (300:300:300) (300:300:300))
        (INTERCONNECT core.lut_LUT4_Z/F core.ff2_TRELLIS_FF_Q_3/DI (500:500:500) (500:500:500))
        (INTERCONNECT core.lut_LUT4_Z/F core.ram.0.0/ADB5 (2000:2000:2000) (2000:2000:2000))
        (INTERCONNECT core.ff1_TRELLIS_FF_Q/Q core.ff3_TRELLIS_FF_Q/DI (100:100:100) (100:100:100))
      )
    )
  )
  (CELL
    (CELLTYPE "DP16KD")
    (INSTANCE core.ram.0.0)
    (DELAY (ABSOLUTE (IOPATH CLKB DOB0 (5795:5812:5830) (5795:5812:5830))))
    (TIMINGCHECK (SETUPHOLD (posedge ADB5) (posedge CLKB) (134:134:134) (259:259:259)))
  )
  (CELL
    (CELLTYPE "TRELLIS_COMB")
    (INSTANCE core.lut_LUT4_Z)
    (DELAY (ABSOLUTE (IOPATH A F (200:218:236) (200:218:236))
                     (IOPATH B F (200:218:236) (200:218:236))))
  )
  (CELL
    (CELLTYPE "TRELLIS_FF")
    (INSTANCE core.ff1_TRELLIS_FF_Q)
    (DELAY (ABSOLUTE (IOPATH CLK Q (430:477:525) (430:477:525))))
    (TIMINGCHECK (SETUPHOLD (posedge DI) (posedge CLK) (0:0:0) (267:285:303)))
  )
  (CELL
    (CELLTYPE "TRELLIS_FF")
    (INSTANCE core.ff2_TRELLIS_FF_Q_3)
    (DELAY (ABSOLUTE (IOPATH CLK Q (430:477:525) (430:477:525))))
    (TIMINGCHECK (SETUPHOLD (posedge DI) (posedge CLK) (0:0:0) (267:285:303)))
  )
  (CELL
    (CELLTYPE "TRELLIS_FF")
    (INSTANCE core.ff3_TRELLIS_FF_Q)
    (DELAY (ABSOLUTE (IOPATH CLK Q (430:477:525) (430:477:525))))
    (TIMINGCHECK (SETUPHOLD (posedge DI) (posedge CLK) (0:0:0) (267:285:303)))
  )
)
"""


def test_worst_path_and_groups():
    g = parse_sdf(SDF)
    assert len(g.clock_pins) == 4
    groups = failing_groups(g, period_ps=7000)
    # ram -> ram and ram -> ff2 miss 7 ns; ff1 -> ff3 does not
    assert [(x["start"], x["end"], x["worst_ps"]) for x in groups] == [
        ("core.ram", "core.ram", 9200.0), ("core.ram", "core.ff2", 7566.0)]
    assert groups[0]["path"] == [("core.ram.0.0/DOB0", 5830), ("core.lut_LUT4_Z/A", 6830),
                                 ("core.lut_LUT4_Z/F", 7066), ("core.ram.0.0/ADB5", 9066)]


def test_an_sdf_without_the_clock_driver_is_refused():
    """Without a clock no path is launched, and everything would seem to meet timing."""
    with pytest.raises(ValueError, match="clock_driver"):
        parse_sdf(SDF, clock_driver="no_such_buffer")
    assert parse_sdf(SDF.replace("gbuf", "clkbuf"), clock_driver="clkbuf").clock_pins


def test_nothing_fails_at_a_long_period():
    assert failing_groups(parse_sdf(SDF), period_ps=9200) == []
    assert len(failing_groups(parse_sdf(SDF), period_ps=9199)) == 1


def test_one_registers_fan_out(capsys, tmp_path):
    """ff1 reaches lut -> ff2 (525 + 300 + 236 + 500 = 1561 ps), lut -> ram/ADB5 (525 +
    300 + 236 + 2000 + 134 = 3195 ps) and ff3 (625 ps); the ram's slower paths are not
    its own."""
    f = fan_out(parse_sdf(SDF), "core.ff1")
    assert (f["cells"], f["endpoints"], f["worst_ps"]) == (1, 3, 3195)
    assert [pin for pin, _ in f["path"]] == ["core.ff1_TRELLIS_FF_Q/Q", "core.lut_LUT4_Z/B",
                                             "core.lut_LUT4_Z/F", "core.ram.0.0/ADB5"]
    with pytest.raises(ValueError, match="no clocked cell"):
        fan_out(parse_sdf(SDF), "core.nothing")
    sdf = tmp_path / "top.sdf"
    sdf.write_text(SDF)
    assert main([str(sdf), "--from", "core.ff1"]) == 0
    assert "3 endpoints, the worst 3.19 ns" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["{sdf}", "--period-ns", "0"], "argument --period-ns: must be a positive number of ns"),
    (["{sdf}", "--period-ns", "nan"], "argument --period-ns: must be a positive number"),
    (["{sdf}", "--paths", "-1"], "argument --paths: must be at least 0, not -1"),
    (["{missing}"], "{missing}: no such file"),
    (["{sdf}", "--from", "core.nothing"], "no clocked cell named 'core.nothing'"),
    (["{no_clock}"], "{no_clock}: no net in the SDF is driven by a cell named like 'gbuf'"),
    (["{sdf}", "--json", "{sdf}/x.json"], "error: --json {sdf}/x.json: "),
])
def test_bad_arguments_are_refused_in_one_line(capsys, tmp_path, args, message):
    """A period that is no period, a missing SDF, one without the clock, an unknown
    register or an unwritable output: status 2 and one error line, no traceback (a
    period of 0 made every path fail)."""
    paths = {"sdf": tmp_path / "top.sdf", "missing": tmp_path / "none.sdf",
             "no_clock": tmp_path / "other.sdf"}
    paths["sdf"].write_text(SDF)
    paths["no_clock"].write_text(SDF.replace("gbuf", "clkbuf"))
    with pytest.raises(SystemExit) as exit_:
        main([x.format(**paths) for x in args])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message.format(**paths) in err
    assert "Traceback" not in err

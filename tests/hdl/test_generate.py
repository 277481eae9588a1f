# SPDX-License-Identifier: Apache-2.0
"""hdl.generate.to_verilog: Amaranth's Verilog less the wires that only name an element of an
array-shaped signal (with them, Yosys 0.70's ABC reintegration can fail an assertion); the
command line: its refusals, and the builds its flags make."""

import argparse
import re
import subprocess
from pathlib import Path

import pytest

from amaranth import *
from amaranth.back import rtlil
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.core import CoreOptions
from hdl.generate import (_drop_element_wires, add_build_arguments, build_from_args, main,
                          parse_params, to_verilog)
from regmap import Params
from regmap.arguments import unwritable


class _Lanes(wiring.Component):
    """Two 4-bit lanes in one array-shaped port, two more as a port array."""
    packed: In(data.ArrayLayout(4, 2))
    lanes: In(4).array(2)
    total: Out(6)

    def elaborate(self, platform):
        m = Module()
        copy = Signal(data.ArrayLayout(4, 2))
        m.d.comb += copy.eq(self.packed)
        m.d.comb += self.total.eq(copy[0] + copy[1] + self.lanes[0] + self.lanes[1])
        return m


class _Top(wiring.Component):
    x: In(8)
    total: Out(6)

    def elaborate(self, platform):
        m = Module()
        m.submodules.lanes = lanes = _Lanes()
        m.d.comb += [lanes.packed.eq(self.x), lanes.lanes[0].eq(self.x[:4]),
                     lanes.lanes[1].eq(self.x[4:]), self.total.eq(lanes.total)]
        return m


def _element_wires(text):
    return re.findall(r"^[ \t]*wire (?:width \d+ )?(\\\S+\[\d+\])$", text, re.M)


def test_element_wires_are_dropped_and_nothing_else():
    text = rtlil.convert(_Top(), name="top", emit_src=False)
    assert _element_wires(text), "the example must have element-naming wires to drop"
    kept = _drop_element_wires(text)
    assert _element_wires(kept) == []
    dropped = set(text.splitlines()) - set(kept.splitlines())
    assert all(line.lstrip().startswith(("wire ", "connect ", "attribute ")) for line in dropped)
    # Every port and every cell survives.
    for pattern in (r"^[ \t]*wire .*(?:input|output) \d+ .*$", r"^[ \t]*cell .*$"):
        assert re.findall(pattern, kept, re.M) == re.findall(pattern, text, re.M)


def test_an_element_wire_that_is_read_is_kept():
    text = "\n".join([
        "module \\m", "  wire width 4 \\a[0]", "  wire width 4 output 1 \\o",
        "  wire width 8 input 0 \\x", "connect \\a[0] \\x [3:0]", "connect \\o \\a[0]", "end"])
    assert _drop_element_wires(text) == text


def test_verilog_has_no_element_wires_and_the_same_ports():
    text = to_verilog(_Top(), name="top")
    assert not re.search(r"^\s*wire .*\\\S+\[\d+\] ;", text, re.M)
    assert re.search(r"input \[7:0\] x;", text) and re.search(r"output \[5:0\] total;", text)


def test_the_filtered_verilog_computes_what_the_design_does(tmp_path):
    """The Verilog without the element wires, run in Icarus, sums the lanes as the design."""
    (tmp_path / "top.v").write_text(to_verilog(_Top(), name="top"))
    inputs = (0, 0x12, 0xFF, 0xA5)
    (tmp_path / "tb.v").write_text("\n".join([
        "module tb; reg [7:0] x; wire [5:0] total; top dut(.x(x), .total(total));",
        "initial begin",
        *(f"  x = 8'h{x:02x}; #1 $display(\"%0d\", total);" for x in inputs),
        "end endmodule"]))
    subprocess.run(["iverilog", "-g2012", "-o", "sim", "tb.v", "top.v"], cwd=tmp_path,
                   check=True)
    out = subprocess.run(["vvp", "-n", "sim"], cwd=tmp_path, check=True,
                         capture_output=True, text=True).stdout.split()
    assert [int(v) for v in out] == [2 * ((x & 15) + (x >> 4)) for x in inputs]


def test_command_line_errors_name_the_argument_and_write_nothing(tmp_path, capsys):
    """Each bad argument is refused with a message that names it, and no file is written;
    a good value in any base builds."""
    out = tmp_path / "k.v"
    for argv, expected in ((["--param", "ENTRIES=abc"], "--param ENTRIES=abc: 'abc' is not an integer"),
                           (["--param", "FOO=1"], "not 'FOO=1'"),
                           (["--param", "ENTRIES=100"], "ENTRIES must be a power of two"),
                           (["--mode-reset", "2"], "reserved bits")):
        assert main(["--out", str(out), *argv]) == 2
        assert expected in capsys.readouterr().err
        assert not out.exists()
    with pytest.raises(SystemExit):                  # argparse's usage error
        main(["--out", str(out), "--mode-reset", "x"])
    assert "'x' is not an integer" in capsys.readouterr().err
    assert not out.exists()
    assert parse_params(["entries=0x10", "TS_WIDTH=0b110"]).as_dict()["ENTRIES"] == 16
    assert parse_params(["TS_WIDTH=0b110"]).TS_WIDTH == 6


def test_bad_output_paths_names_and_repeated_params_are_refused_up_front(tmp_path, capsys):
    """Refused before anything is elaborated: an output path that is a folder or lies under
    a file, a module name that is not a Verilog identifier, a parameter given twice, and
    build options of the wrong type."""
    from hdl.core import CoreOptions
    from hdl.generate import generate
    from regmap import param_overrides
    afile = tmp_path / "afile"
    afile.write_text("")
    for out, reason in ((tmp_path, "is a folder, not a file"),
                        (afile / "x.v", f"{afile} is a file, not a folder")):
        assert main(["--out", str(out)]) == 2
        assert capsys.readouterr().err == f"error: --out {out}: {reason}\n"
    assert main(["--out", str(tmp_path / "k.v"), "--param", "ENTRIES=64",
                 "--param", "entries=128"]) == 2
    assert "ENTRIES given twice" in capsys.readouterr().err
    for name, error in (("", ValueError), ("my core", ValueError), ("1abc", ValueError),
                        (5, TypeError), (None, TypeError)):
        with pytest.raises(error, match="name must be"):
            generate(name=name)
    with pytest.raises(TypeError, match="list of 'NAME=VALUE'"):
        param_overrides("ENTRIES=64")
    for field, value in (("block_ram", None), ("tag_compare", 1), ("protection", ["none"])):
        with pytest.raises(TypeError, match=f"CoreOptions.{field} must be a str"):
            CoreOptions(**{field: value})


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_path_that_cannot_be_written_is_refused_before_elaborating(
        tmp_path, capsys, monkeypatch):
    """A file path that cannot be made (the folder refuses new files) is refused with
    ``error:`` and exit status 2 before anything is elaborated; a writable one, even in
    folders still to be made, passes the check and leaves nothing behind."""
    import hdl.generate as gen

    def elaborate(*args, **kwargs):
        raise AssertionError("elaborated before the output path was checked")

    monkeypatch.setattr(gen, "generate", elaborate)
    for out in ("/proc/kv_asu.v", "/proc/no/such/folder/kv_asu.v"):
        assert main(["--out", out]) == 2
        assert capsys.readouterr().err.startswith(
            f"error: --out {out}: cannot make a file in /proc (")
    assert unwritable(tmp_path / "a" / "b" / "k.v") is None
    existing = tmp_path / "k.v"
    existing.write_text("kept")
    assert unwritable(existing) is None
    assert [p.name for p in tmp_path.iterdir()] == ["k.v"] and existing.read_text() == "kept"


def _build(argv, **kwargs):
    parser = argparse.ArgumentParser()
    add_build_arguments(parser, **kwargs)
    return build_from_args(parser.parse_args(argv))


# The flags that make each FPGA target's build (fpga.targets.TARGETS), besides its params.
_TARGET_FLAGS = {
    "ecp5": ["--hash-mul-stages", "0", "--block-ram", "dp16kd", "--tag-compare", "ccu2c"],
    "ecp5-unprotected": ["--hash-mul-stages", "0", "--block-ram", "dp16kd",
                         "--tag-compare", "ccu2c", "--protection", "none"],
    "ecp5-predictor": ["--hash-mul-stages", "0", "--block-ram", "dp16kd",
                       "--tag-compare", "ccu2c", "--protection", "none", "--predictor"],
    "ice40": ["--compact", "--hash-lut-cross-products", "c1", "c2"],
}


@pytest.mark.parametrize("name", sorted(_TARGET_FLAGS))
def test_the_command_line_makes_the_fpga_builds(name):
    """Every field of ``CoreOptions`` has its flag: the builds of ``fpga.targets`` come from
    the generator's command line (the same ``Params`` and ``CoreOptions``, so the same
    Verilog)."""
    from fpga.targets import TARGETS
    target = TARGETS[name]
    params = [f"--param={key}={value}" for key, value in target.params.items()]
    assert _build(params + _TARGET_FLAGS[name]) == (Params(**target.params), target.options)


def test_the_flags_default_to_the_options_defaults_and_offer_their_choices(capsys):
    """No flag: ``CoreOptions()``; each flag's choices are ``CoreOptions.CHOICES``', so a
    value ``CoreOptions`` refuses is refused by argparse; without the FPGA primitives'
    flags (``asic.flow``) the build has the generic implementations."""
    assert _build([]) == (Params(), CoreOptions())
    for argv in (["--block-ram", "bram"], ["--tag-compare", "carry"],
                 ["--hash-lut-cross-products", "c3"], ["--hash-mul-stages", "4"]):
        with pytest.raises(SystemExit):
            _build(argv)
        assert "invalid choice" in capsys.readouterr().err
    assert _build(["--hash-lut-cross-products", "f1"]) == (
        Params(), CoreOptions(hash_lut_cross_products={"f1"}))
    assert _build(["--compact"], fpga_primitives=False)[1] == CoreOptions(compact=True)
    with pytest.raises(SystemExit):
        _build(["--block-ram", "dp16kd"], fpga_primitives=False)
    capsys.readouterr()
    from asic.flow import main as asic_main
    with pytest.raises(SystemExit) as info:
        asic_main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--hash-lut-cross-products" in out and "--block-ram" not in out
    with pytest.raises(TypeError, match="fpga_primitives"):
        add_build_arguments(argparse.ArgumentParser(), fpga_primitives=None)


def test_the_written_file_says_what_it_was_generated_from(tmp_path):
    """``kv-asu-generate``'s file starts, as the shipped ones do, with the licence, the
    parameters, the options, the latency and the wrapper's widths of this build; the text
    of ``generate()`` without ``origin`` is the Verilog alone."""
    out = tmp_path / "k.v"
    assert main(["--param", "ENTRIES=16", "--param", "ADDR_WIDTH=32", "--param", "TAG_WIDTH=12",
                 "--compact", "--out", str(out)]) == 0
    head = out.read_text().splitlines()[:7]
    assert head[0] == "// SPDX-License-Identifier: Apache-2.0"
    assert "// Parameters: ENTRIES=16 PROBE=4 ADDR_WIDTH=32 " in head[3] + " "
    assert "compact=True" in head[4]
    from verif.fast import build_latency
    latency = build_latency(Params(ENTRIES=16, ADDR_WIDTH=32, TAG_WIDTH=12),
                            CoreOptions(compact=True))
    assert head[5] == f"// Request-to-response latency: {latency} cycles"
    assert head[6] == ("// Wrapper parameters (kv_asu_wrapper.v): ADDR_WIDTH=32 COUNT_WIDTH=16 "
                       "SLOT_WIDTH=4 TAG_WIDTH=12")

# SPDX-License-Identifier: Apache-2.0
"""hdl.generate.to_verilog: Amaranth's Verilog less the wires that only name an element of an
array-shaped signal (with them, Yosys 0.70's ABC reintegration can fail an assertion)."""

import re
import subprocess

from amaranth import *
from amaranth.back import rtlil
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.generate import _drop_element_wires, to_verilog


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

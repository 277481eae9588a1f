# SPDX-License-Identifier: Apache-2.0
"""The C header and the Verilog include file are generated from regmap/kv_asu.toml, are
current, and say what the map says."""

import re
import shutil
import subprocess

import pytest

import regmap
from regmap import OPS, REGISTERS, STAT_REGISTERS, Params
from regmap.c_header import c_header
from regmap.headers import verilog_header

from .conftest import ROOT

HEADER = ROOT / "sw" / "kv_asu_regs.h"
VERILOG_HEADER = ROOT / "dist" / "kv_asu_regs.vh"


def test_checked_in_header_is_current():
    assert HEADER.read_text() == c_header(), "run `make docs` to regenerate sw/kv_asu_regs.h"


def test_checked_in_verilog_header_is_current():
    assert VERILOG_HEADER.read_text() == verilog_header(), (
        "run `make docs` to regenerate dist/kv_asu_regs.vh")


def test_verilog_header_values_match_regmap(tmp_path):
    """Every `define, evaluated by Icarus (Verilog-2005), equals the value computed from
    regmap here; the header has every name of the C header but its C-only initialiser."""
    want = _expected()
    names = sorted(want)
    body = "\n".join(f'        $display("{n} %0d", `{n});' for n in names)
    (tmp_path / "values.v").write_text(
        '`include "kv_asu_regs.vh"\nmodule values;\n    initial begin\n' + body +
        "\n    end\nendmodule\n")
    out = tmp_path / "values.vvp"
    subprocess.run(["iverilog", "-g2005", "-Wall", "-I", str(VERILOG_HEADER.parent), "-o",
                    str(out), str(tmp_path / "values.v")], check=True)
    run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, check=True)
    got = {n: int(v) for n, v in (line.split() for line in run.stdout.splitlines() if line)}
    assert got == want
    defined = set(re.findall(r"^`define (KVASU_\w+)", VERILOG_HEADER.read_text(), re.M))
    in_c = set(re.findall(r"^#define (KVASU_\w+)", HEADER.read_text(), re.M))
    assert defined == in_c - {"KVASU_STAT_OFFSETS", "KVASU_CONFIG_LEGAL"}


def _expected() -> dict[str, int]:
    """Every macro value, computed from regmap here (not by the generator)."""
    p = Params()
    want = {"KVASU_ID_VALUE": regmap.ID, "KVASU_VERSION_VALUE": regmap.VERSION,
            "KVASU_AXIL_ADDR_WIDTH": regmap.AXIL_ADDR_WIDTH,
            "KVASU_STAT_COUNT": len(STAT_REGISTERS)}
    want.update({f"KVASU_OP_{name}": code for name, code in OPS.items()})
    want.update({f"KVASU_MEM_ID_{name.upper()}": code for name, code in regmap.MEM_IDS.items()})
    for reg in REGISTERS:
        if reg.wide:
            want[f"KVASU_REG_{reg.name}_LO"] = reg.offset
            want[f"KVASU_REG_{reg.name}_HI"] = reg.offset + 4
        else:
            want[f"KVASU_REG_{reg.name}"] = reg.offset
        for f in reg.fields:
            want[f"KVASU_{reg.name}_{f.name}_SHIFT"] = f.bit
            want[f"KVASU_{reg.name}_{f.name}_MASK"] = f.mask
        if reg.reset is not None:
            want[f"KVASU_{reg.name}_RESET"] = p.value_of(reg.reset)
        elif reg.build is None and reg.fields:  # CTRL, STATUS, MODE, POLICY, ...: by field
            want[f"KVASU_{reg.name}_RESET"] = sum(f.reset << f.bit for f in reg.fields)
        elif reg.active_of and regmap.REG[reg.active_of].mode:     # ACT_MODE, ACT_POLICY
            want[f"KVASU_{reg.name}_RESET"] = sum(
                f.reset << f.bit for f in regmap.REG[reg.active_of].fields)
    for index, reg in enumerate(STAT_REGISTERS):
        want[f"KVASU_{reg.name}"] = index
    for name in regmap.MODE_NAMES:    # its fields' bits, and those only a predictor build has
        fields = regmap.REG[name].fields
        want[f"KVASU_{name}_FIELDS_MASK"] = sum(f.mask for f in fields)
        want[f"KVASU_{name}_NEEDS_PREDICTOR_MASK"] = sum(
            f.mask for f in fields if f.needs == "predictor")
    return want


def test_compiled_header_values_match_regmap(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("no C compiler")
    want = _expected()
    prog = ["#include <stdio.h>", '#include "kv_asu_regs.h"',
            "static const unsigned stat_offsets[] = KVASU_STAT_OFFSETS;",
            "int main(void) {"]
    prog += [f'  printf("{name} %lu\\n", (unsigned long)({name}));' for name in want]
    prog += ['  for (unsigned i = 0; i < KVASU_STAT_COUNT; i++)',
             '    printf("offset%u %u\\n", i, stat_offsets[i]);',
             "  return 0;", "}"]
    (tmp_path / "values.c").write_text("\n".join(prog) + "\n")
    exe = tmp_path / "values"
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Werror", "-I", str(HEADER.parent),
                    str(tmp_path / "values.c"), "-o", str(exe)], check=True)
    got = dict(line.split() for line in subprocess.run(
        [str(exe)], check=True, capture_output=True, text=True).stdout.splitlines())
    for name, value in want.items():
        assert int(got[name]) == value, name
    for index, reg in enumerate(STAT_REGISTERS):
        assert int(got[f"offset{index}"]) == reg.offset


def test_version_fields_follow_the_release():
    major, minor, patch = (int(x) for x in regmap.RELEASE.split("."))
    text = HEADER.read_text()
    for name, value in (("MAJOR", major), ("MINOR", minor), ("PATCH", patch)):
        found = re.search(rf"^#define KVASU_VERSION_{name}\s+(\d+)u$", text, re.M)
        assert found and int(found.group(1)) == value, name
    assert regmap.VERSION == major << 16 | minor << 8 | patch


def test_the_guide_s_five_line_example_compiles(tmp_path):
    guide = (ROOT / "docs" / "integration.md").read_text()
    block = guide.split("## The C driver in five lines", 1)[1].split("```c\n", 1)[1]
    lines = block.split("```", 1)[0].strip().splitlines()
    assert len(lines) == 5 and lines[0].startswith("#include")
    source = lines[0] + "\nint example(void);\nint example(void) {\n" + "\n".join(lines[1:]) \
        + "\n    return 0;\n}\n"
    (tmp_path / "example.c").write_text(source)
    cc = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Werror", "-I", str(HEADER.parent),
                    "-c", str(tmp_path / "example.c"), "-o", str(tmp_path / "example.o")],
                   check=True)


@pytest.mark.parametrize("section", ["## A stream that must never be held",
                                     "## The predictor mode", "## Soft errors"])
def test_the_guide_s_driver_snippets_compile(tmp_path, section):
    guide = (ROOT / "docs" / "integration.md").read_text()
    block = guide.split(section, 1)[1].split("```c\n", 1)[1].split("```", 1)[0]
    source = ('#include "kv_asu.h"\n'
              "void log_soft_error(uint32_t mem_id, int uncorrectable, uint32_t addr,\n"
              "                    uint64_t cycle, uint32_t uncorrected, uint32_t corrected,\n"
              "                    uint32_t last_recovery);\n"
              "int example(kvasu_dev dev);\n"
              "int example(kvasu_dev dev) {\n" + block + "    return 0;\n}\n")
    (tmp_path / "example.c").write_text(source)
    cc = shutil.which("cc") or shutil.which("gcc")
    proc = subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror",
                           "-I", str(HEADER.parent), "-c", str(tmp_path / "example.c"),
                           "-o", str(tmp_path / "example.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + source


def test_the_legality_macro_for_other_chains(monkeypatch):
    """``KVASU_CONFIG_LEGAL`` from chains other than the map's: the derived values keep one
    order whatever order the chains name them in (the driver passes them by position), and
    chains whose comparisons a ``uint32_t`` always meets leave the expression ``(1)``."""
    from regmap import headers
    monkeypatch.setattr(headers, "CONFIG_CHAINS", ((0, "W3", "W1", "WMAX"),
                                                   (1, "C2", "COUNT_MAX")))
    assert headers.c_config_legal()[1:] == [
        "#define KVASU_CONFIG_LEGAL(C2, W3, W1, COUNT_MAX, WMAX) \\",
        "    ((W3) <= (W1) && (W1) <= (WMAX) && \\",
        "     1u <= (C2) && (C2) <= (COUNT_MAX))"]
    monkeypatch.setattr(headers, "CONFIG_CHAINS", ((0, "HASH_SEED", 0xFFFF_FFFF),))
    assert headers.c_config_legal()[1:] == ["#define KVASU_CONFIG_LEGAL(HASH_SEED) \\",
                                            "    (1)"]

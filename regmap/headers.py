# SPDX-License-Identifier: Apache-2.0
"""The register map as headers for other languages: C (``sw/kv_asu_regs.h``) and Verilog
(``dist/kv_asu_regs.vh``), both generated from ``kv_asu.toml``, checked in (``make docs``
rewrites them) and kept equal to this output by a test.

:func:`definitions` is what both say: a list of :class:`Define` and section comments.
Names (all ``KVASU_``-prefixed, the same in both languages):

- ``KVASU_ID_VALUE``, ``KVASU_VERSION_VALUE``, ``KVASU_VERSION_MAJOR/MINOR/PATCH`` and
  ``KVASU_AXIL_ADDR_WIDTH``;
- ``KVASU_OP_<OP>``: request op codes;
- ``KVASU_MEM_ID_<MEMORY>``: the soft-error memories' ``MEM_ID`` (``ERR_FIRST_MEM.MEM_ID``);
- ``KVASU_REG_<NAME>``: byte offsets (64-bit counters: ``<NAME>_LO`` and ``<NAME>_HI``);
- ``KVASU_<REG>_<FIELD>_SHIFT`` / ``_MASK``: register fields;
- ``KVASU_<REG>_RESET``: reset values of the default build (the ``P_*`` registers and the
  clamped configuration defaults depend on the build's parameters: read them from the block);
- ``KVASU_<REG>_FIELDS_MASK`` / ``_NEEDS_PREDICTOR_MASK`` for each mode register (MODE,
  POLICY): the bits its fields define, and those of them that only a build with the
  predictor has; any other bit set makes a commit illegal (``mode_violations``);
- ``KVASU_STAT_<NAME>``: index of each statistic, and ``KVASU_STAT_COUNT``; the C header
  also has ``KVASU_STAT_OFFSETS``, an initialiser of the LO offsets in index order, and
  ``KVASU_CONFIG_LEGAL(...)``, the configuration chains (``CONFIG_CHAINS``) as one C
  expression (:func:`c_config_legal`).

C writes each as ``#define NAME VALUEu``, Verilog as ``\\`define NAME`` with a sized literal
(offsets ``12'h...``, words ``32'h...``, the rest unsized decimal).
"""

from __future__ import annotations

from typing import NamedTuple

from . import (AXIL_ADDR_WIDTH, CONFIG_CHAINS, CONFIG_NAMES, ID, MEM_IDS, MODE_DEFAULTS,
               MODE_NAMES, OPS, RELEASE, REGISTERS, STAT_REGISTERS, VERSION, Params,
               _chain_text, build_word, mode_defined)

__all__ = ["Define", "definitions", "c_header", "c_config_legal", "verilog_header",
           "reset_value"]


class Define(NamedTuple):
    """One named constant: ``kind`` is ``"dec"`` (a small number), ``"offset"`` (a register
    byte offset) or ``"word"`` (a 32-bit register value or mask); ``doc`` a comment to put
    before it, if any."""
    name: str
    value: int
    kind: str
    doc: str | None = None


def reset_value(reg, params: Params, *, predictor: bool = False,
                mode_reset: int | None = None) -> int | None:
    """``reg``'s value after reset in a build of ``params`` (with the predictor mode if
    ``predictor``; ``MODE``'s reset value ``mode_reset`` if given, D13); ``None`` for a live
    value (CYCLE: ``live`` in the register map), which has none to state."""
    if reg.live:
        return None
    if reg.reset is not None:
        return params.value_of(reg.reset)
    if reg.build is not None:
        return build_word(reg.build, predictor=predictor)
    if mode_reset is not None and "MODE" in (reg.name, reg.active_of):
        return mode_reset
    if reg.fields:
        return sum(f.reset << f.bit for f in reg.fields)
    if reg.active_of in MODE_DEFAULTS:      # ACT_MODE, ACT_POLICY: their shadow's reset
        return MODE_DEFAULTS[reg.active_of]
    return 0                                # statistics, soft-error registers: reset clears


def definitions(params: Params | None = None) -> list[str | Define]:
    """Every constant of the headers in order, each section led by its comment (a str)."""
    params = params or Params()
    major, minor, patch = (int(x) for x in RELEASE.split("."))
    out: list[str | Define] = [
        "Identification: the ID register's constant and this release's VERSION "
        "(bits 23:16 major, 15:8 minor, 7:0 patch).",
        Define("KVASU_ID_VALUE", ID, "word"),
        Define("KVASU_VERSION_VALUE", VERSION, "word"),
        Define("KVASU_VERSION_MAJOR", major, "dec"),
        Define("KVASU_VERSION_MINOR", minor, "dec"),
        Define("KVASU_VERSION_PATCH", patch, "dec"),
        Define("KVASU_AXIL_ADDR_WIDTH", AXIL_ADDR_WIDTH, "dec"),
        "Request op codes.",
        *(Define(f"KVASU_OP_{name}", code, "dec") for name, code in OPS.items()),
        "Soft-error memories: the MEM_ID that ERR_FIRST_MEM.MEM_ID reports "
        "(0: none yet; spec decision D11).",
        *(Define(f"KVASU_MEM_ID_{name.upper()}", code, "dec") for name, code in MEM_IDS.items()),
        "Register byte offsets.",
    ]
    for reg in REGISTERS:
        doc = f"{reg.name} ({reg.access}): {reg.doc}"
        if reg.wide:
            out.append(Define(f"KVASU_REG_{reg.name}_LO", reg.offset, "offset", doc))
            out.append(Define(f"KVASU_REG_{reg.name}_HI", reg.offset + 4, "offset"))
        else:
            out.append(Define(f"KVASU_REG_{reg.name}", reg.offset, "offset", doc))
    out.append("Register fields.")
    for reg in REGISTERS:
        for f in reg.fields:
            kind = "action, reads 0" if f.action else reg.access
            out.append(Define(f"KVASU_{reg.name}_{f.name}_SHIFT", f.bit, "dec",
                              f"{reg.name}.{f.name} ({kind}): {f.doc}"))
            out.append(Define(f"KVASU_{reg.name}_{f.name}_MASK", f.mask, "word"))
    out.append("Reset values of the default build (P_* and the clamped configuration "
               "defaults depend on a build's parameters).")
    for reg in REGISTERS:
        value = reset_value(reg, params)
        if value is not None and not reg.wide:
            out.append(Define(f"KVASU_{reg.name}_RESET", value, "word"))
    out.append("Mode registers: the bits their fields define (FIELDS_MASK) and those that only "
               "a build with the predictor (P_POLICIES.PREDICTOR) defines; a commit of a mode "
               "register with any other bit set is refused.")
    for name in MODE_NAMES:
        defined = mode_defined(name, predictor=True)
        out.append(Define(f"KVASU_{name}_FIELDS_MASK", defined, "word"))
        out.append(Define(f"KVASU_{name}_NEEDS_PREDICTOR_MASK",
                          defined & ~mode_defined(name, predictor=False), "word"))
    out.append("Statistics: 64-bit counters, by index.")
    for index, reg in enumerate(STAT_REGISTERS):
        out.append(Define(f"KVASU_{reg.name}", index, "dec"))
    out.append(Define("KVASU_STAT_COUNT", len(STAT_REGISTERS), "dec"))
    return out


def _c_comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /") + " */"


def _c_value(d: Define) -> str:
    if d.kind == "offset":
        return f"0x{d.value:03X}u"
    if d.kind == "word":
        return f"0x{d.value:08X}u"
    return f"{d.value}u"


def c_config_legal() -> list[str]:
    """The lines of ``KVASU_CONFIG_LEGAL``: whether a configuration is legal
    (``CONFIG_CHAINS``: every chain non-decreasing), a C expression over ``uint32_t``
    arguments: the configuration registers that the chains name, in ``CONFIG_NAMES`` order
    (``kvasu_config``'s), then the build's derived values they name in alphabetical order
    (``COUNT_MAX``, ``WMAX``). A comparison that a ``uint32_t`` always meets (``0 <= x``,
    ``x <= 0xFFFFFFFF``) is left out (compilers warn of it), and with none left the
    expression is ``(1)``; an argument may be evaluated more than once."""
    named = {e for chain in CONFIG_CHAINS for e in chain if isinstance(e, str)}
    names = [n for n in CONFIG_NAMES if n in named] + sorted(named - set(CONFIG_NAMES))
    lines = []
    for chain in CONFIG_CHAINS:
        terms = [f"{a}u <= ({b})" if isinstance(a, int) else
                 f"({a}) <= {b}u" if isinstance(b, int) else f"({a}) <= ({b})"
                 for a, b in zip(chain, chain[1:])
                 if a != 0 and b != 0xFFFF_FFFF]
        if terms:
            lines.append(" && ".join(terms))
    params = Params()
    rule = "; ".join(" <= ".join(e if isinstance(e, str) else _chain_text(e, params)
                                 for e in chain) for chain in CONFIG_CHAINS)
    body = [f"    {'(' if k == 0 else ' '}{line}" + (")" if k == len(lines) - 1 else " && \\")
            for k, line in enumerate(lines)] or ["    (1)"]
    return [_c_comment(f"A legal configuration: {rule} (COUNT_MAX = 2**P_COUNT_WIDTH - 1, "
                       "WMAX = P_WMAX); a commit of any other set is refused."),
            f"#define KVASU_CONFIG_LEGAL({', '.join(names)}) \\", *body]


def c_header(params: Params | None = None) -> str:
    """The text of ``sw/kv_asu_regs.h``."""
    guard = "KV_ASU_REGS_H"
    out = ["/* SPDX-License-Identifier: Apache-2.0 */",
           "/* KV-ASU register map. Generated from regmap/kv_asu.toml by `make docs`",
           "   (python -m regmap.c_header); do not edit by hand. */",
           f"#ifndef {guard}", f"#define {guard}"]
    for item in definitions(params):
        if isinstance(item, str):
            out += ["", _c_comment(item)]
            continue
        if item.doc:
            out.append(_c_comment(item.doc))
        out.append(f"#define {item.name:<40} {_c_value(item)}")
    offsets = ", ".join(f"0x{reg.offset:03X}u" for reg in STAT_REGISTERS)
    out.append(_c_comment("The statistics' LO offsets in index order, as an initialiser."))
    out.append(f"#define {'KVASU_STAT_OFFSETS':<40} {{ {offsets} }}")
    out += c_config_legal()
    out += ["", f"#endif /* {guard} */", ""]
    return "\n".join(out)


def _verilog_value(d: Define) -> str:
    if d.kind == "offset":
        return f"12'h{d.value:03X}"
    if d.kind == "word":
        return f"32'h{d.value:08X}"
    return str(d.value)


def verilog_header(params: Params | None = None) -> str:
    """The text of ``dist/kv_asu_regs.vh`` (Verilog-2005 ``\\`define``s)."""
    guard = "KV_ASU_REGS_VH"
    out = ["// SPDX-License-Identifier: Apache-2.0",
           "// KV-ASU register map for Verilog testbenches and sequencers. Generated from",
           "// regmap/kv_asu.toml by `make docs` (python -m regmap.cli --format verilog); do",
           "// not edit by hand. The names are the C header's (sw/kv_asu_regs.h).",
           f"`ifndef {guard}", f"`define {guard}"]
    for item in definitions(params):
        if isinstance(item, str):
            out += ["", f"// {item}"]
            continue
        if item.doc:
            out.append(f"// {item.doc}")
        out.append(f"`define {item.name:<40} {_verilog_value(item)}")
    out += ["", f"`endif  // {guard}", ""]
    return "\n".join(out)

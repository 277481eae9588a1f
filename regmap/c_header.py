# SPDX-License-Identifier: Apache-2.0
"""The register map as a C header: ``python -m regmap.c_header > sw/kv_asu_regs.h``.

Like ``docs/registers-table.md``, the header is generated from ``kv_asu.toml``, checked in
(``make docs`` rewrites both), and a test keeps it equal to this output and compiles it to
check every value against the map. Names (all ``KVASU_``-prefixed):

- ``KVASU_ID_VALUE``, ``KVASU_VERSION_VALUE`` and ``KVASU_VERSION_MAJOR/MINOR/PATCH``;
- ``KVASU_OP_<OP>``: request op codes;
- ``KVASU_MEM_ID_<MEMORY>``: the soft-error memories' ``MEM_ID`` (``ERR_FIRST_MEM.MEM_ID``);
- ``KVASU_REG_<NAME>``: byte offsets (64-bit counters: ``<NAME>_LO`` and ``<NAME>_HI``);
- ``KVASU_<REG>_<FIELD>_SHIFT`` / ``_MASK``: register fields;
- ``KVASU_<REG>_RESET``: reset values of the default build (the ``P_*`` registers and the
  clamped configuration defaults depend on the build's parameters: read them from the block);
- ``KVASU_STAT_<NAME>``: index of each statistic, ``KVASU_STAT_COUNT`` and
  ``KVASU_STAT_OFFSETS``, an initialiser of the LO offsets in index order.
"""

from __future__ import annotations

from . import AXIL_ADDR_WIDTH, ID, MEM_IDS, OPS, RELEASE, REGISTERS, STAT_REGISTERS, VERSION, Params, build_word

__all__ = ["c_header", "main"]

GUARD = "KV_ASU_REGS_H"


def _comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /") + " */"


def _define(name: str, value: str, width: int = 40) -> str:
    return f"#define {name:<{width}} {value}"


def _reset_value(reg, params: Params) -> int | None:
    if reg.reset is not None:
        return params.value_of(reg.reset)
    if reg.build is not None:
        return build_word(reg.build)
    if reg.fields:
        return sum(f.reset << f.bit for f in reg.fields)
    if reg.access != "ro" or reg.stat:
        return 0
    return None           # a live value (OCCUPANCY, CYCLE): no reset value to state


def c_header(params: Params | None = None) -> str:
    """The text of ``kv_asu_regs.h``."""
    params = params or Params()
    major, minor, patch = (int(x) for x in RELEASE.split("."))
    out = [
        "/* SPDX-License-Identifier: Apache-2.0 */",
        "/* KV-ASU register map. Generated from regmap/kv_asu.toml by `make docs`",
        "   (python -m regmap.c_header); do not edit by hand. */",
        f"#ifndef {GUARD}",
        f"#define {GUARD}",
        "",
        _comment("Identification: the ID register's constant and this release's VERSION "
                 "(bits 23:16 major, 15:8 minor, 7:0 patch)."),
        _define("KVASU_ID_VALUE", f"0x{ID:08X}u"),
        _define("KVASU_VERSION_VALUE", f"0x{VERSION:08X}u"),
        _define("KVASU_VERSION_MAJOR", f"{major}u"),
        _define("KVASU_VERSION_MINOR", f"{minor}u"),
        _define("KVASU_VERSION_PATCH", f"{patch}u"),
        _define("KVASU_AXIL_ADDR_WIDTH", f"{AXIL_ADDR_WIDTH}u"),
        "",
        _comment("Request op codes."),
    ]
    for name, code in OPS.items():
        out.append(_define(f"KVASU_OP_{name}", f"{code}u"))
    out += ["", _comment("Soft-error memories: the MEM_ID that ERR_FIRST_MEM.MEM_ID reports "
                         "(0: none yet; spec decision D11).")]
    for name, code in MEM_IDS.items():
        out.append(_define(f"KVASU_MEM_ID_{name.upper()}", f"{code}u"))
    out += ["", _comment("Register byte offsets.")]
    for reg in REGISTERS:
        out.append(_comment(f"{reg.name} ({reg.access}): {reg.doc}"))
        if reg.wide:
            out.append(_define(f"KVASU_REG_{reg.name}_LO", f"0x{reg.offset:03X}u"))
            out.append(_define(f"KVASU_REG_{reg.name}_HI", f"0x{reg.offset + 4:03X}u"))
        else:
            out.append(_define(f"KVASU_REG_{reg.name}", f"0x{reg.offset:03X}u"))
    out += ["", _comment("Register fields.")]
    for reg in REGISTERS:
        for f in reg.fields:
            kind = "action, reads 0" if f.action else reg.access
            out.append(_comment(f"{reg.name}.{f.name} ({kind}): {f.doc}"))
            out.append(_define(f"KVASU_{reg.name}_{f.name}_SHIFT", f"{f.bit}u"))
            out.append(_define(f"KVASU_{reg.name}_{f.name}_MASK", f"0x{f.mask:08X}u"))
    out += ["", _comment("Reset values of the default build (P_* and the clamped configuration "
                         "defaults depend on a build's parameters).")]
    for reg in REGISTERS:
        value = _reset_value(reg, params)
        if value is not None and not reg.wide:
            out.append(_define(f"KVASU_{reg.name}_RESET", f"0x{value:08X}u"))
    out += ["", _comment("Statistics: 64-bit counters, by index; KVASU_STAT_OFFSETS lists "
                         "their LO offsets in index order.")]
    for index, reg in enumerate(STAT_REGISTERS):
        out.append(_define(f"KVASU_{reg.name}", f"{index}u"))
    out.append(_define("KVASU_STAT_COUNT", f"{len(STAT_REGISTERS)}u"))
    offsets = ", ".join(f"0x{reg.offset:03X}u" for reg in STAT_REGISTERS)
    out.append(_define("KVASU_STAT_OFFSETS", "{ " + offsets + " }"))
    out += ["", f"#endif /* {GUARD} */", ""]
    return "\n".join(out)


def main(argv=None) -> int:
    print(c_header(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

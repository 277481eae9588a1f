# SPDX-License-Identifier: Apache-2.0
"""The register map as a Verilog include file: ``python -m regmap.verilog_header >
dist/kv_asu_regs.vh`` (``regmap.headers`` makes it, and the C one beside it)."""

from __future__ import annotations

from .headers import verilog_header

__all__ = ["verilog_header", "main"]


def main(argv=None) -> int:
    print(verilog_header(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

# SPDX-License-Identifier: Apache-2.0
"""The register map as a C header: ``python -m regmap.c_header > sw/kv_asu_regs.h``
(``regmap.headers`` makes it, and the Verilog one beside it)."""

from __future__ import annotations

from .headers import c_header

__all__ = ["c_header", "main"]


def main(argv=None) -> int:
    print(c_header(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

# SPDX-License-Identifier: Apache-2.0
"""``kv-asu-regmap``: the register map as Markdown (the default), a C header or a Verilog
include file.

    kv-asu-regmap [--format markdown|c|verilog] [--out FILE]

The same text as ``python -m regmap`` (docs/registers-table.md), ``python -m
regmap.c_header`` (sw/kv_asu_regs.h) and, with ``--format verilog``, dist/kv_asu_regs.vh,
for the default build (``python -m regmap.cli`` in the checkout).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .__main__ import markdown
from .arguments import check_writable
from .headers import c_header, verilog_header

__all__ = ["main"]


def main(argv=None, prog: str = "kv-asu-regmap") -> int:
    """The command line (``prog``: the name its usage and errors give, the installed
    command's or ``python -m regmap``); returns the exit status."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=("markdown", "c", "verilog"), default="markdown")
    parser.add_argument("--out", type=Path, default=None, help="output file (default: stdout)")
    args = parser.parse_args(argv)
    if args.out is not None:
        check_writable(args.out, "--out")
    text = {"markdown": markdown, "c": c_header, "verilog": verilog_header}[args.format]()
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

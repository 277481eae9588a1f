# SPDX-License-Identifier: Apache-2.0
"""``kv-asu-regmap``: the register map as Markdown (the default) or as a C header.

    kv-asu-regmap [--format markdown|c] [--out FILE]

The same text as ``python -m regmap`` (docs/registers-table.md) and
``python -m regmap.c_header`` (sw/kv_asu_regs.h), for the default build.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .__main__ import markdown
from .c_header import c_header

__all__ = ["main"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="kv-asu-regmap", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=("markdown", "c"), default="markdown")
    parser.add_argument("--out", type=Path, default=None, help="output file (default: stdout)")
    args = parser.parse_args(argv)
    text = markdown() if args.format == "markdown" else c_header()
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""Generate the Verilog of the KV-ASU top level (module ``kv_asu``).

Usage::

    python -m hdl.generate [--out PATH] [--param NAME=VALUE ...] [--not-pipelined]
                           [--compact] [--hash-mul-stages 1|2|3]

(installed from the wheel: ``kv-asu-generate``, the module ``kv_asu.hdl.generate``).

``--param`` sets an elaboration parameter of ``regmap.Params`` (repeatable); the other
flags set fields of ``hdl.core.CoreOptions``. The default output is
``build/verilog/kv_asu.v``.
"""

import argparse
import sys
from pathlib import Path

from amaranth.back import verilog

import regmap
from regmap import Params

from .core import CoreOptions, check_core_params
from .top import KvAsu

__all__ = ["generate", "main"]

DEFAULT_OUT = Path("build/verilog/kv_asu.v")


def parse_params(items):
    overrides = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip().upper()
        if not sep or name not in regmap.PARAM_NAMES:
            raise ValueError(f"--param wants NAME=VALUE with NAME in {regmap.PARAM_NAMES}, "
                             f"not {item!r}")
        overrides[name] = int(value, 0)
    return Params(**overrides)


def generate(params=None, options=None, *, name="kv_asu"):
    """Return the Verilog text of ``KvAsu(params, options)`` as module ``name``."""
    check_core_params(params)           # before any Elaboratable exists
    CoreOptions.cast(options)
    top = KvAsu(params, options)
    return verilog.convert(top, name=name, emit_src=False)


def main(argv=None):
    # installed, it is the console script kv-asu-generate
    prog = "python -m hdl.generate" if sys.argv[0].endswith(".py") else Path(sys.argv[0]).name
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output Verilog file")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="elaboration parameter (repeatable)")
    parser.add_argument("--not-pipelined", action="store_true",
                        help="one request at a time (reference mode)")
    parser.add_argument("--compact", action="store_true",
                        help="the small pipeline of the iCE40 build (CoreOptions.compact)")
    parser.add_argument("--hash-mul-stages", type=int, choices=(1, 2, 3), default=2,
                        help="stages per hash multiply (CoreOptions.hash_mul_stages)")
    args = parser.parse_args(argv)
    try:
        params = parse_params(args.param)
        options = CoreOptions(serial=args.not_pipelined, compact=args.compact,
                              hash_mul_stages=args.hash_mul_stages)
        text = generate(params, options)
    except (TypeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out} ({params})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

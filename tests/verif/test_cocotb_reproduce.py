# SPDX-License-Identifier: Apache-2.0
"""The reproduction command of a cocotb run selects exactly that run: the command the
scoreboard's mismatch report prints (``verif.tb.scoreboard.Scoreboard.diff_text``), built
as in a run from the run configuration ``verif/runner.py`` writes
(``runner.write_run_config`` with ``verif.test_kv_asu.run_selection``, read back by
``verif.kvasu_tb.load_config`` and ``run_info``), is given to pytest with
``--collect-only``: it must collect that run's test and nothing else, for a run of the
default matrix and for runs that only the full matrix (``KVASU_MATRIX=full``) has."""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import sys

import pytest

from regmap import Params
from verif import runner as R
from verif import test_kv_asu as T
from verif.kvasu_tb import load_config, run_info
from verif.tb.scoreboard import Scoreboard


def _printed_command(tmp_path, monkeypatch, sim, config, options):
    """The ``reproduce:`` line of a mismatch report of the test ``random_mix`` in the run
    (``sim``, ``config``, ``options``: a ``CoreOptions`` fields dict or ``None``)."""
    core = T._core_options(options)
    build = tmp_path / R.build_dir_for(sim, config, core).name
    build.mkdir()
    path = R.write_run_config(sim, config, Params(**R.CONFIGS[config]), build, options=core,
                              reproduce=T.run_selection(sim, config, core))
    monkeypatch.setenv("KVASU_CONFIG", str(path))
    info = run_info(load_config(), 1234, "random_mix")
    board = Scoreboard(Params(**R.CONFIGS[config]), None, None, None,
                       logging.getLogger("test_cocotb_reproduce"), info, lambda: {})
    text = board.diff_text(None, None, None, None, 7, "a planted report")
    line, = [ln for ln in text.splitlines() if ln.strip().startswith("reproduce:")]
    return line.split("reproduce:", 1)[1].strip()


def _collected(command):
    """The test ids pytest collects for ``command`` (``VAR=value ... python -m pytest
    ARGS``), with no other ``KVASU_*`` variable set."""
    words = shlex.split(command)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KVASU_")}
    while "=" in words[0]:
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    assert words[:3] == [".venv/bin/python", "-m", "pytest"], command
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", *words[3:]], cwd=R.ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return [ln for ln in out.stdout.splitlines() if "::" in ln]


@pytest.mark.parametrize("sim, config, options, test_id", [
    # a run of the default matrix
    ("verilator", "small", None, "verif/test_kv_asu.py::test_cocotb[verilator-small]"),
    # an option run only the full matrix has, of the same simulator and configuration
    ("verilator", "small", {"mode_reset": 1},
     "verif/test_kv_asu.py::test_cocotb_options[verilator-small-mode_reset1]"),
    # a run of the default options only the full matrix has
    ("icarus", "default", None, "verif/test_kv_asu_icarus.py::test_cocotb[icarus-default]"),
], ids=["default-run", "full-matrix-option-run", "full-matrix-run"])
def test_the_printed_command_collects_exactly_that_run(tmp_path, monkeypatch, sim, config,
                                                       options, test_id):
    command = _printed_command(tmp_path, monkeypatch, sim, config, options)
    assert "KVASU_SEED=1234" in command and "KVASU_TESTS=random_mix" in command, command
    assert _collected(command) == [test_id], command


def test_only_runs_outside_the_default_matrix_name_the_full_matrix():
    assert "KVASU_MATRIX" not in T.run_selection("icarus", "small")["env"]
    assert "KVASU_MATRIX" not in T.run_selection(
        "icarus", "small", T._core_options({"mode_reset": 1}))["env"]
    assert T.run_selection("verilator", "small", T._core_options({"mode_reset": 1}))["env"][
        "KVASU_MATRIX"] == "full"


_REPORT = """KV-ASU SCOREBOARD: response mismatch
  seed=3596611260 config=small sim=verilator build=verilator-small test=count_saturation
  reproduce: KVASU_SEED=3596611260 KVASU_TESTS=count_saturation KVASU_SIMS=verilator KVASU_CONFIGS=small .venv/bin/python -m pytest verif/test_kv_asu.py -k 'test_cocotb[verilator-small]'
  response at cycle 26
  request #7 accepted at cycle 7 (tick 0): OBSERVE(addr=0xb85ffb61, min_tlevel=0) tag=0xffb h=7
  field                      expected                  got
  count                           0x6                  0x7   <-- DIFF
  previous responses (cycle, request, expected):
           6 OBSERVE(addr=0xb85ffb61, min_tlevel=0)   {'op': 0, 'count': 6}"""


def _sim_log(tests):
    """A simulator log as cocotb writes it (verif/test_kv_asu.py reads it): for each test,
    the scoreboard's report logged, then the test's failure with a traceback whose message
    is the same report (the continuation lines padded)."""
    lines = ["     0.00ns INFO     cocotb.regression                  Running tests"]
    for test in tests:
        report = _REPORT.replace("count_saturation", test).splitlines()
        lines.append(f"   310.00ns ERROR    kvasu.{test}             {report[0]}")
        lines += [" " * 56 + ln for ln in report[1:]]
        lines.append(f"   310.00ns WARNING  cocotb.regression                  "
                     f"verif.cocotb_directed.{test} failed")
        lines += [" " * 56 + "Traceback (most recent call last):",
                  " " * 56 + '  File "verif/tb/scoreboard.py", line 150, in receive',
                  " " * 56 + "    raise Mismatch(self.diff_text(...))",
                  " " * 56 + "verif.tb.scoreboard.Mismatch: " + report[0]]
        lines += [" " * 56 + ln for ln in report[1:]]
    lines.append("   310.00ns INFO     cocotb.regression                  ** TESTS=2 PASS=0 "
                 "FAIL=2 SKIP=0")
    return "\n".join(lines) + "\n"


def test_a_mismatch_report_appears_once_in_the_failure_text(tmp_path):
    """The failed run's message (``failure_report`` of the simulator log) has each test's
    report once, and the traceback that raised it."""
    log = tmp_path / "sim.log"
    log.write_text(_sim_log(["count_saturation", "tlevel_boundaries"]))
    text = T.failure_report(log)
    for test in ("count_saturation", "tlevel_boundaries"):
        assert text.count(f"test={test}") == 1, text
        assert text.count(f"KVASU_TESTS={test} ") == 1, text
        assert f"verif.cocotb_directed.{test} failed" in text
    assert text.count("<-- DIFF") == 2 and text.count("Traceback") == 2, text
    assert text.count("KV-ASU SCOREBOARD") == 2 and "TESTS=2 PASS=0" in text, text

# SPDX-License-Identifier: Apache-2.0
"""One reading of ``$KVASU_SEED`` for every harness (``verif.seeds``), and a failed test's
report naming the seed that reproduces it (the root ``conftest.py``)."""

import argparse
import types

import pytest

import conftest
from verif.seeds import SEED_VARIABLES, cli_seed, env_seed, run_seed


@pytest.fixture
def no_seed(monkeypatch):
    for name in SEED_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize("text, value", [("12", 12), ("0x10", 16), ("0", 0), ("0b11", 3)])
def test_a_seed_is_a_python_integer_literal(no_seed, text, value):
    no_seed.setenv("KVASU_SEED", text)
    assert env_seed() == value == run_seed()


@pytest.mark.parametrize("text", ["seven", "-3", "1.5", "0x"])
def test_a_seed_that_is_no_integer_is_refused_by_name(no_seed, text):
    no_seed.setenv("KVASU_SEED", text)
    with pytest.raises(ValueError, match=f"KVASU_SEED must be an integer >= 0, not '{text}'"):
        env_seed()
    with pytest.raises(ValueError, match="KVASU_SEED"):
        run_seed()


def test_the_first_variable_set_gives_the_seed(no_seed):
    assert env_seed() is None and env_seed(SEED_VARIABLES) is None
    assert 0 <= run_seed() < 2**32
    no_seed.setenv("SEED", "5")
    no_seed.setenv("KVASU_SEED", "")                 # empty: not set
    assert env_seed(SEED_VARIABLES) == 5 and env_seed() is None
    no_seed.setenv("RANDOM_SEED", "6")
    assert env_seed(SEED_VARIABLES) == 6


def test_a_command_s_seed_is_its_option_else_the_variable(no_seed, capsys):
    parser = argparse.ArgumentParser(prog="cmd")
    no_seed.setenv("KVASU_SEED", "0x21")
    assert cli_seed(5, parser) == 5 and cli_seed(None, parser) == 33
    no_seed.setenv("KVASU_SEED", "seven")
    assert cli_seed(5, parser) == 5                 # the option: the variable not read
    with pytest.raises(SystemExit) as exit_info:
        cli_seed(None, parser)
    assert exit_info.value.code == 2
    assert "cmd: error: KVASU_SEED must be an integer >= 0, not 'seven'" in capsys.readouterr().err


def _report(nodeid, seed, failed, parametrized=False):
    """The report the root conftest's hook gives for a test ``nodeid`` with fixture value
    ``seed`` (or, ``parametrized``, a parameter named ``seed``) that ``failed`` (or
    passed)."""
    item = types.SimpleNamespace(nodeid=nodeid, funcargs={"seed": seed})
    if parametrized:
        item.callspec = types.SimpleNamespace(params={"seed": seed})
    report = types.SimpleNamespace(failed=failed, sections=[])
    hook = conftest.pytest_runtest_makereport(item, None)
    next(hook)
    with pytest.raises(StopIteration) as stop:
        hook.send(report)
    assert stop.value.value is report
    return report


def test_a_failed_report_names_the_seed_and_the_command():
    report = _report("verif/test_fast.py::test_soak_short[small-200000]", 77, True)
    assert report.sections == [("seed", "KVASU_SEED=77 python -m pytest "
                                        "'verif/test_fast.py::test_soak_short[small-200000]' "
                                        "runs it again with this seed")]
    report = _report("tests/golden_model/test_api.py::test_x", 5, True)
    assert report.sections[0][1].startswith("GM_SEED=5 python -m pytest")
    assert _report("verif/test_fast.py::test_x", 77, False).sections == []
    assert _report("verif/test_fast.py::test_x", "a path", True).sections == []
    # a test's own parameter named seed: no variable reruns it with another value
    assert _report("tests/evaluation/test_compare.py::test_x[3]", 3, True,
                   parametrized=True).sections == []

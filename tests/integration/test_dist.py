# SPDX-License-Identifier: Apache-2.0
"""The shipped Verilog is current, and the wrapper lints and compiles without project Python."""

import subprocess

import pytest

from tools import dist

from .conftest import DIST, tool

BUILDS = sorted(dist.BUILDS)


@pytest.mark.parametrize("build", BUILDS)
def test_shipped_verilog_equals_regenerated(build):
    spec = dist.BUILDS[build]
    assert spec.path.exists(), f"dist/{build}/kv_asu.v missing; run: {dist.REGENERATE}"
    assert spec.path.read_text() == dist.render(spec), (
        f"dist/{build}/kv_asu.v is not what hdl/ generates now; regenerate it with: "
        f"{dist.REGENERATE}")


def _lint(build, params):
    cmd = [tool("verilator"), "--lint-only", "-Wall", "--top-module", "kv_asu_wrapper",
           *(f"-G{k}={v}" for k, v in params.items()),
           str(DIST / "kv_asu.vlt"), str(DIST / "kv_asu_wrapper.v"),
           str(DIST / build / "kv_asu.v")]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("build", BUILDS)
def test_wrapper_lints_clean_with_wall(build):
    proc = _lint(build, dist.BUILDS[build].wrapper_params())
    assert proc.returncode == 0 and "%Warning" not in proc.stderr, proc.stderr


def test_lint_catches_wrapper_widths_that_do_not_match_the_build():
    proc = _lint("ice40", dist.BUILDS["default"].wrapper_params())
    assert proc.returncode != 0 and "WIDTH" in proc.stderr


@pytest.mark.parametrize("build", BUILDS)
def test_icarus_2005_compiles_and_runs_the_testbench(build, tmp_path):
    spec = dist.BUILDS[build]
    from regmap import Params
    params = {**spec.wrapper_params(), "ENTRIES": Params(**spec.params).ENTRIES}
    out = tmp_path / "tb.vvp"
    subprocess.run(["iverilog", "-g2005", "-Wall", "-I", str(DIST), "-o", str(out),
                    "-s", "kv_asu_wrapper_tb",
                    *(f"-Pkv_asu_wrapper_tb.{k}={v}" for k, v in params.items()),
                    str(DIST / "tb" / "kv_asu_wrapper_tb.v"), str(DIST / "kv_asu_wrapper.v"),
                    str(DIST / build / "kv_asu.v")], check=True, capture_output=True)
    run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, timeout=300)
    assert "kv_asu_wrapper_tb: PASS" in run.stdout and "FAIL" not in run.stdout, run.stdout

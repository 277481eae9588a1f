# SPDX-License-Identifier: Apache-2.0
"""The FuseSoC cores (kv_asu.core and one core per other build) parse, lint with Verilator
-Wall, simulate in Icarus, and give a core that depends on them their build.

FuseSoC comes from PyPI (the `test` extra); the cores are found with --cores-root on a
folder that holds only the cores and what they name (a copy of them), so nothing else in
the checkout or the venv is scanned.
"""

import os
import re
import shutil
import subprocess

import pytest

import regmap

from .conftest import BIN, DIST, ROOT, tool

CORE = ROOT / "kv_asu.core"
VLNV = "kvasu:ip:kv_asu"
# the core a core of yours depends on for each shipped build (FuseSoC gives a dependency's
# `default` target only, so each build is a core of its own)
BUILD_CORES = {"default": (CORE, VLNV),
               "predictor": (ROOT / "kv_asu_predictor.core", "kvasu:ip:kv_asu_predictor"),
               "ice40": (ROOT / "kv_asu_ice40.core", "kvasu:ip:kv_asu_ice40")}


@pytest.fixture(scope="module")
def cores_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("cores")
    for core, _ in BUILD_CORES.values():
        shutil.copy2(core, root / core.name)
    shutil.copytree(ROOT / "dist", root / "dist")
    return root


def fusesoc(cores_root, *args, cwd):
    # the tools FuseSoC's makefiles call (verilator) are in the venv's bin
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    return subprocess.run([tool("fusesoc"), "--cores-root", str(cores_root), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_core_info_lists_the_targets_and_the_release(cores_root, tmp_path):
    proc = fusesoc(cores_root, "core-info", VLNV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{VLNV}:{regmap.RELEASE}" in proc.stdout
    for target in ("default", "predictor", "ice40", "lint", "lint_predictor", "lint_ice40",
                   "sim", "sim_predictor", "sim_ice40"):
        assert re.search(rf"^{target}\s*:", proc.stdout, re.M), target


@pytest.mark.parametrize("build", sorted(BUILD_CORES))
def test_core_names_only_existing_files(build):
    names = re.findall(r"files: \[([^\]]*)\]", BUILD_CORES[build][0].read_text())
    # a file's entry may carry attributes: "dist/kv_asu_regs.vh: {is_include_file: true}"
    files = [f.split(":")[0].strip() for group in names for f in group.split(",")]
    assert files and all((ROOT / f).is_file() for f in files), files


def _wrapper_defaults():
    text = (DIST / "kv_asu_wrapper.v").read_text()
    return {k: int(v) for k, v in re.findall(r"parameter (\w+)\s*=\s*(\d+)", text)}


@pytest.mark.parametrize("build", sorted(BUILD_CORES))
def test_a_core_that_depends_on_a_build_core_gets_that_build(cores_root, tmp_path, build):
    import yaml          # FuseSoC's own dependency
    from tools import dist
    user = tmp_path / "user"
    user.mkdir()
    (user / "user.core").write_text(f"""CAPI=2:
name: user:test:soc:0
filesets:
  deps:
    depend: [{BUILD_CORES[build][1]}]
targets:
  default:
    default_tool: icarus
    filesets: [deps]
    toplevel: kv_asu_wrapper
""")
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    proc = subprocess.run([tool("fusesoc"), "--cores-root", str(cores_root), "--cores-root",
                           str(user), "run", "--setup", "--build-root", str(tmp_path / "b"),
                           "user:test:soc"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    edam = yaml.safe_load(next((tmp_path / "b").rglob("*.eda.yml")).read_text())
    cores = [f["name"] for f in edam["files"] if f["name"].endswith("/kv_asu.v")]
    assert len(cores) == 1 and cores[0].endswith(f"/dist/{build}/kv_asu.v"), cores
    # the wrapper's widths: the build's (set by the core, or the wrapper's defaults)
    widths = {k: edam["parameters"].get(k, {}).get("default", v)
              for k, v in _wrapper_defaults().items()}
    assert widths == dist.BUILDS[build].wrapper_params()


# (the other build of each is linted and simulated directly in test_dist.py)
@pytest.mark.parametrize("target", ["lint"])
def test_lint_target_passes(cores_root, tmp_path, target):
    proc = fusesoc(cores_root, "run", "--build-root", str(tmp_path / "b"), "--target", target,
                   VLNV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    config = next((tmp_path / "b").rglob("config.mk")).read_text()
    assert "-Wall" in config


@pytest.mark.parametrize("target", ["sim_ice40"])
def test_sim_target_passes(cores_root, tmp_path, target):
    proc = fusesoc(cores_root, "run", "--build-root", str(tmp_path / "b"), "--target", target,
                   VLNV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "kv_asu_wrapper_tb: PASS" in proc.stdout and "FAIL" not in proc.stdout


TINY = {"ENTRIES": 8, "PROBE": 2, "ADDR_WIDTH": 20, "LINE_SHIFT": 4, "TAG_WIDTH": 10,
        "COUNT_WIDTH": 2, "TS_WIDTH": 4, "TICK_SHIFT": 0}


def test_generator_core_builds_custom_parameters_that_lint_clean(tmp_path):
    # the generator's core with what its script needs (hdl/, regmap/, tools/, the wrapper)
    root = tmp_path / "kv"
    root.mkdir()
    shutil.copy2(ROOT / "kv_asu_gen.core", root)
    for name in ("hdl", "regmap", "dist", "tools", "fpga"):
        shutil.copytree(ROOT / name, root / name,
                        ignore=shutil.ignore_patterns("__pycache__", "default", "ice40"))
    user = tmp_path / "user"
    user.mkdir()
    params = ", ".join(f"{k}: {v}" for k, v in TINY.items())
    (user / "user.core").write_text(f"""CAPI=2:
name: user:test:tiny_asu:0
filesets:
  deps:
    depend: [kvasu:ip:kv_asu_gen]
generate:
  tiny:
    generator: kv_asu_gen
    parameters: {{{params}}}
targets:
  lint:
    default_tool: verilator
    filesets: [deps]
    generate: [tiny]
    toplevel: kv_asu_wrapper
    tools:
      verilator:
        mode: lint-only
        verilator_options: [-Wall]
""")
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    proc = subprocess.run([tool("fusesoc"), "--cores-root", str(root), "--cores-root",
                           str(user), "run", "--build-root", str(tmp_path / "b"), "--target",
                           "lint", "user:test:tiny_asu"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    generated = next((tmp_path / "b").rglob("kv_asu.v")).read_text()
    assert "module kv_asu(" in generated
    assert "input [23:0] req__payload" in generated        # 2 + 2 + ADDR_WIDTH 20
    command = next((tmp_path / "b").rglob("*.vc")).read_text()
    assert "-GSLOT_WIDTH=3" in command and "-GTAG_WIDTH=10" in command

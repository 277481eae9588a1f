"""The FuseSoC core (kv_asu.core) parses, lints with Verilator -Wall and simulates in Icarus.

FuseSoC comes from PyPI (the `test` extra); the core is found with --cores-root on a folder
that holds only the core and what it names (a copy of them), so nothing else in the
checkout or the venv is scanned.
"""

import os
import re
import shutil
import subprocess

import pytest

import regmap

from .conftest import BIN, ROOT, tool

CORE = ROOT / "kv_asu.core"
VLNV = "kvasu:ip:kv_asu"


@pytest.fixture(scope="module")
def cores_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("cores")
    shutil.copy2(CORE, root / CORE.name)
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
    for target in ("default", "ice40", "lint", "lint_ice40", "sim", "sim_ice40"):
        assert re.search(rf"^{target}\s*:", proc.stdout, re.M), target


def test_core_names_only_existing_files():
    names = re.findall(r"files: \[([^\]]*)\]", CORE.read_text())
    files = [f.strip() for group in names for f in group.split(",")]
    assert files and all((ROOT / f).is_file() for f in files), files


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

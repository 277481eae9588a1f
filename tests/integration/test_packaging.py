# SPDX-License-Identifier: Apache-2.0
"""The wheel: only the kv_asu namespace, and it works installed, away from the checkout.

The wheel is built (tools/wheel.py, from a clean copy of the checkout's files) and installed
with --no-deps into a fresh venv whose only other packages are the checkout venv's (a .pth
file: no network). The installed parts are used from a folder outside the checkout, where
the checkout's own `regmap`, `hdl`, ... cannot be imported.
"""

import os
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import regmap
from tools.wheel import build_wheel

from .conftest import ROOT


#: Nothing of the checkout's environment but HOME (Amaranth's Yosys keeps its compiled
#: WebAssembly in the user's cache; without it every run compiles it again, about 20 s).
_ENV = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(site) / "_checkout_venv_deps.pth").write_text(
        "\n".join(sorted(deps)) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                    "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)],
                   check=True)
    work = tmp_path_factory.mktemp("elsewhere")
    return env_dir, work


def test_wheel_holds_only_the_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"kv_asu", f"kv_asu-{regmap.RELEASE}.dist-info"}, tops
    for part in ("regmap/kv_asu.toml", "regmap/__init__.py", "golden_model/model.py",
                 "hdl/generate.py", "hdl/top.py", "__init__.py"):
        assert f"kv_asu/{part}" in names, part
    for absent in ("verif", "tools", "fpga", "tests", "formal", "evaluation"):
        assert not any(n.startswith(f"kv_asu/{absent}/") for n in names), absent


def test_wheel_metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(f"kv_asu-{regmap.RELEASE}.dist-info/METADATA").decode()
        scripts = z.read(f"kv_asu-{regmap.RELEASE}.dist-info/entry_points.txt").decode()
    requires = [l.split(":", 1)[1].strip() for l in meta.splitlines()
                if l.startswith("Requires-Dist:") and "extra ==" not in l]
    assert sorted(r.split("[")[0].split(">")[0].split("<")[0].split("=")[0]
                  for r in requires) == ["amaranth", "mmh3", "numpy"]
    assert "License-Expression: Apache-2.0" in meta
    assert "kv-asu-generate = kv_asu.hdl.generate:main" in scripts
    assert "kv-asu-regmap = kv_asu.regmap.cli:main" in scripts


def test_shipped_modules_import_nothing_outside_the_namespace(wheel):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith(".py"):
                text = z.read(name).decode()
                for top in ("regmap", "golden_model", "hdl", "verif", "tools"):
                    assert f"\nimport {top}\n" not in text, (name, top)
                    assert f"\nfrom {top} import" not in text, (name, top)
                    assert f"\nfrom {top}." not in text, (name, top)


def test_installed_library_works_outside_the_checkout(installed):
    env_dir, work = installed
    script = f"""
import importlib.util, sys
assert importlib.util.find_spec("regmap") is None, "a top-level regmap is importable"
assert importlib.util.find_spec("hdl") is None, "a top-level hdl is importable"
import kv_asu
from kv_asu.regmap import Params, VERSION
from kv_asu.golden_model import KvAsuModel
from kv_asu.hdl.generate import generate
assert kv_asu.__version__ == {regmap.RELEASE!r}
assert VERSION == {regmap.VERSION}
m = KvAsuModel(Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=8, TAG_WIDTH=12))
first = m.request(0, 0, 0x1000)
second = m.request(5, 0, 0x1000)
query = m.request(6, 1, 0x1000, 1)
assert (first.present, first.tracked, second.present, second.count) == (0, 1, 1, 2)
assert query.hit == 1 and m.stats.observes == 2 and m.occupancy == 1
assert callable(generate)   # it runs in test_console_scripts (kv-asu-generate)
print("ok", kv_asu.__file__)
"""
    proc = subprocess.run([str(env_dir / "bin" / "python"), "-c", script], cwd=work,
                          capture_output=True, text=True, env=_ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert str(env_dir) in proc.stdout


def test_console_scripts(installed):
    env_dir, work = installed
    env = _ENV
    out = work / "small.v"
    proc = subprocess.run([str(env_dir / "bin" / "kv-asu-generate"), "--out", str(out),
                           "--param", "ENTRIES=16", "--param", "ADDR_WIDTH=32",
                           "--param", "TAG_WIDTH=12"], cwd=work, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "module kv_asu(" in out.read_text()
    table = subprocess.run([str(env_dir / "bin" / "kv-asu-regmap")], cwd=work, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert table == (ROOT / "docs" / "registers-table.md").read_text()
    header = subprocess.run([str(env_dir / "bin" / "kv-asu-regmap"), "--format", "c"],
                            cwd=work, env=env, capture_output=True, text=True,
                            check=True).stdout
    assert header == (ROOT / "sw" / "kv_asu_regs.h").read_text()
    verilog = subprocess.run([str(env_dir / "bin" / "kv-asu-regmap"), "--format", "verilog"],
                             cwd=work, env=env, capture_output=True, text=True,
                             check=True).stdout
    assert verilog == (ROOT / "dist" / "kv_asu_regs.vh").read_text()


def test_release_version_is_one_number_everywhere():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == regmap.RELEASE
    major, minor, patch = (int(x) for x in regmap.RELEASE.split("."))
    assert regmap.VERSION == major << 16 | minor << 8 | patch
    for core in ("kv_asu", "kv_asu_predictor", "kv_asu_ice40", "kv_asu_gen"):
        assert (f"name: kvasu:ip:{core}:{regmap.RELEASE}\n"
                in (ROOT / f"{core}.core").read_text()), core
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{regmap.RELEASE}]" in changelog


def test_licence_is_the_apache_2_text():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text) > 10000


def test_make_brings_an_existing_venv_up_to_date_when_a_pin_changes():
    # -W: as if constraints.txt had just been edited; -n: print, run nothing
    proc = subprocess.run(["make", "-n", "-W", "constraints.txt", ".venv/.ready"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert "pip install" in proc.stdout and "-c constraints.txt" in proc.stdout, proc.stdout
    assert "pip uninstall" in proc.stdout          # an old self-install is removed
    assert " -e " not in proc.stdout                # the project itself is never installed

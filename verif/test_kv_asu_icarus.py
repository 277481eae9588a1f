# SPDX-License-Identifier: Apache-2.0
"""The Icarus runs of the cocotb regression (verif/test_kv_asu.py's matrix, helpers and
environment knobs), in a module of their own: `make test` runs its pytest modules in two
pytest-xdist workers, one module per worker at a time (``--dist loadscope``), so the Icarus
runs go on beside the other long modules instead of after them."""

from __future__ import annotations

import pytest

from verif.test_kv_asu import MODULES, _core_options, _regression, option_runs_on, runs_on


@pytest.mark.parametrize("sim, config", runs_on("icarus"))
def test_cocotb(sim, config, capsys):
    _regression(sim, config, None, MODULES, capsys)


@pytest.mark.parametrize("sim, config, options, modules", option_runs_on("icarus"))
def test_cocotb_options(sim, config, options, modules, capsys):
    _regression(sim, config, _core_options(options), modules, capsys)

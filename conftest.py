# SPDX-License-Identifier: Apache-2.0
"""Fixtures shared by the tests under tests/ and verif/."""

import pytest


@pytest.fixture(scope="session")
def fast_build_root(tmp_path_factory):
    """One folder for the fast C++ harness's builds, shared by every test that replays
    through it: a build of one configuration takes a minute or two, a rebuild of an
    unchanged one nothing (``verif.fast.build`` rebuilds only what changed)."""
    return tmp_path_factory.mktemp("fast")


#: The test modules that take minutes, longest first (their test time in a whole run, 2-core
#: machine: the cocotb runs on Verilator about 300 s, the quick formal jobs 300 s, test_core
#: 275 s, test_predictor_core 190 s, Icarus 140 s, test_faults 140 s, test_top 90 s,
#: test_fast 55 s; everything else about 280 s). They are collected first, so that
#: `make test` (``--dist loadscope --no-loadscope-reorder``: one module per worker at a
#: time, handed out in collection order) hands the long ones out first and the short
#: modules even out the two workers' ends; a long module handed out last leaves one worker
#: running alone. xdist's default order (most tests first) would hand out the cocotb
#: modules, with a few tests each, last.
LONG_MODULES = ["verif/test_kv_asu.py", "tests/formal/test_formal_quick.py",
                "tests/hdl/test_core.py", "tests/hdl/test_predictor_core.py",
                "verif/test_kv_asu_icarus.py", "tests/verif/test_faults.py",
                "tests/hdl/test_top.py", "verif/test_fast.py"]


def pytest_collection_modifyitems(session, config, items):
    """Collect ``LONG_MODULES`` first, in their order; the rest keep theirs (a stable sort)."""
    rank = {path: i for i, path in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))

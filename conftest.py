# SPDX-License-Identifier: Apache-2.0
"""Fixtures shared by the tests under tests/ and verif/."""

import shlex

import pytest


@pytest.fixture(scope="session")
def fast_build_root(tmp_path_factory, worker_id):
    """One folder for the fast C++ harness's builds, shared by every test that replays
    through it, on every pytest-xdist worker (the workers' temporary folders have one
    parent): a build of one configuration takes half a minute or more, a rebuild of an
    unchanged one nothing (``verif.fast.build`` rebuilds only what changed, one process at
    a time per build folder). Not a folder kept between pytest runs: a run of the harness
    takes no lock and checks only the build's parameters, so two runs at once on different
    sources would run each other's builds."""
    if worker_id == "master":
        return tmp_path_factory.mktemp("fast")
    root = tmp_path_factory.getbasetemp().parent / "fast"
    root.mkdir(exist_ok=True)
    return root


@pytest.fixture(autouse=True)
def _print_module_seed(request):
    """Print the seed of a test module that draws its random cases from a module-level
    ``SEED`` (``KV_ASU_TEST_SEED``, or the module's default), so that the output pytest
    shows for a failing test says how to run it again with the same cases."""
    seed = getattr(request.module, "SEED", None)
    if isinstance(seed, int):
        print(f"{request.node.nodeid}: seed {seed} (KV_ASU_TEST_SEED={seed} repeats it)")
    yield


#: The variable a ``seed`` fixture reads, by the folder of its tests (else ``KVASU_SEED``).
FIXTURE_SEED_VARIABLE = {"tests/golden_model/": "GM_SEED"}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that draws from a ``seed`` fixture (the fast harness's tests, the fault
    campaigns, the firmware test: ``$KVASU_SEED``, else a fresh one; the golden model's:
    ``$GM_SEED``) says in its own report how to run it again with that seed. The harnesses'
    fixtures print the seed once per module or once for the whole pytest run, which the
    report of a later test would not show."""
    report = yield
    seed = getattr(item, "funcargs", {}).get("seed")
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "seed" in callspec.params:
        seed = None              # a parameter of the test's own, which no variable sets
    if report.failed and isinstance(seed, int) and not isinstance(seed, bool):
        variable = next((v for folder, v in FIXTURE_SEED_VARIABLE.items()
                         if item.nodeid.startswith(folder)), "KVASU_SEED")
        report.sections.append(("seed", f"{variable}={seed} python -m pytest "
                                        f"{shlex.quote(item.nodeid)} runs it again with "
                                        f"this seed"))
    return report


#: The test modules that take minutes, longest first as measured on a clean clone (where
#: every Verilator build is made from nothing). They are collected first, so that `make
#: test` (``--dist loadscope --no-loadscope-reorder``: one module per worker at a time,
#: handed out in collection order) gives its two workers the long modules first and the
#: short ones fill in after: the longest-first order that keeps one worker from running a
#: long module alone at the end. xdist's default order (most tests first) would hand out
#: the cocotb modules, with a few tests each, last and one after the other.
LONG_MODULES = ["tests/formal/test_formal_quick.py", "tests/hdl/test_core.py",
                "verif/test_kv_asu.py", "tests/verif/test_faults.py", "verif/test_fast.py",
                "tests/hdl/test_top.py", "tests/hdl/test_predictor_core.py",
                "verif/test_kv_asu_icarus.py", "tests/integration/test_firmware.py",
                "tests/integration/test_dist.py", "tests/verif/test_mutate.py"]


def pytest_collection_modifyitems(session, config, items):
    """Collect ``LONG_MODULES`` first, in their order; the rest keep theirs (a stable sort)."""
    rank = {path: i for i, path in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))

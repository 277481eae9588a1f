# SPDX-License-Identifier: Apache-2.0
"""Fixtures shared by the tests under tests/ and verif/."""

import pytest


@pytest.fixture(scope="session")
def fast_build_root(tmp_path_factory):
    """One folder for the fast C++ harness's builds, shared by every test that replays
    through it: a build of one configuration takes a minute or two, a rebuild of an
    unchanged one nothing (``verif.fast.build`` rebuilds only what changed)."""
    return tmp_path_factory.mktemp("fast")

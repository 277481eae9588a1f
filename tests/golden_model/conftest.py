# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the golden-model tests."""

import os
import zlib

import pytest


@pytest.fixture
def seed(request) -> int:
    """A reproducible seed for a random test, printed (pytest shows it when the test fails).

    By default it is derived from the test's id, so every run is the same; set
    ``GM_SEED=<n>`` to run the random tests with another seed.
    """
    env = os.environ.get("GM_SEED")
    value = int(env, 0) if env else zlib.crc32(request.node.nodeid.encode())
    print(f"random seed {value}: rerun with GM_SEED={value}")
    return value

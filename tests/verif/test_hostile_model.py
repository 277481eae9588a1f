# SPDX-License-Identifier: Apache-2.0
"""Lines aimed at one window under the public seed are mostly dropped; a secret seed
spreads them (golden model only; verif/test_fast.py runs the same on the RTL)."""

import random

import mmh3

from regmap import Params
from verif.hostile import attack, colliding_lines


def test_colliding_lines_share_a_home_slot():
    p = Params(ENTRIES=256)
    tags = colliding_lines(p, 10, random.Random(3), home=17)
    assert len(set(tags)) == 10
    assert {mmh3.hash(t.to_bytes(8, "little"), 0, signed=False) % 256 for t in tags} == {17}


def test_public_seed_tracks_one_window_and_drops_the_rest():
    p = Params()
    report = attack(p, 48, 6, 0x5EC2E7, random.Random(11))
    public, secret = report["public_seed_0"], report["secret_seed"]
    assert public["tracked_at_end"] <= p.PROBE
    assert public["drops"] >= 0.85 * public["observes"]
    assert secret["tracked_at_end"] >= 46 and secret["drops"] <= 0.02 * secret["observes"]

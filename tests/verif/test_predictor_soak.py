# SPDX-License-Identifier: Apache-2.0
"""A short soak of the predictor build (verif.predictor_soak): the Verilated RTL with
``CoreOptions.predictor``, committed to ``POLICY.MODE = 1`` (and switched to 0 and back),
every response and register access checked against the golden model; fails on the first
difference. The long run is ``make soak-predictor``."""

import io
import os

from verif.predictor_soak import CONFIGS, predictor_soak

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))


def test_short_predictor_soak(fast_build_root):
    print(f"seed {SEED}")
    log = io.StringIO()
    summary = predictor_soak(CONFIGS["small"], 8000, SEED, fast_build_root / "predictor_small",
                             chunk=4000, out=log)
    print(log.getvalue())
    assert summary["requests"] == 8000 and summary["mismatches"] == 0
    stats = summary["model_stats_of_last_runs"]
    assert stats["inserts"] and stats["evicts"] and stats["obs_t3"], stats

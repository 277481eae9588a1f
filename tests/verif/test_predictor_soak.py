# SPDX-License-Identifier: Apache-2.0
"""A short soak of the predictor build (verif.predictor_soak): the Verilated RTL with
``CoreOptions.predictor``, committed to ``POLICY.MODE = 1`` (switched to 0 and back at a
random quarter of its barriers), every response and register access checked against the
golden model; fails on the first difference. The long run is ``make soak-predictor``."""

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
    codes = summary["axi_responses"]      # the register fuzzing hit every kind of answer
    for code in ("read_OKAY", "read_DECERR", "write_OKAY", "write_SLVERR", "write_DECERR"):
        assert codes.get(code, 0) > 0, codes
    assert summary["sweeps"] >= summary["chunks"], summary    # D12's clear sweep, per chunk
    ready = [m["ready_permille"] for m in summary["axi_masters"]]   # B and R back-pressured
    assert len(ready) == summary["chunks"] and {700, 300} <= set(ready), ready


def _run_model(model, requests, start):
    for cycle, op, addr, min_tlevel in requests:
        model.request(start + cycle, op, addr, min_tlevel)
    return start + requests[-1][0] + 1


def test_sampled_loops_enter_and_leave_loop_mode():
    """The soak's loops over sampled windows: one longer than a shadow takes the model into
    loop mode from reset, one as long as a shadow takes it out, with the table full."""
    import random

    from golden_model import KvAsuModel
    from golden_model.predictor import PSEL_LOOP
    from verif.predictor_soak import _sampled_loop_requests

    params = CONFIGS["small"]
    depth = params.ENTRIES >> 4
    rng = random.Random(SEED)
    model = KvAsuModel(params, policy="predictor")
    state = model._predictor
    start = _run_model(model, _sampled_loop_requests(params, rng, 8000, 0, size=depth + 1), 0)
    assert state.psel >= PSEL_LOOP and model.occupancy == params.ENTRIES
    _run_model(model, _sampled_loop_requests(params, rng, 2000, 0, size=depth), start)
    assert state.psel < PSEL_LOOP

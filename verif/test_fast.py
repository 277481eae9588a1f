# SPDX-License-Identifier: Apache-2.0
"""The Verilated RTL in the fast C++ harness, every response checked by the golden model.

CI-sized runs of the soak (mixed traffic, back-pressure, register fuzzing, commits and
flushes), the throughput patterns of the benchmark, and the hostile-address study. The
long versions are `make soak` and `make bench`. Seeds are printed; set KVASU_SEED to
reproduce a failure.
"""

import os
import random

import pytest

from verif import fast
from verif.hostile import attack_rtl, colliding_lines
from verif.soak import CONFIGS, soak


@pytest.fixture(scope="module")
def seed():
    value = int(os.environ.get("KVASU_SEED", random.SystemRandom().getrandbits(32)))
    print(f"KVASU_SEED={value}")
    return value


@pytest.fixture(scope="module")
def build_root(fast_build_root):
    return fast_build_root


# The default configuration is covered by the cocotb regression (verif/test_kv_asu.py); its
# fast-harness build needs tens of GB of g++ memory, so CI soaks the small one here.
@pytest.mark.parametrize("config, requests", [("small", 200_000)])
def test_soak_short(config, requests, seed, build_root, capsys):
    summary = soak(CONFIGS[config], requests, seed, build_root / config, chunk=requests // 2)
    assert summary["requests"] == requests and summary["mismatches"] == 0
    codes = summary["axi_responses"]
    # the register fuzzing really hit every kind of answer
    for code in ("read_OKAY", "read_DECERR", "write_OKAY", "write_SLVERR", "write_DECERR"):
        assert codes.get(code, 0) > 0, codes


def test_one_request_per_cycle_for_observe_and_query(build_root):
    from tools.bench import measure_patterns
    params = CONFIGS["small"]
    exe = fast.build(params, build_root / "small")
    results = measure_patterns(params, exe, 3000)
    for name, figures in results.items():
        if name.startswith(("observe", "query")):
            assert figures["requests_per_cycle"] == 1.0, (name, figures)
        assert figures["latency_cycles_min"] == figures["latency_cycles_max"], (name, figures)


def test_secret_seed_spreads_hostile_lines_on_the_rtl(seed, build_root):
    params = CONFIGS["small"]
    tags = colliding_lines(params, 8, random.Random(seed))
    report = attack_rtl(params, tags, 4, random.Random(seed).getrandbits(32) | 1,
                        build_root / "small")    # every response checked against the model
    after = report["secret_seed_on_rtl"]
    assert after["tracked_at_end"] > params.PROBE, after   # no longer confined to one window

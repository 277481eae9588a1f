# SPDX-License-Identifier: Apache-2.0
"""The Verilated RTL in the fast C++ harness, every response checked by the golden model.

CI-sized runs of the soak (mixed traffic, back-pressure, register fuzzing, commits and
flushes), the throughput patterns of the benchmark, and the hostile-address study. The
long versions are `make soak` and `make bench`. Seeds are printed; set KVASU_SEED to
reproduce a failure.
"""

import os
import random

import numpy as np
import pytest

from golden_model.trace import save_trace
from regmap import OPS
from verif import fast
from verif.hostile import attack_rtl, colliding_lines
from verif.predictor_soak import CONFIGS as PREDICTOR_CONFIGS
from verif.replay import replay
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
    # every chunk's sixteen flushes in a row ran the clear sweep at least once (D12)
    assert summary["sweeps"] >= summary["chunks"], summary


@pytest.mark.parametrize("kw, match", [({"ready_permille": 1001}, "ready_permille"),
                                       ({"reads": 0}, "reads"), ({"skew": -1}, "skew")])
def test_an_axi_master_out_of_range_is_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        fast.AxiMaster(**kw)


def test_drain_refill_evicts_a_tail_within_w1():
    """The soak's drain and refill (``Traffic.drain_refill``): the list emptied, a few new
    lines, and EVICTs whose tail is within W1, which an EVICT refuses and an EVICT_ANY
    takes (elsewhere in a soak the tail is older than W1)."""
    from golden_model import KvAsuModel
    from verif.soak import Traffic

    params = CONFIGS["small"]
    traffic = Traffic(params, random.Random(4))
    model = KvAsuModel(params)
    for cycle, op, addr, min_tlevel in traffic.requests(300, 0):
        model.request(cycle, op, addr, min_tlevel)
    refused = taken = 0
    for _ in range(20):
        cycle += 1
        segment = traffic.drain_refill(cycle)
        drain = params.ENTRIES + 1
        for _, op, addr, min_tlevel in segment[:drain]:
            model.request(cycle, op, addr, min_tlevel)
        assert model.occupancy == 0
        for _, op, addr, min_tlevel in segment[drain:]:
            tracked = model.occupancy
            response = model.request(cycle, op, addr, min_tlevel)
            if op == OPS["EVICT"]:
                assert not response.victim_valid
                refused += tracked > 0
            elif op == OPS["EVICT_ANY"]:
                assert response.victim_valid == (tracked > 0)
                taken += tracked > 0
    assert refused and taken


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


def test_a_gap_longer_than_the_hang_bound_replays_clean(build_root, tmp_path):
    """A trace may be idle for longer than the harness's 100 000-cycle hang bound (a video
    trace waits a frame period between frames): waiting for a request's cycle is not a hang.
    The requests after the gap find the lines before it (their ages saturated). The gap
    passes cycle 2**24, where the harness reports its progress."""
    gap = (1 << 24) + 1000
    lines = [0x40 * k for k in range(6)]
    cycle = list(range(6)) + [gap + k for k in range(12)]
    op = [OPS["OBSERVE"]] * 6 + [OPS["QUERY"], OPS["OBSERVE"]] * 6
    addr = lines + [a for line in lines for a in (line, line)]
    path = tmp_path / "gap.npz"
    save_trace(path, np.array(cycle, np.uint64), np.array(op, np.uint8),
               np.array(addr, np.uint64), np.zeros(len(cycle), np.uint8))
    reports = []
    s = replay(path, CONFIGS["small"], build_root / "small",
               progress=lambda *report: reports.append(report))   # raises fast.Mismatch
    assert s["requests"] == len(cycle)
    assert s["model_stats"]["queries"] == 6 and s["model_stats"]["observes"] == 12
    assert s["rtl_stats"] == s["model_stats"]
    assert reports == [(1 << 24, 6, 12)]


def test_replay_in_the_predictor_mode(build_root, tmp_path):
    """``verif.replay --predictor``: the predictor build, POLICY.MODE = 1 committed before the
    first request, every response and statistic equal to the model in that mode. The trace
    loops over 1.5 times the table with EVICTs between, so ghosts and their frees occur."""
    params = PREDICTOR_CONFIGS["small"]
    rng = random.Random(3)
    loop = [rng.getrandbits(params.TAG_WIDTH) << params.LINE_SHIFT
            for _ in range(params.ENTRIES * 3 // 2)]
    cycle, op, addr = [], [], []
    for k in range(3000):
        line = loop[k % len(loop)]
        cycle.append(k)
        op.append(OPS["EVICT"] if k % 3 == 2 else OPS["QUERY"] if k % 7 == 0 else OPS["OBSERVE"])
        addr.append(0 if op[-1] == OPS["EVICT"] else line)
    path = tmp_path / "loop.npz"
    save_trace(path, np.array(cycle, np.uint64), np.array(op, np.uint8),
               np.array(addr, np.uint64), np.full(len(cycle), 3, np.uint8))
    s = replay(path, params, build_root / "predictor_small", predictor=True)
    assert s["policy"] == "predictor" and s["rtl_stats"] == s["model_stats"]
    assert s["model_stats"]["evicts"] > 0 and s["model_stats"]["inserts"] > 0


def test_a_block_that_stops_answering_is_reported_as_a_hang(build_root):
    """The hang bound still holds while the block owes a handshake: with the response
    consumer never ready, the block stops taking requests and the harness gives up."""
    params = CONFIGS["small"]
    exe = fast.build(params, build_root / "small")
    requests = [(k, OPS["QUERY"], 0x40 * k, 0) for k in range(200)]
    with pytest.raises(fast.Hang, match="no progress"):
        fast.run(exe, params, requests, ready_permille=0)

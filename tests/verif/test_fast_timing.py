# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""The fast path's check of the recorded cycles (``verif.fast.scoreboard``): a run whose
responses come too soon, two at one edge, or, with the consumer always ready, at another
cycle than the build's latency and the response ahead allow, fails, whatever it answered."""

import numpy as np
import pytest

from golden_model import KvAsuModel
from regmap import OPS, Params
from verif.codec import Codec
from verif.fast import FastResult, Mismatch, check
from verif.fast.scoreboard import _timing_problems

LATENCY = 19


def _result(accept, respond, words=None):
    n = len(accept)
    words = np.zeros((n, 1), np.uint32) if words is None else words
    return FastResult(np.array(accept, np.uint64), np.array(respond, np.uint64), words, [],
                      0.0, int(max(respond, default=0)) + 1)


def test_a_stream_at_its_latency_passes():
    acc = [0, 1, 2, 10]
    assert _timing_problems(_result(acc, [19, 20, 21, 29]), LATENCY, True) == []
    # back-pressure: later responses wait for the one ahead, never sooner than the latency
    assert _timing_problems(_result(acc, [25, 26, 27, 29]), LATENCY, False) == []


@pytest.mark.parametrize("accept, respond, always_ready, says", [
    ([0, 1, 2], [19, 20, 20], False, "answered at cycles 20 and 20"),     # two at one edge
    ([0, 1, 2], [19, 21, 20], False, "answered at cycles 21 and 20"),     # out of order
    ([0, 0, 2], [19, 20, 21], False, "accepted at cycles 0 and 0"),
    ([0, 1, 2], [19, 20, 26], True, "due at 21"),             # late, the consumer ready
    ([0, 5], [18, 24], False, "sooner than 19"),
    ([0, 5], [0, 24], False, "sooner than 19"),               # in its acceptance cycle
])
def test_a_stream_that_breaks_the_rules_fails(accept, respond, always_ready, says):
    problems = _timing_problems(_result(accept, respond), LATENCY, always_ready)
    assert any(says in p for p in problems), problems


def test_without_a_latency_a_response_must_still_follow_its_request():
    assert _timing_problems(_result([3], [3]), None, False)
    assert not _timing_problems(_result([3], [4]), None, False)


def test_check_raises_on_a_timing_problem_before_comparing_answers():
    """Right answers at a wrong cycle fail: the model's responses, handed over one cycle
    sooner than the latency."""
    p = Params()
    codec = Codec(p)
    requests = [(0, OPS["OBSERVE"], 0x1000, 0), (0, OPS["QUERY"], 0x1000, 0)]
    acc = np.array([0, 1], np.uint64)
    expected = KvAsuModel(p).run(acc, np.array([r[1] for r in requests], np.uint64),
                                 np.array([r[2] for r in requests], np.uint64),
                                 np.zeros(2, np.uint64), responses=True)
    packed = [codec.pack_rsp(e.as_dict()) for e in expected]
    words = np.array([[(w >> (32 * i)) & 0xFFFF_FFFF for i in range(codec.rsp_words)]
                      for w in packed], np.uint32)
    good = FastResult(acc, acc + LATENCY, words, [], 0.0, 40)
    assert check(p, KvAsuModel(p), requests, [], good, latency=LATENCY,
                 always_ready=True)["mismatches"] == 0
    early = FastResult(acc, acc + LATENCY - 1, words, [], 0.0, 40)
    with pytest.raises(Mismatch, match="sooner than 19"):
        check(p, KvAsuModel(p), requests, [], early, latency=LATENCY)


@pytest.mark.parametrize("options", [
    {}, {"compact": True}, {"predictor": True, "protection": "none"}, {"hash_mul_stages": 0}])
def test_build_timing_is_the_built_cores(options):
    """The testbench's build constants (``verif.runner.build_timing``, derived without
    building a core, so without its unused-elaboratable warnings) are those of the core
    the options build."""
    import warnings

    from amaranth.hdl import UnusedElaboratable

    from hdl.core import CoreOptions, KvAsuCore
    from verif.runner import build_timing
    options = CoreOptions(**options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # build_timing warns nothing
        timing = build_timing(Params(), options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        core = KvAsuCore(Params(), options)
    assert timing == {"latency": core.latency, "evict_gap": core.evict_gap,
                      "evict_evict_gap": core.evict_evict_gap,
                      "predictor_gap": core.predictor_gap, "rows": 512,
                      "credits": core.fifo_depth}

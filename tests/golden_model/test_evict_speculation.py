# SPDX-License-Identifier: Apache-2.0
"""tools.evict_speculation: the design study of an EVICT taken without the OBSERVE gap.

Its central claim, that a guess no OBSERVE in flight moved is the list's real tail, is an
assertion inside ``count_edges`` against the golden model; these tests run it on streams
that exercise it and check the edge counts of both rules on patterns whose rates are known.
"""

import random

from golden_model import KvAsuModel, Op
from regmap import Params
from tools.bench import patterns
from tools.evict_speculation import count_edges

GAPS = dict(evict_gap=6, evict_evict_gap=3)     # the default build's (docs/rtl.md)
SMALL = Params(ENTRIES=16, PROBE=2)


def _warmed(params, lines):
    model = KvAsuModel(params)
    for i, line in enumerate(lines):
        model.request(i, Op.OBSERVE, line << params.LINE_SHIFT)
    return model


def _run(params, model, requests, speculative):
    return count_edges(params, requests, speculative=speculative, model=model,
                       start=model.cycle + 100, **GAPS)


def test_an_evict_whose_tail_moved_in_flight_is_refused():
    lines = [0x10, 0x20, 0x30]
    for observed, refused in ((0x10, 1), (0x30, 0)):   # the tail, then the head
        requests = [(0, Op.OBSERVE, observed << SMALL.LINE_SHIFT, 0), (0, Op.EVICT_ANY, 0, 0)]
        spec = _run(SMALL, _warmed(SMALL, lines), requests, True)
        built = _run(SMALL, _warmed(SMALL, lines), requests, False)
        assert spec["refused"] == refused
        assert spec["pops"] == 1 - refused and built["pops"] == 1
        assert (spec["edges"], built["edges"]) == (2, 1 + GAPS["evict_gap"] + 1)


def test_rates_of_both_rules_on_known_patterns():
    params = Params()
    warm, measured = patterns(params, 400)["evict_any_observe_alternating"]
    for speculative, edges_per_pair in ((False, GAPS["evict_gap"] + 2),
                                        (True, GAPS["evict_evict_gap"] + 1)):
        model = KvAsuModel(params)
        count_edges(params, warm, speculative=speculative, model=model, **GAPS)
        got = _run(params, model, measured, speculative)
        # (the first EVICT waits for nothing, the last OBSERVE for nothing after it)
        assert got["edges"] == edges_per_pair * (len(measured) // 2 - 1) + 2
        assert got["refused"] <= got["evicts"] == len(measured) // 2


def test_the_guess_is_the_tail_on_random_streams(seed):
    rng = random.Random(seed)
    lines = [rng.randrange(1 << 12) for _ in range(24)]
    requests = [(0, rng.choice([Op.OBSERVE] * 5 + [Op.QUERY, Op.EVICT, Op.EVICT_ANY]),
                 rng.choice(lines) << SMALL.LINE_SHIFT, rng.randrange(4)) for _ in range(4000)]
    spec = count_edges(SMALL, requests, speculative=True, **GAPS)
    built = count_edges(SMALL, requests, speculative=False, **GAPS)
    assert spec["edges"] <= built["edges"]
    assert 0 < spec["refused"] < spec["evicts"] == built["evicts"]

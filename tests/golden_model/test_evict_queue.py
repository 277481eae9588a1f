# SPDX-License-Identifier: Apache-2.0
"""tools.evict_queue: the design study of posted EVICTs in the non-blocking mode.

Depth 0 is the mode as built, so it must give what ``make bench-nonblocking`` measures on
the RTL (README, the non-blocking table); a deeper queue must lose no EVICT it has room for
and keep the EVICTs' order."""

import pytest

from regmap import OPS
from tools.evict_queue import default_timing, patterns, post_evicts

EVICT, EVICT_ANY, OBSERVE = OPS["EVICT"], OPS["EVICT_ANY"], OPS["OBSERVE"]


@pytest.fixture(scope="module")
def streams():
    return patterns()


@pytest.fixture(scope="module")
def timing():
    return default_timing()


def test_depth_0_is_the_built_mode(streams, timing):
    # The RTL's figures (make bench-nonblocking): 2 965 of 3 000 taken, 64 of 256.
    for name, taken in (("video trace, 3 000 requests back to back", 2965),
                        ("256 EVICT_ANY back to back", 64)):
        cycles, ops, b2b = streams[name]
        r = post_evicts(cycles, ops, 0, back_to_back=b2b, timing=timing)
        assert (r["taken"], r["dropped"], r["posted"]) == (taken, len(ops) - taken, 0)


def test_a_deep_queue_takes_every_evict_of_the_trace(streams, timing):
    cycles, ops, b2b = streams["video trace at its own cycles"]
    shallow = post_evicts(cycles, ops, 0, back_to_back=b2b, timing=timing)
    deep = post_evicts(cycles, ops, 64, back_to_back=b2b, timing=timing)
    assert shallow["dropped"] > 0
    assert deep["dropped"] == 0 and deep["taken"] == len(ops)
    assert deep["wait_max"] >= deep["wait_mean"] > 0


def test_posted_evicts_wait_for_the_gap_and_keep_their_order(timing):
    # An OBSERVE, then an EVICT (posted: in the OBSERVE's gap) and an EVICT_ANY behind it
    # (posted too: the queue is not empty), then nothing: the EVICT is taken first, at the
    # first edge past the OBSERVE's gap, the EVICT_ANY past the EVICT's.
    r = post_evicts([0, 1, 2], [OBSERVE, EVICT, EVICT_ANY], 4, back_to_back=True,
                    timing=timing)
    assert (r["taken"], r["posted"], r["dropped"]) == (3, 2, 0)
    first = timing.evict_gap + 1                  # the EVICT's edge; posted at edge 1
    second = first + timing.evict_evict_gap + 1   # the EVICT_ANY's; posted at edge 2
    assert r["wait_max"] == second - 2
    assert r["wait_mean"] == ((first - 1) + (second - 2)) / 2


def test_a_full_queue_drops(timing):
    r = post_evicts([0] * 5, [OBSERVE] + [EVICT] * 4, 1, back_to_back=True, timing=timing)
    assert (r["posted"], r["dropped"]) == (1, 3)
    with pytest.raises(ValueError):
        post_evicts([0], [EVICT], -1, back_to_back=True, timing=timing)

# SPDX-License-Identifier: Apache-2.0
"""The fault-injection hook of the fast harness and the campaign's classifier
(``verif.faults``), on today's core (no protection): a short seeded campaign and directed
upsets whose class is known. Set KVASU_SEED to reproduce the campaign."""

import os
import random

import pytest

from golden_model import KvAsuModel, Op
from verif import fast
from verif.faults import (CLASSES, _first_difference, campaign, classify, location,
                          run_one, targets)
from verif.soak import CONFIGS

PARAMS = CONFIGS["small"]


@pytest.fixture(scope="module")
def exe(fast_build_root):
    return fast.build(PARAMS, fast_build_root / "small", faults=True)


@pytest.fixture(scope="module")
def verilog(exe, fast_build_root):
    return (fast_build_root / "small" / "kv_asu.v").read_text()


def test_classify():
    assert classify(hang=True, mismatch=True, flagged=True) == "hang"
    assert classify(hang=False, mismatch=False, flagged=False) == "masked"
    assert classify(hang=False, mismatch=True, flagged=False) == "silent"
    assert classify(hang=False, mismatch=False, flagged=True) == "detected_recovered"
    assert classify(hang=False, mismatch=True, flagged=True) == "detected_unrecovered"


def test_first_difference():
    assert _first_difference("1 mismatches; first:\n  read 0x130 at cycle 9: got OKAY 0x59, "
                             "expected OKAY 0x19") == "register"
    assert _first_difference("2 mismatches; first:\n  response 3 (op 2, addr 0x10, min_tlevel"
                             " 0, accepted at cycle 5): slot expected 4 got 11, victim_tag "
                             "expected 7 got 5; expected {'op': 2}") == "response: slot victim_tag"
    assert _first_difference("harness failed (2): response with no request") == "protocol"


def test_targets_are_the_block_rams(verilog):
    found = sorted((t.memory, t.bank) for t in targets(verilog))
    banks = [(mem, b) for mem in ("ent", "mark", "meta") for b in range(PARAMS.PROBE)]
    assert found == sorted(banks + [("scrub", None), ("stats", None)] +
                           [(f"{x}{i}", None) for x in ("next", "prev") for i in (0, 1)])
    assert all("fifo" not in t.array.name for t in targets(verilog))
    by_name = {(t.memory, t.bank): t for t in targets(verilog)}
    assert location(PARAMS, by_name[("ent", 2)], 3, 0) == ("ent", 3 * PARAMS.PROBE + 2)
    lane = by_name[("scrub", None)].array.width // PARAMS.PROBE
    assert location(PARAMS, by_name[("scrub", None)], 1, 3 * lane) == ("scrub", 7)
    assert location(PARAMS, by_name[("prev1", None)], 9, 2) == ("prev1", 9)


def _array(verilog, memory, bank):
    """The harness name of one D11 memory's array, as the campaign names it."""
    (target,) = [t for t in targets(verilog) if (t.memory, t.bank) == (memory, bank)]
    return "TOP." + target.array.name


def _line_slot(requests, addr):
    model = KvAsuModel(PARAMS)
    for r in requests:
        model.request(*r)
    return model.find(addr)


def test_flipped_tag_bit_of_a_tracked_line_is_a_silent_corruption(exe, verilog):
    addr = 0x4500
    requests = [(10, int(Op.OBSERVE), addr, 0), (200, int(Op.QUERY), addr, 0)]
    slot = _line_slot(requests[:1], addr)
    fault = fast.Fault(100, _array(verilog, "ent", slot % PARAMS.PROBE),
                       slot // PARAMS.PROBE, 0)                 # tag bit 0
    clean = run_one(exe, PARAMS, 1, None, requests=requests)
    hit = run_one(exe, PARAMS, 1, fault, requests=requests)
    assert clean["class"] == "masked", clean
    assert hit["class"] == "silent", hit
    assert "present expected 1 got 0" in hit["detail"]


def test_upset_in_an_untracked_slots_word_is_masked(exe, verilog):
    rng = random.Random(5)
    lines = [rng.getrandbits(20) << 8 for _ in range(3)]
    requests = [(10 + 3 * i, int(Op.OBSERVE), a, 0) for i, a in enumerate(lines * 4)]
    used = {_line_slot(requests, a) for a in lines}
    free = next(s for s in range(PARAMS.ENTRIES) if s not in used)
    for bit in (0, PARAMS.TAG_WIDTH - 1, PARAMS.TAG_WIDTH):     # tag bits, a count bit
        fault = fast.Fault(20, _array(verilog, "ent", free % PARAMS.PROBE),
                           free // PARAMS.PROBE, bit)
        assert run_one(exe, PARAMS, 1, fault, requests=requests)["class"] == "masked"


def test_short_campaign_on_the_unprotected_core(exe, fast_build_root, capsys):
    seed = int(os.environ.get("KVASU_SEED", random.SystemRandom().getrandbits(32)))
    summary = campaign(PARAMS, 16, seed, fast_build_root / "small", n_requests=150)
    print(capsys.readouterr().out)
    assert sum(summary["classes"].values()) == 16
    assert summary["classes"]["hang"] == 0, summary["examples"]
    # Nothing on today's core flags an error, so nothing may be classified as detected.
    assert summary["classes"]["detected_recovered"] == 0
    assert summary["classes"]["detected_unrecovered"] == 0
    assert set(summary["classes"]) == set(CLASSES)
    assert sum(sum(c.values()) for c in summary["by_memory"].values()) == 16
    assert sum(sum(c.values()) for c in summary["silent_first_difference"].values()) == \
        summary["classes"]["silent"]

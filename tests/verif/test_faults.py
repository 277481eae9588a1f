# SPDX-License-Identifier: Apache-2.0
"""The fault-injection hook of the fast harness and the campaign (``verif.faults``) on the
protected core (the default options, docs/spec-decisions.md D11) and on the unprotected one
(``CoreOptions(protection="none")``): directed upsets whose outcome is known, and short
seeded campaigns that assert D11's targets. Set KVASU_SEED to reproduce the campaigns."""

import random
import warnings

import pytest

from golden_model import KvAsuModel, Op
from hdl.core import CoreOptions
from hdl.ecc import Code
from regmap import MEM_IDS, REG, STAT_NAMES
from verif import fast
from verif.faults import (CLASSES, _first_difference, _Plan, campaign, classify, codes,
                          location, misreported, recovery_bound, replay, run_one, run_shared,
                          targets)
from verif.seeds import announced_seed
from verif.soak import CONFIGS

PARAMS = CONFIGS["small"]
UNPROTECTED = CoreOptions(protection="none")
UNCORRECTABLE = REG["ERR_FIRST_MEM"].mask("UNCORRECTABLE")


@pytest.fixture(scope="module")
def exe(fast_build_root):
    return fast.build(PARAMS, fast_build_root / "small", faults=True)


@pytest.fixture(scope="module")
def verilog(exe, fast_build_root):
    return (fast_build_root / "small" / "kv_asu.v").read_text()


@pytest.fixture(scope="module")
def exe_unprotected(fast_build_root):
    return fast.build(PARAMS, fast_build_root / "small_unprotected", faults=True,
                      options=UNPROTECTED)


@pytest.fixture(scope="module")
def verilog_unprotected(exe_unprotected, fast_build_root):
    return (fast_build_root / "small_unprotected" / "kv_asu.v").read_text()


@pytest.fixture(scope="module")
def lag():
    from hdl.core import KvAsuCore
    return KvAsuCore(PARAMS).decision_lag


@pytest.fixture(scope="module")
def stat_lag():
    from amaranth.hdl import UnusedElaboratable
    from hdl.top import KvAsu
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        return KvAsu(PARAMS).regs.stat_lag


@pytest.fixture
def seed():
    """The campaign's seed (``$KVASU_SEED``, else a fresh one), printed."""
    return announced_seed()


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


@pytest.mark.parametrize("protected", [True, False])
def test_targets_are_the_block_rams(protected, request):
    verilog = request.getfixturevalue("verilog" if protected else "verilog_unprotected")
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


def test_stored_words_carry_the_check_bits_of_their_code(verilog, verilog_unprotected):
    """Every protected array is as wide as its code words (D11's rule, ``codes``); the
    unprotected build's are the data words."""
    plain = {(t.memory, t.bank): t.array.width for t in targets(verilog_unprotected)}
    lanes = {"scrub": PARAMS.PROBE}
    for t in targets(verilog):
        n = lanes.get(t.memory, 1)
        k = plain[(t.memory, t.bank)] // n
        assert t.array.width == n * Code(codes(PARAMS)[t.memory], k).width, t


def _array(verilog, memory, bank):
    """The harness name of one D11 memory's array, as the campaign names it."""
    (target,) = [t for t in targets(verilog) if (t.memory, t.bank) == (memory, bank)]
    return "TOP." + target.array.name


def _line_slot(requests, addr):
    model = KvAsuModel(PARAMS)
    for r in requests:
        model.request(*r)
    return model.find(addr)


ADDR = 0x4500
TAG_FLIP = [(10, int(Op.OBSERVE), ADDR, 0), (200, int(Op.QUERY), ADDR, 0)]


def _tag_fault(verilog):
    slot = _line_slot(TAG_FLIP[:1], ADDR)
    return slot, fast.Fault(100, _array(verilog, "ent", slot % PARAMS.PROBE),
                            slot // PARAMS.PROBE, 0)                 # tag bit 0


def test_flipped_tag_bit_unprotected_is_a_silent_corruption(exe_unprotected,
                                                            verilog_unprotected):
    _, fault = _tag_fault(verilog_unprotected)
    clean = run_one(exe_unprotected, PARAMS, 1, None, requests=TAG_FLIP)
    hit = run_one(exe_unprotected, PARAMS, 1, fault, requests=TAG_FLIP)
    assert clean["class"] == "masked", clean
    assert hit["class"] == "silent", hit
    assert "present expected 1 got 0" in hit["detail"]


def test_flipped_tag_bit_protected_is_detected_and_recovered(exe, verilog, lag):
    """The window read finds it (uncorrectable, D11), the block forgets everything within
    the bound, and every response, statistic and STATUS equals the model told of it."""
    slot, fault = _tag_fault(verilog)
    clean = run_one(exe, PARAMS, 1, None, requests=TAG_FLIP, decision_lag=lag)
    assert clean["class"] == "masked", clean
    assert clean["errors"] == {"ERR_UNCORRECTED": 0, "ERR_CORRECTED": 0, "ERR_FIRST_MEM": 0,
                               "ERR_FIRST_ADDR": 0, "ERR_FIRST_CYCLE": 0,
                               "ERR_LAST_RECOVERY": 0}
    hit = run_one(exe, PARAMS, 1, fault, requests=TAG_FLIP, decision_lag=lag)
    assert hit["class"] == "detected_recovered", hit
    errs = hit["errors"]
    assert errs["ERR_FIRST_MEM"] == MEM_IDS["ent"] | UNCORRECTABLE
    assert errs["ERR_FIRST_ADDR"] == slot
    assert errs["ERR_FIRST_CYCLE"] >= 100 and errs["ERR_UNCORRECTED"] == 1
    assert 0 < errs["ERR_LAST_RECOVERY"] <= recovery_bound(PARAMS)


def test_flipped_lru_pointer_bit_is_corrected(exe, verilog, lag):
    """SECDED corrects the LRU banks at every read: no recovery, nothing changes, the
    correction is counted and reported as first."""
    a, b = 0x1100, 0x2200
    requests = [(10, int(Op.OBSERVE), a, 0), (20, int(Op.OBSERVE), b, 0),
                (200, int(Op.OBSERVE), a, 0), (230, int(Op.EVICT_ANY), 0, 0),
                (260, int(Op.EVICT_ANY), 0, 0)]
    slot = _line_slot(requests[:2], a)
    fault = fast.Fault(100, _array(verilog, "prev0", None), slot, 0)
    res = run_one(exe, PARAMS, 1, fault, requests=requests, decision_lag=lag)
    assert res["class"] == "detected_recovered", res
    errs = res["errors"]
    assert errs["ERR_FIRST_MEM"] == MEM_IDS["prev0"]            # corrected: bit 8 clear
    assert errs["ERR_FIRST_ADDR"] == slot
    assert errs["ERR_CORRECTED"] >= 1
    assert errs["ERR_UNCORRECTED"] == 0 and errs["ERR_LAST_RECOVERY"] == 0


def test_two_flipped_bits_of_a_statistics_word_are_reported(exe, verilog, lag, stat_lag):
    """Uncorrectable: the counter restarts from zero in the cycle the visit finds it, which
    the model, told where, predicts exactly."""
    index = STAT_NAMES.index("observes")
    requests = [(10 + 5 * i, int(Op.OBSERVE), 0x100 * i, 0) for i in range(40)]
    array = _array(verilog, "stats", None)
    faults = [fast.Fault(150, array, index, bit) for bit in (3, 40)]
    res = run_one(exe, PARAMS, 1, faults, requests=requests, decision_lag=lag,
                  stat_lag=stat_lag)
    assert res["class"] == "detected_recovered", res
    errs = res["errors"]
    assert errs["ERR_FIRST_MEM"] == MEM_IDS["stats"] | UNCORRECTABLE
    assert errs["ERR_FIRST_ADDR"] == index and errs["ERR_UNCORRECTED"] == 1
    assert errs["ERR_LAST_RECOVERY"] == 0          # a statistics word starts no recovery


def test_upset_in_an_untracked_slots_word_is_masked_unprotected(exe_unprotected,
                                                                verilog_unprotected):
    rng = random.Random(5)
    lines = [rng.getrandbits(20) << 8 for _ in range(3)]
    requests = [(10 + 3 * i, int(Op.OBSERVE), a, 0) for i, a in enumerate(lines * 4)]
    used = {_line_slot(requests, a) for a in lines}
    free = next(s for s in range(PARAMS.ENTRIES) if s not in used)
    for bit in (0, PARAMS.TAG_WIDTH - 1, PARAMS.TAG_WIDTH):     # tag bits, a count bit
        fault = fast.Fault(20, _array(verilog_unprotected, "ent", free % PARAMS.PROBE),
                           free // PARAMS.PROBE, bit)
        assert run_one(exe_unprotected, PARAMS, 1, fault,
                       requests=requests)["class"] == "masked"


def test_shared_runs_equal_fresh_runs(exe, verilog, lag, stat_lag, seed):
    """A run forked from the shared fault-free prefix (run_shared) is exactly the fresh
    harness run of the same traffic and upset: the same class, ERR_* registers (cycles
    included) and first difference; the fault-free run is masked, nothing flagged."""
    plan = _Plan(PARAMS, verilog, seed, 1, 6, 150)
    tseed, requests, indices = plan.group(0, 6)
    fault_sets = []
    for k in indices:
        target, word, flips, cycle = plan.draw(k, requests)
        fault_sets.append([fast.Fault(cycle, "TOP." + target.array.name, word, flips[0])])
    # and one upset after the end of the traffic's run (no flip happens within it)
    fault_sets.append([fast.Fault(10**9, fault_sets[0][0].memory, 0, 0)])
    lags = dict(decision_lag=lag, stat_lag=stat_lag)
    fault_free, shared = run_shared(exe, PARAMS, tseed, fault_sets, n_requests=150, **lags)
    assert fault_free["class"] == "masked" and not any(fault_free["errors"].values())
    for faults, got in zip(fault_sets, shared):
        assert got == run_one(exe, PARAMS, tseed, faults, n_requests=150, **lags), faults
    assert shared[-1] == fault_free
    assert any(r["class"] != "masked" for r in shared)


def test_a_fault_the_harness_cannot_inject_is_refused_before_the_run(exe, verilog, lag,
                                                                     stat_lag):
    """A memory the harness does not have, or a word or bit outside one, is bad input: a
    ``ValueError`` naming it, before any run (never a run classified "silent")."""
    lags = dict(decision_lag=lag, stat_lag=stat_lag)
    bad = [fast.Fault(5, "TOP.kv_asu.no_such_memory", 0, 0)]
    with pytest.raises(ValueError, match="no memory array 'TOP.kv_asu.no_such_memory'"):
        run_shared(exe, PARAMS, 3, [bad], n_requests=40, **lags)
    with pytest.raises(ValueError, match="no memory array"):
        run_one(exe, PARAMS, 3, bad, n_requests=40, **lags)
    array = fast.memory_arrays(verilog)[0]
    for fault, says in ((fast.Fault(5, "TOP." + array.name, array.depth, 0), "word"),
                        (fast.Fault(5, "TOP." + array.name, 0, array.width), "bit")):
        with pytest.raises(ValueError, match=f"a fault's {says} must be"):
            run_shared(exe, PARAMS, 3, [[fault]], n_requests=40, **lags)


def test_a_failure_of_the_harness_stops_the_runs(exe, verilog, lag, stat_lag, monkeypatch,
                                                 tmp_path):
    """Past the Python check, the harness refuses a memory it does not have itself (a VPI
    flip that fails): its own error (``fast.HarnessError``), which stops the runs instead of
    being classified; and it refuses faults (kind 5) beside runs (kind 6), since a run
    forked from a parent with faults would not be the fresh run of its own."""
    import subprocess
    from verif.codec import Codec
    from verif.faults import _run_record
    lags = dict(decision_lag=lag, stat_lag=stat_lag)
    bad = [fast.Fault(5, "TOP.kv_asu.no_such_memory", 0, 0)]
    monkeypatch.setattr(fast, "check_faults", lambda exe, faults: None)
    monkeypatch.setattr(fast.drive, "check_faults", lambda exe, faults: None)
    with pytest.raises(fast.HarnessError, match="run 0 .*exit status 4.*no memory "
                       "TOP.kv_asu.no_such_memory"):
        run_shared(exe, PARAMS, 3, [bad], n_requests=40, **lags)
    with pytest.raises(fast.HarnessError, match="no memory TOP.kv_asu.no_such_memory"):
        run_one(exe, PARAMS, 3, bad, n_requests=40, **lags)
    array = fast.memory_arrays(verilog)[0]
    good = fast.Fault(1, "TOP." + array.name, 0, 0)
    data = fast.encode(Codec(PARAMS), [(0, 0, 0, 0)], [], [good]) + _run_record(0, [good])
    (tmp_path / "in.bin").write_bytes(data)
    proc = subprocess.run([str(exe), *(str(tmp_path / f) for f in ("in.bin", "r", "a")),
                           "1000", "1"], capture_output=True, text=True)
    assert proc.returncode == 4 and "exclude each other" in proc.stderr, proc


def test_campaign_independent_of_jobs_and_replayable(exe, fast_build_root, seed):
    """Run k depends on (seed, k, per_traffic) only: two worker processes give the same
    summary as one, and --replay of a run gives its record again."""
    one = campaign(PARAMS, 8, seed, fast_build_root / "small", n_requests=100, per_traffic=3)
    two = campaign(PARAMS, 8, seed, fast_build_root / "small", n_requests=100, per_traffic=3,
                   jobs=2)
    for key in ("classes", "by_memory", "examples", "longest_recovery", "detection_latency"):
        assert one[key] == two[key], key
    assert one["traffic_streams"] == 3 and one["fault_free_failures"] == []
    for example in one["examples"][:1]:
        again = replay(PARAMS, seed, example["index"], fast_build_root / "small",
                       n_requests=100, per_traffic=3)
        assert {k: again[k] for k in example} == {**example,
                                                  "detail": again["detail"][:400]}


def _consistent(summary, n):
    assert summary["fault_free_failures"] == []
    assert sum(summary["classes"].values()) == n
    assert set(summary["classes"]) == set(CLASSES)
    assert sum(sum(c.values()) for c in summary["by_memory"].values()) == n
    assert sum(sum(c.values()) for c in summary["silent_first_difference"].values()) == \
        summary["classes"]["silent"]


def test_a_report_naming_another_place_is_misreported(verilog):
    target = next(t for t in targets(verilog) if t.memory == "prev0")
    memory, address = location(PARAMS, target, 3, 0)
    right = {"ERR_FIRST_MEM": MEM_IDS[memory], "ERR_FIRST_ADDR": address, "ERR_CORRECTED": 1,
             "ERR_UNCORRECTED": 0}
    assert not misreported(PARAMS, target, 3, [0], right)
    quiet = {**right, "ERR_FIRST_MEM": 0, "ERR_CORRECTED": 0}       # nothing flagged
    assert not misreported(PARAMS, target, 3, [0], quiet)
    assert misreported(PARAMS, target, 3, [0], {**quiet, "ERR_CORRECTED": 1})    # counted, unnamed
    assert misreported(PARAMS, target, 3, [0], {**right, "ERR_FIRST_ADDR": address + 1})
    assert misreported(PARAMS, target, 3, [0], {**right, "ERR_FIRST_MEM": MEM_IDS["ent"]})


def test_with_probe_1_the_sweeps_last_row_belongs_to_the_recovery(fast_build_root):
    """With PROBE 1 the table's last row is rewritten in the sweep's last cycle, and a read
    of it in that cycle returns the old word, whose check comes three cycles later. These
    two upsets of the last row (campaign seed 5, ``--per-memory``) were reported again
    after a two-cycle settle, a second recovery the model was not told of; with D11's
    settle for PROBE 1 each is one recovery, within ``recovery_bound``."""
    params = CONFIGS["probe1"]
    for index in (183, 698):
        rec = replay(params, 5, index, fast_build_root / "probe1", per_memory=True)
        assert rec["word"] == params.ENTRIES - 1, rec          # the last row
        assert rec["class"] == "detected_recovered", rec
        errors = rec["errors"]
        assert errors["ERR_UNCORRECTED"] == 1, errors
        assert 0 < errors["ERR_LAST_RECOVERY"] <= recovery_bound(params), errors


def test_a_recovery_not_reported_is_too_short():
    """A report of an uncorrectable table or LRU error means a recovery ran (D11): its
    length must cover at least the sweep; a statistics error or a corrected one runs none."""
    from verif.faults import recovery_too_short
    table = MEM_IDS["ent"] | UNCORRECTABLE
    assert recovery_too_short(PARAMS, {"ERR_FIRST_MEM": table, "ERR_LAST_RECOVERY": 0})
    assert recovery_too_short(PARAMS, {"ERR_FIRST_MEM": table,
                                       "ERR_LAST_RECOVERY": PARAMS.ENTRIES - 1})
    assert not recovery_too_short(PARAMS, {"ERR_FIRST_MEM": table,
                                           "ERR_LAST_RECOVERY": PARAMS.ENTRIES + 5})
    assert not recovery_too_short(PARAMS, {"ERR_FIRST_MEM": MEM_IDS["stats"] | UNCORRECTABLE,
                                           "ERR_LAST_RECOVERY": 0})
    assert not recovery_too_short(PARAMS, {"ERR_FIRST_MEM": MEM_IDS["next0"],
                                           "ERR_LAST_RECOVERY": 0})
    assert not recovery_too_short(PARAMS, {})


def test_short_campaign_protected_single_bit(exe, fast_build_root, capsys, seed):
    """D11's targets: no hang, no silent corruption, every detected upset recovered (every
    response equal to the model told of it), every recovery within the bound; and the
    campaign met what these are about: upsets detected, uncorrectable ones among them (17 to
    21 of the 24 detected and 7 to 14 reported uncorrectable on seeds 1-15)."""
    summary = campaign(PARAMS, 24, seed, fast_build_root / "small", n_requests=150)
    print(capsys.readouterr().out)
    _consistent(summary, 24)
    c = summary["classes"]
    assert c["detected_recovered"] >= 12 and summary["reported_uncorrectable"] >= 3, c
    assert c["hang"] == 0 and c["silent"] == 0, summary["examples"]
    assert c["detected_unrecovered"] == 0, summary["examples"]
    assert summary["misreported"] == 0, summary["examples"]
    assert summary["recoveries_over_bound"] == 0
    assert summary["recoveries_too_short"] == 0, summary["examples"]
    assert summary["longest_recovery"] <= summary["recovery_bound"]


def test_short_campaign_protected_double_bit(exe, fast_build_root, capsys, seed):
    """Two bits of one word: no hang; the block reports what SECDED detects, so a silent
    corruption can only come from a parity-coded memory (D11: parity misses an even
    number of flips)."""
    summary = campaign(PARAMS, 12, seed, fast_build_root / "small", n_requests=150,
                       double=True)
    print(capsys.readouterr().out)
    _consistent(summary, 12)
    assert summary["classes"]["hang"] == 0, summary["examples"]
    for mem, by_class in summary["by_memory"].items():
        if summary["codes"][mem] == "secded":
            assert by_class["silent"] == 0, (mem, summary["examples"])
    assert summary["recoveries_over_bound"] == 0


def test_short_campaign_unprotected(exe_unprotected, fast_build_root, capsys, seed):
    summary = campaign(PARAMS, 8, seed, fast_build_root / "small_unprotected",
                       n_requests=150, protected=False)
    print(capsys.readouterr().out)
    _consistent(summary, 8)
    assert summary["classes"]["hang"] == 0, summary["examples"]
    # Nothing on the unprotected core flags an error.
    assert summary["classes"]["detected_recovered"] == 0
    assert summary["classes"]["detected_unrecovered"] == 0

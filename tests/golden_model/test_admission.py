# SPDX-License-Identifier: Apache-2.0
"""The admission rule of the non-blocking mode (docs/spec-decisions.md D13), and the model's
MODE and drop statistic."""

import pytest

from golden_model import KvAsuModel
from golden_model.admission import Admission, BuildTiming
from regmap import OPS

OBSERVE, QUERY, EVICT, EVICT_ANY = (OPS[k] for k in ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY"))
TIMING = BuildTiming(latency=19, evict_gap=6, rows=512)


def run(rule, requests, *, rsp_ready=lambda edge: True, nonblocking=True, last=None,
        predictor=False):
    """``requests``: {edge: op}; returns the edges whose request was taken."""
    taken = []
    end = last if last is not None else max(requests) + 1
    for edge in range(end):
        op = requests.get(edge)
        if rule.step(edge, op, rsp_ready(edge), nonblocking=nonblocking, predictor=predictor):
            taken.append(edge)
    return taken


def test_timing_validation_and_credits_default():
    assert TIMING.credits == 21
    with pytest.raises(ValueError, match="latency"):
        BuildTiming(latency=0, evict_gap=6, rows=4)
    with pytest.raises(TypeError):
        Admission({"latency": 19})


def test_evict_gap_counts_only_taken_tail_moves():
    rule = Admission(TIMING)
    taken = run(rule, {edge: EVICT_ANY for edge in range(28)})
    assert taken == [0, 7, 14, 21]                  # one in EVICT_GAP + 1
    assert (rule.taken, rule.dropped) == (4, 24)
    # a QUERY opens no gap; an OBSERVE does
    rule = Admission(TIMING)
    assert run(rule, {0: QUERY, 1: EVICT, 2: OBSERVE, 3: EVICT, 9: EVICT}) == [0, 1, 2, 9]


def test_evict_gap_behind_evicts_only():
    """The default build's EVICT_EVICT_GAP (3): behind EVICTs an EVICT waits 3 edges, behind
    an OBSERVE still EVICT_GAP (6), whichever is later."""
    timing = BuildTiming(latency=19, evict_gap=6, evict_evict_gap=3, rows=512)
    assert BuildTiming(latency=19, evict_gap=6, rows=4).evict_evict_gap == 6
    rule = Admission(timing)
    taken = run(rule, {edge: EVICT if edge % 2 else EVICT_ANY for edge in range(16)})
    assert taken == [0, 4, 8, 12]                   # one in EVICT_EVICT_GAP + 1
    rule = Admission(timing)
    # OBSERVE at 1: the EVICT at 2..7 waits for it (6), the next one 4 edges later (3)
    assert run(rule, {0: EVICT, 1: OBSERVE, **{e: EVICT_ANY for e in range(2, 13)}}) == \
        [0, 1, 8, 12]
    for bad in (0, 7):
        with pytest.raises(ValueError, match="evict_evict_gap"):
            BuildTiming(latency=19, evict_gap=6, evict_evict_gap=bad, rows=4)



def test_predictor_mode_evict_frees_and_gap():
    """D13 rule 2 in its second form (POLICY.MODE = 1, PREDICTOR_GAP 7): the two edges after
    a taken EVICT take nothing (its FREEs); an EVICT waits 7 edges after an OBSERVE and 9
    after an EVICT (7 after its second FREE); a QUERY opens no gap; the first form is kept
    while POLICY.MODE = 0."""
    timing = BuildTiming(latency=19, evict_gap=6, evict_evict_gap=3, rows=512,
                         predictor_gap=7)

    def run_predictor(rule, requests):
        return [e for e in range(max(requests) + 1)
                if rule.step(e, requests.get(e), True, nonblocking=True, predictor=True)]

    rule = Admission(timing)
    assert run_predictor(rule, {e: EVICT_ANY for e in range(31)}) == [0, 10, 20, 30]
    rule = Admission(timing)
    assert rule.blocked(0, EVICT, predictor=True) == []
    assert run_predictor(rule, {0: EVICT, 1: OBSERVE, 2: QUERY, 3: QUERY, 4: OBSERVE,
                                5: EVICT, 11: EVICT, 12: EVICT, 13: QUERY, 15: QUERY}) == \
        [0, 3, 4, 12, 15]
    assert rule.blocked(13, QUERY, predictor=True) == ["evict frees"]
    assert rule.blocked(14, EVICT, predictor=True) == ["evict frees", "evict gap"]
    # the same stream in the article mode: the first form
    rule = Admission(timing)
    assert run(rule, {e: EVICT_ANY for e in range(9)}) == [0, 4, 8]
    with pytest.raises(ValueError, match="predictor"):
        Admission(TIMING).blocked(0, EVICT, predictor=True)
    with pytest.raises(ValueError, match="predictor_gap"):
        BuildTiming(latency=19, evict_gap=6, rows=4, predictor_gap=5)
    with pytest.raises(TypeError, match="predictor_gap"):
        BuildTiming(latency=19, evict_gap=6, rows=4, predictor_gap="7")


def test_bad_input_is_refused_and_changes_nothing():
    for field, bad, error in (("latency", True, TypeError), ("latency", 2.0, TypeError),
                              ("rows", "4", TypeError), ("credits", 0, ValueError),
                              ("evict_gap", -1, ValueError)):
        args = {"latency": 19, "evict_gap": 6, "rows": 4, field: bad}
        with pytest.raises(error, match=field):
            BuildTiming(**args)
    rule = Admission(TIMING)
    for op, error in ((9, ValueError), ("x", TypeError), (1.0, TypeError)):
        with pytest.raises(error, match="op"):
            rule.step(0, op, True, nonblocking=False)
        with pytest.raises(error, match="op"):
            rule.blocked(0, op)
    for kwargs, name in (({"rsp_ready": "no"}, "rsp_ready"), ({"nonblocking": None}, "nonblocking"),
                         ({"rsp_ready": 2}, "rsp_ready"), ({"enable": "yes"}, "enable")):
        args = {"rsp_ready": True, "nonblocking": False, **kwargs}
        with pytest.raises(TypeError, match=name):
            rule.step(0, OBSERVE, args.pop("rsp_ready"), **args)
    with pytest.raises(ValueError, match="no action write"):
        rule.write_offered(0)
    with pytest.raises(ValueError, match="no action write"):
        rule.write_done(0)
    # none of the refused calls took an edge or a request
    assert rule.step(0, OBSERVE, 1, nonblocking=0) is True and (rule.taken, rule.dropped) == (1, 0)

def test_credits_run_out_when_rsp_ready_is_low_and_come_back_in_order():
    rule = Admission(TIMING)
    never = run(rule, {edge: QUERY for edge in range(40)}, rsp_ready=lambda e: False)
    assert never == list(range(21))                 # CREDITS requests, then drops
    # the responses are offered from a + LATENCY, one per edge once the consumer takes them
    rule = Admission(TIMING)
    ready_from = 60
    taken = run(rule, {edge: QUERY for edge in range(80)}, rsp_ready=lambda e: e >= ready_from)
    assert taken[:21] == list(range(21))
    # at edge 60 the first response leaves: its credit is free for the request at 61
    assert 61 in taken and 60 not in taken


def test_rsp_offered_follows_latency_and_handshakes():
    rule = Admission(TIMING)
    rule.step(0, OBSERVE, True, nonblocking=True)
    assert not rule.rsp_offered(18) and rule.rsp_offered(19)


def test_action_write_window_and_sweep():
    rule = Admission(TIMING)
    rule.action_write(10)                           # window opens at 12
    seen = []
    for edge in range(40):
        if edge == 20:
            rule.write_offered(edge, sweeps=False)
        if edge == 21:
            rule.write_done(edge)
        seen.append(rule.step(edge, QUERY, True, nonblocking=True))
    assert [e for e, t in enumerate(seen) if not t] == list(range(12, 22))
    rule = Admission(TIMING)
    rule.action_write(0)
    for edge in range(600):
        if edge == 3:
            rule.write_offered(edge, sweeps=True)
            rule.write_done(edge)
        if edge in (2, 3, 4, 515, 516):
            assert rule.step(edge, QUERY, True, nonblocking=True) is (edge == 516), edge
        else:
            rule.step(edge, None, True, nonblocking=True)


def test_disabled_and_edges_increase():
    rule = Admission(TIMING)
    assert rule.blocked(0, QUERY, enable=False) == ["disabled"]
    rule.step(5, None, True, nonblocking=True)
    with pytest.raises(ValueError, match="increase"):
        rule.step(5, None, True, nonblocking=True)


def test_model_mode_commit_and_drop():
    model = KvAsuModel(entries=16, probe=4)
    assert model.mode == 0 and not model.nonblocking
    with pytest.raises(ValueError, match="NONBLOCKING"):
        model.drop(0)
    with pytest.raises(ValueError, match="reserved"):
        model.commit(0, mode=2, c3=7)
    assert model.mode == 0 and model.config.c3 != 7       # nothing changed
    model.commit(1, mode=1)
    assert model.nonblocking
    model.drop(2)
    model.drop(2)
    model.request(3, OBSERVE, 0x100)
    stats = model.stats
    assert stats.req_dropped == 2 and stats.observes == 1
    model.clear_stats()
    assert model.stats.req_dropped == 0
    model.flush()
    assert model.nonblocking                               # a flush keeps the mode
    model.reset()
    assert model.mode == 0                                 # reset restores MODE = 0


def test_reset_that_wraps_sweeps_edges_0_to_rows_minus_1():
    """D13 rule 5 after a reset: a reset that is a generation wrap sweeps at edges
    0 .. ROWS - 1 (edges count from 0 after it); one that is not sweeps nothing."""
    timing = BuildTiming(latency=19, evict_gap=6, rows=8)
    rule = Admission(timing)
    rule.reset(sweeps=True)
    assert rule.blocked(0, QUERY) == ["clear sweep"]
    assert rule.blocked(7, OBSERVE) == ["clear sweep"]
    assert rule.blocked(8, OBSERVE) == []
    taken = run(rule, {edge: QUERY for edge in range(12)})
    assert taken == [8, 9, 10, 11]
    assert (rule.taken, rule.dropped) == (4, 8)
    rule.reset()                                           # not a wrap: no sweep
    assert run(rule, {edge: QUERY for edge in range(4)}) == [0, 1, 2, 3]


def test_in_sweep_says_which_edges_a_reset_would_find_a_sweep_at():
    """``Admission.in_sweep``: the edges of a clear sweep the rule knows of (rule 5: ``f + 1
    .. f + ROWS`` of a flush that sweeps, ``0 .. ROWS - 1`` after a reset that sweeps), which
    a testbench asks at a reset (D12: a reset while a sweep runs counts nothing and restarts
    it); a query that changes no decision."""
    timing = BuildTiming(latency=19, evict_gap=6, rows=8)
    rule = Admission(timing)
    assert not any(rule.in_sweep(edge) for edge in range(20))         # none known
    rule.reset(sweeps=True)
    assert [e for e in range(20) if rule.in_sweep(e)] == list(range(8))
    assert run(rule, {edge: QUERY for edge in range(12)}) == [8, 9, 10, 11]   # unchanged
    rule.reset()
    rule.action_write(2)
    for edge in range(30):
        if edge == 10:
            rule.write_offered(edge, sweeps=True)                      # f = 10
            rule.write_done(edge)
        if edge == 10:
            assert [e for e in range(30) if rule.in_sweep(e)] == list(range(11, 19))
        rule.step(edge, None, True, nonblocking=False)
    assert not rule.in_sweep(30)
    rule.reset()                                           # not a wrap: no sweep
    assert not any(rule.in_sweep(edge) for edge in range(20))
    with pytest.raises(ValueError, match="edge"):
        rule.in_sweep(-1)


def test_model_mode_reset_option():
    """D13 "The reset mode": the model's reset restores the build's reset MODE."""
    assert KvAsuModel(entries=16, probe=4).mode_reset == 0
    model = KvAsuModel(entries=16, probe=4, mode_reset=1)
    assert model.mode == 1 and model.nonblocking
    model.drop(0)                                          # non-blocking from reset
    assert model.stats.req_dropped == 1
    model.commit(1, mode=0)                                # a commit changes it as usual
    assert not model.nonblocking
    model.flush()
    assert model.mode == 0                                 # a flush keeps the committed mode
    model.reset()
    assert model.mode == 1 and model.stats.req_dropped == 0
    for bad, exc in ((2, ValueError), (1 << 32, ValueError), (-1, ValueError),
                     (True, TypeError), ("1", TypeError)):
        with pytest.raises(exc):
            KvAsuModel(entries=16, probe=4, mode_reset=bad)


# ---- D13's spacing advice ("What the integrator and the runtime do"), run through the rule --

EVICTS = (EVICT, EVICT_ANY)


def _timing(predictor: bool):
    """D13's constants of the default build, or of the predictor build
    (``CoreOptions(predictor=True, protection="none")``, POLICY.MODE = 1 available), as the
    testbench takes them (``verif.runner.build_timing``: the build's ``PipelineTiming``)."""
    from hdl.core import CoreOptions
    from regmap import Params
    from verif.runner import build_timing
    options = CoreOptions(predictor=True, protection="none") if predictor else None
    return BuildTiming(**build_timing(Params(), options))


def _default_timing():
    return _timing(False)


def _advice_allows(edge, op, last_observe, last_evict, timing, predictor):
    """D13's advice for a request ``op`` at ``edge``, ``last_observe`` / ``last_evict`` the
    edges of the last OBSERVE and EVICT / EVICT_ANY. POLICY.MODE = 0: an EVICT / EVICT_ANY
    only with no OBSERVE at the EVICT_GAP edges before it and no EVICT / EVICT_ANY at the
    EVICT_EVICT_GAP edges before it. POLICY.MODE = 1: no request at the two edges after an
    EVICT / EVICT_ANY; an EVICT / EVICT_ANY only with no OBSERVE at the PREDICTOR_GAP edges
    before it and no EVICT / EVICT_ANY at the PREDICTOR_GAP + 2 edges before it."""
    if predictor:
        if edge - last_evict <= 2:
            return False
        observe_gap, evict_gap = timing.predictor_gap, timing.predictor_gap + 2
    else:
        observe_gap, evict_gap = timing.evict_gap, timing.evict_evict_gap
    return op not in EVICTS or (edge - last_observe > observe_gap
                                and edge - last_evict > evict_gap)


def _advice_text():
    """D13's section "What the integrator and the runtime do", as one line."""
    from pathlib import Path

    from tests.docs_text import flat
    text = flat((Path(__file__).parents[2] / "docs" / "spec-decisions.md").read_text())
    start = text.index("### What the integrator and the runtime do")
    return text[start:text.index("### What the model is told", start)]


def test_d13_spacing_advice_is_stated_once_with_the_builds_constants():
    """The advice's numbers are the default and the predictor builds' constants
    (``build_timing``); the first item refers to it instead of restating the gaps."""
    t, tp = _timing(False), _timing(True)
    assert (t.evict_gap, t.evict_evict_gap) == (tp.evict_gap, tp.evict_evict_gap)
    assert _default_timing().predictor_gap is None
    advice = _advice_text()
    held = [
        ("or it issues its requests only at edges at which none of rules 1..5 holds (for "
         "example no CTRL action write in flight, and `rsp.ready` high and the requests "
         "spaced as the item \"Keep `rsp.ready` high\" below says), where nothing is "
         "dropped."),
        ("- Keep `rsp.ready` high (the response port is then never the cause of a drop), and "
         "space the requests as rule 2 asks. The constants are the build's `PipelineTiming` "
         "(`hdl/core/timing.py`, which `verif.runner.build_timing` gives the testbench; "
         "docs/rtl.md lists them):"),
        ("- While `POLICY.MODE = 0` (always, in a build without the predictor mode), present "
         "an EVICT or EVICT_ANY only where no OBSERVE was presented at the `EVICT_GAP` edges "
         "before it and no EVICT or EVICT_ANY at the `EVICT_EVICT_GAP` edges before it "
         f"({t.evict_gap} and {t.evict_evict_gap} in the default build and in the predictor "
         f"build: at least {t.evict_gap + 1} edges after an OBSERVE, {t.evict_evict_gap + 1} "
         "after an EVICT; a QUERY counts for neither)."),
        ("- While `POLICY.MODE = 1`, present no request at all, of any op, at the two edges "
         "after an EVICT or EVICT_ANY (its FREEs), and present an EVICT or EVICT_ANY only "
         "where no OBSERVE was presented at the `PREDICTOR_GAP` edges before it and no EVICT "
         "or EVICT_ANY at the `PREDICTOR_GAP + 2` edges before it (`PREDICTOR_GAP` is "
         f"{tp.predictor_gap} in the predictor build, docs/rtl-predictor.md's "
         '`CoreOptions(predictor=True, protection="none")`: at least '
         f"{tp.predictor_gap + 1} edges after an OBSERVE, {tp.predictor_gap + 3} after an "
         "EVICT; a QUERY counts for neither)."),
        ("Spacing the EVICTs from each other is not enough: among OBSERVEs at every other "
         "edge, even one EVICT per `EVICT_GAP + 1` edges (per `PREDICTOR_GAP + 3` edges "
         "while `POLICY.MODE = 1`) is dropped nearly every time"),
    ]
    rest = advice
    for statement in held:
        assert statement in rest, statement
        rest = rest.replace(statement, "")
    # no second statement of the gaps elsewhere in the section
    assert "_GAP" not in rest and "edges after an" not in rest, rest


@pytest.mark.parametrize("predictor", [False, True], ids=["POLICY.MODE 0", "POLICY.MODE 1"])
def test_d13_spacing_advice_loses_no_evict_and_is_the_rule(predictor):
    """A random stream (rsp.ready high, no CTRL write) that follows the advice of its mode
    loses no request; in a stream that ignores it, exactly the requests the advice forbids
    are dropped (the advice is the rule, not a stricter one). The advice is judged against
    the requests taken, which in a stream that follows it are all those presented."""
    import random
    timing = _timing(predictor)
    seed = 13
    print(f"seed {seed}")
    rng = random.Random(seed)
    ops = [None, None, OBSERVE, QUERY, EVICT, EVICT_ANY]
    for follow in (True, False):
        rule = Admission(timing)
        last_observe = last_evict = -100
        evicts = forbidden = forbidden_evicts = 0
        for edge in range(20_000):
            op = rng.choice(ops)
            allowed = _advice_allows(edge, op, last_observe, last_evict, timing, predictor)
            if not allowed and follow:
                op = QUERY if _advice_allows(edge, QUERY, last_observe, last_evict, timing,
                                             predictor) else None
                allowed = True
            taken = rule.step(edge, op, True, nonblocking=True, predictor=predictor)
            if op is None:
                continue
            evicts += op in EVICTS
            forbidden += not allowed
            forbidden_evicts += op in EVICTS and not allowed
            assert taken == allowed, (predictor, follow, edge, op, last_observe, last_evict)
            if taken and op in EVICTS:
                last_evict = edge
            elif taken and op == OBSERVE:
                last_observe = edge
        assert evicts > 300 and rule.dropped == forbidden, (evicts, rule.dropped, forbidden)
        assert (forbidden == 0) == follow
        if not follow:
            # with POLICY.MODE = 1 the FREE edges drop OBSERVEs and QUERYs too
            assert (forbidden > forbidden_evicts > 0) == predictor, (forbidden,
                                                                      forbidden_evicts)
            assert forbidden_evicts > 0


def test_d13_mode_0_advice_loses_requests_with_policy_mode_1():
    """The review's streams: each follows the POLICY.MODE = 0 advice; with POLICY.MODE = 1
    the rule drops the requests the mode's own advice forbids (the FREE edges after an
    EVICT, an EVICT PREDICTOR_GAP edges after an OBSERVE)."""
    timing = _timing(True)
    gap = timing.predictor_gap
    for stream, expected in (({0: EVICT, 1: OBSERVE, 2: OBSERVE, 3: OBSERVE, 3 + gap: EVICT},
                              [0, 3]),
                             ({0: OBSERVE, gap: EVICT}, [0])):
        mode0 = Admission(timing)
        assert run(mode0, stream) == sorted(stream) and mode0.dropped == 0
        rule = Admission(timing)
        taken = run(rule, stream, predictor=True)
        assert taken == expected, stream
        last_observe = last_evict = -100
        for edge, op in sorted(stream.items()):
            assert (edge in taken) == _advice_allows(edge, op, last_observe, last_evict,
                                                     timing, True), (stream, edge)
            if edge in taken and op in EVICTS:
                last_evict = edge
            elif edge in taken:
                last_observe = edge


@pytest.mark.parametrize("predictor", [False, True], ids=["POLICY.MODE 0", "POLICY.MODE 1"])
def test_d13_old_spacing_advice_drops_nearly_every_evict(predictor):
    """The advice D13 gave before (one EVICT per EVICT_GAP + 1 edges among OBSERVEs; with
    POLICY.MODE = 1 one per PREDICTOR_GAP + 3, the EVICTs' own spacing) spaces the EVICTs
    from each other only: with an OBSERVE at every other edge the rule drops 99 of its 100
    EVICTs."""
    timing = _timing(predictor)
    period = timing.predictor_gap + 3 if predictor else timing.evict_gap + 1
    stream = {edge: EVICT if edge % period == 0 else OBSERVE if edge % 2 else None
              for edge in range(100 * period)}
    rule = Admission(timing)
    taken = run(rule, stream, predictor=predictor)
    evicts = [edge for edge, op in stream.items() if op == EVICT]
    assert (len(evicts), len(set(evicts) - set(taken))) == (100, 99)

# SPDX-License-Identifier: Apache-2.0
"""The interface definition is self-consistent and the generated docs are current."""

import functools
import operator
from pathlib import Path

import pytest

import regmap
from regmap import REG, REGISTERS, STAT_NAMES, Params
from regmap.__main__ import markdown


def test_default_params_match_spec_section_2():
    p = Params()
    assert (p.ENTRIES, p.PROBE, p.ADDR_WIDTH, p.LINE_SHIFT, p.TAG_WIDTH) == (2048, 4, 64, 8, 56)
    assert (p.COUNT_WIDTH, p.TS_WIDTH, p.TICK_SHIFT) == (16, 8, 2)
    assert (p.SLOT_WIDTH, p.WMAX, p.COUNT_MAX) == (11, 127, 65535)
    assert (p.ROWS, p.BANK_BITS) == (512, 2)
    assert (Params(ENTRIES=128, PROBE=1).ROWS, Params(ENTRIES=128, PROBE=1).BANK_BITS) == (128, 0)


def test_reset_config_is_1080p_preset():
    assert Params().defaults == {"C3": 5, "C2": 3, "W3": 25, "W2": 50, "W1": 125, "HASH_SEED": 0}


def test_small_config_clamps_defaults():
    # spec section 5: TS_WIDTH = 6 gives WMAX = 31, and each default is clamped to it
    d = Params(TS_WIDTH=6, COUNT_WIDTH=2).defaults
    assert (d["W3"], d["W2"], d["W1"]) == (25, 31, 31)
    assert (d["C3"], d["C2"]) == (3, 3)


@pytest.mark.parametrize("kwargs, exc", [
    ({"ENTRIES": 1000}, ValueError),
    ({"ENTRIES": 2, "PROBE": 4}, ValueError),
    ({"PROBE": 3}, ValueError),
    ({"TS_WIDTH": 1}, ValueError),
    ({"COUNT_WIDTH": 0}, ValueError),
    ({"LINE_SHIFT": 64}, ValueError),
    ({"TAG_WIDTH": 57}, ValueError),
    ({"ADDR_WIDTH": 80, "LINE_SHIFT": 8}, None),   # TAG_WIDTH would be 72 > 64
    ({"ADDR_WIDTH": 0}, ValueError),
    ({"ADDR_WIDTH": 129}, ValueError),
    ({"COUNT_WIDTH": 33}, ValueError),
    ({"TS_WIDTH": 25}, ValueError),
    ({"TICK_SHIFT": -1}, ValueError),
    ({"TICK_SHIFT": 17}, ValueError),
    ({"TAG_WIDTH": 0}, ValueError),
    ({"ENTRIES": 1, "PROBE": 1}, ValueError),
    ({"ENTRIES": "2048"}, TypeError),
    ({"PROBE": True}, TypeError),
])
def test_illegal_params_are_refused(kwargs, exc):
    with pytest.raises(exc or ValueError, match="|".join(kwargs)):
        Params(**kwargs)


@pytest.mark.parametrize("kwargs", [
    {"ADDR_WIDTH": 1, "LINE_SHIFT": 0},
    {"ADDR_WIDTH": 128, "LINE_SHIFT": 64},        # the line is exactly 64 bits: default tag
    {"ADDR_WIDTH": 128, "LINE_SHIFT": 8, "TAG_WIDTH": 64},
    {"COUNT_WIDTH": 1}, {"COUNT_WIDTH": 32},
    {"TS_WIDTH": 2}, {"TS_WIDTH": 24},
    {"TICK_SHIFT": 0}, {"TICK_SHIFT": 16},
    {"TAG_WIDTH": 1},
    {"ENTRIES": 2, "PROBE": 1}, {"ENTRIES": 2, "PROBE": 2},
])
def test_d1_bounds_are_legal(kwargs):
    params = Params(**kwargs)
    assert all(getattr(params, name) == value for name, value in kwargs.items())


def test_numpy_integers_are_taken_as_ints():
    """A parameter read from an array (a trace's meta, a sweep) is an integer: taken, and
    kept as a Python int, so that a width or a depth built from it is one."""
    import numpy as np
    p = Params(ENTRIES=np.int64(64), PROBE=np.uint8(2))
    assert (p.ENTRIES, p.PROBE) == (64, 2)
    assert type(p.ENTRIES) is int and type(p.PROBE) is int
    with pytest.raises(TypeError, match="PROBE"):
        Params(PROBE=np.bool_(True))


def test_registers_are_word_aligned_and_disjoint():
    offsets = [off for r in REGISTERS for off in r.offsets]
    assert len(offsets) == len(set(offsets))
    assert all(off % 4 == 0 for off in offsets)


def test_fields_of_a_register_are_disjoint_and_fit_its_word():
    for reg in REGISTERS:
        masks = [f.mask for f in reg.fields]
        assert all(m and m < 1 << 32 for m in masks), reg.name
        assert sum(masks) == functools.reduce(operator.or_, masks, 0), reg.name


def test_a_multi_bit_field_packs_and_unpacks():
    mem_id, unc = REG["ERR_FIRST_MEM"].field("MEM_ID"), REG["ERR_FIRST_MEM"].field("UNCORRECTABLE")
    assert (mem_id.bit, mem_id.width, mem_id.mask) == (0, 4, 0xF)
    assert unc.mask == REG["ERR_FIRST_MEM"].mask("UNCORRECTABLE") == 1 << 8
    assert regmap.MEM_ID_WIDTH == 4 and max(regmap.MEM_IDS.values()) < 16
    word = mem_id.put(regmap.MEM_IDS["next1"]) | unc.put(1)
    assert word == 0x108 and mem_id.get(word) == 8 and unc.get(word) == 1
    assert mem_id.get(0xFFFF_FEF0) == 0 and unc.get(0xFFFF_FEF0) == 0
    with pytest.raises(ValueError, match="MEM_ID: 16 does not fit 4 bits"):
        mem_id.put(16)


@pytest.mark.parametrize("kwargs, message", [
    ({"bit": 30, "width": 3}, "bits 30 .. 32 do not lie in a 32-bit word"),
    ({"bit": 0, "width": 0}, "do not lie in a 32-bit word"),
    ({"bit": -1}, "do not lie in a 32-bit word"),
    ({"bit": 4, "width": 2, "reset": 4}, "reset 4 does not fit 2 bits"),
])
def test_a_field_outside_its_word_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        regmap.Field(name="F", **kwargs)


def test_statistics_cover_spec_section_7():
    assert STAT_NAMES == ("observes", "observe_hits", "inserts", "replacements", "drops",
                          "queries", "query_hits", "evicts", "evicts_empty",
                          "obs_t0", "obs_t1", "obs_t2", "obs_t3", "req_dropped")
    assert all(r.wide and r.access == "ro" for r in regmap.STAT_REGISTERS)


def test_payload_layouts():
    p = Params()
    assert sum(w for _, w in regmap.request_fields(p)) == 2 + 2 + 64
    rsp = dict(regmap.response_fields(p))
    assert rsp["slot"] == 11 and rsp["victim_tag"] == 56 and rsp["count"] == 16
    assert REG["CTRL"].mask("COMMIT") == 0b1000


def test_generated_register_docs_are_current():
    table = Path(__file__).parents[2] / "docs" / "registers-table.md"
    assert table.read_text() == markdown(), "run `make docs` to regenerate docs/registers-table.md"


@pytest.mark.parametrize("change, broken", [
    ({}, None),
    ({"C2": 1, "C3": 1}, None),
    ({"C2": 65535, "C3": 65535}, None),
    ({"W3": 0, "W2": 0, "W1": 0}, None),
    ({"W3": 127, "W2": 127, "W1": 127}, None),
    ({"HASH_SEED": 0xFFFF_FFFF}, None),
    ({"C2": 0}, "C2=0"),
    ({"C2": 6, "C3": 5}, "C2=6, C3=5"),
    ({"C3": 65536}, "COUNT_MAX (65535)"),
    ({"W3": 51}, "W3=51, W2=50"),
    ({"W2": 126}, "W2=126, W1=125"),
    ({"W1": 128}, "WMAX (127)"),
    ({"HASH_SEED": 1 << 32}, "HASH_SEED"),
])
def test_config_legality_is_spec_section_5(change, broken):
    # Spec section 5: 1 <= C2 <= C3 <= COUNT_MAX and 0 <= W3 <= W2 <= W1 <= WMAX.
    p = Params()
    config = {**p.defaults, **change}
    violations = regmap.config_violations(p, config)
    assert regmap.config_legal(p, config) == (broken is None)
    if broken is None:
        assert violations == []
    else:
        assert len(violations) == 1 and broken in violations[0], violations


def test_config_legality_accepts_lower_case_and_needs_every_register():
    p = Params(COUNT_WIDTH=3, TS_WIDTH=4)
    assert regmap.config_legal(p, {k.lower(): v for k, v in p.defaults.items()})
    assert not regmap.config_legal(p, {**p.defaults, "C3": 8})       # COUNT_MAX is 7
    with pytest.raises(KeyError, match="W1"):
        regmap.config_violations(p, {k: v for k, v in p.defaults.items() if k != "W1"})


def test_ctrl_write_effect():
    p, ctrl = Params(), REG["CTRL"]
    enable, commit, flush = ctrl.mask("ENABLE"), ctrl.mask("COMMIT"), ctrl.mask("FLUSH")
    good, bad = p.defaults, {**p.defaults, "C2": 0}
    assert regmap.ctrl_write_effect(p, good, enable) == regmap.CtrlWriteEffect(enable=1)
    assert regmap.ctrl_write_effect(p, good, 0xFF, strb=0b1110) == regmap.CtrlWriteEffect()
    assert regmap.ctrl_write_effect(p, good, commit | flush) == regmap.CtrlWriteEffect(
        action=True, commit=True, flush=True, enable=0)
    # an illegal set: refused, and nothing else of the write happens
    refused = regmap.ctrl_write_effect(p, bad, commit | flush | enable | ctrl.mask("CLEAR_STATS"))
    assert refused == regmap.CtrlWriteEffect(action=True, refused=True)
    # without COMMIT the shadow set does not matter
    assert regmap.ctrl_write_effect(p, bad, flush | enable) == regmap.CtrlWriteEffect(
        action=True, flush=True, enable=1)


def test_mode_register_is_a_committed_shadow_with_reserved_bits():
    """D13: MODE resets to 0 (the blocking block) and a commit of a reserved bit is refused
    like an illegal configuration."""
    assert regmap.MODE_NAMES == ("POLICY", "MODE")
    assert regmap.MODE_DEFAULTS == {"POLICY": 0, "MODE": 0}
    assert REG["ACT_MODE"].active_of == "MODE" and REG["MODE"].access == "rw"
    p = Params()
    shadow = dict(p.defaults, MODE=1)
    commit = REG["CTRL"].mask("COMMIT")
    assert regmap.mode_violations(shadow) == []
    assert not regmap.ctrl_write_effect(p, shadow, commit).refused
    for bad in (2, 3, 0x8000_0000):
        shadow["MODE"] = bad
        assert regmap.mode_violations(shadow)
        effect = regmap.ctrl_write_effect(p, shadow, commit)
        assert effect.refused and not effect.commit
    # a write without COMMIT does not look at MODE
    assert not regmap.ctrl_write_effect(p, shadow, REG["CTRL"].mask("FLUSH")).refused


def test_policy_register_mode_needs_the_predictor_build():
    """spec-predictor.md P2: POLICY resets to 0; POLICY.MODE = 1 commits only on a build
    with the predictor (elsewhere it is a reserved bit), any other bit never; P_POLICIES
    says which policies the build has."""
    policy = REG["POLICY"]
    assert policy.mode and policy.access == "rw" and REG["ACT_POLICY"].active_of == "POLICY"
    assert policy.field("MODE").needs == "predictor"
    assert regmap.mode_defined("POLICY") == 0
    assert regmap.mode_defined("POLICY", predictor=True) == policy.mask("MODE")
    p, commit = Params(), REG["CTRL"].mask("COMMIT")
    on = dict(p.defaults, POLICY=policy.mask("MODE"))
    assert regmap.mode_violations(on, predictor=True) == []
    assert any("needs a build with the predictor" in s for s in regmap.mode_violations(on))
    refused = regmap.ctrl_write_effect(p, on, commit)
    assert refused.refused and not refused.commit
    assert not regmap.ctrl_write_effect(p, on, commit, predictor=True).refused
    for bad in (2, 3, 0x8000_0000):
        shadow = dict(p.defaults, POLICY=bad)
        assert regmap.mode_violations(shadow, predictor=True)
        assert regmap.ctrl_write_effect(p, shadow, commit, predictor=True).refused
    features = REG["P_POLICIES"]
    assert features.build == "policies" and features.access == "ro"
    assert regmap.build_word("policies") == features.mask("ARTICLE")
    assert regmap.build_word("policies", predictor=True) == (
        features.mask("ARTICLE") | features.mask("PREDICTOR"))
    with pytest.raises(TypeError):
        regmap.mode_violations(on, predictor=1)


def test_policy_mode_commits_with_nonblocking():
    """spec-predictor.md P2 / D13: on a predictor build POLICY.MODE = 1 commits together
    with MODE.NONBLOCKING; on the article build POLICY.MODE = 1 is refused as a reserved
    bit (one sentence)."""
    p, commit = Params(), REG["CTRL"].mask("COMMIT")
    on, nb = REG["POLICY"].mask("MODE"), REG["MODE"].mask("NONBLOCKING")
    both = dict(p.defaults, POLICY=on, MODE=nb)
    assert regmap.mode_violations(both, predictor=True) == []
    effect = regmap.ctrl_write_effect(p, both, commit, predictor=True)
    assert effect.commit and not effect.refused
    article = regmap.mode_violations(both)
    assert len(article) == 1 and "needs a build with the predictor" in article[0], article
    assert regmap.mode_violations({"MODE": nb}) == []      # a mode alone: the article's
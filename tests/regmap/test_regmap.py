"""The interface definition is self-consistent and the generated docs are current."""

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
    ({"ENTRIES": "2048"}, TypeError),
    ({"PROBE": True}, TypeError),
])
def test_illegal_params_are_refused(kwargs, exc):
    with pytest.raises(exc or ValueError, match="|".join(kwargs)):
        Params(**kwargs)


def test_registers_are_word_aligned_and_disjoint():
    offsets = [off for r in REGISTERS for off in r.offsets]
    assert len(offsets) == len(set(offsets))
    assert all(off % 4 == 0 for off in offsets)


def test_statistics_cover_spec_section_7():
    assert STAT_NAMES == ("observes", "observe_hits", "inserts", "replacements", "drops",
                          "queries", "query_hits", "evicts", "evicts_empty",
                          "obs_t0", "obs_t1", "obs_t2", "obs_t3")
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

# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""The predictor build option (docs/spec-predictor.md P2): ``CoreOptions.predictor`` is
validated like the other options, reaches the register block and the core, and
``hdl.generate --predictor`` builds it."""

import pytest

from hdl.core import CoreOptions, KvAsuCore
from hdl.generate import main as generate_main
from hdl.top import KvAsu
from regmap import Params

SMALL = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=6, TS_WIDTH=6, TICK_SHIFT=0)


def test_option_is_validated_and_frozen():
    assert CoreOptions().predictor is False
    with pytest.raises(TypeError, match="predictor must be a bool"):
        CoreOptions(predictor=1)
    with pytest.raises(ValueError, match="needs protection='none'"):
        CoreOptions(predictor=True)                      # the default protection is auto
    with pytest.raises(ValueError, match="needs the fast pipeline"):
        CoreOptions(predictor=True, compact=True, protection="none")
    options = CoreOptions(predictor=True, protection="none")
    assert options.as_dict()["predictor"] is True
    with pytest.raises(AttributeError):
        options.predictor = False                        # frozen


def test_article_build_has_no_policy_port():
    top = KvAsu(SMALL, CoreOptions(protection="none"))
    assert top.regs.predictor is False
    assert "policy" not in top.regs.signature.members


def test_predictor_build_ports_and_generation():
    options = CoreOptions(predictor=True, protection="none")
    top = KvAsu(SMALL, options)
    assert top.regs.predictor is True and "policy" in top.core.signature.members
    assert top.core.table.pmeta_width == 18      # ghost, burst 3, pkey 6, pred, probe, stamp 3, seen 3
    with pytest.raises(ValueError, match="observe=True"):
        KvAsuCore(SMALL, options, observe=True)
    assert generate_main(["--predictor", "--protection", "none", "--param", "ENTRIES=16",
                          "--out", "/dev/null"]) == 0
    assert generate_main(["--predictor", "--out", "/dev/null"]) == 2   # protection auto


def test_the_docs_state_the_pmeta_word_as_built():
    """The ``pmeta`` word's width and fields, wherever the docs and the layout's docstring
    state them by hand, are ``hdl.core.interfaces.pmeta_layout``'s."""
    from pathlib import Path

    from hdl.core.interfaces import pmeta_layout
    from tests.docs_text import flat, grouped

    root = Path(__file__).resolve().parents[2]
    layout = pmeta_layout()
    width = layout.size

    rtl, spec = (flat((root / "docs" / name).read_text()) for name in ("rtl-predictor.md", "spec-predictor.md"))
    fields = ", ".join(f"`{name}` {field.width}" for name, field in layout)
    assert f"`BucketTable(pmeta_width={width})`" in rtl
    assert f"`hdl.core.interfaces.pmeta_layout`, {width} bits" in rtl
    assert f"per slot {fields} (P3, P4, P12): {width} bits" in rtl
    assert f"`pmeta` ({width} x `ENTRIES / PROBE` per bank)" in rtl
    assert f"`pmeta` words, 4 x 512 x {width})" in rtl
    assert f"(`pmeta`, {width} bits with P12's)" in spec
    entries = Params().ENTRIES
    for names, cites, tail in ((("ghost", "burst", "pkey", "pred", "seen"), "(P3-P6)",
                                "block RAM, a word of their own"),
                               (("probe", "stamp"), "(P12)", "same `pmeta` word")):
        bits = sum(layout[n].width for n in names)
        cells = ", ".join(f"`{n}` {layout[n].width}" for n in names)
        row = f"| per slot: {cells} {cites} | {bits} x {entries} = {grouped(bits * entries)} bits, {tail}"
        assert row in spec, names
    assert sum(layout[n].width for n in ("ghost", "burst", "pkey", "pred", "seen", "probe", "stamp")) == width
    assert f"OBSERVEs): {width} bits." in flat(pmeta_layout.__doc__)

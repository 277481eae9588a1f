# SPDX-License-Identifier: Apache-2.0
"""The pieces of formal/common.py that the proofs take from the design's own sources."""

import random

from amaranth import Module, Shape, Signal
from amaranth.sim import Simulator

import regmap
from formal.common import config_legal_expr, small_params


def test_config_legal_expr_is_the_register_maps_rule():
    """The legality expression the harnesses assume and assert agrees with
    ``regmap.config_legal`` on legal and illegal configurations alike."""
    p = small_params()
    words = {n: Signal(32, name=n.lower()) for n in regmap.CONFIG_NAMES}
    legal = Signal()
    m = Module()
    m.d.comb += legal.eq(config_legal_expr(p, words))
    rng = random.Random(1)
    cases = [p.defaults, {**p.defaults, "C2": 0}, {**p.defaults, "C3": p.COUNT_MAX + 1},
             {**p.defaults, "W1": p.WMAX + 1}, {**p.defaults, "HASH_SEED": 0xFFFFFFFF}]
    cases += [{n: rng.choice([0, 1, 2, 3, 4, 5, 1 << 31]) for n in regmap.CONFIG_NAMES}
              for _ in range(200)]
    seen = set()

    async def bench(ctx):
        for config in cases:
            for name, value in config.items():
                ctx.set(words[name], value)
            expected = regmap.config_legal(p, config)
            assert ctx.get(legal) == expected, config
            seen.add(expected)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert seen == {True, False}


def test_the_harness_table_layouts_are_the_tables():
    """The soft-error proofs read the table's words through ``table_layouts``; an
    unprotected table built with the register-model memory gives each array that shape."""
    from amaranth.hdl import Fragment
    from amaranth.lib import data
    from hdl.core import CoreOptions, KvAsuCore
    from formal.common import FORMAL_GEN_WIDTH, formal_models
    from formal.core_harness import table_layouts

    p = small_params()
    core = KvAsuCore(p, CoreOptions(protection="none"), observe=True,
                     gen_width=FORMAL_GEN_WIDTH, **formal_models(p))
    Fragment.get(core, None)
    layouts = table_layouts(p, FORMAL_GEN_WIDTH)
    checked = set()
    for name, mem in core.table.memories.items():
        kind = name.rstrip("0123456789")
        if kind in layouts:
            expected = layouts[kind]      # a layout's fields with their offsets
            if isinstance(expected, data.Layout):
                assert mem.shape == expected, name
            else:
                assert Shape.cast(mem.shape) == expected, name
            checked.add(kind)
    assert checked == set(layouts)

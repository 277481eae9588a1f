# SPDX-License-Identifier: Apache-2.0
"""The golden model's Python API: parameters, argument checking, value types and the
debug views (including that the LRU integrity check does catch a broken list)."""

import ast
from pathlib import Path

import numpy as np
import pytest

import golden_model
import regmap
from golden_model import KvAsuModel, Op, Response, SlotState, Stats
from regmap import Params

from .helpers import colliding_addrs, state


def test_op_values_come_from_regmap():
    assert {op.name: op.value for op in Op} == regmap.OPS
    assert (Op.OBSERVE, Op.QUERY, Op.EVICT, Op.EVICT_ANY) == (0, 1, 2, 3)


def test_value_types_match_regmap():
    assert Stats._fields == regmap.STAT_NAMES
    assert KvAsuModel().stats.as_dict() == dict.fromkeys(regmap.STAT_NAMES, 0)
    assert set(Response._fields) == {name for name, _ in regmap.response_fields(Params())}


def test_parameters_by_keyword_or_params_object():
    model = KvAsuModel(entries=64, probe=2, addr_width=48, line_shift=6, tag_width=20,
                       count_width=8, ts_width=5, tick_shift=3)
    assert model.params == Params(ENTRIES=64, PROBE=2, ADDR_WIDTH=48, LINE_SHIFT=6,
                                  TAG_WIDTH=20, COUNT_WIDTH=8, TS_WIDTH=5, TICK_SHIFT=3)
    assert KvAsuModel(params=Params(ENTRIES=16)).params.ENTRIES == 16
    assert KvAsuModel().params == Params()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"entries": 1000}, ValueError, "ENTRIES"),
    ({"entries": 2, "probe": 4}, ValueError, "PROBE"),
    ({"ts_width": 1}, ValueError, "TS_WIDTH"),
    ({"tag_width": 57}, ValueError, "TAG_WIDTH"),
    ({"entries": "16"}, TypeError, "ENTRIES"),
    ({"slots": 16}, TypeError, "unknown parameter"),
    ({"ENTRIES": 16}, TypeError, "unknown parameter"),
    ({"params": Params(), "entries": 16}, TypeError, "either"),
    ({"params": {"ENTRIES": 16}}, TypeError, "regmap.Params"),
])
def test_illegal_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        KvAsuModel(**kwargs)


@pytest.mark.parametrize("args, error, match", [
    ((-1, 0, 0x100, 0), ValueError, "cycle"),
    ((1.5, 0, 0x100, 0), TypeError, "cycle"),
    ((10, 4, 0x100, 0), ValueError, "op"),
    ((10, -1, 0x100, 0), ValueError, "op"),
    ((10, "0", 0x100, 0), TypeError, "op"),
    ((10, 0, -1, 0), ValueError, "addr"),
    ((10, 0, None, 0), TypeError, "addr"),
    ((10, 0, 0x100, 4), ValueError, "min_tlevel"),
    ((10, 0, 0x100, True), TypeError, "min_tlevel"),
    ((4, 0, 0x100, 0), ValueError, "before"),
])
def test_bad_requests_change_nothing(args, error, match):
    model = KvAsuModel(entries=16)
    model.request(5, Op.OBSERVE, 0x200)
    before, stats = state(model), model.stats
    with pytest.raises(error, match=match):
        model.request(*args)
    assert state(model) == before and model.stats == stats and model.cycle == 5


def test_request_accepts_numpy_integers_and_enum():
    model = KvAsuModel(entries=16)
    r = model.request(np.uint64(3), Op.OBSERVE, np.uint64(0x300), np.uint8(0))
    assert r.tracked == 1 and type(r.op) is int and type(r.slot) is int


@pytest.mark.parametrize("columns, error, match", [
    (([0, 1], [0], [1, 2]), ValueError, "same length"),
    (([3, 2], [0, 0], [1, 2]), ValueError, "decrease"),
    (([0, 1], [0, 1], [1, 2]), ValueError, "before the previous"),   # model.cycle is 5
    (([6, 7], [0, 4], [1, 2]), ValueError, "ops"),
    (([6, 7], [0, 1], [1, -2]), ValueError, "addrs"),
    (([6, 7], [0, 1], [1.0, 2.0]), TypeError, "addrs"),
    ((np.array([6.0, 7.0]), [0, 1], [1, 2]), TypeError, "cycles"),
])
def test_bad_runs_change_nothing(columns, error, match):
    model = KvAsuModel(entries=16)
    model.request(5, Op.OBSERVE, 0x200)
    before, stats = state(model), model.stats
    with pytest.raises(error, match=match):
        model.run(*columns)
    assert state(model) == before and model.stats == stats and model.cycle == 5


def test_run_with_min_tlevels_and_empty_input():
    model = KvAsuModel(entries=16)
    assert model.run([], [], []) is None and model.run([], [], [], responses=True) == []
    r = model.run([0, 1], [0, 1], [0x100, 0x100], [3, 3], responses=True)
    assert (r[0].hit, r[1].hit) == (0, 0)
    assert model.cycle == 1


def test_addresses_wider_than_64_bits():
    model = KvAsuModel(entries=16, addr_width=100, line_shift=8, tag_width=64)
    addr = (1 << 99) | (0xAB << 8)
    assert model.tag_of(addr) == 0xAB                # tag is the low 64 bits of the line
    assert model.request(0, Op.OBSERVE, addr).tracked == 1
    assert model.request(1, Op.QUERY, 0xAB << 8).present == 1
    assert model.request(2, Op.QUERY, (1 << 100) | (0xAB << 8)).present == 1   # masked
    r = model.run([3], [1], [addr | 0x5], responses=True)
    assert r[0].count == 1 and r[0].present == 1


def test_debug_views():
    model = KvAsuModel(entries=16, tick_shift=0)
    addrs = colliding_addrs(model, 2)
    window = model.window_of(addrs[0])
    assert window == tuple((model.home_of(addrs[0]) + i) % 16 for i in range(4))
    assert model.find(addrs[0]) is None and model.head is None and model.tail is None
    model.request(7, Op.OBSERVE, addrs[0])
    model.request(9, Op.OBSERVE, addrs[1])
    s0, s1 = window[0], window[1]
    assert model.find(addrs[0]) == s0 and model.find(addrs[1]) == s1
    assert model.slot_state(s0) == SlotState(1, addrs[0] >> 8, 1, 7, s1, None)   # tail: prev -> s1
    assert model.slot_state(s1) == SlotState(1, addrs[1] >> 8, 1, 9, None, s0)   # head: next -> s0
    assert model.slot_state(s0).prev == s1 and model.slot_state(s1).next == s0
    assert (model.head, model.tail, model.lru_order()) == (s1, s0, [s0, s1])
    assert len(model.slot_states()) == 16 and model.occupancy == 2
    # TICK_SHIFT 0 clamps the reset windows: W3=100, W2=W1=127 (C3=5, C2=3)
    assert [model.tlevel_of(*ca) for ca in ((5, 100), (5, 101), (3, 127), (2, 127), (1, 128))] \
        == [3, 2, 2, 1, 0]
    with pytest.raises(ValueError, match="slot"):
        model.slot_state(16)


@pytest.fixture
def three_lines():
    model = KvAsuModel(entries=16, tick_shift=0)
    for cycle, line in enumerate((0x10, 0x20, 0x30)):
        model.request(cycle, Op.OBSERVE, line << 8)
    order = model.lru_order()
    assert len(order) == 3
    return model, order


def corrupt(model, order, how):
    a, b, c = order                          # tail, middle, head
    if how == "next":
        model._next[b] = b
    elif how == "prev_cycle":
        model._prev[b] = a
        model._next[a] = b
    elif how == "head":
        model._head = b
    elif how == "tail_missing":
        model._tail = -1
    elif how == "occupancy":
        model._occupancy = 4
    elif how == "free_slot_linked":
        free = next(s for s in range(16) if s not in order)
        model._prev[a] = free
        model._next[free] = a
    elif how == "valid_not_linked":
        free = next(s for s in range(16) if s not in order)
        model._tag[free] = 0x99
    elif how == "pointer_range":
        model._prev[a] = 99
    elif how == "free_with_pointer":
        free = next(s for s in range(16) if s not in order)
        model._next[free] = a


@pytest.mark.parametrize("how", ["next", "prev_cycle", "head", "tail_missing", "occupancy",
                                 "free_slot_linked", "valid_not_linked", "pointer_range",
                                 "free_with_pointer"])
def test_lru_order_detects_corruption(three_lines, how):
    model, order = three_lines
    corrupt(model, order, how)
    with pytest.raises(AssertionError, match="LRU list"):
        model.lru_order()


def test_check_invariants_detects_bad_table(three_lines):
    model, order = three_lines
    model.check_invariants()
    model._last[order[0]] = 2                       # tail more recent than the middle
    with pytest.raises(AssertionError, match="ordered by last"):
        model.check_invariants()
    model._last[order[0]] = 0
    model._tag[order[0]] = model._tag[order[1]]     # one line in two slots
    with pytest.raises(AssertionError, match="twice|outside its window"):
        model.check_invariants()


def test_model_is_independent_of_the_rtl_and_testbenches():
    # a misreading of the spec must not hide in code shared with hdl/ or verif/
    allowed = {"__future__", "argparse", "collections", "dataclasses", "enum", "json", "os", "sys", "time", "typing",
               "zipfile", "zlib",
               "mmh3", "numpy", "regmap"}
    for path in Path(golden_model.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] in allowed, f"{path.name} imports {module}"


@pytest.mark.parametrize("parameters, expected", [
    ({}, (5, 3, 25, 50, 125)),
    ({"TICK_SHIFT": 3}, (5, 3, 12, 25, 62)),        # D4 shifts, so it rounds down
    ({"TICK_SHIFT": 7}, (5, 3, 0, 1, 3)),
    ({"TICK_SHIFT": 16}, (5, 3, 0, 0, 0)),
    ({"TS_WIDTH": 6, "COUNT_WIDTH": 2}, (3, 3, 25, 31, 31)),
    ({"COUNT_WIDTH": 1, "TS_WIDTH": 2}, (1, 1, 1, 1, 1)),
])
def test_reset_configuration_is_the_models_own_reading_of_d4(parameters, expected):
    """The model computes D4 itself; the register map's ``Params.defaults``, which the RTL's
    reset values and the testbenches' register mirror use, must give the same, so a
    misreading of D4 in that shared code cannot pass the model-against-RTL comparison."""
    params = Params(**parameters)
    config = KvAsuModel(params).config
    assert (config.c3, config.c2, config.w3, config.w2, config.w1) == expected
    assert config.hash_seed == 0
    assert {name.upper(): value for name, value in config.as_dict().items()} == params.defaults


def test_reset_configuration_agrees_with_the_register_map_over_every_width():
    for count_width in (1, 2, 3, 16, 32):
        for ts_width in (2, 3, 7, 8, 24):
            for tick_shift in range(17):
                params = Params(COUNT_WIDTH=count_width, TS_WIDTH=ts_width, TICK_SHIFT=tick_shift)
                config = golden_model.model.reset_config(params)
                assert {name.upper(): value for name, value in config.as_dict().items()} \
                    == params.defaults, params


def test_debug_views_in_the_predictor_mode_tell_a_ghost_from_a_tracked_line():
    """P3: an evicted line stays in its slot as a ghost; the debug views say so."""
    model = KvAsuModel(entries=16, policy="predictor")
    a, b = colliding_addrs(model, 2)
    model.request(0, Op.OBSERVE, a)
    model.request(1, Op.OBSERVE, b)
    model.request(2, Op.EVICT_ANY, 0)                  # a, the tail, becomes a ghost
    ghost, live = model.window_of(a)[0], model.window_of(a)[1]
    assert model.find(a) is None and model.find(b) == live and model.occupancy == 1
    assert model.slot_state(ghost).ghost == 1 and model.slot_state(ghost).tag == a >> 8
    assert model.slot_state(live).ghost == 0 and model.slot_state(live).valid == 1
    assert model.lru_order() == [live]
    with pytest.raises(ValueError, match="predictor mode"):
        model.tlevel_of(1, 0)


def test_hash_and_level_helpers_refuse_what_no_line_can_have():
    model = KvAsuModel(entries=16)
    for call, error in ((lambda: golden_model.tag_key(-1), ValueError),
                        (lambda: golden_model.tag_key(2**64), ValueError),
                        (lambda: golden_model.tag_key("x"), TypeError),
                        (lambda: model.home_of_tag(-1), ValueError),
                        (lambda: model.home_of_tag(2**56), ValueError),  # wider than TAG_WIDTH
                        (lambda: model.home_of_tag(3.0), TypeError),
                        (lambda: model.tlevel_of(0, 1), ValueError),     # no line has count 0
                        (lambda: model.tlevel_of(1, -5), ValueError),
                        (lambda: model.tlevel_of(1.5, 1), TypeError),
                        (lambda: model.replay(5), TypeError),
                        (lambda: model.request(2**64, Op.OBSERVE, 0), ValueError)):
        with pytest.raises(error):
            call()
    assert golden_model.tag_key(np.uint64(5)) == golden_model.tag_key(5)
    assert model.home_of_tag(np.uint64(5)) == model.home_of_tag(5)
    assert golden_model.murmur3_x86_32_u64(np.uint64(5)) == golden_model.tag_hash(5, 0)
    assert model.stats == KvAsuModel(entries=16).stats and model.cycle == 0   # nothing changed
    model.run([2**64 - 1], [Op.OBSERVE], [0])          # the last cycle the counter holds
    assert model.request(2**64 - 1, Op.QUERY, 0).present == 1


def test_mode_reset_is_checked_by_the_register_map():
    assert KvAsuModel(mode_reset=np.int64(1)).mode == 1
    for bad, error in ((True, TypeError), ("1", TypeError), (2, ValueError)):
        with pytest.raises(error, match="mode_reset"):
            KvAsuModel(mode_reset=bad)

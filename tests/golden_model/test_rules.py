# SPDX-License-Identifier: Apache-2.0
"""Directed tests of the golden model, one or more per rule of spec sections 4-6 and D2-D7.

Every test asserts complete responses (all fields). Most use a small table (16 slots,
windows of 4, one tick per cycle) and the configuration ``C3=3 C2=2 W3=10 W2=20 W1=30``
so that ages and levels can be read off directly; some use the default build.
"""

import mmh3
import pytest

from golden_model import KvAsuModel, Op, Response, SlotState

from .helpers import addrs_with_home, colliding_addrs, state

OBSERVE, QUERY, EVICT, EVICT_ANY = Op.OBSERVE, Op.QUERY, Op.EVICT, Op.EVICT_ANY
W1 = 30


@pytest.fixture
def model() -> KvAsuModel:
    m = KvAsuModel(entries=16, probe=4, tick_shift=0)
    m.commit(0, c3=3, c2=2, w3=10, w2=20, w1=W1)
    return m


def fill_window(model, cycle=0, n=4):
    """Observe ``n`` colliding lines at cycles ``cycle, cycle+1, ...``; return addrs, home."""
    addrs = colliding_addrs(model, n + 2)
    home = model.home_of(addrs[0])
    for i, addr in enumerate(addrs[:n]):
        model.request(cycle + i, OBSERVE, addr)
    return addrs, home


def slot(model, home, offset):
    return (home + offset) % model.params.ENTRIES


# ---- OBSERVE of an untracked line: insert into the first free slot (spec 6, D6) -----------------

def test_observe_inserts_new_line_at_its_home(model):
    addr = 0x1234 << 8
    home = model.home_of(addr)
    assert model.request(5, OBSERVE, addr) == Response(
        op=0, present=0, tlevel_before=0, tracked=1, tlevel=1, count=1, hit=1, slot=home,
        victim_valid=0, victim_tag=0)
    assert model.lru_order() == [home]
    assert model.slot_state(home) == SlotState(1, 0x1234, 1, 5, None, None)
    assert model.occupancy == 1


def test_insert_takes_first_free_slot_in_probe_order(model):
    addrs = colliding_addrs(model, 4)
    home = model.home_of(addrs[0])
    for i, addr in enumerate(addrs):
        r = model.request(i, OBSERVE, addr)
        assert r == Response(op=0, tracked=1, tlevel=1, count=1, hit=1, slot=slot(model, home, i))
    # the LRU list links them in insertion order: tail = first inserted
    assert model.lru_order() == [slot(model, home, i) for i in range(4)]


def test_insert_reuses_a_freed_earlier_slot(model):
    addrs, home = fill_window(model)
    # EVICT_ANY pops the tail: the first line, in slot h
    assert model.request(10, EVICT_ANY, 0) == Response(
        op=3, slot=slot(model, home, 0), victim_valid=1, victim_tag=addrs[0] >> 8)
    # a new colliding line takes slot h (the first free), not a later one
    assert model.request(11, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=slot(model, home, 0))


def test_presence_is_checked_over_the_whole_window_first(model):
    addrs, home = fill_window(model)
    model.request(10, EVICT_ANY, 0)                  # slot h is now free
    # the line in slot h+2 stays there though slot h is free (D6)
    assert model.request(11, OBSERVE, addrs[2]) == Response(
        op=0, present=1, tlevel_before=1, tracked=1, tlevel=2, count=2, hit=1,
        slot=slot(model, home, 2))
    assert model.slot_state(slot(model, home, 0)).valid == 0
    assert model.occupancy == 3


# ---- OBSERVE of a tracked line: count, cold restart, saturation, move to head -------------------

def test_observe_tracked_line_counts_and_moves_to_head(model):
    addrs, home = fill_window(model)               # slots h..h+3 at cycles 0..3
    expect = [  # cycle, (tlevel_before, tlevel after, count after)
        (4, 1, 2, 2),   # count 1 -> 2: T1 before (count 1 < C2), T2 after
        (5, 2, 3, 3),   # count 2 -> 3: T2 before, T3 after
        (6, 3, 3, 4),   # count 3 -> 4: T3 before and after
    ]
    for cycle, before, after, count in expect:
        assert model.request(cycle, OBSERVE, addrs[0], min_tlevel=before) == Response(
            op=0, present=1, tlevel_before=before, tracked=1, tlevel=after, count=count,
            hit=1, slot=slot(model, home, 0))
    assert model.lru_order() == [slot(model, home, i) for i in (1, 2, 3, 0)]
    assert model.head == slot(model, home, 0) and model.tail == slot(model, home, 1)


def test_move_to_head_from_the_middle_and_of_the_head(model):
    addrs, home = fill_window(model)
    model.request(4, OBSERVE, addrs[2])            # from the middle
    assert model.lru_order() == [slot(model, home, i) for i in (0, 1, 3, 2)]
    model.request(5, OBSERVE, addrs[2])            # already the head: no change of order
    assert model.lru_order() == [slot(model, home, i) for i in (0, 1, 3, 2)]
    model.request(6, OBSERVE, addrs[0])            # the tail
    assert model.lru_order() == [slot(model, home, i) for i in (1, 3, 2, 0)]


def test_cold_restart_of_count(model):
    addr = 0x77 << 8
    for cycle in range(4):
        model.request(cycle, OBSERVE, addr)        # count 4, last = 3
    home = model.home_of(addr)
    # age W1 + 1: the line had gone cold: count restarts at 1
    assert model.request(3 + W1 + 1, OBSERVE, addr) == Response(
        op=0, present=1, tlevel_before=0, tracked=1, tlevel=1, count=1, hit=1, slot=home)


def test_no_restart_at_age_exactly_w1(model):
    addr = 0x77 << 8
    for cycle in range(4):
        model.request(cycle, OBSERVE, addr)        # count 4, last = 3
    assert model.request(3 + W1, OBSERVE, addr) == Response(
        op=0, present=1, tlevel_before=1, tracked=1, tlevel=3, count=5, hit=1,
        slot=model.home_of(addr))


def test_count_saturates_at_65535():
    model = KvAsuModel()                             # COUNT_WIDTH 16
    addr = 0xABC << 8
    n = 65535
    model.run(list(range(n)), [OBSERVE] * n, [addr] * n)
    assert model.slot_state(model.home_of(addr)).count == 65535
    for cycle in (n, n + 1):
        assert model.request(cycle, OBSERVE, addr) == Response(
            op=0, present=1, tlevel_before=3, tracked=1, tlevel=3, count=65535, hit=1,
            slot=model.home_of(addr))


def test_count_saturates_at_small_count_width():
    model = KvAsuModel(entries=16, probe=2, count_width=2, tick_shift=0)
    assert (model.config.c3, model.config.c2) == (3, 3)     # defaults clamped (D4)
    addr = 0x5 << 8
    counts = [model.request(cycle, OBSERVE, addr).count for cycle in range(6)]
    assert counts == [1, 2, 3, 3, 3, 3]


def test_count_width_1_new_line_is_t3():
    # COUNT_MAX = 1 forces C3 = C2 = 1: a line at age 0 with count 1 is T3
    model = KvAsuModel(entries=8, probe=2, count_width=1, tick_shift=0)
    addr = 0x9 << 8
    home = model.home_of(addr)
    assert model.request(0, OBSERVE, addr) == Response(
        op=0, tracked=1, tlevel=3, count=1, hit=1, slot=home)
    assert model.request(1, OBSERVE, addr, min_tlevel=3) == Response(
        op=0, present=1, tlevel_before=3, tracked=1, tlevel=3, count=1, hit=1, slot=home)


# ---- OBSERVE of an untracked line into a full window: replace a T0 line, else drop --------------

def test_replacement_only_of_t0(model):
    addrs, home = fill_window(model)               # lasts 0, 1, 2, 3
    # at cycle W1 + 1 only the line of slot h (age W1 + 1) is T0: it is replaced
    assert model.request(W1 + 1, OBSERVE, addrs[4]) == Response(
        op=0, present=0, tlevel_before=0, tracked=1, tlevel=1, count=1, hit=1,
        slot=slot(model, home, 0), victim_valid=1, victim_tag=addrs[0] >> 8)
    assert model.slot_state(slot(model, home, 0)) == SlotState(
        1, addrs[4] >> 8, 1, W1 + 1, None, slot(model, home, 3))
    # a replacement is a move-to-head of the victim's slot
    assert model.lru_order() == [slot(model, home, i) for i in (1, 2, 3, 0)]
    assert model.occupancy == 4
    assert model.find(addrs[0]) is None


def test_drop_when_window_is_hot(model):
    addrs, home = fill_window(model)
    before = state(model)
    # at cycle W1 the oldest line (last 0) has age exactly W1: T1, not T0 -> drop
    assert model.request(W1, OBSERVE, addrs[4]) == Response(op=0, hit=1)
    assert model.request(W1, OBSERVE, addrs[4], min_tlevel=1) == Response(op=0, hit=0)
    assert state(model) == before
    stats = model.stats
    assert (stats.drops, stats.inserts, stats.replacements, stats.obs_t0) == (2, 4, 0, 6)


def test_replacement_picks_greatest_age_not_lowest_slot(model):
    addrs, home = fill_window(model)               # lasts 0, 1, 2, 3
    for cycle, i in ((5, 0), (6, 1), (7, 3)):       # now slot h+2 (last 2) is the oldest
        model.request(cycle, OBSERVE, addrs[i])
    assert model.request(2 + W1 + 1, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=slot(model, home, 2),
        victim_valid=1, victim_tag=addrs[2] >> 8)


def test_replacement_tie_goes_to_lowest_probe_offset(model):
    addrs, home = fill_window(model)               # lasts 0, 1, 2, 3
    model.request(40, OBSERVE, addrs[0])
    model.request(40, OBSERVE, addrs[2])
    model.request(41, OBSERVE, addrs[1])
    model.request(41, OBSERVE, addrs[3])
    # lasts: h: 40, h+1: 41, h+2: 40, h+3: 41 -> h and h+2 tie as the oldest; at cycle
    # 40 + W1 + 1 both are T0 and the lower probe offset (h) is replaced
    assert model.request(40 + W1 + 1, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=slot(model, home, 0),
        victim_valid=1, victim_tag=addrs[0] >> 8)


def test_saturated_age_ties_go_to_lowest_probe_offset(model):
    wmax = model.params.WMAX                        # 127: saturated age is 128
    addrs, home = fill_window(model)               # lasts 0, 1, 2, 3
    model.request(500, OBSERVE, addrs[1])          # h+1: last 500
    model.request(1200, OBSERVE, addrs[0])         # h:   last 1200
    model.request(1200, OBSERVE, addrs[2])         # h+2: last 1200; h+3 keeps last 3
    # at 1210 the real ages are 10, 710, 10, 1207: the real oldest is h+3, but h+1 and h+3
    # both saturate to WMAX + 1 = 128 and the tie goes to the lower offset, h+1
    assert 710 > wmax + 1
    assert model.request(1210, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=slot(model, home, 1),
        victim_valid=1, victim_tag=addrs[1] >> 8)


def test_replacement_compares_exact_ages_below_saturation(model):
    # ages above W1 but not above WMAX are compared exactly: 100 beats 31, though the
    # line of age 31 sits at a lower probe offset and is T0 too
    addrs, home = fill_window(model)
    for i in (0, 2, 3):
        model.request(70, OBSERVE, addrs[i])       # h+1 keeps last 1
    assert model.request(101, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=slot(model, home, 1),
        victim_valid=1, victim_tag=addrs[1] >> 8)


def test_replacement_victim_need_not_be_the_lru_tail(model):
    # the victim is the window's oldest line, which may sit anywhere in the list
    other = addrs_with_home(model, (model.home_of(0x1 << 8) + 8) % 16, 1)[0]
    model.request(0, OBSERVE, other)               # the global tail, another window
    addrs, home = fill_window(model, cycle=1)      # lasts 1..4
    r = model.request(1 + W1 + 1, OBSERVE, addrs[4])
    assert r == Response(op=0, tracked=1, tlevel=1, count=1, hit=1,
                         slot=slot(model, home, 0), victim_valid=1, victim_tag=addrs[0] >> 8)
    assert model.lru_order()[0] == model.find(other)


# ---- EVICT and EVICT_ANY ------------------------------------------------------------------------

@pytest.mark.parametrize("op", [EVICT, EVICT_ANY])
def test_evict_on_empty_table(model, op):
    assert model.request(0, op, 0x100, min_tlevel=0) == Response(op=op)   # hit is 0 (D5)
    stats = model.stats
    assert (stats.evicts, stats.evicts_empty) == (0, 1)


def test_evict_on_non_t0_tail(model):
    addrs, home = fill_window(model)
    before = state(model)
    # the tail (last 0) has age exactly W1: T1
    assert model.request(W1, EVICT, 0) == Response(op=2)
    assert state(model) == before
    assert (model.stats.evicts, model.stats.evicts_empty) == (0, 1)


def test_evict_on_t0_tail(model):
    addrs, home = fill_window(model)
    assert model.request(W1 + 1, EVICT, 0, min_tlevel=0) == Response(
        op=2, slot=slot(model, home, 0), victim_valid=1, victim_tag=addrs[0] >> 8)
    assert model.lru_order() == [slot(model, home, i) for i in (1, 2, 3)]
    assert model.slot_state(slot(model, home, 0)) == SlotState(0, 0, 0, 0, None, None)
    assert model.occupancy == 3
    assert model.find(addrs[0]) is None
    # the next tail (last 1) is T1 at the same time
    assert model.request(W1 + 1, EVICT, 0) == Response(op=2)
    assert (model.stats.evicts, model.stats.evicts_empty) == (1, 1)


def test_evict_pops_the_least_recently_used_not_the_first_inserted(model):
    addrs, home = fill_window(model)
    model.request(4, OBSERVE, addrs[0])            # slot h goes to the head
    assert model.request(200, EVICT, 0) == Response(
        op=2, slot=slot(model, home, 1), victim_valid=1, victim_tag=addrs[1] >> 8)


def test_evict_any_pops_tail_regardless_of_level(model):
    addrs, home = fill_window(model)
    for i in range(4):
        model.request(4 + i, OBSERVE, addrs[i])   # every line T2 now
    for i in range(4):
        assert model.request(8, EVICT_ANY, 0, min_tlevel=3) == Response(
            op=3, slot=slot(model, home, i), victim_valid=1, victim_tag=addrs[i] >> 8)
    assert model.lru_order() == [] and model.head is None and model.tail is None
    assert model.request(8, EVICT_ANY, 0) == Response(op=3)
    assert (model.stats.evicts, model.stats.evicts_empty) == (4, 1)


def test_evict_last_line_empties_the_list_then_insert_works(model):
    model.request(0, OBSERVE, 0x10 << 8)
    model.request(1, EVICT_ANY, 0)
    assert model.lru_order() == [] and model.occupancy == 0
    r = model.request(2, OBSERVE, 0x11 << 8)
    assert r.tracked == 1 and model.lru_order() == [r.slot] == [model.head] == [model.tail]


# ---- time (spec 4, D3) --------------------------------------------------------------------------

def test_idle_time_far_beyond_ts_width():
    model = KvAsuModel()                             # TS_WIDTH 8, TICK_SHIFT 2
    addr = 0x4242 << 8
    home = model.home_of(addr)
    for cycle in range(0, 20, 4):
        model.request(cycle, OBSERVE, addr)        # count 5, last tick 4
    # 10**6 cycles later: 250 000 ticks, ~1000 times 2**TS_WIDTH
    assert model.request(10**6, QUERY, addr) == Response(
        op=1, present=1, tlevel_before=0, tracked=1, tlevel=0, count=5, hit=1, slot=home)
    # an idle time that is an exact multiple of 2**TS_WIDTH ticks must not alias to age 0
    cycle = (4 + 1000 * 256) << 2
    assert model.request(cycle, EVICT, 0) == Response(
        op=2, slot=home, victim_valid=1, victim_tag=0x4242)


def test_idle_multiple_of_timestamp_range_observe_restarts_count():
    model = KvAsuModel()
    addr = 0x99 << 8
    for cycle in (0, 4, 8):
        model.request(cycle, OBSERVE, addr)        # count 3, last tick 2
    cycle = (2 + 256 * 4096) << 2                  # age 2**20 ticks exactly
    assert model.request(cycle, OBSERVE, addr) == Response(
        op=0, present=1, tlevel_before=0, tracked=1, tlevel=1, count=1, hit=1,
        slot=model.home_of(addr))


def test_cycles_within_one_tick_have_age_zero():
    model = KvAsuModel(entries=16, probe=4)          # TICK_SHIFT 2
    model.commit(0, w3=0, w2=0, w1=0)
    addr = 0x3 << 8
    model.request(4, OBSERVE, addr)                # tick 1
    assert model.request(7, QUERY, addr).tlevel == 1        # tick 1: age 0 <= W1 = 0
    assert model.request(8, QUERY, addr).tlevel == 0        # tick 2: age 1 > W1


def test_equal_cycles_are_allowed_decreasing_are_not(model):
    model.request(10, OBSERVE, 0x100)
    model.request(10, QUERY, 0x100)
    with pytest.raises(ValueError, match="cycle 9 is before"):
        model.request(9, QUERY, 0x100)
    with pytest.raises(ValueError, match="before"):
        model.commit(9, c3=4)
    assert model.config.c3 == 3


# ---- T-levels (spec 5) --------------------------------------------------------------------------

@pytest.mark.parametrize("count, age, level", [
    (3, 10, 3), (3, 11, 2),      # T3 needs C >= C3 and A <= W3
    (4, 0, 3), (2, 0, 2),        # C == C3 - 1 is not T3
    (2, 20, 2), (2, 21, 1),      # T2 needs C >= C2 and A <= W2
    (3, 20, 2), (3, 21, 1),
    (1, 0, 1), (1, 30, 1), (1, 31, 0),   # T1 needs A <= W1
    (5, 30, 1), (5, 31, 0),
])
def test_tlevel_boundaries(model, count, age, level):
    addr = 0x55 << 8
    for cycle in range(count):
        model.request(cycle, OBSERVE, addr)
    last = count - 1
    assert model.tlevel_of(count, age) == level
    assert model.request(last + age, QUERY, addr) == Response(
        op=1, present=1, tlevel_before=level, tracked=1, tlevel=level, count=count, hit=1,
        slot=model.home_of(addr))


@pytest.mark.parametrize("min_tlevel", [0, 1, 2, 3])
def test_min_tlevel_and_hit(model, min_tlevel):
    addr = 0x66 << 8
    model.request(0, OBSERVE, addr)
    model.request(1, OBSERVE, addr)                # count 2: T2 at age <= 20
    hit = int(2 >= min_tlevel)
    home = model.home_of(addr)
    assert model.request(5, QUERY, addr, min_tlevel) == Response(
        op=1, present=1, tlevel_before=2, tracked=1, tlevel=2, count=2, hit=hit, slot=home)
    # OBSERVE's hit is about the level before the request
    assert model.request(6, OBSERVE, addr, min_tlevel) == Response(
        op=0, present=1, tlevel_before=2, tracked=1, tlevel=3, count=3, hit=hit, slot=home)
    # an untracked line is T0
    assert model.request(7, QUERY, 0x67 << 8, min_tlevel) == Response(
        op=1, hit=int(min_tlevel == 0))
    assert model.stats.query_hits == hit + int(min_tlevel == 0)


# ---- QUERY (spec 6, D5) -------------------------------------------------------------------------

def test_query_changes_nothing(model):
    addrs, home = fill_window(model)
    model.request(4, OBSERVE, addrs[1])
    before = state(model)
    stats = model.stats
    cold = model.request(200, QUERY, addrs[1])     # cold: count not reset by QUERY (D5)
    assert cold == Response(op=1, present=1, tlevel_before=0, tracked=1, tlevel=0, count=2,
                            hit=1, slot=slot(model, home, 1))
    assert model.request(200, QUERY, addrs[4]) == Response(op=1, hit=1)    # absent
    assert model.request(200, QUERY, addrs[0], 1) == Response(
        op=1, present=1, tracked=1, count=1, hit=0, slot=slot(model, home, 0))
    assert state(model) == before
    after = model.stats
    assert after._replace(queries=0, query_hits=0) == stats._replace(queries=0, query_hits=0)
    assert (after.queries, after.query_hits) == (3, 2)
    # the next OBSERVE of the cold line restarts its count
    assert model.request(201, OBSERVE, addrs[1]).count == 1


# ---- configuration (spec 5, 7, D8) --------------------------------------------------------------

ILLEGAL_COMMITS = [
    ({"c2": 0}, "C2"),                       # 1 <= C2
    ({"c2": 4}, "C2"),                       # C2 <= C3 (C3 = 3)
    ({"c3": 1}, "C3"),                       # C2 (2) <= C3
    ({"c3": 65536}, "C3"),                   # C3 <= COUNT_MAX
    ({"c3": 2**32}, "C3"),
    ({"c2": -1}, "c2"),                      # negative
    ({"w3": 21}, "W3"),                      # W3 <= W2 (20)
    ({"w2": 31}, "W2"),                      # W2 <= W1 (30)
    ({"w2": 9}, "W2"),                       # W3 (10) <= W2
    ({"w1": 19}, "W1"),                      # W2 (20) <= W1
    ({"w1": 128}, "W1"),                     # W1 <= WMAX (127)
    ({"w3": -1}, "w3"),                      # 0 <= W3
    ({"hash_seed": 2**32}, "HASH_SEED"),
    ({"hash_seed": -1}, "hash_seed"),
    ({"c3": 10, "c2": 11}, "C2"),
    ({"w3": 5, "w2": 4, "w1": 100}, "W2"),
]


@pytest.mark.parametrize("config, name", ILLEGAL_COMMITS)
def test_illegal_configuration_changes_nothing(model, config, name):
    addrs, home = fill_window(model)
    before, active, stats, cycle = state(model), model.config, model.stats, model.cycle
    with pytest.raises(ValueError, match=name):
        model.commit(50, **config)
    assert model.config == active
    assert state(model) == before and model.stats == stats and model.cycle == cycle


@pytest.mark.parametrize("config, error", [
    ({"c3": "5"}, TypeError), ({"c3": 5.0}, TypeError), ({"w1": True}, TypeError),
    ({"c4": 1}, TypeError), ({"seed": 1}, TypeError), ({"C3": 4, "c3": 4}, TypeError),
])
def test_malformed_commit_changes_nothing(model, config, error):
    active = model.config
    with pytest.raises(error):
        model.commit(50, **config)
    assert model.config == active


@pytest.mark.parametrize("config", [
    {"c3": 65535, "c2": 65535}, {"c3": 1, "c2": 1},
    {"w3": 127, "w2": 127, "w1": 127}, {"w3": 0, "w2": 0, "w1": 0},
    {"hash_seed": 0xFFFF_FFFF}, {"C3": 7, "W1": 99},
])
def test_legal_boundary_commits(model, config):
    model.commit(1, **config)
    expected = {**{"c3": 3, "c2": 2, "w3": 10, "w2": 20, "w1": 30, "hash_seed": 0},
                **{key.lower(): value for key, value in config.items()}}
    assert model.config.as_dict() == expected


def test_partial_commit_keeps_the_rest(model):
    model.commit(1, w1=100)
    assert model.config == (3, 2, 10, 20, 100, 0)


def test_reset_configuration_is_the_1080p_preset():
    assert KvAsuModel().config.as_dict() == {
        "c3": 5, "c2": 3, "w3": 25, "w2": 50, "w1": 125, "hash_seed": 0}
    # TS_WIDTH 6: WMAX 31, windows clamped (D4)
    assert KvAsuModel(ts_width=6).config == (5, 3, 25, 31, 31, 0)


def test_commit_applies_to_following_requests(model):
    addr = 0x21 << 8
    model.request(0, OBSERVE, addr)
    assert model.request(40, QUERY, addr).tlevel == 0        # age 40 > W1 = 30
    model.commit(40, w1=50)
    assert model.request(40, QUERY, addr).tlevel == 1        # same age, new W1


def test_commit_with_new_hash_seed_flushes(model):
    addrs, home = fill_window(model)
    stats = model.stats
    model.commit(10, hash_seed=0xDEADBEEF)
    assert model.occupancy == 0 and model.lru_order() == []
    assert model.stats == stats                              # a flush keeps statistics
    assert model.config.hash_seed == 0xDEADBEEF
    r = model.request(11, OBSERVE, addrs[0])
    assert (r.present, r.slot) == (0, model.home_of(addrs[0]))
    assert r.slot == mmh3.hash((addrs[0] >> 8).to_bytes(8, "little"), 0xDEADBEEF,
                               signed=False) % 16


def test_commit_with_same_hash_seed_does_not_flush(model):
    addrs, home = fill_window(model)
    before = state(model)
    model.commit(10, hash_seed=0, c3=4)
    assert state(model) == before and model.config.c3 == 4


# ---- flush, statistics, reset -------------------------------------------------------------------

def test_flush_untracks_everything_and_keeps_stats(model):
    fill_window(model)
    stats = model.stats
    model.flush()
    assert model.stats == stats
    assert model.occupancy == 0 and model.lru_order() == [] and model.head is None
    assert all(s.valid == 0 for s in model.slot_states())
    assert model.request(10, OBSERVE, 0x1 << 8).present == 0


def test_clear_stats_keeps_the_table(model):
    fill_window(model)
    before = state(model)
    model.clear_stats()
    assert model.stats.as_dict() == {name: 0 for name in model.stats._fields}
    assert state(model) == before


def test_statistics_count_per_d7(model):
    addrs, home = fill_window(model)               # 4 inserts
    model.request(5, OBSERVE, addrs[0])            # hit, T1 before
    model.request(6, OBSERVE, addrs[0])            # hit, T2 before
    model.request(7, OBSERVE, addrs[0])            # hit, T3 before
    model.request(7, OBSERVE, addrs[4])            # drop
    model.request(40, OBSERVE, addrs[5])           # replacement (slot h+1, last 1)
    model.request(41, QUERY, addrs[5], 1)          # hit
    model.request(41, QUERY, addrs[1], 0)          # absent, hit (min 0)
    model.request(41, QUERY, addrs[1], 1)          # absent, miss
    model.request(41, EVICT, 0)                    # tail h+2 (last 2): T0, evicted
    model.request(41, EVICT, 0)                    # tail h+3 (last 3): T0, evicted
    model.request(41, EVICT, 0)                    # tail h (last 7): T0, evicted
    model.request(41, EVICT, 0)                    # tail h+1 (last 40): T1, nothing
    model.request(41, EVICT_ANY, 0)                # pops h+1
    assert model.occupancy == 0
    assert model.stats.as_dict() == {
        "observes": 9, "observe_hits": 3, "inserts": 4, "replacements": 1, "drops": 1,
        "queries": 3, "query_hits": 2, "evicts": 4, "evicts_empty": 1,
        "obs_t0": 6, "obs_t1": 1, "obs_t2": 1, "obs_t3": 1, "req_dropped": 0}


def test_statistics_wrap_at_64_bits(model):
    model._stats[0] = 2**64 - 1          # white box: set observes to the largest value
    model.request(0, OBSERVE, 0x100)
    assert model.stats.observes == 0


def test_reset_restores_the_block_as_new(model):
    fill_window(model, cycle=100)
    model.commit(200, hash_seed=5, c3=7)
    model.request(300, OBSERVE, 0x100)
    model.reset()
    assert model.config == KvAsuModel(entries=16, probe=4, tick_shift=0).config
    assert model.occupancy == 0 and model.lru_order() == [] and model.cycle == 0
    assert all(v == 0 for v in model.stats)
    model.request(0, OBSERVE, 0x100)           # time restarts at 0


# ---- lines and tags (D2), windows (spec 2) ------------------------------------------------------

def test_tag_aliasing_with_small_tag_width():
    model = KvAsuModel(entries=16, probe=2, addr_width=16, line_shift=4, tag_width=4,
                       tick_shift=0)
    a, b = 0x0010, 0x0110        # lines 0x01 and 0x11: equal in the 4 tag bits
    assert model.tag_of(a) == model.tag_of(b) == 1
    home = model.home_of(a)
    model.request(0, OBSERVE, a)
    assert model.request(1, OBSERVE, b + 0xF) == Response(
        op=0, present=1, tlevel_before=1, tracked=1, tlevel=1, count=2, hit=1, slot=home)
    # bits above ADDR_WIDTH do not exist
    assert model.request(2, QUERY, (1 << 16) | a).count == 2
    assert model.request(3, EVICT_ANY, 0) == Response(op=3, slot=home, victim_valid=1,
                                                      victim_tag=1)


def test_hash_key_is_the_tag():
    model = KvAsuModel(entries=64, addr_width=32, line_shift=8, tag_width=12)
    addr = 0xABCDE_F00                 # line 0xABCDEF, tag 0xDEF
    assert model.tag_of(addr) == 0xDEF
    assert model.home_of(addr) == mmh3.hash((0xDEF).to_bytes(8, "little"), 0,
                                            signed=False) % 64


def test_window_wraps_around_the_end_of_the_table(model):
    last = model.params.ENTRIES - 1
    addrs = addrs_with_home(model, last, 5)
    slots = [model.request(i, OBSERVE, addr).slot for i, addr in enumerate(addrs[:4])]
    assert slots == [15, 0, 1, 2]
    # a line homed at 0 finds 0, 1, 2 taken and goes to 3
    zero = addrs_with_home(model, 0, 1)[0]
    assert model.request(4, OBSERVE, zero).slot == 3
    # the wrapped window replaces its own oldest line, the one in slot 15
    assert model.request(W1 + 1, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=15, victim_valid=1,
        victim_tag=addrs[0] >> 8)


def test_probe_1_is_direct_mapped():
    model = KvAsuModel(entries=16, probe=1, tick_shift=0)
    addrs = colliding_addrs(model, 2)
    home = model.home_of(addrs[0])
    model.request(0, OBSERVE, addrs[0])
    assert model.request(1, OBSERVE, addrs[1]) == Response(op=0, hit=1)        # hot: drop
    assert model.request(200, OBSERVE, addrs[1]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=home, victim_valid=1,
        victim_tag=addrs[0] >> 8)


# ---- the default build (2048 slots, windows of 4, 4 cycles per tick) ----------------------------

def test_default_build_window_collisions():
    model = KvAsuModel()
    addrs = colliding_addrs(model, 5)
    home = model.home_of(addrs[0])
    for i, addr in enumerate(addrs[:4]):
        assert model.request(4 * i, OBSERVE, addr) == Response(
            op=0, tracked=1, tlevel=1, count=1, hit=1, slot=(home + i) % 2048)
    # tick 125 (cycle 500): the first line (tick 0) has age exactly W1 = 125: drop
    assert model.request(500, OBSERVE, addrs[4]) == Response(op=0, hit=1)
    assert model.request(503, OBSERVE, addrs[4]) == Response(op=0, hit=1)
    # tick 126: age 126 > W1: replaced
    assert model.request(504, OBSERVE, addrs[4]) == Response(
        op=0, tracked=1, tlevel=1, count=1, hit=1, slot=home, victim_valid=1,
        victim_tag=addrs[0] >> 8)


def test_default_build_window_wraps():
    model = KvAsuModel()
    addrs = addrs_with_home(model, 2047, 4)
    assert [model.request(i, OBSERVE, a).slot for i, a in enumerate(addrs)] == [2047, 0, 1, 2]


# ---- response zeroing (D5) ----------------------------------------------------------------------

def test_response_zeroing_rules(model):
    addrs, home = fill_window(model)
    # drop: only op and hit = (0 >= min_tlevel)
    assert model.request(5, OBSERVE, addrs[4], 0) == Response(op=0, hit=1)
    assert model.request(5, OBSERVE, addrs[4], 2) == Response(op=0, hit=0)
    # QUERY of an absent line
    assert model.request(5, QUERY, addrs[4], 0) == Response(op=1, hit=1)
    # EVICT that finds nothing: everything 0 but op, even hit with min_tlevel 0
    assert model.request(5, EVICT, 0, 0) == Response(op=2)
    # EVICT that removes: present/tlevel/tracked/count/hit all 0
    r = model.request(200, EVICT, addrs[1], 0)
    assert r == Response(op=2, slot=slot(model, home, 0), victim_valid=1,
                         victim_tag=addrs[0] >> 8)
    assert all(getattr(r, f) == 0 for f in ("present", "tlevel_before", "tracked", "tlevel",
                                            "count", "hit"))


def test_response_helpers():
    r = Response(op=0, tracked=1, count=1, slot=3)
    assert r.as_dict() == {"op": 0, "present": 0, "tlevel_before": 0, "tracked": 1,
                           "tlevel": 0, "count": 1, "hit": 0, "slot": 3, "victim_valid": 0,
                           "victim_tag": 0}
    assert r.diff(r) == {}
    assert r.diff({**r.as_dict(), "slot": 4, "hit": 1}) == {"slot": (3, 4), "hit": (0, 1)}
    assert r.diff(r._replace(count=2)) == {"count": (1, 2)}

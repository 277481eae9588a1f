# SPDX-License-Identifier: Apache-2.0
"""The hash (spec section 3, decision D2): the model against mmh3, and the from-scratch
MurmurHash3 (the RTL's bit-level reference) against mmh3."""

import random

import mmh3
import pytest

from golden_model import KvAsuModel, murmur3_steps, murmur3_x86_32_u64, tag_key
from golden_model.murmur3 import rotl32

EDGE_KEYS = [0, 1, 0xFF, 0x100, 0xFFFF_FFFF, 0x1_0000_0000, 0x8000_0000_0000_0000,
             2**64 - 1, 0x0123_4567_89AB_CDEF]
EDGE_SEEDS = [0, 1, 0x8000_0000, 0xFFFF_FFFF, 0x9747_B28C]


def mmh3_u64(key, seed):
    return mmh3.hash(key.to_bytes(8, "little"), seed, signed=False)


def test_pinned_values():
    # mmh3's values, pinned: a different mmh3 would change every slot the model picks
    assert mmh3_u64(0, 0) == 1669671676
    assert mmh3_u64(1, 0) == 1392991556
    assert mmh3_u64(2**64 - 1, 0) == 1651860712
    assert mmh3_u64(0, 0xFFFF_FFFF) == 4073885932
    assert mmh3_u64(2**64 - 1, 0xFFFF_FFFF) == 3338479333
    assert mmh3_u64(0x0123_4567_89AB_CDEF, 0x9747_B28C) == 3642433578


@pytest.mark.parametrize("key", EDGE_KEYS)
@pytest.mark.parametrize("seed", EDGE_SEEDS)
def test_from_scratch_matches_mmh3_edge_cases(key, seed):
    assert murmur3_x86_32_u64(key, seed) == mmh3_u64(key, seed)


def test_from_scratch_matches_mmh3_random(seed):
    rng = random.Random(seed)
    for _ in range(5000):
        key = rng.getrandbits(rng.choice([8, 16, 32, 33, 48, 64]))
        hash_seed = rng.getrandbits(32)
        assert murmur3_x86_32_u64(key, hash_seed) == mmh3_u64(key, hash_seed), \
            (hex(key), hex(hash_seed))


def test_intermediate_steps_are_consistent():
    steps = murmur3_steps(0x0123_4567_89AB_CDEF, 0x9747_B28C)
    assert steps.block_k == (0x89AB_CDEF, 0x0123_4567)
    for i in range(2):
        assert steps.block_k_c1[i] == (steps.block_k[i] * 0xCC9E_2D51) % 2**32
        assert steps.block_k_rotl[i] == rotl32(steps.block_k_c1[i], 15)
        assert steps.block_k_c2[i] == (steps.block_k_rotl[i] * 0x1B87_3593) % 2**32
        h_in = steps.seed if i == 0 else steps.block_h[0]
        assert steps.block_h_xor[i] == h_in ^ steps.block_k_c2[i]
        assert steps.block_h_rotl[i] == rotl32(steps.block_h_xor[i], 13)
        assert steps.block_h[i] == (steps.block_h_rotl[i] * 5 + 0xE654_6B64) % 2**32
    assert steps.h_len == steps.block_h[1] ^ 8
    assert steps.result == mmh3_u64(0x0123_4567_89AB_CDEF, 0x9747_B28C)
    assert steps.fmix_xor16a == steps.h_len ^ (steps.h_len >> 16)
    assert steps.fmix_mul1 == (steps.fmix_xor16a * 0x85EB_CA6B) % 2**32
    assert steps.fmix_xor13 == steps.fmix_mul1 ^ (steps.fmix_mul1 >> 13)
    assert steps.fmix_mul2 == (steps.fmix_xor13 * 0xC2B2_AE35) % 2**32
    assert steps.result == steps.fmix_mul2 ^ (steps.fmix_mul2 >> 16)


def test_rotl32():
    assert rotl32(0x8000_0001, 1) == 0x0000_0003
    assert rotl32(0x1234_5678, 16) == 0x5678_1234


@pytest.mark.parametrize("key, seed, error", [
    (-1, 0, ValueError), (2**64, 0, ValueError), (0, -1, ValueError), (0, 2**32, ValueError),
    (1.0, 0, TypeError), (0, "0", TypeError),
])
def test_from_scratch_refuses_bad_input(key, seed, error):
    with pytest.raises(error):
        murmur3_x86_32_u64(key, seed)


def test_tag_key_is_8_little_endian_bytes():
    assert tag_key(0x0102) == b"\x02\x01\x00\x00\x00\x00\x00\x00"
    assert tag_key(2**64 - 1) == b"\xff" * 8


@pytest.mark.parametrize("entries", [16, 2048])
def test_model_home_is_mmh3_of_the_tag(seed, entries):
    rng = random.Random(seed)
    model = KvAsuModel(entries=entries)
    for trial in range(4):
        hash_seed = rng.choice([0, 0xFFFF_FFFF, rng.getrandbits(32)])
        model.commit(trial, hash_seed=hash_seed)
        for _ in range(300):
            addr = rng.getrandbits(64)
            tag = (addr >> 8) & (2**56 - 1)
            expected = mmh3_u64(tag, hash_seed) % entries
            assert model.home_of(addr) == expected
            assert murmur3_x86_32_u64(tag, hash_seed) % entries == expected


def test_run_hashes_like_request(seed):
    # run() hashes in bulk; request() one at a time: same slots
    rng = random.Random(seed)
    addrs = [rng.getrandbits(64) for _ in range(200)]
    bulk, single = KvAsuModel(entries=64), KvAsuModel(entries=64)
    for model in (bulk, single):
        model.commit(0, hash_seed=0x5EED)
    slots = [r.slot for r in bulk.run([0] * 200, [1] * 200, addrs, responses=True)]
    assert all(r.present == 0 for r in bulk.run([0] * 200, [1] * 200, addrs, responses=True))
    bulk.run([1] * 200, [0] * 200, addrs)
    singles = [single.request(1, 0, a) for a in addrs]
    assert bulk.lru_order() == single.lru_order()
    assert slots == [0] * 200
    assert [s.tag for s in bulk.slot_states()] == [s.tag for s in single.slot_states()]
    assert all(r.slot in single.window_of(a) for r, a in zip(singles, addrs) if r.tracked)

# SPDX-License-Identifier: Apache-2.0
"""MurmurHash3 x86_32 of an 8-byte key, written from scratch the way the RTL computes it.

The model itself hashes with the ``mmh3`` package (spec section 3 defines the hash as
bit-exact with ``mmh3.hash(key, seed, signed=False)``), through :func:`tag_hash`, the one
place the model, the predictor and the bench hash a tag. The rest of this module is the bit-level
reference for the RTL's hash pipeline: it spells out every 32-bit step for the one key
length the KV-ASU uses (8 bytes: the tag, zero-extended to 64 bits, little-endian), and
:func:`murmur3_steps` exposes the intermediate values so that a pipeline stage can be
checked on its own. The tests check it against ``mmh3`` on thousands of keys and seeds.

For an 8-byte key the algorithm is two body blocks and a finalisation; there is no tail::

    for k in (key & 0xffffffff, key >> 32):          # the two little-endian 4-byte blocks
        k = (k * 0xcc9e2d51) mod 2**32
        k = rotl32(k, 15)
        k = (k * 0x1b873593) mod 2**32
        h = h ^ k
        h = rotl32(h, 13)
        h = (h * 5 + 0xe6546b64) mod 2**32
    h = h ^ 8                                        # the key length in bytes
    h ^= h >> 16; h = (h * 0x85ebca6b) mod 2**32     # fmix32
    h ^= h >> 13; h = (h * 0xc2b2ae35) mod 2**32
    h ^= h >> 16

with ``h`` starting at ``seed``. That is six 32x32-bit multiplies by constants, each keeping
the low 32 bits (spec section 10).
"""

from __future__ import annotations

from typing import NamedTuple

import mmh3

from regmap.arguments import check_int

__all__ = ["C1", "C2", "FMIX1", "FMIX2", "KEY_BYTES", "tag_key", "tag_hash",
           "rotl32", "murmur3_x86_32_u64", "murmur3_steps", "Murmur3Steps"]

#: Body-block multiplier constants.
C1 = 0xCC9E2D51
C2 = 0x1B873593
#: fmix32 multiplier constants.
FMIX1 = 0x85EBCA6B
FMIX2 = 0xC2B2AE35
#: The key length: the 64-bit tag as 8 bytes.
KEY_BYTES = 8

_MASK32 = 0xFFFF_FFFF
_MASK64 = 0xFFFF_FFFF_FFFF_FFFF


def rotl32(value: int, amount: int) -> int:
    """Rotate a 32-bit value left by ``amount`` bits (0 < amount < 32)."""
    return ((value << amount) | (value >> (32 - amount))) & _MASK32


class Murmur3Steps(NamedTuple):
    """Every intermediate 32-bit value of :func:`murmur3_x86_32_u64`, in order.

    ``block_*`` tuples have one entry per 4-byte block (block 0 is the low word of the key).
    """

    seed: int
    #: The block words, little-endian: ``(key & 0xffffffff, key >> 32)``.
    block_k: tuple[int, int]
    #: ``k * C1`` (low 32 bits).
    block_k_c1: tuple[int, int]
    #: ``rotl32(k * C1, 15)``.
    block_k_rotl: tuple[int, int]
    #: ``rotl32(k * C1, 15) * C2``: the mixed block, XORed into ``h``.
    block_k_c2: tuple[int, int]
    #: ``h ^ k`` after each block.
    block_h_xor: tuple[int, int]
    #: ``rotl32(h ^ k, 13)``.
    block_h_rotl: tuple[int, int]
    #: ``h * 5 + 0xe6546b64`` (low 32 bits): the state after each block.
    block_h: tuple[int, int]
    #: ``h ^ 8`` (the length).
    h_len: int
    #: fmix32, step by step.
    fmix_xor16a: int
    fmix_mul1: int
    fmix_xor13: int
    fmix_mul2: int
    #: ``fmix_mul2 ^ (fmix_mul2 >> 16)``: the hash.
    result: int


def _as_uint(name: str, value, bits: int) -> int:
    """``value`` as an int if it is an integer (numpy's too) of ``bits`` bits, else a
    ``TypeError`` / ``ValueError`` naming ``name``."""
    return check_int(name, value, 0, (1 << bits) - 1)


def tag_key(tag: int) -> bytes:
    """The hash key of a tag: 8 little-endian bytes (spec section 3, decision D2)."""
    return _as_uint("tag", tag, 64).to_bytes(KEY_BYTES, "little")


def tag_hash(tag: int, seed: int) -> int:
    """The table's 32-bit hash of a tag (spec section 3, decision D2): the home slot is its
    value mod ``ENTRIES``; the predictor's shadow signature is its top 16 bits (P11)."""
    return mmh3.hash(tag_key(tag), seed, signed=False)


def _check_key_seed(key: int, seed: int) -> tuple[int, int]:
    return _as_uint("key", key, 64), _as_uint("seed", seed, 32)


def murmur3_steps(key: int, seed: int = 0) -> Murmur3Steps:
    """MurmurHash3 x86_32 of the 64-bit ``key`` (as 8 little-endian bytes), step by step."""
    key, seed = _check_key_seed(key, seed)
    h = seed
    k_in, k_c1, k_rotl, k_c2, h_xor, h_rotl, h_out = [], [], [], [], [], [], []
    for k in (key & _MASK32, key >> 32):
        k_in.append(k)
        k = (k * C1) & _MASK32
        k_c1.append(k)
        k = rotl32(k, 15)
        k_rotl.append(k)
        k = (k * C2) & _MASK32
        k_c2.append(k)
        h ^= k
        h_xor.append(h)
        h = rotl32(h, 13)
        h_rotl.append(h)
        h = (h * 5 + 0xE6546B64) & _MASK32
        h_out.append(h)
    h_len = h ^ KEY_BYTES
    f1 = h_len ^ (h_len >> 16)
    f2 = (f1 * FMIX1) & _MASK32
    f3 = f2 ^ (f2 >> 13)
    f4 = (f3 * FMIX2) & _MASK32
    result = f4 ^ (f4 >> 16)
    return Murmur3Steps(
        seed=seed, block_k=tuple(k_in), block_k_c1=tuple(k_c1), block_k_rotl=tuple(k_rotl),
        block_k_c2=tuple(k_c2), block_h_xor=tuple(h_xor), block_h_rotl=tuple(h_rotl),
        block_h=tuple(h_out), h_len=h_len, fmix_xor16a=f1, fmix_mul1=f2, fmix_xor13=f3,
        fmix_mul2=f4, result=result)


def murmur3_x86_32_u64(key: int, seed: int = 0) -> int:
    """MurmurHash3 x86_32 (unsigned) of the 64-bit ``key`` as 8 little-endian bytes.

    Equal to ``mmh3.hash(key.to_bytes(8, "little"), seed, signed=False)``.
    """
    return murmur3_steps(key, seed).result

# SPDX-License-Identifier: Apache-2.0
"""MurmurHash3 x86_32 of a 64-bit key, as a free-running pipeline.

The KV-ASU hashes the 8 little-endian bytes of a line's tag (spec section 3, decision D2):
``mmh3.hash(key.to_bytes(8, "little"), seed, signed=False)``. For an 8-byte key the
algorithm is two block rounds and the finaliser, with no tail bytes:

.. code-block:: text

    for k in (key[31:0], key[63:32]):
        k *= 0xcc9e2d51; k = rotl(k, 15); k *= 0x1b873593
        h ^= k; h = rotl(h, 13); h = h * 5 + 0xe6546b64
    h ^= 8                                  # the length in bytes
    h ^= h >> 16; h *= 0x85ebca6b
    h ^= h >> 13; h *= 0xc2b2ae35
    h ^= h >> 16

everything modulo ``2**32``.

The files, in the order a key flows:

* ``murmur3.py``: ``Murmur3Hash64``, the component: its ports, parameters and registers;
* ``rounds.py``: the algorithm's constants, its rotation and its round;
* ``dsp.py``: the pipeline with DSP multipliers (``mul_stages`` 1, 2 or 3);
* ``carry_save.py``: the pipeline without a multiplier (``mul_stages = 0``);
* ``const_mul.py``: multiplication by a constant in LUTs (canonical signed digits,
  shift-add trees, carry-save terms and their 3:2 reduction).
"""

from .murmur3 import (CARRY_SAVE_LATENCY, MUL_STAGES, MULTIPLIES, Murmur3Hash64,
                      check_lut_cross_products, hash_latency)

__all__ = ["Murmur3Hash64", "MULTIPLIES", "MUL_STAGES", "CARRY_SAVE_LATENCY",
           "check_lut_cross_products", "hash_latency"]

# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's fixed numbers (``docs/spec-predictor.md`` P3-P12).

The spec fixes them (they are not build parameters); the RTL's components read them from
here, and ``tests/hdl/test_predictor_keys.py`` checks that they are the numbers the golden
model uses.
"""

__all__ = ["PT_ENTRIES", "PT_WIDTH", "PT_INIT", "BURST_WIDTH", "KEY_WIDTH", "ABSENT_KEY",
           "SEEN_WIDTH", "PA_ENTRIES", "ANSWER_KEY_WIDTH",
           "SAMPLE_SHIFT", "SIG_WIDTH", "SIG_SHIFT", "PSEL_WIDTH", "PSEL_DOWN", "PSEL_STEP_MAX",
           "PSEL_STEP_SHIFT", "BIP_WIDTH",
           "GSEL_WIDTH", "GSEL_INIT", "GSEL_HIT", "GSEL_DEAD", "EPOCH_WIDTH", "EPOCH_SHIFT",
           "PROBE_EXPIRY", "EPS_WIDTH"]

PT_ENTRIES = 64      #: P3: the reuse table's counters, one per 6-bit key
PT_WIDTH = 4         #: 4-bit saturating counters (0..15)
PT_INIT = 8          #: reset / flush value; a counter predicts reuse at >= 8 (its bit 3)
BURST_WIDTH = 3      #: ``burst`` saturates at 7
KEY_WIDTH = 6        #: ``key = burst' * 8 + class``
ABSENT_KEY = 4       #: burst 0, class 4: a line neither live nor a ghost
SEEN_WIDTH = 3       #: P4: ``seen`` (a line's earlier OBSERVEs) saturates at 7
ANSWER_KEY_WIDTH = KEY_WIDTH + SEEN_WIDTH  #: P4: the answer's key, ``key * 8 + seen'``
PA_ENTRIES = 1 << ANSWER_KEY_WIDTH         #: P4: the answer's counters, ``PA``
SAMPLE_SHIFT = 4     #: P11: windows with ``h mod 16 = 0`` are sampled; shadows of occupancy >> 4
SIG_WIDTH = 16       #: P11: a shadow holds bits 31..16 of the line's hash:
SIG_SHIFT = 16       #: ``hash[SIG_SHIFT:SIG_SHIFT + SIG_WIDTH]``
PSEL_WIDTH = 10      #: P11: loop mode while ``PSEL >= 512``, its bit 9
PSEL_DOWN = 8        #: a hit only the LRU shadow has: -8 * s; one only the BIP shadow has: +s
PSEL_STEP_MAX = 4    #: the step s = max(1, 4 >> (occupancy >> 10)): 4, 2 from 1024 lines,
PSEL_STEP_SHIFT = 10 #: 1 from 2048
BIP_WIDTH = 5        #: P11: bimodal counters, the head once in 32
GSEL_WIDTH = 6       #: P12: the ghost rule is on while ``GSEL >= 32``, its bit 5
GSEL_INIT = 31       #: reset / flush value: the rule starts off
GSEL_HIT = 3         #: a probe reused in time: -3
GSEL_DEAD = 1        #: a probe reused late or leaving the list unobserved: +1
EPOCH_WIDTH = 3      #: P12: the insertion clock's epoch and a probe's stamp
EPOCH_SHIFT = 2      #: an epoch is ``max(1, occupancy >> 2)`` insertions
PROBE_EXPIRY = 3     #: a probe reused 3 or more epochs after its stamp counts as dead
EPS_WIDTH = 2        #: P6.2: one predicted-cold ghost revival in four stays at the head

# SPDX-License-Identifier: Apache-2.0
"""The fast path's check of register reads (``verif.fast.scoreboard.check``) on recordings
built here (no Verilator): a ``CYCLE`` read outside its own AR..R cycles fails, checked or
not; the HI word read after it is the sampled cycle's high half; a read of a word that is
not a 64-bit counter's LO, unchecked, leaves the HI latch's prediction as it was."""

import numpy as np
import pytest

from golden_model import KvAsuModel
from regmap import REG, Params
from verif.codec import Codec
from verif.fast import AxiOp, FastResult, Mismatch, check

P = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, TAG_WIDTH=24, COUNT_WIDTH=4, TS_WIDTH=4,
           TICK_SHIFT=1)
CYCLE = REG["CYCLE"].offset
STATUS = REG["STATUS"].offset
FIRST_CYCLE = REG["ERR_FIRST_CYCLE"].offset
READ = 2          # the harness's record kind of a read


def _check(reads):
    """``check`` a run of register reads only: ``reads`` are ``(AxiOp, rdata, start,
    done)`` (response OKAY), recorded as the harness records them."""
    ops = [op for op, *_ in reads]
    axi = [(READ, op.addr, rdata, 0, start, done) for op, rdata, start, done in reads]
    result = FastResult(np.zeros(0, np.uint64), np.zeros(0, np.uint64),
                        np.zeros((0, Codec(P).rsp_words), np.uint32), axi, 0.0,
                        max(r[5] for r in axi) + 1)
    return check(P, KvAsuModel(P), [], ops, result)


@pytest.mark.parametrize("checked", [True, False])
def test_a_cycle_read_must_fall_between_its_ar_and_its_r(checked):
    op = AxiOp("read", CYCLE, check=checked)
    for value in (40, 41, 42):                         # AR at 40, R at 42
        _check([(op, value, 40, 42)])
    for value in (0, 39, 43, 0xFFFF_FFFF):
        with pytest.raises(Mismatch, match="read CYCLE at cycle 42"):
            _check([(op, value, 40, 42)])


def test_a_cycle_read_across_the_low_words_wrap():
    start = (1 << 32) - 1                              # the low word wraps during the read
    _check([(AxiOp("read", CYCLE), 0, start, start + 2),
            (AxiOp("read", CYCLE + 4), 1, start + 3, start + 5)])
    with pytest.raises(Mismatch, match="read CYCLE"):
        _check([(AxiOp("read", CYCLE), 2, start, start + 2)])


@pytest.mark.parametrize("high, ok", [(1, True), (0, False), (2, False)])
def test_the_hi_word_after_a_cycle_read_is_its_samples_high_half(high, ok):
    start = (1 << 32) + 5
    reads = [(AxiOp("read", CYCLE), 6, start, start + 2),
             (AxiOp("read", STATUS, check=False), 0, start + 3, start + 5),   # latch kept
             (AxiOp("read", CYCLE + 4), high, start + 6, start + 8)]
    if ok:
        _check(reads)
    else:
        with pytest.raises(Mismatch, match=f"read 0x054 .* got OKAY {high:#x}, expected "
                                           f"OKAY 0x1"):
            _check(reads)


def test_an_unchecked_read_of_another_word_keeps_the_latch_predicted():
    """ERR_FIRST_CYCLE's LO (no soft error: 0) loads the latch with 0; an unchecked STATUS
    read does not touch it, so the HI read is still compared."""
    reads = [(AxiOp("read", FIRST_CYCLE), 0, 0, 2),
             (AxiOp("read", STATUS, check=False), 0, 3, 5),
             (AxiOp("read", FIRST_CYCLE + 4), 0, 6, 8)]
    _check(reads)
    reads[2] = (reads[2][0], 0xBAD, 6, 8)
    with pytest.raises(Mismatch, match="read 0x0b4 at cycle 8: got OKAY 0xbad"):
        _check(reads)
    # an unchecked LO read of a counter does leave the latch unknown
    reads[1] = (AxiOp("read", REG["STAT_OBSERVES"].offset, check=False), 0, 3, 5)
    _check(reads)


def _flushes_and_status(busy_at: dict):
    """16 CTRL flushes, B handshakes 1000 cycles apart, each followed 50 cycles later by a
    checked STATUS read answering ``BUSY = busy_at.get(k, 0)`` after the ``k``-th flush
    (from 1), on the default build (a clear sweep of 512 cycles)."""
    p = Params()
    ctrl = REG["CTRL"]
    flush = AxiOp("write", ctrl.offset, ctrl.mask("ENABLE") | ctrl.mask("FLUSH"))
    ops, axi = [], []
    for k in range(1, 17):
        ops += [flush, AxiOp("read", STATUS)]
        axi += [(1, ctrl.offset, 0, 0, 1000 * k - 2, 1000 * k),
                (READ, STATUS, busy_at.get(k, 0), 0, 1000 * k + 48, 1000 * k + 50)]
    result = FastResult(np.zeros(0, np.uint64), np.zeros(0, np.uint64),
                        np.zeros((0, Codec(p).rsp_words), np.uint32), axi, 0.0, 20000)
    return check(p, KvAsuModel(p), [], ops, result)


def test_the_harness_reset_is_the_first_of_the_generations():
    """D12 counts flushes and resets since power-up from 1, the harness's reset the first:
    the 15th flush of a run sweeps (STATUS.BUSY 50 cycles after it), the 16th does not."""
    assert _flushes_and_status({15: 1})["sweeps"] == 1
    with pytest.raises(Mismatch, match="read 0x044 at cycle 16050: got OKAY 0x1, expected "
                                       "OKAY 0x0"):
        _flushes_and_status({16: 1})                       # a sweep one flush late
    with pytest.raises(Mismatch, match="read 0x044 at cycle 14050"):
        _flushes_and_status({14: 1, 15: 1})                # one flush early

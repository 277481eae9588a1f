# SPDX-License-Identifier: Apache-2.0
"""The cocotb stream driver (``verif.tb.driver.StreamDriver``) without a simulator: its
per-cycle step run on a stand-in DUT, the cocotb triggers replaced. A response the block
offers while nothing is owed, during a long idle stretch the driver skips, must reach the
scoreboard (and fail as spurious), not be taken unseen."""

import collections
import logging
import types

import pytest

from regmap import OPS, Params
from verif.codec import Codec
from verif.tb import driver as drv
from verif.tb.scoreboard import Mismatch, Scoreboard


class _Sig:
    def __init__(self, value=0):
        self.value = value


class _Dut:
    """The ports ``_cycle`` drives and samples; a spurious response offered from the start
    (``rsp.valid`` high, nothing requested), taken at an edge with ``rsp.ready`` high."""
    def __init__(self):
        for name in ("req__valid", "req__payload", "req__ready", "rsp__ready",
                     "axil__bvalid", "axil__bready", "clk"):
            setattr(self, name, _Sig())
        self.req__ready.value = 1
        self.rsp__valid = _Sig(1)
        self.rsp__payload = _Sig(0)
        self.taken_unseen = 0

    def edges(self, n):
        """``n`` clock edges nobody samples."""
        if self.rsp__valid.value and self.rsp__ready.value:
            self.taken_unseen += 1
            self.rsp__valid.value = 0


class _Now:
    """Immediately complete awaitables standing in for cocotb's triggers."""
    def __init__(self, action=None):
        self.action = action

    def __await__(self):
        if self.action:
            self.action()
        return
        yield   # noqa: an awaitable generator that never suspends


def _run(coro):
    with pytest.raises(StopIteration):
        coro.send(None)


def test_a_response_offered_during_a_skipped_idle_stretch_is_reported(monkeypatch):
    p = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, TAG_WIDTH=24, COUNT_WIDTH=4, TS_WIDTH=4,
               TICK_SHIFT=1)
    dut = _Dut()
    monkeypatch.setattr(drv, "ClockCycles", lambda clk, n: _Now(lambda: dut.edges(n)))
    monkeypatch.setattr(drv, "ReadOnly", lambda: _Now())
    log = logging.getLogger("test_tb_driver")
    board = Scoreboard(p, Codec(p), None, None, log,
                       {"seed": 1, "config": "c", "sim": "s", "test": "t"},
                       lambda: {"HASH_SEED": 0})
    registers = types.SimpleNamespace(pending_writes=collections.deque())
    d = drv.StreamDriver(dut, p, Codec(p), board, registers, None, log, 1, lambda: None)
    d.t0, d.debug_trace = 0, None
    d.now_ps = lambda: 0
    d.rsp_ready_fn = None
    dut.rsp__ready.value = 1                 # as the last active cycle left it
    # a request 20 cycles off, nothing owed: the driver skips the stretch
    d.send_items([drv.ReqItem(OPS["QUERY"], 0, gap=20)])
    _run(d._cycle())
    assert dut.taken_unseen == 0, "the spurious response was taken while nobody looked"
    with pytest.raises(Mismatch, match="no outstanding request"):
        _run(d._cycle())                     # the next sampled cycle takes and reports it


def test_a_response_sooner_than_the_build_s_latency_is_a_mismatch():
    """The scoreboard holds each response to the build's latency: an answer that is right
    but a cycle early (a pipeline stage skipped) is reported, one on time or later is not."""
    import random

    from golden_model import KvAsuModel
    from verif.tb.addresses import AddrSpace
    from verif.tb.coverage import Coverage
    p = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, TAG_WIDTH=24, COUNT_WIDTH=4, TS_WIDTH=4,
               TICK_SHIFT=1)
    codec = Codec(p)

    def word(fields):                        # the payload the DUT would send
        return sum(fields[name] << offset for name, offset, _ in codec.rsp_fields)
    board = Scoreboard(p, codec, AddrSpace(p, random.Random(1)), Coverage(p),
                       logging.getLogger("test_tb_driver"),
                       {"seed": 1, "config": "c", "sim": "s", "test": "t"},
                       lambda: {"HASH_SEED": 0}, min_latency=10)
    board.reset(KvAsuModel(p))
    for accepted, answered in ((0, 10), (1, 15)):
        board.accept(drv.ReqItem(OPS["QUERY"], 0x100 * (accepted + 1)), accepted)
        board.receive(word(board.expected[0][2]), answered)
    board.accept(drv.ReqItem(OPS["QUERY"], 0x300), 20)
    with pytest.raises(Mismatch, match="sooner than the build's latency 10"):
        board.receive(word(board.expected[0][2]), 29)

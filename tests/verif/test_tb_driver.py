# SPDX-License-Identifier: Apache-2.0
"""The cocotb stream driver (``verif.tb.driver.StreamDriver``) without a simulator: its
per-cycle step run on a stand-in DUT, the cocotb triggers replaced. A response the block
offers while nothing is owed, during a long idle stretch the driver skips, must reach the
scoreboard (and fail as spurious), not be taken unseen; a response held by back-pressure
must stay offered with the same payload; a response not offered when D13 rule 3 says is
reported in that cycle. (The rule itself against the block's response FIFO:
tests/verif/test_tb_rsp_timing.py.)"""

import collections
import logging
import types

import pytest

from regmap import OPS
from verif.codec import Codec
from verif.tb import driver as drv
from verif.tb.scoreboard import Mismatch, Scoreboard

from .boards import P_SMALL, RUN_INFO, scoreboard

LOG = logging.getLogger("test_tb_driver")


def _board(build_latency):
    return scoreboard(build_latency, "test_tb_driver")



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
    p = P_SMALL
    dut = _Dut()
    monkeypatch.setattr(drv, "ClockCycles", lambda clk, n: _Now(lambda: dut.edges(n)))
    monkeypatch.setattr(drv, "ReadOnly", lambda: _Now())
    board = Scoreboard(p, Codec(p), None, None, LOG, RUN_INFO, lambda: {"HASH_SEED": 0})
    registers = types.SimpleNamespace(pending_writes=collections.deque())
    d = drv.StreamDriver(dut, p, Codec(p), board, registers, None, LOG, 1, lambda: None)
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
    board = _board(10)
    word = board.codec.pack_rsp              # the payload the DUT would send
    for accepted, answered in ((0, 10), (1, 15)):
        board.accept(drv.ReqItem(OPS["QUERY"], 0x100 * (accepted + 1)), accepted)
        board.receive(word(board.expected[0][2]), answered)
    board.accept(drv.ReqItem(OPS["QUERY"], 0x300), 20)
    with pytest.raises(Mismatch, match="sooner than the build's latency 10"):
        board.receive(word(board.expected[0][2]), 29)


def _driver_at(monkeypatch, dut, build_latency, ready):
    """A stream driver over ``dut`` with ``_board(build_latency)``, its sampled cycle set by
    ``driver.now_ps``; ``rsp.ready`` from ``ready()``."""
    monkeypatch.setattr(drv, "ReadOnly", lambda: _Now())
    board = _board(build_latency)
    registers = types.SimpleNamespace(pending_writes=collections.deque())
    d = drv.StreamDriver(dut, P_SMALL, board.codec, board, registers, None, LOG, 1,
                         lambda: None)
    d.t0, d.debug_trace = 0, None
    d.rsp_ready_fn = ready
    return d, board


def _step(d, cycle):
    """The driver's sampled cycle ``cycle``."""
    d.now_ps = lambda: cycle * drv.PERIOD_PS
    _run(d._cycle())


@pytest.mark.parametrize("change", ["payload", "valid"])
def test_a_response_held_by_back_pressure_must_stay_offered_unchanged(monkeypatch, change):
    """A response offered with rsp.ready low is offered in the next cycle, same payload:
    two held cycles pass; a changed payload or a fallen valid in the third is reported."""
    dut = _Dut()
    d, board = _driver_at(monkeypatch, dut, None, lambda: False)
    board.accept(drv.ReqItem(OPS["QUERY"], 0x40), 0)
    dut.rsp__payload.value = 0x1234
    for cycle in (30, 31):
        _step(d, cycle)
    if change == "payload":
        dut.rsp__payload.value = 0x1235
        says = "rsp.payload changed at cycle 32 .* offered at cycle 31"
    else:
        dut.rsp__valid.value = 0
        says = "rsp.valid fell at cycle 32 with no handshake"
    with pytest.raises(Mismatch, match=says):
        _step(d, 32)


def test_a_response_not_offered_when_due_is_reported_in_that_cycle(monkeypatch):
    """With the latency known, every sampled cycle is held to D13 rule 3: rsp.valid low up
    to the cycle before acceptance + latency passes, low at that cycle is reported."""
    latency = 10
    dut = _Dut()
    dut.rsp__valid.value = 0
    d, board = _driver_at(monkeypatch, dut, latency, None)
    board.accept(drv.ReqItem(OPS["QUERY"], 0x40), 0)
    for cycle in range(1, latency):
        _step(d, cycle)
    with pytest.raises(Mismatch, match=f"rsp.valid low at cycle {latency}: the response is "
                                       f"due from cycle {latency} = acceptance 0"):
        _step(d, latency)


def test_a_response_offered_before_it_is_due_is_reported_while_held(monkeypatch):
    latency = 10
    dut = _Dut()
    d, board = _driver_at(monkeypatch, dut, latency, lambda: False)
    board.accept(drv.ReqItem(OPS["QUERY"], 0x40), 0)
    with pytest.raises(Mismatch, match=f"response offered at cycle {latency - 1}, before it "
                                       f"is due from cycle {latency}"):
        _step(d, latency - 1)

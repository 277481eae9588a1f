# SPDX-License-Identifier: Apache-2.0
"""The timing checks of the cocotb testbench's response stream under back-pressure, without
a simulator of the whole block: the block's response FIFO (Amaranth's ``SyncFIFOBuffered``
of the core's depth, written ``stat_lag = latency - 2`` cycles after each acceptance, as
``KvAsuCore`` builds and fills it) is simulated alone under random ``rsp.ready``, and its
stream is replayed through the scoreboard's D13 rule 3 check
(``Scoreboard.check_offer`` / ``receive``) and the stream driver's stability check
(``StreamDriver._check_held``): the FIFO's stream passes, and the same stream with one
error planted (a response a cycle late or early, a held payload changed, a held valid
dropped) fails with a ``Mismatch`` naming the cycle."""

import functools
import os
import random
import types

import pytest
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.sim import Simulator

from regmap import OPS
from verif.runner import build_timing
from verif.tb import driver as drv
from verif.tb.scoreboard import Mismatch

from .boards import P_SMALL as P, scoreboard

TIMING = build_timing(P)
LATENCY, CREDITS = TIMING["latency"], TIMING["credits"]
#: the cycles from a request's acceptance to its response's write into the FIFO (the
#: pipeline's L stage, hdl/core/timing.py ``stat_lag``)
PUSH_LAG = LATENCY - 2
CYCLES = 500
#: Added to the seed of each recorded stream (``KV_ASU_TEST_SEED``, else 0: the streams the
#: tests have always drawn); printed by a failing test (conftest.py).
SEED = int(os.environ.get("KV_ASU_TEST_SEED", "0"))
#: the last cycles: no request taken, no new stall, so that every response is handed over
DRAIN = 6 * LATENCY


def _board():
    return scoreboard(LATENCY, "test_tb_rsp_timing")


def _item(k):
    return drv.ReqItem(OPS["QUERY"], 0x40 * (k % 64))


@functools.lru_cache(maxsize=None)
def fifo_stream(seed):
    """``CYCLES`` cycles of the response FIFO under random traffic and ``rsp.ready``:
    per cycle ``(accepted, ready, valid, word)``, ``accepted`` the index of the request
    taken in that cycle or ``None``. Requests are taken under the credit rule (at most
    ``CREDITS`` without a handshake before the cycle), their responses the golden model's."""
    rng = random.Random(SEED + seed)
    board = _board()
    codec = board.codec
    fifo = SyncFIFOBuffered(width=codec.rsp_width, depth=CREDITS)
    pushes = {}                      # cycle -> word written into the FIFO in that cycle
    rows = []

    async def bench(ctx):
        stall = 0
        for cycle in range(CYCLES):
            accepted = None
            draining = cycle >= CYCLES - DRAIN
            if not draining and len(board.expected) < CREDITS and rng.random() < 0.7:
                accepted = board.accepted
                board.accept(_item(accepted), cycle)
                pushes[cycle + PUSH_LAG] = codec.pack_rsp(board.expected[-1][2])
            # long and short stalls of the consumer
            if stall > 0:
                stall -= 1
                ready = 0
            else:
                ready = int(draining or rng.random() < 0.6)
                if not draining and rng.random() < 0.03:
                    stall = rng.randint(5, 3 * LATENCY)
            word_in = pushes.pop(cycle, None)
            ctx.set(fifo.w_en, word_in is not None)
            ctx.set(fifo.w_data, word_in or 0)
            ctx.set(fifo.r_en, ready)
            if word_in is not None:
                assert ctx.get(fifo.w_rdy), f"FIFO full at cycle {cycle}: credits too many"
            valid = ctx.get(fifo.r_rdy)
            rows.append((accepted, ready, valid, ctx.get(fifo.r_data) if valid else None))
            if valid and ready:
                board.expected.popleft()
            await ctx.tick()

    sim = Simulator(fifo)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return tuple(rows)


def replay(rows):
    """Feed a recorded stream through the checks, as the stream driver does in each cycle
    (stability, then ``check_offer`` or ``receive``); returns the scoreboard."""
    board = _board()
    stream = types.SimpleNamespace(seed=1, codec=board.codec)
    held = None
    for cycle, (accepted, ready, valid, word) in enumerate(rows):
        if held is not None:
            drv.StreamDriver._check_held(stream, held, cycle, valid, word)
        held = (cycle, word) if valid and not ready else None
        if not (valid and ready):
            board.check_offer(valid, cycle)
        if accepted is not None:
            board.accept(_item(accepted), cycle)
        if valid and ready:
            board.receive(word, cycle)
    return board


def _first_stall_then_offer(rows):
    """A response offered after the handshake of a response that was held by back-pressure
    (so its offer cycle is the handshake's + 1, not its acceptance + latency): the cycle of
    its first offer."""
    stalled = False
    for cycle, (_, ready, valid, _) in enumerate(rows):
        if valid and not ready:
            stalled = True
        elif stalled and valid and ready and cycle + 1 < len(rows) and rows[cycle + 1][2]:
            return cycle + 1
    raise AssertionError("no back-to-back offer after a stall in the recorded stream")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fifo_s_stream_under_back_pressure_passes(seed):
    rows = fifo_stream(seed)
    board = replay(rows)
    assert board.received == board.accepted > 50 and not board.expected
    stalls = sum(1 for _, ready, valid, _ in rows if valid and not ready)
    later = sum(n for lat, n in board.latency.items() if lat > LATENCY)
    assert stalls > 20 and later > 20, "the stream has too little back-pressure to judge"


def test_a_response_a_cycle_late_after_a_stall_fails():
    """The FIFO adding a cycle after a stall (the next response offered at the handshake + 2)
    is reported at the cycle it should have been offered."""
    rows = list(fifo_stream(1))
    due = _first_stall_then_offer(rows)
    accepted, ready, _, _ = rows[due]
    rows[due] = (accepted, ready, 0, None)
    with pytest.raises(Mismatch, match=f"rsp.valid low at cycle {due}: .* due from cycle "
                                       f"{due} = max.*late or lost"):
        replay(rows)


def test_a_response_offered_a_cycle_early_fails():
    """A response offered the cycle before its acceptance + latency (with nothing held
    before it) is reported, held (the rule) or taken (the build's latency)."""
    rows = list(fifo_stream(1))
    first = next(c for c, (_, _, valid, _) in enumerate(rows) if valid)
    word = rows[first][3]
    for ready, says in ((0, f"response offered at cycle {first - 1}, before it is due from "
                            f"cycle {first}"),
                        (1, f"response {LATENCY - 1} cycles after its request, sooner than "
                            f"the build's latency {LATENCY}")):
        early = list(rows)
        accepted = early[first - 1][0]
        early[first - 1] = (accepted, ready, 1, word)
        with pytest.raises(Mismatch, match=says):
            replay(early)


def test_a_handshake_right_after_the_previous_one_held_fails():
    """The rule's second term: two responses both ready in the FIFO cannot be handed over
    at the same cycle; the second is due the cycle after the first's handshake, even when
    its own acceptance + latency is earlier."""
    board = _board()
    for k in range(2):
        board.accept(_item(k), k)
    words = [board.codec.pack_rsp(exp) for _, _, exp in board.expected]
    board.receive(words[0], LATENCY + 5)
    with pytest.raises(Mismatch, match=f"handed over at cycle {LATENCY + 5}, before it is due "
                                       f"from cycle {LATENCY + 6}"):
        board.receive(words[1], LATENCY + 5)


def test_a_held_payload_that_changes_fails():
    rows = list(fifo_stream(1))
    cycle = next(c for c in range(1, len(rows))
                 if rows[c - 1][2] and not rows[c - 1][1] and rows[c][2])
    accepted, ready, valid, word = rows[cycle]
    rows[cycle] = (accepted, ready, valid, word ^ 1)
    with pytest.raises(Mismatch, match=f"rsp.payload changed at cycle {cycle} .* offered at "
                                       f"cycle {cycle - 1}"):
        replay(rows)


def test_a_held_valid_that_falls_fails():
    rows = list(fifo_stream(1))
    cycle = next(c for c in range(1, len(rows))
                 if rows[c - 1][2] and not rows[c - 1][1] and rows[c][2])
    accepted, ready, _, _ = rows[cycle]
    rows[cycle] = (accepted, ready, 0, None)
    with pytest.raises(Mismatch, match=f"rsp.valid fell at cycle {cycle} with no handshake"):
        replay(rows)


def test_a_valid_with_nothing_outstanding_fails_even_when_held():
    board = _board()
    board.check_offer(0, 0)
    with pytest.raises(Mismatch, match="no outstanding request"):
        board.check_offer(1, 1)

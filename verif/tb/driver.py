# SPDX-License-Identifier: Apache-2.0
"""The clock-cycle driver and monitor of the KV-ASU request and response streams.

One loop per test drives ``req`` and ``rsp.ready`` on the falling edge and samples both
handshakes (and the AXI4-Lite B handshake) in the ``ReadOnly`` phase before the next
rising edge, so every accepted request gets its acceptance cycle exactly as
docs/spec-decisions.md D3 defines it (cycle 0 = the first rising edge with ``rst`` low).
It also drives the synchronous reset, at start and in the middle of traffic, and checks the
clear sweep that follows it when it is a generation wrap or when it comes while a sweep
runs (D12: such a reset counts nothing and restarts the sweep). Which sweep runs is the
testbench's own prediction (``verif.regmirror.TableGenerations``: a reset's sweep, or a
flush's at D13 rule 5's edges ``f + 1 .. f + ROWS``), never read from the DUT.

In every cycle with a response outstanding the loop samples the response port, so the
scoreboard checks ``rsp.valid`` cycle by cycle against D13 rule 3 (``Scoreboard.check_offer``:
each response offered exactly from its due cycle, hence handed over at the first cycle from
then with ``rsp.ready`` high), and the loop itself checks the stream rule of ``lib.stream``
(AXI4-Stream): a response offered and not taken is offered again in the next cycle with the
same payload.
"""

from __future__ import annotations

import collections
import os

from cocotb.triggers import ClockCycles, Event, FallingEdge, ReadOnly
from cocotb.utils import get_sim_time

from regmap import OPS, Params

from verif.regmirror import TableGenerations
from .scoreboard import Mismatch

__all__ = ["PERIOD_PS", "ReqItem", "StreamDriver"]

OP_NAMES = {value: name for name, value in OPS.items()}
PERIOD_PS = 10_000
HALF_PS = PERIOD_PS // 2


#: D12's count of table generations of the simulated block: it lives as long as the block
#: does, across its resets and across the tests of a regression (cocotb runs them all in one
#: simulation of one block), so it is one object per simulation process.
BLOCK_GENERATIONS = TableGenerations()


class ReqItem:
    """A request for the driver: ``gap`` valid-low cycles before it is presented, and/or
    ``at``: not presented before cycle ``at`` (so it is accepted at ``at`` if ready)."""
    __slots__ = ("op", "addr", "min_tlevel", "gap", "at")

    def __init__(self, op, addr=0, min_tlevel=0, gap=0, at=None):
        self.op, self.addr, self.min_tlevel, self.gap, self.at = op, addr, min_tlevel, gap, at

    def __repr__(self):
        return f"{OP_NAMES[self.op]}(addr={self.addr:#x}, min_tlevel={self.min_tlevel})"


class StreamDriver:
    """Drives ``dut``'s streams and reset; hands each handshake to its consumer.

    ``scoreboard.accept(item, cycle)`` / ``scoreboard.receive(word, cycle)`` take the
    request and response handshakes; ``registers.pending_writes`` and
    ``registers.response_offered(entry, cycle)`` (at every edge with ``BVALID`` high) and
    ``registers.apply_write(entry, cycle)`` (the B handshake) take the AXI4-Lite write
    responses;
    ``on_reset_release()`` is called in the first cycle with ``rst`` low.

    Knobs: ``valid_gap_fn() -> int`` extra valid-low cycles before each request,
    ``rsp_ready_fn() -> bool`` ``rsp.ready`` per cycle (``None``: always ready).
    State tests may read: ``reqq`` (queued items), ``cur`` (the item being presented),
    ``max_stall`` (longest run of cycles with a response held by back-pressure), ``wake``
    (set it to make an idle loop look at the DUT again), ``t0``, ``reset_done``.
    """

    def __init__(self, dut, p: Params, codec, scoreboard, registers, coverage, log, seed,
                 on_reset_release):
        self.dut, self.p, self.codec = dut, p, codec
        self.scoreboard, self.registers, self.coverage = scoreboard, registers, coverage
        self.log, self.seed = log, seed
        self.on_reset_release = on_reset_release
        self.reqq = collections.deque()
        self.cur = None
        self.cur_gap = 0
        self.wake = Event()
        self.idle_ev = Event()
        self.reset_done = Event()
        self._rst_cycles = 0
        self._rst_at = None               # the edge at which a requested reset starts
        self._in_reset = True
        self._reset_edge = None           # the first edge with rst high of this reset
        self._sweep_left = None           # cycles of the clear sweep still to come
        self.reset_sweeps = False         # the last reset wrapped the generations (D12)
        self.generations = BLOCK_GENERATIONS
        # a write issued while the loop idles wakes it: the loop samples the B channel in
        # every cycle while a write is in flight (the edge f of its response, D13)
        registers.on_write = self.wake.set
        self.t0 = None
        self.valid_gap_fn = None
        self.rsp_ready_fn = None
        # A FrontDoor (verif/tb/front.py, D13): set by a test of the non-blocking mode. The
        # loop then runs every cycle (never idles) and asks it which request is taken.
        self.front = None
        self.stall_run = 0
        self.max_stall = 0
        # (cycle, payload) of a response offered with rsp.ready low at the last sampled
        # cycle: the next cycle must offer it again, unchanged
        self._held = None
        # $KVASU_DEBUG_TRACE=1: keep (cycle, req.valid, req.ready, bvalid, bready, writes in
        # flight) of every active cycle and print the last ones on a handshake error
        self.debug_trace = [] if os.environ.get("KVASU_DEBUG_TRACE") else None

    # ---------------- time
    def now_ps(self):
        return int(get_sim_time("ps"))

    def cycle_now(self):
        """Cycle number of the most recent rising edge (at or before now)."""
        return (self.now_ps() - self.t0) // PERIOD_PS

    # ---------------- control
    def clear(self):
        """Forget every queued request (after a reset)."""
        self.reqq.clear()
        self.cur = None

    def send_items(self, items):
        self.reqq.extend(items)
        self.wake.set()

    async def reset(self, cycles=4):
        """Synchronous reset for ``cycles`` rising edges, now (also mid-traffic)."""
        self.start_reset(cycles)
        await self.reset_done.wait()

    def start_reset(self, cycles=4, at=None):
        """Request a synchronous reset of ``cycles`` rising edges, from the edge ``at`` (in
        the count since the last reset; ``None``: the next edge the loop drives), and
        return at once; ``reset_done`` is set when ``req.ready`` may rise again (after
        the clear sweep, if one follows the reset)."""
        self.reset_done.clear()
        self._rst_cycles = cycles
        self._rst_at = at
        self.wake.set()

    async def wait_released(self):
        """Wait until a requested reset has been released (the first edge with ``rst``
        low is coming)."""
        while self._rst_cycles or self._in_reset:
            await FallingEdge(self.dut.clk)
            await ReadOnly()

    def upcoming_edge(self):
        """The number of the next rising edge (in the count since the last reset)."""
        return (self.now_ps() + HALF_PS - self.t0) // PERIOD_PS

    def sweep_running(self):
        """The testbench predicts a clear sweep at the next edge (a reset's or a flush's)."""
        return self.t0 is not None and self.generations.sweeping(self.upcoming_edge())

    def busy(self):
        return (self.cur is not None or self.reqq or self.scoreboard.expected
                or self._rst_cycles or self._in_reset or self._sweep_left is not None
                or self.registers.pending_writes or self.sweep_running())

    def finish(self):
        if self.stall_run:
            self.max_stall = max(self.max_stall, self.stall_run)

    # ---------------- the loop
    async def run(self):
        dut = self.dut
        while True:
            await FallingEdge(dut.clk)
            if self._rst_cycles and (self._rst_at is None or self.t0 is None
                                     or self.upcoming_edge() >= self._rst_at):
                if not self._in_reset:
                    # the first edge with rst high: its number in the count since the last
                    # reset says whether it comes while a sweep runs (D12)
                    self._reset_edge = self.upcoming_edge()
                self._rst_at = None
                self._held = None           # the reset drops a held response (D10)
                dut.rst.value = 1
                dut.req__valid.value = 0
                dut.rsp__ready.value = 0
                self._rst_cycles -= 1
                self._in_reset = True
                continue
            if self._in_reset:
                dut.rst.value = 0
                self._in_reset = False
                self.t0 = self.now_ps() + HALF_PS
                # a reset untracks every line by a new table generation, ready high at
                # once, unless it finds every generation used: then the block clears its
                # table (valid bits in block RAM), one row per cycle with req.ready low
                # (D12, docs/rtl.md "Flush and reset"); a reset while a sweep runs (the
                # testbench's prediction of it) counts nothing and restarts the sweep
                edge, self._reset_edge = self._reset_edge, None
                rows = self.p.ENTRIES // self.p.PROBE
                if self.front is not None and edge is not None and \
                        self.front.rule.in_sweep(edge) != self.generations.sweeping(edge):
                    raise Mismatch(f"testbench: the reset at edge {edge} is in a clear sweep "
                                   f"for the admission rule ({self.front.rule.in_sweep(edge)})"
                                   f" but not for the generation count, or the reverse; "
                                   f"seed {self.seed}")
                sweep = self.generations.reset(edge, rows)
                self.reset_sweeps = sweep
                self.on_reset_release()
                if sweep and self.front is not None and self.front.nonblocking:
                    # a build whose reset mode is NONBLOCKING (D13 "The reset mode"):
                    # req.ready stays 1 through the sweep, whose requests the front door
                    # drops, from edge 0 on
                    self._sweep_left = None
                    self.reset_done.set()
                else:
                    self._sweep_left = rows if sweep else 0
            if self._sweep_left is not None:
                await self._check_sweep()
                continue
            if not self.busy():
                if self.front is None:
                    await self._idle()
                    continue
                self.idle_ev.set()          # the front door needs every cycle
            else:
                self.idle_ev.clear()
            await self._cycle()

    def _front_cycle(self, front, cycle, valid, rdy, offered):
        """One sampled cycle decided by the front door (D13): ``req.ready`` must be 1 in
        the mode and equal to the rule outside it; ``rsp.valid`` must be the rule's."""
        dut = self.dut
        ready = int(dut.req__ready.value)
        rv = int(dut.rsp__valid.value)
        if rv != offered:
            raise Mismatch(f"rsp.valid {rv} at cycle {cycle}, the admission rule (D13 rule "
                           f"3) predicts {int(offered)}; seed {self.seed}")
        op = self.cur.op if valid else None
        nonblocking = front.nonblocking
        taken = front.step(cycle, op, rdy)
        if valid:
            front.presented += 1
            front.not_ready += not ready
            front.first_presented = cycle if front.first_presented is None \
                else front.first_presented
            front.last_presented = cycle
        if nonblocking and not ready:
            raise Mismatch(f"req.ready low at cycle {cycle} in MODE.NONBLOCKING; "
                           f"seed {self.seed}")
        if valid and not nonblocking and bool(ready) != taken:
            raise Mismatch(f"req.ready {ready} at cycle {cycle} for {self.cur}, the rule "
                           f"(D13) says {int(taken)}; seed {self.seed}")
        if valid and taken:
            self.scoreboard.accept(self.cur, cycle)
            self.cur = None
        elif valid and nonblocking:
            self.scoreboard.model.drop(cycle)
            self.coverage.hit("nonblocking.drop")
            self.cur = None
        if rv and rdy:
            self.scoreboard.receive(int(dut.rsp__payload.value), cycle)

    async def _check_sweep(self):
        await ReadOnly()
        cycle = self.upcoming_edge()
        if self.front is not None:
            self.front.sample_axi(cycle, self.dut)
        self._sample_writes(cycle)
        ready = int(self.dut.req__ready.value)
        if self._sweep_left:
            assert not ready, (f"req.ready high {self._sweep_left} cycles before "
                               f"the end of the clear sweep after reset")
            self._sweep_left -= 1
        else:
            assert ready, "req.ready low after the clear sweep after reset"
            self._sweep_left = None
            self.reset_done.set()

    def _sample_writes(self, cycle):
        """The B channel at edge ``cycle``: the oldest write in flight takes effect at the
        first edge its response is offered (``f``, D13), and leaves at its B handshake;
        returns whether ``cycle`` is the B handshake edge of a CTRL action write."""
        pending = self.registers.pending_writes
        dut = self.dut
        if not pending or not int(dut.axil__bvalid.value):
            return False
        entry = pending[0]
        self.registers.response_offered(entry, cycle)
        if int(dut.axil__bready.value):
            self.registers.apply_write(entry, cycle)
            return entry.get("ctrl", False)
        return False

    def _check_held(self, held, cycle, rv, word):
        """The stream rule (``lib.stream``, AXI4-Stream): the response ``held`` =
        ``(cycle, payload)`` offered with ``rsp.ready`` low at the previous sampled cycle
        is, at ``cycle``, still offered (``rv``) with the same payload (``word``)."""
        held_cycle, held_word = held
        if held_cycle != cycle - 1:
            return      # cycles not sampled in between: only a reset, which drops it (D10)
        if not rv:
            raise Mismatch(f"rsp.valid fell at cycle {cycle} with no handshake: the response "
                           f"offered at cycle {held_cycle} was held by rsp.ready low and must "
                           f"stay offered until taken; seed {self.seed}")
        if word != held_word:
            before, now = self.codec.unpack_rsp(held_word), self.codec.unpack_rsp(word)
            fields = ", ".join(f"{n} {before[n]:#x} -> {now[n]:#x}"
                               for n in self.codec.rsp_names if before[n] != now[n])
            raise Mismatch(f"rsp.payload changed at cycle {cycle} with no handshake: the "
                           f"response offered at cycle {held_cycle} was held by rsp.ready "
                           f"low and must stay unchanged until taken ({fields}); "
                           f"seed {self.seed}")

    async def _idle(self):
        dut = self.dut
        self._held = None
        dut.req__valid.value = 0
        if int(dut.rsp__valid.value):
            # a response with nothing outstanding: take it, report it
            dut.rsp__ready.value = 1
            await ReadOnly()
            self.scoreboard.receive(int(dut.rsp__payload.value),
                                    (self.now_ps() + HALF_PS - self.t0) // PERIOD_PS)
            return
        dut.rsp__ready.value = 0
        self.idle_ev.set()
        self.wake.clear()
        await self.wake.wait()
        self.idle_ev.clear()

    async def _cycle(self):
        """One active cycle: drive, then sample the handshakes of the coming edge (or skip a
        long stretch with nothing to do)."""
        dut = self.dut
        if self.cur is None and self.reqq:
            self.cur = self.reqq.popleft()
            self.cur_gap = self.cur.gap + (self.valid_gap_fn() if self.valid_gap_fn else 0)
        valid = 0
        upcoming = (self.now_ps() + HALF_PS - self.t0) // PERIOD_PS
        if self.cur is not None:
            skip = 0
            if (not self.scoreboard.expected and not self.registers.pending_writes
                    and self.front is None):
                if self.cur_gap > 8:
                    skip = self.cur_gap - 2
                    self.cur_gap -= skip
                elif self.cur.at is not None and self.cur.at - upcoming > 8:
                    skip = self.cur.at - upcoming - 2
            if skip:                     # long idle: no per-cycle Python
                self._held = None
                dut.req__valid.value = 0
                # nothing is owed, so a response in these cycles is spurious: hold it
                # (rsp.ready low, as _idle does) for the next sampled cycle to report,
                # rather than let it be taken unseen
                dut.rsp__ready.value = 0
                await ClockCycles(dut.clk, skip)
                return
            if self.cur_gap > 0:
                self.cur_gap -= 1
            elif self.cur.at is not None and upcoming < self.cur.at:
                pass
            else:
                valid = 1
                dut.req__payload.value = self.codec.pack_req(
                    self.cur.op, self.cur.addr, self.cur.min_tlevel)
        dut.req__valid.value = valid
        rdy = 1 if self.rsp_ready_fn is None else int(bool(self.rsp_ready_fn()))
        dut.rsp__ready.value = rdy
        await ReadOnly()
        cycle = upcoming
        if self.debug_trace is not None:
            self.debug_trace.append((cycle, valid, int(dut.req__ready.value),
                                     int(dut.axil__bvalid.value), int(dut.axil__bready.value),
                                     len(self.registers.pending_writes)))
        front = self.front
        if front is not None:
            front.sample_axi(cycle, dut)
            offered = front.rsp_offered(cycle)
        b_ctrl = self._sample_writes(cycle)
        rv = int(dut.rsp__valid.value)
        held = self._held
        if held is not None or (rv and not rdy):     # the payload only around a stall
            word = int(dut.rsp__payload.value) if rv else None
            if held is not None:
                self._check_held(held, cycle, rv, word)
            self._held = (cycle, word) if rv and not rdy else None
        if front is not None:
            self._front_cycle(front, cycle, valid, rdy, offered)
            return
        if not (rv and rdy):
            # (the front door checks rsp.valid by the same rule, D13 rule 3)
            self.scoreboard.check_offer(rv, cycle)
        if valid and int(dut.req__ready.value):
            if b_ctrl:
                # D8: req.ready stays low up to and including the cycle of the B handshake
                # of a CTRL action write, so requests and register effects never tie
                if self.debug_trace:
                    self.log.error("cycle, req.valid, req.ready, bvalid, bready, writes:\n%s",
                                   "\n".join(map(str, self.debug_trace[-30:])))
                raise Mismatch(f"request {self.cur} accepted at cycle {cycle}, the edge of "
                               f"a CTRL write response: D8 forbids it; seed {self.seed}")
            self.scoreboard.accept(self.cur, cycle)
            self.cur = None
        if rv and rdy:
            self.scoreboard.receive(int(dut.rsp__payload.value), cycle)
        if rv and not rdy:
            self.stall_run += 1
        else:
            if self.stall_run:
                self.max_stall = max(self.max_stall, self.stall_run)
                if self.stall_run >= 16:
                    self.coverage.hit("rsp.backpressure_stall>=16")
            self.stall_run = 0

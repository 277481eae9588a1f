"""Reusable cocotb testbench for the KV-ASU (``kv_asu`` Verilog top).

One ``KvAsuTB`` per cocotb test. It owns

* the clock and the synchronous reset (``reset()`` can be called in the middle of traffic);
* one per-cycle driver/monitor loop that drives ``req`` and ``rsp.ready`` on the falling
  edge and samples both handshakes in the ``ReadOnly`` phase before the next rising edge,
  so every accepted request gets its acceptance cycle exactly as docs/spec-decisions.md D3
  defines it (cycle 0 = the first rising edge with ``rst`` low);
* a scoreboard: every accepted request goes to the golden model with its acceptance cycle;
  every DUT response is compared with the model's response field by field (all fields,
  D5), in order, and nothing may be lost or duplicated;
* an AXI4-Lite master (cocotbext-axi) and a register mirror (D8) so that every register
  access is checked (data and response code) and CTRL actions are applied to the model at
  the moment of the write response;
* functional coverage (``Coverage``), written to JSON at the end of each test.

The configuration (elaboration parameters, scale, coverage directory) comes from the JSON
file named by ``$KVASU_CONFIG`` (written by verif/runner.py); the seed from ``$KVASU_SEED``
or ``$RANDOM_SEED``, else cocotb's own seed.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import random
from pathlib import Path

import cocotb
import mmh3
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, FallingEdge, ReadOnly, RisingEdge
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiResp

import regmap
from regmap import OPS, REG, REGISTERS, STAT_REGISTERS, Params
from verif.codec import Codec

OBSERVE, QUERY, EVICT, EVICT_ANY = OPS["OBSERVE"], OPS["QUERY"], OPS["EVICT"], OPS["EVICT_ANY"]
OP_NAMES = {v: k for k, v in OPS.items()}
PERIOD_PS = 10_000
HALF_PS = PERIOD_PS // 2

CTRL = REG["CTRL"]
ENABLE = CTRL.mask("ENABLE")
FLUSH = CTRL.mask("FLUSH")
CLEAR_STATS = CTRL.mask("CLEAR_STATS")
COMMIT = CTRL.mask("COMMIT")
CLEAR_ERROR = CTRL.mask("CLEAR_ERROR")
ST_BUSY = REG["STATUS"].mask("BUSY")
ST_ERROR = REG["STATUS"].mask("ERROR")


# ---------------------------------------------------------------------------------------
# configuration

def load_config() -> dict:
    """The run configuration: {"name", "params", "scale", "cov_dir", "sim"}."""
    path = os.environ.get("KVASU_CONFIG")
    cfg = {"name": "default", "params": {}, "scale": 1.0, "cov_dir": None, "sim": "?"}
    if path:
        cfg.update(json.loads(Path(path).read_text()))
    return cfg


def get_seed() -> int:
    for var in ("KVASU_SEED", "RANDOM_SEED", "SEED"):
        if os.environ.get(var):
            return int(os.environ[var], 0)
    return cocotb.RANDOM_SEED % (1 << 32)


def stat_value(stats, name):
    if isinstance(stats, dict):
        return int(stats[name])
    return int(getattr(stats, name))


# ---------------------------------------------------------------------------------------
# payloads, hashing, addresses

class AddrSpace:
    """Lines, tags, windows: the steering helpers of directed and random tests."""

    def __init__(self, p: Params, rng: random.Random):
        self.p, self.rng = p, rng
        self.tag_mask = (1 << p.TAG_WIDTH) - 1
        self.line_bits = p.ADDR_WIDTH - p.LINE_SHIFT

    def tag_of(self, addr):
        addr &= (1 << self.p.ADDR_WIDTH) - 1
        return (addr >> self.p.LINE_SHIFT) & self.tag_mask

    def h(self, tag, seed=0):
        return mmh3.hash(int(tag).to_bytes(8, "little"), seed, signed=False) % self.p.ENTRIES

    def addr(self, line, jitter=True):
        """A byte address of ``line`` (random offset inside the line when ``jitter``)."""
        off = self.rng.randrange(1 << self.p.LINE_SHIFT) if jitter and self.p.LINE_SHIFT else 0
        return ((line << self.p.LINE_SHIFT) | off) & ((1 << self.p.ADDR_WIDTH) - 1)

    def random_line(self):
        return self.rng.randrange(1 << min(self.line_bits, 62))

    def lines_with_h(self, h, n, seed=0, exclude=()):
        """``n`` distinct lines (distinct tags) whose hash is ``h``."""
        out, tags = [], {self.tag_of(self.addr(l, False)) for l in exclude}
        tries = 0
        while len(out) < n:
            tries += 1
            assert tries < 200 * self.p.ENTRIES * n + 10000, "no line found for window"
            line = self.random_line()
            tag = line & self.tag_mask
            if tag in tags or self.h(tag, seed) != h:
                continue
            tags.add(tag)
            out.append(line)
        return out

    def alias_line(self, line):
        """A different line with the same tag (only when TAG_WIDTH < line bits)."""
        if self.p.TAG_WIDTH >= self.line_bits:
            return None
        hi = self.rng.randrange(1, 1 << min(self.line_bits - self.p.TAG_WIDTH, 40))
        return (line & self.tag_mask) | (hi << self.p.TAG_WIDTH)


# ---------------------------------------------------------------------------------------
# coverage

class Coverage:
    """Named bins with hit counts. ``goals`` lists the bins a run is expected to hit."""

    def __init__(self, p: Params):
        self.p = p
        self.bins = collections.Counter()

    def hit(self, name, n=1):
        self.bins[name] += n

    def sample(self, req, exp, pre_occ, gap_cycles, seed_active, space: AddrSpace):
        op, b = req["op"], self.bins
        opn = OP_NAMES[op]
        t = self.p.TICK_SHIFT
        if gap_cycles is not None:
            gap_ticks = gap_cycles >> t
            if gap_ticks > 4 * (1 << self.p.TS_WIDTH):
                b["gap.ticks>4*2^TS_WIDTH"] += 1
            elif gap_ticks > (1 << self.p.TS_WIDTH):
                b["gap.ticks>2^TS_WIDTH"] += 1
            elif gap_ticks > self.p.WMAX:
                b["gap.ticks>WMAX"] += 1
        if op == OBSERVE:
            tag = space.tag_of(req["addr"])
            off = (exp["slot"] - space.h(tag, seed_active)) % self.p.ENTRIES
            if exp["present"]:
                b["observe.hit"] += 1
                if exp["tlevel_before"] == 0:
                    b["observe.hit_cold_restart"] += 1
                if exp["count"] == self.p.COUNT_MAX:
                    b["observe.count_saturated"] += 1
                b[f"observe.hit_offset{off}"] += 1
            elif exp["tracked"] and exp["victim_valid"]:
                b["observe.replace"] += 1
                b[f"observe.replace_offset{off}"] += 1
            elif exp["tracked"]:
                b["observe.insert"] += 1
                b[f"observe.insert_offset{off}"] += 1
            else:
                b["observe.drop"] += 1
            b[f"observe.tlevel T{exp['tlevel_before']}->T{exp['tlevel']}"] += 1
            b[f"observe.min_tlevel{req['min_tlevel']}.hit{exp['hit']}"] += 1
        elif op == QUERY:
            b[f"query.present{exp['present']}.hit{exp['hit']}"] += 1
            b[f"query.tlevel T{exp['tlevel_before']}"] += 1
            b[f"query.min_tlevel{req['min_tlevel']}.hit{exp['hit']}"] += 1
        else:
            if exp["victim_valid"]:
                b[f"{opn.lower()}.victim"] += 1
            elif pre_occ == 0:
                b[f"{opn.lower()}.empty_table"] += 1
            else:
                b[f"{opn.lower()}.tail_not_T0"] += 1

    GOALS = [
        "observe.insert", "observe.replace", "observe.drop", "observe.hit",
        "observe.hit_cold_restart", "observe.count_saturated",
        "query.present0.hit0", "query.present0.hit1", "query.present1.hit0", "query.present1.hit1",
        "evict.victim", "evict.empty_table", "evict.tail_not_T0",
        "evict_any.victim", "evict_any.empty_table",
        "gap.ticks>2^TS_WIDTH", "gap.ticks>4*2^TS_WIDTH",
        "ctrl.commit_ok", "ctrl.commit_refused", "ctrl.commit_seed_change", "ctrl.flush",
        "ctrl.clear_stats", "reset.mid_traffic", "rsp.backpressure_stall>=16",
    ] + [f"observe.tlevel T0->T{k}" for k in range(4)] + [
        f"query.tlevel T{k}" for k in range(4)]

    @classmethod
    def goals_for(cls, sim, params: Params):
        """The goals a full run of (sim, configuration) must hit."""
        goals = list(cls.GOALS)
        if params.COUNT_MAX > 4096:
            goals.remove("observe.count_saturated")      # the test runs on Verilator only
        return goals

    def missing(self, goals=None):
        return [g for g in (goals or self.GOALS) if not self.bins.get(g)]

    def summary(self):
        lines = [f"  {k:<40s} {v}" for k, v in sorted(self.bins.items())]
        return "\n".join(lines)

    def dump(self, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(dict(sorted(self.bins.items())), indent=1))


# ---------------------------------------------------------------------------------------
# the testbench

class Mismatch(AssertionError):
    pass


class ReqItem:
    """A request for the driver: ``gap`` valid-low cycles before it is presented, and/or
    ``at``: not presented before cycle ``at`` (so it is accepted at ``at`` if ready)."""
    __slots__ = ("op", "addr", "min_tlevel", "gap", "at")

    def __init__(self, op, addr=0, min_tlevel=0, gap=0, at=None):
        self.op, self.addr, self.min_tlevel, self.gap, self.at = op, addr, min_tlevel, gap, at

    def __repr__(self):
        return (f"{OP_NAMES[self.op]}(addr={self.addr:#x}, min_tlevel={self.min_tlevel})")


class KvAsuTB:
    def __init__(self, dut, seed=None, cfg=None, name="test"):
        from golden_model import KvAsuModel  # noqa: imported late: the model may land later
        self._model_cls = KvAsuModel
        self.dut = dut
        self.cfg = cfg or load_config()
        self.p = Params(**self.cfg["params"])
        self.scale = float(self.cfg.get("scale", 1.0))
        self.name = name
        self.seed = get_seed() if seed is None else seed
        self.rng = random.Random(self.seed)
        self.log = logging.getLogger(f"kvasu.{name}")
        self.codec = Codec(self.p)
        self.space = AddrSpace(self.p, self.rng)
        self.cov = Coverage(self.p)
        self.axil = None                  # created in start(), with reset asserted
        # stream state
        self.reqq = collections.deque()
        self.cur = None
        self.cur_gap = 0
        self.expected = collections.deque()
        self.history = collections.deque(maxlen=8192)
        self.wake = Event()
        self.idle_ev = Event()
        self._rst_cycles = 0
        self._in_reset = True
        self._sweep_left = None           # cycles of the clear sweep still to come
        self.reset_done = Event()
        self.t0 = None
        self.valid_gap_fn = None          # () -> extra valid-low cycles before a request
        self.rsp_ready_fn = None          # () -> bool, per cycle
        self.accepted = 0
        self.received = 0
        self.latency = collections.Counter()    # response edge - acceptance edge
        self.last_accept_cycle = None
        self.stall_run = 0
        self.max_stall = 0
        self.pending_writes = collections.deque()   # AXI writes in issue order (B order)
        # $KVASU_DEBUG_TRACE=1: keep (cycle, req.valid, req.ready, bvalid, bready, writes in
        # flight) of every active cycle and print the last ones on a handshake error
        self.debug_trace = [] if os.environ.get("KVASU_DEBUG_TRACE") else None
        self._fresh_state()

    # ---------------- bring-up
    def new_model(self):
        p = self.p
        return self._model_cls(entries=p.ENTRIES, probe=p.PROBE, addr_width=p.ADDR_WIDTH,
                               line_shift=p.LINE_SHIFT, tag_width=p.TAG_WIDTH,
                               count_width=p.COUNT_WIDTH, ts_width=p.TS_WIDTH,
                               tick_shift=p.TICK_SHIFT)

    def _fresh_state(self):
        self.model = self.new_model()
        self.shadow = dict(self.p.defaults)
        self.active = dict(self.p.defaults)
        self.enable = 1
        self.error = 0
        self.latch_hi = 0
        self.expected.clear()
        self.pending_writes.clear()
        self.reqq.clear()
        self.cur = None
        self.last_accept_cycle = None

    async def start(self):
        dut = self.dut
        dut.rst.value = 1
        dut.req__valid.value = 0
        dut.req__payload.value = 0
        dut.rsp__ready.value = 0
        # the AXI master samples the bus only once reset has been seen asserted and released
        # (Icarus starts with X on the block's outputs until the first reset edge)
        logging.getLogger(f"cocotb.{dut._name}").setLevel(logging.WARNING)
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "axil_"), dut.clk, dut.rst)
        self.axil.write_if.log.setLevel(logging.WARNING)
        self.axil.read_if.log.setLevel(logging.WARNING)
        Clock(dut.clk, PERIOD_PS, unit="ps").start(start_high=False)
        self._loop_task = cocotb.start_soon(self._loop())
        self.log.info("seed %d, config %s %s", self.seed, self.cfg["name"], self.p.as_dict())
        await self.reset(4)

    async def reset(self, cycles=4):
        """Synchronous reset for ``cycles`` rising edges, now (also mid-traffic)."""
        self.reset_done.clear()
        self._rst_cycles = cycles
        self.wake.set()
        await self.reset_done.wait()

    def now_ps(self):
        return int(get_sim_time("ps"))

    def cycle_now(self):
        """Cycle number of the most recent rising edge (at or before now)."""
        return (self.now_ps() - self.t0) // PERIOD_PS

    # ---------------- driver / monitor loop
    def _busy(self):
        return (self.cur is not None or self.reqq or self.expected or self._rst_cycles
                or self._in_reset or self._sweep_left is not None)

    async def _loop(self):
        dut = self.dut
        while True:
            await FallingEdge(dut.clk)
            if self._rst_cycles:
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
                self._fresh_state()
                # the block clears its table (valid bits in block RAM) after reset: one row
                # per cycle with req.ready low (docs/rtl.md "Flush and reset")
                self._sweep_left = self.p.ENTRIES // self.p.PROBE
            if self._sweep_left is not None:
                await ReadOnly()
                ready = int(dut.req__ready.value)
                if self._sweep_left:
                    assert not ready, (f"req.ready high {self._sweep_left} cycles before "
                                       f"the end of the clear sweep after reset")
                    self._sweep_left -= 1
                else:
                    assert ready, "req.ready low after the clear sweep after reset"
                    self._sweep_left = None
                    self.reset_done.set()
                continue
            if not self._busy():
                dut.req__valid.value = 0
                if int(dut.rsp__valid.value):
                    # a response with nothing outstanding: take it, report it
                    dut.rsp__ready.value = 1
                    await ReadOnly()
                    self._receive(int(dut.rsp__payload.value),
                                  (self.now_ps() + HALF_PS - self.t0) // PERIOD_PS)
                    continue
                dut.rsp__ready.value = 0
                self.idle_ev.set()
                self.wake.clear()
                await self.wake.wait()
                self.idle_ev.clear()
                continue
            self.idle_ev.clear()
            # drive the request for the coming edge
            if self.cur is None and self.reqq:
                self.cur = self.reqq.popleft()
                self.cur_gap = self.cur.gap + (self.valid_gap_fn() if self.valid_gap_fn else 0)
            valid = 0
            upcoming = (self.now_ps() + HALF_PS - self.t0) // PERIOD_PS
            if self.cur is not None:
                skip = 0
                if not self.expected and not self.pending_writes:
                    if self.cur_gap > 8:
                        skip = self.cur_gap - 2
                        self.cur_gap -= skip
                    elif self.cur.at is not None and self.cur.at - upcoming > 8:
                        skip = self.cur.at - upcoming - 2
                if skip:                     # long idle: no per-cycle Python
                    dut.req__valid.value = 0
                    await ClockCycles(dut.clk, skip)
                    continue
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
            b_ctrl = False
            if self.debug_trace is not None:
                self.debug_trace.append((cycle, valid, int(dut.req__ready.value),
                                         int(dut.axil__bvalid.value), int(dut.axil__bready.value),
                                         len(self.pending_writes)))
            if self.pending_writes and int(dut.axil__bvalid.value) and int(dut.axil__bready.value):
                b_ctrl = self.pending_writes[0].get("ctrl", False)
                self._apply_write(self.pending_writes[0], cycle)
            if valid and int(dut.req__ready.value):
                if b_ctrl:
                    # D8 (amended in 7c5692a): req.ready stays low up to and including the
                    # cycle of the B handshake of a CTRL write: no tie to order
                    if self.debug_trace:
                        self.log.error("cycle, req.valid, req.ready, bvalid, bready, writes:\n%s",
                                       "\n".join(map(str, self.debug_trace[-30:])))
                    raise Mismatch(f"request {self.cur} accepted at cycle {cycle}, the edge of "
                                   f"a CTRL write response: D8 forbids it; seed {self.seed}")
                self._accept(self.cur, cycle)
                self.cur = None
            rv = int(dut.rsp__valid.value)
            if rv and rdy:
                self._receive(int(dut.rsp__payload.value), cycle)
            if rv and not rdy:
                self.stall_run += 1
            else:
                if self.stall_run:
                    self.max_stall = max(self.max_stall, self.stall_run)
                    if self.stall_run >= 16:
                        self.cov.hit("rsp.backpressure_stall>=16")
                self.stall_run = 0

    def _accept(self, item, cycle):
        pre_occ = self.model.occupancy
        gap = None if self.last_accept_cycle is None else cycle - self.last_accept_cycle
        exp_obj = self.model.request(cycle, item.op, item.addr, min_tlevel=item.min_tlevel)
        exp = exp_obj.as_dict()
        req = {"op": item.op, "addr": item.addr, "min_tlevel": item.min_tlevel}
        self.cov.sample(req, exp, pre_occ, gap, self.active["HASH_SEED"], self.space)
        self.expected.append((cycle, item, exp))
        self.accepted += 1
        self.last_accept_cycle = cycle

    def _receive(self, word, cycle):
        got = self.codec.unpack_rsp(word)
        if not self.expected:
            raise Mismatch(self._diff_text(None, None, None, got, cycle,
                                           "response with no outstanding request "
                                           "(duplicated or spurious)"))
        acc_cycle, item, exp = self.expected.popleft()
        self.received += 1
        self.latency[cycle - acc_cycle] += 1
        self.history.append((acc_cycle, item, exp))
        if got != exp:
            raise Mismatch(self._diff_text(acc_cycle, item, exp, got, cycle, "response mismatch"))

    def _diff_text(self, acc_cycle, item, exp, got, cycle, what):
        p = self.p
        lines = [f"KV-ASU SCOREBOARD: {what}",
                 f"  seed={self.seed} config={self.cfg['name']} sim={self.cfg.get('sim')} "
                 f"test={self.name}",
                 f"  reproduce: KVASU_SEED={self.seed} KVASU_TESTS={self.name} "
                 f"KVASU_CONFIGS={self.cfg['name']} KVASU_SIMS={self.cfg.get('sim')} "
                 f".venv/bin/python -m pytest verif -k {self.cfg.get('sim')}",
                 f"  response at cycle {cycle}"]
        if item is not None:
            tag = self.space.tag_of(item.addr)
            lines.append(f"  request #{self.received} accepted at cycle {acc_cycle} "
                         f"(tick {acc_cycle >> p.TICK_SHIFT}): {item} tag={tag:#x} "
                         f"h={self.space.h(tag, self.active['HASH_SEED'])}")
            lines.append(f"  {'field':<14s} {'expected':>20s} {'got':>20s}")
            for n in self.codec.rsp_names:
                mark = "" if exp[n] == got[n] else "   <-- DIFF"
                lines.append(f"  {n:<14s} {exp[n]:>#20x} {got[n]:>#20x}{mark}")
        else:
            lines.append(f"  got: {got}")
        lines.append(f"  active config: {self.active}")
        lines.append("  previous responses (cycle, request, expected):")
        for c, it, e in list(self.history)[-8:]:
            lines.append(f"    {c:8d} {it!r:40s} {e}")
        text = "\n".join(lines)
        self.log.error(text)
        return text

    # ---------------- stream API
    def send(self, op, addr=0, min_tlevel=0, gap=0, at=None):
        self.reqq.append(ReqItem(op, addr, min_tlevel, gap, at))
        self.wake.set()

    def send_items(self, items):
        self.reqq.extend(items)
        self.wake.set()

    async def batch(self, items):
        """Send ``items`` (ReqItem or (op, addr[, min_tlevel[, at]]) tuples), wait for all
        responses; return [(acceptance cycle, response dict)] in order."""
        items = [i if isinstance(i, ReqItem) else ReqItem(i[0], i[1] if len(i) > 1 else 0,
                                                          i[2] if len(i) > 2 else 0, 0,
                                                          i[3] if len(i) > 3 else None)
                 for i in items]
        prev = None                      # one request per cycle at most: make `at` increase
        for it in items:
            if it.at is not None and prev is not None and it.at <= prev:
                it.at = prev + 1
            prev = it.at if it.at is not None else (prev + 1 if prev is not None else None)
        n0 = self.received
        self.send_items(items)
        await self.drain()
        assert self.received - n0 == len(items)
        return [(c, e) for c, _, e in list(self.history)[len(self.history) - len(items):]]

    async def drain(self, timeout_cycles=200000):
        """Wait until every queued request is accepted and answered."""
        n = 0
        while self._busy():
            await RisingEdge(self.dut.clk)
            n += 1
            if n > timeout_cycles:
                raise AssertionError(
                    f"drain timeout: {len(self.reqq)} queued, cur={self.cur}, "
                    f"{len(self.expected)} responses outstanding (lost?), seed={self.seed}")
        await self.idle_ev.wait()

    async def observe(self, addr, **kw):
        return await self.do(OBSERVE, addr, **kw)

    async def do(self, op, addr=0, min_tlevel=0, gap=0):
        """Send one request, wait for its response, return the (checked) response dict."""
        self.send(op, addr, min_tlevel, gap)
        await self.drain()
        return self.history[-1][2]

    async def idle(self, cycles):
        """Let ``cycles`` rising edges pass with nothing on the stream."""
        await self.drain()
        if cycles > 0:
            await ClockCycles(self.dut.clk, cycles)

    async def wait_until_cycle(self, cycle):
        """Drain, then wait until the rising edge of ``cycle`` has passed."""
        await self.drain()
        n = cycle - self.cycle_now()
        if n > 0:
            await ClockCycles(self.dut.clk, n)

    async def do_at(self, cycle, op, addr=0, min_tlevel=0):
        """A request presented so that it is accepted at ``cycle`` if the DUT is ready then.

        Returns (response, acceptance cycle)."""
        await self.wait_until_cycle(cycle - 1)
        r = await self.do(op, addr, min_tlevel)
        return r, self.last_accept_cycle

    def tick_start(self, tick):
        return tick << self.p.TICK_SHIFT

    def tick_of(self, cycle):
        return cycle >> self.p.TICK_SHIFT

    # ---------------- registers
    async def rd(self, addr):
        r = await self.axil.read(addr, 4)
        return int.from_bytes(r.data, "little"), r.resp

    async def wr_bytes(self, addr, data: bytes, action=None, entry=None):
        """An AXI write. ``action(cycle)`` is applied to the mirror/model exactly at the
        write's B handshake: by the monitor loop when it is running (so that a request
        accepted at the same edge is ordered after it), else when the write returns."""
        entry = {} if entry is None else entry
        entry.update(action=action, done=False)
        self.pending_writes.append(entry)
        r = await self.axil.write(addr, data)
        if not entry["done"]:
            self._apply_write(entry, self.cycle_now())
        return r.resp

    def _apply_write(self, entry, cycle):
        if self.pending_writes and self.pending_writes[0] is entry:
            self.pending_writes.popleft()
        else:
            self.pending_writes.remove(entry)
        entry["done"] = True
        entry["cycle"] = cycle
        if entry["action"] is not None:
            entry["result"] = entry["action"](cycle)

    def expected_read(self, name, hi=False):
        """Expected value of a register read at a quiescent point (None: not predictable)."""
        reg = REG[name]
        p = self.p
        if reg.reset in ("id", "version") or (reg.reset and not reg.config and not reg.active_of):
            return p.value_of(reg.reset)
        if reg.config:
            return self.shadow[name]
        if reg.active_of:
            return self.active[reg.active_of]
        if name == "CTRL":
            return self.enable
        if name == "STATUS":
            return ST_ERROR if self.error else 0
        if name == "OCCUPANCY":
            return self.model.occupancy
        if reg.stat:
            v = stat_value(self.model.stats, reg.stat)
            return (v >> 32) & 0xFFFFFFFF if hi else v & 0xFFFFFFFF
        return None

    async def read_reg(self, name, check=True):
        reg = REG[name]
        v, resp = await self.rd(reg.offset)
        assert resp == AxiResp.OKAY, f"read of {name} got {resp!r}"
        if reg.wide:
            hi, resp = await self.rd(reg.offset + 4)
            assert resp == AxiResp.OKAY, f"read of {name}_HI got {resp!r}"
            v |= hi << 32
        if check:
            exp = self.expected_read(name)
            if reg.wide and reg.stat:
                exp = stat_value(self.model.stats, reg.stat) & ((1 << 64) - 1)
            if exp is not None and v != exp:
                raise Mismatch(f"register {name} @ {reg.offset:#05x}: expected {exp:#x}, "
                               f"got {v:#x} (seed {self.seed}, test {self.name})")
        return v

    async def write_reg(self, name, value, nbytes=4, byte=0):
        """Write ``nbytes`` bytes of ``value`` starting at byte lane ``byte`` (strobes)."""
        reg = REG[name]
        data = ((value >> (8 * byte)) & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "little")
        resp = await self.wr_bytes(reg.offset + byte, data)
        if reg.access == "ro":
            assert resp == AxiResp.SLVERR, f"write to RO {name} got {resp!r}, want SLVERR"
        elif reg.config:
            assert resp == AxiResp.OKAY, f"write to {name} got {resp!r}"
            mask = ((1 << (8 * nbytes)) - 1) << (8 * byte)
            self.shadow[name] = (self.shadow[name] & ~mask) | (value & mask)
        elif name == "CTRL":
            raise ValueError("use write_ctrl")
        return resp

    def legal(self, cfg):
        p = self.p
        return (1 <= cfg["C2"] <= cfg["C3"] <= p.COUNT_MAX
                and 0 <= cfg["W3"] <= cfg["W2"] <= cfg["W1"] <= p.WMAX)

    async def write_ctrl(self, value, nbytes=4, byte=0):
        """A CTRL write; the model takes its actions at the write response (D8)."""
        data = ((value >> (8 * byte)) & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "little")
        eff = value if byte == 0 else 0            # all CTRL bits are in byte 0

        def action(cycle):
            want = AxiResp.OKAY
            if eff & COMMIT:
                legal = self.legal(self.shadow)
                try:
                    self.model.commit(cycle, c3=self.shadow["C3"], c2=self.shadow["C2"],
                                      w3=self.shadow["W3"], w2=self.shadow["W2"],
                                      w1=self.shadow["W1"], hash_seed=self.shadow["HASH_SEED"])
                    model_ok = True
                except ValueError:
                    model_ok = False
                if model_ok != legal:
                    raise Mismatch(f"golden model and D8 disagree on the legality of "
                                   f"{self.shadow}: model {'accepts' if model_ok else 'refuses'}")
                if legal:
                    self.cov.hit("ctrl.commit_ok")
                    if self.shadow["HASH_SEED"] != self.active["HASH_SEED"]:
                        self.cov.hit("ctrl.commit_seed_change")
                    self.active = dict(self.shadow)
                else:
                    self.cov.hit("ctrl.commit_refused")
                    self.error = 1
                    want = AxiResp.SLVERR
            if want == AxiResp.OKAY and byte == 0:
                if eff & CLEAR_ERROR:
                    self.error = 0
                if eff & FLUSH:
                    self.cov.hit("ctrl.flush")
                    self.model.flush()
                if eff & CLEAR_STATS:
                    self.cov.hit("ctrl.clear_stats")
                    self.model.clear_stats()
                self.enable = eff & ENABLE
            return want

        # D8 (amended 7c5692a): no request accepted at the edge of an ACTION write's
        # response. A write of ENABLE alone changes nothing a response depends on, and the RTL
        # applies it at once (docs/rtl.md); it is not checked.
        entry = {"ctrl": byte == 0 and bool(eff & (FLUSH | CLEAR_STATS | COMMIT | CLEAR_ERROR))}
        resp = await self.wr_bytes(CTRL.offset + byte, data, action=action, entry=entry)
        want = entry["result"]
        if resp != want:
            raise Mismatch(f"CTRL write {value:#x} (bytes {nbytes} at lane {byte}) got "
                           f"{resp!r}, want {want!r}; shadow {self.shadow}; seed {self.seed}")
        return resp

    async def commit(self, **cfg):
        """Write the given shadow registers (names as in regmap) and commit."""
        for name, v in cfg.items():
            await self.write_reg(name, v)
        return await self.write_ctrl(COMMIT | (ENABLE if self.enable else 0))

    async def flush(self):
        """Drain, flush through CTRL (the model flushes at the write response), wait idle."""
        await self.drain()
        await self.write_ctrl(FLUSH | (ENABLE if self.enable else 0))
        await self.wait_not_busy()

    flush_model_and_dut = flush

    def spread_lines(self, n):
        """``n`` lines whose homes are PROBE apart (no window overfills for n <= ENTRIES)."""
        p = self.p
        out = []
        for i in range(n):
            out += self.space.lines_with_h((i * p.PROBE) % p.ENTRIES, 1,
                                           self.active["HASH_SEED"], exclude=out)
        return out

    async def wait_not_busy(self, limit=100000):
        for _ in range(limit):
            v, _ = await self.rd(REG["STATUS"].offset)
            if not v & ST_BUSY:
                return
        raise AssertionError("STATUS.BUSY stuck")

    async def check_quiescent(self, what=""):
        """Drain, then compare every statistic, OCCUPANCY, STATUS and CYCLE with the model."""
        await self.drain()
        await self.wait_not_busy()
        if int(self.dut.rsp__valid.value):
            raise Mismatch(f"rsp.valid high with nothing outstanding ({what}); seed {self.seed}")
        for reg in STAT_REGISTERS:
            await self.read_reg(reg.name)
        await self.read_reg("OCCUPANCY")
        await self.read_reg("STATUS")
        c0 = self.cycle_now()
        cyc = await self.read_reg("CYCLE")
        c1 = self.cycle_now()
        assert c0 <= cyc <= c1, f"CYCLE {cyc} outside [{c0}, {c1}] (seed {self.seed})"
        self.cov.hit("check.quiescent")

    async def check_all_registers(self):
        """Read every mapped register and compare with the mirror (quiescent)."""
        await self.drain()
        for reg in REGISTERS:
            if reg.name == "CYCLE":
                continue
            await self.read_reg(reg.name)

    # ---------------- end of test
    def finish(self):
        if self.stall_run:
            self.max_stall = max(self.max_stall, self.stall_run)
        self.cov.hit("requests.accepted", 0)
        self.log.info("%s: %d requests accepted, %d responses checked, longest rsp stall %d",
                      self.name, self.accepted, self.received, self.max_stall)
        if self.expected:
            raise Mismatch(f"{len(self.expected)} responses never arrived (lost); seed {self.seed}")
        if int(self.dut.rsp__valid.value):
            raise Mismatch(f"rsp.valid high at the end with nothing outstanding; seed {self.seed}")
        cov_dir = self.cfg.get("cov_dir")
        if cov_dir:
            self.cov.bins["requests.accepted"] = self.accepted
            self.cov.dump(Path(cov_dir) / f"{self.name}.json")
        self.log.info("coverage of %s:\n%s", self.name, self.cov.summary())


def _default_timeout_ms():
    """Simulated-time limit per test: a block that never answers (stuck ready, no B or R
    response) fails the test instead of hanging the regression."""
    try:
        scale = float(load_config().get("scale", 1.0))
    except Exception:
        scale = 1.0
    return int(50 * max(1.0, scale))


def tb_test(timeout_ms=None):
    """Decorator: a cocotb test that gets a started ``KvAsuTB`` and finishes it."""
    timeout_ms = timeout_ms or _default_timeout_ms()
    def deco(fn):
        async def wrapper(dut):
            tb = KvAsuTB(dut, name=fn.__name__)
            await tb.start()
            await fn(tb)
            await tb.drain()
            tb.finish()
        wrapper.__name__ = fn.__name__
        wrapper.__qualname__ = fn.__qualname__
        wrapper.__doc__ = fn.__doc__
        wrapper.__module__ = fn.__module__
        return cocotb.test(timeout_time=timeout_ms, timeout_unit="ms")(wrapper) \
            if timeout_ms else cocotb.test()(wrapper)
    return deco

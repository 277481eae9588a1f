# SPDX-License-Identifier: Apache-2.0
"""Reusable cocotb testbench for the KV-ASU (``kv_asu`` Verilog top).

One ``KvAsuTB`` per cocotb test. It composes the pieces of ``verif/tb/``:

* ``StreamDriver`` (``tb.driver``): the clock, the synchronous reset (``reset()`` can be
  called in the middle of traffic) and the per-cycle driver/monitor loop of the request and
  response streams;
* ``Scoreboard`` (``tb.scoreboard``): every accepted request goes to the golden model with
  its acceptance cycle; every DUT response is compared with the model's, field by field, in
  order, and nothing may be lost or duplicated; with the build's latency (the run
  configuration's ``timing``) every response is offered exactly from the cycle D13 rule 3
  gives it, under any back-pressure, and the driver holds the response port to the stream
  rule (a response not taken stays offered, unchanged);
* ``RegisterAgent`` (``tb.registers``): an AXI4-Lite master (cocotbext-axi) whose every
  write, and every read through ``read_reg``, is checked against the register mirror
  (``tb.mirror``, D8), which applies CTRL actions to the model at the write response;
* ``Coverage`` (``tb.cov``), written to JSON at the end of each test.

The configuration (elaboration parameters, scale, coverage directory) comes from the JSON
file named by ``$KVASU_CONFIG`` (written by verif/runner.py); the seed from ``$KVASU_SEED``
or ``$RANDOM_SEED``, else cocotb's own seed.
"""

from __future__ import annotations

import json
import logging
import os
import random
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from regmap import OPS, REG, REGISTERS, STAT_REGISTERS, Params
from verif.codec import Codec
from verif.regmirror import RegisterMirror
from verif.seeds import SEED_VARIABLES, env_seed
from verif.tb.addresses import AddrSpace
from verif.tb.coverage import Coverage
from verif.tb.driver import PERIOD_PS, ReqItem, StreamDriver
from verif.tb.registers import RegisterAgent
from verif.tb.scoreboard import Mismatch, Scoreboard

__all__ = ["KvAsuTB", "tb_test", "ReqItem", "Mismatch", "Coverage", "AddrSpace",
           "load_config", "run_info", "get_seed", "OBSERVE", "QUERY", "EVICT", "EVICT_ANY",
           "ENABLE", "FLUSH", "CLEAR_STATS", "COMMIT", "CLEAR_ERROR", "ST_BUSY", "ST_ERROR"]

OBSERVE, QUERY, EVICT, EVICT_ANY = OPS["OBSERVE"], OPS["QUERY"], OPS["EVICT"], OPS["EVICT_ANY"]

CTRL = REG["CTRL"]
ENABLE = CTRL.mask("ENABLE")
FLUSH = CTRL.mask("FLUSH")
CLEAR_STATS = CTRL.mask("CLEAR_STATS")
COMMIT = CTRL.mask("COMMIT")
CLEAR_ERROR = CTRL.mask("CLEAR_ERROR")
ST_BUSY = REG["STATUS"].mask("BUSY")
ST_ERROR = REG["STATUS"].mask("ERROR")


def load_config() -> dict:
    """The run configuration (``verif.runner.write_run_config``): {"name", "build",
    "params", "scale", "cov_dir", "sim", "timing", "options", "reproduce"}."""
    path = os.environ.get("KVASU_CONFIG")
    cfg = {"name": "default", "params": {}, "scale": 1.0, "cov_dir": None, "sim": "?"}
    if path:
        cfg.update(json.loads(Path(path).read_text()))
    return cfg


def run_info(cfg: dict, seed: int, test: str) -> dict:
    """What names the run of the test ``test`` in a mismatch report
    (``Scoreboard.diff_text``), from the run configuration ``cfg`` (``load_config``)."""
    return {"seed": seed, "config": cfg["name"], "sim": cfg.get("sim"), "test": test,
            "build": cfg.get("build"), "reproduce": cfg.get("reproduce")}


def get_seed() -> int:
    seed = env_seed(SEED_VARIABLES)
    return cocotb.RANDOM_SEED % (1 << 32) if seed is None else seed


class KvAsuTB:
    """The testbench of one cocotb test over ``dut``.

    Attributes: ``p`` (the build's ``Params``), ``seed``, ``rng``, ``scale``, ``space``
    (``AddrSpace``), ``codec``, ``cov``, ``driver``, ``scoreboard``, ``registers``, and,
    replaced at every reset, ``model`` (the golden model) and ``mirror`` (the register
    mirror over it); ``active`` is the committed configuration by register name.
    """

    def __init__(self, dut, seed=None, cfg=None, name="test"):
        from golden_model import KvAsuModel
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
        info = run_info(self.cfg, self.seed, name)
        self.scoreboard = Scoreboard(self.p, self.codec, self.space, self.cov, self.log,
                                     info, lambda: self.active,
                                     build_latency=self.cfg.get("timing", {}).get("latency"))
        self.registers = RegisterAgent(None, self.cov, self.cycle_now, info)  # axil: start()
        self.driver = StreamDriver(dut, self.p, self.codec, self.scoreboard, self.registers,
                                   self.cov, self.log, self.seed, self._fresh_state)
        self._fresh_state()

    # ---------------- bring-up
    def new_model(self):
        """A golden model built as the DUT was (``mode_reset`` of the run configuration's
        build options, D13 "The reset mode")."""
        options = self.cfg.get("options") or {}
        return self._model_cls(params=self.p, mode_reset=int(options.get("mode_reset", 0)))

    @property
    def predictor_build(self) -> bool:
        """The DUT is a build with the predictor mode (``CoreOptions.predictor``,
        docs/spec-predictor.md P2): the mirror lets ``POLICY.MODE = 1`` commit."""
        return bool((self.cfg.get("options") or {}).get("predictor", False))

    def _fresh_state(self):
        """The checkers' state after a DUT reset: a new model and mirror, nothing queued."""
        self.model = self.new_model()
        self.mirror = RegisterMirror(self.p, self.model, self.driver.generations,
                                     predictor=self.predictor_build)
        self.scoreboard.reset(self.model)
        self.registers.reset(self.mirror)
        self.driver.clear()
        if self.driver.front is not None:
            self.driver.front.reset(self.model, self.mirror, sweeps=self.driver.reset_sweeps)

    def use_front_door(self):
        """Decide every presented request by the admission rule of the non-blocking mode
        (D13, ``verif.tb.front.FrontDoor``) from now on; returns the ``FrontDoor``."""
        from golden_model.admission import BuildTiming
        from verif.tb.front import FrontDoor
        timing = self.cfg.get("timing")
        if not timing:
            raise RuntimeError("the run configuration has no build timing (verif/runner.py)")
        front = FrontDoor(BuildTiming(**timing), self.driver.generations)
        front.reset(self.model, self.mirror)
        self.driver.front = front
        return front

    @property
    def active(self) -> dict:
        """The committed configuration, by register name."""
        return self.mirror.active()

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
        self.registers.axil = self.axil
        Clock(dut.clk, PERIOD_PS, unit="ps").start(start_high=False)
        self._loop_task = cocotb.start_soon(self.driver.run())
        self.log.info("seed %d, config %s %s", self.seed, self.cfg["name"], self.p.as_dict())
        await self.reset(4)

    async def reset(self, cycles=4):
        """Synchronous reset for ``cycles`` rising edges, now (also mid-traffic)."""
        await self.driver.reset(cycles)

    def cycle_now(self):
        """Cycle number of the most recent rising edge (at or before now)."""
        return self.driver.cycle_now()

    def tick_start(self, tick):
        return tick << self.p.TICK_SHIFT

    def tick_of(self, cycle):
        return cycle >> self.p.TICK_SHIFT

    # ---------------- stream API
    def send(self, op, addr=0, min_tlevel=0, gap=0, at=None):
        self.driver.send_items([ReqItem(op, addr, min_tlevel, gap, at)])

    def send_items(self, items):
        self.driver.send_items(items)

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
        n0 = self.scoreboard.received
        self.send_items(items)
        await self.drain()
        assert self.scoreboard.received - n0 == len(items)
        history = self.scoreboard.history
        return [(c, e) for c, _, e in list(history)[len(history) - len(items):]]

    async def drain(self, timeout_cycles=200000):
        """Wait until every queued request is accepted and answered."""
        n = 0
        while self.driver.busy():
            await RisingEdge(self.dut.clk)
            n += 1
            if n > timeout_cycles:
                raise AssertionError(
                    f"drain timeout: {len(self.driver.reqq)} queued, cur={self.driver.cur}, "
                    f"{len(self.scoreboard.expected)} responses outstanding (lost?), "
                    f"seed={self.seed}")
        await self.driver.idle_ev.wait()

    async def observe(self, addr, **kw):
        return await self.do(OBSERVE, addr, **kw)

    async def do(self, op, addr=0, min_tlevel=0, gap=0):
        """Send one request, wait for its response, return the (checked) response dict."""
        self.send(op, addr, min_tlevel, gap)
        await self.drain()
        return self.scoreboard.history[-1][2]

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
        return r, self.scoreboard.last_accept_cycle

    def spread_lines(self, n):
        """``n`` lines whose homes are PROBE apart (no window overfills for n <= ENTRIES)."""
        p = self.p
        out = []
        for i in range(n):
            out += self.space.lines_with_h((i * p.PROBE) % p.ENTRIES, 1,
                                           self.active["HASH_SEED"], exclude=out)
        return out

    def spread_addrs(self, n):
        """A byte address in each of :meth:`spread_lines` ``(n)`` (what a request carries)."""
        return [self.space.addr(line) for line in self.spread_lines(n)]

    # ---------------- registers (tb.registers, checked against tb.mirror)
    async def rd(self, addr):
        return await self.registers.rd(addr)

    async def wr_bytes(self, addr, data: bytes):
        return await self.registers.wr_bytes(addr, data)

    async def read_reg(self, name, check=True):
        return await self.registers.read_reg(name, check)

    async def write_reg(self, name, value, nbytes=4, byte=0):
        return await self.registers.write_reg(name, value, nbytes, byte)

    async def write_ctrl(self, value, nbytes=4, byte=0):
        return await self.registers.write_ctrl(value, nbytes, byte)

    async def commit(self, **cfg):
        """Write the given shadow registers (names as in regmap) and commit."""
        return await self.registers.commit(**cfg)

    async def wait_not_busy(self, limit=100000):
        await self.registers.wait_not_busy(limit)

    async def flush(self):
        """Drain, flush through CTRL (the model flushes at the write response), wait idle."""
        await self.drain()
        await self.write_ctrl(FLUSH | (ENABLE if self.mirror.enable else 0))
        await self.wait_not_busy()

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
    def finish(self, *, responses: bool = True):
        """End of a test: every response arrived, none left over, the coverage written;
        with ``responses`` (every test that sends requests) at least one response was
        compared, so that a test whose stimulus came to nothing fails instead of passing."""
        self.driver.finish()
        self.cov.hit("requests.accepted", 0)
        self.log.info("%s: %d requests accepted, %d responses checked, longest rsp stall %d",
                      self.name, self.scoreboard.accepted, self.scoreboard.received,
                      self.driver.max_stall)
        if self.scoreboard.expected:
            raise Mismatch(f"{len(self.scoreboard.expected)} responses never arrived (lost); "
                           f"seed {self.seed}")
        if int(self.dut.rsp__valid.value):
            raise Mismatch(f"rsp.valid high at the end with nothing outstanding; seed {self.seed}")
        if responses and not self.scoreboard.received:
            raise Mismatch(f"{self.name}: no response compared; seed {self.seed}")
        cov_dir = self.cfg.get("cov_dir")
        if cov_dir:
            self.cov.bins["requests.accepted"] = self.scoreboard.accepted
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


def tb_test(timeout_ms=None, *, skip=None, responses=True):
    """Decorator: a cocotb test that gets a started ``KvAsuTB`` and finishes it.

    ``responses``: the test sends requests, so it fails if no response was compared
    (``KvAsuTB.finish``); ``False`` for a test of the register port alone.

    ``skip``: a function of the run configuration (``load_config()``, with ``Params`` of it
    as ``cfg["p"]``) that returns why the test does not apply to this run, or ``None``; a
    test it rules out is reported as skipped (``cocotb.skipif``), not as a pass that did
    nothing."""
    timeout_ms = timeout_ms or _default_timeout_ms()
    reason = None
    if skip is not None:
        cfg = load_config()
        reason = skip({**cfg, "p": Params(**cfg["params"])})

    def deco(fn):
        async def wrapper(dut):
            if reason:      # run all the same: selected by name (cocotb then runs it)
                logging.getLogger(f"kvasu.{fn.__name__}").warning("not run: %s", reason)
                return
            tb = KvAsuTB(dut, name=fn.__name__)
            await tb.start()
            await fn(tb)
            await tb.drain()
            tb.finish(responses=responses)
        wrapper.__name__ = fn.__name__
        wrapper.__qualname__ = fn.__qualname__
        wrapper.__doc__ = fn.__doc__
        wrapper.__module__ = fn.__module__
        test = cocotb.test(timeout_time=timeout_ms, timeout_unit="ms")(wrapper) \
            if timeout_ms else cocotb.test()(wrapper)
        return cocotb.skipif(True, reason=reason)(test) if reason else test
    return deco

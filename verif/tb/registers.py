# SPDX-License-Identifier: Apache-2.0
"""AXI4-Lite register accesses of the cocotb testbench, each checked against the register
mirror (``verif.regmirror``, decision D8).

The mirror predicts every write's response code and applies its effect (shadow update,
commit or its refusal, flush, clear statistics, error bit, enable) to the golden model at
the edge ``f`` at which its write response is first offered (``BVALID`` high; D13 "The
register": a committed ``MODE`` decides from ``f``; "Statistics around CLEAR_STATS": a drop
at ``f`` or later counts after the clear), which the stream driver reports
(``response_offered``) before the step of that edge, so that a request at the same edge is
ordered after it. ``f`` is the B handshake edge ``b`` while ``BREADY`` is high; with
``BREADY`` low, ``b`` comes later, and no request is taken at ``f .. b`` of an action write
(D13 rule 4), so only the mode, ``ENABLE`` (a CTRL write of it alone, D13 rule 1) and the
drops tell the two apart. Reads through ``read_reg`` are compared with the mirror's
prediction.
"""

from __future__ import annotations

import collections

from cocotbext.axi import AxiResp

from regmap import REG

from .coverage import Coverage
from .scoreboard import Mismatch

__all__ = ["RegisterAgent"]

CTRL = REG["CTRL"]
STATUS_BUSY = REG["STATUS"].mask("BUSY")


class RegisterAgent:
    """Register accesses through ``axil`` (a cocotbext-axi ``AxiLiteMaster``).

    ``mirror`` (a ``RegisterMirror``) is set by ``reset`` after every DUT reset;
    ``cycle_now()`` gives the cycle of the most recent rising edge; ``run_info`` names the
    run in error messages. ``pending_writes`` holds the writes in flight in issue order,
    which is the order of their B responses; ``on_write`` (set by the stream driver) is
    called when a write is issued, so that the driver samples the B channel in every cycle
    while one is in flight.
    """

    def __init__(self, axil, coverage: Coverage, cycle_now, run_info: dict):
        self.axil, self.coverage, self.cycle_now = axil, coverage, cycle_now
        self.run_info = run_info
        self.mirror = None
        self.pending_writes = collections.deque()
        self.on_write = None
        # edges from the first offer of each write response to its B handshake (b - f):
        # nonzero only while the master holds BREADY low
        self.b_waits = collections.Counter()

    def reset(self, mirror):
        self.mirror = mirror
        self.pending_writes.clear()

    # ---------------- raw accesses
    async def rd(self, addr):
        """One read; returns ``(data, resp)`` unchecked."""
        r = await self.axil.read(addr, 4)
        reg, hi = self.mirror.decode(addr)
        if reg is not None and reg.wide and not hi:
            self.mirror.hi_latch_live = True     # the latch now holds a sample not predicted
        return int.from_bytes(r.data, "little"), r.resp

    async def wr_bytes(self, addr, data: bytes):
        """A write of ``data`` at byte address ``addr`` (strobes for those bytes only); its
        response code must be the mirror's. Returns the response code."""
        lane = addr & 3
        word = int.from_bytes(data, "little") << (8 * lane)
        strb = ((1 << len(data)) - 1) << lane
        reg, _ = self.mirror.decode(addr)
        is_ctrl = reg is CTRL
        action = is_ctrl and self.mirror.ctrl_effect(word, strb).action
        # every write is applied at the edge its response is first offered (f)
        entry = {"ctrl": action, "done": False, "applied": False, "offered": None}

        def apply(cycle):
            if not is_ctrl:
                return self.mirror.write(cycle, addr, word, strb)
            effect = self.mirror.ctrl_effect(word, strb)
            seed = self.mirror.active()["HASH_SEED"]
            resp = self.mirror.write(cycle, addr, word, strb)
            self.coverage.sample_ctrl(effect, self.mirror.active()["HASH_SEED"] != seed)
            return resp

        entry["action"] = apply
        self.pending_writes.append(entry)
        if self.on_write is not None:
            self.on_write()
        r = await self.axil.write(addr, data)
        if not entry["done"]:
            self.apply_write(entry, self.cycle_now())
        want = AxiResp(int(entry["result"]))
        if r.resp != want:
            raise Mismatch(f"write {word:#010x} (strobes {strb:#06b}) to {addr:#05x} got "
                           f"{r.resp!r}, want {want!r}; shadow {self.mirror.shadow}; "
                           f"seed {self.run_info['seed']}, test {self.run_info['test']}")
        return r.resp

    def response_offered(self, entry, cycle):
        """The write response of ``entry`` is offered (``BVALID``) at ``cycle``: the first
        time, that is its edge ``f``, at which it is applied to the mirror."""
        if entry["offered"] is None:
            entry["offered"] = cycle
            self._apply(entry, cycle)

    def apply_write(self, entry, cycle):
        """The B handshake of ``entry`` happened at ``cycle`` (its edge ``b``): it leaves
        the writes in flight, applied now if it was not at its edge ``f``."""
        if self.pending_writes and self.pending_writes[0] is entry:
            self.pending_writes.popleft()
        else:
            self.pending_writes.remove(entry)
        entry["done"] = True
        entry["cycle"] = cycle
        if entry["offered"] is not None:
            self.b_waits[cycle - entry["offered"]] += 1
        if not entry["applied"]:
            self._apply(entry, cycle)

    def _apply(self, entry, cycle):
        entry["applied"] = True
        entry["result"] = entry["action"](cycle)

    # ---------------- registers by name
    def expected_word(self, addr):
        """The mirror's read data of the single (not 64-bit) word at ``addr``."""
        return self.mirror.read(addr)[1]

    async def read_reg(self, name, check=True):
        """Read a register (both words of a 64-bit one, LO first); with ``check``, compare
        with the mirror (at a quiescent point: statistics and occupancy are the model's)."""
        reg = REG[name]
        words = []
        for off in reg.offsets:
            r = await self.axil.read(off, 4)
            value = int.from_bytes(r.data, "little")
            exp_resp, exp = self.mirror.read(off)
            if r.resp != AxiResp(int(exp_resp)):
                raise AssertionError(f"read of {name} @ {off:#05x} got {r.resp!r}, "
                                     f"want {AxiResp(int(exp_resp))!r}")
            words.append((value, exp))
        value = sum(v << (32 * i) for i, (v, _) in enumerate(words))
        if check and all(exp is not None for _, exp in words):
            exp = sum(e << (32 * i) for i, (_, e) in enumerate(words))
            if value != exp:
                raise Mismatch(f"register {name} @ {reg.offset:#05x}: expected {exp:#x}, "
                               f"got {value:#x} (seed {self.run_info['seed']}, "
                               f"test {self.run_info['test']})")
        return value

    async def write_reg(self, name, value, nbytes=4, byte=0):
        """Write ``nbytes`` bytes of ``value`` starting at byte lane ``byte`` (strobes)."""
        if name == "CTRL":
            raise ValueError("use write_ctrl")
        return await self._write_lanes(REG[name], value, nbytes, byte)

    async def write_ctrl(self, value, nbytes=4, byte=0):
        """A CTRL write; the model takes its actions at the write response (D8)."""
        return await self._write_lanes(CTRL, value, nbytes, byte)

    async def _write_lanes(self, reg, value, nbytes, byte):
        data = ((value >> (8 * byte)) & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "little")
        return await self.wr_bytes(reg.offset + byte, data)

    async def commit(self, **cfg):
        """Write the given shadow registers (names as in regmap) and commit."""
        for name, value in cfg.items():
            await self.write_reg(name, value)
        enable = CTRL.mask("ENABLE") if self.mirror.enable else 0
        return await self.write_ctrl(CTRL.mask("COMMIT") | enable)

    async def wait_not_busy(self, limit=100000):
        for _ in range(limit):
            value, _ = await self.rd(REG["STATUS"].offset)
            if not value & STATUS_BUSY:
                return
        raise AssertionError("STATUS.BUSY stuck")

# SPDX-License-Identifier: Apache-2.0
"""The scoreboard of the cocotb testbench: every accepted request goes to the golden model
with its acceptance cycle; every DUT response is compared with the model's response field
by field (all fields, decision D5), in order, and nothing may be lost or duplicated."""

from __future__ import annotations

import collections

from regmap import Params

from .addresses import AddrSpace
from .coverage import Coverage

__all__ = ["Mismatch", "Scoreboard"]


class Mismatch(AssertionError):
    """The DUT disagreed with the golden model or the register mirror."""


class Scoreboard:
    """Expected responses of the requests in flight, over a golden model.

    ``run_info`` names the run in a mismatch report (``seed``, ``config``, ``sim``,
    ``test``); ``active_config()`` returns the committed configuration by register name;
    ``min_latency`` (the build's request latency, or ``None``): a response sooner than that
    many cycles after its request's acceptance is a mismatch (spec section 4: the latency
    is fixed; back-pressure can only make a response later).

    Attributes: ``model`` (set by ``reset``), ``expected`` (``(acceptance cycle, item,
    expected response dict)`` in order), ``history`` (the last 8192 answered, same form),
    ``latency`` (response cycle - acceptance cycle -> count), ``accepted``, ``received``,
    ``last_accept_cycle``.
    """

    def __init__(self, p: Params, codec, space: AddrSpace, coverage: Coverage, log,
                 run_info: dict, active_config, *, min_latency: int | None = None):
        self.p, self.codec, self.space, self.coverage, self.log = p, codec, space, coverage, log
        self.min_latency = min_latency
        self.run_info = run_info
        self.active_config = active_config
        self.model = None
        self.expected = collections.deque()
        self.history = collections.deque(maxlen=8192)
        self.latency = collections.Counter()
        self.accepted = 0
        self.received = 0
        self.last_accept_cycle = None

    def reset(self, model):
        """After a DUT reset: a fresh ``model``, nothing outstanding."""
        self.model = model
        self.expected.clear()
        self.last_accept_cycle = None

    def accept(self, item, cycle):
        """``item`` (a ``ReqItem``) was accepted at ``cycle``."""
        pre_occ = self.model.occupancy
        gap = None if self.last_accept_cycle is None else cycle - self.last_accept_cycle
        exp = self.model.request(cycle, item.op, item.addr, min_tlevel=item.min_tlevel).as_dict()
        req = {"op": item.op, "addr": item.addr, "min_tlevel": item.min_tlevel}
        self.coverage.sample(req, exp, pre_occ, gap, self.active_config()["HASH_SEED"],
                             self.space)
        self.expected.append((cycle, item, exp))
        self.accepted += 1
        self.last_accept_cycle = cycle

    def receive(self, word, cycle):
        """The DUT answered with payload ``word`` at ``cycle``."""
        got = self.codec.unpack_rsp(word)
        if not self.expected:
            raise Mismatch(self.diff_text(None, None, None, got, cycle,
                                          "response with no outstanding request "
                                          "(duplicated or spurious)"))
        acc_cycle, item, exp = self.expected.popleft()
        self.received += 1
        self.latency[cycle - acc_cycle] += 1
        self.history.append((acc_cycle, item, exp))
        if got != exp:
            raise Mismatch(self.diff_text(acc_cycle, item, exp, got, cycle, "response mismatch"))
        if self.min_latency is not None and cycle - acc_cycle < self.min_latency:
            raise Mismatch(self.diff_text(acc_cycle, item, exp, got, cycle,
                                          f"response {cycle - acc_cycle} cycles after its "
                                          f"request, sooner than the build's latency "
                                          f"{self.min_latency}"))

    def diff_text(self, acc_cycle, item, exp, got, cycle, what):
        """A mismatch report (also logged): the run, how to reproduce it, the fields."""
        info = self.run_info
        lines = [f"KV-ASU SCOREBOARD: {what}",
                 f"  seed={info['seed']} config={info['config']} sim={info['sim']} "
                 f"test={info['test']}",
                 f"  reproduce: KVASU_SEED={info['seed']} KVASU_TESTS={info['test']} "
                 f"KVASU_CONFIGS={info['config']} KVASU_SIMS={info['sim']} "
                 f".venv/bin/python -m pytest verif -k {info['sim']}",
                 f"  response at cycle {cycle}"]
        active = self.active_config()
        if item is not None:
            tag = self.space.tag_of(item.addr)
            lines.append(f"  request #{self.received} accepted at cycle {acc_cycle} "
                         f"(tick {acc_cycle >> self.p.TICK_SHIFT}): {item} tag={tag:#x} "
                         f"h={self.space.h(tag, active['HASH_SEED'])}")
            lines.append(f"  {'field':<14s} {'expected':>20s} {'got':>20s}")
            for n in self.codec.rsp_names:
                mark = "" if exp[n] == got[n] else "   <-- DIFF"
                lines.append(f"  {n:<14s} {exp[n]:>#20x} {got[n]:>#20x}{mark}")
        else:
            lines.append(f"  got: {got}")
        lines.append(f"  active config: {active}")
        lines.append("  previous responses (cycle, request, expected):")
        for c, it, e in list(self.history)[-8:]:
            lines.append(f"    {c:8d} {it!r:40s} {e}")
        text = "\n".join(lines)
        self.log.error(text)
        return text

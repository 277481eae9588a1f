# SPDX-License-Identifier: Apache-2.0
"""The request side of the non-blocking mode (docs/spec-decisions.md D13) in the cocotb
testbench.

``FrontDoor`` turns what the stream driver samples on the block's ports in each cycle (the
request presented, ``rsp.ready``, the AXI4-Lite write channel) into the events of the golden
model's admission rule (``golden_model.admission.Admission``), and says for each presented
request whether the block takes it or drops it. It never reads the RTL's decision: in the
mode ``req.ready`` is 1 and is only checked to be so; outside the mode the RTL's ``ready``
is compared with the rule's (the rule is the same, so this checks it on every blocking
test that uses a ``FrontDoor`` too).
"""

from __future__ import annotations

import collections

from golden_model.admission import Admission, BuildTiming
from regmap import REG

from verif.regmirror import TableGenerations

__all__ = ["FrontDoor"]

_CTRL = REG["CTRL"]


class FrontDoor:
    """D13's admission for one simulated block.

    ``timing``: the build's constants (``BuildTiming``); ``generations``: the block's
    ``TableGenerations`` (which flush sweeps). ``mirror`` and ``model`` are the register
    mirror and golden model in use (set by ``reset`` after every DUT reset).
    Counters: ``drops`` (predicted and given to the model), ``drop_reasons``, and, kept by
    the stream driver, ``presented`` and ``not_ready`` (presented with ``req.ready`` low).
    """

    def __init__(self, timing: BuildTiming, generations: TableGenerations):
        self.rule = Admission(timing)
        self.generations = generations
        self.mirror = self.model = None
        self.drops = 0
        self.drop_reasons = collections.Counter()
        # kept by the stream driver: requests presented, and presented while req.ready low
        self.presented = 0
        self.not_ready = 0
        self.first_presented = self.last_presented = None   # edges (first: reset by a user)
        self._aw = collections.deque()       # AW handshakes not yet paired: (edge, addr)
        self._w = collections.deque()        # W handshakes not yet paired: (edge, data, strb)
        self._writes = collections.deque()   # writes awaiting B: {"action", "data", "strb", "offered"}

    def reset(self, model, mirror, sweeps: bool = False):
        """After a DUT reset (the testbench's new model and mirror); ``sweeps``: the reset
        wraps the table generations, so its clear sweep follows (D12, D13 rule 5)."""
        self.model, self.mirror = model, mirror
        self.rule.reset(sweeps=sweeps)
        self._aw.clear()
        self._w.clear()
        self._writes.clear()

    @property
    def nonblocking(self) -> bool:
        return bool(self.model is not None and self.model.nonblocking)

    def sample_axi(self, edge, dut):
        """The AXI4-Lite write channel at ``edge`` (call before the register agent's
        ``response_offered`` / ``apply_write`` at the same edge, so that the mirror's shadow
        and generation count are those before the write)."""
        if int(dut.axil__awvalid.value) and int(dut.axil__awready.value):
            self._aw.append((edge, int(dut.axil__awaddr.value)))
        if int(dut.axil__wvalid.value) and int(dut.axil__wready.value):
            self._w.append((edge, int(dut.axil__wdata.value), int(dut.axil__wstrb.value)))
        while self._aw and self._w:
            (ea, addr), (ew, data, strb) = self._aw.popleft(), self._w.popleft()
            reg, _ = self.mirror.decode(addr)
            action = reg is _CTRL and self.mirror.ctrl_effect(data, strb).action
            if action:
                self.rule.action_write(max(ea, ew))
            self._writes.append({"action": action, "data": data, "strb": strb,
                                 "offered": False})
        if self._writes and int(dut.axil__bvalid.value):
            write = self._writes[0]
            if write["action"] and not write["offered"]:
                self.rule.write_offered(edge, sweeps=self._sweeps(write))
            write["offered"] = True
            if int(dut.axil__bready.value):
                self._writes.popleft()
                if write["action"]:
                    self.rule.write_done(edge)

    def _sweeps(self, write) -> bool:
        """Whether an action write applied now flushes with a generation wrap (D12)."""
        effect = self.mirror.ctrl_effect(write["data"], write["strb"])
        if effect.refused:
            return False
        return (self.mirror.flushes(effect)
                and self.generations.wraps_next)

    def rsp_offered(self, edge) -> bool:
        """The response port's ``valid`` the rule predicts at ``edge``."""
        return self.rule.rsp_offered(edge)

    def step(self, edge, op, rsp_ready) -> bool | None:
        """Edge ``edge``, request ``op`` presented (``None``: none): taken? (D13)."""
        predictor = self.model is not None and self.model.policy == "predictor"
        why = self.rule.blocked(edge, op, enable=bool(self.mirror.enable),
                                predictor=predictor) if op is not None else []
        taken = self.rule.step(edge, op, rsp_ready, nonblocking=self.nonblocking,
                               enable=bool(self.mirror.enable), predictor=predictor)
        if taken is False and self.nonblocking:
            self.drops += 1
            self.drop_reasons.update(why)
        return taken

# SPDX-License-Identifier: Apache-2.0
"""The scoreboard of the cocotb testbench: every accepted request goes to the golden model
with its acceptance cycle; every DUT response is compared with the model's response field
by field (all fields, decision D5), in order, and nothing may be lost or duplicated; with
the build's latency known, each response must be offered exactly when D13 rule 3 says."""

from __future__ import annotations

import collections
import shlex

from regmap import Params

from .addresses import AddrSpace
from .coverage import Coverage

__all__ = ["Mismatch", "Scoreboard", "reproduce_command"]


class Mismatch(AssertionError):
    """The DUT disagreed with the golden model or the register mirror."""


def reproduce_command(info: dict, test: str | None) -> str:
    """The command that runs again the run of ``info`` (a ``run_info``: its ``seed``,
    ``build`` and ``reproduce``), of the cocotb test ``test`` alone (``None``: of every test
    the run ran). ``reproduce`` (``verif.test_kv_asu.run_selection``, through the run
    configuration) holds the environment (``KVASU_MATRIX=full`` for a run only the full
    matrix has, the simulator and configuration) and the pytest arguments (the module and
    ``-k`` with the run's test id) that select exactly this run; a run started otherwise
    (``make sim``, a benchmark) has none, and the command is its own."""
    selection = info.get("reproduce")
    env = {"KVASU_SEED": info["seed"]}
    if test:
        env["KVASU_TESTS"] = test
    if not selection:
        return (" ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
                + f" and the command that started this run (build {info.get('build')})")
    env.update(selection["env"])
    return " ".join([*(f"{k}={shlex.quote(str(v))}" for k, v in env.items()),
                     ".venv/bin/python", "-m", "pytest",
                     *(shlex.quote(a) for a in selection["pytest"])])


class Scoreboard:
    """Expected responses of the requests in flight, over a golden model.

    ``run_info`` names the run in a mismatch report (``seed``, ``config``, ``sim``,
    ``test``, ``build``, ``reproduce``: ``verif.kvasu_tb.run_info``); ``active_config()``
    returns the committed configuration by register name; ``build_latency`` (the build's
    request latency ``L``, or ``None``: no timing checks).

    With ``build_latency`` given, the timing of the response stream is checked against the
    rule of docs/spec-decisions.md D13 rule 3 (the response FIFO, docs/rtl.md): the
    response of the request accepted at cycle ``a`` is offered (``rsp.valid``) from cycle
    ``due = max(a + L, h + 1)``, ``h`` the handshake cycle of the response before it (none
    after a reset), and stays offered until its handshake. So:

    * ``receive`` (a handshake) fails if it comes sooner than ``L`` cycles after the
      acceptance (spec section 4: the latency is fixed; back-pressure can only make a
      response later) or before ``due``;
    * ``check_offer`` (every sampled cycle without a handshake) fails if ``rsp.valid`` is
      high with nothing outstanding or before ``due``, or low at or after ``due`` (a
      response late or lost).

    A driver that calls ``check_offer`` in every cycle in which a response is outstanding
    thereby checks each handshake to be at exactly the first cycle from ``due`` on with
    ``rsp.ready`` high.

    Attributes: ``model`` (set by ``reset``), ``expected`` (``(acceptance cycle, item,
    expected response dict)`` in order), ``history`` (the last 8192 answered, same form),
    ``latency`` (response cycle - acceptance cycle -> count), ``accepted``, ``received``,
    ``last_accept_cycle``, ``last_handshake`` (the cycle of the last response handshake
    since the reset, or ``None``).
    """

    def __init__(self, p: Params, codec, space: AddrSpace, coverage: Coverage, log,
                 run_info: dict, active_config, *, build_latency: int | None = None):
        self.p, self.codec, self.space, self.coverage, self.log = p, codec, space, coverage, log
        self.build_latency = build_latency
        self.run_info = run_info
        self.active_config = active_config
        self.model = None
        self.expected = collections.deque()
        self.history = collections.deque(maxlen=8192)
        self.latency = collections.Counter()
        self.accepted = 0
        self.received = 0
        self.last_accept_cycle = None
        self.last_handshake = None

    def reset(self, model):
        """After a DUT reset: a fresh ``model``, nothing outstanding (the reset empties the
        response FIFO, D10, so the next response waits for no earlier handshake)."""
        self.model = model
        self.expected.clear()
        self.last_accept_cycle = None
        self.last_handshake = None

    def due(self):
        """The cycle from which the oldest outstanding response is to be offered, by D13
        rule 3; ``None`` with nothing outstanding or no latency given."""
        if not self.expected or self.build_latency is None:
            return None
        due = self.expected[0][0] + self.build_latency
        if self.last_handshake is not None and self.last_handshake >= due:
            due = self.last_handshake + 1
        return due

    def _due_text(self, due):
        """How ``due`` (of the oldest outstanding response) follows from the rule."""
        acc_cycle = self.expected[0][0]
        if self.last_handshake is None:
            return (f"due from cycle {due} = acceptance {acc_cycle} + latency "
                    f"{self.build_latency} (no handshake since the reset)")
        return (f"due from cycle {due} = max(acceptance {acc_cycle} + latency "
                f"{self.build_latency}, previous handshake {self.last_handshake} + 1)")

    def check_offer(self, valid, cycle):
        """``rsp.valid`` was ``valid`` at ``cycle``, a cycle without a response handshake:
        asserts that it is high only with a response outstanding and from its ``due``
        cycle on, and that it is high at and after that cycle (nothing late or lost)."""
        if not self.expected:
            if valid:
                raise Mismatch(self.diff_text(None, None, None, None, cycle,
                                              "rsp.valid high with no outstanding request "
                                              "(duplicated or spurious response)"))
            return
        if self.build_latency is None:
            return
        due = self.due()
        if bool(valid) == (cycle >= due):
            return
        acc_cycle, item, exp = self.expected[0]
        if valid:
            what = (f"response offered at cycle {cycle}, before it is "
                    f"{self._due_text(due)} (D13 rule 3)")
        else:
            what = (f"rsp.valid low at cycle {cycle}: the response is "
                    f"{self._due_text(due)} (D13 rule 3): late or lost")
        raise Mismatch(self.diff_text(acc_cycle, item, exp, None, cycle, what,
                                      number=self.received + 1))

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
        due = self.due()
        due_text = None if due is None or cycle >= due else self._due_text(due)
        acc_cycle, item, exp = self.expected.popleft()
        # the timing state moves on with the handshake even when a check below fails, so a
        # caller that catches the Mismatch (the scoreboard's self-check) keeps in step
        previous, self.last_handshake = self.last_handshake, cycle
        self.received += 1
        self.latency[cycle - acc_cycle] += 1
        self.history.append((acc_cycle, item, exp))
        if got != exp:
            raise Mismatch(self.diff_text(acc_cycle, item, exp, got, cycle, "response mismatch"))
        if self.build_latency is not None and cycle - acc_cycle < self.build_latency:
            raise Mismatch(self.diff_text(acc_cycle, item, exp, got, cycle,
                                          f"response {cycle - acc_cycle} cycles after its "
                                          f"request, sooner than the build's latency "
                                          f"{self.build_latency}"))
        if due_text is not None:
            raise Mismatch(self.diff_text(acc_cycle, item, exp, got, cycle,
                                          f"response handed over at cycle {cycle}, before "
                                          f"it is {due_text} (D13 rule 3; the handshake "
                                          f"before it at cycle {previous})"))

    def diff_text(self, acc_cycle, item, exp, got, cycle, what, number=None):
        """A mismatch report (also logged): the run, how to reproduce it, the fields
        (``number``: the request's, counted from 1 since the start; default: the last
        answered)."""
        info = self.run_info
        lines = [f"KV-ASU SCOREBOARD: {what}",
                 f"  seed={info['seed']} config={info['config']} sim={info['sim']} "
                 f"build={info.get('build')} test={info['test']}",
                 f"  reproduce: {reproduce_command(info, info['test'])}",
                 f"  response at cycle {cycle}" if got is not None else f"  at cycle {cycle}"]
        active = self.active_config()
        if item is not None:
            tag = self.space.tag_of(item.addr)
            number = self.received if number is None else number
            lines.append(f"  request #{number} accepted at cycle {acc_cycle} "
                         f"(tick {acc_cycle >> self.p.TICK_SHIFT}): {item} tag={tag:#x} "
                         f"h={self.space.h(tag, active['HASH_SEED'])}")
            if got is None:          # a timing report: no payload taken
                lines.append(f"  {'field':<14s} {'expected':>20s}")
                for n in self.codec.rsp_names:
                    value = exp.get(n)
                    shown = "?" if value is None else f"{value:#x}"
                    lines.append(f"  {n:<14s} {shown:>20s}")
            else:
                lines.append(f"  {'field':<14s} {'expected':>20s} {'got':>20s}")
                for n in self.codec.rsp_names:
                    mark = "" if exp[n] == got[n] else "   <-- DIFF"
                    lines.append(f"  {n:<14s} {exp[n]:>#20x} {got[n]:>#20x}{mark}")
        elif got is not None:
            lines.append(f"  got: {got}")
        lines.append(f"  active config: {active}")
        lines.append("  previous responses (cycle, request, expected):")
        for c, it, e in list(self.history)[-8:]:
            lines.append(f"    {c:8d} {it!r:40s} {e}")
        text = "\n".join(lines)
        self.log.error(text)
        return text

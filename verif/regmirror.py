# SPDX-License-Identifier: Apache-2.0
"""What the register block must answer, and what each write does to the golden model.

``RegisterMirror`` is the expected behaviour of docs/spec-decisions.md D8, written from the
register map (``regmap``) over a golden model: it predicts the response code and read data
of every AXI4-Lite access, and applies the effect of each write (shadow update, commit,
flush, clear statistics, error bit, enable) to the model at the moment of its write
response, which is where D8 puts it in the request order.

The legality rule of a commit and the effect of a CTRL write are regmap's
(``regmap.ctrl_write_effect``), the rule the golden model applies too. The mirror knows
nothing of how the RTL implements them: it is the checker's side.
"""

from __future__ import annotations

import enum

from regmap import (AXIL_ADDR_WIDTH, CONFIG_NAMES, MODE_DEFAULTS, REG, REGISTERS,
                    CtrlWriteEffect, Params, build_word, ctrl_write_effect)

__all__ = ["Resp", "RegisterMirror", "LIVE", "TableGenerations"]


class Resp(enum.IntEnum):
    OKAY = 0
    EXOKAY = 1
    SLVERR = 2
    DECERR = 3


#: Read data that depends on when the read happens (the cycle counter): not predicted.
LIVE = None

_BY_OFFSET = {}
for _reg in REGISTERS:
    for _i, _off in enumerate(_reg.offsets):
        _BY_OFFSET[_off] = (_reg, _i == 1)

_CTRL = REG["CTRL"]
_CONFIG_KEYS = {name: name.lower() for name in CONFIG_NAMES}


def _strobe(old: int, new: int, strb: int) -> int:
    mask = sum(0xFF << (8 * i) for i in range(4) if strb >> i & 1)
    return (old & ~mask) | (new & mask)


class TableGenerations:
    """Which flush or reset runs the clear sweep (docs/spec-decisions.md D12).

    A flush (CTRL ``FLUSH``, or a commit that changes ``HASH_SEED`` or, with the predictor
    mode, ``POLICY``) and a reset each start
    one of ``GENERATIONS`` table generations; the one that finds every generation used
    sweeps (``req.ready`` low, ``STATUS.BUSY``, for ``ENTRIES / PROBE`` cycles) and frees
    them all. The count survives reset, so one object lives as long as the simulated
    block does (from power-up), across its resets. It also holds the edges of the sweep it
    predicts (``sweep``), so that a reset during it counts nothing and restarts it
    (``reset``, D12), decided from this prediction, never from the DUT.
    """

    GENERATIONS = 16        # D12

    def __init__(self):
        self.used = 0
        # the edges (first, last) of the clear sweep the testbench predicts, counted from
        # the first edge with rst low after the last reset (D3), or None: none predicted
        self.sweep = None
        self.restarts = 0       # resets during a predicted sweep (each counted nothing)

    @property
    def wraps_next(self) -> bool:
        """Whether the next flush or reset that counts runs the clear sweep (it finds every
        generation used)."""
        return self.used == self.GENERATIONS - 1

    def untrack(self) -> bool:
        """A flush or reset now; True if it runs the clear sweep."""
        if self.wraps_next:
            self.used = 0
            return True
        self.used += 1
        return False

    def flush_sweeps(self, f: int, rows: int) -> bool:
        """A flush whose write response is first offered at edge ``f``: counts it
        (``untrack``); True if it sweeps, which it then does at edges ``f + 1 .. f + rows``
        (D13 rule 5)."""
        sweeps = self.untrack()
        if sweeps:
            self.sweep = (f + 1, f + rows)
        return sweeps

    def sweeping(self, edge: int | None) -> bool:
        """Whether the predicted clear sweep runs at ``edge`` (``None``: an edge of no known
        count, as the first reset of a simulation: no sweep predicted)."""
        return (edge is not None and self.sweep is not None
                and self.sweep[0] <= edge <= self.sweep[1])

    def reset(self, edge: int | None, rows: int) -> bool:
        """A reset whose first edge with ``rst`` high is ``edge`` (counted as ``sweeping``
        counts; ``None``: not known, at the start of a simulation or of a test); True if
        the clear sweep runs after it, at edges ``0 .. rows - 1`` of the new count. D12: a
        reset while a sweep runs (a reset's or a flush's) counts nothing and restarts the
        sweep; any other reset counts as a flush (``untrack``)."""
        if self.sweeping(edge):
            self.restarts += 1
            sweeps = True
        else:
            sweeps = self.untrack()
        self.sweep = (0, rows - 1) if sweeps else None
        return sweeps


class RegisterMirror:
    """Expected register behaviour of one KV-ASU over ``model`` (a ``KvAsuModel``).

    ``generations``: the block's ``TableGenerations`` (kept across resets by the caller);
    every applied flush counts in it, and ``sweeps`` counts the flushes that swept.

    ``predictor``: the block is a build with the predictor mode (``CoreOptions.predictor``,
    docs/spec-predictor.md P2): ``POLICY.MODE = 1`` commits (else it is refused) and
    ``P_POLICIES`` says so.

    ``model`` must start in the article's policy, as the block does after reset
    (spec-predictor.md P2: ``POLICY = ACT_POLICY = 0``); the mirror switches it with the
    commits it sees, and a ``ValueError`` says so for a model built in another."""

    def __init__(self, params: Params, model, generations: TableGenerations | None = None,
                 *, predictor: bool = False):
        if not isinstance(predictor, bool):
            raise TypeError(f"predictor must be a bool, not {predictor!r}")
        if int(getattr(model, "policy_register", MODE_DEFAULTS["POLICY"])) != MODE_DEFAULTS["POLICY"]:
            raise ValueError("the model must start in the article's policy (POLICY = 0), as "
                             "the block does after reset; commit POLICY through the mirror")
        self.params = params
        self.model = model
        self.predictor = predictor
        self.generations = generations if generations is not None else TableGenerations()
        self.sweeps = 0
        self.reset()

    def reset(self) -> None:
        """The state after a hardware reset (the caller resets or replaces the model)."""
        self.shadow = {**self.params.defaults, **MODE_DEFAULTS}
        # the build's reset mode (D13 "The reset mode"), as the model was built
        self.shadow["MODE"] = int(getattr(self.model, "mode_reset", MODE_DEFAULTS["MODE"]))
        self.enable = 1
        self.error = 0
        self.hi_latch = 0
        self.hi_latch_live = False   # the latch holds a CYCLE high word: not predictable

    # -- the configuration -----------------------------------------------------------------
    def active(self) -> dict:
        """The committed configuration, by register name (``CONFIG_NAMES``), and the
        committed ``MODE`` (D13) and ``POLICY`` (spec-predictor.md P2)."""
        cfg = self.model.config
        get = cfg.get if isinstance(cfg, dict) else (lambda k: getattr(cfg, k))
        active = {name: int(get(key)) for name, key in _CONFIG_KEYS.items()}
        active["MODE"] = int(getattr(self.model, "mode", MODE_DEFAULTS["MODE"]))
        active["POLICY"] = int(getattr(self.model, "policy_register", MODE_DEFAULTS["POLICY"]))
        return active

    # -- accesses ----------------------------------------------------------------------------
    def decode(self, addr: int):
        """``(register, is_high_word)`` at byte address ``addr``, or ``(None, False)``."""
        addr &= (1 << AXIL_ADDR_WIDTH) - 1
        return _BY_OFFSET.get(addr & ~3, (None, False))

    def ctrl_effect(self, data: int, strb: int = 0xF) -> CtrlWriteEffect:
        """What a CTRL write of ``data`` would do now (with the current shadow set)."""
        return ctrl_write_effect(self.params, self.shadow, data, strb,
                                 predictor=self.predictor)

    def is_action(self, kind: str, addr: int, data: int, strb: int) -> bool:
        """Is this a CTRL write with an action bit, which D8 orders between requests?"""
        reg, _ = self.decode(addr)
        return kind == "write" and reg is _CTRL and self.ctrl_effect(data, strb).action

    def write(self, cycle: int, addr: int, data: int, strb: int = 0xF) -> Resp:
        """Apply a write answered at ``cycle``; return the expected response code.
        ``cycle`` is the edge ``f`` at which its write response is first offered (D8,
        D13 "The register": the effect of an action write, a committed ``MODE`` and
        ``CLEAR_STATS`` among them, decides from ``f``; a flush that sweeps does so at
        ``f + 1 .. f + ROWS``, D13 rule 5)."""
        reg, _hi = self.decode(addr)
        if reg is None:
            return Resp.DECERR
        if reg.access == "ro":
            return Resp.SLVERR
        if reg.config or reg.mode:
            self.shadow[reg.name] = _strobe(self.shadow[reg.name], data, strb)
            return Resp.OKAY
        assert reg is _CTRL
        effect = self.ctrl_effect(data, strb)
        if effect.refused:
            self.error = 1
            return Resp.SLVERR
        flushes = self.flushes(effect)
        if effect.commit:
            # model.commit flushes by itself when the seed or POLICY.MODE changes (spec
            # section 7, spec-predictor.md P2). A build without the predictor never gets
            # here with POLICY.MODE = 1 (refused above), so its model is never told.
            policy = ({"policy": self.shadow.get("POLICY", MODE_DEFAULTS["POLICY"])}
                      if self.predictor else {})
            self.model.commit(cycle, mode=self.shadow["MODE"], **policy,
                              **{_CONFIG_KEYS[k]: self.shadow[k] for k in CONFIG_NAMES})
        if flushes:
            # (``cycle`` is the edge the write response is first offered, D13 ``f``)
            self.sweeps += self.generations.flush_sweeps(
                cycle, self.params.ENTRIES // self.params.PROBE)
        if effect.clear_error:
            self.error = 0
        if effect.clear_soft_error:
            self._soft_call("clear_soft_errors")
        if effect.flush:
            self.model.flush()
        if effect.clear_stats:
            self.model.clear_stats()
        if effect.enable is not None:
            self.enable = effect.enable
        return Resp.OKAY

    def flushes(self, effect) -> bool:
        """Whether a CTRL write of ``effect`` (``ctrl_effect``, not refused), applied now,
        flushes the table: ``FLUSH``, or a commit that changes ``HASH_SEED`` or
        ``POLICY`` (D12, spec-predictor.md P2)."""
        if effect.flush:
            return True
        active = self.active()
        return bool(effect.commit) and (
            self.shadow["HASH_SEED"] != active["HASH_SEED"]
            or self.shadow.get("POLICY", MODE_DEFAULTS["POLICY"]) != active["POLICY"])

    def read(self, addr: int, flushing: bool = False):
        """Expected ``(resp, data)`` of a read; ``data`` is ``LIVE`` where unpredictable.

        Statistics and occupancy are predicted from the model, so compare them only when
        no request is in flight.
        """
        reg, hi = self.decode(addr)
        if reg is None:
            return Resp.DECERR, 0
        if reg.wide:
            if hi:
                return Resp.OKAY, (LIVE if self.hi_latch_live else self.hi_latch)
            if reg.name == "ERR_FIRST_CYCLE":
                first = self._soft().first
                if first is not None and first.cycle is None:
                    self.hi_latch_live = True
                    return Resp.OKAY, LIVE
                value = 0 if first is None else first.cycle
                self.hi_latch, self.hi_latch_live = value >> 32 & 0xFFFF_FFFF, False
                return Resp.OKAY, value & 0xFFFF_FFFF
            if reg.stat is None:                      # CYCLE
                self.hi_latch_live = True
                return Resp.OKAY, LIVE
            value = int(self._stat(reg.stat))
            self.hi_latch, self.hi_latch_live = value >> 32 & 0xFFFF_FFFF, False
            return Resp.OKAY, value & 0xFFFF_FFFF
        if reg.name == "CTRL":
            return Resp.OKAY, self.enable << _CTRL.field("ENABLE").bit
        if reg.name == "STATUS":
            status = REG["STATUS"]
            soft = self._soft()
            return Resp.OKAY, (int(flushing or soft.recovering) << status.field("BUSY").bit |
                               self.error << status.field("ERROR").bit |
                               int(soft.sticky) << status.field("SOFT_ERROR").bit |
                               int(soft.recovering) << status.field("RECOVERING").bit)
        if reg.name.startswith("ERR_"):
            return Resp.OKAY, self._soft_register(reg.name)
        if reg.name == "OCCUPANCY":
            return Resp.OKAY, int(self.model.occupancy)
        if reg.config or reg.mode:
            return Resp.OKAY, self.shadow[reg.name]
        if reg.active_of:
            return Resp.OKAY, self.active()[reg.active_of]
        if reg.build is not None:
            return Resp.OKAY, build_word(reg.build, predictor=self.predictor)
        return Resp.OKAY, self.params.value_of(reg.reset)

    # -- soft errors (D11) --------------------------------------------------------------------
    def _soft(self):
        """The model's soft-error registers (none for a model without them)."""
        soft = getattr(self.model, "soft_errors", None)
        if soft is None:
            from golden_model.soft_errors import SoftErrorState
            return SoftErrorState().snapshot()
        return soft

    def _soft_call(self, name):
        if hasattr(self.model, name):
            getattr(self.model, name)()

    def _soft_register(self, name):
        """ERR_* as the model holds them; ERR_LAST_RECOVERY (a length the model does not
        keep) is predicted only while no error has been told (0)."""
        soft = self._soft()
        first = soft.first
        if name == "ERR_UNCORRECTED":
            return soft.uncorrected
        if name == "ERR_CORRECTED":
            return soft.corrected
        if name == "ERR_FIRST_MEM":
            if first is None:
                return 0
            reg = REG["ERR_FIRST_MEM"]
            return (reg.field("MEM_ID").put(first.mem_id)
                    | reg.field("UNCORRECTABLE").put(int(first.uncorrectable)))
        if name == "ERR_FIRST_ADDR":
            return 0 if first is None else first.address
        if name == "ERR_LAST_RECOVERY":
            return 0 if soft.uncorrected == 0 else LIVE
        raise AssertionError(name)  # pragma: no cover

    def _stat(self, name):
        stats = self.model.stats
        return stats[name] if isinstance(stats, dict) else getattr(stats, name)

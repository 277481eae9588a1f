# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU interface definition, loaded from ``kv_asu.toml``.

This package is data, not behaviour: register addresses and fields, op codes, the bit layout
of the request and response stream payloads, parameter defaults and the legal parameter
space. The RTL (``hdl``), the golden model (``golden_model``), the testbenches and the docs
all read it, so that a register or a field is defined in exactly one place. Nothing here
decides how a request is answered; that lives, twice and independently, in the model and
in the RTL.

Main entry points:

``Params(**overrides)`` / ``param_overrides(items)``
    A validated, frozen set of elaboration parameters (spec section 2) with the derived
    values ``SLOT_WIDTH``, ``WMAX``, ``COUNT_MAX`` and the reset configuration; the
    overrides a command line's ``--param NAME=VALUE`` items give.
``REGISTERS`` / ``REG``
    Every register, in address order / by name.
``OPS``
    Op code by name.
``request_fields(params)`` / ``response_fields(params)``
    ``[(name, width), ...]`` least significant first.
``config_violations(params, config)`` / ``config_legal(params, config)``
    The legality rule of a configuration (``CONFIG_CHAINS``), the one the golden model,
    the register mirror and the testbenches apply.
``MODE_NAMES`` / ``MODE_DEFAULTS`` / ``mode_violations(shadow, predictor=...)``
    The behaviour-mode shadows (``POLICY``, docs/spec-predictor.md P2; ``MODE``,
    docs/spec-decisions.md D13), committed with the configuration, and the rule that
    refuses a commit of a reserved bit (a field a build lacks counts as reserved).
``BUILD_OPTIONS`` / ``build_word(name, predictor=...)``
    The build options the map depends on (``predictor``) and the value of a register
    that is a constant of them (``P_POLICIES``).
``ctrl_write_effect(params, shadow, data, strb, predictor=...)``
    What a CTRL write does, including the refusal of a commit of an illegal set.

``config_violations``, ``mode_violations`` and ``ctrl_write_effect`` are rules over the
data rather than data, kept here so that the checkers and
the model state them once; the RTL implements them in hardware on its own and is checked
against them.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from .arguments import is_int

__all__ = [
    "SPEC", "ID", "RELEASE", "VERSION", "AXIL_ADDR_WIDTH", "OPS", "MEM_IDS", "MEM_ID_WIDTH",
    "PARAM_NAMES",
    "CONFIG_NAMES",
    "Params", "param_overrides", "Field", "Register", "REGISTERS", "REG", "STAT_REGISTERS", "STAT_NAMES",
    "request_fields", "response_fields", "CONFIG_CHAINS", "config_violations",
    "config_legal", "MODE_NAMES", "MODE_DEFAULTS", "SHADOW_NAMES", "mode_violations",
    "check_mode_reset", "BUILD_OPTIONS", "build_word", "field_built",
    "mode_defined",
    "CTRL_ACTIONS", "CtrlWriteEffect", "ctrl_write_effect",
]

_TOML = Path(__file__).with_name("kv_asu.toml")
SPEC = tomllib.loads(_TOML.read_text())

ID: int = SPEC["id"]
#: The IP release "major.minor.patch" (the package version in pyproject.toml).
RELEASE: str = SPEC["release"]


def _version_word(release: str) -> int:
    """The VERSION register: major << 16 | minor << 8 | patch, each part 0..255."""
    parts = release.split(".")
    if len(parts) != 3 or not all(p.isdigit() and int(p) < 256 for p in parts):
        raise ValueError(f"release must be major.minor.patch, each 0..255, not {release!r}")
    major, minor, patch = (int(p) for p in parts)
    return major << 16 | minor << 8 | patch


VERSION: int = _version_word(RELEASE)
AXIL_ADDR_WIDTH: int = SPEC["axil_addr_width"]
OPS: dict[str, int] = dict(SPEC["ops"])
#: The block-RAM memories of docs/spec-decisions.md D11, by name, with the ``MEM_ID`` that
#: ``ERR_FIRST_MEM`` reports (0: none).
MEM_IDS: dict[str, int] = dict(SPEC["soft_error_memories"])

#: Elaboration parameters, in spec order.
PARAM_NAMES = tuple(SPEC["parameters"])
#: Configuration registers applied by a commit, in register order.
CONFIG_NAMES = ("C3", "C2", "W3", "W2", "W1", "HASH_SEED")


def _is_pow2(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


@dataclasses.dataclass(frozen=True)
class Params:
    """A legal set of KV-ASU elaboration parameters (spec section 2).

    Any parameter not given takes its default from ``kv_asu.toml``; ``TAG_WIDTH`` defaults
    to ``ADDR_WIDTH - LINE_SHIFT``. Raises ``TypeError`` for a non-integer and
    ``ValueError`` for an illegal value or combination, naming the parameter.

    Derived attributes: ``SLOT_WIDTH`` (log2 ENTRIES), ``ROWS`` (ENTRIES / PROBE, the
    table's rows), ``BANK_BITS`` (log2 PROBE, the bits of a bank number), ``WMAX`` (largest
    legal window), ``COUNT_MAX`` (counter saturation value), ``defaults`` (the reset
    configuration as a dict over ``CONFIG_NAMES``).
    """

    ENTRIES: int = SPEC["parameters"]["ENTRIES"]
    PROBE: int = SPEC["parameters"]["PROBE"]
    ADDR_WIDTH: int = SPEC["parameters"]["ADDR_WIDTH"]
    LINE_SHIFT: int = SPEC["parameters"]["LINE_SHIFT"]
    TAG_WIDTH: int | None = None
    COUNT_WIDTH: int = SPEC["parameters"]["COUNT_WIDTH"]
    TS_WIDTH: int = SPEC["parameters"]["TS_WIDTH"]
    TICK_SHIFT: int = SPEC["parameters"]["TICK_SHIFT"]

    def __post_init__(self):
        for name in PARAM_NAMES:
            value = getattr(self, name)
            if name == "TAG_WIDTH" and value is None:
                continue
            if not is_int(value):
                raise TypeError(f"{name} must be an integer, not {value!r}")
            object.__setattr__(self, name, int(value))     # (a numpy integer as an int)
        if not 1 <= self.ADDR_WIDTH <= 128:
            raise ValueError(f"ADDR_WIDTH must be 1..128, not {self.ADDR_WIDTH}")
        if not 0 <= self.LINE_SHIFT < self.ADDR_WIDTH:
            raise ValueError(f"LINE_SHIFT must be 0..ADDR_WIDTH-1 ({self.ADDR_WIDTH - 1}), "
                             f"not {self.LINE_SHIFT}")
        if self.TAG_WIDTH is None:
            object.__setattr__(self, "TAG_WIDTH", self.ADDR_WIDTH - self.LINE_SHIFT)
        line_bits = self.ADDR_WIDTH - self.LINE_SHIFT
        if not 1 <= self.TAG_WIDTH <= min(64, line_bits):
            raise ValueError(f"TAG_WIDTH must be 1..min(64, ADDR_WIDTH - LINE_SHIFT) "
                             f"({min(64, line_bits)}), not {self.TAG_WIDTH}")
        if not _is_pow2(self.PROBE):
            raise ValueError(f"PROBE must be a power of two, not {self.PROBE}")
        if not _is_pow2(self.ENTRIES) or self.ENTRIES < 2:
            raise ValueError(f"ENTRIES must be a power of two of at least 2, not {self.ENTRIES}")
        if self.ENTRIES < self.PROBE:
            raise ValueError(f"ENTRIES ({self.ENTRIES}) must be at least PROBE ({self.PROBE})")
        if not 1 <= self.COUNT_WIDTH <= 32:
            raise ValueError(f"COUNT_WIDTH must be 1..32, not {self.COUNT_WIDTH}")
        if not 2 <= self.TS_WIDTH <= 24:
            raise ValueError(f"TS_WIDTH must be 2..24, not {self.TS_WIDTH}")
        if not 0 <= self.TICK_SHIFT <= 16:
            raise ValueError(f"TICK_SHIFT must be 0..16, not {self.TICK_SHIFT}")

    @property
    def SLOT_WIDTH(self) -> int:
        return self.ENTRIES.bit_length() - 1

    @property
    def ROWS(self) -> int:
        return self.ENTRIES // self.PROBE

    @property
    def BANK_BITS(self) -> int:
        return self.PROBE.bit_length() - 1

    @property
    def WMAX(self) -> int:
        return 2 ** (self.TS_WIDTH - 1) - 1

    @property
    def COUNT_MAX(self) -> int:
        return 2 ** self.COUNT_WIDTH - 1

    @property
    def defaults(self) -> dict[str, int]:
        """Reset configuration: the seed's 1080p preset, clamped to what fits."""
        d = SPEC["config_defaults"]
        return {
            "C3": min(d["C3"], self.COUNT_MAX),
            "C2": min(d["C2"], self.COUNT_MAX),
            "W3": min(d["W3_CYCLES"] >> self.TICK_SHIFT, self.WMAX),
            "W2": min(d["W2_CYCLES"] >> self.TICK_SHIFT, self.WMAX),
            "W1": min(d["W1_CYCLES"] >> self.TICK_SHIFT, self.WMAX),
            "HASH_SEED": d["HASH_SEED"],
        }

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in PARAM_NAMES}

    def value_of(self, name: str) -> int:
        """A parameter, derived value, config default or ``id``/``version`` by name."""
        if name == "id":
            return ID
        if name == "version":
            return VERSION
        if name in self.defaults:
            return self.defaults[name]
        return getattr(self, name)

    def width(self, expr) -> int:
        """Evaluate a width from ``kv_asu.toml``: an int or an expression over parameters."""
        if isinstance(expr, int):
            return expr
        names = {**self.as_dict(), "SLOT_WIDTH": self.SLOT_WIDTH}
        return int(eval(expr, {"__builtins__": {}}, names))  # the TOML is ours, not input


def param_overrides(items) -> dict[str, int]:
    """``{NAME: value}`` from the ``NAME=VALUE`` strings of a command line's ``--param``
    (names in any case, values in decimal, ``0x`` or ``0b``); a ``ValueError`` naming the
    item for an unknown name or a value that is not an integer. The values themselves are
    checked by ``Params``; a parameter given twice is refused too."""
    if isinstance(items, (str, bytes)) or not all(isinstance(i, str) for i in items):
        raise TypeError(f"param_overrides wants a list of 'NAME=VALUE' strings, not {items!r}")
    overrides = {}
    for item in items:
        given, sep, value = item.partition("=")
        name = given.strip().upper()
        if not sep or name not in PARAM_NAMES:
            why = "no '='" if not sep else f"no parameter {given.strip()!r}"
            raise ValueError(f"--param wants NAME=VALUE with NAME one of "
                             f"{', '.join(PARAM_NAMES)}, not {item!r} ({why})")
        if name in overrides:
            raise ValueError(f"--param {name} given twice")
        try:
            overrides[name] = int(value, 0)
        except ValueError:
            raise ValueError(f"--param {item}: {value!r} is not an integer") from None
    return overrides


#: The build options (``hdl.core.CoreOptions`` fields) the register map depends on: a
#: field with ``needs`` exists only in a build with that option, a register with ``build``
#: reads a constant of the options (``build_word``).
BUILD_OPTIONS = ("predictor",)


@dataclasses.dataclass(frozen=True)
class Field:
    """A field of a register: bits ``bit + width - 1 .. bit``."""

    name: str
    bit: int
    doc: str = ""
    reset: int = 0
    action: bool = False
    needs: str = ""             # a BUILD_OPTIONS name: the field exists only with it
    width: int = 1

    def __post_init__(self):
        if self.needs and self.needs not in BUILD_OPTIONS:
            raise ValueError(f"field {self.name}: needs {self.needs!r} is not one of "
                             f"{BUILD_OPTIONS}")
        if not (isinstance(self.width, int) and 1 <= self.width and 0 <= self.bit
                and self.bit + self.width <= 32):
            raise ValueError(f"field {self.name}: bits {self.bit} .. {self.bit + self.width - 1} "
                             f"do not lie in a 32-bit word")
        if not 0 <= self.reset < 1 << self.width:
            raise ValueError(f"field {self.name}: reset {self.reset} does not fit {self.width} bits")

    @property
    def mask(self) -> int:
        """The field's bits in the register word."""
        return ((1 << self.width) - 1) << self.bit

    def get(self, word: int) -> int:
        """The field's value in a register word."""
        return (word & self.mask) >> self.bit

    def put(self, value: int) -> int:
        """The register word with ``value`` in this field and 0 elsewhere."""
        if not 0 <= value < 1 << self.width:
            raise ValueError(f"field {self.name}: {value} does not fit {self.width} bits")
        return value << self.bit


@dataclasses.dataclass(frozen=True)
class Register:
    """One register word (or a 64-bit pair when ``wide``: LO at ``offset``, HI at +4)."""

    name: str
    offset: int
    access: str                 # "ro", "rw" or "ctrl"
    doc: str
    reset: str | None = None    # a name for Params.value_of, or None for 0 / live value
    live: bool = False          # a value that changes on its own (no reset value to state)
    wide: bool = False
    config: bool = False        # a shadow configuration register
    active_of: str | None = None
    stat: str | None = None     # golden-model statistic name
    mode: bool = False          # a shadow behaviour-mode register (its fields, D13)
    build: str | None = None    # a constant of the build options (build_word)
    fields: tuple[Field, ...] = ()

    @property
    def offsets(self) -> tuple[int, ...]:
        return (self.offset, self.offset + 4) if self.wide else (self.offset,)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name}")

    def mask(self, name: str) -> int:
        return self.field(name).mask


def _load_registers() -> tuple[Register, ...]:
    regs = []
    for raw in SPEC["register"]:
        raw = dict(raw)
        fields = tuple(Field(**f) for f in raw.pop("fields", ()))
        regs.append(Register(fields=fields, **raw))
    regs.sort(key=lambda r: r.offset)
    seen: dict[int, str] = {}
    for reg in regs:
        if reg.offset % 4:
            raise ValueError(f"register {reg.name} is not word aligned")
        for off in reg.offsets:
            if off in seen:
                raise ValueError(f"registers {seen[off]} and {reg.name} overlap at {off:#x}")
            if off >= 1 << AXIL_ADDR_WIDTH:
                raise ValueError(f"register {reg.name} lies outside the AXI4-Lite window")
            seen[off] = reg.name
    return tuple(regs)


REGISTERS: tuple[Register, ...] = _load_registers()
REG: dict[str, Register] = {r.name: r for r in REGISTERS}
#: The width of a ``MEM_ID`` (``ERR_FIRST_MEM.MEM_ID``): the core's error report carries one.
MEM_ID_WIDTH: int = REG["ERR_FIRST_MEM"].field("MEM_ID").width
if max(MEM_IDS.values()) >= 1 << MEM_ID_WIDTH:
    raise ValueError("a MEM_ID of soft_error_memories does not fit ERR_FIRST_MEM.MEM_ID")
#: Behaviour-mode shadow registers (D13), in register order: committed by CTRL.COMMIT with
#: the configuration, but not part of it (no T-level or hash rule reads them).
MODE_NAMES: tuple[str, ...] = tuple(r.name for r in REGISTERS if r.mode)
#: Their reset values, from their fields.
MODE_DEFAULTS: dict[str, int] = {
    name: sum(f.reset << f.bit for f in REG[name].fields) for name in MODE_NAMES}
#: Every shadow register a commit applies: the configuration, then the modes.
SHADOW_NAMES: tuple[str, ...] = CONFIG_NAMES + MODE_NAMES
STAT_REGISTERS: tuple[Register, ...] = tuple(r for r in REGISTERS if r.stat)
#: Golden-model statistic names, in register order.
STAT_NAMES: tuple[str, ...] = tuple(r.stat for r in STAT_REGISTERS)


def _fields(kind: str, params: Params) -> list[tuple[str, int]]:
    return [(f["name"], params.width(f["width"])) for f in SPEC[kind]]


def request_fields(params: Params) -> list[tuple[str, int]]:
    """Request payload fields ``(name, width)``, least significant first."""
    return _fields("request", params)


def response_fields(params: Params) -> list[tuple[str, int]]:
    """Response payload fields ``(name, width)``, least significant first."""
    return _fields("response", params)


# ---- the legality rule of a configuration -------------------------------------------------

#: Chains that a legal configuration keeps non-decreasing (``config_chain`` in the TOML):
#: integers, configuration register names and the derived values ``COUNT_MAX`` / ``WMAX``.
CONFIG_CHAINS: tuple[tuple[int | str, ...], ...] = tuple(
    tuple(raw["chain"]) for raw in SPEC["config_chain"])


def _chain_entry(entry, params: Params, values: dict[str, int]) -> int:
    if isinstance(entry, int):
        return entry
    if entry in values:
        return values[entry]
    return getattr(params, entry)       # COUNT_MAX, WMAX


def _chain_text(entry, params: Params) -> str:
    if isinstance(entry, int):
        return str(entry) if entry < 10 else f"{entry:#x}"
    if entry in CONFIG_NAMES:
        return entry
    return f"{entry} ({getattr(params, entry)})"


def _config_values(config) -> dict[str, int]:
    values = {str(name).upper(): value for name, value in dict(config).items()}
    missing = [name for name in CONFIG_NAMES if name not in values]
    if missing:
        raise KeyError(f"configuration lacks {', '.join(missing)}")
    return values


def config_violations(params: Params, config) -> list[str]:
    """The rules of ``CONFIG_CHAINS`` that ``config`` breaks, one sentence each naming the
    registers and their values; empty when the configuration is legal.

    ``config`` maps every name of ``CONFIG_NAMES`` (upper or lower case) to an integer.
    """
    values = _config_values(config)
    broken = []
    for chain in CONFIG_CHAINS:
        numbers = [_chain_entry(entry, params, values) for entry in chain]
        if any(a > b for a, b in zip(numbers, numbers[1:])):
            rule = " <= ".join(_chain_text(entry, params) for entry in chain)
            got = ", ".join(f"{entry}={values[entry]}" for entry in chain if entry in values)
            broken.append(f"need {rule}, got {got}")
    return broken


def config_legal(params: Params, config) -> bool:
    """Whether a commit of ``config`` (a mapping over ``CONFIG_NAMES``) is accepted."""
    return not config_violations(params, config)


def _check_build(predictor) -> None:
    if not isinstance(predictor, bool):
        raise TypeError(f"predictor must be a bool, not {predictor!r}")


def field_built(field: Field, *, predictor: bool = False) -> bool:
    """Whether ``field`` exists in a build with the given options (``needs``)."""
    _check_build(predictor)
    return not field.needs or {"predictor": predictor}[field.needs]


def mode_defined(name: str, *, predictor: bool = False) -> int:
    """The bits of mode register ``name`` that a build with these options defines."""
    return sum(1 << f.bit for f in REG[name].fields if field_built(f, predictor=predictor))


def mode_violations(shadow, *, predictor: bool = False) -> list[str]:
    """The mode registers of ``shadow`` (a mapping by register name; a mode register it
    lacks counts as its reset value) whose value sets a bit outside their fields, one
    sentence each; empty when a commit of them is legal (D13, spec-predictor.md P2).

    ``predictor``: the build has the predictor mode (``CoreOptions.predictor``); without
    it ``POLICY.MODE`` is a reserved bit."""
    broken = []
    shadow = dict(shadow)
    for name in MODE_NAMES:
        value = shadow.get(name, MODE_DEFAULTS[name])
        defined = mode_defined(name, predictor=predictor)
        if not isinstance(value, int) or not 0 <= value <= 0xFFFF_FFFF:
            broken.append(f"{name} must be a 32-bit word, got {value!r}")
        elif value & ~defined:
            missing = [f.name for f in REG[name].fields if value >> f.bit & 1 and
                       not field_built(f, predictor=predictor)]
            why = f"; {', '.join(missing)} needs a build with the predictor" if missing else ""
            broken.append(f"{name}={value:#x} sets reserved bits {value & ~defined:#x} "
                          f"(defined: {defined:#x}{why})")
    return broken


def build_word(name: str, *, predictor: bool = False) -> int:
    """The value of the register whose ``build`` is ``name`` in a build with these options:
    ``"policies"`` (``P_POLICIES``): bit ``m`` set for every ``POLICY.MODE`` value ``m``
    the build implements (bit 0 always, bit 1 with the predictor)."""
    _check_build(predictor)
    if name == "policies":
        return 1 | int(predictor) << 1
    raise KeyError(f"no build word {name!r}")


def check_mode_reset(value, name: str = "mode_reset") -> int:
    """``value`` if it is a legal reset value of ``MODE`` (a build choice, D13): an int that
    ``mode_violations`` accepts; ``TypeError`` / ``ValueError`` naming ``name`` otherwise."""
    if not is_int(value):
        raise TypeError(f"{name} must be an int, not {value!r}")
    value = int(value)
    broken = mode_violations({"MODE": value})
    if broken:
        raise ValueError(f"{name} {value:#x} is not a legal MODE: {'; '.join(broken)}")
    return value


@dataclasses.dataclass(frozen=True)
class CtrlWriteEffect:
    """What one write of the ``CTRL`` register does (decision D8), in the order it happens.

    ``action``: the write has an action bit in byte 0, so it is ordered between requests.
    ``refused``: a COMMIT of an illegal shadow set: the write gets SLVERR, STATUS.ERROR is
    set and every other field here is false / ``None``. Otherwise ``commit`` (the shadow set
    becomes active; a changed HASH_SEED, or a changed POLICY in a build with the predictor
    mode, also flushes), ``clear_error``,
    ``clear_soft_error`` (D11), ``flush``, ``clear_stats``, and ``enable``, the new
    CTRL.ENABLE (``None``: unchanged).
    """

    action: bool = False
    refused: bool = False
    commit: bool = False
    clear_error: bool = False
    clear_soft_error: bool = False
    flush: bool = False
    clear_stats: bool = False
    enable: int | None = None


#: CTRL fields that are actions (write 1 to act), in field order.
CTRL_ACTIONS = tuple(f.name for f in REG["CTRL"].fields if f.action)


def ctrl_write_effect(params: Params, shadow, data: int, strb: int = 0xF, *,
                      predictor: bool = False) -> CtrlWriteEffect:
    """The effect of writing ``data`` with byte strobes ``strb`` to ``CTRL`` while the
    shadow configuration is ``shadow`` (a mapping over ``CONFIG_NAMES``, and the modes of
    ``MODE_NAMES``; a mode it lacks counts as its reset value). A commit is refused when the
    configuration is illegal or a mode sets a reserved bit (of a build with the options
    given: ``predictor``, see ``mode_violations``). A commit that changes ``HASH_SEED`` or
    ``POLICY.MODE`` also flushes; the caller, which knows the active set, applies that.

    Every CTRL field lies in byte 0: a write without that strobe does nothing.
    """
    ctrl = REG["CTRL"]
    if not strb & 1:
        return CtrlWriteEffect()
    bit = {f.name: bool(data >> f.bit & 1) for f in ctrl.fields}
    action = any(bit[name] for name in CTRL_ACTIONS)
    if bit["COMMIT"] and (not config_legal(params, shadow) or
                          mode_violations(shadow, predictor=predictor)):
        return CtrlWriteEffect(action=action, refused=True)
    return CtrlWriteEffect(action=action, commit=bit["COMMIT"],
                           clear_error=bit["CLEAR_ERROR"],
                           clear_soft_error=bit["CLEAR_SOFT_ERROR"], flush=bit["FLUSH"],
                           clear_stats=bit["CLEAR_STATS"], enable=int(bit["ENABLE"]))


for _reg in REGISTERS:
    if _reg.build is not None:
        build_word(_reg.build)          # raises KeyError for a word nothing computes

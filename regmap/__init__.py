"""The KV-ASU interface definition, loaded from ``kv_asu.toml``.

This package is data, not behaviour: register addresses and fields, op codes, the bit layout
of the request and response stream payloads, parameter defaults and the legal parameter
space. The RTL (``hdl``), the golden model (``golden_model``), the testbenches and the docs
all read it, so that a register or a field is defined in exactly one place. Nothing here
decides how a request is answered; that lives, twice and independently, in the model and
in the RTL.

Main entry points:

``Params(**overrides)``
    A validated, frozen set of elaboration parameters (spec section 2) with the derived
    values ``SLOT_WIDTH``, ``WMAX``, ``COUNT_MAX`` and the reset configuration.
``REGISTERS`` / ``REG``
    Every register, in address order / by name.
``OPS``
    Op code by name.
``request_fields(params)`` / ``response_fields(params)``
    ``[(name, width), ...]`` least significant first.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

__all__ = [
    "SPEC", "ID", "RELEASE", "VERSION", "AXIL_ADDR_WIDTH", "OPS", "PARAM_NAMES", "CONFIG_NAMES",
    "Params", "Field", "Register", "REGISTERS", "REG", "STAT_REGISTERS", "STAT_NAMES",
    "request_fields", "response_fields",
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

    Derived attributes: ``SLOT_WIDTH`` (log2 ENTRIES), ``WMAX`` (largest legal window),
    ``COUNT_MAX`` (counter saturation value), ``defaults`` (the reset configuration as a
    dict over ``CONFIG_NAMES``).
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
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be an integer, not {value!r}")
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


@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    bit: int
    doc: str = ""
    reset: int = 0
    action: bool = False


@dataclasses.dataclass(frozen=True)
class Register:
    """One register word (or a 64-bit pair when ``wide``: LO at ``offset``, HI at +4)."""

    name: str
    offset: int
    access: str                 # "ro", "rw" or "ctrl"
    doc: str
    reset: str | None = None    # a name for Params.value_of, or None for 0 / live value
    wide: bool = False
    config: bool = False        # a shadow configuration register
    active_of: str | None = None
    stat: str | None = None     # golden-model statistic name
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
        return 1 << self.field(name).bit


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

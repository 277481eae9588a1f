# SPDX-License-Identifier: Apache-2.0
"""The build choices of a KV-ASU core: one validated, frozen object.

None of them changes what the core answers to a request it takes; they trade latency,
the EVICT gap and resources against speed (``protection`` changes only what a soft error
does, docs/spec-decisions.md D11; ``mode_reset`` only the ``MODE`` after reset, so whether a
request the core cannot take is held or dropped, D13; ``predictor`` adds a second policy,
docs/spec-predictor.md, which the ``POLICY`` register selects at run time, and leaves the
article's as it is).
Every builder of a core takes a ``CoreOptions``: ``hdl.top.KvAsu``, ``hdl.core.KvAsuCore``,
``hdl.generate``, ``fpga.targets.Target``, the formal harness and the simulation benches.
"""

import dataclasses
from typing import ClassVar

from amaranth.lib import wiring

import regmap

from ..hash import MUL_STAGES, MULTIPLIES, Murmur3Hash64, check_lut_cross_products
from ..layouts import check_int
from ..match import IMPLEMENTATIONS as MATCH_IMPLEMENTATIONS
from ..ecc import PROTECTIONS, check_protection
from ..ram import IMPLEMENTATIONS as RAM_IMPLEMENTATIONS

__all__ = ["CoreOptions", "check_hash"]


@dataclasses.dataclass(frozen=True)
class CoreOptions:
    """Build choices of the core (and of the register block's statistics engine).

    Parameters
    ----------
    serial : bool
        ``False`` (default): up to one request accepted per cycle. ``True``: one request
        at a time (``req.ready`` stays low while a request is in flight): the same
        datapath, kept as the reference mode (``hdl.generate --not-pipelined``, the
        ``serial`` test mode).
    compact : bool
        ``False`` (default): the fast pipeline: the M stage registers the table's window
        before evaluation, three evaluation stages (E1a lane compare, E1b decision, E2
        commit) and the six-stage LRU list. ``True``: the small pipeline of the iCE40
        build: no M stage, one evaluation stage E (decides and commits), the three-stage
        LRU list and the two-stage statistics engine: 3 cycles less latency, an EVICT gap
        of 2 instead of 6, and the flip-flops and logic cells the iCE40 UP5K lacks for the
        fast pipeline, at a slower clock.
    hash_mul_stages : int
        Pipeline stages per DSP multiply of the hash (1, 2 or 3; see ``Murmur3Hash64``):
        each one more adds 4 cycles of latency (hash latency ``3 + 4 * n``). 0: no DSP
        multiply; every multiply is a carry-save adder tree in LUTs, the whole hash one
        8-stage pipeline. 2 by default; the ECP5 build uses 0, the simulation benches 1.
    hash_lut_cross_products : frozenset of str
        The hash multiplies (of ``hdl.hash.MULTIPLIES``) whose cross partial products are
        made in LUTs instead of DSPs (the iCE40 build: ``{"c1", "c2"}``). Any collection
        of names (or ``True`` / ``False``: all / none) is accepted and stored as a
        ``frozenset``.
    block_ram : str
        The implementation of the table's registered window arrays (``hdl.ram``,
        fast pipeline only): ``"generic"`` (default: ``Memory`` and a register) or
        ``"dp16kd"`` (the ECP5 build: DP16KD blocks with their output register).
    tag_compare : str
        The implementation of E1a's match of a table word with the request (its tag, its
        generation and valid bit, the bypass choices inside: ``hdl.match.Match``,
        ``BucketTable(match=...)``, fast pipeline only): ``"generic"`` (default: the
        expression, a LUT tree) or ``"ccu2c"`` (the ECP5 build: one carry chain of
        ``CCU2C`` per bank from the block RAMs' output registers).
    protection : str
        Soft-error protection of every block RAM (docs/spec-decisions.md D11):
        ``"auto"`` (default: SECDED or parity per memory, ``hdl.ecc.choose_protection``,
        with the error registers and the recovery; in the compact pipeline, whose one
        evaluation stage decides from the block RAM's output in the cycle it arrives,
        nothing), ``"secded"`` or ``"parity"`` (that
        code everywhere; fast pipeline only), ``"none"`` (no check bits, no recovery: bit
        for bit the unprotected core).
    mode_reset : int
        The value reset gives the ``MODE`` register, shadow and committed
        (docs/spec-decisions.md D13, "The reset mode"): 0 (default: the blocking block
        after reset, the clear sweep of a reset that wraps holds ``req.ready`` low) or
        ``MODE.NONBLOCKING`` (1: non-blocking from reset, the sweep's requests are dropped
        and counted). ``ACT_MODE`` reads it after reset; a commit changes it as usual.
    predictor : bool
        ``False`` (default): the article's policy only; a commit of ``POLICY.MODE = 1`` is
        refused and ``P_POLICIES`` reads 1. ``True``: the core also has the predictor mode
        (docs/spec-predictor.md, docs/rtl-predictor.md), selected at run time by
        ``POLICY.MODE`` (reset 0, the article's policy, bit-exact); ``P_POLICIES`` reads 3
        (``hdl.generate --predictor``). Needs the fast pipeline (``compact=False``) and
        ``protection="none"``: the predictor's per-slot array and second list have no check
        bits or recovery.

    Attributes
    ----------
    m_stage : bool
        The M stage registers the window (``not compact``).
    split_evaluation : bool
        Evaluation in E1a, E1b and E2 (``not compact``); else in one stage E.
    lru_registered : bool
        ``LruList(registered=...)`` (``not compact``).
    stats_stages : int
        ``KvAsuRegisters(stats_stages=...)``: 2 if ``compact``, else 3.
    protected : bool
        Protection is built (``protection`` is not ``"none"``, the pipeline is the fast
        one).
    built_protection : str
        The ``protection=`` every protected memory and the register block are built with:
        ``protection`` if ``protected``, else ``"none"``.
    CHOICES : dict
        (Of the class.) The values of the fields that take one of a fixed set
        (``hash_mul_stages``, ``block_ram``, ``tag_compare``, ``protection``) or a subset
        of one (``hash_lut_cross_products``), as ``CoreOptions`` checks them;
        ``hdl.generate``'s flags offer them.
    """

    CHOICES: ClassVar[dict] = {
        "hash_mul_stages": MUL_STAGES,
        "hash_lut_cross_products": MULTIPLIES,
        "block_ram": RAM_IMPLEMENTATIONS,
        "tag_compare": MATCH_IMPLEMENTATIONS,
        "protection": PROTECTIONS,
    }

    serial: bool = False
    compact: bool = False
    hash_mul_stages: int = 2
    hash_lut_cross_products: frozenset = frozenset()
    block_ram: str = "generic"
    tag_compare: str = "generic"
    protection: str = "auto"
    mode_reset: int = 0
    predictor: bool = False

    def __post_init__(self):
        for name in ("serial", "compact", "predictor"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise TypeError(f"CoreOptions.{name} must be a bool, not {value!r}")
        stages = self.hash_mul_stages
        if not isinstance(stages, int) or isinstance(stages, bool):
            raise TypeError(f"CoreOptions.hash_mul_stages must be an int, not {stages!r}")
        if stages not in self.CHOICES["hash_mul_stages"]:
            raise ValueError(f"CoreOptions.hash_mul_stages must be one of "
                             f"{self.CHOICES['hash_mul_stages']}, not {stages}")
        names = check_lut_cross_products(self.hash_lut_cross_products,
                                         "CoreOptions.hash_lut_cross_products")
        if stages == 0 and names:
            raise ValueError("CoreOptions.hash_lut_cross_products needs DSP multiplies "
                             "(hash_mul_stages 1, 2 or 3); with 0 every product is in LUTs")
        object.__setattr__(self, "hash_lut_cross_products", names)
        for name in ("block_ram", "tag_compare"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"CoreOptions.{name} must be a str, not {value!r}")
            if value not in self.CHOICES[name]:
                raise ValueError(f"CoreOptions.{name} must be one of {self.CHOICES[name]}, "
                                 f"not {value!r}")
        check_protection(self.protection, "CoreOptions.protection")
        if self.compact and self.protection not in ("auto", "none"):
            raise ValueError("CoreOptions.protection needs the fast pipeline (compact builds "
                             "are unprotected)")
        regmap.check_mode_reset(self.mode_reset, "CoreOptions.mode_reset")
        if self.predictor and self.compact:
            raise ValueError("CoreOptions.predictor needs the fast pipeline (compact=False): "
                             "the predictor's stages are E1a, E1b and E2")
        if self.predictor and self.protection != "none":
            raise ValueError("CoreOptions.predictor needs protection='none': the predictor's "
                             "per-slot array and ghost list have no check bits or recovery "
                             f"(got protection={self.protection!r})")
        if self.compact and self.block_ram != "generic":
            raise ValueError("CoreOptions.block_ram other than 'generic' needs the fast "
                             "pipeline (the compact one has no registered window read)")
        if self.compact and self.tag_compare != "generic":
            raise ValueError("CoreOptions.tag_compare other than 'generic' needs the fast "
                             "pipeline (the compact one compares in its one stage E)")

    @property
    def m_stage(self):
        return not self.compact

    @property
    def split_evaluation(self):
        return not self.compact

    @property
    def lru_registered(self):
        return not self.compact

    @property
    def protected(self):
        """Protection is built: ``protection`` is not ``"none"`` and the pipeline is the
        fast one."""
        return self.protection != "none" and not self.compact

    @property
    def built_protection(self):
        """The ``protection=`` the core's memories and the register block are built with:
        ``protection`` if ``protected``, else ``"none"``."""
        return self.protection if self.protected else "none"

    @property
    def stats_stages(self):
        return 2 if self.compact else 3

    def as_dict(self):
        """The fields as JSON-friendly values (for reports)."""
        return {"serial": self.serial, "compact": self.compact,
                "hash_mul_stages": self.hash_mul_stages,
                "hash_lut_cross_products": sorted(self.hash_lut_cross_products),
                "block_ram": self.block_ram, "tag_compare": self.tag_compare,
                "protection": self.protection,
                "mode_reset": self.mode_reset, "predictor": self.predictor}

    @classmethod
    def cast(cls, options):
        """``options`` itself, or the defaults for ``None``; ``TypeError`` otherwise."""
        if options is None:
            return cls()
        if not isinstance(options, cls):
            raise TypeError(f"options must be a CoreOptions or None, not {options!r}")
        return options


def check_hash(hash, options):
    """Raise ``TypeError`` / ``ValueError`` unless ``hash`` can be the hash of a core built
    with ``options`` (``KvAsuCore``'s ``hash`` parameter): a component with the ports
    ``key`` In(64), ``seed`` In(32) and ``hash`` Out(32) and an integer ``latency`` of at
    least 0; a ``Murmur3Hash64`` must be the one ``options`` describe."""
    if not isinstance(hash, wiring.Component):
        raise TypeError(f"hash must be a wiring.Component, not {hash!r}")
    members = hash.signature.members
    for name, flow in (("key", wiring.In), ("seed", wiring.In), ("hash", wiring.Out)):
        if name not in members or members[name].flow != flow:
            raise TypeError(f"hash must have the ports key In(64), seed In(32) and hash "
                            f"Out(32), not {hash.signature!r}")
    latency = check_int("hash.latency", getattr(hash, "latency", None), 0)
    if isinstance(hash, Murmur3Hash64):
        built = (hash.mul_stages, hash.lut_cross_products)
        said = (options.hash_mul_stages, options.hash_lut_cross_products)
        if built != said:
            raise ValueError(f"hash is a Murmur3Hash64 with mul_stages={built[0]}, "
                             f"lut_cross_products={sorted(built[1])} (latency {latency}), "
                             f"but the options say hash_mul_stages={said[0]}, "
                             f"hash_lut_cross_products={sorted(said[1])}")

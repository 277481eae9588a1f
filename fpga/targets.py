# SPDX-License-Identifier: Apache-2.0
"""What the FPGA flow builds: a ``Target`` per device and configuration (``TARGETS``), the
tools' options a target may set (``SYNTH_OPTIONS``, ``PNR_OPTIONS``), and their checks
(``flow_options``). ``fpga.flow`` runs them."""

from __future__ import annotations

import dataclasses

from hdl.core import CoreOptions

__all__ = ["Target", "TARGETS", "DESIGNS", "SYNTH_OPTIONS", "PNR_OPTIONS", "flow_options"]


@dataclasses.dataclass(frozen=True)
class Target:
    """One device and the KV-ASU configuration built for it."""

    name: str
    family: str            # "ecp5" or "ice40"
    params: dict           # overrides of regmap.Params defaults
    options: CoreOptions   # build choices of hdl.top.KvAsu (hdl/core/options.py)
    pnr_args: tuple        # device/package arguments of nextpnr
    default_freq: float    # MHz: the target frequency unless given on the command line
    description: str
    seeds: tuple = (1,)    # nextpnr placement seeds, tried in turn until one meets the target
    every_seed: bool = False   # place with every seed, not only until one meets the target
    speeds: tuple = ()     # ECP5 speed grades: seeds placed at the first, the kept seed at the rest
    design: str = "kv_asu"     # what is built: one of DESIGNS
    # Options of synth_ecp5 / synth_ice40, without the dash: see SYNTH_OPTIONS.
    synth_options: tuple = ()
    # Options of nextpnr, "name" or "name=value" without the dashes: see PNR_OPTIONS.
    pnr_options: tuple = ()
    # MHz: the frequency place and route aims at (None: the target frequency); at least
    # the target frequency, which still judges the placement.
    place_freq: float | None = None
    # Built by `make fpga` (all targets but these); False: only on request (--target NAME).
    in_make_fpga: bool = True


#: The synthesis options a target may set, per family: only those that change how the
#: netlist is mapped, never what it does (no -no-rw-check) or which file is written.
SYNTH_OPTIONS = {
    # abc9 sees the flip-flops (-dff); no carry chains (-noccu2); no PFU muxes for LUTs
    # wider than 4 inputs (-nowidelut; -widelut is the ECP5 default); no clock enables,
    # LUT RAM or DSPs; constant compares in LUTs.
    "ecp5": ("dff", "noccu2", "nowidelut", "widelut", "nodffe", "nolutram", "nodsp",
             "cmp2softlogic"),
    "ice40": ("dff", "nocarry", "nodffe"),
}

#: The nextpnr options a target may set: each with the type of its value (None: a flag),
#: or the tuple of the values it takes.
PNR_OPTIONS = {
    "tmg-ripup": None,                  # timing-driven rip-up in the router
    "no-tmdriv": None,                  # no timing-driven placement
    "placer": ("heap", "sa", "static"),
    "placer-heap-timingweight": int,    # nextpnr default 10
    "placer-heap-critexp": int,         # nextpnr default 2
    "placer-heap-alpha": float,
    "placer-heap-beta": float,
}


#: What a target can build, each inside the out-of-context harness: the KV-ASU, its hash
#: alone, or the bare-block-RAM reference design.
DESIGNS = ("kv_asu", "hash", "bram_reference", "bram_reference_outreg")

# The ECP5 default build's options: every hash multiply a carry-save adder tree in LUTs,
# pipelined over 8 stages instead of DSP multiplies in 15 (a MULT18X18D between two
# flip-flops took up to 11.2 ns with its routing into and out of the DSP rows, so each DSP
# multiply needed three stages): latency 16, the same throughput, no DSP.
# The table's window arrays are DP16KD blocks with their output register on (Yosys's
# inference never turns it on): the window leaves each block RAM from a register. E1a's
# match of each bank's word (its tag, generation and valid bit, the bypass choices inside)
# is one CCU2C carry chain per bank (as a LUT tree it was the longest path of the build
# behind those registers).
_ECP5_OPTIONS = CoreOptions(hash_mul_stages=0, block_ram="dp16kd", tag_compare="ccu2c")

# Every ECP5 target is placed by nextpnr's analytic "static" placer (then its annealing
# refinement) rather than its default, HeAP: on the same netlists over seeds 1 to 15 (those
# of the harness with its reset from the pin) it placed the unprotected build at 98.0 MHz
# on average (HeAP: 95.1) and the protected one 2.2 MHz higher than HeAP, and the
# block-RAM reference within 97.3-102.4 MHz where HeAP spreads it over 91.3-105.1
# (docs/fpga.md, "The placer"). Routing is the same.
_ECP5_PNR = ("placer=static",)

# The device and the place and route of every ECP5 target.
_ECP5_85F = dict(family="ecp5", pnr_args=("--85k", "--package", "CABGA381"),
                 pnr_options=_ECP5_PNR)


TARGETS = {
    "ecp5": Target(
        name="ecp5", params={},
        # With the default soft-error protection (D11, CoreOptions.protection "auto").
        options=_ECP5_OPTIONS,
        **_ECP5_85F,
        default_freq=100.0,
        description="Default configuration (2048 entries) on a Lattice LFE5U-85F",
        # The slowest paths sit within about 0.5 ns of 10 ns, and which of them is worst
        # depends on the placement: the target must hold on every one of three seeds, so
        # all three are placed and reported, and the fastest is kept.
        seeds=(1, 2, 3), every_seed=True,
        # Speed 6 is the target; speed 8 (the fastest grade) is reported beside it.
        speeds=(6, 8),
    ),
    "ecp5-unprotected": Target(
        name="ecp5-unprotected", params={},
        # The same build without check bits: what protection costs in speed and cells.
        options=dataclasses.replace(_ECP5_OPTIONS, protection="none"),
        **_ECP5_85F, default_freq=100.0,
        description="The ECP5 default build without soft-error protection (protection='none')",
        seeds=(1, 2, 3), every_seed=True, speeds=(6, 8),
    ),
    "ecp5-hash": Target(
        name="ecp5-hash", params={}, options=_ECP5_OPTIONS,
        **_ECP5_85F, default_freq=100.0,
        description="The hash of the ECP5 default build alone (Murmur3Hash64)",
        seeds=(1,), speeds=(6, 8), design="hash",
    ),
    "ecp5-bram": Target(
        name="ecp5-bram", params={}, options=CoreOptions(),
        **_ECP5_85F, default_freq=100.0,
        description="Reference: a 2048 x 24 block RAM read into an adder, registered",
        seeds=(1, 2, 3), every_seed=True, speeds=(6, 8), design="bram_reference",
    ),
    "ecp5-bram-outreg": Target(
        name="ecp5-bram-outreg", params={}, options=CoreOptions(),
        **_ECP5_85F, default_freq=100.0,
        description="Reference: the same with the DP16KD output register (REGMODE OUTREG)",
        seeds=(1, 2, 3), every_seed=True, speeds=(6, 8), design="bram_reference_outreg",
    ),
    "ecp5-predictor": Target(
        name="ecp5-predictor", params={},
        # The predictor mode's build (docs/spec-predictor.md; the mode needs protection
        # "none"): what the mode costs against ecp5-unprotected. About ten minutes of
        # synthesis, placement and routing per seed (docs/rtl-predictor.md), so only on
        # request.
        options=dataclasses.replace(_ECP5_OPTIONS, protection="none", predictor=True),
        **_ECP5_85F, default_freq=100.0,
        description="The ECP5 build with the predictor mode (predictor=True, protection='none')",
        seeds=(1,), speeds=(6,), in_make_fpga=False,
    ),
    "ice40": Target(
        name="ice40", family="ice40",
        # A parameter change, not a fork: fewer entries, a window of two slots, 32-bit
        # addresses (24-bit tag), an 8-bit counter and 6-bit timestamps. (With a window
        # of four the core and the harness need 5 914 of the UP5K's 5 280 logic cells.)
        params=dict(ENTRIES=128, PROBE=2, ADDR_WIDTH=32, LINE_SHIFT=8,
                    COUNT_WIDTH=8, TS_WIDTH=6, TICK_SHIFT=2),
        # The UP5K has 8 SB_MAC16: the cross products of the key multiplies in LUTs.
        # The compact pipeline (no M stage, one evaluation stage, the three-stage LRU
        # list, the two-stage statistics engine): the fast pipeline's logic and registers
        # do not fit in its 5280 logic cells.
        options=CoreOptions(compact=True, hash_lut_cross_products={"c1", "c2"}),
        pnr_args=("--up5k", "--package", "sg48"),
        # This build must fit and have its Fmax reported; 15 MHz (it has measured
        # 18.2) guards it against regressions.
        default_freq=15.0,
        description="Reduced configuration (128 entries, 2-slot window, 24-bit tag) on a "
                    "Lattice iCE40 UP5K",
        seeds=(1, 2, 3),
    ),
}


def _check_synth_options(family: str, options) -> tuple:
    """``options`` as names without the dash, each once, if every one is in
    ``SYNTH_OPTIONS[family]`` and they do not contradict each other; else ValueError."""
    if isinstance(options, str) or not all(isinstance(x, str) for x in options):
        raise ValueError(f"synthesis options must be a sequence of option names, "
                         f"not {options!r}")
    options = tuple(x.removeprefix("-") for x in options)
    known = SYNTH_OPTIONS[family]
    for option in options:
        if option not in known:
            raise ValueError(f"synthesis option {option!r} is not one the flow knows for "
                             f"{family} (one of {', '.join(known)})")
    if "widelut" in options and "nowidelut" in options:
        raise ValueError("synthesis options widelut and nowidelut contradict each other")
    return tuple(dict.fromkeys(options))


def _check_pnr_options(options) -> tuple:
    """``options`` as ``name`` / ``name=value`` without the dashes, if every name is in
    ``PNR_OPTIONS``, given once, with a value of the kind it takes; else ValueError."""
    if isinstance(options, str) or not all(isinstance(x, str) for x in options):
        raise ValueError(f"nextpnr options must be a sequence of 'name' or 'name=value', "
                         f"not {options!r}")
    seen, checked = set(), []
    for item in options:
        name, eq, value = item.removeprefix("--").partition("=")
        if name not in PNR_OPTIONS:
            raise ValueError(f"nextpnr option {name!r} is not one the flow knows (one of "
                             f"{', '.join(PNR_OPTIONS)})")
        if name in seen:
            raise ValueError(f"nextpnr option {name!r} is given twice")
        seen.add(name)
        kind = PNR_OPTIONS[name]
        if kind is None:
            if eq:
                raise ValueError(f"nextpnr option {name!r} is a flag and takes no value, "
                                 f"not {value!r}")
            checked.append(name)
            continue
        if not value:
            raise ValueError(f"nextpnr option {name!r} wants a value: {name}=VALUE")
        if isinstance(kind, tuple):
            if value not in kind:
                raise ValueError(f"nextpnr option {name!r} takes one of {', '.join(kind)}, "
                                 f"not {value!r}")
        else:
            try:
                number = kind(value)
            except ValueError:
                wanted = "an integer" if kind is int else "a number"
                raise ValueError(f"nextpnr option {name!r} wants {wanted}, not "
                                 f"{value!r}") from None
            if not number >= 0 or number == float("inf"):
                raise ValueError(f"nextpnr option {name!r} wants a finite value >= 0, "
                                 f"not {value!r}")
        checked.append(f"{name}={value}")
    return tuple(checked)


def _check_place_freq(place_freq, freq: float) -> float:
    """The frequency place and route aims at: ``freq`` for ``None``, else ``place_freq``,
    which must not be below ``freq`` (a placement aimed below the frequency that judges
    it would report a miss that the flow itself asked for)."""
    if place_freq is None:
        return freq
    if isinstance(place_freq, bool) or not isinstance(place_freq, (int, float)) or \
            not 0 < place_freq < float("inf"):
        raise ValueError(f"place_freq must be a positive number of MHz, not {place_freq!r}")
    if place_freq < freq:
        raise ValueError(f"place_freq {place_freq} MHz is below the target frequency "
                         f"{freq} MHz that judges the placement")
    return float(place_freq)


def flow_options(target: Target, freq: float, synth_options=None, pnr_options=None,
                 place_freq=None) -> Target:
    """``target`` with the given tool options in place of its own (``None``: keep the
    target's), every one of them checked against ``SYNTH_OPTIONS``, ``PNR_OPTIONS`` and
    ``freq``; raises ValueError with the reason for an option the flow does not know, a
    malformed value, or a ``place_freq`` given below ``freq``. The result's
    ``place_freq`` is the frequency placed at: ``place_freq``, else the target's own or
    ``freq`` if that is higher."""
    synth = _check_synth_options(
        target.family, target.synth_options if synth_options is None else synth_options)
    pnr = _check_pnr_options(target.pnr_options if pnr_options is None else pnr_options)
    if place_freq is None:
        # The target's own placement frequency aims above its default frequency; a
        # target frequency raised above it (--freq) is aimed at itself.
        own = target.place_freq
        place = freq if own is None else max(_check_place_freq(own, 0.0), freq)
    else:
        place = _check_place_freq(place_freq, freq)
    return dataclasses.replace(target, synth_options=synth, pnr_options=pnr,
                               place_freq=place)

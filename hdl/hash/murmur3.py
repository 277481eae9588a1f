# SPDX-License-Identifier: Apache-2.0
"""``Murmur3Hash64``: the hash as a component, its ports, parameters and registers.

The algorithm is in the package's docstring (``hdl.hash``)."""

from amaranth import Signal, Module, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_int
from .carry_save import carry_save_hash
from .dsp import dsp_hash

__all__ = ["Murmur3Hash64", "MULTIPLIES", "MUL_STAGES", "CARRY_SAVE_LATENCY",
           "check_lut_cross_products"]

#: Names of the four pipelined constant multiplies, in pipeline order: ``c1`` (both key
#: blocks by 0xcc9e2d51), ``c2`` (both by 0x1b873593), ``f1`` (0x85ebca6b), ``f2``
#: (0xc2b2ae35). ``c1`` and ``c2`` are two 32x32 multiplies each, ``f1`` and ``f2`` one.
MULTIPLIES = ("c1", "c2", "f1", "f2")

#: The values of ``mul_stages``: pipeline stages per DSP multiply, or 0 for none (every
#: multiply a carry-save tree in LUTs).
MUL_STAGES = (0, 1, 2, 3)

#: Latency of the hash with ``mul_stages=0`` (every multiply a carry-save tree in LUTs).
CARRY_SAVE_LATENCY = 8


def hash_latency(mul_stages):
    """The latency of a ``Murmur3Hash64(mul_stages=...)``, without building one: ``3 + 4 *
    mul_stages`` (four stages per multiply round), ``CARRY_SAVE_LATENCY`` without DSPs."""
    check_int("mul_stages", mul_stages, MUL_STAGES[0], MUL_STAGES[-1])
    return CARRY_SAVE_LATENCY if mul_stages == 0 else 3 + 4 * mul_stages


def check_lut_cross_products(value, name="lut_cross_products"):
    """``value`` (``True``: every multiply, ``False``: none, or a collection of names of
    ``MULTIPLIES``) as a ``frozenset`` of names; ``TypeError`` / ``ValueError`` otherwise,
    each naming the parameter ``name``."""
    if isinstance(value, bool):
        value = MULTIPLIES if value else ()
    elif isinstance(value, str) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a bool or a collection of multiply "
                        f"names {MULTIPLIES}, not {value!r}")
    value = tuple(value)
    for element in value:
        if not isinstance(element, str):
            raise TypeError(f"{name} must hold multiply names {MULTIPLIES}, "
                            f"not {element!r}")
    value = frozenset(value)
    unknown = value - set(MULTIPLIES)
    if unknown:
        raise ValueError(f"{name}: unknown multiplies {sorted(unknown)}; "
                         f"the multiplies are {MULTIPLIES}")
    return value


class Murmur3Hash64(wiring.Component):
    """MurmurHash3 x86_32 of a 64-bit key and a 32-bit seed, one key per cycle.

    ``hash`` is ``mmh3.hash(key.to_bytes(8, "little"), seed, signed=False)`` of the ``key``
    and ``seed`` presented exactly ``latency`` cycles earlier. The pipeline is free running:
    it has no valid, no stall and no reset-dependent state (all its registers are
    ``reset_less``); a caller that needs a valid bit or other sideband delays it by
    ``latency`` cycles next to the hash. The seed travels down the pipeline with its key, so
    the seed may change from one cycle to the next.

    Pipeline (``mul_stages = 2``, the default; latency 11)::

        stage  work                                           serial depth
        1,2    k1 *= C1 and k2 *= C1 (in parallel)            one multiply
        3,4    k1 = rotl(k1,15)*C2, k2 = rotl(k2,15)*C2       one multiply
        5      h = round(seed, k1)                            xor, 3-input add
        6      h = round(h, k2); h ^= 8; h ^= h >> 16         xor, 3-input add, xors
        7,8    h *= 0x85ebca6b; h ^= h >> 13                  one multiply, xor
        9,10   h *= 0xc2b2ae35                                one multiply
        11     h ^= h >> 16                                   xor (registered output)

    where ``round(h, k) = rotl(h ^ k, 13) * 5 + 0xe6546b64`` (``* 5`` is a shift and an
    add). Each 32x32-bit multiply by a constant keeps only the low 32 bits, which needs
    three 16x16 partial products: ``lo(x)*lo(C)`` (32 bits) and the low 16 bits of
    ``hi(x)*lo(C)`` and ``lo(x)*hi(C)``. With ``mul_stages = 2`` the partial products are
    registered (one ECP5 ``MULT18X18D`` each, nothing after it in the stage) and summed in
    the next stage (one 32-bit add of three terms, 16 of them carry-free), so no stage holds
    more than one multiplier or more than two carry chains in series: this is the design
    point for >= 100 MHz on an ECP5 (6 multiplies x 3 = 18 DSP multipliers). With
    ``mul_stages = 1`` the same partial products are summed in the stage that makes them
    (latency 7): shorter, but the multipliers and their summing adder share a stage.

    With ``mul_stages = 0`` there is no multiplier at all (latency 8): each multiply by a
    constant is the sum of one shifted copy of its operand per canonical signed digit of the
    constant (12 to 14 digits, a negative one as the inverted copy plus one), reduced by
    rows of 3:2 carry-save adders (one LUT level each, no carry chain) to two vectors that
    one carry chain adds. Between stages a value may stay in carry-save form (several
    vectors), so a stage boundary can fall inside a multiply's tree and the work of the
    xors, rotations and rounds is spread evenly over eight stages::

        stage  work (levels: 3:2 carry-save rows; add: one 32-bit carry chain)
        1      k1 * C1, k2 * C1: 5 of 6 levels
        2      C1: last level, add; rotl 15; C2: 2 of 5 levels
        3      C2: 3 levels, add
        4      round(seed, k1): xor, 1 level, add; round(., k2): xor, 1 level
        5      round: add; h ^= 8; h ^= h >> 16; F1: 2 of 5 levels
        6      F1: 3 levels, add
        7      h ^= h >> 13; F2: 4 of 6 levels
        8      F2: 2 levels, add; h ^= h >> 16 (registered output)

    The xor in front of a level folds into its LUTs (a full adder's sum and carry of
    ``a ^ b``, ``c``, ``d`` are four-input functions). It uses about 3 100 LUT4 and 900
    flip-flops, no DSP, and on an ECP5 alone places at 116 MHz (speed 6), against 117 MHz
    and 11 cycles for ``mul_stages = 2``: the design point for an ECP5 at 100 MHz.

    ``lut_cross_products = True`` computes the two cross products (which keep only 16
    bits) with shifted adds in LUTs instead of multipliers, so each multiply needs one DSP
    (6 in all) instead of three: for devices with few DSPs (an iCE40 UP5K has 8
    ``SB_MAC16``). Each cross product then costs a small adder tree (canonical signed
    digits, terms truncated to 16 bits) in the multiply's first stage. Key bits that are
    constant zero (a ``TAG_WIDTH`` below 64) let the synthesiser drop the products of
    ``k2`` altogether.

    Measured on the isolated block (ECP5: Yosys ``synth_ecp5`` + nextpnr-ecp5
    out of context, LFE5U-85F speed 6; iCE40: ``synth_ice40 -dsp`` cell counts only), in a
    form of the DSP pipeline that computed f1's ``h ^ (h >> 13)`` in a LUT ahead of f2's
    DSPs, the default's critical path in that form; the block as built computes it in f1's
    summing stage (``dsp_hash``), so f2's multipliers take registers. In the full design
    routing adds to these paths.

    ==========================  =========  ============  ========  ===================
    configuration               ECP5 Fmax  ECP5 DSP      ECP5 LUT  iCE40 (24-bit key)
    ==========================  =========  ============  ========  ===================
    mul_stages=2 (default)      117 MHz    18            519       12 MAC16, 244 LUT
    mul_stages=2, LUT c1+c2                                        8 MAC16, 614 LUT
    mul_stages=2, LUT all       122 MHz    6             1618      4 MAC16, 1050 LUT
    mul_stages=1                89 MHz     18            519
    ==========================  =========  ============  ========  ===================

    An iCE40 UP5K has 8 ``SB_MAC16``: with a 24-bit key (the reduced build) use
    ``lut_cross_products=("c1", "c2")``.

    Parameters
    ----------
    mul_stages : int
        Pipeline stages per DSP multiply: 1, 2 (default) or 3; or 0: no DSP, the
        carry-save pipeline above (latency ``CARRY_SAVE_LATENCY``, 8). With 3 each multiply
        first registers its operands again (stage ``i``), which lets the placer put those
        copies next to the DSPs: on an ECP5 the routes into and out of the DSP rows are 2-3
        ns each, so a multiplier between two distant flip-flops alone can take 10 ns.
    lut_cross_products : bool or collection of str
        (DSP multiplies only.) Which multiplies compute their two 16-bit cross partial products in LUTs rather
        than DSPs: ``False`` (default) none, ``True`` all, or a subset of ``MULTIPLIES``
        (``"c1"``, ``"c2"``, ``"f1"``, ``"f2"``) to trade DSPs for LUTs just as far as a
        device needs. Each named multiply saves 2 DSPs per 32x32 multiply (``c1`` and
        ``c2`` hold two each, unless the key's upper half is constant zero).

    Ports
    -----
    key : In(64)
        The key; bits 31:0 are the first 4-byte block, 63:32 the second.
    seed : In(32)
        The seed, sampled in the same cycle as ``key``.
    hash : Out(32)
        The hash of the key and seed presented ``latency`` cycles earlier. Undefined for the
        first ``latency`` cycles after power-up (the registers have no reset).

    Attributes
    ----------
    latency : int
        Cycles from ``key``/``seed`` to ``hash``: ``3 + 4 * mul_stages`` (11 by default),
        8 for ``mul_stages = 0``.
    """

    def __init__(self, *, mul_stages=2, lut_cross_products=False):
        check_int("mul_stages", mul_stages, MUL_STAGES[0], MUL_STAGES[-1])
        lut_cross_products = check_lut_cross_products(lut_cross_products)
        if mul_stages == 0 and lut_cross_products:
            raise ValueError("lut_cross_products needs DSP multiplies (mul_stages 1, 2 or "
                             "3); with mul_stages=0 every product is made in LUTs already")
        self.mul_stages = mul_stages
        self.lut_cross_products = lut_cross_products
        self.latency = hash_latency(mul_stages)
        super().__init__({
            "key": In(64),
            "seed": In(32),
            "hash": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        stage = [0]  # count of register stages, checked against `latency` at the end

        def reg(value, name):
            # A pipeline register. No reset: the pipeline has no state worth resetting, and
            # leaving it out keeps the reset net off several hundred flip-flops.
            sig = Signal(len(Value.cast(value)), name=name, reset_less=True)
            m.d.sync += sig.eq(value)
            return sig

        def step(name, **values):
            # Register every value of one pipeline stage at once (a list: each of its
            # values, e.g. the vectors of a carry-save sum).
            stage[0] += 1
            return {k: [reg(x, f"{name}_{k}{i}") for i, x in enumerate(v)]
                    if isinstance(v, list) else reg(v, f"{name}_{k}")
                    for k, v in values.items()}

        if self.mul_stages == 0:
            hashed = carry_save_hash(self.key, self.seed, step)
        else:
            hashed = dsp_hash(self.key, self.seed, step, mul_stages=self.mul_stages,
                              lut_cross_products=self.lut_cross_products)
        m.d.comb += self.hash.eq(hashed)
        assert stage[0] == self.latency, (stage[0], self.latency)
        return m

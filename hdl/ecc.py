# SPDX-License-Identifier: Apache-2.0
"""The check codes of docs/spec-decisions.md D11, and the rule that picks one per memory.

``Code`` is one write granule's code, parity or SECDED (an extended Hamming code), both as
Python functions of integers (for initial contents, fault injection and tests) and as the
logic that encodes, checks and corrects (for ``hdl.protect.ProtectedMemory`` and
``hdl.ram``). ``choose_protection`` is D11's rule: SECDED when its coded words take no more
ECP5 DP16KD block RAMs than with parity.
"""

from math import ceil

from amaranth import *

from .layouts import check_int

__all__ = ["ECP5_ASPECTS", "PROTECTIONS", "Code", "check_protection", "choose_protection",
           "dp16kd_count", "lane_granules", "secded_check_bits"]

#: ECP5 DP16KD aspect ratios (depth, width); 512 x 36 is the pseudo-dual-port mode.
ECP5_ASPECTS = ((16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36))
#: ``protection=`` values: ``"auto"`` applies ``choose_protection``.
PROTECTIONS = ("auto", "secded", "parity", "none")


def check_protection(protection, name="protection"):
    """Refuse (``ValueError``) a ``protection=`` value that is not one of ``PROTECTIONS``;
    ``name`` is the parameter's name in the message; ``TypeError`` for a value that is not a
    str."""
    if not isinstance(protection, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(PROTECTIONS)}, not "
                        f"{protection!r}")
    if protection not in PROTECTIONS:
        raise ValueError(f"{name} must be one of {', '.join(PROTECTIONS)}, not {protection!r}")


def secded_check_bits(k: int) -> int:
    """Check bits of an extended Hamming (SECDED) code over ``k`` data bits: the least
    ``r`` with ``2**r >= k + r + 1``, plus one overall parity bit."""
    check_int("k", k, 1)        # a code needs at least one data bit
    r = 0
    while 2**r < k + r + 1:
        r += 1
    return r + 1


def _check_bits(code: str, k: int) -> int:
    return {"secded": secded_check_bits(k), "parity": 1, "none": 0}[code]


def dp16kd_count(width: int, depth: int) -> int:
    """Fewest ECP5 DP16KD that hold ``depth`` words of ``width`` bits (one read port)."""
    return min(ceil(width / w) * ceil(depth / d) for d, w in ECP5_ASPECTS)


def lane_granules(width, granularity):
    """``(granule bits, lanes)`` of a word of ``width`` bits written in lanes of
    ``granularity`` bits (``None``: the whole word, one lane)."""
    if granularity is None:
        return width, 1
    if granularity < 1 or width % granularity:
        raise ValueError(f"granularity {granularity} must divide the width {width}")
    return granularity, width // granularity


def choose_protection(width: int, depth: int, granularity: int | None = None) -> str:
    """D11's rule: ``"secded"`` if the SECDED-coded memory takes no more DP16KD than the
    parity-coded one, else ``"parity"``. One code word per write granule."""
    g, lanes = lane_granules(width, granularity)
    cost = {code: dp16kd_count(lanes * (g + _check_bits(code, g)), depth)
            for code in ("secded", "parity")}
    return "secded" if cost["secded"] <= cost["parity"] else "parity"


class Code:
    """One granule's code: ``k`` data bits, ``check`` check bits; the coded granule is
    ``{data, check bits}`` (data in the low ``k`` bits).

    SECDED: data bit ``j`` sits at Hamming position ``pos[j]`` (1-based, skipping powers of
    two); check bit ``i < r`` is the XOR of the data bits whose position has bit ``i`` set;
    the last check bit makes the whole coded granule of even parity. Parity: one bit, the
    XOR of the data. ``encode_int`` / ``decode_int`` are the same code in Python (for
    initial contents and tests); ``encode`` / ``decode`` build the logic.
    """

    def __init__(self, kind: str, k: int):
        if not isinstance(kind, str):
            raise TypeError(f"kind must be a str, secded, parity or none, not {kind!r}")
        if kind not in ("secded", "parity", "none"):
            raise ValueError(f"kind must be secded, parity or none, not {kind!r}")
        check_int("k", k, 1)
        self.kind, self.k = kind, k
        self.check = _check_bits(kind, k)
        self.width = k + self.check
        self.pos = []
        if kind == "secded":
            p = 1
            while len(self.pos) < k:
                if p & (p - 1):
                    self.pos.append(p)
                p += 1
            self.r = self.check - 1

    def _groups(self):
        """Data bit indices of each Hamming check bit."""
        return [[j for j, p in enumerate(self.pos) if p >> i & 1] for i in range(self.r)]

    # Python reference.
    def encode_int(self, value: int) -> int:
        bits = [(value >> j) & 1 for j in range(self.k)]
        if self.kind == "none":
            return value
        if self.kind == "parity":
            return value | (sum(bits) & 1) << self.k
        checks = [sum(bits[j] for j in group) & 1 for group in self._groups()]
        checks.append((sum(bits) + sum(checks)) & 1)
        return value | sum(c << (self.k + i) for i, c in enumerate(checks))

    def decode_int(self, word: int) -> tuple[int, bool, bool]:
        """``(data, corrected, error)`` of a coded granule."""
        data = word & ((1 << self.k) - 1)
        if self.kind == "none":
            return data, False, False
        if self.kind == "parity":
            return data, False, bool(bin(word).count("1") & 1)
        checks = word >> self.k
        syndrome = 0
        for i, group in enumerate(self._groups()):
            syndrome |= ((sum((data >> j) & 1 for j in group) + (checks >> i)) & 1) << i
        odd = bool(bin(word).count("1") & 1)
        if not odd:
            return data, False, syndrome != 0
        if syndrome == 0 or not syndrome & (syndrome - 1):
            return data, True, False                    # a check bit flipped
        if syndrome in self.pos:
            return data ^ (1 << self.pos.index(syndrome)), True, False
        return data, False, True                        # names no bit: three or more

    # Logic.
    def encode(self, value) -> Value:
        value = Value.cast(value)
        if self.kind == "none":
            return value
        if self.kind == "parity":
            return Cat(value, value.xor())
        checks = [Cat(*(value[j] for j in group)).xor() for group in self._groups()]
        overall = Cat(value, *checks).xor()
        return Cat(value, *checks, overall)

    def failed(self, word) -> Value:
        """The check alone (no correction): 1 if the coded granule ``word`` is not a code
        word (parity: odd; SECDED: odd or a syndrome other than zero). Any one, two or
        three flipped bits of a SECDED word fail it."""
        word = Value.cast(word)
        if self.kind == "none":
            return C(0, 1)
        if self.kind == "parity":
            return word.xor()
        return Cat(word.xor(), self.syndrome(word)).any()

    def syndrome(self, word) -> Value:
        """SECDED: the Hamming syndrome of the coded granule ``word`` (bit ``i``: check
        ``i`` recomputed from the stored data XOR the stored check bit; zero for a code
        word, the position of a single flipped bit otherwise)."""
        word = Value.cast(word)
        stored = word[:self.k]
        return Cat(*((Cat(*(stored[j] for j in group)) ^ word[self.k + i]).xor()
                     for i, group in enumerate(self._groups())))

    def check_rows(self) -> list[list[int]]:
        """The checks of a coded granule as sets of its bit positions: the granule is a
        code word exactly when every row has an even number of ones, so :meth:`failed` is
        the OR of the rows' parities (:meth:`failed_rows`). SECDED: the Hamming checks,
        and the overall parity combined with the largest of them (the bits outside it),
        so that no row spans much more than half the granule; parity: the whole granule.
        (Rows of an invertible transform of the checks: the same code words.)"""
        if self.kind == "none":
            return []
        every = list(range(self.width))
        if self.kind == "parity":
            return [every]
        rows = [group + [self.k + i] for i, group in enumerate(self._groups())]
        widest = set(max(rows, key=len))
        return rows + [[b for b in every if b not in widest]]

    def failed_rows(self, word) -> Value:
        """One bit per row of :meth:`check_rows`: that row's parity; ``failed(word)`` is
        their OR. Each row is an XOR of about half the granule's bits, so the rows can be
        registered and ORed after the register."""
        word = Value.cast(word)
        return Cat(*(Cat(*(word[b] for b in row)).xor() for row in self.check_rows()))

    def recode(self, word, *, correct: bool = True) -> Value:
        """The code word of the data :meth:`decode` gives for the coded granule ``word``
        (``encode(decode(word).data)``), from the syndrome rather than from a second
        encoder behind the correction: a corrected data bit leaves the check bits as
        stored; otherwise the check bits are the stored ones XOR the syndrome and the
        overall parity bit the stored one XOR the word's parity and the syndrome's. (The
        code is linear: the code word of ``a ^ b`` is the XOR of theirs, so a user can
        code a write whose data is a decoded word XOR other data without an encoder
        behind the correction.)"""
        word = Value.cast(word)
        stored = word[:self.k]
        if self.kind == "none":
            return stored
        if self.kind == "parity" or not correct:
            return self.encode(stored)
        syndrome = self.syndrome(word)
        odd = word.xor()
        flip = Mux(odd, Cat(*(syndrome == p for p in self.pos)), 0)
        fixed = flip.any()                       # a data bit corrected
        return Cat(stored ^ flip,
                   word[self.k:self.k + self.r] ^ Mux(fixed, 0, syndrome),
                   word[self.k + self.r] ^ Mux(fixed, 0, odd ^ syndrome.xor()))

    def decode(self, m: Module, word, name: str, *, correct: bool = True):
        """``(data, corrected, error)`` signals of a coded granule ``word``. With
        ``correct=False`` the data is the stored data as is, ``corrected`` is 0 and
        ``error`` is any failed check (:meth:`failed`)."""
        return self.decode_split(m, word, name, correct=correct)[:3]

    def decode_split(self, m: Module, word, name: str, *, correct: bool = True):
        """:meth:`decode`, with the correction apart: ``(data, corrected, error, flip)``,
        ``data`` being the stored data XOR ``flip`` (0 unless a data bit is corrected)."""
        data = Signal(self.k, name=f"{name}_data")
        flip = Signal(self.k, name=f"{name}_flip")
        corrected, error = Signal(name=f"{name}_corrected"), Signal(name=f"{name}_error")
        stored = word[:self.k]
        if self.kind == "none":
            m.d.comb += data.eq(stored)
        elif self.kind == "parity" or not correct:
            m.d.comb += [data.eq(stored), error.eq(self.failed(word))]
        else:
            syndrome = Signal(self.r, name=f"{name}_syndrome")
            m.d.comb += syndrome.eq(self.syndrome(word))
            odd = word.xor()
            names_data = Cat(syndrome == p for p in self.pos)     # one-hot or zero
            names_check = Signal(name=f"{name}_names_check")
            m.d.comb += names_check.eq(
                (syndrome == 0) | Cat(syndrome == (1 << i) for i in range(self.r)).any())
            m.d.comb += [
                flip.eq(Mux(odd, names_data, 0)),
                data.eq(stored ^ flip),
                corrected.eq(odd & (names_data.any() | names_check)),
                error.eq(Mux(odd, ~(names_data.any() | names_check), syndrome != 0)),
            ]
        return data, corrected, error, flip

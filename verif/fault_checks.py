# SPDX-License-Identifier: Apache-2.0
"""What an upset of the fault campaign (``verif.faults``) is, and what the block must report
of it: the block-RAM arrays a campaign may hit (:func:`targets`), the D11 place of a bit
(:func:`location`), each memory's code (:func:`codes`), the report D11 expects of an upset
(:func:`expected_reports`), the checks of a run's report against its upset
(:func:`report_problem`, :func:`recovery_too_short`) and the checks of a campaign's summary
against D11's targets (:func:`failures`).

The expected report is computed here from the upset itself, never taken from the RTL: the
flipped bits of each code word (a whole word, or one lane of ``scrub``) are decoded by the
memory's code as the Python reference computes it (``hdl.ecc.Code.decode_int`` of the error
pattern: both codes are linear, so a check's outcome depends on the flipped bits alone),
and D11's rule for the port is applied: the table's window arrays (``ent``, ``meta``,
``mark``) are checked and never corrected, so any failed check there is uncorrectable;
every other memory's reads correct what SECDED can (one bit: corrected; two: uncorrectable);
parity finds an odd number of flipped bits (uncorrectable) and misses an even one.
"""

from __future__ import annotations

import collections

import regmap
from golden_model.soft_errors import MEM_IDS
from hdl.core import CoreOptions
from regmap import REG, Params

from . import fast

__all__ = ["MEM_NAMES", "CHECK_ONLY", "BANKED", "Target", "targets", "location", "first_error", "codes",
           "granule", "expected_reports", "report_problem", "misreported",
           "recovery_too_short", "failures", "coded_bits"]

#: Verilog array name (without the bank number) -> D11 memory name.
_D11_NAMES = {"ent": "ent", "meta": "meta", "mark": "mark", "scrub": "scrub",
              "prev0": "prev0", "prev1": "prev1", "next0": "next0", "next1": "next1",
              "mem": "stats"}
#: ``ERR_FIRST_MEM.MEM_ID`` -> D11 memory name.
MEM_NAMES = {v: k for k, v in MEM_IDS.items()}

#: The D11 memories read only through the table's window: checked, never corrected (D11,
#: "The window reads"), so any failed check of theirs is uncorrectable.
CHECK_ONLY = ("ent", "meta", "mark")
#: The D11 memories with one array per bank of the table (``PROBE`` arrays each).
BANKED = ("ent", "meta", "mark")


class Target:
    """A block-RAM array the campaign may hit: its harness name, D11 memory, bank."""

    def __init__(self, array: fast.MemoryArray, memory: str, bank: int | None):
        self.array, self.memory, self.bank = array, memory, bank

    @property
    def bits(self) -> int:
        return self.array.width * self.array.depth

    def __repr__(self):
        return f"Target({self.array.name}, {self.memory}, bank {self.bank})"


def targets(verilog: str) -> list[Target]:
    """The block-RAM arrays of the generated Verilog (not the response FIFO, which is
    distributed RAM, outside D11)."""
    out = []
    for array in fast.memory_arrays(verilog):
        module, leaf = array.name.rsplit(".", 1)
        if leaf == "storage" and module.rsplit(".", 1)[0].endswith(
                (".table", ".lru", ".stats")):
            # a hdl.protect.ProtectedMemory: its Memory of coded words is one level down
            module, leaf = module.rsplit(".", 1)
        if leaf == "memory" and module.rsplit(".", 1)[0].endswith(".table"):
            # a window array with a registered read (hdl.ram.RegisteredReadRam): its
            # Memory is one level down, named after the array
            module, leaf = module.rsplit(".", 1)
        if module.endswith(".table") or module.endswith(".lru") or module.endswith(".stats"):
            base = leaf.rstrip("0123456789") if module.endswith(".table") else leaf
            if base in _D11_NAMES:
                bank = int(leaf[len(base):]) if base != leaf and base != "scrub" else None
                out.append(Target(array, _D11_NAMES[base], bank))
    return out


def location(params: Params, target: Target, word: int, bit: int) -> tuple[str, int]:
    """The D11 ``(memory, address)`` of a bit: the slot (table and LRU memories), the
    counter index (statistics), as ``ERR_FIRST_MEM`` / ``ERR_FIRST_ADDR`` would give it."""
    if target.memory == "scrub":
        lane = bit // (target.array.width // params.PROBE)
        return "scrub", word * params.PROBE + lane
    if target.bank is not None:
        return target.memory, word * params.PROBE + target.bank
    return target.memory, word


def first_error(errors) -> tuple[int, bool]:
    """``ERR_FIRST_MEM`` of a run's report (``errors``, possibly ``None``) decoded: the
    ``MEM_ID`` of the first error's memory (0 if none yet) and whether that error is
    uncorrectable (its fields in the register map)."""
    value = (errors or {}).get("ERR_FIRST_MEM", 0)
    reg = REG["ERR_FIRST_MEM"]
    return reg.field("MEM_ID").get(value), bool(reg.field("UNCORRECTABLE").get(value))


def _words(params: Params) -> dict[str, tuple[int, int, int | None]]:
    """Each D11 memory's data word: ``(width, depth, write granularity or None)``."""
    from hdl.table import GEN_WIDTH
    from hdl.table.layouts import ent_word_layout, meta_word_layout, scrub_lane_layout
    p, rows = params, params.ENTRIES // params.PROBE
    lane = scrub_lane_layout(p).size
    return {"ent": (ent_word_layout(p).size, rows, None),
            "meta": (meta_word_layout(p, GEN_WIDTH).size, rows, None), "mark": (1, rows, None),
            "scrub": (p.PROBE * lane, rows, lane),
            **{name: (p.SLOT_WIDTH, p.ENTRIES, None)
               for name in ("prev0", "prev1", "next0", "next1")},
            "stats": (64, len(regmap.STAT_NAMES), None)}


def codes(params: Params, options=None) -> dict[str, str]:
    """The code of each D11 memory in the build (``hdl.ecc.choose_protection`` over
    its word, as the RTL applies it; ``"none"`` for an unprotected build)."""
    from hdl.ecc import choose_protection
    options = CoreOptions.cast(options)
    words = _words(params)
    if not options.protected:
        return {name: "none" for name in words}
    if options.protection != "auto":
        return {name: options.protection for name in words}
    return {name: choose_protection(*w) for name, w in words.items()}


def granule(params: Params, memory: str) -> tuple[int, int]:
    """``(data bits per code word, code words per stored word)`` of a D11 memory: one code
    word per word, or per write lane (``scrub``: ``PROBE`` lanes)."""
    width, _, granularity = _words(params)[memory]
    if granularity is None:
        return width, 1
    return granularity, width // granularity


def expected_reports(params: Params, target: Target, word: int, flips,
                     code: str) -> dict[tuple[str, int], str | None]:
    """What D11 says a check finds of the upset ``flips`` (bits of stored word ``word`` of
    ``target``, a memory coded with ``code``): for each D11 place (:func:`location`) a
    flipped bit is in, ``"corrected"``, ``"uncorrectable"`` or ``None`` (no check can see
    it: parity with an even number of flips in one code word, an unprotected memory).
    Computed from the code and the port type alone (see the module's text), never from the
    RTL. ``ValueError`` if the array is not as wide as the memory's code words."""
    from hdl.ecc import Code
    k, lanes = granule(params, target.memory)
    c = Code(code, k)
    if target.array.width != lanes * c.width:
        raise ValueError(f"{target}: {target.array.width} bits a word, not {lanes} code "
                         f"word(s) of {c.width} bits ({code} over {k} data bits)")
    patterns = collections.defaultdict(int)       # lane -> its flipped bits
    for bit in flips:
        patterns[bit // c.width] |= 1 << (bit % c.width)
    out = {}
    for lane, pattern in sorted(patterns.items()):
        _, corrected, failed = c.decode_int(pattern)
        if failed or (corrected and target.memory in CHECK_ONLY):
            kind = "uncorrectable"
        elif corrected:
            kind = "corrected"
        else:
            kind = None
        out[location(params, target, word, lane * c.width)] = kind
    return out


def report_problem(params: Params, target: Target, word: int, flips, errors, code: str,
                   cycle: int | None = None) -> str:
    """What is wrong with a run's report (its ``ERR_*`` registers, ``errors``; ``None``
    after a hang) of its only upset ``flips`` at ``cycle``; ``""`` if nothing. D11: the
    first error since the last clear is the upset itself:

    * ``"counted, unnamed"``: an error counted (``ERR_CORRECTED``, ``ERR_UNCORRECTED``)
      while ``ERR_FIRST_MEM`` names none;
    * ``"place"``: ``ERR_FIRST_MEM`` / ``ERR_FIRST_ADDR`` name a place no flipped bit is in;
    * ``"invisible"``: they name a place whose flips no check can see (:func:`expected_reports`);
    * ``"kind"``: ``ERR_FIRST_MEM.UNCORRECTABLE`` is not the kind the code and the port
      give (a corrected upset reported uncorrectable, or the reverse);
    * ``"uncounted"``: the first error's kind is not counted in its register;
    * ``"cycle"``: ``ERR_FIRST_CYCLE`` is earlier than the flip's cycle."""
    if not errors:
        return ""
    mem_id, uncorrectable = first_error(errors)
    if not mem_id:
        return "counted, unnamed" if errors["ERR_CORRECTED"] or errors["ERR_UNCORRECTED"] \
            else ""
    expected = expected_reports(params, target, word, flips, code)
    place = (MEM_NAMES.get(mem_id), errors["ERR_FIRST_ADDR"])
    if place not in expected:
        return "place"
    if expected[place] is None:
        return "invisible"
    if expected[place] != ("uncorrectable" if uncorrectable else "corrected"):
        return "kind"
    if not errors["ERR_UNCORRECTED" if uncorrectable else "ERR_CORRECTED"]:
        return "uncounted"
    if cycle is not None and errors["ERR_FIRST_CYCLE"] < cycle:
        return "cycle"
    return ""


def misreported(params: Params, target: Target, word: int, flips, errors, code: str,
                cycle: int | None = None) -> bool:
    """Whether a run's report is not its upset (:func:`report_problem` finds something)."""
    return bool(report_problem(params, target, word, flips, errors, code, cycle))


def recovery_too_short(params: Params, errors: dict | None) -> bool:
    """Whether a run's report (its ``ERR_*`` registers) names an uncorrectable table or LRU
    error, so that a recovery ran (D11), while ``ERR_LAST_RECOVERY`` is under ``ENTRIES``
    cycles, which its sweep alone takes (one word of every memory per cycle): the length
    was not reported."""
    mem_id, uncorrectable = first_error(errors)
    recovered = uncorrectable and mem_id != MEM_IDS["stats"]
    return recovered and (errors or {}).get("ERR_LAST_RECOVERY", 0) < params.ENTRIES


def failures(summary: dict) -> dict[str, int]:
    """What makes a campaign (its summary, as ``verif.faults.campaign`` returns or the JSON
    keeps it) fail, with the count of each; empty if nothing. Checks of the block in every
    campaign: a fault-free run that failed, a misreported run, a recovery over D11's bound
    or not reported. D11's targets on a protected core: no hang and no run detected but
    not recovered; no silent run of a single-bit campaign; no silent run in a SECDED
    memory of a double-bit one (parity misses an even number of flips, SECDED none of
    two). The unprotected core's classes are the baseline, measured, never a failure."""
    classes = summary["classes"]
    wrong = {"fault-free runs failed": len(summary["fault_free_failures"]),
             "misreported": summary["misreported"],
             "recoveries over the bound": summary["recoveries_over_bound"],
             "recoveries not reported": summary["recoveries_too_short"]}
    if summary["protected"]:
        wrong["hangs"] = classes["hang"]
        wrong["detected, not recovered"] = classes["detected_unrecovered"]
        if summary["bits_per_fault"] == 1:
            wrong["silent"] = classes["silent"]
        else:
            wrong["silent in a SECDED memory"] = sum(
                by_class["silent"] for mem, by_class in summary["by_memory"].items()
                if summary["codes"][mem] == "secded")
    return {what: count for what, count in wrong.items() if count}


def coded_bits(params: Params, options=None) -> dict[str, int]:
    """The stored bits of each D11 memory in a build (check bits included; every bank of
    the table's banked memories together): the shares in which a campaign's bits, drawn
    uniformly, hit the memories."""
    from hdl.ecc import Code
    memory_codes = codes(params, options)
    out = {}
    for memory, (_, depth, _) in _words(params).items():
        k, lanes = granule(params, memory)
        banks = params.PROBE if memory in BANKED else 1
        out[memory] = banks * depth * lanes * Code(memory_codes[memory], k).width
    return out

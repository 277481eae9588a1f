# SPDX-License-Identifier: Apache-2.0
"""The formal jobs: name -> harness builder, SBY mode and depth, quick (CI) flag."""

from hdl.core import CoreOptions
from hdl.hash import hash_latency

from .common import small_params

COMPACT = CoreOptions(compact=True)
#: The hash latency of the default pipeline (``KvAsu``'s ``Murmur3Hash64``), which the
#: ``_lh<latency>`` jobs give the abstract hash.
DEFAULT_HASH_LATENCY = hash_latency(CoreOptions().hash_mul_stages)
LH = f"lh{DEFAULT_HASH_LATENCY}"

JOBS = {}


def job(name, *, mode, depth, quick=False, doc="", timeout=900, script=(), expect="PASS",
        failing=(), mutant=None, bmc=()):
    """Register a job. ``expect="FAIL"``: SBY must report FAIL, and every assertion it
    names as failing must be one of ``failing`` (formal.run.check_location); ``mutant``:
    ``(path, old, new)``, converted from a copy of ``hdl/`` with that replacement;
    ``bmc`` (a ``prove`` job): the BMC jobs of the same properties, deeper than its base
    case, which turn a bug behind an UNKNOWN into a counterexample from reset."""
    if (expect == "FAIL") != bool(failing):
        raise ValueError(f"{name}: an expect-FAIL job names its failing checks, no other")
    if bmc and mode != "prove":
        raise ValueError(f"{name}: only a prove job names BMC jobs")
    def deco(fn):
        JOBS[name] = {"build": fn, "mode": mode, "depth": depth, "quick": quick,
                      "doc": doc, "timeout": timeout, "script": list(script),
                      "expect": expect, "failing": tuple(failing), "mutant": mutant,
                      "bmc": tuple(bmc)}
        return fn
    return deco


@job("lru_bmc", mode="bmc", depth=20, doc="P1+P2 LRU list / occupancy, BMC")
def _lru_bmc():
    from .lru_props import LruInvariants
    return LruInvariants(small_params())


@job("tags_bmc", mode="bmc", depth=12, doc="P3 one slot per line, in its window, BMC")
def _tags_bmc():
    from .table_props import TagInvariants
    return TagInvariants(small_params())


# Depth 12: the least k at which the induction closes (11 leaves it UNKNOWN); a larger k
# proves the same, slower.
@job("core_inv_prove", mode="prove", depth=12, quick=True, doc="P1+P2+P3 k-induction",
     bmc=("lru_bmc", "tags_bmc"))
def _core_inv_prove():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params())


@job("stream_count_prove", mode="prove", depth=14, quick=True, doc="P4 counting/credits, k-induction",
     bmc=("stream_order_bmc",))
def _stream_count():
    from .stream_props import StreamCount
    return StreamCount(small_params())


@job("stream_order_bmc", mode="bmc", depth=20, doc="P4 marked request answered in order, BMC")
def _stream_order():
    from .stream_props import StreamOrder
    return StreamOrder(small_params())


@job("latency_prove", mode="prove", depth=14, quick=True, doc="P5 fixed latency, ready, k-induction")
def _latency():
    from .stream_props import FixedLatency
    return FixedLatency(small_params())


@job("drain_prove", mode="prove", depth=14, quick=True, doc="P5 back-pressure releases ready, k-induction")
def _drain():
    from .stream_props import Drain
    return Drain(small_params())


@job("axil_bmc", mode="bmc", depth=16, quick=True, doc="P6 AXI4-Lite rules, refused writes, cfg guarantees, BMC")
def _axil_bmc():
    from .axil_props import AxilProps
    return AxilProps(small_params())


# Depth 8: the base case (steps 0-7) reaches a CTRL action's response (step 7 at the
# earliest), so a wrong action shows as a trace from reset, not only as an UNKNOWN.
@job("axil_prove", mode="prove", depth=8, quick=True, doc="P6 AXI4-Lite rules, k-induction",
     bmc=("axil_bmc",))
def _axil_prove():
    from .axil_props import AxilProps
    return AxilProps(small_params())


@job("axil_prove_stats2", mode="prove", depth=6, doc="P6 with the two-stage statistics engine (iCE40 build)")
def _axil_prove_stats2():
    from .axil_props import AxilProps
    return AxilProps(small_params(), stats_stages=2)


@job("axil_prove_predictor", mode="prove", depth=6, quick=True,
     doc="P6 with POLICY.MODE (the register block of a predictor build)")
def _axil_prove_predictor():
    from .axil_props import AxilProps
    return AxilProps(small_params(), predictor=True)


# TS_WIDTH=4: with TS_WIDTH=3 (WMAX=3, TICK_SHIFT=0) an EVICT, which the core accepts at
# least evict_gap + 1 cycles after an OBSERVE (evict_gap 6, 2 with the compact pipeline), always
# finds the tail T0, so "EVICT finds nothing on a non-empty list" is unreachable there
# (not a bug).
@job("covers_core", mode="cover", depth=26, quick=True,
     doc="P7 every core outcome reachable (TS_WIDTH=4)")
def _covers_core():
    from .covers import CoreCovers
    return CoreCovers(small_params(ts_width=4))


@job("covers_regs", mode="cover", depth=12, quick=True, doc="P7 every register outcome reachable")
def _covers_regs():
    from .covers import RegCovers
    return RegCovers(small_params())


@job("memory_model_bmc", mode="bmc", depth=16, quick=True, timeout=120,
     script=("memory_map",),
     doc="FormalMemory == amaranth.lib.memory.Memory (soundness of the substitute), BMC")
def _memory_model():
    from .memory_model import MemoryModelEquivalence
    return MemoryModelEquivalence()


@job("memory_model_lanes_bmc", mode="bmc", depth=16, quick=True, timeout=120,
     script=("memory_map",),
     doc="FormalMemory == Memory with write lanes of 3 bits, upset port idle (ProtectedMemory's use), BMC")
def _memory_model_lanes():
    from .memory_model import MemoryModelEquivalence
    return MemoryModelEquivalence(width=6, granularity=3, upsets=True)


@job("covers_regs_predictor", mode="cover", depth=12, quick=True, timeout=120,
     doc="P7 every register outcome reachable in the predictor build's block (axil_prove_predictor's environment), and a POLICY change")
def _covers_regs_predictor():
    from .covers import RegCovers
    return RegCovers(small_params(), predictor=True)


# Non-vacuity of P5's environments: each proof's harness class with its assumptions
# (consumer always ready, enable high, no hold, no flush), cover goals in place of the
# statements (formal/covers.py).
@job("covers_latency", mode="cover", depth=24, quick=True, timeout=300,
     doc="P7 for latency_prove's environment: an EVICT accepted, one refused, one answered with a victim, two lines tracked")
def _covers_latency():
    from .covers import FixedLatencyCovers
    return FixedLatencyCovers(small_params())


@job("covers_drain", mode="cover", depth=24, quick=True, timeout=300,
     doc="P7 for drain_prove's environment: back-pressure with responses waiting, req.ready low for want of credits")
def _covers_drain():
    from .covers import DrainCovers
    return DrainCovers(small_params())


# ---- the same proofs on other shapes -------------------------------------------------------

# TS_WIDTH=4, where "EVICT finds nothing on a non-empty list" is reachable (covers_core
# reaches it at step 15): P1-P3 through that outcome, bounded.
@job("core_inv_bmc_ts4", mode="bmc", depth=16, timeout=900,
     doc="P1+P2+P3 BMC, TS_WIDTH=4 (an EVICT that finds nothing on a non-empty list)")
def _core_inv_ts4():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(ts_width=4))


@job("core_inv_bmc_e8p2", mode="bmc", depth=10, timeout=300,
     doc="P1+P2+P3 BMC, ENTRIES=8 PROBE=2 (k-induction at depth 8 does not finish in 5 min)")
def _core_inv_e8p2():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(entries=8, probe=2))


@job("core_inv_bmc_e8p4", mode="bmc", depth=10, timeout=300,
     doc="P1+P2+P3 BMC, ENTRIES=8 PROBE=4")
def _core_inv_e8p4():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(entries=8, probe=4))


@job("core_inv_prove_p1", mode="prove", depth=14, timeout=300,
     doc="P1+P2+P3 k-induction, ENTRIES=4 PROBE=1")
def _core_inv_p1():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(entries=4, probe=1))


@job(f"core_inv_prove_{LH}", mode="prove", depth=24, timeout=1800,
     doc=f"P1+P2+P3 k-induction, hash latency {DEFAULT_HASH_LATENCY} (the default pipeline length)")
def _core_inv_lh():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(), hash_latency=DEFAULT_HASH_LATENCY)


@job(f"latency_prove_{LH}", mode="prove", depth=24, timeout=300,
     doc=f"P5 fixed latency with hash latency {DEFAULT_HASH_LATENCY} (the default pipeline), k-induction")
def _latency_lh():
    from .stream_props import FixedLatency
    return FixedLatency(small_params(), hash_latency=DEFAULT_HASH_LATENCY)


@job(f"stream_count_prove_{LH}", mode="prove", depth=24, timeout=300,
     doc=f"P4 counting/credits with hash latency {DEFAULT_HASH_LATENCY}, k-induction")
def _stream_count_lh():
    from .stream_props import StreamCount
    return StreamCount(small_params(), hash_latency=DEFAULT_HASH_LATENCY)


# ---- sanity: planted bugs that the harnesses must catch (SBY must report FAIL) ------------

@job("sanity_flush_busy", mode="bmc", depth=12, quick=True, expect="FAIL", timeout=120,
     failing=("core_harness.py:sweep-nothing-in-flight",),
     doc="sanity: a flush while a request is in flight must break the clear sweep's "
         "'nothing in flight' (expect FAIL)")
def _sanity_flush_busy():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(), unsafe_flush=True)


@job("sanity_memory_model", mode="bmc", depth=8, quick=True, expect="FAIL", timeout=120,
     failing=("memory_model.py:same-data",),
     script=("memory_map",),
     doc="sanity: a non-transparent FormalMemory read port must differ (expect FAIL)")
def _sanity_memory_model():
    from .memory_model import MemoryModelEquivalence
    return MemoryModelEquivalence(mutant_no_transparency=True)


# ---- the compact pipeline of the iCE40 build (CoreOptions(compact=True)) ---------------

@job("core_inv_prove_compact", mode="prove", depth=10, timeout=300,
     doc="P1+P2+P3 k-induction, the compact pipeline (iCE40 build)")
def _core_inv_compact():
    from .table_props import CoreInvariants
    return CoreInvariants(small_params(), options=COMPACT)


@job("stream_count_prove_compact", mode="prove", depth=10, timeout=300,
     doc="P4 counting/credits, the compact pipeline, k-induction")
def _stream_count_compact():
    from .stream_props import StreamCount
    return StreamCount(small_params(), options=COMPACT)


@job("latency_prove_compact", mode="prove", depth=10, timeout=300,
     doc="P5 fixed latency and the EVICT gap, the compact pipeline, k-induction")
def _latency_compact():
    from .stream_props import FixedLatency
    return FixedLatency(small_params(), options=COMPACT)


@job("covers_core_compact", mode="cover", depth=24, timeout=300,
     doc="P7 core outcomes reachable, the compact pipeline, TS_WIDTH=4")
def _covers_compact():
    from .covers import CoreCovers
    return CoreCovers(small_params(ts_width=4), options=COMPACT)


# ---- the predictor mode's components (hdl/predictor/, formal/predictor_props.py) ---------

@job("predictor_shadow_prove", mode="prove", depth=4, quick=True, timeout=120,
     doc="P10: a BIP shadow directory (4 entries, two stages) is a well-formed list of distinct signatures, its hit exact, k-induction")
def _predictor_shadow():
    from .predictor_props import ShadowWellFormed
    return ShadowWellFormed(4, bimodal=True, stages=2)


@job("predictor_shadow_lru_prove", mode="prove", depth=4, quick=True, timeout=120,
     doc="P10: the same for an LRU shadow directory (3 entries, one stage), k-induction")
def _predictor_shadow_lru():
    from .predictor_props import ShadowWellFormed
    return ShadowWellFormed(3, bimodal=False, stages=1)


@job("predictor_counters_prove", mode="prove", depth=2, quick=True, timeout=120,
     doc="P10: PT, PA, PSEL, GSEL never wrap (steps or saturation), epoch steps by one, loop_next is the mode after the PSEL update, k-induction")
def _predictor_counters():
    from .predictor_props import SaturatingCounters
    return SaturatingCounters()


# Non-vacuity of the component proofs: the same harnesses and assumptions, cover goals in
# place of the statements (formal/covers.py).
@job("covers_predictor_shadow", mode="cover", depth=36, quick=True, timeout=120,
     doc="P7 for predictor_shadow_prove: hits, moves, eviction from a full directory, two drops, flush, both insertion ends (the bimodal counter's wrap), the two-stage corrections")
def _covers_predictor_shadow():
    from .covers import ShadowCovers
    return ShadowCovers(4, bimodal=True, stages=2)


@job("covers_predictor_shadow_lru", mode="cover", depth=10, quick=True, timeout=120,
     doc="P7 for predictor_shadow_lru_prove: hits, moves, eviction from a full directory, two drops, flush")
def _covers_predictor_shadow_lru():
    from .covers import ShadowCovers
    return ShadowCovers(3, bimodal=False, stages=1)


@job("covers_predictor_counters", mode="cover", depth=36, timeout=900,
     doc="P7 for predictor_counters_prove: PT and PA counters at 0 and 15, each PSEL step, GSEL at 0 and 63, the epoch's wrap")
def _covers_predictor_counters():
    from .covers import CounterCovers
    return CounterCovers()


@job("covers_predictor_lists", mode="cover", depth=14, quick=True, timeout=300,
     doc="P7 for predictor_lists_prove: every kind of move at its end update, both lists non-empty, gcount at ENTRIES, the gtail2 prefetch, a flush")
def _covers_predictor_lists():
    from .covers import ListsCovers
    return ListsCovers(4)


@job("covers_predictor_lists_compact", mode="cover", depth=12, quick=True, timeout=120,
     doc="P7 for predictor_lists_prove_compact: the same goals, the three-stage lists")
def _covers_predictor_lists_compact():
    from .covers import ListsCovers
    return ListsCovers(4, registered=False)


@job("predictor_lists_prove", mode="prove", depth=12, timeout=2400,
     doc="P10: the LRU and the ghost list (LiveGhostLists, 4 slots, six-stage) well formed in every cycle with pointer writes in flight, disjoint, exactly the slots moved onto them, gcount, the gtail2 prefetch, k-induction")
def _predictor_lists_prove():
    from .predictor_props import ListsWellFormed
    return ListsWellFormed(4)


@job("predictor_lists_prove_compact", mode="prove", depth=8, quick=True, timeout=300,
     doc="P10 as predictor_lists_prove, the three-stage lists, k-induction")
def _predictor_lists_prove_compact():
    from .predictor_props import ListsWellFormed
    return ListsWellFormed(4, registered=False)


@job("sanity_predictor_lists_any_move", mode="bmc", depth=8, quick=True, expect="FAIL",
     timeout=120, failing=("predictor_props.py", "common.py"), doc="sanity: predictor_lists_prove_compact without the assumption that a move's slot is on the list it names must FAIL")
def _sanity_predictor_lists():
    from .predictor_props import ListsWellFormed
    return ListsWellFormed(4, registered=False, any_move=True)


@job("predictor_core_lists_bmc", mode="bmc", depth=36, timeout=7200,
     doc="P3/P10 on the core (predictor build, POLICY.MODE = 1, 4 slots, steady environment): when settled, the LRU and the ghost list well formed, exactly the live / ghost tracked slots, gcount, occupancy, gcount <= occupancy, no ghost a probe, stamp 0 off probes, tags once in their windows; in every cycle the lists' moves valid (P10's conditions), BMC")
def _predictor_core_lists():
    from .predictor_core_props import PredictorCoreLists
    return PredictorCoreLists(small_params(), steady=True)


@job("predictor_core_lists_free_bmc", mode="bmc", depth=20, timeout=1200,
     doc="the same properties with every input free (back-pressure, hold, configuration changes, POLICY switches with their flush, resets mid-run), BMC")
def _predictor_core_lists_free():
    from .predictor_core_props import PredictorCoreLists
    return PredictorCoreLists(small_params())


@job("sanity_predictor_core_no_ghost", mode="bmc", depth=36, expect="FAIL", timeout=1200,
     failing=("predictor_core_props.py:no-ghost",),
     doc="sanity: the same harness claiming that no settled state has a ghost must fail (expect FAIL; also shows the depth reaches ghosts)")
def _sanity_predictor_core():
    from .predictor_core_props import PredictorCoreLists
    return PredictorCoreLists(small_params(), wrong="no_ghost", steady=True)


@job("sanity_predictor_core_free_no_live", mode="bmc", depth=20, expect="FAIL", timeout=900,
     failing=("predictor_core_props.py:no-live",),
     doc="sanity: the free harness claiming that no settled state has a live line must fail (expect FAIL; also shows its depth reaches settled states with lines)")
def _sanity_predictor_core_free():
    from .predictor_core_props import PredictorCoreLists
    return PredictorCoreLists(small_params(), wrong="no_live")


@job("covers_predictor_core_free", mode="cover", depth=16, timeout=1200,
     doc="P7 for predictor_core_lists_free_bmc (its harness, every input free): the core's insert, touch and eviction moves, settled states with one and two live lines")
def _covers_predictor_core_free():
    from .covers import PredictorCoreCovers
    return PredictorCoreCovers(small_params())


@job("covers_predictor_core", mode="cover", depth=30, timeout=1800,
     doc="P7 for predictor_core_lists_bmc (its steady harness): the same goals")
def _covers_predictor_core():
    from .covers import PredictorCoreCovers
    return PredictorCoreCovers(small_params(), steady=True)


# ---- soft errors: one upset in any block-RAM word of the protected core (D11) ---------

@job("core_seu_bmc", mode="bmc", depth=14, timeout=1800,
     doc="D11: one single-bit upset in any memory word: invariants outside recovery, recovery bound, state after it, BMC")
def _core_seu_bmc():
    from .seu_props import SeuInvariants
    return SeuInvariants(small_params())


@job("core_seu_reset_bmc", mode="bmc", depth=14, timeout=900,
     doc="D11: with resets in the middle of a run and no upset, the protected core never flags an error (F2), BMC")
def _core_seu_reset():
    from .seu_props import SeuInvariants
    return SeuInvariants(small_params(), flips=0, resets=True)


@job("core_seu_double_bmc", mode="bmc", depth=12, timeout=1800,
     doc="D11: one double-bit upset in any memory word: invariants outside recovery, recovery bound, state after it, BMC")
def _core_seu_double_bmc():
    from .seu_props import SeuInvariants
    return SeuInvariants(small_params(), flips=2)


@job("covers_seu", mode="cover", depth=22, timeout=1800,
     doc="D11 non-vacuity: each table memory's upset detected, LRU/scrub upsets corrected, a recovery ends (also after the whole bound), a request after it, a recovery starting in a clear sweep, an EVICT_ANY's POP corrected, a recovery with the FIFO full")
def _covers_seu():
    from .seu_props import SeuCovers
    return SeuCovers(small_params())


@job("sanity_seu_unprotected", mode="bmc", depth=14, expect="FAIL", timeout=300,
     failing=("core_harness.py", "lru_props.py", "table_props.py", "seu_props.py", "common.py"),
     doc="sanity: the same single-bit upsets on the unprotected core must break an invariant (expect FAIL)")
def _sanity_seu_unprotected():
    from .seu_props import SeuInvariants
    return SeuInvariants(small_params(), protection="none")


@job("core_seu_recovery_bmc", mode="bmc", depth=22, timeout=3600,
     doc="D11: one single-bit upset: the recovery bound, req.ready low, the state a recovery leaves, the response stream (no P1-P3), deep enough for a recovery of the whole bound, BMC")
def _core_seu_recovery_bmc():
    from .seu_props import SeuInvariants
    return SeuInvariants(small_params(), invariants=False)


@job("core_seu_twin_bmc", mode="bmc", depth=14, timeout=1800,
     doc="D11: one single-bit upset: until a recovery starts, ready, responses, idle, occupancy and statistics equal an upset-free twin core's, BMC")
def _core_seu_twin_bmc():
    from .seu_props import SeuTwin
    return SeuTwin(small_params())


@job("sanity_seu_twin", mode="bmc", depth=14, expect="FAIL", timeout=600,
     failing=tuple(f"seu_props.py:twin-{x}" for x in (
         "ready", "rsp-valid", "payload", "idle", "occupancy", "stat-inc")),
     doc="sanity: the twin comparison continued after a recovery starts must find a difference (expect FAIL)")
def _sanity_seu_twin():
    from .seu_props import SeuTwin
    return SeuTwin(small_params(), compare_always=True)


# ---- documented mutants of hdl/ (a copy with one replacement; the named check must fail) --
# Each job converts the harness from a scratch copy of hdl/ with the replacement made
# (formal.run.mutated_tree) and expects SBY to report FAIL on exactly the named checks.

CTRL = "hdl/regs/ctrl.py"


@job("mutant_ctrl_flush_while_flushing", mode="bmc", depth=16, expect="FAIL", timeout=300,
     failing=("axil_props.py:flush-allowed",),
     mutant=(CTRL, "with m.If(~regs.core_flushing & (drained | ~drains)):",
             "with m.If(drained | ~drains):"),
     doc="mutant: the CTRL sequencer does not wait for the core's clear sweep; P6's flush guarantee must fail")
def _mutant_flush_while_flushing():
    from .axil_props import AxilProps
    return AxilProps(small_params())


@job("mutant_ctrl_policy_without_flush", mode="bmc", depth=16, expect="FAIL", timeout=300,
     failing=("axil_props.py:policy-with-flush",),
     mutant=(CTRL, "changes = changes | state.policy_changes", "changes = changes"),
     doc="mutant: a commit that changes POLICY.MODE does not flush; P6's policy guarantee (predictor build) must fail")
def _mutant_policy_without_flush():
    from .axil_props import AxilProps
    return AxilProps(small_params(), predictor=True)


@job("mutant_ctrl_seed_without_flush", mode="bmc", depth=16, expect="FAIL", timeout=300,
     failing=("axil_props.py:seed-with-flush",),
     mutant=(CTRL, "changes = state.seed_changes", "changes = C(0, 1)"),
     doc="mutant: a commit that changes HASH_SEED does not flush; P6's seed guarantee must fail")
def _mutant_seed_without_flush():
    from .axil_props import AxilProps
    return AxilProps(small_params())


@job("mutant_ctrl_refused_clear_stats", mode="bmc", depth=16, expect="FAIL", timeout=300,
     failing=("axil_props.py:refused-no-action", "axil_props.py:action-okay"),
     mutant=(CTRL, "                m.d.sync += state.error.eq(1)\n",
             "                m.d.sync += state.error.eq(1)\n"
             "                m.d.sync += state.clear_stats.eq(acc.w_data[cbit(\"CLEAR_STATS\")])\n"),
     doc="mutant: a refused commit still applies CLEAR_STATS; P6's refused-write check must fail")
def _mutant_refused_clear_stats():
    from .axil_props import AxilProps
    return AxilProps(small_params())


@job("mutant_ctrl_refused_clear_error", mode="bmc", depth=16, expect="FAIL", timeout=300,
     failing=("axil_props.py:refused-error", "axil_props.py:refused-sets-error"),
     mutant=(CTRL, "                m.d.sync += state.error.eq(1)\n",
             "                m.d.sync += state.error.eq(~acc.w_data[cbit(\"CLEAR_ERROR\")])\n"),
     doc="mutant: a refused commit still applies CLEAR_ERROR; P6's STATUS.ERROR check must fail")
def _mutant_refused_clear_error():
    from .axil_props import AxilProps
    return AxilProps(small_params())


@job("mutant_admission_ready_in_hold", mode="bmc", depth=10, expect="FAIL", timeout=300,
     failing=("core_harness.py:idle-falls",),
     mutant=("hdl/core/admission.py", "ready = (self.enable & ~self.hold & ~self.flush",
             "ready = (self.enable & ~self.flush"),
     doc="mutant: the core accepts requests while held; the core-side fact the register block assumes (idle falls only after a cycle without hold) must fail")
def _mutant_ready_in_hold():
    from .stream_props import StreamCount
    return StreamCount(small_params())


LISTS = "hdl/predictor/lists.py"


@job("mutant_lists_prefetch_unchecked", mode="bmc", depth=8, expect="FAIL", timeout=300,
     failing=("predictor_props.py:gtail2",),
     mutant=(LISTS, "self.gtail2_valid.eq(~valid_qq & (raddr_qq == self.gtail))",
             "self.gtail2_valid.eq(~valid_qq)"),
     doc="mutant: the gtail2 prefetch marked valid without the check that gtail is still the slot it read; P10 (three-stage lists) must fail")
def _mutant_prefetch_unchecked():
    from .predictor_props import ListsWellFormed
    return ListsWellFormed(4, registered=False)


@job("mutant_lists_prefetch_inverted", mode="bmc", depth=8, expect="FAIL", timeout=300,
     failing=("predictor_props.py:gtail2",),
     mutant=(LISTS, "self.gtail2_valid.eq(~valid_qq & (raddr_qq == self.gtail))",
             "self.gtail2_valid.eq(valid_qq & (raddr_qq == self.gtail))"),
     doc="mutant (docs/verification.md): ~valid_qq -> valid_qq in the gtail2 prefetch; P10 (three-stage lists) must fail")
def _mutant_prefetch_inverted():
    from .predictor_props import ListsWellFormed
    return ListsWellFormed(4, registered=False)


@job("mutant_shadow_before_last", mode="bmc", depth=10, expect="FAIL", timeout=300,
     failing=("predictor_props.py:shadow-hit",),
     mutant=("hdl/predictor/shadow.py", "before_last = (valid >> 1) & ~(valid >> 2)",
             "before_last = (valid >> 1) & (valid >> 2)"),
     doc="mutant (docs/verification.md): ~(valid >> 2) -> valid >> 2 in the shadow's place before the last; P10's shadow properties must fail")
def _mutant_shadow_before_last():
    from .predictor_props import ShadowWellFormed
    return ShadowWellFormed(4, bimodal=True, stages=2)

# SPDX-License-Identifier: Apache-2.0
"""Compare fast-bank replacement policies on one trace: LRU, Belady, libCacheSim's policies and
the KV-ASU in both of its modes.

    python -m evaluation.compare TRACE.npz --bank-lines N [--json F] [--entries E]
    python -m evaluation.compare TRACE.npz --bank-lines 1/K ...

``--bank-lines 1/K`` is a bank of a K-th of the trace's distinct lines (rounded down, at
least one line), as the evaluation report sizes its banks (1/8, 1/4, 1/2).

``TRACE.npz`` is any golden-model trace (:mod:`golden_model.trace`, as
``evaluation.workload.write_trace`` and the real-decoder CLI write them). Its OBSERVEs, in
order, are the access stream; every other request is ignored. Line ``= addr >> LINE_SHIFT``
(``meta["params"]["line_shift"]`` if the trace gives it, else 8; the trace's ``meta`` is
read as ``python -m golden_model.replay`` reads it, keys in any case, and refused where it
refuses it, a parameter or a configuration the block refuses too). Cycles
from 2^63 on are moved down by a multiple of 2^32 (every policy here uses only their
differences; the KV-ASU's timestamps, ``(cycle >> TICK_SHIFT) mod 2^TS_WIDTH``, use fewer
than 32 bits); a trace whose cycles span more than 2^63 is refused.

Every policy serves the same stream with a bank of ``N`` lines. An access to a resident
line is a hit; any other access is a miss, and the line is installed, evicting one line if
the bank is full. The hit rate is hits over all accesses (a trace holds no read/write
distinction, so a first write is a miss like a first read, for every policy alike).

Policies (JSON names):

- ``lru``, ``fifo``, ``belady``: :mod:`evaluation.baselines` (Belady's MIN may bypass, so
  it bounds every online policy).
- ``arc``, ``lirs``, ``s3fifo``, ``sieve``, ``wtinylfu``, and the learned ``lrb`` and
  ``glcache``: `libCacheSim <https://github.com/1a1a11a/libCacheSim>`_ 0.3.5 (objects of
  size 1, one request per access, the access index as the clock). ``lcs_lru`` and
  ``lcs_belady`` are libCacheSim's own LRU and Belady, to check the project's against:
  ``lru`` equals ``lcs_lru`` hit for hit; ``belady`` may bypass (not install a line whose
  next use is further than every resident line's) and libCacheSim's always installs, so
  ``lcs_belady`` is at most ``belady`` and close to it in a large bank, far below it in a
  bank of one or two lines.
  Each runs in a child process of its own, so that a policy the library stops with an
  abort is reported (``hit_rate`` ``null`` and an ``error``), not fatal. Three have a queue
  that is a share of the cache, and the library's share is empty in a small bank (no hit
  ever, or an abort): S3-FIFO's small FIFO (10 %) is given at least 2 lines and W-TinyLFU's
  window (1 %) at least 1 (``params`` in the JSON says when: banks under 20 and under 100
  lines; larger banks run with the library's defaults), and below the smallest bank each
  can run at, LIRS 3 lines, S3-FIFO 3, W-TinyLFU 6, the policy is reported as not run.
  The library is given a bank of at most twice the trace's distinct lines (and at least
  the policy's smallest bank, if the bank asked for is that large; ``bank_lines`` in the
  policy's JSON entry when it differs): a bank that size serves the stream as any larger
  one does, while W-TinyLFU's counting filter sized by a bank of 2**32 lines or more
  overflows. Not just the distinct lines: LIRS in a bank of exactly the distinct lines
  still evicts, and hits less often than in any larger bank. A policy whose hit rate is
  above Belady's holds more lines than the bank (LIRS at 2 lines did, which is why it
  starts at 3): its result is reported as an error, not a figure.
  ``same_hits_as_lru`` says when a policy hit exactly where LRU hits, access by access
  (the table marks it ``= LRU``): LRB ranks its lines as LRU does until its first training
  batch (libCacheSim's ``lrb.cpp``: no booster yet), so on a short trace the "learned"
  policy is LRU.
- ``kv_asu_article``, ``kv_asu_article_gate``: :func:`evaluation.runtime.run_runtime` with
  the KV-ASU in the spec's mode, gate off (residency decides, watermark GC with EVICT) and
  gate on (a resident line hits only at T-level >= 2). Its watermark GC evicts T0 lines
  whether or not the bank needs the room, so in a bank that holds every line it can still
  hit almost never: a line read again only after it has aged to T0 is evicted first (a
  loop over 100 lines, one read every 10 cycles: 0 % in a bank of 110 lines, where LRU
  and Belady hit 99 %).
- ``kv_asu_predictor``: the KV-ASU in the predictor mode (``docs/spec-predictor.md``)
  choosing the bank's victims: on a miss into a full bank the runtime sends ``EVICT_ANY``
  and drops the line it returns (the bank's own LRU line if the KV-ASU returns none or a
  line the bank does not hold: ``fallback_evictions``), then ``OBSERVE``; a hit sends
  ``OBSERVE``. A resident line the KV-ASU no longer tracks (its OBSERVE was dropped, or a
  later OBSERVE replaced it and reported it as the victim) is *untracked*: when the bank's
  own LRU line is untracked, the runtime evicts it without asking the KV-ASU
  (``untracked_evictions``), since the KV-ASU can never return it; an OBSERVE that tracks
  it again ends that.
- ``kv_asu_predictor_shipped``: the same with the shipped predictor build's table
  (``ENTRIES`` 2048), run where the table below is larger; a table smaller than twice the
  bank leaves more resident lines untracked.

``mcc`` (KV-ASU modes): the Matthews correlation of the block's answer with "the line is
accessed again within ``--window`` cycles" over every access. The predictor's answer is
its OBSERVE response's ``tlevel >= 3``; the article's is the T-level after the OBSERVE
``>= 2`` (the gate's threshold) of a KV-ASU that only watches the stream, as
``evaluation.sweep.prediction_scores`` scores it. ``None`` (``n/a``) when that label is the
same for every access (no access, or every access, is followed by a reuse within the
window, as ``base_rate`` 0 or 1 says): the correlation is then undefined, and 0 would read
as a useless prediction. A *prediction* the same for every access has MCC 0, as
scikit-learn's ``matthews_corrcoef`` gives it (a constant answer has no skill, whatever the
labels): ``prediction.positive_rate`` 0 or 1 in the mode's JSON says when.

``gap_closed``: ``(hit_rate - lru) / (belady - lru)``, ``None`` when Belady does not beat LRU.
``vs_lru_points``: ``100 * (hit_rate - lru)``, the difference in points, defined with or
without a gap (a share of a tiny gap can be thousands of percent).

The KV-ASU takes a line as the address ``line << 8``. A trace whose line numbers do not fit
that in 64 bits (short lines high in the address space) is renumbered 0, 1, ... in the
order of its line numbers for every policy (``lines_renumbered`` in the JSON); only the
KV-ASU's and W-TinyLFU's figures depend on the numbering (both hash the line).

The KV-ASU's table has ``--entries`` slots (default: the smallest power of two that is at
least 2048 and at least twice the bank, so the tracker can hold every resident line and as
many evicted ones; a tracker smaller than the bank cannot choose among lines it dropped). A
bank larger than the trace's distinct lines never evicts, so the table is then sized by the
distinct lines instead (the bank alone could ask for more memory than the machine has).

The KV-ASU runs with the parameters and the configuration above (``evaluation.runtime.
KvAsuConfig``'s), whatever the trace's ``meta`` says: a KV-ASU setting in
``meta["params"]`` or ``meta["config"]`` that differs from them (other than ``line_shift``,
read as above, and ``entries``, set by ``--entries``) is not applied, and the command says
so (``trace_settings_not_applied`` in the JSON).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from regmap import Params
from regmap.arguments import unwritable

from .baselines import simulate_belady, simulate_fifo, simulate_lru
from .metrics import classify, next_use_index, reuse_within
from .workload import KIND_DECODE_READ, LINE_SHIFT, Accesses

__all__ = ["LIBCACHESIM_MIN_LINES", "LIBCACHESIM_POLICIES", "access_stream", "bank_of_share", "compare",
           "default_entries", "int64_cycles", "isolated_libcachesim_hits", "kvasu_lines", "libcachesim_bank",
           "libcachesim_hits", "libcachesim_params", "run_predictor_bank", "settings_note",
           "strict_json", "summarise", "trace_block_settings", "trace_settings_not_applied",
           "ANCHORS", "SHIPPED_ENTRIES", "main"]

#: JSON name -> libCacheSim class name.
LIBCACHESIM_POLICIES = {"arc": "ARC", "lirs": "LIRS", "s3fifo": "S3FIFO", "sieve": "Sieve",
                        "wtinylfu": "WTinyLFU", "lrb": "LRB", "glcache": "GLCache",
                        "lcs_lru": "LRU", "lcs_belady": "Belady"}
#: The libCacheSim policies a case's best is taken among (``best_libcachesim``): not its
#: own LRU and Belady, which check the project's.
ANCHORS = ("arc", "lirs", "s3fifo", "sieve", "wtinylfu", "lrb", "glcache")
REUSE_WINDOW = 100
#: The table size of the shipped default and predictor builds (``dist/``; the iCE40 build
#: has 128): the register map's default ``ENTRIES``.
SHIPPED_ENTRIES = Params().ENTRIES
PREDICTOR_LEVEL = 3     #: the predictor mode's "reuse predicted" level (spec-predictor.md P5)
ARTICLE_LEVEL = 2       #: the article's gate threshold
_INT64_MAX = 2**63 - 1
_MAX_ENTRIES = 2**48      # far past any machine's memory; beyond, index sizes overflow
_CHUNK = 1 << 18          # requests per call of the golden model where it answers each


def default_entries(bank_lines: int, distinct_lines: int | None = None) -> int:
    """The table size the comparison gives the KV-ASU for a bank of ``bank_lines`` on a
    stream of ``distinct_lines`` distinct lines (module docstring)."""
    held = bank_lines if distinct_lines is None else min(bank_lines, distinct_lines)
    entries = SHIPPED_ENTRIES
    while entries < 2 * held:
        entries *= 2
    return entries


def access_stream(trace) -> tuple[np.ndarray, np.ndarray]:
    """``(lines, cycles)`` (int64) of the trace's OBSERVEs, in order (the module docstring
    says how ``line_shift`` and cycles from 2^63 on are read); ``ValueError`` for a ``meta``
    the replay refuses (:func:`trace_block_settings`; a ``line_shift`` the block refuses
    among them) or cycles that span more than 2^63."""
    params, _ = trace_block_settings(trace.meta)
    shift = params.get("line_shift", LINE_SHIFT)
    observe = trace.op == 0
    lines = (trace.addr[observe] >> np.uint64(shift)).astype(np.int64)
    return lines, int64_cycles(trace.cycle[observe])


def trace_block_settings(meta: dict) -> tuple[dict, dict]:
    """``(params, config)``: the block's settings in a trace's ``meta``, read as ``python -m
    golden_model.replay`` reads them (keys in lower case). ``ValueError`` for a ``meta`` the
    replay refuses: its form, or parameters or a configuration the block refuses, though the
    comparison applies neither (module docstring), so that a trace means one thing to every
    command."""
    from golden_model.replay import meta_settings, settings_model

    params, config, _ = meta_settings(meta, "the trace")
    settings_model(params, config, "meta['params'] of the trace", "meta['config'] of the trace")
    return params, config


def int64_cycles(cycles) -> np.ndarray:
    """Cycles (values of the 64-bit counter) as int64, which every policy here takes:
    cycles from 2^63 on are moved down by a multiple of 2^32 (module docstring), so that
    their differences and every tick boundary stay as they were. ``ValueError`` for a
    negative cycle or cycles that span more than 2^63."""
    cycles = np.asarray(cycles)
    if cycles.dtype.kind == "i" and len(cycles) and int(cycles.min()) < 0:
        raise ValueError(f"cycles must be >= 0, not {int(cycles.min())}")
    cycles = cycles.astype(np.uint64)
    if len(cycles) and int(cycles.max()) > _INT64_MAX:
        cycles = cycles - np.uint64((int(cycles.min()) >> 32) << 32)
        if int(cycles.max()) > _INT64_MAX:
            raise ValueError("the trace's cycles span more than 2^63")
    return cycles.astype(np.int64)


def bank_of_share(distinct_lines: int, k: int) -> int:
    """The bank of a ``k``-th of ``distinct_lines`` lines (rounded down, at least one line),
    as ``--bank-lines 1/K`` and the evaluation report size their banks."""
    return max(1, distinct_lines // k)


def kvasu_lines(lines: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(lines, renumbered)``: ``lines`` as the KV-ASU can take them. Unchanged when every
    line's address (``line << LINE_SHIFT``) fits in 64 bits, else renumbered 0, 1, ... in the
    order of the line numbers (a trace with short lines high in the address space). Every
    policy but the KV-ASU's is the same under any renumbering; the KV-ASU hashes the
    address, so its figures on such a trace are those of the renumbered stream."""
    lines = np.asarray(lines, dtype=np.int64)
    if len(lines) and (lines.min() < 0 or lines.max() >= 1 << (64 - LINE_SHIFT)):
        return np.unique(lines, return_inverse=True)[1].astype(np.int64).reshape(lines.shape), True
    return lines, False


def _check_stream(lines: np.ndarray, cycles: np.ndarray, bank_lines: int) -> None:
    if len(lines) == 0:
        raise ValueError("the trace has no OBSERVE: there is no access stream to compare on")
    if not isinstance(bank_lines, (int, np.integer)) or isinstance(bank_lines, bool):
        raise TypeError(f"bank_lines must be an integer, not {bank_lines!r}")
    if bank_lines < 1:
        raise ValueError(f"bank_lines must be at least 1, not {bank_lines}")
    if len(cycles) != len(lines):
        raise ValueError("lines and cycles differ in length")


# ---- libCacheSim ------------------------------------------------------------------------------

#: The smallest bank (lines) each libCacheSim policy runs at: below it a queue the policy
#: needs has no line (LIRS: its resident HIR part; S3-FIFO: the main FIFO beside a small
#: FIFO of 2; W-TinyLFU: the main SLRU beside a window of 1). The library then never hits
#: or aborts the process. LIRS at 2 lines runs but holds more than 2: it hit more often
#: than Belady's MIN on streams of 3 to 7 lines.
LIBCACHESIM_MIN_LINES = {"lirs": 3, "s3fifo": 3, "wtinylfu": 6}


def libcachesim_params(name: str, bank_lines: int) -> dict:
    """The constructor arguments of libCacheSim's policy ``name`` for a bank of
    ``bank_lines`` beside the size: none but where the library's share would leave a queue
    empty (module docstring). The library takes ``int(share * bank_lines)`` lines, so the
    share given is half a line above the wanted count."""
    if name == "s3fifo" and int(0.1 * bank_lines) < 2:
        return {"small_size_ratio": 2.5 / bank_lines}
    if name == "wtinylfu" and int(0.01 * bank_lines) < 1:
        return {"window_size": 1.5 / bank_lines}
    return {}


def libcachesim_bank(name: str, bank_lines: int, distinct_lines: int) -> int:
    """The bank libCacheSim's policy ``name`` is given for a bank of ``bank_lines`` on a
    stream of ``distinct_lines`` distinct lines (module docstring): ``bank_lines`` up to twice
    the distinct lines, or the policy's smallest bank if that is larger and ``bank_lines``
    reaches it. Every bank from there up serves the stream alike."""
    return min(bank_lines, max(2 * distinct_lines, LIBCACHESIM_MIN_LINES.get(name, 1)))


@contextlib.contextmanager
def _c_stderr_silenced():
    """File descriptor 2 on the null device for the block: what C code writes there (the
    library's own log lines) is dropped; Python's ``sys.stderr`` is flushed first and
    restored after."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def libcachesim_hits(name: str, lines: np.ndarray, bank_lines: int) -> np.ndarray:
    """Per access: True if libCacheSim's policy ``name`` (a key of
    :data:`LIBCACHESIM_POLICIES`) hits, with a cache of ``bank_lines`` objects of size 1
    (and :func:`libcachesim_params`). Raises ``ValueError`` below the policy's
    :data:`LIBCACHESIM_MIN_LINES`."""
    import libcachesim

    smallest = LIBCACHESIM_MIN_LINES.get(name, 1)
    if bank_lines < smallest:
        raise ValueError(f"{name} needs a bank of at least {smallest} lines, not {bank_lines}")
    with _c_stderr_silenced():       # GLCache logs its settings from C at construction
        cache = getattr(libcachesim, LIBCACHESIM_POLICIES[name])(
            bank_lines, **libcachesim_params(name, bank_lines))
    req = libcachesim.Request()
    req.obj_size = 1
    n = len(lines)
    hits = np.zeros(n, dtype=bool)
    get = cache.get
    if name == "lcs_belady":
        nxt = next_use_index(lines)
        nxt = np.where(nxt < n, nxt, _INT64_MAX).tolist()
        for i, line in enumerate(lines.tolist()):
            req.obj_id, req.clock_time, req.next_access_vtime = line, i, nxt[i]
            hits[i] = get(req)
    else:
        for i, line in enumerate(lines.tolist()):
            req.obj_id, req.clock_time = line, i
            hits[i] = get(req)
    return hits


def isolated_libcachesim_hits(name: str, lines: np.ndarray, bank_lines: int) -> np.ndarray:
    """:func:`libcachesim_hits` in a child process (forked): an exception in the child is
    raised here as ``RuntimeError`` with its text, and a child the library stops (an abort
    in its C code) as ``RuntimeError`` naming the signal."""
    import multiprocessing
    import signal

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child():
        import faulthandler

        faulthandler.disable()   # an abort is reported by the parent, without a stack dump here
        try:
            with _c_stderr_silenced():   # the C library's own warnings, coloured, as it runs
                hits = libcachesim_hits(name, lines, bank_lines)
            send.send(("hits", np.packbits(hits)))
        except BaseException as error:  # noqa: BLE001 - everything goes back to the parent
            send.send(("error", f"{type(error).__name__}: {error}"))
        finally:
            send.close()

    process = context.Process(target=child, daemon=True)
    process.start()
    send.close()
    try:
        kind, value = receive.recv()
    except EOFError:            # the child died before it answered
        process.join()
        code = process.exitcode
        why = (f"signal {-code} ({signal.Signals(-code).name})" if code is not None and code < 0
               else f"exit status {code}")
        raise RuntimeError(f"libCacheSim stopped the process running {name}: {why}") from None
    finally:
        receive.close()
    process.join()
    if kind == "error":
        raise RuntimeError(value)
    return np.unpackbits(value, count=len(lines)).astype(bool)


# ---- the KV-ASU ---------------------------------------------------------------------------------

def _model(entries: int, policy: str):
    from golden_model import KvAsuModel
    from .runtime import KvAsuConfig

    k = KvAsuConfig(entries=entries)
    return KvAsuModel(entries=k.entries, probe=k.probe, addr_width=64, line_shift=LINE_SHIFT,
                      count_width=k.count_width, ts_width=k.ts_width, tick_shift=k.tick_shift,
                      policy=policy)


def trace_settings_not_applied(meta: dict) -> dict:
    """``{key: {"trace": value, "used": value}}``: the KV-ASU settings of the trace's
    ``meta["params"]`` and ``meta["config"]`` (keys in any case, as ``python -m
    golden_model.replay`` reads them) that differ from those the comparison runs the KV-ASU
    with (module docstring). Keys that are no KV-ASU setting (a workload's own parameters)
    are left out. ``ValueError`` for a ``meta`` the replay refuses."""
    given = trace_block_settings(meta)
    model = _model(2048, "predictor")
    used = {key.lower(): value for key, value in model.params.as_dict().items()}
    used.update(model.config.as_dict())
    for key in ("line_shift", "entries", "tag_width"):   # read, set by --entries, derived
        del used[key]
    differ = {}
    for section in given:
        for key, value in section.items():
            if key in used and value != used[key]:
                differ[key] = {"trace": value, "used": used[key]}
    return differ


def strict_json(doc) -> str:
    """``doc`` as JSON text (indent 1) that any reader takes: ``ValueError`` for a value that
    is not a finite number, which Python would write as a bare ``NaN`` or ``Infinity``."""
    return json.dumps(doc, indent=1, allow_nan=False)


def settings_note(unapplied: dict) -> str:
    """The words that tell a user which of the trace's KV-ASU settings
    (:func:`trace_settings_not_applied`'s ``unapplied``) the comparison does not apply."""
    return ("the trace's KV-ASU setting(s) "
            + ", ".join(f"{k}={v['trace']!r}" for k, v in unapplied.items())
            + " are not applied: the KV-ASU runs with "
            + ", ".join(f"{k}={v['used']!r}" for k, v in unapplied.items()))


def count_duels(state) -> dict:
    """Count the loop detector's duels (spec-predictor.md P11) from now on: for every sampled
    OBSERVE, which of its two shadow directories hit (``lru_only``, ``bip_only``, ``both``,
    ``neither``). ``PSEL`` takes ``8 s`` for an ``lru_only`` and gives ``s`` for a
    ``bip_only`` (``s`` from the occupancy), so loop mode needs more than 8 of these per
    one of those. The counts come from the
    model's own shadows (``state.shadow_lru`` / ``shadow_bip``, ``PredictorState``),
    whose ``access`` it wraps on these two objects: the duel asks the LRU shadow first,
    then the BIP one."""
    counts = {"lru_only": 0, "bip_only": 0, "both": 0, "neither": 0}
    lru, bip = state.shadow_lru, state.shadow_bip
    lru_access, bip_access = lru.access, bip.access
    lru_hit = [False]

    def lru_counted(tag, capacity):
        lru_hit[0] = lru_access(tag, capacity)
        return lru_hit[0]

    def bip_counted(tag, capacity):
        hit = bip_access(tag, capacity)
        key = ("both" if hit else "lru_only") if lru_hit[0] else ("bip_only" if hit else "neither")
        counts[key] += 1
        return hit

    lru.access, bip.access = lru_counted, bip_counted
    return counts


def run_predictor_bank(lines: np.ndarray, cycles: np.ndarray, bank_lines: int,
                       entries: int | None = None) -> dict:
    """The bank with the predictor-mode KV-ASU choosing its victims (module docstring).

    Returns ``{"hits": bool array, "predicted": bool array (OBSERVE tlevel >= 3),
    "fallback_evictions": int, "loop_mode_share": share of OBSERVEs answered in the loop
    mode of spec-predictor.md P11, "ghost_rule_share": share of OBSERVEs after which P12's
    guard has the ghost rule on, "untracked_evictions": int, "duels": the loop detector's
    sampled outcomes (:func:`count_duels`), "kvasu_stats": dict}``.
    """
    lines = kvasu_lines(lines)[0]
    _check_stream(lines, cycles, bank_lines)
    from golden_model import Op

    model = _model(entries or default_entries(bank_lines, int(len(np.unique(lines)))), "predictor")
    request = model.request
    observe, evict_any = int(Op.OBSERVE), int(Op.EVICT_ANY)
    bank: OrderedDict = OrderedDict()        # least recently used first: the fallback order
    n = len(lines)
    hits = np.zeros(n, dtype=bool)
    predicted = np.zeros(n, dtype=bool)
    untracked: set = set()                   # resident lines the KV-ASU does not track
    fallback = untracked_evictions = in_loop = rule_on = 0
    state = model._predictor                 # read: the loop mode after each OBSERVE
    duels = count_duels(state)
    for i, (line, cycle) in enumerate(zip(lines.tolist(), cycles.tolist())):
        if line in bank:
            hits[i] = True
            bank.move_to_end(line)
        else:
            if len(bank) >= bank_lines:
                oldest = next(iter(bank))
                if oldest in untracked:
                    del bank[oldest]
                    untracked.discard(oldest)
                    untracked_evictions += 1
                else:
                    r = request(cycle, evict_any, 0)
                    if r.victim_valid and r.victim_tag in bank:
                        del bank[r.victim_tag]
                        untracked.discard(r.victim_tag)
                    else:
                        bank.popitem(last=False)
                        fallback += 1
            bank[line] = None
        r = request(cycle, observe, line << LINE_SHIFT)
        predicted[i] = r.tlevel >= PREDICTOR_LEVEL
        if r.tracked:
            untracked.discard(line)
        else:
            untracked.add(line)                      # dropped: resident, not tracked
        if r.victim_valid and r.victim_tag in bank:  # replaced: resident, no longer tracked
            untracked.add(r.victim_tag)
        in_loop += state.loop_mode
        rule_on += state.ghost_rule_on
    return {"hits": hits, "predicted": predicted, "fallback_evictions": fallback,
            "loop_mode_share": in_loop / n, "ghost_rule_share": rule_on / n,
            "untracked_evictions": untracked_evictions, "duels": duels,
            "kvasu_stats": model.stats.as_dict()}


def _accesses(lines: np.ndarray, cycles: np.ndarray) -> Accesses:
    """The stream as reads for :func:`evaluation.runtime.run_runtime` (no video tags)."""
    n = len(lines)
    return Accesses(cycle=cycles.astype(np.uint64), addr=(lines.astype(np.uint64) << np.uint64(LINE_SHIFT)),
                    is_write=np.zeros(n, bool), kind=np.full(n, KIND_DECODE_READ, np.uint8),
                    frame_index=np.zeros(n, np.int32), layer=np.zeros(n, np.int16),
                    head=np.zeros(n, np.int16), token=np.zeros(n, np.int32),
                    tag_frame=np.full(n, -1, np.int32), tag_row=np.full(n, -1, np.int16),
                    tag_col=np.full(n, -1, np.int16))


def _article_levels(lines: np.ndarray, cycles: np.ndarray, entries: int) -> np.ndarray:
    """T-level after each OBSERVE of an article-mode KV-ASU that only watches the stream."""
    model = _model(entries, "article")
    n = len(lines)
    levels = np.empty(n, np.uint8)
    # In chunks: the model keeps its state between calls, and a chunk's responses (Python
    # objects, about 200 bytes each) are dropped before the next one is made.
    for start in range(0, n, _CHUNK):
        part = slice(start, min(n, start + _CHUNK))
        rs = model.run(cycles[part].astype(np.uint64), np.zeros(part.stop - start, np.uint8),
                       lines[part].astype(np.uint64) << np.uint64(LINE_SHIFT), responses=True)
        levels[part] = np.fromiter((r.tlevel for r in rs), dtype=np.uint8, count=len(rs))
    return levels


# ---- the comparison -------------------------------------------------------------------------

def compare(lines: np.ndarray, cycles: np.ndarray, bank_lines: int, *, entries: int | None = None,
            window: int = REUSE_WINDOW, libcachesim: bool = True, article: bool = True,
            progress=None) -> dict:
    """Run every policy on ``(lines, cycles)`` with a bank of ``bank_lines``; the JSON
    document the CLI writes (see the module docstring). ``cycles``: values of the 64-bit
    counter, read as :func:`int64_cycles` reads them. ``libcachesim=False`` /
    ``article=False`` leave out libCacheSim's policies / the article-mode KV-ASU."""
    from .runtime import KvAsuConfig, RuntimeConfig, run_runtime

    lines, renumbered = kvasu_lines(lines)
    cycles = int64_cycles(cycles)
    _check_stream(lines, cycles, bank_lines)
    distinct = int(len(np.unique(lines)))
    if entries is None:
        entries = default_entries(bank_lines, distinct)
    _model(entries, "predictor")  # a table that cannot be built fails before any run
    say = progress or (lambda message: None)
    n = len(lines)
    label = reuse_within(lines, cycles, window)
    # A label the same for every access leaves the correlation undefined (None, not 0).
    mcc_defined = 0 < int(label.sum()) < n

    def scored(predicted) -> dict:
        """A mode's prediction scored against ``label``; its MCC None where undefined."""
        scores = classify(predicted, label).as_dict()
        return scores if mcc_defined else {**scores, "mcc": None}

    policies: dict[str, dict] = {}

    def record(name, hits, started, **extra):
        policies[name] = {"hit_rate": float(np.mean(hits)), "hits": int(np.sum(hits)), **extra,
                          "seconds": round(time.perf_counter() - started, 3)}
        say(f"  {name}: hit rate {policies[name]['hit_rate']:.4f}")

    baseline_hits = {}
    for name, fn in (("lru", simulate_lru), ("fifo", simulate_fifo), ("belady", simulate_belady)):
        started = time.perf_counter()
        baseline_hits[name] = fn(lines, bank_lines)
        record(name, baseline_hits[name], started)
    if libcachesim:
        for name in LIBCACHESIM_POLICIES:
            started = time.perf_counter()
            # (a far larger bank serves the stream alike; the library's own structures sized
            # by it could overflow)
            library_bank = libcachesim_bank(name, bank_lines, distinct)
            extra = {"source": "libcachesim 0.3.5"}
            if library_bank != bank_lines:
                extra["bank_lines"] = library_bank
            if params := libcachesim_params(name, library_bank):
                extra["params"] = params
            try:
                hits = isolated_libcachesim_hits(name, lines, library_bank)
            except RuntimeError as error:  # a policy that does not run is reported, not fatal
                policies[name] = {"hit_rate": None, "error": str(error)}
                say(f"  {name}: did not run: {error}")
                continue
            extra["same_hits_as_lru"] = bool(np.array_equal(
                np.asarray(hits, bool), np.asarray(baseline_hits["lru"], bool)))
            record(name, hits, started, **extra)

    levels = _article_levels(lines, cycles, entries) if article else None
    article_scores = scored(levels >= ARTICLE_LEVEL) if article else None
    acc = _accesses(lines, cycles)
    for name, gate in (("kv_asu_article", False), ("kv_asu_article_gate", True)) if article else ():
        started = time.perf_counter()
        cfg = RuntimeConfig(bank_lines=bank_lines, gate=gate, min_tlevel=ARTICLE_LEVEL,
                            kvasu=KvAsuConfig(entries=entries))
        result = run_runtime(acc, cfg)
        hits = result.served == 1
        record(name, hits, started, mcc=article_scores["mcc"], mcc_prediction=f"T-level after OBSERVE >= {ARTICLE_LEVEL}",
               prediction=article_scores, gated_refetches=result.gated_refetches, gc_evictions=result.gc_evictions,
               forced_evictions=result.forced_evictions)

    started = time.perf_counter()
    bank = run_predictor_bank(lines, cycles, bank_lines, entries)
    scores = scored(bank["predicted"])
    record("kv_asu_predictor", bank["hits"], started, mcc=scores["mcc"],
           mcc_prediction=f"OBSERVE tlevel >= {PREDICTOR_LEVEL}", prediction=scores,
           fallback_evictions=bank["fallback_evictions"], loop_mode_share=bank["loop_mode_share"],
           ghost_rule_share=bank["ghost_rule_share"], untracked_evictions=bank["untracked_evictions"],
           duels=bank["duels"], kvasu_stats=bank["kvasu_stats"])
    if entries > SHIPPED_ENTRIES:      # the table the shipped builds have, beside it
        started = time.perf_counter()
        shipped = run_predictor_bank(lines, cycles, bank_lines, SHIPPED_ENTRIES)
        record("kv_asu_predictor_shipped", shipped["hits"], started, entries=SHIPPED_ENTRIES,
               fallback_evictions=shipped["fallback_evictions"],
               untracked_evictions=shipped["untracked_evictions"])

    doc = {"accesses": n, "distinct_lines": distinct, "bank_lines": int(bank_lines),
           "entries": int(entries), "reuse_window_cycles": window, "base_rate": float(label.mean()),
           "lines_renumbered": renumbered, "policies": policies}
    summarise(doc)
    return doc


def summarise(doc: dict) -> None:
    """Set every policy's ``gap_closed`` and ``vs_lru_points`` and the document's
    ``best_libcachesim`` from the hit rates in ``doc["policies"]``. A policy that hit more
    often than Belady's MIN did not keep to the bank (MIN is the most any policy of that
    many lines hits): its entry becomes an error."""
    policies = doc["policies"]
    lru, belady = policies["lru"]["hit_rate"], policies["belady"]["hit_rate"]
    for name, entry in policies.items():
        if name != "belady" and entry.get("hit_rate") is not None and entry["hit_rate"] > belady:
            policies[name] = entry = {
                "hit_rate": None, "error": f"hit rate {entry['hit_rate']:.4f} above Belady's "
                f"{belady:.4f}: the policy held more lines than the bank"}
    for entry in policies.values():
        rate = entry.get("hit_rate")
        entry["gap_closed"] = (None if rate is None or belady <= lru
                               else (rate - lru) / (belady - lru))
        entry["vs_lru_points"] = None if rate is None else 100 * (rate - lru)
    anchors = [k for k in ANCHORS if policies.get(k, {}).get("hit_rate") is not None]
    doc["best_libcachesim"] = max(anchors, key=lambda k: policies[k]["hit_rate"]) if anchors else None


def _format(doc: dict) -> list[str]:
    rows = [f"{doc['accesses']} accesses, {doc['distinct_lines']} distinct lines, bank "
            f"{doc['bank_lines']} lines, KV-ASU table {doc['entries']} entries, reuse base rate "
            f"{doc['base_rate']:.3f} (within {doc['reuse_window_cycles']} cycles)"
            + (", lines renumbered 0, 1, ... (the KV-ASU's and W-TinyLFU's figures depend on the numbering)"
               if doc.get("lines_renumbered") else "")]
    for name, e in doc["policies"].items():
        if e.get("hit_rate") is None:
            rows.append(f"{name:20s} did not run: {e.get('error')}")
            continue
        points = ("" if e.get("vs_lru_points") is None
                  else f"  vs LRU {e['vs_lru_points']:+7.2f} pts")
        gap = "" if e["gap_closed"] is None else f"  gap closed {100 * e['gap_closed']:6.1f} %"
        mcc = ("" if "mcc" not in e else "  MCC n/a" if e["mcc"] is None
               else f"  MCC {e['mcc']:+.3f}")
        same = "  = LRU" if e.get("same_hits_as_lru") else ""
        rows.append(f"{name:20s} hit rate {100 * e['hit_rate']:6.2f} %{points}{gap}{mcc}{same}")
    return rows


def parse_bank(text: str) -> tuple[int | None, int | None]:
    """``--bank-lines``: ``(None, N)`` for ``"N"``, ``(K, None)`` for ``"1/K"``;
    ``ValueError`` for anything else or a size under 1."""
    text = text.strip()
    share = text[2:] if text.startswith("1/") else None
    try:
        value = int(text if share is None else share)
    except ValueError:
        raise ValueError(f"give a number of lines or 1/K, not {text!r}") from None
    if value < 1:
        raise ValueError(f"must be at least 1, not {text}" if share is None
                         else f"K of 1/K must be at least 1, not {share}")
    if value > _INT64_MAX:
        raise ValueError(f"must be at most 2^63 - 1, not {text}")
    return (None, value) if share is None else (value, None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.compare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", type=Path, help="a golden-model trace (.npz)")
    ap.add_argument("--bank-lines", required=True, metavar="N",
                    help="fast-bank size in lines, or 1/K: a K-th of the trace's distinct lines")
    ap.add_argument("--json", type=Path, metavar="F", help="also write the results as JSON to F")
    ap.add_argument("--entries", type=int, metavar="E",
                    help="KV-ASU table entries (a power of two; default: see above)")
    ap.add_argument("--window", type=int, default=REUSE_WINDOW, metavar="CYCLES",
                    help=f"reuse window of the MCC label (default {REUSE_WINDOW})")
    args = ap.parse_args(argv)
    from golden_model.trace import load_trace

    try:
        bank_share, bank_lines = parse_bank(args.bank_lines)
    except ValueError as error:
        ap.error(f"--bank-lines: {error}")
    if args.entries is not None and (args.entries < 4 or args.entries & (args.entries - 1)):
        ap.error(f"--entries must be a power of two, at least 4 (the table's PROBE), "
                 f"not {args.entries}")
    if args.entries is not None and args.entries > _MAX_ENTRIES:
        ap.error(f"--entries must be at most 2^{_MAX_ENTRIES.bit_length() - 1} (a table "
                 f"that could not be held in memory), not {args.entries}")
    if not 0 <= args.window <= _INT64_MAX:
        ap.error(f"--window must be 0..2^63 - 1, not {args.window}")
    if not args.trace.is_file():
        ap.error(f"{args.trace}: " + ("a folder, not a trace file" if args.trace.is_dir() else "no such file"))
    if args.json:                 # refused now, not after the run
        if not args.json.is_dir() and not args.json.parent.is_dir():
            ap.error(f"--json {args.json}: no such folder to write it in")
        if (reason := unwritable(args.json)) is not None:
            ap.error(f"--json {args.json}: {reason}")
    try:
        trace = load_trace(args.trace)
        lines, cycles = access_stream(trace)
        if len(lines) == 0:
            ap.error(f"{args.trace}: the trace has no OBSERVE, so no access stream")
        say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
        if bank_share is not None:
            bank_lines = bank_of_share(int(len(np.unique(lines))), bank_share)
        say(f"{args.trace}: {len(lines)} accesses, bank {bank_lines} lines; running every policy")
        unapplied = trace_settings_not_applied(trace.meta)
        if unapplied:
            say(f"note: {settings_note(unapplied)}")
        doc = compare(lines, cycles, bank_lines, entries=args.entries, window=args.window,
                      progress=say)
    except (ValueError, TypeError, OSError) as error:
        text = str(error)
        ap.error(text if text.startswith(str(args.trace)) else f"{args.trace}: {text}")
    except MemoryError:
        ap.error(f"not enough memory for a KV-ASU table of {args.entries} entries"
                 if args.entries else "not enough memory for this trace")
    doc["trace"] = str(args.trace)
    doc["trace_settings_not_applied"] = unapplied
    print("\n".join(_format(doc)))
    if args.json:
        try:
            text = strict_json(doc)
        except ValueError as error:
            print(f"error: --json {args.json}: not written: {error}", file=sys.stderr)
            return 1
        try:
            args.json.write_text(text)
        except OSError as error:
            print(f"error: --json {args.json}: {error}", file=sys.stderr)
            return 1
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

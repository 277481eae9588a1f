# SPDX-License-Identifier: Apache-2.0
"""cocotb tests of soft errors (docs/spec-decisions.md D11) on the protected build: a bit of
one block-RAM word flipped through the simulator's handle on the generated memory array.

The arrays are found as the fault campaign names them (``verif.faults.targets`` over the
build's Verilog, ``kv_asu.v`` beside the run configuration) and reached from the top-level
handle (``dut.core.table.ent0.memory[word]``; Verilator's cocotb build makes every memory
array public, ``verif.runner.public_signals``; Icarus gives VPI access to every array word). The flip is a deposit
into the word at a falling edge while the block is idle. Then the test reads the ``ERR_*``
registers over AXI4-Lite, tells the golden model the error the injection implies
(``KvAsuModel.on_error``, as the fast harness's ``verif.fast.SoftError`` flow does), and
every later response and register read is checked against the model told of it:

* ``flip_corrected``: one bit of a statistics word, SECDED-corrected by the counter
  engine's next visit and written back: ``ERR_CORRECTED`` 1, ``ERR_FIRST_MEM`` the
  statistics memory (not uncorrectable), ``ERR_FIRST_ADDR`` the counter, no recovery, the
  counter's value unchanged (a flip that a visit in flight writes its sum over before any
  read uses it leaves the word as it was and nothing to correct: it is checked to be so,
  and the bit flipped again);
* ``flip_recovered``: one bit of the ``ent`` word of a tracked line's slot; the next window
  read of it finds it uncorrectable (window reads are never corrected), the request is
  answered as an untracked line, the block forgets every line within the recovery bound
  (``ERR_LAST_RECOVERY <= R``, ``golden_model.soft_errors.recovery_bound``),
  ``STATUS.SOFT_ERROR`` is set, and the
  traffic after it is the model's from an empty table; ``CTRL.CLEAR_SOFT_ERROR`` clears it.
"""

from __future__ import annotations

import os
from pathlib import Path

from cocotb.triggers import ClockCycles, FallingEdge

from golden_model.soft_errors import recovery_bound
from regmap import MEM_IDS, REG, STAT_NAMES
from verif.kvasu_tb import CLEAR_STATS, ENABLE, OBSERVE, QUERY, KvAsuTB, tb_test

UNCORRECTABLE = REG["ERR_FIRST_MEM"].mask("UNCORRECTABLE")
# Flips of a statistics word tried before one must have been corrected (a flip overwritten
# by a visit's write-back in flight is harmless and leaves nothing to correct).
_ATTEMPTS = 4
CLEAR_SOFT_ERROR = REG["CTRL"].mask("CLEAR_SOFT_ERROR")
ST_SOFT_ERROR = REG["STATUS"].mask("SOFT_ERROR")


def _unprotected(cfg) -> str | None:
    """Why a run's build has no soft-error protection to flip against (``tb_test``'s
    ``skip``), or ``None``."""
    options = cfg.get("options") or {}
    if options.get("protection", "auto") == "none" or options.get("compact"):
        return "an unprotected build: nothing corrects or recovers a flip"
    return None


def memory_handle(tb: KvAsuTB, memory: str, bank):
    """The simulator handle of D11 memory ``memory`` (bank ``bank``), found in the build's
    Verilog as the fault campaign finds it."""
    from verif.faults import targets
    verilog = (Path(os.environ["KVASU_CONFIG"]).parent / "kv_asu.v").read_text()
    (target,) = [t for t in targets(verilog) if (t.memory, t.bank) == (memory, bank)]
    handle = tb.dut
    for part in target.array.name.split(".")[1:]:       # below the top module kv_asu
        handle = getattr(handle, part)
    return handle, target.array


async def _flip(tb: KvAsuTB, found, word: int, bit: int) -> tuple[int, int]:
    """Flip ``bit`` of ``word`` of the memory ``found`` (``memory_handle``'s answer) at a falling
    edge; returns the cycle of the next rising edge (the first that sees the flipped word)
    and the word as it was before the flip."""
    handle, array = found
    assert 0 <= word < array.depth and 0 <= bit < array.width, (array, word, bit)
    await FallingEdge(tb.dut.clk)
    cell = handle[word]
    before = int(cell.value)
    cell.value = before ^ (1 << bit)
    await ClockCycles(tb.dut.clk, 1)
    after = int(handle[word].value)
    assert after == before ^ (1 << bit), (f"the deposit into {array.name}[{word}] did not "
                                          f"take: {before:#x} -> {after:#x}")
    return tb.cycle_now(), before


async def _read_errors(tb: KvAsuTB) -> dict:
    """The ERR_* registers, checked against the mirror where it predicts them."""
    return {name: await tb.read_reg(name)
            for name in ("ERR_UNCORRECTED", "ERR_CORRECTED", "ERR_FIRST_MEM",
                         "ERR_FIRST_ADDR", "ERR_FIRST_CYCLE", "ERR_LAST_RECOVERY")}


async def _clear_and_check(tb: KvAsuTB):
    await tb.write_ctrl(CLEAR_SOFT_ERROR | ENABLE)
    errors = await _read_errors(tb)
    assert not any(errors.values()), errors
    assert not await tb.read_reg("STATUS") & ST_SOFT_ERROR


@tb_test(skip=_unprotected)
async def flip_corrected(tb: KvAsuTB):
    """A single flipped bit of a statistics word: corrected and counted, nothing else."""
    addrs = tb.spread_addrs(min(6, tb.p.ENTRIES // 2))
    await tb.batch([(OBSERVE, addr) for addr in addrs])
    await tb.idle(4 * len(STAT_NAMES))      # every counter visited and written back
    index = STAT_NAMES.index("observes")
    stats = memory_handle(tb, "stats", None)
    handle, _ = stats
    for attempt in range(_ATTEMPTS):
        bit = tb.rng.randrange(64)           # a data bit of the 64-bit counter word
        flipped, before = await _flip(tb, stats, index, bit)
        await tb.idle(4 * len(STAT_NAMES))  # the round-robin visit finds and corrects it
        if await tb.read_reg("ERR_CORRECTED", check=False):
            break
        # Not found: a visit of this counter that read the word before the flip was in
        # flight and wrote its sum back over the flipped word, which no read used (the
        # engine writes back every visit). The word is then as before, and the flip
        # left no trace; flip again.
        assert int(handle[index].value) == before, (
            f"flip {attempt} of bit {bit} neither corrected nor overwritten: "
            f"{before:#x} -> {int(handle[index].value):#x}")
        tb.cov.hit("flip.overwritten")
    else:
        raise AssertionError(f"none of {_ATTEMPTS} flips of a statistics word was corrected")
    now = tb.cycle_now()
    first = await tb.read_reg("ERR_FIRST_CYCLE", check=False)
    assert flipped - 1 <= first <= now, (flipped, first, now)
    tb.model.on_error("stats", index, corrected=True, cycle=first)
    errors = await _read_errors(tb)
    assert errors["ERR_FIRST_MEM"] == MEM_IDS["stats"], errors
    assert errors["ERR_FIRST_ADDR"] == index and errors["ERR_CORRECTED"] == 1, errors
    assert errors["ERR_UNCORRECTED"] == 0 and errors["ERR_LAST_RECOVERY"] == 0, errors
    await tb.check_quiescent("after a corrected statistics word")   # STAT_OBSERVES as before
    await tb.batch([(QUERY if i % 2 else OBSERVE, addr) for i, addr in enumerate(addrs)])
    await tb.check_quiescent("after traffic")
    await _clear_and_check(tb)
    tb.cov.hit("flip.corrected")


@tb_test(skip=_unprotected)
async def flip_recovered(tb: KvAsuTB):
    """A flipped bit of a tracked line's ``ent`` word: uncorrectable at the window read,
    a recovery within the bound, then the model's traffic from an empty table."""
    p = tb.p
    addrs = tb.spread_addrs(min(6, p.ENTRIES // 2))
    await tb.batch([(OBSERVE, addr) for addr in addrs])
    # Homes PROBE apart: every one is tracked, whatever the seed.
    assert all(tb.model.find(addr) is not None for addr in addrs), (addrs, tb.seed)
    victim = addrs[tb.rng.randrange(len(addrs))]
    slot = tb.model.find(victim)
    ent = memory_handle(tb, "ent", slot % p.PROBE)
    bit = tb.rng.randrange(ent[1].width)     # a data or a check bit of the code word
    await _flip(tb, ent, slot // p.PROBE, bit)
    # The injection implies it: the next window read of the slot finds it uncorrectable,
    # and the request whose window it is (the only one in flight) is the recovery's.
    tb.model.on_error("ent", slot, corrected=False)
    (accepted, rsp), = await tb.batch([(QUERY, victim)])
    assert rsp["present"] == 0, rsp            # answered as an untracked line
    recovering = REG["STATUS"].mask("RECOVERING")
    during = await tb.read_reg("STATUS", check=False) & recovering
    # the recovery's sweep alone takes ENTRIES / PROBE cycles: on the default build (512)
    # the STATUS read after the QUERY's response lands in it whatever the timing
    assert during or p.ENTRIES // p.PROBE < 64, \
        f"the recovery ended before a STATUS read right after its request (seed {tb.seed})"
    if during:
        # A CTRL action written during the recovery waits for its end (registers.md: a
        # write waits for a flush or recovery running), then applies as the mirror says.
        await tb.write_ctrl(CLEAR_STATS | ENABLE)
        assert not await tb.read_reg("STATUS", check=False) & recovering, \
            f"a CTRL action answered during the recovery (seed {tb.seed})"
        tb.cov.hit("flip.ctrl_action_during_recovery")
    await tb.wait_not_busy()                   # the recovery's sweep has ended
    tb.model.end_recovery()
    now = tb.cycle_now()
    errors = await _read_errors(tb)            # memory, slot, count checked by the mirror
    assert errors["ERR_FIRST_MEM"] == MEM_IDS["ent"] | UNCORRECTABLE, errors
    assert errors["ERR_FIRST_ADDR"] == slot and errors["ERR_UNCORRECTED"] == 1, errors
    assert accepted <= errors["ERR_FIRST_CYCLE"] <= now, (accepted, errors)
    bound = recovery_bound(p, tb.cfg["timing"]["latency"])
    assert 0 < errors["ERR_LAST_RECOVERY"] <= bound, (errors, bound)
    assert await tb.read_reg("STATUS") & ST_SOFT_ERROR
    await tb.check_quiescent("after the recovery")         # OCCUPANCY 0, statistics
    assert await tb.read_reg("OCCUPANCY") == 0
    # The traffic after it: every line is new again (inserted, not hit).
    results = await tb.batch([(OBSERVE, addr) for addr in addrs] +
                             [(QUERY, addr) for addr in addrs])
    assert all(r["present"] == 0 for _, r in results[:len(addrs)]), results
    await tb.check_quiescent("after traffic")
    await _clear_and_check(tb)
    tb.log.info("ent slot %d bit %d: detected at cycle %d, recovery %d cycles (bound %d)",
                slot, bit, errors["ERR_FIRST_CYCLE"], errors["ERR_LAST_RECOVERY"], bound)
    tb.cov.hit("flip.recovered")

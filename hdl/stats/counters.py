# SPDX-License-Identifier: Apache-2.0
"""``StatisticsCounters``: the component, its ports and its state; ``elaborate`` builds the
memory and one of the engines (``engine.py``, ``coded.py``). The testbench access
(``peek``, ``poke``, ``pre_values``) is ``testbench.py``'s."""

from amaranth import Module, Signal
from amaranth.hdl import MemoryData
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from regmap import STAT_NAMES

from ..ecc import check_protection
from ..layouts import check_int
from ..protect import ProtectedMemory
from .coded import coded_engine
from .engine import plain_engine
from .testbench import CountersTestbenchAccess

__all__ = ["StatisticsCounters"]


class StatisticsCounters(CountersTestbenchAccess, wiring.Component):
    """``count`` counters of ``width`` bits (modulo ``2**width``) in one block RAM.

    Behaviour (what the ports see)
        Counter ``i`` counts the cycles in which ``inc[i]`` is high; any number of ``inc``
        bits may be high in the same cycle, in every cycle. ``clear`` zeroes every counter
        (an increment in the same cycle counts after the clear, as with ``c.eq(inc)``).
        Reset zeroes every counter at once, without a clear sweep. ``rd_en`` samples one
        counter: ``rd_data`` :attr:`read_latency` cycles later is its exact value
        including every increment of the cycles before the ``rd_en`` cycle (the value a
        flip-flop counter has in the ``rd_en`` cycle), whatever ``clear`` does in the
        ``rd_en`` cycle.

    Implementation
        A memory word holds the bulk of each counter; pre-counter ``pre[i]``
        (:attr:`pre_width` flip-flops) holds the increments not yet folded in, and
        ``valid[i]`` (one flip-flop, reset to 0) says whether word ``i`` has been written
        since the last reset or clear: a word whose bit is 0 reads as 0, which is how reset
        and ``clear`` take one cycle whatever the memory holds. The engine *visits* at most
        one counter per cycle, in a three-stage pipeline (``stages=3``, the default; with
        ``stages=2``, stages B and C are one: the block RAM's output goes straight into the
        adder, nothing is forwarded and ``rd_data`` comes one cycle after ``rd_en``):

        * stage A presents the address to the memory's synchronous read port, moves
          ``pre[i]`` into the pipeline and restarts ``pre[i]`` from this cycle's increment;
        * stage B registers the memory word as it leaves the block RAM (0 if ``valid[i]``
          was 0 in stage A), so that the block RAM's clock-to-output time and the adder
          are in different cycles;
        * stage C adds the word and the moved increments, writes the sum back and sets
          ``valid[i]``.

        The value of counter ``i`` is therefore always ``(valid[i] ? mem[i] : 0) + pre[i]``
        plus the moved increments of a visit of ``i`` in stage B or C (:meth:`peek`). A
        round-robin pointer visits the counters in turn in every cycle that is *free*
        (neither ``rd_reserve`` nor ``rd_en`` high). A read is a forced visit of
        ``rd_addr`` in the ``rd_en`` cycle; its stage-C sum is ``rd_data``.

        The memory has no read-during-write bypass, and a word written by stage C in cycle
        ``t`` and read by stage A in ``t`` or ``t - 1`` would come out stale. Stage B never
        holds the counter that stage A visits: the pointer steps over the counter of stage
        B (which has just been visited), and a forced visit comes only after a
        ``rd_reserve`` cycle, in which no visit starts. When stage A visits the counter
        that stage C is writing, the sum of stage C is forwarded into stage B instead of
        the (then undefined) memory word. ``clear`` empties the pre-counters, zeroes
        ``valid`` and cancels the write-backs of the visits in stages A and B (whose sums
        still go to ``rd_data``: a read sampled in the ``clear`` cycle returns the value
        before the clear); stage C's write in the ``clear`` cycle lands but its word reads
        as 0.

        Since no read whose data is used ever meets a write of the same word, the memory
        carries the Yosys attribute ``no_rw_check``: without it Yosys emulates
        read-old-data on a collision with a 64-bit bypass (about 130 flip-flops and as many
        LUTs on iCE40). ``ram_style = "block"`` keeps it in DP16KD on ECP5 rather than in
        LUT RAM.

    Pre-counter size
        Every free cycle advances the pointer by one counter, so a counter is visited again
        at most ``count`` free cycles after a visit (a step-over of stage B's counter comes
        one cycle after its visit). With the read contract below at most 2 cycles of any 4
        consecutive ones are busy, which bounds the cycles between two visits of a counter
        by :attr:`max_gap` = ``2 * count + 2``; a pre-counter counts at most one increment
        per cycle of that gap, so :attr:`pre_width` = ``max_gap.bit_length()`` bits never
        overflow (the KV-ASU's statistics: a gap of at most 30 cycles, 5 bits).

    Read contract
        ``rd_en`` may be high only in the cycle right after a ``rd_reserve`` cycle, and of
        any 4 consecutive cycles at most 2 may have ``rd_reserve`` or ``rd_en`` high, never
        3 in a row. (The register block reserves in its AR handshake cycle and samples in
        the next; one read at a time with R at least 3 cycles later keeps it.)

    Parameters
    ----------
    count : int
        Number of counters (default: the KV-ASU's statistics, ``len(regmap.STAT_NAMES)``).
    width : int
        Width of each counter in bits.
    stages : int
        3 (default) or 2: the engine's pipeline (see above). :attr:`read_latency`
        (``stages - 1``, one more when protected with three stages) is the number of
        cycles from ``rd_en`` to ``rd_data``.
    protection : str
        ``"none"`` (default) or a ``hdl.ecc.PROTECTIONS`` code: the memory is a
        ``hdl.protect.ProtectedMemory`` (docs/spec-decisions.md D11). A visit whose word
        (valid, not forwarded) is corrected uses the corrected word; one whose word is
        uncorrectable, found in cycle ``d``, restarts the counter from zero at ``d``: the
        word and the increments the visit moved are dropped (and those a visit starting
        in ``d`` would move) and the pre-counter restarts from the increment of cycle
        ``d``, so the counter holds exactly the increments of the cycles from ``d`` on.
        With three stages the engine has five (``coded.coded_engine``): stage B's register
        is the read port's (the coded word as it leaves the block RAM,
        ``read_port(registered=True)``), stage C checks it (so ``d`` is the visit's
        stage-C cycle) and registers the stored word, its correction mask and the
        restart, stage D corrects and adds (and applies the restart of ``d``, with its
        effect in ``d``) and stage E writes the sum back from a register, so
        :attr:`read_latency` is 3; a visit takes the sum of a visit of its counter still
        in flight from stage E instead of the memory word.
        With two stages the check is stage B's. Adds the ports ``err_*`` (below).
    src_loc_at : int
        As for any Amaranth elaboratable (where an unused-instance warning points).

    Ports
    -----
    inc : In(count)
        Bit ``i`` high: counter ``i`` counts this cycle.
    clear : In(1)
        Zero every counter this cycle (``inc`` of the same cycle counts after it).
    rd_reserve : In(1)
        No visit starts this cycle: a ``rd_en`` may come next cycle.
    rd_en : In(1)
        Sample counter ``rd_addr`` (only in the cycle after ``rd_reserve``; see above).
    rd_addr : In(range(count))
        The counter ``rd_en`` samples.
    rd_data : Out(width)
        The sampled value, valid :attr:`read_latency` cycles after ``rd_en`` only
        (undefined otherwise).
    err_uncorrectable, err_corrected : Out(1), err_index : Out(range(count))
        Only with ``protection``: the visit checked this cycle found that, in that counter.

    Testbench helpers (amaranth.sim): :meth:`peek` (exact value of a counter),
    :meth:`poke` (preload a counter), :meth:`pre_values` (the pre-counters).
    """

    def __init__(self, count=len(STAT_NAMES), width=64, *, stages=3, protection="none",
                 src_loc_at=0):
        check_int("count", count, 2)
        check_int("width", width, 1)
        check_int("stages", stages, 2, 3)
        check_protection(protection)
        self.protection = protection
        self.count = count
        self.width = width
        self.stages = stages
        # (protected, three stages: one more, for the correction; see coded.py)
        self.read_latency = stages - 1 + (protection != "none" and stages == 3)
        self.max_gap = 2 * count + 2
        self.pre_width = min(self.max_gap.bit_length(), width)
        super().__init__({
            "inc": In(count),
            "clear": In(1),
            "rd_reserve": In(1),
            "rd_en": In(1),
            "rd_addr": In(range(count)),
            "rd_data": Out(width),
            **({"err_uncorrectable": Out(1), "err_corrected": Out(1),
                "err_index": Out(range(count))} if protection != "none" else {}),
        })
        # State created here rather than in elaborate() so that peek()/poke() can reach it.
        if protection != "none":
            self._pmem = ProtectedMemory(shape=width, depth=count, protection=protection,
                                         attrs={"ram_style": "block", "no_rw_check": 1})
            # Three stages: stage B's register is the read port's (the coded word as it
            # leaves the block RAM), checked in stage C and corrected in stage D.
            self._ports = (self._pmem.read_port(registered=stages == 3),
                           self._pmem.write_port())
            self._data = self._pmem.storage        # the coded words
            self._code = self._pmem.code
        else:
            self._pmem = None
            self._data = MemoryData(shape=width, depth=count, init=[])
        self._pre = [Signal(self.pre_width, name=f"pre{i}") for i in range(count)]
        self._valid = Signal(count)
        # Stage B: a visit whose memory word is leaving the block RAM.
        self._b_active = Signal()       # its sum will be written back
        self._b_addr = Signal(range(count))
        self._b_valid = Signal()        # valid[b_addr] when that visit was in stage A
        self._b_cap = Signal(self.pre_width)  # the increments it moved out of pre[b_addr]
        self._b_fwd = Signal()          # stage C was writing b_addr: use b_fwd_word
        self._b_fwd_word = Signal(width)
        # Stage C: the registered word, added and written back (with two stages, stage B
        # itself: these are then combinational copies of stage B's).
        self._c_active = Signal()
        self._c_addr = Signal(range(count))
        self._c_word = Signal(width)    # the word, 0 if it was not valid
        self._c_cap = Signal(self.pre_width)
        # Protected, three stages (the coded engine, `coded.py`): stages D (the
        # sum) and E (its write-back), and each visit's capture of stage E's sum.
        self._c_valid = Signal()
        self._c_fwd = Signal()
        self._c_fwd_word = Signal(width)
        self._d_active = Signal()
        self._d_addr = Signal(range(count))
        self._d_word = Signal(width)
        self._d_cap = Signal(self.pre_width)
        self._d_flip = Signal(width)    # the correction of d_word (its stored word)
        self._d_restart = Signal()      # its word was uncorrectable: the counter restarts
        self._inc_q = Signal(count)     # inc of the cycle before (the restart's cycle d)
        self._e_active = Signal()
        self._e_addr = Signal(range(count))
        self._e_total = Signal(width)
        # a visit is in stage B, C, D, E (active or cancelled: its sum is captured)
        self._here = [Signal(name=f"{x}_here") for x in "bcde"]
        self._ptr = Signal(range(count))  # the round-robin pointer

    @property
    def _coded(self):
        # the protected three-stage engine (coded.py)
        return self._pmem is not None and self.stages == 3

    # ---- hardware -----------------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        if self._pmem is not None:
            m.submodules.mem = self._pmem
            rd, wr = self._ports
        else:
            m.submodules.mem = mem = Memory(data=self._data,
                                            attrs={"ram_style": "block", "no_rw_check": 1})
            rd = mem.read_port()    # synchronous, not transparent
            wr = mem.write_port()
        if self._coded:
            coded_engine(self, m, rd, wr)
        else:
            plain_engine(self, m, rd, wr)
        return m

# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU statistics counters: wide counters kept in block RAM.

``StatisticsCounters(count, width)`` replaces ``count`` flip-flop counters of ``width`` bits
(13 x 64 in the KV-ASU) by one ``count`` x ``width`` memory (``amaranth.lib.memory``: EBR on
iCE40, DP16KD on ECP5), a small flip-flop pre-counter per counter and a read-modify-write
engine that folds the pre-counters into the memory. Seen from its ports it behaves exactly
like the flip-flop counters it replaces; see the class docstring for the contract.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.hdl import MemoryData
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .ecc import PROTECTIONS
from .protect import ProtectedMemory

__all__ = ["StatisticsCounters"]


class StatisticsCounters(wiring.Component):
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
        overflow (5 bits for 13 counters: gap <= 28).

    Read contract
        ``rd_en`` may be high only in the cycle right after a ``rd_reserve`` cycle, and of
        any 4 consecutive cycles at most 2 may have ``rd_reserve`` or ``rd_en`` high, never
        3 in a row. (The register block reserves in its AR handshake cycle and samples in
        the next; one read at a time with R at least 3 cycles later keeps it.)

    Parameters
    ----------
    count : int
        Number of counters.
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
        With three stages the engine has five (``_elaborate_coded``): stage B's register
        is the read port's (the coded word as it leaves the block RAM,
        ``read_port(registered=True)``), stage C checks it (so ``d`` is the visit's
        stage-C cycle) and registers the stored word, its correction mask and the
        restart, stage D corrects and adds (and applies the restart of ``d``, with its
        effect in ``d``) and stage E writes the sum back from a register, so
        :attr:`read_latency` is 3; a visit takes the sum of a visit of its counter still
        in flight from stage E instead of the memory word.
        With two stages the check is stage B's. Adds the ports
        ``err_uncorrectable``, ``err_corrected`` Out(1) and ``err_index``
        Out(range(count)): the visit checked this cycle found that, in that counter.
    src_loc_at : int
        As for any Amaranth elaboratable (where an unused-instance warning points).

    Attributes
    ----------
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

    Testbench helpers (amaranth.sim): :meth:`peek` (exact value of a counter),
    :meth:`poke` (preload a counter), :meth:`pre_values` (the pre-counters).
    """

    def __init__(self, count=13, width=64, *, stages=3, protection="none", src_loc_at=0):
        if not isinstance(count, int) or count < 2:
            raise ValueError(f"count must be an integer >= 2, not {count!r}")
        if not isinstance(width, int) or width < 1:
            raise ValueError(f"width must be a positive integer, not {width!r}")
        if stages not in (2, 3):
            raise ValueError(f"stages must be 2 or 3, not {stages!r}")
        if protection not in PROTECTIONS:
            raise ValueError(f"protection must be one of {PROTECTIONS}, not {protection!r}")
        self.protection = protection
        self.count = count
        self.width = width
        self.stages = stages
        # (protected, three stages: one more, for the correction; see _elaborate_coded)
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
        # Protected, three stages (the coded engine, `_elaborate_coded`): stages D (the
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

    # ---- testbench access (amaranth.sim) -------------------------------------------------

    def peek(self, ctx, i):
        """The exact value of counter ``i`` now, from a testbench."""
        if self._coded and ctx.get(self._d_restart) and ctx.get(self._d_addr) == i:
            return ctx.get(self._inc_q) >> i & 1    # restarted in the cycle before
        value = ctx.get(self._pre[i])
        if self._d_pending(ctx, i):
            value += ctx.get(self._e_total)             # not yet written back
        elif ctx.get(self._valid) >> i & 1:
            word = ctx.get(self._data[i])
            value += word if self._pmem is None else self._code.decode_int(word)[0]
        for active, addr, cap in self._in_flight():
            if ctx.get(active) and ctx.get(addr) == i:
                value += ctx.get(cap)
        return value % (1 << self.width)

    def _in_flight(self):
        """(active, addr, cap) of the visits whose sums are not yet in the memory."""
        stages = [(self._b_active, self._b_addr, self._b_cap)]
        if self.stages == 3:
            stages.append((self._c_active, self._c_addr, self._c_cap))
        if self._coded:
            stages.append((self._d_active, self._d_addr, self._d_cap))
        return stages

    @property
    def _coded(self):
        return self._pmem is not None and self.stages == 3

    def _d_pending(self, ctx, i):
        """Stage E holds counter ``i``'s sum, not yet in the memory."""
        return self._coded and ctx.get(self._e_active) and ctx.get(self._e_addr) == i

    def poke(self, ctx, i, value):
        """Set counter ``i`` to ``value`` from a testbench (not while a read is in flight)."""
        value %= 1 << self.width
        ctx.set(self._data[i], value if self._pmem is None else self._code.encode_int(value))
        ctx.set(self._valid, ctx.get(self._valid) | 1 << i)
        ctx.set(self._pre[i], 0)
        if self._coded:             # no visit in flight takes its sum any more
            addrs = (self._b_addr, self._c_addr, self._d_addr, self._e_addr)
            for here, addr in zip(self._here, addrs):
                if ctx.get(addr) == i:
                    ctx.set(here, 0)
            if self._d_pending(ctx, i):
                ctx.set(self._e_active, 0)
            if ctx.get(self._d_addr) == i:
                ctx.set(self._d_restart, 0)
        for active, addr, _ in self._in_flight():
            if ctx.get(active) and ctx.get(addr) == i:
                ctx.set(active, 0)       # its write-back would restore the old value

    def pre_values(self, ctx):
        """The pre-counters now (for overflow checks in testbenches)."""
        return [ctx.get(p) for p in self._pre]

    # ---- hardware -----------------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        n = self.count
        if self._pmem is not None:
            m.submodules.mem = self._pmem
            rd, wr = self._ports
        else:
            m.submodules.mem = mem = Memory(data=self._data,
                                            attrs={"ram_style": "block", "no_rw_check": 1})
            rd = mem.read_port()    # synchronous, not transparent
            wr = mem.write_port()
        pre, valid = self._pre, self._valid
        b_active, b_addr, b_valid, b_cap = self._b_active, self._b_addr, self._b_valid, self._b_cap
        b_fwd, b_fwd_word = self._b_fwd, self._b_fwd_word
        c_active, c_addr, c_word, c_cap = self._c_active, self._c_addr, self._c_word, self._c_cap

        if self._coded:
            return self._elaborate_coded(m, rd, wr)
        # Stage C: fold and write back.
        restart = C(0, 1)               # D11: stage B's word is uncorrectable
        if self._pmem is not None:
            restart = Signal(name="restart")
        total = Signal(self.width)
        m.d.comb += [
            total.eq(c_word + c_cap),
            self.rd_data.eq(total),
            wr.addr.eq(c_addr),
            wr.data.eq(total),
            wr.en.eq(c_active),
        ]
        with m.If(self.clear):
            m.d.sync += valid.eq(0)
        with m.Elif(c_active):
            m.d.sync += valid.bit_select(c_addr, 1).eq(1)

        # Stage A: choose the visit of this cycle.
        restarted = None
        if self._pmem is not None:
            m.d.comb += restart.eq(b_active & b_valid & ~b_fwd & rd.error)
            restarted = [restart & (b_addr == i) for i in range(n)]
        a_go, a_addr = self._stage_a(m, rd, pre, restarted)
        if self.stages == 3:
            a_fwd = Signal()
            m.d.comb += a_fwd.eq(c_active & (c_addr == a_addr))
            m.d.sync += [b_fwd.eq(a_fwd), b_fwd_word.eq(total)]

        # Stage B: register the word as it leaves the block RAM (three stages), or fold it
        # in this cycle (two stages: stage B is stage C, and nothing is forwarded).
        word_ok = b_valid
        if self._pmem is not None:
            checked = Signal()          # the visit uses the word as read
            m.d.comb += [
                checked.eq(b_active & b_valid & ~b_fwd),
                self.err_uncorrectable.eq(checked & rd.error),
                self.err_corrected.eq(checked & rd.corrected),
                self.err_index.eq(b_addr),
            ]
            word_ok = b_valid & ~rd.error
        if self.stages == 3:
            m.d.sync += [
                c_active.eq(b_active & ~self.clear),
                c_addr.eq(b_addr),
                c_word.eq(Mux(b_fwd, b_fwd_word, Mux(word_ok, rd.data, 0))),
                c_cap.eq(Mux(restart, 0, b_cap) if self._pmem is not None else b_cap),
            ]
        else:
            m.d.comb += [
                c_active.eq(b_active),
                c_addr.eq(b_addr),
                c_word.eq(Mux(word_ok, rd.data, 0)),
                c_cap.eq(Mux(restart, 0, b_cap) if self._pmem is not None else b_cap),
            ]
        return m

    def _stage_a(self, m, rd, pre_now, restarted=None):
        """Stage A, the same in both engines: the visit of this cycle (a forced one in a
        ``rd_en`` cycle, else in a free cycle the round-robin pointer's, stepping over the
        counter of stage B), its address on the read port ``rd``, the pointer's step, the
        visit into stage B's registers (``b_active``, ``b_addr``, ``b_valid``, ``b_cap``)
        and the pre-counters.

        ``pre_now[i]`` is pre-counter ``i`` as this cycle's visit takes it and as it counts
        on (the register itself, or a restarted value); ``restarted[i]`` (or ``None``)
        restarts it from this cycle's increment. Returns ``(a_go, a_addr)``: a visit
        starts, and its counter."""
        n, pre = self.count, self._pre
        b_active, b_addr = self._b_active, self._b_addr
        ptr = self._ptr
        free = ~self.rd_reserve & ~self.rd_en
        ptr_visit = free & ~(b_active & (b_addr == ptr))   # else step over b_addr
        a_go = self.rd_en | ptr_visit
        a_addr = Signal(range(n), name="a_addr")
        m.d.comb += [
            a_addr.eq(Mux(self.rd_en, self.rd_addr, ptr)),
            rd.addr.eq(a_addr),
        ]
        with m.If(free):
            m.d.sync += ptr.eq(Mux(ptr == n - 1, 0, ptr + 1))
        m.d.sync += [
            b_active.eq(a_go & ~self.clear),
            b_addr.eq(a_addr),
            self._b_valid.eq(self._valid.bit_select(a_addr, 1)),
            self._b_cap.eq(Array(pre_now)[a_addr]),
        ]
        for i in range(n):
            fresh = self.clear | (a_go & (a_addr == i))
            if restarted is not None:
                fresh = fresh | restarted[i]
            with m.If(fresh):
                m.d.sync += pre[i].eq(self.inc[i])
            with m.Else():
                m.d.sync += pre[i].eq(pre_now[i] + self.inc[i])
        return a_go, a_addr

    def _elaborate_coded(self, m, rd, wr):
        """The protected three-stage engine: five stages, every one behind registers.

        * A: the visit (``_stage_a``; the pointer steps over stage B's counter);
        * B: the coded word in the read port's register (``read_port(registered=True)``);
        * C: the word checked (``err_*``: the detection cycle ``d``); registered: the word
          as stored (or the forwarded sum), its correction mask and whether it is
          uncorrectable (``restart``), so that no correction sits in front of a register;
        * D: the word corrected and the sum (0 for an uncorrectable word: its word and its
          increments are dropped), ``rd_data`` (so ``read_latency`` is 3), registered; the
          restart of ``d`` applied to the pre-counter (see below);
        * E: the sum written back, and ``valid`` set.

        The restart found in ``d`` is applied in ``d + 1`` from registers, with the effect
        it has in ``d``: pre-counter ``i`` is then taken as ``inc`` of cycle ``d``
        (``inc_q``; what it would hold had it restarted in ``d``), and a visit of ``i``
        that started in ``d`` (in stage B in ``d + 1``) drops the increments it moved.

        A visit reads the memory before the sums of the visits of its counter that are
        up to four cycles ahead of it are written; it takes the newest of them instead,
        captured from stage E when that visit reaches it (in the visit's stage A, B or
        C; only from a visit of the same clear epoch, so that a sum from before a clear
        never reaches a visit after it)."""
        n = self.count
        pre, valid = self._pre, self._valid
        b_active, b_addr, b_valid, b_cap = self._b_active, self._b_addr, self._b_valid, self._b_cap
        b_fwd, b_fwd_word = self._b_fwd, self._b_fwd_word
        c_active, c_addr, c_cap = self._c_active, self._c_addr, self._c_cap
        c_valid, c_fwd, c_fwd_word = self._c_valid, self._c_fwd, self._c_fwd_word
        d_active, d_addr, d_word, d_cap = self._d_active, self._d_addr, self._d_word, self._d_cap
        d_flip, d_restart, inc_q = self._d_flip, self._d_restart, self._inc_q
        e_active, e_addr, e_total = self._e_active, self._e_addr, self._e_total
        clear = self.clear
        # The clear epoch of every visit (two bits: clears are CTRL actions, far more
        # than four cycles apart).
        epoch = Signal(2, name="epoch")
        b_ep, c_ep, d_ep, e_ep = (Signal(2, name=f"{x}_epoch") for x in "bcde")
        b_here, c_here, d_here, e_here = self._here
        with m.If(clear):
            m.d.sync += epoch.eq(epoch + 1)

        def from_e(addr, ep):
            return e_here & (e_addr == addr) & (e_ep == ep)

        # Stage E: the write-back.
        m.d.comb += [wr.addr.eq(e_addr), wr.data.eq(e_total), wr.en.eq(e_active)]
        with m.If(clear):
            m.d.sync += valid.eq(0)
        with m.Elif(e_active):
            m.d.sync += valid.bit_select(e_addr, 1).eq(1)

        # Stage D: the correction and the sum.
        total = Signal(self.width, name="total")
        m.d.comb += [total.eq(Mux(d_restart, 0, (d_word ^ d_flip) + d_cap)),
                     self.rd_data.eq(total)]
        m.d.sync += [e_active.eq(d_active & ~clear), e_addr.eq(d_addr), e_total.eq(total),
                     e_ep.eq(d_ep), e_here.eq(d_here)]

        # Stage C: check; the word as stored and its correction registered apart.
        restart = Signal(name="restart")
        checked = Signal(name="checked")    # the visit uses the word as read
        fwd_now = from_e(c_addr, c_ep)
        fwd = c_fwd | fwd_now
        m.d.comb += [
            checked.eq(c_active & c_valid & ~fwd),
            restart.eq(checked & rd.error),
            self.err_uncorrectable.eq(restart),
            self.err_corrected.eq(checked & rd.corrected),
            self.err_index.eq(c_addr),
        ]
        m.d.sync += [
            d_active.eq(c_active & ~clear), d_addr.eq(c_addr), d_ep.eq(c_ep),
            d_here.eq(c_here), d_restart.eq(restart), inc_q.eq(self.inc),
            d_word.eq(Mux(fwd, Mux(fwd_now, e_total, c_fwd_word), Mux(c_valid, rd.raw, 0))),
            d_flip.eq(Mux(checked, rd.flip, 0)),
            d_cap.eq(c_cap),
        ]

        # Stage B: the coded word is in the read port's register. (A visit that started
        # in d, of the counter restarted in d, moved increments from before d.)
        b_now = from_e(b_addr, b_ep)
        m.d.sync += [
            c_active.eq(b_active & ~clear), c_addr.eq(b_addr), c_valid.eq(b_valid),
            c_cap.eq(Mux(d_restart & (d_addr == b_addr), 0, b_cap)),
            c_ep.eq(b_ep), c_here.eq(b_here),
            c_fwd.eq(b_fwd | b_now), c_fwd_word.eq(Mux(b_now, e_total, b_fwd_word)),
        ]

        # Stage A: choose the visit of this cycle; the pre-counter restarted in d taken as
        # it would be had it restarted then (d's increment alone).
        pre_now = [Mux(d_restart & (d_addr == i), inc_q[i], pre[i]) for i in range(n)]
        a_go, a_addr = self._stage_a(m, rd, pre_now)
        a_now = from_e(a_addr, epoch)
        m.d.sync += [b_here.eq(a_go), b_ep.eq(epoch), b_fwd.eq(a_now), b_fwd_word.eq(e_total)]
        return m

# SPDX-License-Identifier: Apache-2.0
"""The statistics counters' engine (``StatisticsCounters``' class docstring) and its stage
A, which the protected engine (``coded.py``) shares. ``counters`` is the
``StatisticsCounters`` (its ports and its state, created with it so that the testbench
access reaches them), ``m`` its module."""

from amaranth import Array, C, Mux, Signal

__all__ = ["plain_engine", "stage_a"]


def plain_engine(counters, m, rd, wr):
    """The engine of the class docstring, built from its last stage back: stage C adds
    and writes back, stage A (``stage_a``) chooses the visit, stage B registers the word
    as it leaves the block RAM (three stages) or is stage C (two). With protection and
    two stages an uncorrectable word restarts its counter; with protection and three
    stages ``coded.coded_engine`` is built instead. ``rd`` and ``wr`` are the memory's
    read and write ports."""
    n = counters.count
    pre, valid = counters._pre, counters._valid
    b_active, b_addr, b_valid, b_cap = (counters._b_active, counters._b_addr, counters._b_valid,
                                        counters._b_cap)
    b_fwd, b_fwd_word = counters._b_fwd, counters._b_fwd_word
    c_active, c_addr, c_word, c_cap = (counters._c_active, counters._c_addr, counters._c_word,
                                       counters._c_cap)

    # Stage C: fold and write back.
    restart = C(0, 1)               # D11: stage B's word is uncorrectable
    if counters._pmem is not None:
        restart = Signal(name="restart")
    total = Signal(counters.width)
    m.d.comb += [
        total.eq(c_word + c_cap),
        counters.rd_data.eq(total),
        wr.addr.eq(c_addr),
        wr.data.eq(total),
        wr.en.eq(c_active),
    ]
    with m.If(counters.clear):
        m.d.sync += valid.eq(0)
    with m.Elif(c_active):
        m.d.sync += valid.bit_select(c_addr, 1).eq(1)

    # Stage A: choose the visit of this cycle.
    restarted = None
    if counters._pmem is not None:
        m.d.comb += restart.eq(b_active & b_valid & ~b_fwd & rd.error)
        restarted = [restart & (b_addr == i) for i in range(n)]
    a_go, a_addr = stage_a(counters, m, rd, pre, restarted)
    if counters.stages == 3:
        a_fwd = Signal()
        m.d.comb += a_fwd.eq(c_active & (c_addr == a_addr))
        m.d.sync += [b_fwd.eq(a_fwd), b_fwd_word.eq(total)]

    # Stage B: register the word as it leaves the block RAM (three stages), or fold it
    # in this cycle (two stages: stage B is stage C, and nothing is forwarded).
    word_ok = b_valid
    if counters._pmem is not None:
        checked = Signal()          # the visit uses the word as read
        m.d.comb += [
            checked.eq(b_active & b_valid & ~b_fwd),
            counters.err_uncorrectable.eq(checked & rd.error),
            counters.err_corrected.eq(checked & rd.corrected),
            counters.err_index.eq(b_addr),
        ]
        word_ok = b_valid & ~rd.error
    if counters.stages == 3:
        m.d.sync += [
            c_active.eq(b_active & ~counters.clear),
            c_addr.eq(b_addr),
            c_word.eq(Mux(b_fwd, b_fwd_word, Mux(word_ok, rd.data, 0))),
            c_cap.eq(Mux(restart, 0, b_cap) if counters._pmem is not None else b_cap),
        ]
    else:
        m.d.comb += [
            c_active.eq(b_active),
            c_addr.eq(b_addr),
            c_word.eq(Mux(word_ok, rd.data, 0)),
            c_cap.eq(Mux(restart, 0, b_cap) if counters._pmem is not None else b_cap),
        ]


def stage_a(counters, m, rd, pre_now, restarted=None):
    """Stage A, the same in both engines: the visit of this cycle (a forced one in a
    ``rd_en`` cycle, else in a free cycle the round-robin pointer's, stepping over the
    counter of stage B), its address on the read port ``rd``, the pointer's step, the
    visit into stage B's registers (``b_active``, ``b_addr``, ``b_valid``, ``b_cap``)
    and the pre-counters.

    ``pre_now[i]`` is pre-counter ``i`` as this cycle's visit takes it and as it counts
    on (the register itself, or a restarted value); ``restarted[i]`` (or ``None``)
    restarts it from this cycle's increment. Returns ``(a_go, a_addr)``: a visit
    starts, and its counter."""
    n, pre = counters.count, counters._pre
    b_active, b_addr = counters._b_active, counters._b_addr
    ptr = counters._ptr
    free = ~counters.rd_reserve & ~counters.rd_en
    ptr_visit = free & ~(b_active & (b_addr == ptr))   # else step over b_addr
    a_go = counters.rd_en | ptr_visit
    a_addr = Signal(range(n), name="a_addr")
    m.d.comb += [
        a_addr.eq(Mux(counters.rd_en, counters.rd_addr, ptr)),
        rd.addr.eq(a_addr),
    ]
    with m.If(free):
        m.d.sync += ptr.eq(Mux(ptr == n - 1, 0, ptr + 1))
    m.d.sync += [
        b_active.eq(a_go & ~counters.clear),
        b_addr.eq(a_addr),
        counters._b_valid.eq(counters._valid.bit_select(a_addr, 1)),
        counters._b_cap.eq(Array(pre_now)[a_addr]),
    ]
    for i in range(n):
        fresh = counters.clear | (a_go & (a_addr == i))
        if restarted is not None:
            fresh = fresh | restarted[i]
        with m.If(fresh):
            m.d.sync += pre[i].eq(counters.inc[i])
        with m.Else():
            m.d.sync += pre[i].eq(pre_now[i] + counters.inc[i])
    return a_go, a_addr

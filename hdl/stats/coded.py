# SPDX-License-Identifier: Apache-2.0
"""The statistics counters' protected three-stage engine (D11). ``counters`` is the
``StatisticsCounters``, ``m`` its module."""

from amaranth import Mux, Signal

from .engine import stage_a

__all__ = ["coded_engine"]


def coded_engine(counters, m, rd, wr):
    """The protected three-stage engine: five stages, every one behind registers.

    * A: the visit (``engine.stage_a``; the pointer steps over stage B's counter);
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
    n = counters.count
    pre, valid = counters._pre, counters._valid
    b_active, b_addr, b_valid, b_cap = counters._b_active, counters._b_addr, counters._b_valid, counters._b_cap
    b_fwd, b_fwd_word = counters._b_fwd, counters._b_fwd_word
    c_active, c_addr, c_cap = counters._c_active, counters._c_addr, counters._c_cap
    c_valid, c_fwd, c_fwd_word = counters._c_valid, counters._c_fwd, counters._c_fwd_word
    d_active, d_addr, d_word, d_cap = counters._d_active, counters._d_addr, counters._d_word, counters._d_cap
    d_flip, d_restart, inc_q = counters._d_flip, counters._d_restart, counters._inc_q
    e_active, e_addr, e_total = counters._e_active, counters._e_addr, counters._e_total
    clear = counters.clear
    # The clear epoch of every visit (two bits: clears are CTRL actions, far more
    # than four cycles apart).
    epoch = Signal(2, name="epoch")
    b_ep, c_ep, d_ep, e_ep = (Signal(2, name=f"{x}_epoch") for x in "bcde")
    b_here, c_here, d_here, e_here = counters._here
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
    total = Signal(counters.width, name="total")
    m.d.comb += [total.eq(Mux(d_restart, 0, (d_word ^ d_flip) + d_cap)),
                 counters.rd_data.eq(total)]
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
        counters.err_uncorrectable.eq(restart),
        counters.err_corrected.eq(checked & rd.corrected),
        counters.err_index.eq(c_addr),
    ]
    m.d.sync += [
        d_active.eq(c_active & ~clear), d_addr.eq(c_addr), d_ep.eq(c_ep),
        d_here.eq(c_here), d_restart.eq(restart), inc_q.eq(counters.inc),
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
    a_go, a_addr = stage_a(counters, m, rd, pre_now)
    a_now = from_e(a_addr, epoch)
    m.d.sync += [b_here.eq(a_go), b_ep.eq(epoch), b_fwd.eq(a_now), b_fwd_word.eq(e_total)]

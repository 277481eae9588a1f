# SPDX-License-Identifier: Apache-2.0
"""Properties 4 and 5: one response per accepted request, in order; bounded waiting and the
fixed latency.

Property 4 (``StreamCount``, ``StreamOrder``), free environment (``rsp.ready``, ``enable``,
``hold`` free; flush only when idle):

* ``pending`` = accepted - taken responses, a harness counter. Never a response when
  ``pending == 0`` (no response without a request, none duplicated); ``pending`` never
  exceeds the response FIFO depth (``latency + 2``), and equals the core's credit counter
  and the number of requests in the pipeline stages + the L stage + the FIFO (invariants
  that make the count inductive).
* Marked request (``StreamOrder``): at an acceptance a free input ``mark`` may pick that
  request (once per run). The harness records its ``op`` and the number of responses
  still owed before it (``pending`` minus a response taken in the same cycle). Each taken
  response counts that down; the response taken when it is 0 must carry the marked
  ``op``. Since the solver chooses which request to mark and every request's ``op``, a
  lost or duplicated response, or a reordering of responses of different ``op``, shows up
  as a wrong ``op`` or as a response with ``pending == 0``. Only ``op`` is compared, and
  ``op`` is not data to the core, so this is no data-independence argument: a swap of two
  responses of the same ``op`` would pass (the simulations' scoreboards compare every
  field of every response, docs/formal.md P4). BMC only (the marked request's position in the FIFO memory is not expressed as an
  inductive invariant).

Property 5:

* ``FixedLatency`` (``rsp.ready``, ``enable`` always high, no ``hold``, no flush): a
  response is valid in cycle ``a + latency`` exactly when a request was accepted in cycle
  ``a``, with that request's ``op`` (so every accepted request is answered within the fixed
  latency, in order); OBSERVE / QUERY are never refused (not even right after an EVICT);
  an EVICT / EVICT_ANY is refused only if an OBSERVE was accepted in one of the
  ``evict_gap`` previous cycles or an EVICT / EVICT_ANY in one of the ``evict_evict_gap``
  previous cycles (a QUERY never counts; both fewer with the compact pipeline), so a held
  request waits at most ``evict_gap`` cycles. The exception is the clear sweep
  (``flushing``, ``ENTRIES / PROBE`` cycles) after the one reset or flush in
  ``2**GEN_WIDTH`` that has used every table generation.
* ``Drain`` (``enable`` high, no ``hold``, no flush, ``rsp.ready`` free): once ``rsp.ready``
  has been high in the previous cycle and in this one, OBSERVE / QUERY are ready: back-
  pressure never blocks the request side for longer than it lasts plus one cycle (outside
  the clear sweep).
"""

from amaranth import *
from amaranth.hdl import Assert, Assume
from amaranth.hdl._ast import AnySeq
import regmap

from .common import popcount
from .core_harness import CoreHarness

__all__ = ["StreamCount", "StreamOrder", "FixedLatency", "Drain"]


def _pending(h, m):
    depth = h.core.fifo_depth
    pending = Signal(range(2 * depth + 2))
    m.d.sync += pending.eq(pending + h.accept - h.pop)
    h.pending = pending
    return pending


def _delay(m, sig, n, name):
    out = []
    prev = sig
    for k in range(n):
        d = Signal(len(Value.cast(sig)), name=f"{name}_d{k}")
        m.d.sync += d.eq(prev)
        out.append(d)
        prev = d
    return out


class StreamCount(CoreHarness):
    def properties(self, m):
        self.register_block_facts(m)
        pending = _pending(self, m)
        depth = self.core.fifo_depth
        fifo = self.core.fifo
        # The pipeline never stalls: the request accepted in cycle a is written into the
        # response FIFO in cycle a + latency - 2 (SyncFIFOBuffered shows an entry 2 cycles
        # after its write) with its op, and the FIFO is never written while full (the
        # credit counter's job).
        D = self.core.latency - 2
        acc = _delay(m, self.accept, D, "acc")
        ops = _delay(m, self.req_payload.op, D, "op")
        m.d.comb += Assert(fifo.w_en == acc[-1])
        with m.If(fifo.w_en):
            m.d.comb += Assert(fifo.w_data[:2] == ops[-1])
        m.d.comb += Assert(~fifo.w_en | fifo.w_rdy)
        m.d.comb += [
            Assert(~self.pop | (pending > 0)),
            Assert(pending <= depth),
            Assert(pending == self.inflight),
            Assert(pending == popcount([st[0] for st in self.stages]) + self.l_valid
                   + self.fifo_level),
        ]


class StreamOrder(StreamCount):
    def properties(self, m):
        super().properties(m)      # helper invariants (proven by stream_count_prove)
        pending = self.pending
        depth = self.core.fifo_depth
        mark = Signal()
        m.d.comb += mark.eq(AnySeq(1))
        active = Signal()
        done = Signal()
        pos = Signal(range(2 * depth + 2))
        op = Signal(2)
        with m.If(active & self.pop):
            with m.If(pos == 0):
                m.d.comb += Assert(self.core.rsp.payload.op == op)
                m.d.sync += [active.eq(0), done.eq(1)]
            with m.Else():
                m.d.sync += pos.eq(pos - 1)
        with m.If(self.accept & mark & ~active & ~done):
            m.d.sync += [active.eq(1), op.eq(self.req_payload.op),
                         pos.eq(pending - self.pop)]


class FixedLatency(StreamCount):
    def __init__(self, params, **kw):
        super().__init__(params, always_ready=True, **kw)

    def properties(self, m):
        super().properties(m)      # helper invariants
        L = self.core.latency
        acc = [Signal(name=f"acc_d{k}") for k in range(L)]
        ops = [Signal(2, name=f"op_d{k}") for k in range(L)]
        m.d.sync += [acc[0].eq(self.accept), ops[0].eq(self.req_payload.op)]
        for k in range(1, L):
            m.d.sync += [acc[k].eq(acc[k - 1]), ops[k].eq(ops[k - 1])]
        rsp = self.core.rsp
        # Helper invariant: with the consumer always ready, the FIFO holds exactly the
        # responses written in the last two cycles.
        D = L - 2
        m.d.comb += Assert(self.fifo_level == acc[D] + acc[D + 1])
        m.d.comb += Assert(rsp.valid == acc[L - 1])
        with m.If(rsp.valid):
            m.d.comb += Assert(rsp.payload.op == ops[L - 1])
        # (the clear sweep after reset is the one other reason to wait)
        ready = self.core.req.ready | self.core.flushing
        m.d.comb += Assert(self.req_payload.op[1] | ready)
        # an EVICT waits for the LRU tail: only for an OBSERVE accepted in the evict_gap
        # cycles before it or an EVICT / EVICT_ANY in the evict_evict_gap cycles before it
        # (a QUERY gives no LRU command)
        gap, evict_gap = self.core.evict_gap, self.core.evict_evict_gap
        m.d.comb += Assert(Cat(*[acc[k] & (ops[k] == regmap.OPS["OBSERVE"])
                                 for k in range(gap)],
                               *[acc[k] & ops[k][1] for k in range(evict_gap)]).any() | ready)


class Drain(StreamCount):
    def __init__(self, params, **kw):
        super().__init__(params, no_flush=True, **kw)

    def environment(self, m):
        """The assumption beyond the harness's ``no_flush``: ``enable`` high, no ``hold``
        (also the environment of ``covers_drain``)."""
        m.d.comb += Assume(self.enable & ~self.hold)

    def properties(self, m):
        super().properties(m)      # helper invariants
        self.environment(m)
        rr1 = Signal()
        m.d.sync += rr1.eq(self.rsp_ready)
        m.d.comb += Assert(~(rr1 & self.rsp_ready) | self.req_payload.op[1] |
                           self.core.req.ready | self.core.flushing)

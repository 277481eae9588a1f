# SPDX-License-Identifier: Apache-2.0
"""The statistics counters' testbench access: exact values read and set from an
``amaranth.sim`` testbench, with every increment still in a pre-counter or a visit in
flight accounted for."""

__all__ = ["CountersTestbenchAccess"]


class CountersTestbenchAccess:
    """``peek``, ``poke`` and ``pre_values`` of ``StatisticsCounters``, over the state its
    constructor makes (``_pre``, ``_valid``, ``_data`` and the stages' registers)."""

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

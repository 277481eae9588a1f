# SPDX-License-Identifier: Apache-2.0
"""One error report from the checks of many read ports (``hdl.protect.ProtectedMemory``'s
``error``, ``corrected`` and ``error_addr``): the component's ``err_uncorrectable``,
``err_corrected``, ``err_mem`` and ``err_slot`` (docs/spec-decisions.md D11). With
``registered=True`` each check is registered first, so that the collection starts from
flip-flops."""

from amaranth import C, Cat, Mux, Signal, Value

__all__ = ["collect_errors"]


def _first(flags, values):
    """``(any, value)``: whether any of ``flags`` is set and the ``values`` entry of the
    first that is (0 if none), as a balanced tree of 2:1 choices (its depth grows with the
    logarithm of the number of checks, not with the number)."""
    if len(flags) == 1:
        return flags[0], Mux(flags[0], values[0], 0)
    half = len(flags) // 2
    lo_any, lo = _first(flags[:half], values[:half])
    hi_any, hi = _first(flags[half:], values[half:])
    return lo_any | hi_any, Mux(lo_any, lo, hi)


def collect_errors(m, c, checks, *, registered=False):
    """Drive ``c``'s ``err_uncorrectable``, ``err_corrected``, ``err_mem`` and ``err_slot``
    from ``checks`` (``(uncorrectable, corrected, MEM_ID, address)``, in priority order):
    the first uncorrectable one, else the first corrected. With ``registered`` each check's
    flags and address are registered first and the report is of the checks of the cycle
    before; an ``uncorrectable`` of more than one bit (e.g. ``Code.failed_rows``) is then
    registered as is and ORed after the register. Returns the OR of the uncorrectable flags
    the report is made of (with ``registered``, of the registered ones)."""
    if registered:
        regd = []
        for k, (unc_k, cor_k, mem_id, addr_k) in enumerate(checks):
            unc_k = Value.cast(unc_k)
            q = (Signal(len(unc_k), name=f"chk{k}_unc"), Signal(name=f"chk{k}_cor"),
                 Signal(len(c.err_slot), name=f"chk{k}_addr"))
            m.d.sync += [q[0].eq(unc_k), q[1].eq(cor_k), q[2].eq(addr_k)]
            regd.append((q[0], q[1], mem_id, q[2]))
        checks = regd
    unc = Cat(Value.cast(x[0]).any() for x in checks)
    cor = Cat(x[1] for x in checks)
    # (the wide OR of every registered bit, not of the per-check ORs: one tree)
    any_unc = Cat(x[0] for x in checks).any()
    m.d.comb += [c.err_uncorrectable.eq(any_unc), c.err_corrected.eq(cor.any())]
    ids = [C(x[2], 4) for x in checks]
    addrs = [Value.cast(x[3]) for x in checks]
    unc_any, unc_mem = _first(list(unc), ids)
    _, unc_addr = _first(list(unc), addrs)
    cor_any, cor_mem = _first(list(cor), ids)
    _, cor_addr = _first(list(cor), addrs)
    m.d.comb += [c.err_mem.eq(Mux(unc_any, unc_mem, cor_mem)),
                 c.err_slot.eq(Mux(unc_any, unc_addr, cor_addr))]
    return any_unc

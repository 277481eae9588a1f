# SPDX-License-Identifier: Apache-2.0
"""Out-of-context timing harness: any component, two pins.

The KV-ASU has hundreds of port bits (a 64-bit address in, a 93-bit response out, an
AXI4-Lite port); no package has that many pins, and pins would put I/O timing on every
path. The harness instead drives every input bit of the core from a flip-flop of a
pseudo-random shift chain and folds every output bit into a multiple-input signature
register (MISR) that ends in one pin. So:

* every path nextpnr times is a register-to-register path: the core's own paths, plus at
  most one XOR of harness logic in front of a MISR flip-flop;
* the core's reset, too, comes from a flip-flop (the ``rst`` pin registered, as a reset
  synchronizer gives it in a chip), so its fan-out to the core's flip-flops is timed with
  the rest (nextpnr takes a pin's paths as asynchronous and leaves them out of the Fmax);
  the core leaves reset one cycle after the pin;
* no core logic can be optimised away (every output reaches the ``misr_out`` pin through
  the MISR);
* the reported Fmax is the core's, as it would be when integrated behind registered ports.

It is also a usable board smoke test: with a clock and a reset, the ``misr_out`` pin
toggles pseudo-randomly as long as the core runs. Stimulus is random, so AXI and stream
handshakes are exercised without being protocol-correct; the harness measures timing and
resources, not function (function is the cocotb regression's job).
"""

from amaranth import (Cat, ClockDomain, ClockSignal, DomainRenamer, Module, ResetSignal,
                      Signal, Value)
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["OutOfContextHarness"]

# Taps of a maximal-length 32-bit Fibonacci LFSR (x^32 + x^22 + x^2 + x + 1).
_LFSR_TAPS = (31, 21, 1, 0)


class OutOfContextHarness(wiring.Component):
    """Wraps ``core`` between a stimulus shift chain and an output MISR.

    Parameters
    ----------
    core : wiring.Component
        Any component whose signature flattens to plain signals (streams and interfaces
        are fine). Its ``In`` members are driven, its ``Out`` members are observed.

    Ports
    -----
    misr_out : Out(1)
        Last bit of the MISR; depends on every output bit of the core.

    Attributes
    ----------
    core : wiring.Component
        The wrapped component.
    """

    misr_out: Out(1)

    def __init__(self, core):
        if not isinstance(core, wiring.Component):
            self._MustUse__silence = True   # refused: don't also warn that it went unused
            raise TypeError(f"core must be a wiring.Component, not {core!r}")
        self.core = core
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        core = self.core
        # The core's reset comes from a flip-flop, as from a reset synchronizer in a chip:
        # its paths to the core's flip-flops are then register-to-register paths and timed.
        # (The flip-flop has no reset of its own: it follows the pin. The stimulus and the
        # MISR keep the pin's reset: their paths from it are the harness's, not the core's.)
        m.domains.core = core_domain = ClockDomain("core", local=True)
        reset_register = Signal(init=1, reset_less=True)
        m.d.sync += reset_register.eq(ResetSignal("sync"))
        m.d.comb += [core_domain.clk.eq(ClockSignal("sync")),
                     core_domain.rst.eq(reset_register)]
        m.submodules.core = DomainRenamer("core")(core)

        inputs, outputs = [], []
        for _path, member, value in core.signature.flatten(core):
            # Struct-shaped ports (stream payloads) are views: take their bits.
            (inputs if member.flow == In else outputs).append(Value.cast(value))
        in_width = sum(len(v) for v in inputs)
        out_width = sum(len(v) for v in outputs)

        # Stimulus: a 32-bit LFSR feeds a shift chain with one flip-flop per input bit.
        lfsr = Signal(32, init=0xACE1_2468)
        feedback = 0
        for tap in _LFSR_TAPS:
            feedback ^= lfsr[tap]
        m.d.sync += lfsr.eq(Cat(feedback, lfsr[:-1]))
        chain = Signal(max(in_width, 1))
        m.d.sync += chain.eq(Cat(lfsr[0], chain[:-1]))
        offset = 0
        for value in inputs:
            m.d.comb += value.eq(chain[offset:offset + len(value)])
            offset += len(value)

        # Observation: misr[i] <= misr[i+1] ^ out[i] (a ring); every output bit reaches the
        # pin at misr[0]. The ring turns against the stimulus chain: turning with it, an
        # output that merely repeats an input would cancel itself out of the signature.
        observed = Cat(*outputs)
        misr = Signal(max(out_width, 1))
        m.d.sync += misr.eq(Cat(misr[1:], misr[0]) ^ observed)
        m.d.comb += self.misr_out.eq(misr[0])
        return m

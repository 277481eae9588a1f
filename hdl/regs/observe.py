# SPDX-License-Identifier: Apache-2.0
"""The register block's observation port (``KvAsuRegisters(observe=True)``): the state the
proofs of formal/axil_props.py and formal/covers.py state their invariants over, as a
port with a signature rather than internal signals looked up by name. Real builds leave
it out."""

from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out

from regmap import CONFIG_NAMES, MODE_NAMES

from ..axil import AxiLiteObservationSignature

__all__ = ["RegisterObservationSignature", "drive_observation"]


class RegisterObservationSignature(wiring.Signature):
    """What a proof sees of ``KvAsuRegisters``, from the register block's side.

    Members
    -------
    axil : Out(AxiLiteObservationSignature(addr_width))
        The AXI4-Lite subordinate's channel state.
    shadow : Out(StructLayout)
        The shadow words, one 32-bit field per ``CONFIG_NAMES`` and ``MODE_NAMES`` name,
        lower case (``c3`` ... ``hash_seed``, ``policy``, ``mode``).
    legal : Out(1)
        The registered legality of the shadow set (what a COMMIT applied now would check).
    error : Out(1)
        ``STATUS.ERROR``.
    clear_stats : Out(1)
        The statistics' clear pulse (the cycle after an applied ``CLEAR_STATS``).
    clear_soft_error : Out(1)
        The soft-error registers' clear pulse (the cycle after an applied
        ``CLEAR_SOFT_ERROR``, D11).
    sequencing : Out(1)
        A CTRL action waits for the core (its write is held, unanswered).
    read_sel : Out(read_words)
        The read path's one-hot select of the word read, registered at the AR handshake;
        bit ``k`` is ``KvAsuRegisters.read_words[k]``.
    stat_pend : Out(stat_read_latency)
        A statistic's LO read in the counter engine: bit ``k`` is high ``k + 1`` cycles
        after the sample.
    """

    def __init__(self, addr_width, *, read_words, stat_read_latency):
        for name, value in (("read_words", read_words),
                            ("stat_read_latency", stat_read_latency)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        super().__init__({
            "axil": Out(AxiLiteObservationSignature(addr_width)),
            "shadow": Out(data.StructLayout({name.lower(): 32
                                             for name in CONFIG_NAMES + MODE_NAMES})),
            "legal": Out(1),
            "error": Out(1),
            "clear_stats": Out(1),
            "clear_soft_error": Out(1),
            "sequencing": Out(1),
            "read_sel": Out(read_words),
            "stat_pend": Out(stat_read_latency),
        })


def drive_observation(m, observe, subordinate, state, *, sequencing, read_sel, stat_pend):
    """Drive the port ``observe`` from the subordinate's port, the register file's state
    (``state.RegisterFileState``) and the write and read paths' signals."""
    wiring.connect(m, subordinate.observe, wiring.flipped(observe.axil))
    m.d.comb += [getattr(observe.shadow, name.lower()).eq(state.shadow[name])
                 for name in CONFIG_NAMES + MODE_NAMES]
    m.d.comb += [observe.legal.eq(state.legal), observe.error.eq(state.error),
                 observe.clear_stats.eq(state.clear_stats),
                 observe.clear_soft_error.eq(state.clear_soft),
                 observe.sequencing.eq(sequencing), observe.read_sel.eq(read_sel),
                 observe.stat_pend.eq(stat_pend)]

# SPDX-License-Identifier: Apache-2.0
"""``KvAsuRegisters``: the register block's component, its ports and parameters; it builds
the paths of ``ctrl.py``, ``soft_errors.py`` and ``reads.py`` over the state of
``state.py``."""

from amaranth import Module
from amaranth.lib import wiring

import regmap
from regmap import CONFIG_NAMES, MODE_NAMES, REGISTERS

from ..axil import AxiLiteSubordinate
from ..layouts import STAT_NAMES, check_int, check_params
from ..stats import StatisticsCounters
from .ctrl import commit_checks, register_writes, statistics_clear
from .kinds import ACTIONS, register_kind
from .observe import RegisterObservationSignature, drive_observation
from .reads import register_reads
from .signature import RegisterBlockSignature
from .soft_errors import soft_error_registers
from .state import RegisterFileState

__all__ = ["KvAsuRegisters"]


class KvAsuRegisters(wiring.Component):
    """KV-ASU register block.

    The register file of ``regmap`` behind an :class:`hdl.axil.AxiLiteSubordinate` (32-bit
    data, ``regmap.AXIL_ADDR_WIDTH``-bit byte address; submodule ``subordinate``), which
    does the AXI4-Lite handshakes and answers unmapped words and writes to read-only words
    itself. This block owns the shadow and the active configuration, ``CTRL.ENABLE``, the
    sticky ``STATUS.ERROR``, the 64-bit statistics counters and the single high-word latch;
    its CTRL sequencer orders CTRL actions between requests with the core (``hold`` /
    ``core_idle``).

    Latency
        A read's R comes 2 cycles after its AR handshake (``stats.read_latency + 2``, 4
        by default and 5 with ``protection``, for the LO word of a statistic), a plain
        write's B 2 cycles after the later of the AW and W handshakes. Reads and writes
        proceed independently of each other.

    Responses (D8)
        Unmapped word: ``DECERR``, reads 0, a write changes nothing. Write to a read-only
        word (both halves of a 64-bit counter included): ``SLVERR``, changes nothing.
        Shadow configuration words store all 32 bits, byte by byte as ``wstrb`` says.

    CTRL
        A write without the byte 0 strobe does nothing (``OKAY``). A write with no action
        bit set only updates ``ENABLE``, at once. A write with any action bit set is
        applied between requests: the block raises ``hold``, waits for a cycle with
        ``core_flushing`` low (a flush already running finishes first) and, if it commits
        or flushes, ``core_idle`` high and ``stat_inc`` all zero (the pipeline drained; a
        write of only CLEAR_STATS / CLEAR_ERROR / CLEAR_SOFT_ERROR does not wait for it, see
        ``stat_lag``),
        then in that cycle applies, in one step: COMMIT (if the
        shadow set is illegal: ``SLVERR``, ``STATUS.ERROR`` set and nothing else of the
        write happens), CLEAR_ERROR, CLEAR_SOFT_ERROR, FLUSH, CLEAR_STATS, ENABLE := the
        written bit. The new
        ``cfg``, ``policy`` and ``enable`` are driven from the next cycle, in which
        ``bvalid`` rises;
        ``hold`` stays high until the cycle after the B handshake, so no request is ever
        accepted at the edge of an action's write response (D8). When the write flushes
        (``FLUSH``, or a commit that changes ``HASH_SEED`` or ``POLICY.MODE``, the latter
        only in a build with ``predictor``), ``flush`` pulses in the cycle
        ``bvalid`` rises. **The write response comes with the flush pulse, before the flush
        has finished.** The core keeps its request ``ready`` low while it
        flushes; ``STATUS.BUSY`` reads 1 from the flush pulse on (``core_flushing``).

    64-bit words
        Reading the LO word of a counter (``CYCLE`` or a statistic) returns its low half and
        copies the high half of the same sample into the one 32-bit latch; reading any HI
        word returns the latch. The sample is the value in the cycle after the AR handshake.
        The statistics are a :class:`hdl.stats.StatisticsCounters` (block RAM and small
        pre-counters); the read path here reserves its engine in the AR handshake cycle,
        samples the counter in the next cycle and answers with the value (and takes the
        latch) ``stats.read_latency`` cycles after the sample, which keeps the engine's read
        contract (one read at a time, R at least two cycles after the sample).

    Parameters
    ----------
    params : regmap.Params or None
        Elaboration parameters (``None``: the defaults).
    stats_stages : int
        Passed to :class:`hdl.stats.StatisticsCounters` as ``stages`` (3, default: the
        block RAM's word is registered before the adder; 2: one cycle less, for small
        devices). The LO read of a statistic takes ``stats_stages + 1`` cycles from AR to R
        (one more with ``protection`` and three stages).
    stat_lag : int
        Cycles from a request's acceptance to its ``stat_inc`` pulse, a constant of the
        core (``PipelineTiming.stat_lag``; default 1). A CTRL write of only CLEAR_STATS /
        CLEAR_ERROR / CLEAR_SOFT_ERROR (and ENABLE) is applied without draining the core: the requests
        accepted before ``hold`` rose pulse ``stat_inc`` up to ``stat_lag - 2`` cycles
        after the clear cycle, and those pulses are discarded (they count before the clear,
        which zeroes them), so the statistics are exactly those of the requests accepted
        after the write response (D8, D12).
    protection : str
        The soft-error protection of the statistics memory and the ``ERR_*`` registers
        (D11; one of ``hdl.ecc.PROTECTIONS``, default ``"none"``: the ``ERR_*`` registers
        read 0 and the error ports are left out).
    mode_reset : int
        The value reset gives ``MODE``, shadow and committed (D13, "The reset mode"): 0
        (default) or ``MODE.NONBLOCKING``; a value with a reserved bit set is a
        ``ValueError``.
    predictor : bool
        The build has the predictor mode (``CoreOptions.predictor``, docs/spec-predictor.md
        P2): ``POLICY.MODE`` commits (else it is a reserved bit and a commit that sets it is
        refused), ``P_POLICIES`` reads 3 (else 1), and the ``policy`` port exists.
    observe : bool
        Add the ``observe`` port (``False`` by default: real builds leave it out).

    Ports
    -----
    As ``RegisterBlockSignature(params, ...)`` lists them (``hdl.regs.signature``).

    Attributes
    ----------
    subordinate : hdl.axil.AxiLiteSubordinate
        The AXI4-Lite subordinate in front of the register file.
    stats : hdl.stats.StatisticsCounters
        The statistics counters, in ``STAT_NAMES`` order; testbenches read and
        preload them with ``stats.peek(ctx, i)`` and ``stats.poke(ctx, i, value)``.
    kinds : dict
        Each register's name to its kind (``kinds.register_kind``), which the write and
        read paths build from.
    nonblocking_bit, policy_bit : int
        The bits of ``MODE.NONBLOCKING`` and ``POLICY.MODE`` in their registers.
    read_words : list of int
        The readable words (byte offset / 4) in the order of the read path's one-hot
        ``read_sel`` bits (the formal harness checks the select against it).
    """

    def __init__(self, params=None, *, stats_stages=3, stat_lag=1, protection="none",
                 mode_reset=0, predictor=False, observe=False):
        params = check_params(params)
        if not isinstance(observe, bool):
            raise TypeError(f"observe must be a bool, not {observe!r}")
        self.observed = observe
        if not isinstance(predictor, bool):
            raise TypeError(f"predictor must be a bool, not {predictor!r}")
        self.predictor = predictor
        check_int("stat_lag", stat_lag, 1)
        # (checked here too, so that the message names this parameter, not the counters')
        check_int("stats_stages", stats_stages, 2, 3)
        self.mode_reset = regmap.check_mode_reset(mode_reset)
        self.params = params
        self.stat_lag = stat_lag
        self.protection = protection
        # Classify every register now: an unknown register fails at construction.
        self.kinds = {reg.name: register_kind(reg) for reg in REGISTERS}
        ctrl = regmap.REG["CTRL"]
        for name in ("ENABLE", *ACTIONS):
            ctrl.field(name)  # raises KeyError naming a missing field
        if tuple(r.name for r in REGISTERS if r.config) != CONFIG_NAMES:
            raise ValueError(f"the shadow registers must be {CONFIG_NAMES}")
        if MODE_NAMES != ("POLICY", "MODE"):
            raise ValueError(f"the mode registers must be ('POLICY', 'MODE'), not {MODE_NAMES}")
        # The mode bits the block acts on (each lookup raises KeyError naming a missing field).
        self.nonblocking_bit = regmap.REG["MODE"].field("NONBLOCKING").bit
        self.policy_bit = regmap.REG["POLICY"].field("MODE").bit
        if len(STAT_NAMES) != len([r for r in REGISTERS if r.stat]):
            raise ValueError("STAT_NAMES does not match the statistics registers")
        if params.SLOT_WIDTH + 1 > 32:
            raise ValueError(f"OCCUPANCY needs {params.SLOT_WIDTH + 1} bits, more than a "
                             f"32-bit register holds (ENTRIES = {params.ENTRIES})")

        # Created before the signature (the observation port's widths are theirs) rather
        # than in elaborate(), so that a testbench can reach them.
        readable = [off for reg in REGISTERS for off in reg.offsets]
        self.read_words = [off >> 2 for off in readable]
        self.subordinate = AxiLiteSubordinate(
            regmap.AXIL_ADDR_WIDTH, readable=readable,
            writable=[reg.offset for reg in REGISTERS if reg.access != "ro"],
            observe=observe, src_loc_at=1)
        self.stats = StatisticsCounters(count=len(STAT_NAMES), width=64, stages=stats_stages,
                                        protection=protection, src_loc_at=1)
        observation = RegisterObservationSignature(
            regmap.AXIL_ADDR_WIDTH, read_words=len(self.read_words),
            stat_read_latency=self.stats.read_latency)

        super().__init__(RegisterBlockSignature(
            params, mode_reset=self.mode_reset, predictor=predictor,
            protected=protection != "none", observation=observation if observe else None))

    def elaborate(self, platform):
        m = Module()
        m.submodules.subordinate = sub = self.subordinate
        m.submodules.stats = self.stats
        wiring.connect(m, wiring.flipped(self.axil), sub.axil)
        state = RegisterFileState(self.params, self.mode_reset)
        commit_checks(m, self, state)
        statistics_clear(m, self, state)
        sequencing = register_writes(m, self, sub.regs, state)
        soft_error_registers(m, self, state)
        read_sel, stat_pend = register_reads(m, self, sub.regs, state)
        if self.observed:
            drive_observation(m, self.observe, sub, state, sequencing=sequencing,
                              read_sel=read_sel, stat_pend=stat_pend)
        return m

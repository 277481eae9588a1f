# SPDX-License-Identifier: Apache-2.0
"""The ports of the register block (``KvAsuRegisters``): the AXI4-Lite bus, the
configuration and control it gives the core, and what it takes from the core."""

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import regmap
from regmap import CONFIG_NAMES

from ..axil import AxiLiteSignature
from ..layouts import STAT_NAMES, check_params, config_layout

__all__ = ["RegisterBlockSignature"]


class RegisterBlockSignature(wiring.Signature):
    """The register block's signature.

    Its ports to and from the core are the other side of the core's (``CoreSignature``),
    under the names of this block (``core_idle`` for the core's ``idle``, ...): ``hdl.top``
    wires the two, and ``tests/hdl/test_top.py`` checks that every port of the link is on
    both sides with the same shape.

    Parameters
    ----------
    params : regmap.Params
        The active configuration's reset value is ``params.defaults``.
    mode_reset : int
        ``MODE``'s reset value (``nonblocking`` resets to its ``NONBLOCKING`` bit).
    predictor : bool
        Adds ``policy``.
    protected : bool
        Adds the core's error report (``err_*``, ``recovering``).
    observation : wiring.Signature or None
        Adds the ``observe`` port (``RegisterObservationSignature``, for the proofs).

    Members (as the register block sees them)
    -----------------------------------------
    axil : In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH))
        The AXI4-Lite bus (this block is the subordinate).
    nonblocking : Out(1)
        The committed ``MODE.NONBLOCKING`` (D13); resets to ``mode_reset``'s bit. Changes,
        like ``cfg``, only in the cycle after a commit is applied (the first cycle of its
        write response).
    policy : Out(1)
        Only with ``predictor``: the committed ``POLICY.MODE`` (1: the predictor mode);
        resets to 0. Changes like ``nonblocking``, and only with a flush pulse.
    cfg : Out(config_layout(params))
        The active configuration (``c3``, ``c2``, ``w3``, ``w2``, ``w1``, ``hash_seed``);
        resets to ``params.defaults``; changes only when a commit is applied, which is
        only while ``hold`` is high and ``core_idle`` is high.
    enable : Out(1)
        ``CTRL.ENABLE``: the core accepts requests only while it is high. Resets to 1.
    hold : Out(1)
        The core must not accept requests while it is high (a CTRL action is waiting for
        ``core_idle`` or being applied).
    flush : Out(1)
        One-cycle pulse: start a flush. Only ever high while ``hold`` and ``core_idle`` are
        high and ``core_flushing`` is low. The core must raise ``core_flushing`` from the
        next cycle until the flush ends (it may also fold ``flush`` into its own ``ready``).
    core_idle : In(1)
        No accepted request still has a state update or a statistics increment pending.
        Responses waiting in the core's output buffer do not matter.
    core_flushing : In(1)
        A flush is running (``STATUS.BUSY``).
    occupancy : In(params.SLOT_WIDTH + 1)
        Number of tracked lines (``OCCUPANCY``).
    stat_inc : In(len(STAT_NAMES))
        Bit ``i`` increments the counter of ``STAT_NAMES[i]`` by one this cycle; any number
        of bits may be set at once.
    cycle : In(64)
        The core's cycle counter (``CYCLE``).
    err_start, err_corrected : In(1), err_mem : In(MEM_ID_WIDTH), err_addr : In(SLOT_WIDTH)
        Only with ``protected`` (D11): the core's report, one cycle after the cycle ``d``
        it is of (``KvAsuCore``'s ports of the same names): a recovery started in ``d``;
        a read of ``d`` was corrected; the memory and the slot of ``d``'s first error.
    recovering : In(1)
        Only with ``protected``: a recovery is running (``STATUS.RECOVERING``).
    observe : Out(observation)
        Only with ``observation``: the state the proofs state their invariants over
        (``hdl.regs.observe``; formal/axil_props.py).
    """

    def __init__(self, params, *, mode_reset=0, predictor=False, protected=False,
                 observation=None):
        params = check_params(params)
        if observation is not None and not isinstance(observation, wiring.Signature):
            raise TypeError(f"observation must be a wiring.Signature or None, not "
                            f"{observation!r}")
        nonblocking_bit = regmap.REG["MODE"].field("NONBLOCKING").bit
        cfg_init = {name.lower(): params.defaults[name] for name in CONFIG_NAMES}
        super().__init__({
            "axil": In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH)),
            "cfg": Out(config_layout(params), init=cfg_init),
            "nonblocking": Out(1, init=mode_reset >> nonblocking_bit & 1),
            **({"policy": Out(1)} if predictor else {}),
            "enable": Out(1, init=regmap.REG["CTRL"].field("ENABLE").reset),
            "hold": Out(1),
            "flush": Out(1),
            "core_idle": In(1),
            "core_flushing": In(1),
            "occupancy": In(params.SLOT_WIDTH + 1),
            "stat_inc": In(len(STAT_NAMES)),
            "cycle": In(64),
            **({"err_start": In(1), "err_corrected": In(1), "err_mem": In(regmap.MEM_ID_WIDTH),
                "err_addr": In(params.SLOT_WIDTH), "recovering": In(1)}
               if protected else {}),
            **({"observe": Out(observation)} if observation is not None else {}),
        })

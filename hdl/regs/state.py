# SPDX-License-Identifier: Apache-2.0
"""The register file's own state, shared by its write, soft-error and read paths."""

from amaranth import Signal

import regmap
from regmap import CONFIG_NAMES, MODE_NAMES

__all__ = ["RegisterFileState"]


class RegisterFileState:
    """The register file's own state, shared by its write and read paths."""

    def __init__(self, params, mode_reset):
        inits = {**params.defaults, **regmap.MODE_DEFAULTS, "MODE": mode_reset}
        self.shadow = {name: Signal(32, name=f"shadow_{name.lower()}", init=inits[name])
                       for name in CONFIG_NAMES + MODE_NAMES}
        self.error = Signal(name="error")              # STATUS.ERROR, sticky
        # D11: STATUS.SOFT_ERROR and the ERR_* registers; the cycle after an applied
        # CLEAR_SOFT_ERROR
        self.soft_error = Signal(name="soft_error")
        self.err_uncorrected = Signal(32, name="err_uncorrected")
        self.err_corrected = Signal(32, name="err_corrected")
        self.err_first_mem = Signal(32, name="err_first_mem")
        self.err_first_addr = Signal(32, name="err_first_addr")
        self.err_first_cycle = Signal(64, name="err_first_cycle")
        self.err_last_recovery = Signal(32, name="err_last_recovery")
        self.clear_soft = Signal(name="clear_soft")
        self.hi_latch = Signal(32, name="hi_latch")    # the one HI-word latch of D8
        self.flush_pulse = Signal(name="flush_pulse")  # drives `flush`: the cycle after an
                                                       # applied flush
        self.clear_stats = Signal(name="clear_stats")  # the cycle after an applied clear
        self.legal = Signal(name="legal")              # the shadow set is legal
        self.seed_changes = Signal(name="seed_changes")  # a commit would change HASH_SEED
        self.policy_changes = Signal(name="policy_changes")  # ... POLICY.MODE (predictor)

# SPDX-License-Identifier: Apache-2.0
"""What implements each register of ``regmap.REGISTERS`` in the register block."""

__all__ = ["register_kind", "ACTIONS", "DROP_STAT"]


# Registers whose value is a live input of the block rather than state of its own.
_LIVE = ("OCCUPANCY", "CYCLE")
# CTRL action fields, in the order D8 applies them (COMMIT first: a refused commit stops the
# rest of the write).
ACTIONS = ("COMMIT", "CLEAR_ERROR", "CLEAR_SOFT_ERROR", "FLUSH", "CLEAR_STATS")
# The soft-error registers (D11), read-only state of the register block.
_ERR = ("ERR_UNCORRECTED", "ERR_CORRECTED", "ERR_FIRST_MEM", "ERR_FIRST_ADDR",
        "ERR_FIRST_CYCLE", "ERR_LAST_RECOVERY")
# The statistic of dropped requests (D13) counts at the block's door, not in the pipeline:
# its increments do not keep a CTRL write from finding the core drained.
DROP_STAT = "req_dropped"


def register_kind(reg):
    """What implements ``reg``; raises ``ValueError`` for a register this block cannot."""
    if reg.stat:
        kind, access = "stat", "ro"
    elif reg.config or reg.mode:
        kind, access = "shadow", "rw"
    elif reg.build is not None:
        kind, access = "build", "ro"
    elif reg.active_of:
        kind, access = "active", "ro"
    elif reg.name == "CTRL":
        kind, access = "ctrl", "ctrl"
    elif reg.name == "STATUS":
        kind, access = "status", "ro"
    elif reg.name in _LIVE:
        kind, access = "live", "ro"
    elif reg.name in _ERR:
        kind, access = "error", "ro"
    elif reg.reset is not None and not reg.wide:
        kind, access = "const", "ro"
    else:
        raise ValueError(f"register {reg.name}: the register block has no implementation "
                         f"for it; extend hdl/regs/")
    if reg.access != access:
        raise ValueError(f"register {reg.name} of kind {kind} must have access {access!r}, "
                         f"not {reg.access!r}")
    if reg.wide and kind not in ("stat", "live", "error"):
        raise ValueError(f"register {reg.name}: only counters and live inputs can be wide")
    return kind

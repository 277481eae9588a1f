# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU core: the request pipeline, its bucket table, LRU list and scrubber.

See docs/rtl.md for the block diagram, the stages and the timing.
"""

from .options import CoreOptions
from .pipeline import KvAsuCore
from .signature import CoreSignature
from .timing import PipelineTiming, check_core_params

__all__ = ["CoreOptions", "CoreSignature", "KvAsuCore", "PipelineTiming", "check_core_params"]

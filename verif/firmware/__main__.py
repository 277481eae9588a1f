# SPDX-License-Identifier: Apache-2.0
"""``python -m verif.firmware``: build and run the firmware test (see the package)."""

import sys

from . import main

sys.exit(main())

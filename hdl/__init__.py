# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU in Amaranth HDL. See docs/rtl.md for the block diagram and pipeline."""

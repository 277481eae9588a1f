"""The KV-ASU in Amaranth HDL. See docs/rtl.md for the block diagram and pipeline."""

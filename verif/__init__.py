"""cocotb verification of the KV-ASU: see docs/verification.md."""

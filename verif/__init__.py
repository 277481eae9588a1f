# SPDX-License-Identifier: Apache-2.0
"""cocotb verification of the KV-ASU: see docs/verification.md."""

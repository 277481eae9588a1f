# SPDX-License-Identifier: Apache-2.0
"""The ASIC estimate of the KV-ASU: NanGate45 standard cells, SRAM macros, OpenSTA."""

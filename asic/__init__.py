"""The ASIC estimate of the KV-ASU: NanGate45 standard cells, SRAM macros, OpenSTA."""

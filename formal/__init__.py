# SPDX-License-Identifier: Apache-2.0
"""Formal verification of the KV-ASU RTL: Amaranth Assert/Assume/Cover harnesses run through
SymbiYosys (yowasp-sby, yices). Entry point: ``python -m formal.run``; see docs/formal.md."""

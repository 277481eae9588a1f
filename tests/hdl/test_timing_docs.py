# SPDX-License-Identifier: Apache-2.0
"""The timing diagrams of docs/rtl.md: every WaveDrom source has its SVG in docs/timing/,
rendered from that very source (the SVG records the source's SHA-256; no rendering here)."""

from tools import render_timing


def test_every_diagram_has_an_up_to_date_svg():
    found = render_timing.diagrams()
    assert "latency" in found
    for name, text in found.items():
        svg = render_timing.OUT / f"{name}.svg"
        assert render_timing.svg_digest(svg) == render_timing.source_digest(text), \
            f"{svg} is missing or stale: run `make docs`"

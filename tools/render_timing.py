# SPDX-License-Identifier: Apache-2.0
"""Render the WaveDrom timing diagrams of the docs to checked-in SVGs.

``python -m tools.render_timing [--check]``

A diagram's source is ``docs/timing/NAME.json`` (written by ``tools.timing_diagrams``
from a simulation of the RTL); it is rendered (``yowasp-wavedrom``, the ``docs`` extra of
pyproject.toml, a WebAssembly build that runs offline) to ``docs/timing/NAME.svg``, which
a page of ``docs/`` shows. Each SVG records the SHA-256 of its source, so ``--check`` (and
``tests/hdl/test_timing_docs.py``) can tell a stale SVG without rendering anything.
"""

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

__all__ = ["OUT", "diagrams", "source_path", "source_digest", "svg_digest", "render_all"]

DOCS = Path(__file__).resolve().parent.parent / "docs"
OUT = DOCS / "timing"
_DIGEST = re.compile(r"<!-- source sha256: ([0-9a-f]{64}) -->")


def source_path(name):
    """The WaveDrom source of the diagram ``name``."""
    return OUT / f"{name}.json"


def diagrams():
    """``{name: json_text}`` of every diagram (its source without the final newline)."""
    return {path.stem: path.read_text().removesuffix("\n")
            for path in sorted(OUT.glob("*.json"))}


def source_digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def svg_digest(path):
    """The source digest an SVG records, or ``None``."""
    match = _DIGEST.search(path.read_text()) if path.exists() else None
    return match and match.group(1)


def render_all():
    from yowasp_wavedrom import render
    for name, text in diagrams().items():
        svg = render(json.loads(text))
        svg = svg.replace(">", f"><!-- source sha256: {source_digest(text)} -->", 1)
        (OUT / f"{name}.svg").write_text(svg)
        print(f"wrote {(OUT / f'{name}.svg').relative_to(DOCS.parent)}")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.render_timing", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="only report SVGs that are missing or older than their source")
    args = ap.parse_args(argv)
    if args.check:
        stale = [name for name, text in diagrams().items()
                 if svg_digest(OUT / f"{name}.svg") != source_digest(text)]
        for name in stale:
            print(f"stale: docs/timing/{name}.svg (run make docs)", file=sys.stderr)
        return 1 if stale else 0
    render_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())

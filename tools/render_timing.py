# SPDX-License-Identifier: Apache-2.0
"""Render the WaveDrom timing diagrams of the docs to checked-in SVGs.

``python -m tools.render_timing [--check]``

A diagram is a fenced ``json`` block in a page of ``docs/`` right after a line
``<!-- wavedrom: NAME -->``; it is rendered (``yowasp-wavedrom``, the ``docs`` extra of
pyproject.toml) to ``docs/timing/NAME.svg``, which the page shows. Each SVG records the
SHA-256 of its source, so ``--check`` (and ``tests/hdl/test_timing_docs.py``) can tell a
stale SVG without rendering anything.
"""

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

__all__ = ["BLOCK", "diagrams", "source_digest", "svg_digest", "render_all"]

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ("rtl.md",)
OUT = DOCS / "timing"
#: A diagram's block: group 1 its name, group 2 its source.
BLOCK = re.compile(r"^<!-- wavedrom: ([\w-]+) -->\n```json\n(.*?)\n```", re.M | re.S)
_DIGEST = re.compile(r"<!-- source sha256: ([0-9a-f]{64}) -->")


def diagrams():
    """``{name: json_text}`` of every diagram of the pages."""
    found = {}
    for page in PAGES:
        for name, text in BLOCK.findall((DOCS / page).read_text()):
            if name in found:
                raise ValueError(f"two WaveDrom diagrams named {name!r}")
            found[name] = text
    return found


def source_digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def svg_digest(path):
    """The source digest an SVG records, or ``None``."""
    match = _DIGEST.search(path.read_text()) if path.exists() else None
    return match and match.group(1)


def render_all():
    from yowasp_wavedrom import render
    OUT.mkdir(exist_ok=True)
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

# SPDX-License-Identifier: Apache-2.0
"""SPDX licence headers: ``python tools/spdx.py --check`` or ``--fix`` (``make spdx``).

Every source file of the checkout (``git ls-files``: tracked and new, not ignored) whose
kind has comments carries ``SPDX-License-Identifier: Apache-2.0`` in a comment line
(``#``, ``//``, ``/*``) among its first lines; the tag in a docstring or a string does not
count.
``--check`` lists the files without it and exits 1; ``--fix`` adds it as a comment line at
the top, after any line that must stay first (``#!`` shebang, ``# amaranth:`` linter
options, a ``coding`` declaration, CAPI2's ``CAPI=2:``). Empty files, Markdown, data and
images are left alone. Generated files get the header from their generator.

Standard library only, so it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LICENSE = "Apache-2.0"
TAG = "SPDX-License-Identifier:"
#: How far down the tag may be.
HEAD_LINES = 5

#: Comment syntax by file suffix (or whole name).
_HASH = ("# ", "")
_SLASH = ("// ", "")
_BLOCK = ("/* ", " */")
STYLES = {
    ".py": _HASH, ".toml": _HASH, ".sh": _HASH, ".yml": _HASH, ".yaml": _HASH,
    ".core": _HASH, ".cfg": _HASH, ".mk": _HASH, "Makefile": _HASH,
    ".v": _SLASH, ".sv": _SLASH, ".vh": _SLASH, ".vlt": _SLASH,
    ".cpp": _SLASH, ".cc": _SLASH, ".hpp": _SLASH,
    ".c": _BLOCK, ".h": _BLOCK,
}
#: A comment line that holds the tag.
_HEADER_LINE = re.compile(r"^\s*(#|//|/\*)\s*" + re.escape(TAG))
#: First lines that must stay first.
_KEEP_FIRST = re.compile(r"^(#!|#\s*amaranth:|#.*coding[:=]|CAPI=2:)")

__all__ = ["style_of", "has_header", "add_header", "source_files", "main"]


def style_of(path: Path) -> tuple[str, str] | None:
    if path.name in STYLES:
        return STYLES[path.name]
    if path.suffix in STYLES:
        return STYLES[path.suffix]
    try:
        with path.open("rb") as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!") and (b"sh" in first or b"python" in first):
        return _HASH                  # a script without a suffix (.ci/run)
    return None


def has_header(text: str) -> bool:
    """Whether one of the first ``HEAD_LINES`` lines is a comment line with the tag."""
    return any(_HEADER_LINE.match(line) for line in text.splitlines()[:HEAD_LINES])


def add_header(text: str, style: tuple[str, str]) -> str:
    """``text`` with the SPDX line added (unchanged if it has one or is empty)."""
    if not text.strip() or has_header(text):
        return text
    lines = text.splitlines(keepends=True)
    at = 0
    while at < len(lines) and at < 2 and _KEEP_FIRST.match(lines[at]):
        at += 1
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    if at and not lines[at - 1].endswith(("\n", "\r")):
        lines[at - 1] += newline
    lines.insert(at, f"{style[0]}{TAG} {LICENSE}{style[1]}{newline}")
    return "".join(lines)


def source_files(root: Path = ROOT) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root,
                         check=True, capture_output=True, text=True).stdout
    paths = [root / name for name in out.split("\0") if name]
    return [p for p in paths if p.is_file() and not p.is_symlink() and style_of(p)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="tools/spdx.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="list files without the header")
    mode.add_argument("--fix", action="store_true", help="add the header where missing")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    missing = []
    for path in source_files(args.root):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if not text.strip() or has_header(text):
            continue
        if args.fix:
            path.write_text(add_header(text, style_of(path)), encoding="utf-8",
                            errors="surrogateescape")
        missing.append(path.relative_to(args.root))
    for rel in missing:
        print(f"{'added SPDX header to' if args.fix else 'no SPDX header:'} {rel}")
    if args.check and missing:
        print(f"{len(missing)} files without an SPDX header; add them with: "
              f"python tools/spdx.py --fix   (make spdx)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

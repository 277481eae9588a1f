# SPDX-License-Identifier: Apache-2.0
"""Build the installable wheel: ``python -m tools.wheel [--out DIR]`` (``make wheel``).

The wheel is built from a clean copy of the checkout's files (``git ls-files``: tracked and
new, not ignored), so that nothing left in ``build/`` by an earlier build, and nothing
untracked by git, can end up in it. No build isolation: the venv's pinned setuptools
builds it, without network.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["build_wheel", "main"]


def _source_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return [name for name in out.split("\0") if name and (ROOT / name).is_file()]


def build_wheel(out_dir: Path) -> Path:
    """Build the wheel into ``out_dir``; return its path."""
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kvasu-wheel-") as tmp:
        src = Path(tmp) / "src"
        for name in _source_files():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "--no-build-isolation", "--disable-pip-version-check",
                        "-w", str(out_dir), str(src)], check=True)
    built = sorted(out_dir.glob("kv_asu-*.whl"), key=lambda p: p.stat().st_mtime)
    if not built:
        raise RuntimeError(f"pip wheel wrote no kv_asu wheel into {out_dir}")
    return built[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.wheel", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "wheel")
    args = parser.parse_args(argv)
    print(f"wrote {build_wheel(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

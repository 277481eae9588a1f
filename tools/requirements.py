# SPDX-License-Identifier: Apache-2.0
"""Print the requirements of pyproject.toml, one per line, for ``pip install -r``.

``python tools/requirements.py [EXTRA,EXTRA,...]`` prints ``[project].dependencies`` and
those of the named optional extras (``all``: every extra). The Makefile installs them into
the checkout's venv with ``pip install -c constraints.txt -r FILE`` (a file in the venv, or
``/dev/stdin``): the checkout gets the
dependencies only, never the project itself (it runs from the source folders).
Standard library only: it runs before anything is installed.
"""

import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def requirements(extras: list[str]) -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    optional = project.get("optional-dependencies", {})
    if extras == ["all"]:
        extras = list(optional)
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise SystemExit(f"unknown extras {unknown}; pyproject.toml has {sorted(optional)}")
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += [r for r in optional[extra] if r not in reqs]
    return reqs


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extras = [e for arg in argv for e in arg.split(",") if e]
    print("\n".join(requirements(extras)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

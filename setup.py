# SPDX-License-Identifier: Apache-2.0
"""Packaging: the library parts of the checkout, under the ``kv_asu`` namespace.

The checkout keeps its folders at the top (``regmap/``, ``golden_model/``, ``hdl/``, ...)
and imports them by those names. Those names belong to unrelated projects on PyPI, so the
wheel installs the three parts a user imports as ``kv_asu.regmap``, ``kv_asu.golden_model``
and ``kv_asu.hdl`` (``package_dir`` maps them), and ``KvAsuBuildPy`` rewrites their
absolute imports of each other (``import regmap``, ``from regmap import ...``) into the
namespace in the built copies only. Nothing else of the checkout (testbenches, flows,
benchmarks, evaluation) goes into the wheel. Everything else is in pyproject.toml.
"""

import ast
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

NAMESPACE = "kv_asu"
#: Top-level folders of the checkout that ship, as NAMESPACE.<folder>.
SHIPPED = ("regmap", "golden_model", "hdl")


def _rewrite_imports(source: str, path: str) -> str:
    """``source`` with every absolute import of a SHIPPED package moved into NAMESPACE.

    ``import regmap`` -> ``import kv_asu.regmap as regmap``;
    ``import regmap as rm`` -> ``import kv_asu.regmap as rm``;
    ``from regmap[.sub] import x`` -> ``from kv_asu.regmap[.sub] import x``.
    ``import regmap.sub`` (binding the name ``regmap`` to the top package) has no one-line
    equivalent and is refused, as is an import of a checkout-only package.
    """
    lines = source.splitlines(keepends=True)
    edits = []                      # (line index, col, old text, new text)
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top not in SHIPPED:
                    continue
                if "." in alias.name:
                    raise ValueError(f"{path}:{node.lineno}: write `from {alias.name} import "
                                     f"...` instead of `import {alias.name}` (it cannot be "
                                     f"moved into the {NAMESPACE} namespace)")
                if len(node.names) != 1:
                    raise ValueError(f"{path}:{node.lineno}: import {alias.name} on its own "
                                     f"line")
                new = f"import {NAMESPACE}.{alias.name} as {alias.asname or alias.name}"
                edits.append((node.lineno - 1, node.col_offset, node.end_col_offset, new))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.split(".")[0]
            if top in SHIPPED:
                line = lines[node.lineno - 1]
                start = line.index("from", node.col_offset)
                end = line.index(node.module, start) + len(node.module)
                edits.append((node.lineno - 1, start, end,
                              f"from {NAMESPACE}.{node.module}"))
            elif top in ("verif", "tools", "fpga", "formal", "evaluation", "tests"):
                raise ValueError(f"{path}:{node.lineno}: a shipped module imports the "
                                 f"checkout-only package {top!r}")
    for index, start, end, new in sorted(edits, reverse=True):
        line = lines[index]
        lines[index] = line[:start] + new + line[end:]
    return "".join(lines)


class KvAsuBuildPy(build_py):
    """build_py that moves the shipped packages' imports into the namespace and writes
    ``kv_asu/__init__.py`` (the version)."""

    def build_module(self, module, module_file, package):
        outfile, copied = super().build_module(module, module_file, package)
        if outfile.endswith(".py"):
            text = Path(outfile).read_text()
            new = _rewrite_imports(text, module_file)
            if new != text:
                Path(outfile).write_text(new)
        return outfile, copied

    def run(self):
        super().run()
        init = Path(self.build_lib) / NAMESPACE / "__init__.py"
        init.parent.mkdir(parents=True, exist_ok=True)
        init.write_text(
            f'"""KV-ASU IP core: {", ".join(f"{NAMESPACE}.{p}" for p in SHIPPED)}."""\n\n'
            f'__version__ = "{self.distribution.get_version()}"\n')

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [
            str(Path(self.build_lib) / NAMESPACE / "__init__.py")]


def _packages():
    found = find_packages(include=[f"{p}" for p in SHIPPED] + [f"{p}.*" for p in SHIPPED])
    return [f"{NAMESPACE}.{name}" for name in found]


setup(
    packages=_packages(),
    package_dir={f"{NAMESPACE}.{p}": p for p in SHIPPED},
    package_data={f"{NAMESPACE}.regmap": ["*.toml"]},
    cmdclass={"build_py": KvAsuBuildPy},
)

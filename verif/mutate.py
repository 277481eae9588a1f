# SPDX-License-Identifier: Apache-2.0
"""Mutation testing of the RTL: how many small changes to ``hdl/`` the checks notice.

``python -m verif.mutate [--mutants N] [--seed S] [--requests R] [--files PATH ...] [--json F]``
``python -m verif.mutate --site PATH:INDEX ... [--article-config default] [--predictor-config medium]``

A *mutant* is the RTL with one expression changed, as a slip of the pen would change it,
in any function or method of ``hdl/`` but a constructor (``__init__`` checks parameters
and builds signatures) and outside annotations:

- ``binop``: ``&`` <-> ``|``, ``^`` -> ``|``, ``+`` <-> ``-``;
- ``compare``: ``==`` <-> ``!=``, ``<`` <-> ``<=``, ``>`` <-> ``>=``;
- ``boundary``: a comparison with an integer constant ``n`` compares with ``n + 1``;
- ``invert``: ``~x`` -> ``x``;
- ``mux``: ``Mux(s, a, b)`` -> ``Mux(s, b, a)``.

Every site of every file is enumerated (breadth-first, so that ``PATH:INDEX`` names a
site), and ``N`` of them are drawn with the seed (printed; ``--seed`` reproduces the draw,
``--site`` runs given sites). Each mutant is written into a copy of the sources
(``--work``; the repository is never touched), both builds are generated from it, and each
build whose Verilog differs from the original's is checked by its soak in the fast harness
(``verif.soak`` for the article build, ``verif.predictor_soak`` for the predictor build;
the small configurations unless ``--article-config`` / ``--predictor-config`` say
otherwise; ``R`` requests, a fixed traffic seed): the golden model checks every response
and the register mirror every register access. The soaks flip no bit, so the article
build's error detection, correction, recovery and reporting are idle in them: a mutant of
the article build that passes its soak is also run under ``--faults`` single-bit upsets
(``verif.faults --per-memory``, the same seed: each memory of D11 drawn as often as any
other, so that the parity of a memory of a few words is exercised as often as the
statistics' SECDED), where every run must end masked or detected and recovered against
the model, with the upset's place and the recovery's length reported, as D11 requires.
A mutant that passes all of that also runs ``make test``'s amaranth.sim tests of the part it
changes (:func:`unit_tests_for`: the modules of ``tests/hdl`` that import its package, for
example ``tests/hdl/test_stats.py`` for ``hdl/stats/coded.py``; ``--no-unit`` leaves them
out): they reach behaviour the soaks do not (a statistics word with two flipped bits, the
timing of the sweeps) and ports only the tests read. A test that fails on the mutant is run
again on the original sources, and the campaign stops if it fails there too.
Outcomes:

- ``killed``: a soak fails (a mismatch, an error, a hang, or past ``--timeout``), a run
  under upsets does, or a unit test does;
- ``survived``: every check passes; each survivor is either equivalent to the original
  (no input sequence tells them apart) or a gap in the checks, and is listed for review;
- ``no_effect``: the Verilog of both builds equals the original's (code neither small
  build elaborates, or a change synthesis folds away); not run;
- ``stillborn``: generation fails (an elaboration error).

The score is killed / (killed + survived). A line of progress per mutant; the JSON holds
every mutant with its file, line, the expression before and after, and its outcome.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path

from regmap.arguments import check_writable, int_range, positive_number

__all__ = ["Site", "sites", "mutate", "emit", "Campaign", "main"]

ROOT = Path(__file__).resolve().parent.parent
#: What the soaks import: copied once into the work folder.
PACKAGES = ("hdl", "regmap", "golden_model", "verif")
#: What the unit tests add to them: some read the docs they check, and a few import the
#: FPGA flow, the diagram tools or the formal harness.
UNIT_FILES = ("tests/__init__.py", "tests/hdl", "conftest.py", "pyproject.toml", "docs",
              "tools", "fpga", "formal")
BINOPS = {ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr,
          ast.Add: ast.Sub, ast.Sub: ast.Add}
CMPOPS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
          ast.Gt: ast.GtE, ast.GtE: ast.Gt}
BUILDS = ("article", "predictor")


@dataclass(frozen=True)
class Site:
    """One mutation: the ``index``-th site of ``path`` (relative to the repository)."""

    path: str
    index: int
    line: int
    kind: str
    before: str
    after: str


def _candidates(tree: ast.AST):
    """``(node, kind)`` for every mutable expression inside a function or method other than
    a constructor (``__init__``: parameter checks and signatures), outside annotations, in
    breadth-first order (deterministic for one source text)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            skip.add(id(node.annotation))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            skip.add(id(node.returns))
        elif isinstance(node, ast.AnnAssign):
            skip.add(id(node.annotation))
    queue = deque([(tree, False)])
    while queue:
        node, inside = queue.popleft()
        if id(node) in skip:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside = node.name != "__init__"
        elif inside:
            yield from _kinds(node)
        queue.extend((child, inside) for child in ast.iter_child_nodes(node))


def _kinds(node: ast.AST):
    """The mutations ``node`` admits, as ``(node, kind)``."""
    if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
        yield node, "binop"
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        if type(node.ops[0]) in CMPOPS:
            yield node, "compare"
        right = node.comparators[0]
        if isinstance(right, ast.Constant) and type(right.value) is int:
            yield node, "boundary"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        yield node, "invert"
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
          and node.func.id == "Mux" and len(node.args) == 3 and not node.keywords):
        yield node, "mux"


def _mutated(node: ast.AST, kind: str) -> ast.AST:
    """A mutated copy of ``node`` (``node`` itself is not changed)."""
    new = ast.parse(ast.unparse(node), mode="eval").body
    if kind == "binop":
        new.op = BINOPS[type(new.op)]()
    elif kind == "compare":
        new.ops = [CMPOPS[type(new.ops[0])]()]
    elif kind == "boundary":
        new.comparators = [ast.Constant(new.comparators[0].value + 1)]
    elif kind == "invert":
        new = new.operand
    elif kind == "mux":
        new.args = [new.args[0], new.args[2], new.args[1]]
    else:
        raise ValueError(f"unknown mutation kind {kind!r}")
    return new


def sites(path: str, source: str) -> list[Site]:
    """Every mutation site of one file's ``source``; ``path`` only names them."""
    out = []
    for index, (node, kind) in enumerate(_candidates(ast.parse(source))):
        before = ast.get_source_segment(source, node) or ast.unparse(node)
        out.append(Site(path, index, node.lineno, kind, " ".join(before.split()),
                        ast.unparse(_mutated(node, kind))))
    return out


def mutate(source: str, site: Site) -> str:
    """``source`` with ``site`` applied (the module re-printed by ``ast.unparse``: comments
    go, the code is the same but for the one expression)."""
    tree = ast.parse(source)
    node, kind = list(_candidates(tree))[site.index]
    if kind != site.kind:
        raise ValueError(f"{site.path}: site {site.index} is of kind {kind}, not {site.kind}")
    replacement = ast.copy_location(_mutated(node, kind), node)

    class Replace(ast.NodeTransformer):
        def visit(self, current):
            return replacement if current is node else super().visit(current)

    return ast.unparse(ast.fix_missing_locations(Replace().visit(tree)))


def emit(out_dir: Path, article: str = "small", predictor: str = "small") -> None:
    """Write the Verilog of both builds (as the two soaks build them, in their
    configurations ``article`` and ``predictor``) to ``out_dir``."""
    from hdl.generate import generate
    from verif.predictor_soak import CONFIGS as PREDICTOR_CONFIGS, OPTIONS
    from verif.soak import CONFIGS

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "article.v").write_text(generate(CONFIGS[article]))
    (out_dir / "predictor.v").write_text(generate(PREDICTOR_CONFIGS[predictor], OPTIONS))


#: The tests of the whole block, for a file of ``hdl/`` that no test module names.
BLOCK_TESTS = ("tests/hdl/test_core.py", "tests/hdl/test_predictor_core.py", "tests/hdl/test_top.py")


def unit_tests_for(path: str) -> list[str]:
    """The amaranth.sim test modules of ``tests/hdl`` that import the package of ``path`` (a
    file under ``hdl/``): the modules naming ``hdl.stats`` for ``hdl/stats/coded.py``,
    ``hdl.ecc`` for ``hdl/ecc.py``, or, if none does, the block's (``BLOCK_TESTS``); sorted,
    as paths inside the repository."""
    package = ".".join(Path(path).with_suffix("").parts[:2])
    named = re.compile(rf"\b{re.escape(package)}\b")
    return sorted(f"tests/hdl/{test.name}" for test in (ROOT / "tests/hdl").glob("test_*.py")
                  if named.search(test.read_text())) or list(BLOCK_TESTS)


class Campaign:
    """Mutants run one after the other in ``work`` (a copy of the sources and the builds)."""

    def __init__(self, work: Path, requests: int, traffic_seed: int, timeout: float,
                 configs: dict | None = None, faults: int = 300, unit: bool = True):
        self.work, self.src = Path(work).resolve(), Path(work).resolve() / "src"
        self.requests, self.traffic_seed, self.timeout = requests, traffic_seed, timeout
        self.faults, self.unit = faults, unit
        self.configs = {"article": "small", "predictor": "small", **(configs or {})}
        if self.src.exists():
            shutil.rmtree(self.src)
        for name in PACKAGES + (UNIT_FILES if unit else ()):
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, self.src / name,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                (self.src / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / name, self.src / name)
        self.detail = ""            # why the last mutant was stillborn or killed
        self.original = self._emit("original")
        if self.original is None:
            raise RuntimeError(f"the unmutated sources do not generate: {self.detail}")
        for build in BUILDS:
            if not self._soak(build):
                raise RuntimeError(f"the unmutated {build} build fails its soak: {self.detail}")
        if self.faults and not self._upsets():
            raise RuntimeError(f"the unmutated article build fails under upsets: {self.detail}")

    def _python(self, *args, timeout=None):
        return subprocess.run([sys.executable, *args], cwd=self.src, capture_output=True,
                              text=True, timeout=timeout or self.timeout,
                              env={**_env(), "PYTHONPATH": str(self.src)})

    def _emit(self, name: str) -> dict | None:
        out = self.work / "verilog" / name
        result = self._python("-c", f"from pathlib import Path; from verif.mutate import emit; "
                                    f"emit(Path({str(out)!r}), **{self.configs!r})")
        if result.returncode != 0:
            self.detail = _last_line(result.stderr)
            return None
        return {build: (out / f"{build}.v").read_text() for build in BUILDS}

    def _check(self, label: str, *args) -> bool:
        """Run ``python *args`` in the sources; on a failure or past the timeout, say why
        in ``detail`` (prefixed with ``label``)."""
        try:
            result = self._python(*args)
        except subprocess.TimeoutExpired:
            self.detail = f"{label}: no end within {self.timeout:g} s"
            return False
        if result.returncode != 0:
            self.detail = f"{label}: " + _last_line(result.stderr or result.stdout)
        return result.returncode == 0

    def _unit_failures(self, tests: list[str]) -> list[str]:
        """Run the pytest ``tests`` (node ids or modules) in the sources; the node ids
        of those that fail, and in ``detail`` the first of them (empty if all pass)."""
        try:
            result = self._python("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests)
        except subprocess.TimeoutExpired:
            self.detail = f"unit: no end within {self.timeout:g} s"
            return list(tests)
        failed = [line.split()[1] for line in result.stdout.splitlines()
                  if line.startswith(("FAILED ", "ERROR "))]
        if result.returncode != 0 and not failed:
            failed = list(tests)
        if failed:
            self.detail = f"unit: {failed[0]} ({len(failed)} failed)"
        return failed

    def _soak(self, build: str) -> bool:
        module = "verif.soak" if build == "article" else "verif.predictor_soak"
        args = ["-m", module, "--config", self.configs[build], "--requests", str(self.requests),
                "--seed", str(self.traffic_seed), "--build", str(self.work / "build" / build)]
        if build == "predictor":
            args += ["--out", str(self.work / "build" / "predictor_soak.json")]
        return self._check(build, *args)

    def _upsets(self) -> bool:
        """The article build under single-bit upsets (``verif.faults``, small configuration,
        ``faults`` runs, the traffic seed, each memory of D11 drawn as often as any other,
        so that a small one's check is exercised): every run masked or detected and
        recovered, its report the upset's place, the fault-free runs clean, every recovery
        within D11's bound and its length reported."""
        out = self.work / "build" / "faults"
        if not self._check("faults", "-m", "verif.faults", "--config", "small", "--faults",
                           str(self.faults), "--seed", str(self.traffic_seed), "--per-memory",
                           "--out", str(out)):
            return False
        doc = json.loads((out / "campaign.json").read_text())
        bad = {k: v for k, v in doc["classes"].items()
               if v and k not in ("masked", "detected_recovered")}
        if bad or doc["fault_free_failures"] or doc["recoveries_over_bound"] or \
                doc["recoveries_too_short"] or doc["misreported"]:
            self.detail = (f"faults: {bad}, fault-free failures {len(doc['fault_free_failures'])}, "
                           f"recoveries over the bound {doc['recoveries_over_bound']}, "
                           f"too short {doc['recoveries_too_short']}, "
                           f"misreported {doc['misreported']}")
            return False
        return True

    def run(self, site: Site) -> dict:
        """Apply ``site``, classify the mutant, restore the file."""
        path = self.src / site.path
        original = path.read_text()
        started = time.perf_counter()
        self.detail = ""
        failed = []                 # the unit tests that fail on the mutant
        try:
            path.write_text(mutate(original, site))
            verilog = self._emit("mutant")
            if verilog is None:
                outcome, changed = "stillborn", []
            else:
                changed = [b for b in BUILDS if verilog[b] != self.original[b]]
                if not changed:
                    outcome = "no_effect"
                else:
                    passed = all(self._soak(b) for b in changed)
                    if passed and self.faults and "article" in changed:
                        passed = self._upsets()
                    if passed and self.unit:
                        failed = self._unit_failures(unit_tests_for(site.path))
                        passed = not failed
                    outcome = "survived" if passed else "killed"
        finally:
            path.write_text(original)
        if outcome == "killed" and failed and self._unit_failures(failed):
            raise RuntimeError(f"a unit test fails on the original sources too: {self.detail}")
        return {**asdict(site), "outcome": outcome, "builds": changed, "detail": self.detail,
                "seconds": round(time.perf_counter() - started, 1)}


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def all_sites(files) -> list[Site]:
    """Every site of ``files`` (paths inside the repository), file by file."""
    out = []
    for path in files:
        rel = Path(path).resolve().relative_to(ROOT).as_posix()
        out += sites(rel, (ROOT / rel).read_text())
    return out


def summary(results: list[dict]) -> dict:
    """The count of each outcome and the score, killed / (killed + survived)."""
    counts = {k: sum(r["outcome"] == k for r in results) for k in OUTCOMES}
    run = counts["killed"] + counts["survived"]
    return {**counts, "score": round(counts["killed"] / run, 4) if run else None}


OUTCOMES = ("killed", "survived", "no_effect", "stillborn")
COLOURS = {"killed": "#2e7d32", "survived": "#c62828", "no_effect": "#9e9e9e", "stillborn": "#f9a825"}


def area(path: str) -> str:
    """The part of the RTL a file belongs to: its folder under ``hdl/`` (``hdl`` itself
    for the files at the top)."""
    parts = Path(path).parts
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def plot(results: list[dict], path: Path, title: str) -> None:
    """Outcomes per part of the RTL as stacked bars, written to ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    areas = sorted({area(r["path"]) for r in results})
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(areas) + 1.5))
    left = [0] * len(areas)
    for outcome in OUTCOMES:
        counts = [sum(r["outcome"] == outcome and area(r["path"]) == a for r in results) for a in areas]
        ax.barh(areas, counts, left=left, color=COLOURS[outcome], label=outcome.replace("_", " "))
        left = [x + c for x, c in zip(left, counts)]
    ax.invert_yaxis()
    ax.set_xlabel("mutants")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verif.mutate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutants", type=int_range(1), default=100, help="how many sites to draw")
    ap.add_argument("--seed", type=int, default=None, help="the draw's seed (printed)")
    ap.add_argument("--requests", type=int_range(1), default=100_000, help="requests per soak")
    ap.add_argument("--traffic-seed", type=int, default=1, help="the soaks' traffic seed")
    ap.add_argument("--timeout", type=positive_number("seconds"), default=600.0, help="seconds per soak or generation")
    ap.add_argument("--files", nargs="*", type=Path, default=None,
                    help="RTL files to mutate (default: every file under hdl/)")
    ap.add_argument("--site", action="append", default=[], metavar="PATH:INDEX",
                    help="run this site instead of a draw (repeatable; as the JSON names it)")
    ap.add_argument("--faults", type=int_range(0), default=300,
                    help="single-bit upsets for an article mutant the soak passes (0: none)")
    ap.add_argument("--no-unit", action="store_true",
                    help="leave out the unit tests of a mutant the soaks and upsets pass")
    ap.add_argument("--article-config", choices=("small", "default"), default="small")
    ap.add_argument("--predictor-config", choices=("small", "medium"), default="small")
    ap.add_argument("--work", type=Path, default=Path("build/mutation"))
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--plot", type=Path, default=None, help="a PNG of the outcomes per part of hdl/")
    args = ap.parse_args(argv)
    check_writable(args.work, "--work", folder=True)     # before the first mutant's minutes
    for option, path in (("--json", args.json), ("--plot", args.plot)):
        if path is not None:
            check_writable(path, option)
    files = sorted(args.files or (ROOT / "hdl").rglob("*.py"))
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    pool = all_sites(files)
    if args.site:
        by_name = {f"{s.path}:{s.index}": s for s in pool}
        unknown = [name for name in args.site if name not in by_name]
        if unknown:
            ap.error(f"no such site: {', '.join(unknown)}")
        drawn = [by_name[name] for name in args.site]
    else:
        drawn = random.Random(seed).sample(pool, min(args.mutants, len(pool)))
    print(f"mutate: {len(pool)} sites in {len(files)} files; {len(drawn)} drawn with seed {seed}",
          flush=True)
    configs = {"article": args.article_config, "predictor": args.predictor_config}
    campaign = Campaign(args.work, args.requests, args.traffic_seed, args.timeout, configs,
                        args.faults, unit=not args.no_unit)
    results = []
    for n, site in enumerate(drawn, 1):
        results.append(campaign.run(site))
        r = results[-1]
        print(f"mutate: {n}/{len(drawn)} {r['outcome']:9s} {site.path}:{site.line} {site.kind}: "
              f"{site.before}  ->  {site.after}  ({r['seconds']} s)", flush=True)
    doc = {"seed": seed, "sites": len(pool), "requests": args.requests, "faults": args.faults,
           "unit": not args.no_unit,
           "traffic_seed": args.traffic_seed, "configs": configs, "summary": summary(results),
           "mutants": results}
    print(f"mutate: {json.dumps(doc['summary'])}")
    for r in results:
        if r["outcome"] == "survived":
            print(f"mutate: survived: {r['path']}:{r['line']} {r['before']}  ->  {r['after']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=1))
        print(f"mutate: wrote {args.json}")
    if args.plot:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        plot(results, args.plot, f"{len(results)} mutants of hdl/ (seed {seed}), checked by the soaks "
                                 f"({configs['article']} / {configs['predictor']}, {args.requests} requests)")
        print(f"mutate: wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

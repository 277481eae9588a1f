# SPDX-License-Identifier: Apache-2.0
"""verif.mutate: where it mutates, that a mutant differs from the original in exactly one
expression, and that a campaign tells a planted bug from a change with no effect."""

import ast
import textwrap
from pathlib import Path

import pytest

from verif import mutate as mu

SOURCE = textwrap.dedent("""\
    class Thing:
        def __init__(self, n):
            self.n = n + 1 if n == 0 else n

        def elaborate(self, platform):
            m = Module()
            def helper(x):
                return ~x
            m.d.comb += self.y.eq(Mux(self.s, self.a & self.b, self.a - 1))
            m.d.comb += self.z.eq(self.count >= 3)
            return m
    """)


def test_sites_are_the_elaborate_methods_only():
    found = mu.sites("thing.py", SOURCE)
    assert [(s.kind, s.before, s.after) for s in found] == [     # ast.walk order
        ("invert", "~x", "x"),
        ("mux", "Mux(self.s, self.a & self.b, self.a - 1)", "Mux(self.s, self.a - 1, self.a & self.b)"),
        ("compare", "self.count >= 3", "self.count > 3"),
        ("boundary", "self.count >= 3", "self.count >= 4"),
        ("binop", "self.a & self.b", "self.a | self.b"),
        ("binop", "self.a - 1", "self.a + 1"),
    ]
    assert all(s.line >= 5 for s in found)          # nothing from __init__


@pytest.mark.parametrize("index", range(6))
def test_a_mutant_differs_in_one_expression(index):
    site = mu.sites("thing.py", SOURCE)[index]
    plain = ast.unparse(ast.parse(SOURCE))
    assert plain.count(site.before) == 1
    # The one expression replaced, the rest of the module as it was.
    assert mu.mutate(SOURCE, site) == plain.replace(site.before, site.after)


def test_a_site_of_another_kind_is_refused():
    site = mu.sites("thing.py", SOURCE)[0]
    with pytest.raises(ValueError, match="site 0 is of kind invert, not binop"):
        mu.mutate(SOURCE, mu.Site(site.path, site.index, site.line, "binop", "", ""))


def test_every_site_of_the_rtl_applies():
    files = sorted((mu.ROOT / "hdl").rglob("*.py"))
    found = mu.all_sites(files)
    assert len(found) > 300
    assert {s.kind for s in found} == {"binop", "compare", "boundary", "invert", "mux"}
    for path in {s.path for s in found}:
        source = (mu.ROOT / path).read_text()
        plain = ast.unparse(ast.parse(source))
        for site in (s for s in found if s.path == path):
            mutant = mu.mutate(source, site)
            ast.parse(mutant)
            assert mutant != plain, f"{path}: site {site.index} changes nothing"


def test_unit_tests_are_the_ones_importing_the_package():
    # A file in a package: the modules naming the package, and only those.
    assert "tests/hdl/test_stats.py" in mu.unit_tests_for("hdl/stats/coded.py")
    assert "tests/hdl/test_lru.py" in mu.unit_tests_for("hdl/lru/stages.py")
    assert "tests/hdl/test_lru.py" not in mu.unit_tests_for("hdl/stats/coded.py")
    # A file at the top of hdl/: the modules naming its module.
    assert mu.unit_tests_for("hdl/ecc.py") == ["tests/hdl/test_parameter_checks.py",
                                               "tests/hdl/test_protect.py"]
    assert mu.unit_tests_for("hdl/scrubber.py") == ["tests/hdl/test_parameter_checks.py",
                                                   "tests/hdl/test_table.py"]
    # A file no test module names: the tests of the whole block.
    assert mu.unit_tests_for("hdl/tlevel.py") == list(mu.BLOCK_TESTS)
    # Every file of hdl/ has some, and every one exists.
    for path in (mu.ROOT / "hdl").rglob("*.py"):
        tests = mu.unit_tests_for(path.relative_to(mu.ROOT).as_posix())
        assert tests and all((mu.ROOT / t).is_file() for t in tests), path


def test_unit_failures_are_the_failing_node_ids(tmp_path):
    # The campaign's pytest run, in sources of its own: a module with a passing and a
    # failing test, and one whose import fails.
    campaign = object.__new__(mu.Campaign)
    campaign.src, campaign.timeout, campaign.detail = tmp_path, 120.0, ""
    (tmp_path / "test_a.py").write_text("def test_ok():\n    pass\n\n"
                                        "def test_bad():\n    assert 1 == 2\n")
    (tmp_path / "test_b.py").write_text("import no_such_module\n")
    assert campaign._unit_failures(["test_a.py::test_ok"]) == []
    assert campaign.detail == ""
    assert campaign._unit_failures(["test_a.py"]) == ["test_a.py::test_bad"]
    assert campaign.detail == "unit: test_a.py::test_bad (1 failed)"
    assert campaign._unit_failures(["test_b.py"]) == ["test_b.py"]


def test_summary_scores_killed_over_run():
    results = [{"outcome": o} for o in ("killed", "killed", "killed", "survived", "no_effect", "stillborn")]
    assert mu.summary(results) == {"killed": 3, "survived": 1, "no_effect": 1, "stillborn": 1,
                                   "score": 0.75}


def _site(path, kind, before):
    for site in mu.sites(path, (mu.ROOT / path).read_text()):
        if site.kind == kind and site.before == before:
            return site
    raise AssertionError(f"no {kind} site {before!r} in {path}")


@pytest.mark.campaign      # make mutation runs it before its draw; make test does not
def test_a_campaign_kills_planted_bugs_and_skips_a_change_without_effect(tmp_path):
    campaign = mu.Campaign(tmp_path, requests=3000, traffic_seed=1, timeout=600, faults=100)
    # ARREADY also while a read's response waits: only a master that issues a read
    # while another is outstanding (the soak's, ``verif.soak.axi_master``) finds it.
    killed = campaign.run(_site("hdl/axil/subordinate.py", "binop",
                                "~ar_full & ~r_wait & ~rvalid"))
    assert killed["outcome"] == "killed" and killed["builds"] == ["article", "predictor"]
    assert killed["detail"].startswith("article: ")
    # The error report's choice of memory: the LRU's corrected errors named as the table's.
    # Every response stays right (the soak passes); the upsets' reports do not.
    misreport = campaign.run(_site("hdl/core/recovery.py", "binop",
                                   "table.err_corrected & ~lru.err_uncorrectable"))
    assert misreport["outcome"] == "killed" and misreport["builds"] == ["article"]
    assert misreport["detail"].startswith("faults: ") and "misreported 0" not in misreport["detail"]
    # The hash's carry-save form (CoreOptions.hash_mul_stages=0): neither small build has it.
    unused = campaign.run(_site("hdl/hash/carry_save.py", "binop", 'resolve(s["h"]) ^ 8'))
    assert unused["outcome"] == "no_effect" and unused["builds"] == []
    assert (mu.ROOT / "hdl/axil/subordinate.py").read_text() == \
        (Path(tmp_path) / "src/hdl/axil/subordinate.py").read_text()


def test_outcomes_are_plotted_per_part_of_the_rtl(tmp_path):
    assert mu.area("hdl/core/commit.py") == "hdl/core" and mu.area("hdl/ecc.py") == "hdl"
    results = [{"path": "hdl/core/a.py", "outcome": "killed"}, {"path": "hdl/ecc.py", "outcome": "survived"}]
    mu.plot(results, tmp_path / "m.png", "two mutants")
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv,message", [
    (["--requests", "0"], "--requests: must be at least 1"),
    (["--mutants", "0"], "--mutants: must be at least 1"),
    (["--faults", "-1"], "--faults: must be at least 0"),
    (["--timeout", "0"], "--timeout: must be a positive number of seconds"),
    (["--work", "/proc/version/x"], "--work /proc/version/x"),
    (["--json", "/proc/version/x.json"], "--json /proc/version/x.json"),
])
def test_options_that_would_waste_a_campaign_are_refused_before_it(argv, message, capsys):
    """A soak of no request would count every mutant killed; outputs that cannot be written
    would be found after hours: both are refused with exit status 2 before the draw."""
    with pytest.raises(SystemExit) as stop:
        mu.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr()
    assert message in err.err and "sites in" not in err.out

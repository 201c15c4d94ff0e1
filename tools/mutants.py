"""The mutant vendor's driver: are the checks strong enough to catch real faults?

    ordo mutants [--ranks 3,4] [--only NAME,...] [--out DIR]

Builds the mutant MPI (vendors/mutants: ordo's reference MPI with fault
hooks, on MPICH), runs the check executables against the unmutated library
(the baseline: it must pass every MUST check), then against each mutant of
vendors/mutants/mutants.json (ORDO_MUTANT=<name>), stopping a mutant at the
first MUST failure, crash or timeout. Prints a table -- mutant, detected,
the first check that caught it, time to detection -- and writes it to
<out>/mutants.json.

Exit codes: 0 every mutant detected and the baseline clean, 1 otherwise,
2 usage or set-up error, 3 infrastructure failure.
"""
import argparse
import datetime
import glob
import json
import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# (first: it puts the reports package on the path)
from runner import ROOT, protocol  # noqa: E402
from reports.records import BAD as DETECTING, read_journal  # noqa: E402
from runner.adapters import launch_env, launcher_prefix, load_adapter  # noqa: E402
from runner.arguments import parse_ranks  # noqa: E402
from runner.build import build, check_executables, git_state  # noqa: E402
from runner.errors import EXIT_FAIL, EXIT_INFRA, EXIT_OK, OrdoError  # noqa: E402
from runner.launch import job_command, ordo_flags  # noqa: E402

CATALOGUE = ROOT / "vendors" / "mutants" / "mutants.json"
EXIT_UNKNOWN_MUTANT = 97  # the mutant library's exit code for an unknown ORDO_MUTANT


def load_catalogue(path=CATALOGUE):
    try:
        doc = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as e:
        raise OrdoError(f"cannot read the mutant list {path}: {e}")
    mutants = doc.get("mutants")
    if not isinstance(mutants, list) or not mutants:
        raise OrdoError(f"{path} has no 'mutants' list")
    seen = set()
    for m in mutants:
        for key in ("name", "category", "description", "clause"):
            if not isinstance(m.get(key), str) or not m[key]:
                raise OrdoError(f"{path}: mutant {m.get('name', '?')} has no '{key}'")
        if m["name"] in seen:
            raise OrdoError(f"{path}: mutant {m['name']} is listed twice")
        seen.add(m["name"])
    return mutants


def library_mutants(bdir):
    """The names the mutant library knows (besides 'none')."""
    exe = bdir / "vendors" / "mutants" / "ordo_mutant_names"
    env = {k: v for k, v in os.environ.items() if k != "ORDO_MUTANT"}
    out = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=30, env=env
    )
    if out.returncode != 0:
        raise OrdoError(f"{exe} failed: {out.stderr.strip()}", EXIT_INFRA)
    return {
        line.strip()
        for line in out.stdout.splitlines()
        if line.strip() and line.strip() != "none"
    }


def detection(records, rc, log, journal):
    """The first thing in one job that shows the fault, or None."""
    for r in records:
        if r.get("outcome") in DETECTING and r.get("level", "MUST") == "MUST":
            what = r.get("test") or "?"
            if r.get("clause"):
                what += f" [{r['clause']}]"
            if r.get("outcome") != "fail":
                what += f" ({r['outcome']})"
            return {
                "check": what,
                "outcome": r.get("outcome"),
                "message": (r.get("message") or "")[:300],
                "id": r.get("id"),
            }
    if rc == EXIT_UNKNOWN_MUTANT:
        raise OrdoError(
            f"the mutant library refused the mutant name (log: {log})", EXIT_INFRA
        )
    if rc not in (0, 1) or not protocol.marker(journal, protocol.DONE).exists():
        # The job died (a crash, an abort, a hang): charged to its case by the
        # runner's rule (runner/protocol.py).
        outcome = "timeout" if protocol.timed_out(journal, rc) else "crash"
        tail = " / ".join(
            pathlib.Path(log).read_text(errors="replace").splitlines()[-3:]
        )
        case, _ = protocol.charged_case(journal, 0)
        if case and case.get("level") == "DETECT":
            # An erroneous call (DETECT) that ended the job says nothing of a
            # mutant: the reference MPI need not detect erroneous use, and a
            # hang there is its (and the underlying library's) business.
            return None
        what = (
            f"{case.get('test', '?')} [{case.get('clause', '?')}]"
            if case
            else pathlib.Path(log).stem
        )
        return {
            "check": f"{what} ({outcome}, exit code {rc})",
            "outcome": outcome,
            "message": tail[:300],
            "id": None,
        }
    return None


class Runner:
    def __init__(self, adapter, bdir, out, job_timeout, case_timeout, seed):
        self.adapter, self.bdir, self.out = adapter, bdir, out
        self.job_timeout, self.case_timeout, self.seed = job_timeout, case_timeout, seed

    def job(self, mutant, exe, n, extra=()):
        """Runs one check executable at n ranks with one mutant: (records, rc, seconds,
        log, journal)."""
        tag = mutant or "baseline"
        d = self.out / tag
        (d / "logs").mkdir(parents=True, exist_ok=True)
        name = pathlib.Path(exe).name
        journal = d / f"{name}-{n}ranks.jsonl"
        log = d / "logs" / f"{name}-{n}ranks.log"
        for f in [journal] + [pathlib.Path(p) for p in glob.glob(str(journal) + ".*")]:
            f.unlink(missing_ok=True)
        user_env = {"ORDO_MUTANT": mutant} if mutant else {}
        env = launch_env(self.adapter, self.bdir, user_env, False)
        prefix = launcher_prefix(self.adapter, self.bdir, env)
        timeout = self.job_timeout(name, n)
        flags = ordo_flags(
            journal=journal,
            vendor=self.adapter["name"],
            seed=self.seed,
            case_timeout=self.case_timeout,
            adapter=self.adapter["_path"],
        )
        cmd = job_command(
            self.adapter,
            prefix,
            n,
            exe,
            timeout=int(timeout),
            flags=flags
            + [f"--gtest_output=xml:{d / f'{name}-{n}ranks.xml'}"]
            + list(extra),
        )
        t0 = time.time()
        with open(log, "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
        return read_journal(journal), rc, time.time() - t0, log, journal


def order_for(mutant, executables, baseline_seconds):
    """The executables named by the mutant's families first, then the fastest."""
    by_family = {
        pathlib.Path(e).name.replace("ordo_check_", ""): e for e in executables
    }
    first = [by_family[f] for f in mutant.get("families", []) if f in by_family]
    rest = sorted(
        (e for e in executables if e not in first),
        key=lambda e: baseline_seconds.get(e, 0),
    )
    return first + rest


def cmd_mutants(args):
    ranks = parse_ranks(args.ranks)
    catalogue = load_catalogue()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m["name"] for m in catalogue}
        if unknown:
            raise OrdoError(
                f"--only: unknown mutant(s) {', '.join(sorted(unknown))}; "
                f"see {CATALOGUE.relative_to(ROOT)}"
            )
        catalogue = [m for m in catalogue if m["name"] in wanted]
    adapter = load_adapter("mutants")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = pathlib.Path(args.out or ROOT / "out" / f"mutants-{stamp}").resolve()
    if (out / "mutants.json").exists():
        raise OrdoError(f"{out} already holds a mutant run; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    bdir, _ = build(adapter, reference_tests=False, extras=False)  # checks only
    known = library_mutants(bdir)
    listed = {m["name"] for m in load_catalogue()}
    if known != listed:
        raise OrdoError(
            (
                "vendors/mutants/mutants.json and the mutant library disagree: only in"
                f" the list: {sorted(listed - known)}, only in the library:"
                f" {sorted(known - listed)}"
            ),
            EXIT_INFRA,
        )
    executables = check_executables(bdir)
    if not executables:
        raise OrdoError(f"no check executables were built in {bdir}", EXIT_INFRA)

    t_all = time.time()
    baseline_seconds = {}
    runner = Runner(
        adapter, bdir, out, lambda name, n: args.timeout, args.case_timeout, args.seed
    )
    # The baseline: the mutant library with no mutant must pass every MUST check,
    # or a "detection" could be a false alarm.
    print(
        f"ordo: baseline (no mutant) at ranks {','.join(map(str, ranks))}", flush=True
    )
    false_alarms, baseline_ids = [], set()
    for n in ranks:
        for exe in executables:
            records, rc, dt, log, journal = runner.job(None, exe, n)
            baseline_seconds[exe] = max(baseline_seconds.get(exe, 0), dt)
            bad = detection(records, rc, log, journal)
            for r in records:
                if r.get("outcome") in DETECTING and r.get("level", "MUST") == "MUST":
                    baseline_ids.add((r.get("id"), n))
            if bad:
                false_alarms.append(dict(bad, ranks=n))
                print(
                    (
                        f"  [{n} ranks] {pathlib.Path(exe).name}: FAILS WITHOUT A"
                        f" MUTANT: {bad['check']}: {bad['message'][:200]}"
                    ),
                    flush=True,
                )
    t_base = time.time() - t_all
    baseline = f"{len(false_alarms)} failing jobs" if false_alarms else "clean"
    print(
        f"  baseline: {baseline} in {t_base:.0f} s",
        flush=True,
    )

    # A job may take a few times its baseline duration (the hanging mutant is
    # caught by the harness's per-case watchdog well before that).
    runner.job_timeout = lambda name, n: max(
        args.timeout_floor, 4 * max(baseline_seconds.values()) + 30
    )
    rows = []
    for m in catalogue:
        t0 = time.time()
        found, seconds = None, 0.0
        rank_order = [n for n in m.get("ranks", []) if n in ranks] + [
            n for n in ranks if n not in m.get("ranks", [])
        ]
        for n in rank_order:
            for exe in order_for(m, executables, baseline_seconds):
                records, rc, dt, log, journal = runner.job(
                    m["name"], exe, n, ["--gtest_fail_fast"]
                )
                seconds += dt
                records = [r for r in records if (r.get("id"), n) not in baseline_ids]
                found = detection(records, rc, log, journal)
                if found:
                    found["ranks"] = n
                    break
            if found:
                break
        rows.append(
            {
                "name": m["name"],
                "category": m["category"],
                "clause": m["clause"],
                "detected": bool(found),
                "caught_by": found,
                "seconds": round(seconds, 2),
                "wall_seconds": round(time.time() - t0, 2),
            }
        )
        status = (
            f"caught by {found['check']} at {found['ranks']} ranks"
            if found
            else f"ESCAPED (no check of {m['clause']} caught it)"
        )
        print(f"  {m['name']:32} {status}  {seconds:6.1f} s", flush=True)

    total = time.time() - t_all
    print_table(rows)
    detected = sum(r["detected"] for r in rows)
    print(
        f"{len(rows)} mutants: {detected} detected, {len(rows) - detected} escaped;"
        f" baseline {'clean' if not false_alarms else 'NOT clean'} ({t_base:.0f} s);"
        f" total {total:.0f} s"
    )
    for r in rows:
        if not r["detected"]:
            print(
                f"  escaped: {r['name']}: a check of clause {r['clause']} that"
                " exercises it would catch it"
            )
    report = {
        "schema": "ordo.mutant-run/1",
        "vendor": adapter["name"],
        "ranks": ranks,
        "seed": args.seed,
        "git": git_state(),
        "baseline": {
            "clean": not false_alarms,
            "failures": false_alarms,
            "seconds": round(t_base, 2),
        },
        "mutants": rows,
        "seconds": round(total, 2),
    }
    (out / "mutants.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"report: {out / 'mutants.json'}")
    return EXIT_OK if detected == len(rows) and not false_alarms else EXIT_FAIL


def print_table(rows):
    w = max(len(r["name"]) for r in rows)
    print(
        f"\n{'mutant':{w}}  {'category':26} {'detected':8}  {'time':>7}  first check"
        " that caught it"
    )
    for r in rows:
        c = r["caught_by"]
        caught = (
            f"{c['check']} @{c['ranks']} ranks" if c else f"- (clause {r['clause']})"
        )
        print(
            f"{r['name']:{w}}  {r['category']:26} {'yes' if r['detected'] else 'NO':8} "
            f" {r['seconds']:6.1f}s  {caught}"
        )


def add_arguments(p):
    p.add_argument("--ranks", default="3,4", help="rank counts (default: 3,4)")
    p.add_argument(
        "--only", help="comma-separated mutant names (default: every mutant)"
    )
    p.add_argument("--out", help="output folder (default: out/mutants-<time>)")
    p.add_argument(
        "--seed", type=int, default=1, help="base seed of the inputs (default: 1)"
    )
    p.add_argument(
        "--timeout",
        type=int,
        default=600,
        help="seconds allowed per job of the baseline",
    )
    p.add_argument(
        "--timeout-floor",
        type=int,
        default=60,
        help="least seconds allowed per job of a mutant",
    )
    p.add_argument(
        "--case-timeout",
        type=int,
        default=20,
        help="seconds one case may take before the job counts as hung (default: 20)",
    )


def run(args):
    """`ordo mutants`: errors become one line and an exit code."""
    try:
        return cmd_mutants(args)
    except OrdoError as e:
        print(f"ordo: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("ordo: interrupted", file=sys.stderr)
        return EXIT_INFRA


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="ordo mutants", description=__doc__.split("\n\n")[0]
    )
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

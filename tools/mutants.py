"""The mutant vendor's driver: are the checks strong enough to catch real faults?

    ordo mutants [--ranks 3,4] [--only NAME,...] [--out DIR]
    ordo mutants --system debian-unstable --abi [--abi-library mpich|openmpi|PATH]

Builds the mutant MPI (vendors/mutants: ordo's reference MPI with fault
hooks, on MPICH), runs the check executables against the unmutated library
(the baseline: it must pass every MUST check), then against each mutant of
vendors/mutants/mutants.json (ORDO_MUTANT=<name>), stopping a mutant at the
first MUST failure, crash or timeout. Prints a table -- mutant, detected,
the first check that caught it, time to detection -- and writes it to
<out>/mutants.json.

With --abi the mutant MPI and the checks are built through the MPI-5.0
standard ABI (the ABI build of `ordo run --abi`, runner/abi.py) and the mutant
MPI is preloaded over the chosen library's libmpi_abi.so.1. A mutant whose
fault exists only through the ABI ("abi_only" in the list) or only over a
library's own mpi.h ("native_only") is reported elsewhere as not applicable,
with its reason: never run, never counted as detected, never a failure.

Exit codes: 0 every mutant that applies detected and the baseline clean, 1
otherwise, 2 usage or set-up error, 3 infrastructure failure.
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
from runner import ROOT, abi, protocol  # noqa: E402
from reports.records import BAD as DETECTING, read_journal  # noqa: E402
from runner.adapters import (  # noqa: E402
    join_env,
    launch_env,
    launcher_prefix,
    load_adapter,
)
from runner.arguments import parse_ranks  # noqa: E402
from runner.build import build, check_executables, git_state  # noqa: E402
from runner.errors import (  # noqa: E402
    EXIT_FAIL,
    EXIT_INFRA,
    EXIT_OK,
    EXIT_USAGE,
    OrdoError,
)
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
        for key in ONLY_KEYS:
            if key in m and (not isinstance(m[key], str) or not m[key]):
                raise OrdoError(
                    f"{path}: mutant {m['name']}: '{key}' must be the reason, a text"
                )
        if all(key in m for key in ONLY_KEYS):
            raise OrdoError(
                f"{path}: mutant {m['name']} is both {' and '.join(ONLY_KEYS)}"
            )
    return mutants


# A mutant's fault may exist in one build only: "abi_only" (the mutant library
# through the MPI-5.0 standard ABI), "native_only" (over a library's own mpi.h).
# The value is the reason, printed where the mutant does not apply.
ONLY_KEYS = ("abi_only", "native_only")


def not_applicable(mutant, through_abi):
    """Why the mutant's fault does not exist in this kind of build, or None."""
    if through_abi and mutant.get("native_only"):
        return "not through the ABI: " + mutant["native_only"]
    if not through_abi and mutant.get("abi_only"):
        return "through the ABI only: " + mutant["abi_only"]
    return None


def not_applicable_row(mutant, why):
    """The report's row of a mutant that was not run here: never detected, never
    escaped."""
    return {
        "name": mutant["name"],
        "category": mutant["category"],
        "clause": mutant["clause"],
        "applicable": False,
        "not_applicable": why,
        "detected": False,
        "caught_by": None,
        "seconds": 0.0,
        "wall_seconds": 0.0,
    }


def verdict(rows, baseline_clean):
    """The exit code: every mutant that applies detected and the baseline clean."""
    applicable = [r for r in rows if r.get("applicable", True)]
    ok = all(r["detected"] for r in applicable) and baseline_clean
    return EXIT_OK if ok else EXIT_FAIL


def mutant_adapter(args):
    """The adapter of the mutant library: vendors/mutants (over MPICH's own mpi.h),
    or with --abi the ABI build's (runner/abi.py: the chosen library's adapter and
    libmpi_abi.so.1) with the mutant library preloaded first, as vendors/mutants
    preloads it over MPICH."""
    if not getattr(args, "abi", False):
        if getattr(args, "abi_library", None):
            raise OrdoError("--abi-library without --abi: add --abi", EXIT_USAGE)
        return load_adapter("mutants")
    adapter = abi.adapter_for(
        {"vendor": "mpich", "abi": True, "abi_library": args.abi_library}
    )
    preload = load_adapter("mutants")["env"]["LD_PRELOAD"]
    adapter["env"], _ = join_env({"LD_PRELOAD": preload}, adapter.get("env", {}))
    return adapter


def library_mutants(bdir, library_path=None):
    """The names the mutant library knows (besides 'none'). library_path: the
    LD_LIBRARY_PATH of the launch (through the ABI: the folder of the chosen
    library's libmpi_abi.so.1)."""
    exe = bdir / "vendors" / "mutants" / "ordo_mutant_names"
    env = {k: v for k, v in os.environ.items() if k != "ORDO_MUTANT"}
    if library_path:
        env["LD_LIBRARY_PATH"] = library_path
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
        # the journal's vendor: the mutant library, whichever adapter launches it
        self.vendor = "mutants" if adapter.get("_abi") else adapter["name"]
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
            vendor=self.vendor,
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
    adapter = mutant_adapter(args)
    through_abi = bool(adapter.get("_abi"))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = pathlib.Path(args.out or ROOT / "out" / f"mutants-{stamp}").resolve()
    if (out / "mutants.json").exists():
        raise OrdoError(f"{out} already holds a mutant run; choose another --out")
    skipped = {
        m["name"]: not_applicable(m, through_abi)
        for m in catalogue
        if not_applicable(m, through_abi)
    }
    for name, why in skipped.items():
        print(f"ordo: {name}: not applicable here, {why}", flush=True)
    runnable = [m for m in catalogue if m["name"] not in skipped]
    if not runnable:
        return finish(args, adapter, out, catalogue, {}, skipped, [], 0.0, 0.0)
    out.mkdir(parents=True, exist_ok=True)
    bdir, _ = build(adapter, reference_tests=False, extras=False)  # checks only
    known = library_mutants(
        bdir, launch_env(adapter, bdir, {}, False).get("LD_LIBRARY_PATH")
    )
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
    rows = {}
    for m in runnable:
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
        rows[m["name"]] = {
            "name": m["name"],
            "category": m["category"],
            "clause": m["clause"],
            "applicable": True,
            "detected": bool(found),
            "caught_by": found,
            "seconds": round(seconds, 2),
            "wall_seconds": round(time.time() - t0, 2),
        }
        status = (
            f"caught by {found['check']} at {found['ranks']} ranks"
            if found
            else f"ESCAPED (no check of {m['clause']} caught it)"
        )
        print(f"  {m['name']:32} {status}  {seconds:6.1f} s", flush=True)

    return finish(
        args,
        adapter,
        out,
        catalogue,
        rows,
        skipped,
        false_alarms,
        t_base,
        time.time() - t_all,
    )


def finish(args, adapter, out, catalogue, ran, skipped, false_alarms, t_base, total):
    """The table, the closing lines, <out>/mutants.json and the exit code. ran: the
    rows of the mutants that ran, by name; skipped: why each other one does not
    apply here (a row of its own in the catalogue's order, never absent)."""
    rows = [
        ran[m["name"]]
        if m["name"] in ran
        else not_applicable_row(m, skipped[m["name"]])
        for m in catalogue
    ]
    ranks = parse_ranks(args.ranks)
    through_abi = bool(adapter.get("_abi"))
    print_table(rows)
    applicable = [r for r in rows if r.get("applicable", True)]
    detected = sum(r["detected"] for r in applicable)
    line = (
        f"{len(rows)} mutants: {detected} detected,"
        f" {len(applicable) - detected} escaped"
    )
    if len(applicable) < len(rows):
        where = "through the ABI" if through_abi else "over a library's own mpi.h"
        line += f", {len(rows) - len(applicable)} not applicable {where}"
    if applicable:
        line += (
            f"; baseline {'clean' if not false_alarms else 'NOT clean'}"
            f" ({t_base:.0f} s)"
        )
    print(f"{line}; total {total:.0f} s")
    for r in applicable:
        if not r["detected"]:
            print(
                f"  escaped: {r['name']}: a check of clause {r['clause']} that"
                " exercises it would catch it"
            )
    for r in rows:
        if not r.get("applicable", True):
            print(f"  not applicable: {r['name']}: {r['not_applicable']}")
    report = {
        "schema": "ordo.mutant-run/1",
        "vendor": "mutants",
        "through": "abi" if through_abi else "native",
        "ranks": ranks,
        "seed": args.seed,
        "git": git_state(),
        "baseline": {
            "clean": not false_alarms,
            "ran": bool(applicable),
            "failures": false_alarms,
            "seconds": round(t_base, 2),
        },
        "mutants": rows,
        "seconds": round(total, 2),
    }
    if through_abi:
        a = adapter["_abi"]
        report["abi"] = {
            "library": a["library"],
            "library_name": a["library_name"],
            "launched_by": adapter["name"],
            "header": os.path.join(a["header"], "mpi.h"),
        }
    out.mkdir(parents=True, exist_ok=True)
    (out / "mutants.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"report: {out / 'mutants.json'}")
    return verdict(rows, not false_alarms)


def print_table(rows):
    w = max(len(r["name"]) for r in rows)
    print(
        f"\n{'mutant':{w}}  {'category':26} {'detected':8}  {'time':>7}  first check"
        " that caught it"
    )
    for r in rows:
        c = r["caught_by"]
        if not r.get("applicable", True):
            mark, caught = "n/a", "- (not applicable here: the reason below)"
        else:
            mark = "yes" if r["detected"] else "NO"
            caught = (
                f"{c['check']} @{c['ranks']} ranks"
                if c
                else f"- (clause {r['clause']})"
            )
        print(
            f"{r['name']:{w}}  {r['category']:26} {mark:8} "
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
        "--abi",
        action="store_true",
        help="build the mutant MPI and the checks through the MPI-5.0 standard ABI "
        "(as `ordo run --abi`) and preload it over a library's libmpi_abi.so.1 "
        "(with --system debian-unstable)",
    )
    p.add_argument(
        "--abi-library",
        metavar="NAME|PATH",
        help="with --abi: the library under the mutant MPI, mpich (default) or "
        "openmpi (launched by that adapter), or a libmpi_abi.so.1 file",
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

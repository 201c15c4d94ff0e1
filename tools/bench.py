"""`ordo bench`: the suite's own benchmarks in one table, kept as JSON.

    the reference fold's throughput      (runs build/<vendor>/reference/ordo_fold_bench)
    the reference's plan per process     (runs build/<vendor>/reference/ordo_plan_bench)
    property cases per second            (bench/results/property_throughput.json,
                                          written by bench/property_throughput/run.py)
    the default run's wall time          (run.json of `ordo run` output folders, per
                                          rank count)
    the mutant vendor's detection times  (mutants.json of an `ordo mutants` output
                                          folder)
    the report's size and time           (--reports OUT ...: the report and package
                                          of each run built afresh in a scratch
                                          folder, against the files the folder holds)
    a hanging library against a clean one (--hangs CLEAN HANGING: two runs of the
                                          same checks, the second against a library
                                          that hangs in a family of cases; issue #17)
    the algorithm sweeps                 (--sweeps OUT ...: `ordo run --variants all`
                                          folders: launches, and where the seconds
                                          went: launch and start-up, the library's
                                          calls, the reference and the harness;
                                          issue #17)

Nothing here is timed by a test: the figures are measurements, printed and
written to bench/results/suite.json (or --json PATH).
"""
import datetime
import glob
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

from runner import ROOT
from runner.adapters import build_dir_for, load_adapter
from runner.build import build, git_state
from runner.errors import EXIT_INFRA, EXIT_OK, OrdoError

SCHEMA = "ordo.bench/1"


def add_arguments(p):
    p.add_argument(
        "--runs",
        nargs="*",
        default=[],
        metavar="OUT",
        help=(
            "output folders of default `ordo run`s (one per library) for the wall-time"
            " rows"
        ),
    )
    p.add_argument(
        "--mutants",
        metavar="OUT",
        help="output folder of `ordo mutants` (default: the newest out/mutants-*)",
    )
    p.add_argument(
        "--vendor",
        default="mpich",
        help="the build whose fold benchmark runs (default: mpich)",
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        help="where to keep the table (default: bench/results/suite.json)",
    )
    p.add_argument(
        "--hangs",
        nargs=2,
        metavar=("CLEAN", "HANGING"),
        help=(
            "output folders of two runs of the same checks, the second against a"
            " library that hangs in a family of cases: wall times, timeouts and the"
            " limits that applied"
        ),
    )
    p.add_argument(
        "--sweeps",
        nargs="*",
        default=[],
        metavar="OUT",
        help=(
            "output folders of variant sweeps (`ordo run --variants ...`): launches,"
            " seconds, and where they went"
        ),
    )
    p.add_argument(
        "--reports",
        nargs="*",
        default=[],
        metavar="OUT",
        help=(
            "output folders of `ordo run` whose report and package are built again in a"
            " scratch folder: bytes and seconds, against the report files the folder"
            " holds (issue #17)"
        ),
    )


def bench_output(vendor, target, what):
    """Builds (when missing) and runs one of the reference's benchmarks in the vendor's
    build; its stdout."""
    adapter = load_adapter(vendor)
    bdir = build_dir_for(adapter)
    exe = bdir / "reference" / target
    # a build without ORDO_EXTRAS (`ordo test`'s own) has none: turned on here
    if not exe.exists():
        build(adapter, reference_tests=False, quiet=True, extras=True)
        if not exe.exists():
            raise OrdoError(f"the {what} benchmark did not build in {bdir}", EXIT_INFRA)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise OrdoError(f"{exe} failed: {out.stderr.strip()[:200]}", EXIT_INFRA)
    return out.stdout


def fold_rows(vendor):
    rows = []
    for line in bench_output(vendor, "ordo_fold_bench", "fold").splitlines()[1:]:
        f = line.split()
        if len(f) == 5:
            rows.append(
                {
                    "op": f[0],
                    "datatype": f[1],
                    "p": int(f[2]),
                    "count": int(f[3]),
                    "combines_per_s": float(f[4]),
                }
            )
    return rows


def plan_rows(vendor):
    """The reference's plan of one process per case kind
    (reference/bench/plan_bench.cpp): microseconds per plan at 2, 4 and 8 processes;
    every process of a job computes its own each case (issue #17).
    """
    rows = []
    for line in bench_output(vendor, "ordo_plan_bench", "plan").splitlines()[1:]:
        f = line.split()
        if len(f) == 7:
            rows.append(
                {
                    "routine": f[0],
                    "op": f[1],
                    "datatype": f[2],
                    "count": int(f[3]),
                    "us_per_plan": {
                        "2": float(f[4]),
                        "4": float(f[5]),
                        "8": float(f[6]),
                    },
                }
            )
    return rows


def read_json(path, what):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise OrdoError(f"{path} ({what}) is unreadable or corrupt: {e}")


def run_rows(runs):
    rows = []
    for d in runs:
        run = read_json(pathlib.Path(d) / "run.json", "a run file")
        if run is None:
            raise OrdoError(f"{d} holds no run.json: give output folders of `ordo run`")
        if not run.get("end"):
            raise OrdoError(
                f"the run in {d} is not finished: its wall times would be partial"
            )
        for row in run.get("per_rank_count", []):
            if row.get("variant", "default") != "default":
                continue
            rows.append(
                {
                    "library": run.get("vendor"),
                    # where it ran: "host", or the root of another release (--system)
                    "system": (run.get("system") or {}).get("name") or "host",
                    "ranks": row["ranks"],
                    "seconds": row["seconds"],
                    "checks": sum(row.get("outcomes", {}).values()),
                    "property_budget": (run.get("settings") or {}).get(
                        "property_budget"
                    ),
                    "run": str(d),
                }
            )
    return rows


def _bytes(path):
    path = pathlib.Path(path)
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return None


def report_rows(folders):
    """Per output folder: the sizes of the report files it holds (as an earlier ordo
    wrote them: the "before" of a folder copied from an old run), then the report, its
    views and a package built again by this ordo in a scratch folder, with the seconds
    each took. The folder itself is not written to. The report it holds is read through
    reports/results.load (version 1 or 2) to count its records."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from reports import package, results, views
    from reports.records import journal_file

    rows = []
    for d in folders:
        d = pathlib.Path(d)
        # journal.jsonl, or journal.jsonl.gz once the run has ended
        journal = journal_file(d)
        if journal is None:
            raise OrdoError(
                f"{d} holds no journal.jsonl (nor journal.jsonl.gz): give output"
                " folders of `ordo run` to --reports"
            )
        held = results.results_file(d)
        row = {
            "run": str(d),
            "held": {
                "results": held.name if held else None,
                "results_bytes": _bytes(held) if held else None,
                "junit_bytes": _bytes(d / "junit.xml"),
                "html_bytes": _bytes(d / "report.html"),
                "journal": journal.name,
                "journal_bytes": _bytes(journal),
            },
        }
        try:
            if held is not None:
                old = results.load(held)
                row["held"].update(
                    schema=old["schema"]
                    if held.name == results.RESULTS_NAME_V1
                    else results.SCHEMA_ID,
                    records=len(old["records"]),
                )
                del old
            with tempfile.TemporaryDirectory(prefix="ordo-bench-report-") as tmp:
                tmp = pathlib.Path(tmp)
                t0, c0 = time.time(), time.process_time()
                report, path = results.write(d, tmp / results.RESULTS_NAME)
                paths = views.write_all(report, tmp)
                # wall and CPU seconds (on a machine shared with builds the wall time
                # says little alone)
                row["report_seconds"] = round(time.time() - t0, 1)
                row["report_cpu_seconds"] = round(time.process_time() - c0, 1)
                row.update(
                    library=report["run"].get("vendor"),
                    records=len(report["records"]),
                    written={
                        "results": path.name,
                        "results_bytes": _bytes(path),
                        "junit_bytes": _bytes(paths["junit"]),
                        "html_bytes": _bytes(paths["html"]),
                        "markdown_bytes": _bytes(paths["markdown"]),
                    },
                )
                del report
                t0, c0 = time.time(), time.process_time()
                package.make(d, tmp / "package")
                row["package_seconds"] = round(time.time() - t0, 1)
                row["package_cpu_seconds"] = round(time.process_time() - c0, 1)
                row["written"]["package_bytes"] = _bytes(tmp / "package")
        except results.ReportError as e:
            raise OrdoError(str(e))
        rows.append(row)
    return rows


def hang_row(folders):
    """Two runs of the same checks, clean and hanging: their wall times (run.json), the
    timeouts of the second with the rule of the limit that ended each, and whether every
    other check kept its outcome.
    """
    if not folders:
        return None
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from reports.records import HELD_BACK, journal_file, read_journal

    row = {}
    outcomes = {}
    held = {}
    for label, d in zip(("clean", "hanging"), folders):
        run = read_json(pathlib.Path(d) / "run.json", "a run file")
        if run is None or not run.get("end"):
            raise OrdoError(f"{d} holds no finished run (run.json with an end time)")
        recs = read_journal(journal_file(d) or pathlib.Path(d) / "journal.jsonl")
        outcomes[label] = {
            (r.get("variant"), r.get("ranks"), r.get("id")): r.get("outcome")
            for r in recs
        }
        timeouts = [r for r in recs if r.get("outcome") == "timeout"]
        # Cases the harness held back because their routine on their communicator kept
        # hanging (skips).
        held[label] = {
            (r.get("variant"), r.get("ranks"), r.get("id"))
            for r in recs
            if r.get("outcome") == "skip"
            and (r.get("message") or "").startswith(HELD_BACK)
        }
        rules = {}
        for r in timeouts:
            rule = (r.get("case_limit") or {}).get("rule", "none")
            rules[rule] = rules.get(rule, 0) + 1
        row[label] = {
            "run": str(d),
            "env": (run.get("settings") or {}).get("env"),
            "ranks": run.get("ranks"),
            # the rank counts' wall time less their waits for the MPI lock (run.json
            # lock_wait_s)
            "seconds": round(
                sum(
                    x["seconds"] - (x.get("lock_wait_s") or 0)
                    for x in run.get("per_rank_count", [])
                ),
                1,
            ),
            "lock_wait_s": round(
                sum(x.get("lock_wait_s") or 0 for x in run.get("per_rank_count", [])), 1
            ),
            "records": len(recs),
            "timeouts": len(timeouts),
            "held_back": len(held[label]),
            "timeout_rules": rules,
            "timeout_seconds": round(
                sum((r.get("case_limit") or {}).get("seconds", 0) for r in timeouts), 1
            ),
        }
    a, b = outcomes["clean"], outcomes["hanging"]
    row["same_checks"] = set(a) == set(b)
    row["others_unchanged"] = all(
        a.get(k) == o
        for k, o in b.items()
        if o != "timeout" and k not in held["hanging"]
    )
    row["ratio"] = round(
        row["hanging"]["seconds"] / max(row["clean"]["seconds"], 1e-9), 2
    )
    return row


def sweep_rows(folders):
    """Per sweep folder: its launches and seconds, and where the seconds of its variant
    jobs went.

    A job's seconds (progress.jsonl, from its launch to its end, relaunches after a
    crash or a hang included) split into: the cases (each record's case_seconds: the
    whole case on rank 0, from its in-flight note to its record), of which the library's
    calls (duration_s: the call under test, up to its completion) and the rest (the
    reference's plan, buffers, checking, the verdict across ranks, the journal); and
    everything outside the cases ("launch and start-up": the launcher, MPI_Init and
    MPI_Finalize, the communicator zoo, a test's own set-up such as the crossing check's
    covering array, and the cases a variant does not select, which are only generated).
    The default variant's jobs are counted apart."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from reports.records import journal_file, read_journal

    rows = []
    for d in folders:
        d = pathlib.Path(d)
        run = read_json(d / "run.json", "a run file")
        if run is None:
            raise OrdoError(
                f"{d} holds no run.json: give output folders of `ordo run --variants"
                " ...` to --sweeps"
            )
        events = [
            json.loads(line)
            for line in (d / "progress.jsonl").read_text().splitlines()
            if line.strip()
        ]
        starts = {
            e["job"]: e.get("offset") for e in events if e.get("event") == "start"
        }
        # (survey/ and seen/ events say what a family has or ran: no launch of their
        # own)
        done = [
            e
            for e in events
            if e.get("event") == "done"
            and not e["job"].startswith(("survey/", "seen/"))
        ]
        surveys = sum(
            1
            for e in events
            if e.get("event") == "done" and e["job"].startswith("survey/")
        )
        records = read_journal(journal_file(d) or d / "journal.jsonl")
        by_variant = {}
        for r in records:
            v = by_variant.setdefault(r.get("variant") or "default", [0, 0.0, 0.0, 0])
            v[0] += 1
            # a record of an ordo from before the case limits has none
            if r.get("case_seconds") is not None:
                v[1] += float(r["case_seconds"])
                v[2] += float(r.get("duration_s") or 0)
                v[3] += 1
        sweep = [e for e in done if e.get("variant") != "default"]
        job_s = sum(e["seconds"] for e in sweep)
        cases = sum(v[1] for k, v in by_variant.items() if k != "default")
        calls = sum(v[2] for k, v in by_variant.items() if k != "default")
        checks = sum(v[0] for k, v in by_variant.items() if k != "default")
        timed = sum(v[3] for k, v in by_variant.items() if k != "default")
        # The split needs each case's wall time (case_seconds; the runner's own records
        # of a crashed or hung case have none): at least 99% of the records, and the
        # calls within their cases (an older ordo's records measured them otherwise).
        split = checks > 0 and timed >= 0.99 * checks and calls <= cases
        # An unfinished run (interrupted, resumed, or stopped before its report): its
        # jobs' figures, no wall time.
        start = datetime.datetime.fromisoformat(run["start"])
        end = datetime.datetime.fromisoformat(run["end"]) if run.get("end") else None
        rows.append(
            {
                "run": str(d),
                "library": run.get("vendor"),
                "ranks": run.get("ranks"),
                "variants": len([v for v in by_variant if v != "default"]),
                "launch_scheme": (
                    "one launch per variant and rank count (ordo_sweep_checks) + own"
                    " launches"
                )
                if any(e.get("executable") == "ordo_sweep_checks" for e in sweep)
                else "one launch per family",
                "finished": end is not None,
                "resumed": len(run.get("resumed") or []),
                "wall_seconds": round((end - start).total_seconds(), 1)
                if end
                else None,
                "default_seconds": round(
                    sum(e["seconds"] for e in done if e.get("variant") == "default"), 1
                ),
                "variant_jobs": len(sweep),
                "surveys": surveys,
                "launches_started": len(starts),
                "variant_seconds": round(job_s, 1),
                "checks": checks,
                "checks_with_case_seconds": timed,
                "cases_seconds": round(cases, 1) if split else None,
                "calls_seconds": round(calls, 1) if split else None,
                "reference_and_harness_seconds": round(cases - calls, 1)
                if split
                else None,
                "launch_and_startup_seconds": round(job_s - cases, 1)
                if split
                else None,
                "processes": process_split(sweep),
                "summary": run.get("summary"),
            }
        )
    return rows


def process_split(jobs):
    """Where the seconds of these jobs went, from each launch's own account
    (progress.jsonl's done events: launches, each with rank 0's "ordo
    phases" line, conformance/harness/check_main.h): the launcher's own time
    (a launch's seconds less its process's wall time), MPI_Init, ordo's
    start-up, the tests (split by the cases' phases: the library's calls,
    the reference, buffers, checking, the verdict across ranks, the journal,
    ...), MPI_Finalize, and the launches that died (a crash, a timeout: the
    whole launch); a standby launch's MPI_Init and start-up apart (hidden
    behind another launch). None when the run's jobs carry no launches (an older ordo).
    """
    launches = [launch for e in jobs for launch in e.get("launches") or []]
    if not launches:
        return None
    normal = [launch for launch in launches if isinstance(launch.get("phases"), dict)]
    died = [launch for launch in launches if not isinstance(launch.get("phases"), dict)]
    # A standby launch (runner/job.py) ran its launcher, MPI_Init and start-up
    # while another launch ran, and its seconds count from its go: those are
    # counted apart, as hidden, and its wall time from its go on.
    cold = [launch for launch in normal if not launch.get("standby")]
    ahead = [launch for launch in normal if launch.get("standby")]

    def total(key, of=normal):
        return sum(float(launch["phases"].get(key) or 0) for launch in of)

    before_go = sum(
        float(launch["phases"].get(k) or 0)
        for launch in ahead
        for k in ("mpi_init_s", "startup_s", "standby_s")
    )
    phases, outside = {}, {}
    for launch in normal:
        for k, v in (launch["phases"].get("cases") or {}).items():
            phases[k] = phases.get(k, 0.0) + float(v)
        for k, v in (launch["phases"].get("outside_cases_by_test") or {}).items():
            outside[k] = outside.get(k, 0.0) + float(v)
    tests = total("tests_s")
    # Rank 0's use of the expected-result cache (conformance/harness/expect_cache.h).
    cache = {
        k: sum(
            int((launch["phases"].get("expect_cache") or {}).get(k) or 0)
            for launch in normal
        )
        for k in ("hits", "mismatches", "kept")
    }
    return {
        "launches": len(launches),
        "launches_died": len(died),
        "expect_cache_rank0": cache,
        "seconds": round(sum(launch["seconds"] for launch in launches), 1),
        "died_seconds": round(sum(launch["seconds"] for launch in died), 1),
        "launcher_seconds": round(
            sum(launch["seconds"] for launch in normal) - total("wall_s") + before_go, 1
        ),
        "mpi_init_seconds": round(total("mpi_init_s", cold), 1),
        "startup_seconds": round(total("startup_s", cold), 1),
        "standby_launches": len(ahead),
        "standby_hidden_seconds": round(
            total("mpi_init_s", ahead) + total("startup_s", ahead), 1
        ),
        "tests_seconds": round(tests, 1),
        "finalize_seconds": round(total("finalize_s"), 1),
        "case_phases_seconds": {
            k: round(v, 1) for k, v in sorted(phases.items(), key=lambda kv: -kv[1])
        },
        "tests_outside_case_phases_seconds": round(tests - sum(phases.values()), 1),
        # each launch names its 8 tests with the most such seconds: the sum over
        # launches, the largest
        "outside_case_phases_by_test": {
            k: round(v, 1)
            for k, v in sorted(outside.items(), key=lambda kv: -kv[1])[:10]
        },
    }


def mutant_rows(folder):
    if folder is None:
        found = sorted(
            glob.glob(str(ROOT / "out" / "mutants-*" / "mutants.json")),
            key=os.path.getmtime,
        )
        if not found:
            return None, []
        path = pathlib.Path(found[-1])
    else:
        path = pathlib.Path(folder) / "mutants.json"
    doc = read_json(path, "the mutants report")
    if doc is None:
        raise OrdoError(f"{path} not found: give the output folder of `ordo mutants`")
    return str(path), [
        {
            "mutant": m["name"],
            "detected": m["detected"],
            "applicable": m.get("applicable", True),
            "seconds": m.get("seconds"),
            "by": (m.get("caught_by") or {}).get("check", "")[:80],
        }
        for m in doc.get("mutants", [])
    ]


def print_runs(rows):
    """The default runs' seconds per rank count, their total per library and system,
    and a root's against the host's for the same library (issue #36: at most 10%)."""
    print("default run, wall time per rank count")
    if not rows:
        print("  no runs given (--runs OUT ...)")
    for r in rows:
        print(
            f"  {r['library']:10} {r.get('system', 'host'):15} {r['ranks']:>2} ranks"
            f" {r['seconds']:8.1f} s  {r['checks']:6d} checks"
        )
    # the same library on the host and in a root are two rows, not one sum
    totals = {}
    for r in rows:
        key = (r["library"], r.get("system", "host"))
        totals[key] = totals.get(key, 0.0) + r["seconds"]
    for (lib, system), total in sorted(totals.items()):
        print(f"  {lib:10} {system:15} all      {total:8.1f} s")
    for lib in sorted({lib for lib, _ in totals}):
        host = totals.get((lib, "host"))
        for (other, system), total in sorted(totals.items()):
            if other == lib and system != "host" and host:
                print(
                    f"  {lib:10} {system:15} against the host: {total / host - 1:+.1%}"
                )


def run(args):
    table = {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "host": platform.node(),
        "cores": os.cpu_count(),
        "git": git_state(),
    }
    table["fold"] = fold_rows(args.vendor)
    table["plan"] = plan_rows(args.vendor)
    prop = read_json(
        ROOT / "bench" / "results" / "property_throughput.json",
        "the property benchmark",
    )
    table["properties"] = prop
    table["runs"] = run_rows(args.runs)
    table["mutants_source"], table["mutants"] = mutant_rows(args.mutants)
    table["reports"] = report_rows(args.reports)
    table["hangs"] = hang_row(args.hangs)
    table["sweeps"] = sweep_rows(args.sweeps)

    print("reference fold (element-combines per second, best of several)")
    for r in table["fold"]:
        print(
            f"  {r['op']:10} {r['datatype']:14} p={r['p']:<3} count={r['count']:<9}"
            f" {r['combines_per_s']:12.3e}"
        )
    print(
        "reference plan of one process per case (us, median; every process of a job"
        " makes its own)"
    )
    for r in table["plan"]:
        u = r["us_per_plan"]
        print(
            f"  {r['routine']:20} {r['op']:16} {r['datatype']:26} {r['count']:>6}  p=2"
            f" {u['2']:9.1f}  p=4 {u['4']:9.1f}  p=8 {u['8']:9.1f}"
        )
    print("property cases per second against the bare collectives")
    if prop is None:
        print(
            "  not measured here: /usr/bin/python3 bench/property_throughput/run.py"
            " writes bench/results/property_throughput.json"
        )
    else:
        print(
            f"  {'library':9} {'ranks':>5} {'cases':>6} {'cases/s':>9}"
            f" {'bare us/case':>13} {'harness us/case':>16} {'ratio':>7}"
        )
        for r in prop.get("rows", prop.get("table", [])):
            print(
                f"  {r.get('library', '?'):9} {r.get('ranks', 0):>5}"
                f" {r.get('cases', 0):>6} {r.get('cases_per_s', 0):>9.1f}"
                f" {r.get('bare_us_per_case', 0):>13.1f}"
                f" {r.get('harness_us_per_case', 0):>16.1f}"
                f" {r.get('overhead_ratio') or 0:>7.2f}"
            )
    print_runs(table["runs"])
    print(
        "mutant vendor, time to detection"
        + (f" ({table['mutants_source']})" if table["mutants_source"] else "")
    )
    if not table["mutants"]:
        print("  no `ordo mutants` output found")
    for r in table["mutants"]:
        mark = "detected" if r["detected"] else "MISSED"
        if not r.get("applicable", True):
            mark = "n/a"
        print(f"  {r['mutant']:32} {mark:9}" f" {r['seconds'] or 0:7.2f} s  {r['by']}")
    print(
        "report and package sizes (MB), held in the folder -> written by this ordo, and"
        " seconds"
    )
    if not table["reports"]:
        print("  no runs given (--reports OUT ...)")
    mb = lambda n: "-" if n is None else f"{n / 1e6:.1f}"  # noqa: E731
    for r in table["reports"]:
        h, w = r["held"], r["written"]
        print(
            f"  {r['library']:8} {r['records']:6d} records "
            f" {h['results'] or '-'} {mb(h['results_bytes'])} ->"
            f" {w['results']} {mb(w['results_bytes'])};  junit.xml"
            f" {mb(h['junit_bytes'])} -> {mb(w['junit_bytes'])};  report.html"
            f" {mb(w['html_bytes'])};  package {mb(w['package_bytes'])};  report"
            f" {r['report_seconds']} s ({r['report_cpu_seconds']} s CPU), package"
            f" {r['package_seconds']} s ({r['package_cpu_seconds']} s CPU)"
        )
    print(
        "a library that hangs in a family of cases against a clean run of the same"
        " checks"
    )
    h = table["hangs"]
    if not h:
        print("  no runs given (--hangs CLEAN HANGING)")
    else:
        for label in ("clean", "hanging"):
            r = h[label]
            print(
                f"  {label:8} {r['seconds']:8.1f} s  {r['records']:6d} checks "
                f" {r['timeouts']:4d} timeouts (limits {r['timeout_seconds']} s in all;"
                f" rules {r['timeout_rules']}), {r.get('held_back', 0)} held back "
                f" {r['env']}"
            )
        print(
            f"  hanging / clean = {h['ratio']}; same checks: {h['same_checks']}; every"
            f" other check's outcome unchanged: {h['others_unchanged']}"
        )
    print("algorithm sweeps: launches, and where the variant jobs' seconds went")
    if not table["sweeps"]:
        print("  no sweeps given (--sweeps OUT ...)")
    for r in table["sweeps"]:
        print(
            f"  {r['library']:8} {r['variants']:3d} variants, ranks"
            f" {','.join(map(str, r['ranks']))}: {r['launch_scheme']}"
        )
        wall = (
            f"{r['wall_seconds']:8.1f} s"
            if r["finished"]
            else "(unfinished run: no wall time)"
        )
        print(
            f"           wall {wall} (default variant {r['default_seconds']} s);"
            f" variant jobs {r['variant_jobs']} ({r['surveys']} surveys),"
            f" {r['variant_seconds']} s, {r['checks']} checks"
        )
        if r["cases_seconds"] is None:
            print(
                f"           no split: {r['checks_with_case_seconds']} of"
                f" {r['checks']} records carry case_seconds, or their timings are an"
                " older ordo's"
            )
        else:
            print(
                f"           launch and start-up {r['launch_and_startup_seconds']} s;"
                f" cases {r['cases_seconds']} s: library calls {r['calls_seconds']} s,"
                f" reference and harness {r['reference_and_harness_seconds']} s"
            )
        p = r.get("processes")
        if p:
            print(
                f"           by the processes' own account: {p['launches']} launches,"
                f" {p['seconds']} s = launcher {p['launcher_seconds']} + MPI_Init"
                f" {p['mpi_init_seconds']} + ordo start-up {p['startup_seconds']} +"
                f" tests {p['tests_seconds']} + MPI_Finalize {p['finalize_seconds']} +"
                f" {p['launches_died']} launches that died {p['died_seconds']}"
            )
            if p.get("standby_launches"):
                print(
                    f"           {p['standby_launches']} of the launches were standby"
                    " launches (made ready beside another after a death): their"
                    f" MPI_Init and start-up, {p['standby_hidden_seconds']} s, hidden"
                )
            ec = p.get("expect_cache_rank0") or {}
            if any(ec.values()):
                print(
                    f"           expected-result cache (rank 0): {ec['hits']} results"
                    f" matched a kept digest, {ec['mismatches']} judged against the"
                    f" full plan, {ec['kept']} digests kept"
                )
            print(
                "           the tests: "
                + ", ".join(f"{k} {v}" for k, v in p["case_phases_seconds"].items())
                + ", outside the cases' phases"
                f" {p['tests_outside_case_phases_seconds']}"
            )
            if p.get("outside_case_phases_by_test"):
                print(
                    "           outside the cases' phases, by test: "
                    + ", ".join(
                        f"{k} {v}" for k, v in p["outside_case_phases_by_test"].items()
                    )
                )
    dest = (
        pathlib.Path(args.json)
        if args.json
        else ROOT / "bench" / "results" / "suite.json"
    )
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, dest)
    except OSError as e:
        raise OrdoError(f"cannot write {dest}: {e.strerror}")
    print(f"table: {dest}")
    return EXIT_OK

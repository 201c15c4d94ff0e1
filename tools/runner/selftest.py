"""`ordo test`: the project's own tests, as CI runs them: the lint steps (black,
flake8, mypy, shellcheck: runner/lint.py), ctest against each library (with
lint.clang_format), the sanitizer run, the mutant vendor and the Python tests,
one line each in the table at the end."""
import re
import shutil
import subprocess
import sys
import time

from . import ROOT, lint, systems
from .adapters import load_adapter, require_tools
from .build import build
from .errors import EXIT_FAIL, EXIT_OK, OrdoError
from reports.records import BAD, journal_file, read_journal


# The sanitizer step: ordo's own code (reference, harness, checks, property
# executable, the reference MPI) built with ASan and UBSan
# (build/reference-mpich-sanitize/) and run through the normal runner on a
# short run, so that a memory error of ordo's is caught here and never
# charged to a library. Every check family at 2 ranks: the buffer,
# datatype and executor code of the harness (values, buffers,
# noncommutative, intercomm, in_place, detect among them) and a few
# property cases.
SANITIZE_VENDOR = "reference-mpich"
SANITIZE_RANKS = "2"
SANITIZE_PROPERTY_BUDGET = "3"
SANITIZER_REPORTS = re.compile(
    r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer"
)


def sanitizer_reports(out):
    """(log, line) of every sanitizer report in the job logs of a run."""
    hits = []
    for log in sorted((out / "logs").rglob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if SANITIZER_REPORTS.search(line):
                hits.append((log, line.strip()))
    return hits


def sanitize_step():
    """Builds the sanitizer build and runs the short run; 0 when the run is
    clean (exit 0) and no log holds a sanitizer report."""
    adapter = load_adapter(SANITIZE_VENDOR)
    require_tools(adapter)
    # checks only
    bdir, _ = build(adapter, reference_tests=False, sanitize=True, extras=False)
    out = bdir / "selftest-run"
    shutil.rmtree(out, ignore_errors=True)
    log = bdir / "ordo-selftest-run.log"
    cmd = [
        sys.executable,
        str(ROOT / "tools" / "ordo_cli.py"),
        "run",
        "--vendor",
        SANITIZE_VENDOR,
        "--sanitize",
        "--ranks",
        SANITIZE_RANKS,
        "--property-budget",
        SANITIZE_PROPERTY_BUDGET,
        "--out",
        str(out),
    ]
    print(
        (
            f"ordo: sanitizer run against {SANITIZE_VENDOR} at ranks"
            f" {SANITIZE_RANKS} (log: {log})"
        ),
        flush=True,
    )
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    hits = sanitizer_reports(out)
    for path, line in hits[:20]:
        print(f"  {path.relative_to(out)}: {line[:200]}", flush=True)
    if hits:
        print(f"  {len(hits)} sanitizer report lines in {out / 'logs'}", flush=True)
        return 1
    # The run is judged by its records: a check that is not DETECT and went
    # wrong is ordo's (the reference MPI is ordo's own code). A crash or a
    # hang on an erroneous call (DETECT) happens inside the MPI library the
    # reference MPI sits on, and is that library's finding, reported by its
    # own conformance runs; it is listed here, not charged.
    journal = journal_file(out)  # journal.jsonl.gz once the run has ended
    recs = read_journal(journal) if journal else []
    bad = [r for r in recs if r.get("outcome") in BAD and r.get("level") != "DETECT"]
    detect = [r for r in recs if r.get("outcome") in BAD and r.get("level") == "DETECT"]
    if not recs or bad:
        for r in bad[:10]:
            print(
                (
                    f"  {r.get('outcome')}: {r.get('id')} at {r.get('ranks')} ranks:"
                    f" {(r.get('message') or '')[:200]}"
                ),
                flush=True,
            )
        print(
            (
                f"  the run was not clean (exit {rc}): {len(bad)} checks went wrong"
                f" outside DETECT (see {log})"
            ),
            flush=True,
        )
        return 1
    if detect:
        print(
            (
                f"  {len(detect)} DETECT cases crashed or hung in the underlying MPI"
                " library (its findings, not ordo's):"
                f" {', '.join(sorted({r.get('test', '?') for r in detect}))[:300]}"
            ),
            flush=True,
        )
    total = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if line.startswith("total:")
    ]
    print("  clean: " + (total[-1] if total else "no sanitizer report"), flush=True)
    return 0


# The system test (tools/tests/test_systems.py) builds and runs one family inside
# this release's root. On a machine without the root, `ordo test` makes it first
# (38 s on the development machine), so that a fresh machine runs the system path
# for real rather than skipping it.
SYSTEM_TEST_ROOT = "debian-13"


def system_root_step():
    """Makes the system test's root when it is missing: None when it was there,
    else 0 when made, 1 (with the reason on one line) when it could not be."""
    root = systems.root_of(SYSTEM_TEST_ROOT)
    if systems.read_record(root) is not None:
        return None
    print(
        f"ordo: no root of {SYSTEM_TEST_ROOT} for the system test: making it",
        flush=True,
    )
    try:
        systems.make(SYSTEM_TEST_ROOT, root)
    except OrdoError as e:
        print(f"ordo: {e}", flush=True)
        return 1
    return 0


def table(results, t_all):
    print(f"\n{'suite':24} {'result':8} {'seconds':>8}")
    for name, rc, dt in results:
        print(f"{name:24} {'pass' if rc == 0 else 'FAIL':8} {dt:8.1f}")
    print(f"total {time.time() - t_all:.0f} s")
    return EXIT_OK if all(rc == 0 for _, rc, _ in results) else EXIT_FAIL


def cmd_test(args):
    t_all = time.time()
    results = []
    if getattr(args, "sanitize_only", False):
        t0 = time.time()
        rc = sanitize_step()
        print(
            f"\n{'suite':24} {'result':8} {'seconds':>8}\n"
            f"{'sanitize ' + SANITIZE_VENDOR:24} "
            f"{'pass' if rc == 0 else 'FAIL':8} {time.time() - t0:8.1f}"
        )
        return EXIT_OK if rc == 0 else EXIT_FAIL
    # The lint steps first: a few seconds, and every tool checked before the builds.
    lint.require_tools()
    results += lint.run_steps()
    if getattr(args, "lint_only", False):
        return table(results, t_all)
    t0 = time.time()
    rc = system_root_step()
    if rc is not None:
        results.append((f"systems make {SYSTEM_TEST_ROOT}", rc, time.time() - t0))
    vendors = args.vendors.split(",") if args.vendors else ["mpich", "openmpi"]
    adapters = [load_adapter(v) for v in vendors]
    for a in adapters:
        require_tools(a)
    for i, a in enumerate(adapters):
        bdir, _ = build(a, reference_tests=(i == 0), extras=True)
        t0 = time.time()
        log = bdir / "ordo-ctest.log"
        cmd = [
            "ctest",
            "--test-dir",
            str(bdir),
            "--output-on-failure",
            "-j",
            "2",
            "--timeout",
            "600",
        ]
        print(f"ordo: ctest against {a['name']} (log: {log})", flush=True)
        with open(log, "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
        text = log.read_text(errors="replace")
        summary = [
            line
            for line in text.splitlines()
            if "tests passed" in line or "tests failed" in line
        ]
        print(
            "  " + (summary[-1] if summary else f"ctest exited with {rc}"), flush=True
        )
        if rc != 0:
            failed = [
                line
                for line in text.splitlines()
                if "***Failed" in line or "***Timeout" in line or "(Failed)" in line
            ]
            print("\n".join("  " + line for line in failed[:40]), flush=True)
        results.append((f"ctest {a['name']}", rc, time.time() - t0))
    t0 = time.time()  # ordo's own code under ASan and UBSan (sanitize_step)
    rc = sanitize_step()
    results.append((f"sanitize {SANITIZE_VENDOR}", rc, time.time() - t0))
    # The mutant vendor: every injected fault must be caught (tools/mutants.py).
    t0 = time.time()
    print("ordo: mutants", flush=True)
    rc = subprocess.call([sys.executable, str(ROOT / "tools" / "mutants.py")])
    results.append(("mutants", rc, time.time() - t0))
    t0 = time.time()  # after the builds: the reliability tests run real jobs in them
    py = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rs",
        "--durations=15",
        str(ROOT / "tools" / "tests"),
    ]
    print("ordo: python tests", flush=True)
    rc = subprocess.call(py, cwd=str(ROOT))
    results.append(("pytest tools/tests", rc, time.time() - t0))
    return table(results, t_all)

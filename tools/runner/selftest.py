"""`ordo test`: the project's own tests, as CI runs them: ctest against each
library, the mutant vendor, Python lint and the Python tests, one line each
in the table at the end."""
import subprocess
import sys
import time

from . import ROOT
from .adapters import load_adapter, require_tools
from .build import build
from .errors import EXIT_FAIL, EXIT_OK


LINTED = ("tools", "reports", "bench")


def python_files():
    """Every Python file git tracks under tools/, reports/ and bench/ (every
    one there, outside a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--"] + [f"{d}/*.py" for d in LINTED],
                             capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            return [ROOT / line for line in out.stdout.splitlines()]
    except (OSError, subprocess.TimeoutExpired):
        pass
    return sorted(p for d in LINTED for p in (ROOT / d).rglob("*.py"))


def cmd_test(args):
    t_all = time.time()
    results = []
    vendors = args.vendors.split(",") if args.vendors else ["mpich", "openmpi"]
    adapters = [load_adapter(v) for v in vendors]
    for a in adapters:
        require_tools(a)
    for i, a in enumerate(adapters):
        bdir, _ = build(a, reference_tests=(i == 0))
        t0 = time.time()
        log = bdir / "ordo-ctest.log"
        cmd = ["ctest", "--test-dir", str(bdir), "--output-on-failure", "-j", "2", "--timeout", "600"]
        print(f"ordo: ctest against {a['name']} (log: {log})", flush=True)
        with open(log, "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
        text = log.read_text(errors="replace")
        summary = [l for l in text.splitlines() if "tests passed" in l or "tests failed" in l]
        print("  " + (summary[-1] if summary else f"ctest exited with {rc}"), flush=True)
        if rc != 0:
            failed = [l for l in text.splitlines() if "***Failed" in l or "***Timeout" in l or "(Failed)" in l]
            print("\n".join("  " + l for l in failed[:40]), flush=True)
        results.append((f"ctest {a['name']}", rc, time.time() - t0))
    t0 = time.time()  # the mutant vendor: every injected fault must be caught (tools/mutants.py)
    print("ordo: mutants", flush=True)
    rc = subprocess.call([sys.executable, str(ROOT / "tools" / "mutants.py")])
    results.append(("mutants", rc, time.time() - t0))
    t0 = time.time()  # Python lint: Debian's pyflakes3 (installed by install-deps.sh --with-test-tools)
    print("ordo: python lint (pyflakes3)", flush=True)
    rc = subprocess.call(["pyflakes3"] + [str(p) for p in python_files()], cwd=str(ROOT))
    results.append(("pyflakes3", rc, time.time() - t0))
    t0 = time.time()  # after the builds: the reliability tests run real jobs in them
    py = [sys.executable, "-m", "pytest", "-q", "-rs", str(ROOT / "tools" / "tests")]
    print("ordo: python tests", flush=True)
    rc = subprocess.call(py, cwd=str(ROOT))
    results.append(("pytest tools/tests", rc, time.time() - t0))
    print(f"\n{'suite':24} {'result':8} {'seconds':>8}")
    for name, rc, dt in results:
        print(f"{name:24} {'pass' if rc == 0 else 'FAIL':8} {dt:8.1f}")
    print(f"total {time.time() - t_all:.0f} s")
    return EXIT_OK if all(rc == 0 for _, rc, _ in results) else EXIT_FAIL

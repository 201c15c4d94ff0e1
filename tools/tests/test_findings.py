"""`ordo findings`: the findings of vendors/*/findings/ with their waivers,
and the bug report of one (runner/findings.py). The --run test builds and
runs an MPICH reproducer (the MPI lock taken through ORDO_MPI_LOCK, the run
bounded by --timeout)."""
import json
import re
import shutil

import pytest

from conftest import ROOT, run_ordo
from runner import findings


def listing():
    p = run_ordo("findings", timeout=120)
    assert p.returncode == 0, p.stderr
    rows = {}
    for line in p.stdout.splitlines()[1:-1]:
        words = line.split()
        rows[words[0]] = line
    return p.stdout, rows


def waivers_of(vendor):
    doc = json.loads((ROOT / "vendors" / vendor / "waivers.json").read_text())
    return doc["waivers"] if isinstance(doc, dict) else doc


def test_the_list_has_every_reproducer_with_its_library_waivers_and_upstream_state():
    out, rows = listing()
    sources = sorted(
        p for p in ROOT.glob("vendors/*/findings/*") if p.suffix in (".c", ".f90")
    )
    assert sorted(rows) == sorted(p.stem for p in sources)
    for src in sources:
        rel = src.relative_to(ROOT).as_posix()
        mine = [
            w for w in waivers_of(src.parent.parent.name) if w.get("reproducer") == rel
        ]
        line = rows[src.stem]
        assert line.split()[1] == src.parent.parent.name
        for w in mine:
            assert w["id"] in line, (src.stem, w["id"])
        if not mine:
            assert "no waiver" in line
        elif all(
            re.match(r"\s*(not|no|none)\b", w.get("upstream", ""), re.I) for w in mine
        ):
            assert " not reported " in line, line
    # one the list must call reported, one it must not (their waivers' upstream texts
    # say so)
    assert (
        re.search(r"\sreported\s", rows["unsigned_long_max_min"])
        and "not reported" not in rows["unsigned_long_max_min"]
    )
    assert "not reported" in rows["basic_exscan_one_process_crash"]
    assert out.splitlines()[-1].startswith(f"{len(rows)} findings")


def test_reported_is_read_from_the_upstream_text():
    assert findings.is_reported(
        "https://github.com/pmodels/mpich/issues/6351 (fixed by pmodels/mpich#6354)"
    )
    assert findings.is_reported("open-mpi/ompi#7765 (open)")
    for text in (
        "none found",
        "not reported upstream yet",
        "no upstream issue found; cause in pmodels/mpich#6538",
        "None found (searched)",
        "",
        None,
    ):
        assert not findings.is_reported(text), text
    f = {"waivers": [{"upstream": "open-mpi/ompi#1"}, {"upstream": "none found"}]}
    assert findings.status(f) == "partly reported"
    assert findings.status({"waivers": []}) == "no waiver"


def test_the_launch_comes_from_the_reproducers_own_lines(tmp_path):
    src = tmp_path / "x.c"
    src.write_text(
        "/* Finding: MPI_Foo gives 3 (MPI-4.1 Section 6.9.1), expected 4.\n *\n *  "
        " mpicc.mpich x.c -o repro -lm\n *   mpiexec.mpich -genv A 1 \\\n *     -n 5"
        " ./repro 7 i      # the nonblocking form\n *   mpiexec.mpich -n 2 ./repro"
        " [count]\n */\nint main(void) { return 0; }\n"
    )
    head = findings.header(src)
    assert head.startswith("Finding: MPI_Foo gives 3") and "*/" not in head
    assert findings.launch_plan(head) == (5, ["7", "i"], ["-lm"])
    assert findings.launch_plan("mpicc.openmpi y.c -o repro && ./repro") == (1, [], [])
    f90 = tmp_path / "y.f90"
    f90.write_text(
        "! MPICH 4.0.2: a call fails.\n!\n!   mpifort.mpich y.f90 -o repro\n!  "
        " mpiexec.mpich -n 2 ./repro      (exit 1 with the fault)\nprogram y\nend"
        " program\n"
    )
    assert findings.launch_plan(findings.header(f90)) == (2, [], [])


def clause_in_source(test):
    """The ORDO_CLAUSE of a check, read from its source."""
    suite, name = test.split(".")
    for path in (ROOT / "conformance").rglob("*.cpp"):
        text = path.read_text(errors="replace")
        m = re.search(
            r"TEST\(\s*%s\s*,\s*%s\s*\)(.*?)ORDO_CLAUSE\(\s*\"([^\"]+)\""
            % (suite, name),
            text,
            re.S,
        )
        if m:
            return m.group(2)
    return None


def test_the_report_of_a_finding_has_what_a_bug_report_needs(tmp_path):
    fid = "detect_freed_datatype_aborts"
    p = run_ordo("findings", "--report", fid, timeout=120)
    assert p.returncode == 0, p.stderr
    text = p.stdout
    src = ROOT / "vendors" / "mpich" / "findings" / f"{fid}.c"
    waiver = next(
        w
        for w in waivers_of("mpich")
        if w.get("reproducer") == src.relative_to(ROOT).as_posix()
    )
    title = text.splitlines()[0]
    assert title.startswith("# MPICH ") and "MPI_Type_free" in title
    for section in (
        "## Reproducer",
        "### Build and launch",
        "## Expected against observed",
        "## The clause of the standard",
        "## What triggers it",
        "## ordo's waivers of it",
    ):
        assert section in text, section
    # The releases its waivers name (one, or several once --recheck --apply extended
    # them), each on the library's line.
    library = next(x for x in text.splitlines() if x.startswith("- **Library**: "))
    assert " with the fault: " in library, library
    assert all(r in library for r in findings.releases(waiver)), library
    assert "- **Platform**: " in text and "Linux " in text and "mpicc.mpich" in text
    assert "- **Upstream**: not reported" in text
    assert src.read_text().strip() in text  # the whole reproducer
    assert (
        "mpicc.mpich detect_freed_datatype_aborts.c -o repro\nmpiexec.mpich -n 2"
        " ./repro" in text
    )
    assert waiver["reason"] in text and waiver["id"] in text
    clause = clause_in_source(waiver["test"])
    spec = json.loads((ROOT / "spec" / "clauses.json").read_text())["clauses"][clause]
    assert (
        f"MPI-4.1 §{spec['section']} {spec['title']} (ordo clause `{clause}`)" in text
    )
    assert "the library's own choice of algorithm" in text
    assert "### Observed here" not in text  # only with --run
    # --out writes the same text
    out = tmp_path / "report.md"
    q = run_ordo("findings", "--report", fid, "--out", str(out), timeout=120)
    assert q.returncode == 0 and q.stdout == "" and out.read_text() == text


def test_the_report_names_the_variant_that_triggers_it():
    p = run_ordo("findings", "--report", "basic_exscan_one_process_crash", timeout=120)
    assert p.returncode == 0, p.stderr
    assert "the algorithm variant `openmpi.coll.basic`" in p.stdout
    # the adapter's definition of the variant
    assert "OMPI_MCA_coll=basic,libnbc" in p.stdout
    # in the launch line
    assert "-x OMPI_MCA_coll=basic,libnbc" in p.stdout and "-n 1 ./repro" in p.stdout
    assert "MPI-4.1 §6.11.2 Exclusive Scan" in p.stdout  # the section its header cites


def test_an_unknown_finding_is_one_line_and_exit_2():
    p = run_ordo("findings", "--report", "no_such_finding", timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [
        "ordo: unknown finding 'no_such_finding': `./ordo findings` lists them"
    ]
    q = run_ordo("findings", "--run", timeout=60)
    assert q.returncode == 2 and len(q.stderr.strip().splitlines()) == 1


def test_run_builds_and_runs_an_mpich_reproducer():
    """unsigned_max_min_compare_as_signed.c at MPICH 4.0.2 (the release its
    waiver names: the fault is there) exits 1 and prints each wrong result."""
    if not shutil.which("mpicc.mpich") or not shutil.which("mpiexec.mpich"):
        pytest.skip(
            "MPICH is not installed (sudo apt-get install -y mpich libmpich-dev)"
        )
    p = run_ordo(
        "findings",
        "--report",
        "unsigned_max_min_compare_as_signed",
        "--run",
        "--timeout",
        "60",
        env={"ORDO_MPI_LOCK": "/tmp/ordo-mpi.lock"},
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    observed = p.stdout.split("### Observed here", 1)[1].split("## The clause", 1)[0]
    assert (
        "Built with `mpicc.mpich unsigned_max_min_compare_as_signed.c -o repro`: ok"
        in observed
    )
    assert "Ran `mpiexec.mpich -n 1 ./repro`: **exit status 1**" in observed
    # its output: one line per wrong result, MPI_MAX of two unsigned values compared as
    # signed among them
    wrong = re.findall(
        r"^MPI_(MAX|MIN)\((MPI_\w+)\): (\d+) and (\d+) gave (\d+), expected (\d+)$",
        observed,
        re.M,
    )
    assert any(
        op == "MAX"
        and t == "MPI_UNSIGNED"
        and int(got) == min(int(a), int(b))
        and int(exp) == max(int(a), int(b))
        for op, t, a, b, got, exp in wrong
    ), observed

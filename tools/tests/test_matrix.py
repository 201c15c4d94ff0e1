"""The release matrix of `ordo compare` (#36): synthetic runs of two libraries x two
releases and a synthetic `ordo findings --recheck` file (no MPI)."""
import json
import pathlib
import subprocess
from html.parser import HTMLParser

import pytest

from conftest import ROOT, record, run_json, write_run
from reports import html, matrix, results

ORDO = str(ROOT / "ordo")
HOSTILE = "<script>alert('x')</script>"
DEBIAN_12 = "Debian GNU/Linux 12 (bookworm)"
DEBIAN_13 = "Debian GNU/Linux 13 (trixie)"
NONCOMM = "Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root"
SUM = "Allreduce.sum_of_int_is_exact_and_identical_on_every_rank"


def ordo(*args):
    return subprocess.run(
        [ORDO, *map(str, args)], capture_output=True, text=True, timeout=300
    )


def finding_of(vendor, waiver_id):
    """The finding a waiver of the checkout names (its reproducer's file name)."""
    doc = json.loads((ROOT / "vendors" / vendor / "waivers.json").read_text())
    (w,) = [w for w in doc["waivers"] if w["id"] == waiver_id]
    return pathlib.Path(w["reproducer"]).stem


# Waivers of the checkout whose findings the runs show.
M_RECHECKED = "mpich-6083-unsigned-max-min"  # rechecked: present, then fixed
M_RUN_ONLY = "mpich-6351-intercomm-reduce-null-sendbuf"  # only a run shows it
M_KNOWN_FATAL = "mpich-6540-reduce-in-place-nonzero-root"  # held back in a run
O_CONFLICT = "ompi-10525-unsigned-long-max-min"  # recheck: fixed; a run: waived


def library_version(vendor, version):
    if vendor == "mpich":
        return f"MPICH Version:\t{version}\nMPICH Release date:\tsome day"
    return f"Open MPI v{version}, package: Debian"


def release_run(folder, vendor, version, system, pretty, records):
    run = run_json(
        vendor=vendor,
        library_version=library_version(vendor, version),
        system={"name": system, "os_release": {"PRETTY_NAME": pretty}},
    )
    return write_run(folder, records, run=run)


def passes(vendor, n=3, start=0):
    return [record(index=start + i, vendor=vendor) for i in range(n)]


@pytest.fixture
def four_runs(tmp_path):
    """MPICH 4.0.2 and 4.2.1, Open MPI 4.1.4 and 5.0.7, in a scrambled order."""
    m402 = release_run(
        tmp_path / "m402",
        "mpich",
        "4.0.2",
        "host",
        DEBIAN_12,
        passes("mpich")
        + [
            record(
                test=SUM,
                clause="allreduce.values",
                index=0,
                vendor="mpich",
                outcome="waived",
                message="max of unsigned | waived until 2027-06-30: known",
                waiver=M_RECHECKED,
            ),
            record(
                test=SUM,
                clause="allreduce.values",
                index=1,
                vendor="mpich",
                outcome="skip",
                message="not run (--ordo-avoid-known-fatal): the waiver"
                f" {M_KNOWN_FATAL} names this case (a crash)",
            ),
        ],
    )
    m421 = release_run(
        tmp_path / "m421",
        "mpich",
        "4.2.1",
        "debian-13",
        DEBIAN_13,
        passes("mpich", 2)
        + [
            record(index=2, vendor="mpich", outcome="fail", message="wrong order"),
            record(
                test=SUM,
                clause="reduce.intercomm-root",
                index=0,
                vendor="mpich",
                outcome="waived",
                message="Null buffer pointer | waived until 2027-06-30: known",
                waiver=M_RUN_ONLY,
            ),
        ],
    )
    o414 = release_run(
        tmp_path / "o414",
        "openmpi",
        "4.1.4",
        "host",
        DEBIAN_12,
        passes("openmpi")
        + [
            record(
                test=SUM,
                clause="allreduce.values",
                index=0,
                vendor="openmpi",
                outcome="waived",
                message="max of unsigned long | waived until 2027-06-30: known",
                waiver=O_CONFLICT,
            )
        ],
    )
    o507 = release_run(
        tmp_path / "o507",
        "openmpi",
        "5.0.7",
        "debian-13",
        DEBIAN_13,
        passes("openmpi")
        + [
            record(
                test=SUM,
                clause="allreduce.values",
                index=0,
                vendor="openmpi",
                outcome="waived",
                message="max of unsigned long | waived until 2027-06-30: known",
                waiver=O_CONFLICT,
            ),
            record(
                test=SUM,
                clause="allreduce.values",
                index=1,
                vendor="openmpi",
                outcome="crash",
                message="signal 11",
            ),
            record(
                test=SUM,
                clause="allreduce.values",
                index=2,
                vendor="openmpi",
                outcome="crash",
                message="signal 11",
            ),
        ],
    )
    return [o507, m421, o414, m402]


def recheck_row(vendor, finding, system, release, status, variant="default"):
    return {
        "finding": finding,
        "vendor": vendor,
        "system": system,
        "release": release,
        "variant": variant,
        "status": status,
        "outcome": (
            "passes"
            if status in ("fixed", "not reproduced")
            else "varies"
            if status == "intermittent"
            else "fails"
        ),
        "reason": None,
        "evidence": {"how": "exit status 1"} if status == "present" else {},
    }


def recheck_doc():
    vendors_12 = {
        "mpich": {"release": "4.0.2", "os": DEBIAN_12},
        "openmpi": {"release": "4.1.4", "os": DEBIAN_12},
    }
    vendors_13 = {
        "mpich": {"release": "4.2.1", "os": DEBIAN_13},
        "openmpi": {"release": "5.0.7", "os": DEBIAN_13},
    }
    a = finding_of("mpich", M_RECHECKED)
    d = finding_of("openmpi", O_CONFLICT)
    rows = [
        recheck_row("mpich", a, "host", "4.0.2", "present"),
        recheck_row("mpich", a, "debian-13", "4.2.1", "fixed"),
        recheck_row("mpich", "ch4_x", "host", "4.0.2", "present", "mpich.v1"),
        recheck_row(
            "mpich", "ch4_x", "debian-13", "4.2.1", "not applicable", "mpich.v1"
        ),
        recheck_row("openmpi", "adapt_x", "host", "4.1.4", "not reproduced", "o.adapt"),
        recheck_row("openmpi", "adapt_x", "debian-13", "5.0.7", "present", "o.adapt"),
        recheck_row("openmpi", d, "host", "4.1.4", "present"),
        recheck_row("openmpi", d, "debian-13", "5.0.7", "fixed"),
        # --repeat: failed some of its runs on 4.2.1
        recheck_row("mpich", "k3_x", "host", "4.0.2", "present", "mpich.v2"),
        recheck_row("mpich", "k3_x", "debian-13", "4.2.1", "intermittent", "mpich.v2"),
    ]
    return {
        "schema": "ordo.findings-recheck/1",
        "command": "./ordo findings --recheck --system debian-13",
        "date": "2026-11-27T00:00:00+00:00",
        "systems": [
            {"system": "host", "vendors": vendors_12},
            {"system": "debian-13", "vendors": vendors_13},
        ],
        "rows": rows,
    }


@pytest.fixture
def findings_file(tmp_path):
    p = tmp_path / "findings_recheck.json"
    p.write_text(json.dumps(recheck_doc()))
    return p


def md_tables(text):
    """The Markdown's tables: {heading: [[cells], ...]} (the header row first)."""
    tables: dict = {}
    heading = None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("| ") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            tables.setdefault(heading, []).append(cells)
    return tables


def build(runs, findings=None):
    loaded = [results.obtain(r) for r in runs]
    return matrix.build(loaded, [str(r) for r in runs], findings)


# ---- the model and the Markdown --------------------------------------------------


def test_columns_are_releases_by_library_then_version(four_runs, findings_file):
    m = build(four_runs, matrix.load_findings(findings_file))
    assert [(c["label"], c["system"]) for c in m["columns"]] == [
        ("MPICH 4.0.2", "Debian 12"),
        ("MPICH 4.2.1", "Debian 13"),
        ("Open MPI 4.1.4", "Debian 12"),
        ("Open MPI 5.0.7", "Debian 13"),
    ]
    assert [c["runs"] for c in m["columns"]] == [
        [str(four_runs[3])],
        [str(four_runs[1])],
        [str(four_runs[2])],
        [str(four_runs[0])],
    ]


def test_versions_order_by_number_and_a_pre_release_before_its_release():
    got = sorted(
        ["6.0.0", "4.10.0", "6.0.0rc2", "4.2.1", "5.0.7"], key=matrix.version_key
    )
    assert got == ["4.2.1", "4.10.0", "5.0.7", "6.0.0rc2", "6.0.0"]


def test_the_markdown_gives_every_finding_state(four_runs, findings_file):
    m = build(four_runs, matrix.load_findings(findings_file))
    tables = md_tables(matrix.markdown(m))
    a, d = finding_of("mpich", M_RECHECKED), finding_of("openmpi", O_CONFLICT)
    run_only = finding_of("mpich", M_RUN_ONLY)
    held = finding_of("mpich", M_KNOWN_FATAL)
    assert tables["MPICH"] == [
        ["finding", "variant", "MPICH 4.0.2 (Debian 12)", "MPICH 4.2.1 (Debian 13)"],
        *sorted(
            [
                [f"`{a}`", "default", "present", "fixed"],
                ["`ch4_x`", "mpich.v1", "present", "not applicable"],
                ["`k3_x`", "mpich.v2", "present", "intermittent"],
                [f"`{held}`", "default", "not tested", "not tested"],
                [f"`{run_only}`", "default", "not tested", "present"],
            ]
        ),
    ]
    assert tables["Open MPI"] == [
        [
            "finding",
            "variant",
            "Open MPI 4.1.4 (Debian 12)",
            "Open MPI 5.0.7 (Debian 13)",
        ],
        ["`adapt_x`", "o.adapt", "not reproduced", "present"],
        # the recheck says fixed, the run's waived records say present: present
        [f"`{d}`", "default", "present", "present"],
    ]
    states = {
        c["state"] for lib in m["libraries"] for r in lib["rows"] for c in r["cells"]
    }
    assert states == set(matrix.STATES)
    conflict = m["libraries"][1]["rows"][1]["cells"][1]["notes"]
    assert any("recheck: fixed" in n for n in conflict) and any(
        O_CONFLICT in n for n in conflict
    )
    # Each row names its finding's waivers (those of the checkout whose reproducer
    # it is), whether or not a run used them.
    doc = json.loads((ROOT / "vendors" / "mpich" / "waivers.json").read_text())
    (row_a,) = [r for r in m["libraries"][0]["rows"] if r["finding"] == a]
    assert row_a["waivers"] == sorted(
        w["id"]
        for w in doc["waivers"]
        if pathlib.Path(w.get("reproducer") or "-").stem == a
    )
    assert M_RECHECKED in row_a["waivers"]
    (held_row,) = [r for r in m["libraries"][0]["rows"] if r["finding"] == held]
    assert "known fatal" in " ".join(held_row["cells"][0]["notes"])
    assert M_KNOWN_FATAL in held_row["waivers"]


def test_the_markdown_gives_clauses_and_new_failures_per_release(four_runs):
    tables = md_tables(matrix.markdown(build(four_runs)))
    clauses = {row[0]: row[3:] for row in tables["Clauses x releases"]}
    assert clauses["clause"] == [
        "MPICH 4.0.2 (Debian 12)",
        "MPICH 4.2.1 (Debian 13)",
        "Open MPI 4.1.4 (Debian 12)",
        "Open MPI 5.0.7 (Debian 13)",
    ]
    assert clauses["`user-op.noncommutative-order`"] == [
        "pass 3/3",
        "fail: 1 fail, 2 pass",
        "pass 3/3",
        "pass 3/3",
    ]
    assert clauses["`allreduce.values`"] == [
        "waived: 1 waived, 1 skip",
        "–",
        "waived: 1 waived",
        "crash: 2 crash, 1 waived",
    ]
    assert clauses["`reduce.intercomm-root`"] == ["–", "waived: 1 waived", "–", "–"]
    failures = tables["New failures (2 checks)"]
    assert failures[1:] == [
        [f"`{SUM}`", "`allreduce.values`", "MUST", "0", "0", "0", "2 crash"],
        [
            f"`{NONCOMM}`",
            "`user-op.noncommutative-order`",
            "MUST",
            "0",
            "1 fail",
            "0",
            "0",
        ],
        ["all", "", "", "0", "1", "0", "2"],
    ]


def test_runs_without_recheck_results_still_show_the_findings_their_waivers_matched(
    four_runs,
):
    tables = md_tables(matrix.markdown(build(four_runs)))
    a = finding_of("mpich", M_RECHECKED)
    assert [f"`{a}`", "default", "present", "not tested"] in tables["MPICH"]


# ---- the page ------------------------------------------------------------------


class Cells(HTMLParser):
    """The class and text of every th/td, by table."""

    def __init__(self):
        super().__init__()
        self.tables: list = []
        self.cell = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self.cell = [dict(attrs).get("class") or "", ""]
            self.tables[-1][-1].append(self.cell)

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data


def test_the_page_colours_each_state_and_escapes_what_it_quotes(
    four_runs, findings_file, tmp_path
):
    doc = recheck_doc()
    doc["rows"][2]["finding"] = HOSTILE
    doc["rows"][3]["finding"] = HOSTILE
    m = build(four_runs, doc)
    page = html.render_matrix(m)
    assert HOSTILE not in page and "&lt;script&gt;" in page
    parser = Cells()
    parser.feed(page)
    mpich = parser.tables[1]  # releases, then MPICH's findings
    assert [text for _, text in mpich[0][2:]] == [
        "MPICH 4.0.2Debian 12",
        "MPICH 4.2.1Debian 13",
    ]
    row = next(r for r in mpich if r[0][1].startswith(HOSTILE))
    assert [(cls, text) for cls, text in row[2:]] == [
        ("state s-present", "present"),
        ("state s-not-applicable", "not applicable"),
    ]
    classes = {cls for table in parser.tables for r in table for cls, _ in r}
    for state in matrix.STATES:
        assert f"state s-{html.anchor(state)}" in classes
    assert "heat h-crash" in classes and "heat h-fail" in classes
    assert "New failures: not matched by any waiver (2 checks)" in page


# ---- the command line ----------------------------------------------------------


def test_ordo_compare_writes_the_matrix_for_runs_of_several_releases(
    four_runs, findings_file, tmp_path
):
    p = ordo(
        "compare", *four_runs, "--findings", findings_file, "--out", tmp_path / "c"
    )
    assert p.returncode == 0, p.stderr
    assert "matrix:" in p.stdout and "(4 releases)" in p.stdout
    md = (tmp_path / "c" / "matrix.md").read_text()
    assert md == matrix.markdown(build(four_runs, matrix.load_findings(findings_file)))
    assert (
        "<h1>ordo release matrix</h1>" in (tmp_path / "c" / "matrix.html").read_text()
    )
    assert (
        '<a href="matrix.html">Release matrix</a>'
        in (tmp_path / "c" / "compare.html").read_text()
    )
    # Without --findings: on by itself, the runs being of several releases.
    p = ordo("compare", four_runs[1], four_runs[3], "--out", tmp_path / "d")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "d" / "matrix.md").is_file()


def test_ordo_compare_of_one_release_writes_no_matrix_unless_asked(four_runs, tmp_path):
    p = ordo("compare", four_runs[3], four_runs[3], "--out", tmp_path / "c")
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "c" / "matrix.md").exists() and "matrix:" not in p.stdout
    assert "matrix.html" not in (tmp_path / "c" / "compare.html").read_text()
    p = ordo("compare", four_runs[3], four_runs[3], "--matrix", "--out", tmp_path / "d")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "d" / "matrix.html").is_file()


def one_line_exit_2(p, *words):
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and p.stderr.startswith("ordo: ")
    for w in words:
        assert w in p.stderr, p.stderr


def test_a_run_folder_without_run_json_is_refused_in_one_line(four_runs, tmp_path):
    (four_runs[1] / "run.json").unlink()
    p = ordo("compare", four_runs[1], four_runs[3], "--matrix", "--out", tmp_path / "c")
    one_line_exit_2(p, "has no run.json", str(four_runs[1]))
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    "content, words",
    [
        ("not json {", ["is not JSON"]),
        ("[1, 2]", ["not an object"]),
        (json.dumps({"schema": "ordo.results/2"}), ["its schema is 'ordo.results/2'"]),
        (
            json.dumps(dict(recheck_doc(), rows={"a": 1})),
            ["no list 'rows'"],
        ),
        (
            json.dumps(dict(recheck_doc(), systems=[{"vendors": {}}])),
            ["systems[0]"],
        ),
        (
            json.dumps(
                dict(
                    recheck_doc(), rows=[dict(recheck_doc()["rows"][0], status="gone")]
                )
            ),
            ["rows[0] has the status 'gone'"],
        ),
        (
            json.dumps(
                dict(recheck_doc(), rows=[dict(recheck_doc()["rows"][0], finding=None)])
            ),
            ["rows[0] has no 'finding'"],
        ),
    ],
    ids=[
        "not-json",
        "a-list",
        "another-schema",
        "rows-not-a-list",
        "system-without-name",
        "unknown-status",
        "row-without-finding",
    ],
)
def test_a_findings_file_of_the_wrong_shape_is_refused_in_one_line(
    four_runs, tmp_path, content, words
):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    p = ordo(
        "compare",
        four_runs[1],
        four_runs[3],
        "--findings",
        bad,
        "--out",
        tmp_path / "c",
    )
    one_line_exit_2(p, str(bad), *words)
    assert not (tmp_path / "c").exists()


def test_a_missing_findings_file_is_refused_in_one_line(four_runs, tmp_path):
    p = ordo(
        "compare",
        four_runs[1],
        "--findings",
        tmp_path / "none.json",
        "--out",
        tmp_path / "c",
    )
    one_line_exit_2(p, "cannot read")


def test_a_run_that_names_no_system_joins_its_release(
    four_runs, findings_file, tmp_path
):
    old = write_run(
        tmp_path / "old",
        passes("mpich"),
        run=run_json(vendor="mpich", library_version=library_version("mpich", "4.0.2")),
    )
    m = build([old, *four_runs], matrix.load_findings(findings_file))
    assert [c["label"] for c in m["columns"]] == [
        "MPICH 4.0.2",
        "MPICH 4.2.1",
        "Open MPI 4.1.4",
        "Open MPI 5.0.7",
    ]
    assert m["columns"][0]["runs"] == [str(old), str(four_runs[3])]
    # Alone, it is a release of an unknown system.
    (c,) = build([old])["columns"]
    assert (c["label"], c["system"]) == ("MPICH 4.0.2", "system unknown")

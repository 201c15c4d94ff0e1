"""ordo package: the procurement package and its verifier (synthetic run, no MPI)."""
import gzip
import hashlib
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

from conftest import ROOT

ORDO = str(ROOT / "ordo")


def make(sample_run, dest):
    return subprocess.run(
        [ORDO, "package", str(sample_run), "--dest", str(dest)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def verify(dest):
    return subprocess.run(
        [sys.executable, str(dest / "verify.py"), str(dest)],
        capture_output=True,
        text=True,
    )


def rehash(dest):
    lines = []
    for line in (dest / "SHA256SUMS").read_text().splitlines():
        name = line.split("  ", 1)[1]
        lines.append(
            f"{hashlib.sha256((dest / name).read_bytes()).hexdigest()}  {name}"
        )
    (dest / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def test_the_package_holds_everything_and_verifies(sample_run, tmp_path):
    dest = tmp_path / "pkg"
    p = make(sample_run, dest)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verify: OK" in p.stdout
    listed = {
        line.split("  ", 1)[1]
        for line in (dest / "SHA256SUMS").read_text().splitlines()
    }
    for name in (
        "report.html",
        "summary.md",
        "junit.xml.gz",
        "results.json.gz",
        "STATEMENT.md",
        "commands.txt",
        "README.txt",
        "verify.py",
        "adapter/adapter.json",
        "adapter/waivers.json",
        "adapter/SOURCE.txt",
        "suite/commit.txt",
        "suite/git-status.txt",
        "run/run.json.gz",
        "run/journal.jsonl.gz",
        "run/logs/job.log",
        "schema/results-2.schema.json",
        "schema/results-1.schema.json",
        "schema/record-1.schema.json",
        "schema/junit.xsd",
    ):
        assert name in listed, name
    # Every byte of the journal, compressed; the tools read the package's report and
    # journal as they are.
    assert (
        gzip.decompress((dest / "run" / "journal.jsonl.gz").read_bytes())
        == (sample_run / "journal.jsonl").read_bytes()
    )
    # The JUnit view and run.json, compressed as well, every byte kept.
    assert (
        gzip.decompress((dest / "run" / "run.json.gz").read_bytes())
        == (sample_run / "run.json").read_bytes()
    )
    assert (
        ET.fromstring(gzip.decompress((dest / "junit.xml.gz").read_bytes())).tag
        == "testsuites"
    )
    assert not (dest / "junit.xml").exists() and not (dest / "report.tap").exists()
    from reports import record_diff, results

    assert len(results.load(dest)["records"]) == len(
        (sample_run / "journal.jsonl").read_text().splitlines()
    )
    assert record_diff.compare_folders(sample_run, dest / "run")["same"]
    statement = (dest / "STATEMENT.md").read_text()
    assert (
        "Signature:" in statement
        and "not conformant" in statement
        and "Synthetic MPI 1.0" in statement
    )
    assert "./ordo run --vendor mpich" in (dest / "commands.txt").read_text()
    assert verify(dest).returncode == 0
    # The package stands alone: moved elsewhere, it still verifies.
    moved = tmp_path / "moved"
    dest.rename(moved)
    assert verify(moved).returncode == 0


def test_the_verifier_finds_altered_missing_and_added_files(sample_run, tmp_path):
    dest = tmp_path / "pkg"
    assert make(sample_run, dest).returncode == 0
    (dest / "STATEMENT-signed.txt").write_text("signed by someone\n")  # allowed
    assert verify(dest).returncode == 0
    with open(dest / "report.html", "a") as f:
        f.write("<!-- edited -->")
    (dest / "summary.md").unlink()
    (dest / "extra.txt").write_text("x")
    p = verify(dest)
    assert p.returncode == 1
    assert "altered: report.html" in p.stdout and "missing: summary.md" in p.stdout
    assert "not part of the package: extra.txt" in p.stdout


def test_the_verifier_checks_the_schema_and_the_summary(sample_run, tmp_path):
    dest = tmp_path / "pkg"
    assert make(sample_run, dest).returncode == 0
    path = dest / "results.json.gz"
    report = json.loads(gzip.decompress(path.read_bytes()))

    def store(doc):
        path.write_bytes(gzip.compress(json.dumps(doc).encode()))
        rehash(dest)  # checksums alone do not catch a re-hashed edit; the schema does

    report["records"][0]["outcome"] = "pass-ish"
    store(report)
    p = verify(dest)
    assert p.returncode == 1 and "does not follow its schema: records/0" in p.stdout
    report["records"][0]["outcome"] = "fail"
    store(report)
    p = verify(dest)
    assert (
        p.returncode == 1 and "the summary does not agree with the records" in p.stdout
    )
    report["records"][0]["outcome"] = "pass"
    report["records"][0]["case_ref"] = len(report["cases"])
    store(report)
    p = verify(dest)
    assert (
        p.returncode == 1
        and "refers to a case or replay command the report does not hold" in p.stdout
    )


def test_the_verifier_counts_the_checks_of_junit_and_of_the_compressed_journal(
    sample_run, tmp_path
):
    dest = tmp_path / "pkg"
    assert make(sample_run, dest).returncode == 0
    journal = dest / "run" / "journal.jsonl.gz"
    lines = gzip.decompress(journal.read_bytes()).splitlines(keepends=True)
    journal.write_bytes(gzip.compress(b"".join(lines[:-1])))  # a record lost
    rehash(dest)
    p = verify(dest)
    assert (
        p.returncode == 1
        and f"run/journal.jsonl.gz holds {len(lines) - 1} records" in p.stdout
    )
    journal.write_bytes(gzip.compress(b"".join(lines)))
    root = ET.fromstring(gzip.decompress((dest / "junit.xml.gz").read_bytes()))
    prop = root.find(".//testcase/properties/property[@name='checks']")
    # one check more than the report holds
    prop.set("value", str(int(prop.get("value")) + 1))
    (dest / "junit.xml.gz").write_bytes(gzip.compress(ET.tostring(root)))
    rehash(dest)
    p = verify(dest)
    assert (
        p.returncode == 1 and "junit.xml.gz does not count the same checks" in p.stdout
    )


def test_a_package_of_a_version_1_report_verifies(sample_run, tmp_path):
    """A results.json of before issue #17 packages (its records re-stored as version 2)
    and verifies."""
    from reports import results

    old = tmp_path / "old"
    old.mkdir()
    (old / "results.json").write_text(
        json.dumps(results.build(sample_run), sort_keys=True)
    )
    dest = tmp_path / "pkg"
    p = make(old / "results.json", dest)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verify: OK" in p.stdout


def test_a_package_is_never_written_over_another_folder(sample_run, tmp_path):
    dest = tmp_path / "full"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    p = make(sample_run, dest)
    assert p.returncode == 2 and "is not empty" in p.stderr
    assert (dest / "keep.txt").read_text() == "mine"
    p = make(sample_run, sample_run / "pkg")
    assert p.returncode == 2 and "must not be inside the output folder" in p.stderr


def test_the_verifier_refuses_a_folder_that_is_not_a_package(tmp_path):
    p = subprocess.run(
        [sys.executable, str(ROOT / "reports" / "verify_package.py"), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2 and "not an ordo package" in p.stderr

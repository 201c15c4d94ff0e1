"""ordo package: the procurement package and its verifier (synthetic run, no MPI)."""
import hashlib
import json
import subprocess
import sys

from conftest import ROOT

ORDO = str(ROOT / "ordo")


def make(sample_run, dest):
    return subprocess.run([ORDO, "package", str(sample_run), "--dest", str(dest)], capture_output=True, text=True,
                          timeout=120)


def verify(dest):
    return subprocess.run([sys.executable, str(dest / "verify.py"), str(dest)], capture_output=True, text=True)


def rehash(dest):
    lines = []
    for line in (dest / "SHA256SUMS").read_text().splitlines():
        name = line.split("  ", 1)[1]
        lines.append(f"{hashlib.sha256((dest / name).read_bytes()).hexdigest()}  {name}")
    (dest / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def test_the_package_holds_everything_and_verifies(sample_run, tmp_path):
    dest = tmp_path / "pkg"
    p = make(sample_run, dest)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verify: OK" in p.stdout
    listed = {line.split("  ", 1)[1] for line in (dest / "SHA256SUMS").read_text().splitlines()}
    for name in ("report.html", "summary.md", "junit.xml", "results.json", "STATEMENT.md", "commands.txt",
                 "README.txt", "verify.py", "adapter/adapter.json", "adapter/waivers.json", "adapter/SOURCE.txt",
                 "suite/commit.txt", "suite/git-status.txt", "run/run.json", "run/journal.jsonl",
                 "run/logs/job.log", "schema/results-1.schema.json", "schema/junit.xsd"):
        assert name in listed, name
    statement = (dest / "STATEMENT.md").read_text()
    assert "Signature:" in statement and "not conformant" in statement and "Synthetic MPI 1.0" in statement
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
    report = json.loads((dest / "results.json").read_text())
    report["records"][0]["outcome"] = "pass-ish"
    (dest / "results.json").write_text(json.dumps(report))
    rehash(dest)  # checksums alone do not catch a re-hashed edit; the schema does
    p = verify(dest)
    assert p.returncode == 1 and "does not follow its schema: records/0/outcome" in p.stdout
    report["records"][0]["outcome"] = "fail"
    (dest / "results.json").write_text(json.dumps(report))
    rehash(dest)
    p = verify(dest)
    assert p.returncode == 1 and "the summary does not agree with the records" in p.stdout


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
    p = subprocess.run([sys.executable, str(ROOT / "reports" / "verify_package.py"), str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "not an ordo package" in p.stderr

"""The TAP view (reports/tap.py, report.tap) read by a TAP parser that Debian
ships, Perl's TAP::Parser (tools/tests/tap_counts.pl): its counts must be the
report's (no MPI needed)."""
import json
import pathlib
import shutil
import subprocess

import pytest
from conftest import TRACER_MESSAGE as TRACER, record, sample_records, write_run

from reports import results, tap

ROOT = pathlib.Path(__file__).resolve().parents[2]
COUNTS = pathlib.Path(__file__).resolve().parent / "tap_counts.pl"


def have_tap_parser():
    if shutil.which("perl") is None:
        return False
    return subprocess.run(["perl", "-MTAP::Parser", "-e", "1"], capture_output=True, timeout=30).returncode == 0


pytestmark = pytest.mark.skipif(not have_tap_parser(),
                                reason="Perl's TAP::Parser is missing (Debian: perl, perl-modules-5.36)")


def parse(path):
    """What TAP::Parser makes of the file: counts, parse errors, explanations."""
    out = subprocess.run(["perl", str(COUNTS), str(path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    parsed = {"parse_error": [], "todo_explanation": [], "skip_explanation": []}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in ("parse_error", "todo_explanation", "skip_explanation"):
            parsed[key].append(value)
        else:
            parsed[key] = value
    return parsed


def report_of(folder):
    """`./ordo report` writes every view; the report is read back through the project's loader."""
    p = subprocess.run([str(ROOT / "ordo"), "report", str(folder)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "tap:" in p.stdout and str(folder / "report.tap") in p.stdout
    return results.load(folder)


def assert_counts_agree(parsed, report):
    outcomes = report["summary"]["outcomes"]
    n = len(report["records"])
    assert report["summary"]["total"] == n
    assert parsed["version"] == "13" and parsed["plan"] == f"1..{n}"
    assert parsed["parse_error"] == []
    assert int(parsed["tests_run"]) == n
    assert int(parsed["failed"]) == sum(outcomes.get(o, 0) for o in tap.FAILED)
    assert int(parsed["skipped"]) == outcomes.get("skip", 0)
    assert int(parsed["todo"]) == outcomes.get("waived", 0)
    assert int(parsed["todo_passed"]) == 0
    # TAP's "passed" holds the skips and the TODO (expected) failures; actual passes are pass and skip
    assert int(parsed["passed"]) == n - int(parsed["failed"])
    assert int(parsed["actual_passed"]) == outcomes.get("pass", 0) + outcomes.get("skip", 0)
    # a YAML block for every failure and every waived check
    assert int(parsed["yaml_blocks"]) == int(parsed["failed"]) + int(parsed["todo"])


def test_the_tap_view_parses_and_its_counts_are_the_reports(tmp_path):
    folder = write_run(tmp_path / "run", sample_records())
    report = report_of(folder)
    outcomes = report["summary"]["outcomes"]
    assert {"pass", "fail", "crash", "skip", "waived"} <= set(outcomes)  # every kind of line is exercised
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    # a waived check names its waiver in the TODO directive; a skip gives its reason
    waived = [r for r in report["records"] if r["outcome"] == "waived"]
    assert len(parsed["todo_explanation"]) == len(waived)
    for r, explanation in zip(waived, parsed["todo_explanation"]):
        assert explanation.startswith(f"waived by {r['waiver']}")
    skips = [r for r in report["records"] if r["outcome"] == "skip"]
    assert parsed["skip_explanation"] == [results.first_line(r["message"]) for r in skips]


def test_a_hash_in_a_message_or_id_never_becomes_a_directive(tmp_path):
    recs = [record(index=0, ranks=2, outcome="fail", message="observed 3 # TODO not a directive"),
            record(test="Reduce.a_check_#_with_a_hash", index=1, ranks=2, outcome="fail",
                   message="# SKIP neither"),
            record(index=2, ranks=2, outcome="skip", message="the library lacks it # really\nsecond line")]
    folder = write_run(tmp_path / "run", recs)
    report = report_of(folder)
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    assert int(parsed["failed"]) == 2 and int(parsed["todo"]) == 0 and int(parsed["skipped"]) == 1
    assert parsed["skip_explanation"] == ["the library lacks it # really"]


def test_a_partial_run_says_so_and_still_parses(tmp_path):
    folder = write_run(tmp_path / "run", sample_records(), with_run=False)
    report = results.load(results.write(folder)[1])
    assert report["partial"]
    text = tap.render(report)
    assert any(line.startswith("# PARTIAL run: ") for line in text.splitlines())
    (tmp_path / "partial.tap").write_text(text)
    assert_counts_agree(parse(tmp_path / "partial.tap"), report)


def test_a_run_of_many_passing_checks_has_a_short_line_each_and_its_failures_whole_detail(tmp_path):
    """A passing check's line names it and no more (its case is in results.json.gz): the view of a default
    run (about 120000 checks) stays a few megabytes. The failures keep their case and their detail."""
    passes = [record(index=i, ranks=n, root=i % n, count=1000 + i, message="every element as expected " * 4)
              for n in (2, 5, 8) for i in range(1000)]
    failed = record(index=1000, ranks=8, outcome="fail", message=TRACER, root=3, count=17)
    folder = write_run(tmp_path / "run", passes + [failed])
    report = report_of(folder)
    text = (folder / "report.tap").read_text()
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    lines = text.splitlines()
    by_id = {(r["id"], r["ranks"]): n for n, r in enumerate(report["records"], 1)}
    ok_lines = {line for line in lines if line.startswith("ok ")}
    assert len(ok_lines) == len(passes)
    for r in passes:  # the line of each, exactly: its number, id ('#' escaped, TAP's rule) and rank count
        escaped = r["id"].replace("#", "\\#")
        assert f"ok {by_id[(r['id'], r['ranks'])]} - {escaped} [{r['ranks']} ranks]" in ok_lines
    # The whole view: its header, a line per passing check of its id and about 25 bytes more, and the failure.
    failure = text[text.index("not ok "):]
    bound = 400 + sum(len(r["id"]) + 25 for r in passes) + len(failure)
    assert len(text.encode()) <= bound
    # The failure: its case on its line, its message and replay command in its YAML block.
    assert failure.splitlines()[0] == f"not ok {len(passes) + 1} - {tap.description(report['records'][-1])}"
    assert "count=17" in failure.splitlines()[0] and "root=3" in failure.splitlines()[0]
    assert f"  message: {json.dumps(TRACER)}" in failure
    assert f"  replay: {json.dumps(report['records'][-1]['replay'])}" in failure

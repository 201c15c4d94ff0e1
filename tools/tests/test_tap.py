"""The TAP view (reports/tap.py, report.tap) read by a TAP parser that Debian
ships, Perl's TAP::Parser (tools/tests/tap_counts.pl): its counts must be the
report's (no MPI needed)."""
import json
import pathlib
import re
import shutil
import subprocess

import pytest
from conftest import TRACER_MESSAGE as TRACER, record, sample_records, write_run

from reports import results, tap, waivers

ROOT = pathlib.Path(__file__).resolve().parents[2]
COUNTS = pathlib.Path(__file__).resolve().parent / "tap_counts.pl"


def have_tap_parser():
    if shutil.which("perl") is None:
        return False
    return (
        subprocess.run(
            ["perl", "-MTAP::Parser", "-e", "1"], capture_output=True, timeout=30
        ).returncode
        == 0
    )


pytestmark = pytest.mark.skipif(
    not have_tap_parser(),
    reason="Perl's TAP::Parser is missing (Debian: perl, perl-modules-5.36)",
)


def parse(path):
    """What TAP::Parser makes of the file: counts, parse errors, explanations."""
    out = subprocess.run(
        ["perl", str(COUNTS), str(path)], capture_output=True, text=True, timeout=300
    )
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
    """`./ordo report` writes every view; the report is read back through the project's
    loader."""
    p = subprocess.run(
        [str(ROOT / "ordo"), "report", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
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
    # TAP's "passed" holds the skips and the TODO (expected) failures; actual passes are
    # pass and skip
    assert int(parsed["passed"]) == n - int(parsed["failed"])
    assert int(parsed["actual_passed"]) == outcomes.get("pass", 0) + outcomes.get(
        "skip", 0
    )
    # a YAML block for every failure and every waived check
    assert int(parsed["yaml_blocks"]) == int(parsed["failed"]) + int(parsed["todo"])


def test_the_tap_view_parses_and_its_counts_are_the_reports(tmp_path):
    folder = write_run(tmp_path / "run", sample_records())
    report = report_of(folder)
    outcomes = report["summary"]["outcomes"]
    # every kind of line is exercised
    assert {"pass", "fail", "crash", "skip", "waived"} <= set(outcomes)
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    # a waived check names its waiver in the TODO directive; a skip gives its reason
    waived = [r for r in report["records"] if r["outcome"] == "waived"]
    assert len(parsed["todo_explanation"]) == len(waived)
    for r, explanation in zip(waived, parsed["todo_explanation"]):
        assert explanation.startswith(f"waived by {r['waiver']}")
    skips = [r for r in report["records"] if r["outcome"] == "skip"]
    assert parsed["skip_explanation"] == [
        results.first_line(r["message"]) for r in skips
    ]


def test_a_hash_in_a_message_or_id_never_becomes_a_directive(tmp_path):
    recs = [
        record(
            index=0,
            ranks=2,
            outcome="fail",
            message="observed 3 # TODO not a directive",
        ),
        record(
            test="Reduce.a_check_#_with_a_hash",
            index=1,
            ranks=2,
            outcome="fail",
            message="# SKIP neither",
        ),
        record(
            index=2,
            ranks=2,
            outcome="skip",
            message="the library lacks it # really\nsecond line",
        ),
    ]
    folder = write_run(tmp_path / "run", recs)
    report = report_of(folder)
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    assert (
        int(parsed["failed"]) == 2
        and int(parsed["todo"]) == 0
        and int(parsed["skipped"]) == 1
    )
    assert parsed["skip_explanation"] == ["the library lacks it # really"]


def test_a_partial_run_says_so_and_still_parses(tmp_path):
    folder = write_run(tmp_path / "run", sample_records(), with_run=False)
    report = results.load(results.write(folder)[1])
    assert report["partial"]
    text = tap.render(report)
    assert any(line.startswith("# PARTIAL run: ") for line in text.splitlines())
    (tmp_path / "partial.tap").write_text(text)
    assert_counts_agree(parse(tmp_path / "partial.tap"), report)


GROUP = re.compile(r"^# (\S+) \[(\d+) ranks?(?:, variant (\S+))?\]$")
NUMBERED = re.compile(r"^(?:not )?ok (\d+) - \\#(\d+)(?: |$)")


def grouped_checks(text):
    """What a reader makes of the view's numbered lines (passing, skipped, waived
    checks): {test number: (id, ranks, variant)}, each id the comment line's test (its
    '\\#' unescaped) and the line's number.
    """
    found, group = {}, None
    for line in text.splitlines():
        m = GROUP.match(line)
        if m:
            group = (m[1].replace("\\#", "#"), int(m[2]), m[3] or "default")
            continue
        m = NUMBERED.match(line)
        if m:
            assert group, line  # a numbered line is under its group's comment
            found[int(m[1])] = (f"{group[0]}#{m[2]}", group[1], group[2])
        elif line.startswith(("ok ", "not ok ")):
            # A line with the whole id ends the group: the next numbered line opens
            # its own.
            group = None
    return found


def test_many_passing_checks_have_a_short_line_each_and_failures_their_whole_detail(
    tmp_path,
):
    """A passing check's line is its number under a comment naming its test, rank count
    and variant (its case and message are in results.json.gz): the view of a default run
    (about 120000 checks) stays a few megabytes. Every check keeps a line of its own;
    the failures keep their case and their detail.
    """
    passes = [
        record(
            index=i,
            ranks=n,
            root=i % n,
            count=1000 + i,
            message="every element as expected " * 4,
        )
        for n in (2, 5, 8)
        for i in range(1000)
    ]
    failed = record(
        index=1000, ranks=8, outcome="fail", message=TRACER, root=3, count=17
    )
    folder = write_run(tmp_path / "run", passes + [failed])
    report = report_of(folder)
    text = (folder / "report.tap").read_text()
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    lines = text.splitlines()
    ok_lines = [line for line in lines if line.startswith("ok ")]
    assert len(ok_lines) == len(passes)
    # each passing check, exactly: its number, its id and rank count, read back from its
    # group's comment
    expected = {
        n: (r["id"], r["ranks"], r["variant"])
        for n, r in enumerate(report["records"], 1)
        if r["outcome"] == "pass"
    }
    assert grouped_checks(text) == expected
    # one per test and rank count
    assert sum(1 for line in lines if GROUP.match(line)) == 3
    # The whole view: its header, a comment per group, about 16 bytes a passing check,
    # and the failure.
    failure = text[text.index("not ok ") :]
    bound = 600 + 3 * 100 + sum(16 for _ in passes) + len(failure)
    assert len(text.encode()) <= bound
    # The failure: its case on its line, its message and replay command in its YAML
    # block.
    assert (
        failure.splitlines()[0]
        == f"not ok {len(passes) + 1} - {tap.description(report['records'][-1])}"
    )
    assert "count=17" in failure.splitlines()[0] and "root=3" in failure.splitlines()[0]
    assert f"  message: {json.dumps(TRACER)}" in failure
    assert f"  replay: {json.dumps(report['records'][-1]['replay'])}" in failure


def test_a_failure_amid_grouped_checks_reopens_their_group_and_a_waiver_shows_once(
    tmp_path,
):
    """Passing, skipped and waived checks are numbered under the comment of their test,
    rank count and variant; a failure between them has its whole line, and the checks
    after it come under their comment again, so each id reads back whole. A waived
    check's directive names its waiver; the waiver's reason, upstream and expiry are in
    the first waived check's YAML block, and each message is kept without the note the
    waiver appended to it (waivers.apply), which would repeat them."""
    waiver = "mpich-6351-intercomm-reduce-null-sendbuf"
    recs = [
        record(index=0, ranks=2),
        record(index=1, ranks=2),
        record(
            index=2,
            ranks=2,
            outcome="waived",
            waiver=waiver,
            message="observed 1, expected 2",
            count=7,
        ),
        record(index=3, ranks=2),
        record(index=4, ranks=2, variant="mpich.reduce.intra.binomial"),
        record(index=5, ranks=2, outcome="fail", message="observed 9, expected 8"),
        record(
            index=6,
            ranks=2,
            outcome="waived",
            waiver=waiver,
            message="observed 4, expected 5",
            count=9,
        ),
        record(index=7, ranks=2, outcome="skip", message="not this time"),
        record(index=8, ranks=2),
        record(test="Reduce.a_check_#_with_a_hash", index=9, ranks=1),
    ]
    w = next(
        x
        for x in json.loads((ROOT / "vendors/mpich/waivers.json").read_text())[
            "waivers"
        ]
        if x["id"] == waiver
    )
    for (
        r
    ) in recs:  # the note the runner's waivers.apply leaves on a waived check's message
        if r["outcome"] == "waived":
            r["message"] += waivers.waiver_note(w)
    folder = write_run(tmp_path / "run", recs)
    report = report_of(folder)
    text = (folder / "report.tap").read_text()
    parsed = parse(folder / "report.tap")
    assert_counts_agree(parsed, report)
    assert (
        int(parsed["failed"]) == 1
        and int(parsed["todo"]) == 2
        and int(parsed["skipped"]) == 1
    )
    expected = {
        n: (r["id"], r["ranks"], r["variant"])
        for n, r in enumerate(report["records"], 1)
        if r["outcome"] != "fail"
    }
    assert len(expected) == 9 and grouped_checks(text) == expected
    lines = text.splitlines()
    # the failure's line is whole; a waived and a skipped check's lines carry their case
    fail = next(r for r in report["records"] if r["outcome"] == "fail")
    assert f"not ok 6 - {tap.description(fail)}" in lines
    assert any(
        line.startswith("not ok 3 - \\#2 ") and "count=7" in line for line in lines
    )
    assert any(
        line.startswith("ok 8 - \\#7 ") and line.endswith("# SKIP not this time")
        for line in lines
    )
    assert parsed["todo_explanation"] == [f"waived by {waiver}"] * 2
    assert (
        text.count("  waiver_reason: ") == 1
        and f"  waiver_reason: {json.dumps(w['reason'])}" in text
    )
    assert (
        f"  waiver_upstream: {json.dumps(w['upstream'])}" in text
        and f'  waiver_expires: "{w["expires"]}"' in text
    )
    # in the first waived check's block
    assert text.index("  waiver_reason: ") < text.index("not ok 7 ")
    assert text.count(f'  waiver: "{waiver}"') == 2
    assert (
        '  message: "observed 1, expected 2"' in lines
        and '  message: "observed 4, expected 5"' in lines
    )
    # a waived check's replay command without its case's fields at the harness's default
    # (the same case)
    waived = report["records"][6]
    assert waived["outcome"] == "waived" and len(results.short_replay(waived)) < len(
        waived["replay"]
    )
    assert f"  replay: {json.dumps(results.short_replay(waived))}" in lines

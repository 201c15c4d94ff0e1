"""results.json.gz (and the results.json of version 1) and its views, from synthetic
journals (no MPI)."""
import copy
import gzip
import importlib.util
from html.parser import HTMLParser
import json
import shlex
import re
import os
import pathlib
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, TRACER_MESSAGE, record, run_json, sample_records, write_run
from reports import deps, html, junit, markdown, results, tracer, views, waivers

ORDO = str(ROOT / "ordo")
HOSTILE = "<script>alert('x')</script>"


def ordo(*args):
    return subprocess.run(
        [ORDO, *map(str, args)], capture_output=True, text=True, timeout=120
    )


# ---- results.json -------------------------------------------------------------


def test_the_schema_file_is_a_valid_json_schema():
    jsonschema = deps.require("jsonschema")
    schema = json.loads(results.SCHEMA_PATH.read_text())
    jsonschema.validators.validator_for(schema).check_schema(schema)
    assert schema["properties"]["schema"]["const"] == results.SCHEMA_ID


def test_results_json_is_written_validated_and_read_back(sample_run):
    report, path = results.write(sample_run)
    assert path == sample_run / "results.json.gz"
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    again = results.load(path)
    assert again == report
    assert results.load(sample_run) == report  # the output folder's
    stored = json.loads(gzip.decompress(path.read_bytes()))
    assert stored["schema"] == "ordo.results/2" and "stored_as" not in stored
    assert again["stored_as"] == "ordo.results/2"  # the views name what the file holds
    assert "ordo.results/2" in html.render(
        again
    ) and "ordo.results/2" in markdown.render(again, "report.html")
    # compressed at gzip's best level (9: 4.2 MB instead of 4.6 MB for the default MPICH
    # run, 0.7 s more)
    raw = gzip.decompress(path.read_bytes())
    assert len(path.read_bytes()) <= len(gzip.compress(raw, compresslevel=9, mtime=0))
    assert len(path.read_bytes()) < len(gzip.compress(raw, compresslevel=6, mtime=0))
    assert report["schema"] == "ordo.results/1" and report["partial"] is False
    assert report["summary"]["total"] == len(sample_records())
    assert report["summary"]["outcomes"] == {
        "pass": 12,
        "fail": 1,
        "skip": 1,
        "waived": 1,
        "crash": 1,
    }
    assert (
        report["run"]["vendor"] == "mpich"
        and report["spec"]["standard"] == "MPI-4.1 and MPI-5.0"
    )
    assert report["waivers"]["source"].endswith("vendors/mpich/waivers.json")


@pytest.mark.parametrize(
    "mutate, where",
    [
        (lambda r: r["records"][0].update(outcome="maybe"), "records/0/outcome"),
        (lambda r: r["records"][1].update(level="SHOULDNT"), "records/1/level"),
        (lambda r: r["records"][2].pop("clause"), "records/2"),
        (lambda r: r.pop("run"), "(top)"),
        (lambda r: r["run"].update(ranks=[0]), "run/ranks/0"),
        (lambda r: r["summary"].update(verdict="fine"), "summary/verdict"),
        (lambda r: r.update(extra=1), "(top)"),
    ],
)
def test_the_schema_rejects_an_invalid_report(sample_run, tmp_path, mutate, where):
    report, _ = results.write(sample_run)
    bad = copy.deepcopy(report)
    mutate(bad)
    assert any(
        e.startswith(where) for e in results.schema_errors(bad)
    ), results.schema_errors(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(
        results.ReportError, match="does not follow results-1.schema.json"
    ):
        results.load(path)


def test_a_report_of_another_schema_version_is_refused(sample_run, tmp_path):
    report, _ = results.write(sample_run)
    report["schema"] = "ordo.results/3"
    path = tmp_path / "v3.json"
    path.write_text(json.dumps(report))
    with pytest.raises(
        results.ReportError, match="this ordo reads ordo.results/1 and ordo.results/2"
    ):
        results.load(path)


def test_version_2_stores_each_case_once_and_gives_every_record_back_whole(sample_run):
    report = results.build(sample_run)
    twice = copy.deepcopy(report["records"][0])
    twice["id"] = twice["id"] + "-again"
    report["records"].append(twice)  # the same case in two records
    stored = results.encode(report)
    assert len(stored["cases"]) == len(
        {json.dumps(r["case"]) for r in report["records"] if r.get("case")}
    )
    assert all("case" not in r for r in stored["records"] if "case_ref" in r)
    assert sum("replay_ref" in r for r in stored["records"]) == sum(
        1 for r in report["records"] if r.get("replay")
    )
    assert results.schema_errors(stored, schema_id="ordo.results/2") == []
    assert results.decode(stored)["records"] == report["records"]
    # A replay command that its template would not give back exactly is kept as it is.
    odd = copy.deepcopy(report)
    odd["records"][0]["replay"] = './ordo replay --case \'{"op": "x"}\' {case}'
    stored = results.encode(odd)
    assert stored["records"][0]["replay"] == odd["records"][0]["replay"]
    assert results.decode(stored)["records"] == odd["records"]


def test_a_reference_to_a_case_that_is_not_there_is_refused(sample_run, tmp_path):
    stored = results.encode(results.build(sample_run))
    stored["records"][0]["case_ref"] = len(stored["cases"])
    path = tmp_path / "bad.json.gz"
    path.write_bytes(gzip.compress(json.dumps(stored).encode()))
    with pytest.raises(results.ReportError, match="refers to a case"):
        results.load(path)


def test_a_version_1_report_is_still_read_plain_or_compressed(sample_run, tmp_path):
    """A results.json of before issue #17 (plain JSON, every record whole): every reader
    reads it through results.load, as a file or in its folder, and gzip-compressed under
    any name."""
    report = results.build(sample_run)
    old = tmp_path / "old"
    old.mkdir()
    (old / "results.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    assert results.load(old / "results.json") == report
    assert results.load(old) == report
    (tmp_path / "old.json.gz").write_bytes(
        gzip.compress((old / "results.json").read_bytes())
    )
    assert results.load(tmp_path / "old.json.gz") == report
    # `ordo report` of the old file writes the views; `ordo report` of the output folder
    # replaces the old results.json by results.json.gz.
    p = ordo("report", old / "results.json", "--out", tmp_path / "views")
    assert p.returncode == 0, p.stderr
    (sample_run / "results.json").write_text(json.dumps(report))
    p = ordo("report", sample_run)
    assert p.returncode == 0, p.stderr
    assert (sample_run / "results.json.gz").is_file() and not (
        sample_run / "results.json"
    ).exists()


def test_a_compressed_report_cut_short_is_refused_in_one_line(sample_run, tmp_path):
    _, path = results.write(sample_run)
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(path.read_bytes()[:-20])
    p = ordo("report", cut)
    assert (
        p.returncode == 2
        and len(p.stderr.strip().splitlines()) == 1
        and "is not JSON" in p.stderr
    )


def test_a_run_without_end_is_reported_partial(tmp_path):
    out = write_run(
        tmp_path / "r", [record(index=i) for i in range(3)], run=run_json(end=False)
    )
    report, _ = results.write(out)
    assert report["partial"] is True
    assert any("no end time" in reason for reason in report["partial_reasons"])
    assert report["summary"]["verdict"] == "incomplete"
    assert "Partial report" in html.render(report)
    assert "Partial report" in markdown.render(report)
    assert '<property name="partial" value="true"' in junit.render(report)


def test_a_journal_without_run_json_is_partial_and_keeps_every_record(tmp_path):
    out = write_run(
        tmp_path / "r",
        [record(index=i, ranks=n) for n in (1, 2) for i in range(2)],
        with_run=False,
    )
    report = results.build(out)
    assert report["partial"] and "no run.json" in report["partial_reasons"][0]
    assert report["summary"]["total"] == 4 and report["run"]["vendor"] == "mpich"
    assert report["run"]["ranks"] == [1, 2]


def test_an_unreadable_journal_line_becomes_a_corrupt_record(tmp_path):
    out = write_run(tmp_path / "r", [record(index=0)])
    with open(out / "journal.jsonl", "a") as f:
        f.write('{"id": "half a line\n{"id": "x", "outcome": "pass"}\n')
    report = results.build(out)
    outcomes = [r["outcome"] for r in report["records"]]
    assert outcomes == ["pass", "corrupt", "corrupt"]
    assert report["partial"] and report["summary"]["verdict"] == "not conformant"


def test_a_record_of_the_runner_without_vendor_is_completed_from_the_run(tmp_path):
    gave_up = {
        "schema": "ordo.check/1",
        "id": "ordo_check_reduce@4ranks#gave-up",
        "test": "ordo_check_reduce",
        "clause": "harness.job",
        "level": "MUST",
        "outcome": "crash",
        "ranks": 4,
        "message": "gave up after 50 restarts",
        "case": None,
    }
    inflight_crash = dict(
        record(index=1), outcome="crash", level=None, routine="", message=None
    )
    out = write_run(tmp_path / "r", [record(index=0), gave_up, inflight_crash])
    report = results.build(out)
    assert [r["outcome"] for r in report["records"]] == ["pass", "crash", "crash"]
    assert (
        report["records"][1]["vendor"] == "mpich"
        and report["records"][1]["variant"] == "default"
    )
    assert report["records"][2]["level"] == "MUST"


@pytest.mark.parametrize(
    "records, verdict, must",
    [
        ([record(index=0), record(index=1)], "conformant", "pass"),
        ([record(index=0), record(index=1, outcome="fail")], "not conformant", "fail"),
        (
            [record(index=0), record(index=1, outcome="timeout")],
            "not conformant",
            "fail",
        ),
        (
            [record(index=0), record(index=1, outcome="waived", waiver="w")],
            "conformant with waivers",
            "pass with waivers",
        ),
        (
            [record(index=0), record(index=1, outcome="fail", level="SHOULD")],
            "conformant",
            "pass",
        ),
        (
            [record(index=0, level="INFO", outcome="fail")],
            "nothing checked at MUST",
            "not checked",
        ),
        ([], "nothing checked", "not checked"),
    ],
)
def test_the_verdict_follows_the_must_level(records, verdict, must):
    summary = results.summarize(records, partial=False)
    assert (
        summary["verdict"] == verdict and summary["levels"]["MUST"]["verdict"] == must
    )


def test_detect_checks_count_reported_and_accepted():
    recs = [
        dict(record(index=i, level="DETECT", clause="op.char-types-excluded"), detect=d)
        for i, d in enumerate(["reported", "reported", "accepted"])
    ]
    summary = results.summarize(recs, partial=False)
    assert summary["levels"]["DETECT"]["detect"] == {"reported": 2, "accepted": 1}
    assert "reported 2, accepted 1" in html.render(dict(_report(recs)))


def _report(records, **run_extra):
    run = run_json(**run_extra)
    return {
        "schema": results.SCHEMA_V1,
        "generated": {"by": "test", "at": "2026-11-22T00:00:00+00:00"},
        "partial": False,
        "partial_reasons": [],
        "run": run,
        "spec": {
            "standard": "MPI-4.1",
            "clauses": json.loads((ROOT / "spec" / "clauses.json").read_text())[
                "clauses"
            ],
        },
        "waivers": {"source": None, "waivers": []},
        "summary": results.summarize(records, False),
        "records": records,
    }


# ---- HTML ----------------------------------------------------------------------


def hostile_report():
    recs = sample_records()
    recs[0] = dict(
        recs[0],
        outcome="fail",
        message=f"observed {HOSTILE} & \x00 \x1b[31m",
        test="Reduce.<img src=x onerror=alert(1)>",
    )
    report = _report(
        recs,
        library_version=f"EvilMPI {HOSTILE}\x00",
        env={"X": HOSTILE},
        command=["./ordo", "run", "--env", f"X={HOSTILE}"],
    )
    assert not results.schema_errors(report), results.schema_errors(report)
    return report


def test_html_escapes_every_string_from_a_library_or_a_command():
    page = html.render(hostile_report())
    assert "<script" not in page.lower()
    assert "<img" not in page.lower()
    assert "&lt;script&gt;alert(" in page
    assert "\x00" not in page and "\x1b" not in page and "\\x00" in page
    # Nothing is loaded from anywhere: a strict policy, no src= and no external link.
    assert "default-src 'none'" in page
    assert " src=" not in page.replace("img src=x", "")
    assert 'href="http' not in page


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])


def test_html_in_page_links_all_have_a_target():
    parser = _Links()
    parser.feed(html.render(_report(sample_records())))
    assert len(parser.links) > 10
    assert not [link for link in parser.links if link not in parser.ids]


def test_html_shows_verdicts_clauses_heat_map_failures_and_environment():
    page = html.render(_report(sample_records()))
    for level in results.LEVELS:
        assert f'id="level-{level}"' in page
    assert 'id="clause-user-op.noncommutative-order"' in page and "6.9.5" in page
    assert page.count('class="heat h-') >= 8
    # The tracer failure: its case, message, replay command, combine-order tree.
    assert (
        'id="f-1"' in page
        and "witness.tracer" in page
        and "./ordo replay --vendor mpich --ranks 4" in page
    )
    assert (
        "<svg" in page and "first wrong combine" in page and "operands swapped" in page
    )
    # The crashed job names its log and how to run it again.
    assert (
        "ordo_check_reduce-3ranks.log" in page and "--filter ordo_check_reduce" in page
    )
    # The waiver, its reason and reproducer; the skip reason; the provenance.
    assert 'id="w-mpich-6351-intercomm-reduce-null-sendbuf"' in page
    assert "MPI_Allreduce_init is not provided" in page
    assert "Synthetic MPI 1.0" in page and "testhost" in page


def test_the_tracer_message_becomes_a_tree():
    items = tracer.parse(
        TRACER_MESSAGE + " | on rank 1: " + TRACER_MESSAGE.split(": ", 1)[1]
    )
    assert len(items) == 1  # the same explanation on two ranks is drawn once
    item = items[0]
    assert item["invec"] == (2, 3) and item["inoutvec"] == (0, 1) and item["size"] == 4
    assert "in rank order invec = ranks 0..1" in tracer.describe(item)
    ET.fromstring(tracer.svg(item))  # well-formed
    covers = tracer.parse(
        "tracer: covers ranks 0..2 instead of ranks 0..3 (comm rank 0 of 4)"
    )[0]
    assert covers["got"] == (0, 2) and covers["want"] == (0, 3)
    ET.fromstring(tracer.svg(covers))
    assert tracer.parse("element 0: expected 1, observed 2") == []
    # A corrupted cell names ranks that cannot be: no tree is drawn from it.
    assert (
        tracer.parse(
            "tracer: first wrong combine: invec = ranks 30841..15421, inoutvec = rank 0"
            " (overlapping operands) (comm rank 1 of 2)"
        )
        == []
    )
    assert (
        tracer.parse(
            "tracer: first wrong combine: invec = ranks -30841..-15421, inoutvec ="
            " ranks -30841..-15421 (overlapping operands) (comm rank 1 of 2)"
        )
        == []
    )


# ---- Markdown --------------------------------------------------------------------


def test_markdown_summary_has_the_verdicts_and_the_failures():
    md = markdown.render(_report(sample_records()))
    assert md.startswith("### ordo: mpich: not conformant")
    assert "| MUST | **fail** |" in md
    assert "`Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root`" in md
    assert "replay: `./ordo replay --vendor mpich --ranks 4" in md


def test_markdown_escapes_library_strings_and_fits_a_comment():
    md = markdown.render(hostile_report())
    assert "<script" not in md and "&lt;script&gt;" in md and "\x00" not in md
    many = [
        record(index=i, outcome="fail", message="x" * 2000 + "`|<b>")
        for i in range(3000)
    ]
    md = markdown.render(_report(many))
    assert len(md) < markdown.MAX_CHARS
    assert "more in the full report" in md and "<b>" not in md


def test_code_spans_hold_backticks():
    assert markdown.code("a`b") == "``a`b``"
    assert markdown.code("`x`") == "`` `x` ``"


# ---- JUnit ------------------------------------------------------------------------


def test_junit_summarises_passing_checks_and_keeps_every_other_check_as_an_element():
    recs = [record(index=i) for i in range(40)]
    recs += [
        record(index=40 + i, outcome=o, message=f"{o} here")
        for i, o in enumerate(["fail", "crash", "timeout", "waived", "waived"])
    ]
    recs[-1]["waiver"] = recs[-2]["waiver"] = "w"
    recs += [
        record(
            index=50 + i,
            outcome="skip",
            message=f"communicator shape halves needs more ranks {i}",
        )
        for i in range(3)
    ]
    root = ET.fromstring(junit.render(_report(recs)))
    cases = root.findall(".//testcase")
    assert junit.checks_of(root) == len(recs) == 48
    passed = [
        c
        for c in cases
        if c.find("properties/property[@name='outcome']").get("value") == "pass"
    ]
    assert len(passed) == 1 and passed[0].get("name").endswith(": 40 checks passed")
    for o in ("fail", "crash", "timeout", "waived"):
        own = [
            c
            for c in cases
            if c.find("properties/property[@name='outcome']").get("value") == o
        ]
        assert len(own) == sum(1 for r in recs if r["outcome"] == o)
        assert all(
            c.find("properties/property[@name='checks']").get("value") == "1"
            for c in own
        )
        assert all("replay: ./ordo replay" in c.find("system-out").text for c in own)
    skipped = [
        c
        for c in cases
        if c.find("properties/property[@name='outcome']").get("value") == "skip"
    ]
    assert len(skipped) == 1
    name = skipped[0].get("name")
    assert "3 checks skipped: communicator shape halves needs more ranks N" in name
    assert (root.get("failures"), root.get("errors")) == ("1", "2")
    assert root.get("tests") == str(len(cases)) == "7"


def test_junit_gives_a_waivers_note_once_and_each_waived_checks_message():
    """A waived check's <skipped> names its waiver and keeps its message; the note its
    waiver appended (expiry, reason, upstream: waivers.apply) is in the first waived
    check of that waiver only.
    """
    w = {
        "id": "w1",
        "expires": "2027-06-30",
        "reason": "the library compares unsigned as signed",
        "upstream": "https://example.org/issue/1",
    }
    recs = [
        record(
            index=i,
            outcome="waived",
            waiver="w1",
            ranks=n,
            message=f"observed {i}" + waivers.waiver_note(w),
        )
        for i in range(3)
        for n in (2, 4)
    ]
    recs.append(
        record(
            index=9, outcome="waived", waiver="w2", message="observed 9 | not the note"
        )
    )
    report = dict(_report(recs), waivers={"source": None, "waivers": [w]})
    root = ET.fromstring(junit.render(report))
    cases = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    messages = [c.find("skipped").get("message") for c in cases]
    assert len(cases) == 7 and root.get("skipped") == "7"
    assert sum(waivers.waiver_note(w) in m for m in messages) == 1
    first = next(m for m in messages if waivers.waiver_note(w) in m)
    assert first == "waived by w1: observed 0" + waivers.waiver_note(w)
    assert (
        sorted(m for m in messages if "w1" in m and m != first)
        == sorted(f"waived by w1: observed {i}" for i in range(3) for n in (2, 4))[1:]
    )
    # a waiver the report does not hold: whole
    assert "waived by w2: observed 9 | not the note" in messages
    # each its replay command, its case's fields at the harness's default left out
    # (results.short_replay)
    assert sorted(c.find("system-out").text for c in cases) == sorted(
        "replay: " + results.short_replay(r) for r in recs
    )
    assert all(len(results.short_replay(r)) <= len(r["replay"]) - 100 for r in recs)


def test_the_case_defaults_a_short_replay_leaves_out_are_the_harness_own():
    """results.CASE_DEFAULTS are the initialisers of struct Case (case.h), which
    Case::from_json starts from: a field left out of --case is the harness's default, so
    the short command replays the same case.
    """
    text = (ROOT / "reference/include/ordo/reference/case.h").read_text()
    body = text[text.index("struct Case {") :]
    body = body[: body.index("};")]
    fields = {}
    for m in re.finditer(
        r"^\s*(bool|int|std::string|std::vector<int>|Mode|Routine|std::uint64_t)"
        r"\s+(\w+)(?:\s*=\s*([^;]+))?;",
        body,
        re.M,
    ):
        kind, name, init = m[1], m[2], (m[3] or "").strip()
        if kind == "bool":
            fields[name] = {"true": True, "false": False}[init]
        elif kind == "std::string":
            fields[name] = json.loads(init) if init else ""
        elif kind == "std::vector<int>":
            fields[name] = [] if not init else None
        elif kind == "Mode":
            fields[name] = init.split("::")[-1]
        else:
            fields[name] = init
    assert set(results.CASE_DEFAULTS) <= set(fields)
    assert {k: fields[k] for k in results.CASE_DEFAULTS} == results.CASE_DEFAULTS


def test_a_short_replay_is_the_same_case_without_its_default_fields():
    r = record(
        index=0, outcome="waived", waiver="w", in_place=True, binding="f08", count=7
    )
    short = results.short_replay(r)
    prefix = "./ordo replay --vendor mpich --ranks 4 --case "
    assert r["replay"].startswith(prefix) and short.startswith(prefix)
    case = json.loads(shlex.split(short[len(prefix) :])[0])
    assert {**results.CASE_DEFAULTS, **case} == {
        **results.CASE_DEFAULTS,
        **r["case"],
    }  # the same case
    # not defaults: kept
    assert case["in_place"] is True and case["binding"] == "f08" and case["count"] == 7
    assert not set(case) & {
        k for k, v in results.CASE_DEFAULTS.items() if r["case"].get(k) == v
    }
    assert list(case) == [k for k in r["case"] if k in case]  # in the harness's order
    # a command that is not the record's case run again is given whole
    other = dict(
        r,
        replay=r["replay"]
        .replace("--ranks 4", "--ranks 4 --variant x")
        .replace("}'", ',"x":1}\''),
    )
    assert results.short_replay(other) == other["replay"]
    assert results.short_replay(dict(r, case=None)) == r["replay"]


def test_junit_counts_failures_errors_and_skips():
    root = ET.fromstring(junit.render(_report(sample_records())))
    assert root.tag == "testsuites"
    assert junit.checks_of(root) == 16
    assert (root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "1",
        "1",
        "2",
    )
    assert root.find(".//failure").get("type") == "MUST"
    assert "replay: ./ordo replay" in root.find(".//testcase[failure]/system-out").text


def test_junit_survives_control_characters_and_markup():
    text = junit.render(hostile_report())
    root = ET.fromstring(text)
    assert "\x00" not in text
    # escaped in the XML, intact once parsed
    assert HOSTILE in root.find(".//failure").text


@pytest.mark.skipif(
    shutil.which("xmllint") is None,
    reason="xmllint not installed (Debian: libxml2-utils)",
)
def test_junit_is_valid_against_the_junit_schema(tmp_path):
    good = tmp_path / "junit.xml"
    good.write_text(junit.render(hostile_report()))
    p = subprocess.run(
        ["xmllint", "--noout", "--schema", str(junit.XSD), str(good)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    # The schema is not vacuous: a testcase without classname, or with two results, is
    # rejected.
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<testsuites><testsuite name="s" tests="1"><testcase'
        ' name="t"/></testsuite></testsuites>'
    )
    assert (
        subprocess.run(
            ["xmllint", "--noout", "--schema", str(junit.XSD), str(bad)],
            capture_output=True,
        ).returncode
        != 0
    )
    bad.write_text(
        '<testsuites><testsuite name="s" tests="1"><testcase name="t" classname="c">'
        "<failure/><error/></testcase></testsuite></testsuites>"
    )
    assert (
        subprocess.run(
            ["xmllint", "--noout", "--schema", str(junit.XSD), str(bad)],
            capture_output=True,
        ).returncode
        != 0
    )


# ---- comparison and the command line ---------------------------------------------


def test_compare_puts_runs_side_by_side_and_lists_differences(tmp_path):
    a = write_run(tmp_path / "a", [record(index=i) for i in range(3)])
    b = write_run(
        tmp_path / "b",
        [
            record(
                index=i,
                vendor="openmpi",
                outcome="fail" if i == 1 else "pass",
                message="<b>bad</b>",
            )
            for i in range(3)
        ],
        run=run_json(vendor="openmpi"),
    )
    page = html.render_compare([results.build(a), results.build(b)], ["a", "b"])
    assert "mpich" in page and "openmpi" in page
    assert "Checks whose outcome differs (1)" in page
    assert "<b>bad" not in page


def test_ordo_report_writes_results_and_every_view(sample_run):
    p = ordo("report", sample_run)
    assert p.returncode == 0, p.stderr
    for name in ("results.json.gz", "report.html", "summary.md", "junit.xml"):
        assert (sample_run / name).is_file()
    assert "not conformant" in p.stdout
    # From results.json.gz alone, into another folder.
    other = sample_run.parent / "views"
    p = ordo("report", sample_run / "results.json.gz", "--out", other)
    assert p.returncode == 0, p.stderr
    assert (other / "report.html").read_text() == (
        sample_run / "report.html"
    ).read_text()


def test_ordo_report_and_compare_refuse_bad_input_in_one_line(tmp_path):
    for args in (
        ("report", tmp_path / "nothing"),
        ("compare", tmp_path, tmp_path / "x"),
        ("compare", tmp_path),
    ):
        p = ordo(*args)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and p.stderr.startswith("ordo: ")
    bad = tmp_path / "results.json"
    bad.write_text('{"schema": "ordo.results/1"}')
    p = ordo("report", bad)
    assert p.returncode == 2 and "does not follow results-1.schema.json" in p.stderr


def test_ordo_compare_writes_one_page(sample_run, passing_run, tmp_path):
    p = ordo("compare", sample_run, passing_run, "--out", tmp_path / "cmp")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "cmp" / "compare.html").is_file()


def test_views_write_all_four_files(sample_run, tmp_path):
    paths = views.write_all(results.build(sample_run), tmp_path / "v")
    assert sorted(p.name for p in paths.values()) == [
        "junit.xml",
        "report.html",
        "report.tap",
        "summary.md",
    ]


def test_a_missing_module_names_its_debian_package():
    with pytest.raises(
        deps.MissingModule, match="apt-get install -y python3-no_such_module_xyz"
    ):
        deps.require("no_such_module_xyz")


def test_reports_code_is_pyflakes_clean():
    if importlib.util.find_spec("pyflakes") is None:
        pytest.skip("pyflakes not installed (Debian: python3-pyflakes)")
    files = [str(p) for p in (ROOT / "reports").glob("*.py")] + [
        str(p) for p in pathlib.Path(__file__).parent.glob("*.py")
    ]
    p = subprocess.run(
        [os.environ.get("PYTHON", "/usr/bin/python3"), "-m", "pyflakes", *files],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_end_of_a_run_writes_the_report_and_survives_a_broken_one(
    sample_run, tmp_path, capsys
):
    from runner.reporting import write_run_reports

    report, paths = write_run_reports(sample_run)
    assert paths and all(p.is_file() for p in paths.values())
    assert report["summary"]["verdict"] == "not conformant"
    assert "report:" in capsys.readouterr().out
    broken = write_run(tmp_path / "broken", [record(index=0)])
    (broken / "run.json").write_text("{ not json")
    assert write_run_reports(broken) is None
    assert "the report could not be written" in capsys.readouterr().err


def test_a_case_that_ended_its_job_gets_a_replay_command():
    crashed = dict(
        record(index=2, ranks=3),
        outcome="crash",
        replay=None,
        message="this case ended the job",
    )
    command = results.replay_command(crashed)
    assert command.startswith("./ordo replay --vendor mpich --ranks 3 --case '{")
    assert json.loads(command.split("--case ", 1)[1].strip("'")) == crashed["case"]


def test_an_erroneous_case_that_ended_its_job_is_replayed_at_detect():
    crashed = dict(
        record(index=2, ranks=3),
        outcome="crash",
        replay=None,
        level="DETECT",
        message="this case ended the job",
    )
    command = results.replay_command(crashed)
    assert command.startswith(
        "./ordo replay --vendor mpich --ranks 3 --level DETECT --case '{"
    )
    assert json.loads(command.split("--case ", 1)[1].strip("'")) == crashed["case"]


def test_a_missing_debian_package_is_named_in_one_line(sample_run, tmp_path):
    (tmp_path / "jinja2.py").write_text('raise ImportError("hidden for this test")\n')
    p = subprocess.run(
        [ORDO, "report", str(sample_run)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(tmp_path)),
    )
    assert p.returncode == 2
    assert (
        p.stderr.strip()
        == "ordo: the python module 'jinja2' is missing: install it with: "
        "sudo apt-get install -y python3-jinja2"
    )


def test_a_record_the_schema_rejects_becomes_corrupt_and_the_rest_is_kept(tmp_path):
    bad_case = record(index=1, count=-1)
    out = write_run(tmp_path / "r", [record(index=0), bad_case, record(index=2)])
    report = results.build(out)
    assert [r["outcome"] for r in report["records"]] == ["pass", "corrupt", "pass"]
    assert (
        "journal line 2 is not a check record (case" in report["records"][1]["message"]
    )
    # the line's own text, read back from the journal by its number
    line = (out / "journal.jsonl").read_text().splitlines()[1]
    assert line[:60] in report["records"][1]["message"]
    assert report["partial"] and "1 journal line(s)" in report["partial_reasons"][0]


def test_with_many_failures_every_clause_and_cell_still_links_to_one(monkeypatch):
    monkeypatch.setattr(html, "MAX_FAILURES_SHOWN", 5)
    recs = [record(index=i, outcome="fail", message="m") for i in range(50)]
    recs += [
        record(
            test="Allreduce.x",
            clause="allreduce.values",
            index=i,
            ranks=n,
            outcome="fail",
            message="m",
        )
        for n in (2, 3)
        for i in range(3)
    ]
    page = html.render(_report(recs))
    # 3 firsts (2 clauses, 3 cells) and the 2 earliest others
    assert "5 of 56 are shown" in page
    parser = _Links()
    parser.feed(page)
    assert not [link for link in parser.links if link not in parser.ids]
    assert (
        'href="#clause-allreduce.values"' in page and page.count('class="failure"') == 5
    )


def test_a_clause_renamed_since_the_run_is_described_from_the_runs_commit(tmp_path):
    commit = (  # its catalogue still has reduce.noncommutative-order
        "7e18537c0920c7f322f3f1f01ecaa76bb436d60f"
    )
    if subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}:spec/clauses.json"]
    ).returncode:
        pytest.skip("the commit is not in this clone (shallow?)")
    run = run_json(git={"commit": commit, "dirty": False})
    out = write_run(
        tmp_path / "r", [record(index=0, clause="reduce.noncommutative-order")], run=run
    )
    report = results.build(out)
    assert (
        report["spec"]["clauses"]["reduce.noncommutative-order"]["section"] == "6.9.5"
    )
    assert commit in report["spec"]["source"]


# ---- the coverage matrix of the crossed case space ----------------------------


def _crossing_report():
    """Three dimensions (the real check has eight): form x datatype x comm at 2 and 4
    ranks."""
    dims = [
        {"name": "form", "values": ["blocking", "persistent"]},
        {"name": "datatype", "values": ["basic", "struct-padded"]},
        {"name": "comm", "values": ["world", "inter-halves"]},
    ]

    def space(n, invalid):
        return {
            "strength": 2,
            "processes": n,
            "dimensions": dims,
            "cases": 2,
            "valid_calls": 4,
            "valid_tuples": 8,
            "covered_tuples": 8,
            "unavailable_calls": 4,
            "invalid": invalid,
            "unavailable": [
                {
                    "values": {"form": "persistent", "datatype": "basic"},
                    "reason": "MPI_Reduce_init is not provided by this library",
                }
            ],
        }

    no_inter = [
        {
            "values": {
                "comm": "inter-halves",
                "form": f,
            },  # keys in any order (run.json sorts them)
            "reason": (
                "the communicator shape inter-halves does not exist at this number of"
                " processes"
            ),
        }
        for f in ("blocking", "persistent")
    ]
    spaces = {"2": space(2, no_inter), "4": space(4, [])}
    recs = []
    for n in (2, 4):
        for i, (dt, comm, outcome) in enumerate(
            [("basic", "world", "pass"), ("struct-padded", "world", "fail")]
            + ([("struct-padded", "inter-halves", "pass")] if n == 4 else [])
        ):
            r = record(
                test="Crossing."
                "every_valid_pair_of_values_of_the_case_dimensions_is_checked",
                clause="crossing.reduce-family",
                index=i,
                ranks=n,
                outcome=outcome,
                message="wrong" if outcome == "fail" else "",
            )
            r["dimensions"] = {"form": "blocking", "datatype": dt, "comm": comm}
            recs.append(r)
    return _report(recs, crossing=spaces)


def test_the_coverage_matrix_counts_cases_outcomes_per_pair_and_why_one_did_not_run():
    from reports import crossing

    report = _crossing_report()
    assert not results.schema_errors(report), results.schema_errors(report)
    ctx = crossing.context(report)
    assert [(m["a"], m["b"]) for m in ctx["matrices"]] == [
        ("form", "datatype"),
        ("form", "comm"),
        ("datatype", "comm"),
    ]
    cell = {
        (m["a"], m["b"], c["a"], c["b"]): c
        for m in ctx["matrices"]
        for row in m["rows"]
        for c in row["cells"]
    }
    # blocking x struct-padded: 3 cases (2 ranks: 1, 4 ranks: 2), 2 of them failed.
    c = cell[("form", "datatype", "blocking", "struct-padded")]
    assert (c["status"], c["total"], c["bad"], c["worst"]) == ("ran", 3, 2, "fail")
    assert "3 cases" in c["title"] and "2 fail" in c["title"]
    # persistent x basic: only calls the library lacks hold it.
    c = cell[("form", "datatype", "persistent", "basic")]
    assert (c["status"], c["reason"]) == (
        "unavailable",
        "MPI_Reduce_init is not provided by this library",
    )
    # blocking x inter-halves ran at 4 ranks; invalid only at 2: it ran, and that is
    # what counts.
    assert cell[("form", "comm", "blocking", "inter-halves")]["status"] == "ran"
    # persistent x struct-padded: valid, available, held by no case: a gap the report
    # names.
    assert (
        cell[("form", "datatype", "persistent", "struct-padded")]["status"] == "missing"
    )
    assert "form=persistent x datatype=struct-padded" in ctx["gaps"]
    # persistent x inter-halves: invalid at 2 ranks, nothing at 4 ranks: listed with its
    # reason.
    c = cell[("form", "comm", "persistent", "inter-halves")]
    assert (
        c["status"] == "invalid"
        and "at 2 processes: the communicator shape" in c["reason"]
    )
    assert (
        ctx["invalid"][0]["reason"].startswith("the communicator shape inter-halves")
        and ctx["invalid"][0]["count"] == 2
    )
    # Per rank count: the pairs held by the cases that ran (skips excluded).
    fig = {f["ranks"]: f for f in ctx["figures"]}
    assert fig[2]["cases"] == 2 and fig[2]["ran"] == 5 and fig[4]["ran"] == 7
    assert fig[4]["unavailable"] == 1 and fig[2]["invalid"] == 2


def test_the_html_report_draws_the_coverage_matrix_with_its_reasons():
    page = html.render(_crossing_report())
    assert 'id="coverage"' in page and 'href="#coverage"' in page
    assert "<h3>form &times; datatype</h3>" in page
    assert (
        'title="form=blocking x datatype=struct-padded: 3 cases, 2 fail, 1 pass"'
        in page
    )
    assert "MPI_Reduce_init is not provided by this library" in page
    assert "valid pairs held by no case of this run" in page
    assert 'class="heat c-invalid"' in page and 'class="heat c-unavailable"' in page
    # A run without the crossing check has no such section.
    assert 'id="coverage"' not in html.render(_report(sample_records()))


def _variant_sweep_report():
    """A sweep: the default variant's space and records (_crossing_report) and a
    variant's own covering array over what it selects (allreduce, blocking, intra):
    its space names its scope and only the routine and comm values in it."""
    report = _crossing_report()
    dims = [
        {"name": "routine", "values": ["allreduce"]},
        {"name": "datatype", "values": ["basic", "struct-padded"]},
        {"name": "comm", "values": ["world"]},
    ]

    def space(n, cases, valid, covered):
        return {
            "strength": 2,
            "processes": n,
            "dimensions": dims,
            "cases": cases,
            "valid_calls": 10,
            "valid_tuples": valid,
            "covered_tuples": covered,
            "unavailable_calls": 0,
            "scope": "allreduce:blocking:intra",
            "invalid": [],
            "unavailable": [],
        }

    variant = "mpich.allreduce.intra.nb"
    report["run"]["crossing_variants"] = {
        variant: {"2": space(2, 2, 5, 5), "4": space(4, 1, 5, 5)}
    }
    report["run"]["variants"] = ["default", variant]
    for n, dts in ((2, ("basic", "struct-padded")), (4, ("basic",))):
        for i, dt in enumerate(dts):
            r = record(
                test="Crossing."
                "every_valid_pair_of_values_of_the_case_dimensions_is_checked",
                clause="crossing.reduce-family",
                index=i,
                ranks=n,
                variant=variant,
            )
            r["dimensions"] = {"routine": "allreduce", "datatype": dt, "comm": "world"}
            report["records"].append(r)
    return report


def test_a_variant_sweep_gives_each_variant_its_own_coverage_figures_and_matrix():
    from reports import crossing

    report = _variant_sweep_report()
    assert not results.schema_errors(report), results.schema_errors(report)
    ctx = crossing.context(report)
    # The default variant's view: its own records only, as in a run of it alone.
    alone = crossing.context(_crossing_report())
    assert ctx["main"] and ctx["figures"] == alone["figures"]
    assert ctx["matrices"] == alone["matrices"]
    # The variant's view: its records against its own space.
    [v] = ctx["variants"]
    assert v["variant"] == "mpich.allreduce.intra.nb"
    assert v["scope"] == "allreduce:blocking:intra"
    assert v["dimensions"] == ["routine", "datatype", "comm"]
    fig = {f["ranks"]: f for f in v["figures"]}
    # 2 ranks: both datatypes ran (3 pairs of 2 records: 5 distinct); 4 ranks: one.
    assert (fig[2]["cases"], fig[2]["valid"], fig[2]["ran"]) == (2, 5, 5)
    assert (fig[4]["cases"], fig[4]["ran"]) == (1, 3)
    assert v["gaps"] == []  # struct-padded ran at 2 ranks: no valid pair unheld
    rows = {(f["variant"], f["ranks"]): f for f in ctx["per_variant"]}
    assert set(rows) == {
        ("default", 2),
        ("default", 4),
        ("mpich.allreduce.intra.nb", 2),
        ("mpich.allreduce.intra.nb", 4),
    }
    assert rows[("mpich.allreduce.intra.nb", 4)]["percent_ran"] == 60.0
    assert rows[("default", 2)]["scope"] == ""


def test_the_reports_show_the_coverage_per_variant():
    report = _variant_sweep_report()
    page = html.render(report)
    assert 'id="coverage-mpich-allreduce-intra-nb"' in page
    assert 'href="#coverage-mpich-allreduce-intra-nb"' in page
    assert "(allreduce:blocking:intra)" in page
    assert page.count("<h3>form &times; datatype</h3>") == 1  # the default's matrix
    assert page.count("<h3>routine &times; datatype</h3>") == 1  # the variant's
    md = markdown.render(report)
    assert "Crossing coverage per variant" in md
    line = next(x for x in md.splitlines() if "mpich.allreduce.intra.nb" in x)
    assert "`allreduce:blocking:intra`" in line and "3 of 5 (60.0%) at 4" in line
    # A run of one variant keeps its one matrix and no table per variant.
    alone = _crossing_report()
    assert "coverage-" not in html.render(alone)
    assert "Crossing coverage per variant" not in markdown.render(alone)


def test_the_runner_keeps_each_variants_space_and_prints_its_figure(tmp_path, capsys):
    from types import SimpleNamespace

    from runner import run as runner

    figure = (
        "ordo crossing: strength 2 at 3 processes: 12 cases hold 300 of 300 valid pairs"
        " (100.0%) that this library can run, from 5000 valid calls, in the selection"
        " allreduce:blocking:intra"
    )
    space = {"strength": 2, "processes": 3, "scope": "allreduce:blocking:intra"}
    ctx = SimpleNamespace(run={})
    for vname in ("default", "mpich.allreduce.intra.nb"):
        logdir = tmp_path / vname
        logdir.mkdir()
        (logdir / f"{runner.SWEEP_EXECUTABLE}-3ranks.log").write_text(
            f"{figure}\nordo crossing-space: {json.dumps(dict(space, v=vname))}\n"
        )
        rc = SimpleNamespace(logdir=logdir, n=3, vname=vname)
        runner.report_crossing(ctx, rc, runner.SWEEP_EXECUTABLE)
    assert ctx.run["crossing"]["3"]["v"] == "default"
    assert ctx.run["crossing_variants"]["mpich.allreduce.intra.nb"]["3"]["v"] == (
        "mpich.allreduce.intra.nb"
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("      strength 2 at 3 processes: 12 cases hold 300 of")
    assert out[1].startswith("      [mpich.allreduce.intra.nb] strength 2 at 3 proc")


def test_the_node_map_rows_follow_the_rank_count_as_a_number():
    maps = {str(n): {"node_map": [list(range(n))]} for n in (10, 4, 8)}
    page = html.render(_report(sample_records(), node_maps=maps))
    rows = [page.index(f'<td class="num">{n}</td><td><code>') for n in (4, 8, 10)]
    assert rows == sorted(rows)


# ---- the language bindings ----------------------------------------------------------


def test_the_summary_counts_checks_per_binding_and_the_views_show_the_table():
    recs = sample_records() + [
        record(test="Fortran.x", index=1, binding="f08"),
        record(
            test="Fortran.x",
            index=2,
            binding="f08",
            outcome="fail",
            message="observed 2",
        ),
        record(
            test="Fortran.x",
            index=3,
            binding="f90",
            outcome="skip",
            message="no mpi module",
        ),
    ]
    report = _report(recs)
    assert not results.schema_errors(report), results.schema_errors(report)
    bindings = report["summary"]["bindings"]
    assert list(bindings) == [
        "c",
        "f08",
        "f90",
    ]  # records without the field are the C binding's
    assert bindings["f08"] == {"total": 2, "outcomes": {"pass": 1, "fail": 1}}
    assert bindings["f90"]["outcomes"] == {"skip": 1}
    assert bindings["c"]["total"] == sum(1 for r in sample_records() if r.get("case"))
    md = markdown.render(report)
    assert "| Fortran mpi\\_f08 | 2 | 1 | 1 | 0 | 0 | 0 | 0 | 0 |" in md
    assert "| Fortran mpi | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |" in md
    page = html.render(report)
    assert 'id="bindings"' in page and "Fortran mpi_f08" in page
    assert "binding=f08" in results.case_text(recs[-3]["case"])
    assert "binding" not in results.case_text(recs[0]["case"])


def test_a_run_of_the_c_binding_alone_shows_no_binding_table():
    report = _report(sample_records())
    assert "binding |" not in markdown.render(report)
    assert 'id="bindings"' not in html.render(report)


def _property_summary(ranks, datatype_counts, cases, passed=True):
    r = record(
        test="Properties.reduce_family_agrees_with_the_reference",
        ranks=ranks,
        outcome="pass",
        level="INFO",
        clause="property.reduce-family",
    )
    r["id"] += "#summary"
    r["property"] = {
        "rc_params": "seed=7 max_success=2000",
        "seed": "7",
        "cases": cases,
        "shrink_steps": 0,
        "passed": passed,
        "seconds": 2.5,
        "distribution": [],
        "labels": {"datatype": datatype_counts, "count": {"1": cases}},
    }
    return r


def test_the_property_phase_shows_its_cases_by_datatype_layout_and_rank_count():
    recs = sample_records() + [
        _property_summary(2, {"interleaved elements": 11, "large element": 5}, 30),
        _property_summary(3, {"large element": 4, "padded": 9}, 40, passed=False),
    ]
    report = _report(recs)
    page = html.render(report)
    assert '<a href="#properties">Properties</a>' in page
    section = page[page.index('<section id="properties">') :]
    section = section[: section.index("</section>")]
    assert "the cases drawn (70)" in section
    # one row per layout, a column per rank count and the sum over both runs
    row = re.search(r"<tr><td>large element</td>(.*?)</tr>", section).group(1)
    assert re.findall(r">(\d+)<", row) == ["5", "4", "9"]
    row = re.search(r"<tr><td>interleaved elements</td>(.*?)</tr>", section).group(1)
    assert re.findall(r">(\d+)<", row) == ["11", "0", "11"]
    # the run that ended with a failure is marked
    assert 'class="num h-fail">40<' in section
    md = markdown.render(report)
    assert "## Property phase" in md
    assert "- default at 3 ranks: 40 cases, seed 7, ended with a failure" in md
    assert "- interleaved elements: 11" in md and "- large element: 9" in md


def test_a_run_without_a_property_phase_has_no_property_section():
    report = _report(sample_records())
    assert 'id="properties"' not in html.render(report)
    assert "## Property phase" not in markdown.render(report)


def test_the_report_write_returns_is_the_one_its_file_holds(sample_run):
    """results.write returns the report it built, not a second copy read back:
    it must be the report the file gives (bytes: one json.dumps of the stored
    form, written a batch of records at a time)."""
    report, path = results.write(sample_run)
    assert report == results.load(path)
    stored = json.dumps(
        results.encode(report), separators=(",", ":"), ensure_ascii=False
    )
    assert gzip.decompress(path.read_bytes()) == (stored + "\n").encode()


def test_a_report_of_more_records_than_a_batch_is_written_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "_DUMP_BATCH", 2)
    recs = [record(index=i, ranks=1 + i % 3) for i in range(7)]
    report, path = results.write(write_run(tmp_path / "r", recs))
    assert len(results.load(path)["records"]) == 7 == len(report["records"])
    assert report == results.load(path)

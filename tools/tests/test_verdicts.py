"""Verdicts that mean what they say (issue #13): skips and ordo's own code are
not the library's conformance, and the headline says what was not tested."""
import json

import pytest

from conftest import record, run_json, write_run
from reports import html, markdown, results, waivers


def skip(index, message, clause="collective.large-count", ranks=2):
    return record(
        index=index, outcome="skip", clause=clause, message=message, ranks=ranks
    )


def test_a_must_clause_whose_checks_all_skipped_is_not_tested_the_headline_says_why():
    recs = [record(index=i) for i in range(3)] + [
        skip(
            10,
            "MPI_Reduce_c is not provided by this library (MPI-4 large-count bindings)",
        ),
        skip(
            11,
            (
                "MPI_Allreduce_c is not provided by this library (MPI-4 large-count"
                " bindings)"
            ),
        ),
    ]
    s = results.summarize(recs, partial=False)
    assert s["verdict"] == "conformant"
    assert (
        s["headline"]
        == "conformant; 1 MUST clause not tested: MPI-4 large-count bindings absent"
    )
    [gap] = s["not_tested"]
    assert gap == {
        "clause": "collective.large-count",
        "level": "MUST",
        "status": "not tested",
        "checks": 2,
        "untested": 2,
        "reasons": [{"reason": "MPI-4 large-count bindings absent", "checks": 2}],
    }


def test_a_clause_skipped_only_where_a_shape_needs_more_ranks_is_still_tested():
    recs = [
        record(index=0, clause="op.minloc-maxloc-pair-types"),
        skip(
            1,
            "communicator shape odd-even needs more ranks",
            clause="op.minloc-maxloc-pair-types",
        ),
    ]
    s = results.summarize(recs, partial=False)
    assert s["not_tested"] == [] and s["headline"] == "conformant"


def test_a_feature_the_library_lacks_leaves_a_clause_partly_tested():
    recs = [
        record(index=0, clause="collective.nonblocking-persistent"),
        skip(
            1,
            (
                "MPI_Reduce_init is not provided by this library (MPI-4 persistent"
                " collectives)"
            ),
            clause="collective.nonblocking-persistent",
        ),
    ]
    s = results.summarize(recs, partial=False)
    assert s["not_tested"][0]["status"] == "partly tested"
    assert (
        s["headline"]
        == "conformant; 1 MUST clause partly tested: MPI-4 persistent collectives"
        " absent"
    )


def test_checks_of_ordos_own_implementation_are_not_credited_to_the_library():
    own = [
        dict(
            record(index=i, clause="reduce-locals.assignments", outcome=o),
            credited_to="ordo",
        )
        for i, o in enumerate(["pass", "fail"])
    ]
    s = results.summarize([record(index=9)] + own, partial=False)
    # ordo's failing check is not the library's failure
    assert s["verdict"] == "conformant"
    assert s["levels"]["MUST"]["total"] == 1
    assert s["ordo_own"]["total"] == 2 and s["ordo_own"]["clauses"] == [
        "reduce-locals.assignments"
    ]
    assert s["not_tested"][0]["status"] == "not tested"
    assert "the library has no MPIX_Reduce_locals" in s["headline"]


def test_waiver_usage_names_stale_out_of_scope_and_not_applied_waivers():
    ws = [
        {
            "id": "used",
            "test": "Reduce.*",
            "expires": "2030-01-01",
            "library_versions": "4.0.2",
        },
        {
            "id": "other-release",
            "test": "Scan.*",
            "expires": "2030-01-01",
            "library_versions": "4.1",
        },
        {"id": "idle", "test": "Exscan.*", "expires": "2030-01-01"},
        {
            "id": "big-runs",
            "test": "Exscan.*",
            "ranks": {"min": 8},
            "expires": "2030-01-01",
        },
        {
            "id": "a-variant",
            "test": "Exscan.*",
            "variant": "mpich.*",
            "expires": "2030-01-01",
        },
    ]
    recs = [
        record(index=0, outcome="waived", waiver="used"),
        record(test="Scan.x", index=1, outcome="fail"),
    ]
    u = waivers.usage(
        recs,
        ws,
        today="2026-11-23",
        library_version="4.0.2",
        variants=["default"],
        ranks=[1, 2, 3, 4],
    )
    assert u["used"] == {"used": 1}
    assert u["not_applied"] == [
        {"id": "other-release", "why": "it is for 4.1, not 4.0.2", "checks": 1}
    ]
    assert u["stale"] == ["idle"] and u["out_of_scope"] == ["big-runs", "a-variant"]


def test_a_case_held_back_by_a_fatal_waiver_counts_for_that_waiver_not_as_stale():
    ws = [
        {
            "id": "known-hang",
            "test": "Exscan.*",
            "outcome": "timeout",
            "expires": "2030-01-01",
        },
        {"id": "idle", "test": "Exscan.*", "expires": "2030-01-01"},
    ]
    avoided = record(test="Exscan.x", index=0, outcome="skip")
    avoided["message"] = (
        "not run (--ordo-avoid-known-fatal): the waiver known-hang names a crash or"
        " hang of this library here"
    )
    other_skip = dict(
        record(test="Exscan.y", index=1, outcome="skip"),
        message="MPI_Exscan_c is not provided",
    )
    u = waivers.usage(
        [avoided, other_skip],
        ws,
        today="2026-11-23",
        library_version="4.0.2",
        variants=["default"],
        ranks=[1, 2],
    )
    assert u["avoided"] == {"known-hang": 1}
    assert u["used"] == {}
    assert u["stale"] == ["idle"]


def test_a_skip_reason_keeps_the_digits_of_names_and_groups_the_counts_that_vary():
    # The report groups skips by reason: a count varies per case, a section
    # number or a waiver id is part of the reason and reads as written.
    assert (
        results.skip_reason(
            "the library has no MPI_Type_get_value_index (MPI-4.1 6.9.4)"
        )
        == "the library has no MPI_Type_get_value_index (MPI-4.1 6.9.4)"
    )
    assert (
        results.skip_reason(
            "not run: the waiver mpich-6351-intercomm-reduce-null-sendbuf-timeout names"
            " a hang"
        )
        == "not run: the waiver mpich-6351-intercomm-reduce-null-sendbuf-timeout names"
        " a hang"
    )
    assert (
        results.skip_reason("shape needs 3 ranks, has 2")
        == results.skip_reason("shape needs 5 ranks, has 4")
        == "shape needs N ranks, has N"
    )


def test_the_headline_says_once_a_reason_that_differs_only_in_the_memory_a_case_needs():
    """The huge cases of each routine need their own amount of memory: the
    headline names the opt-in once, with the range; the clause keeps each."""
    recs = [record(index=0)] + [
        skip(
            i,
            f"opt-in: ./ordo run --huge (needs about {gib} GiB per process)",
            clause="collective.huge-count",
        )
        for i, gib in enumerate(["8.0", "6.3", "7.0"], start=1)
    ]
    s = results.summarize(recs, partial=False)
    assert (
        s["headline"] == "conformant; 1 MUST clause not tested: "
        "opt-in: ./ordo run --huge (needs about 6.3-8.0 GiB per process)"
    )
    [gap] = s["not_tested"]
    assert len(gap["reasons"]) == 3


def test_a_reason_that_names_a_test_id_is_said_as_it_is():
    """A held-back reason names the last hung case by its id (Test#N): the '#'
    is the reason's own, not a place for an amount."""
    why = (
        "not run (it keeps hanging): the last 3 cases of MPI_Scan that ran in this"
        " run hung (the last: Scan.x#7 at 4 ranks)"
    )
    ran = record(index=0)
    recs = [ran] + [
        skip(i, why.replace("#7", f"#{i}"), clause=ran["clause"]) for i in (1, 2)
    ]
    s = results.summarize(recs, partial=False)
    said = results.skip_reason(why)
    assert s["headline"] == f"conformant; 1 MUST clause partly tested: {said}"
    assert said.count("not run") == 1 and said.endswith(
        "(the last: Scan.x#N at N ranks)"
    )


# ---- issue #38: the verdict covers every level; known-fatal cases are counted
# --------------------------


def known_fatal_skip(index, waiver, level="MUST", test="Exscan.x"):
    """A case the harness held back because a crash or timeout waiver names it
    (--ordo-avoid-known-fatal)."""
    r = record(test=test, index=index, outcome="skip", level=level)
    r["message"] = (
        f"not run (--ordo-avoid-known-fatal): the waiver {waiver} names a crash or hang"
        " of this library here"
    )
    return r


def test_should_and_detect_failures_are_in_the_headline_by_level():
    recs = [
        record(index=0),
        record(index=1, level="SHOULD", outcome="fail"),
        record(index=2, level="SHOULD", outcome="timeout"),
        record(index=3, level="DETECT", outcome="crash"),
    ]
    s = results.summarize(recs, partial=False)
    assert s["headline"] == "conformant at MUST; SHOULD: 2 failing; DETECT: 1 failing"
    assert s["verdict"] == "conformant"  # the verdict at MUST
    assert s["findings"] == {"SHOULD": 2, "DETECT": 1}
    # A MUST failure: the count of each level.
    s = results.summarize(recs + [record(index=4, outcome="fail")], partial=False)
    assert (
        s["headline"]
        == "not conformant; MUST: 1 failing; SHOULD: 2 failing; DETECT: 1 failing"
    )


def test_a_run_without_a_must_check_that_ran_is_never_conformant():
    detect_only = [
        dict(record(index=i, level="DETECT"), detect="reported") for i in range(3)
    ]
    s = results.summarize(detect_only, partial=False)  # e.g. ordo run --filter detect
    assert (
        s["verdict"] == "nothing checked at MUST"
        and s["headline"] == "nothing checked at MUST"
    )
    assert s["findings"] == {}
    # Every MUST check skipped: nothing ran at MUST either.
    s = results.summarize(
        [skip(0, "communicator shape x needs more ranks")] + detect_only, partial=False
    )
    assert (
        s["verdict"] == "nothing checked at MUST"
        and s["levels"]["MUST"]["verdict"] == "not checked"
    )
    s = results.summarize(
        detect_only + [record(index=5, level="DETECT", outcome="crash")], partial=False
    )
    assert s["headline"] == "nothing checked at MUST; DETECT: 1 failing"


def test_ordos_own_failures_are_named_by_the_headline_but_not_charged_to_the_library():
    own = dict(
        record(index=1, clause="reduce-locals.assignments", outcome="fail"),
        credited_to="ordo",
    )
    s = results.summarize([record(index=0), own], partial=False)
    assert s["headline"].startswith("conformant; ordo's own code: 1 failing")
    assert s["verdict"] == "conformant" and s["findings"] == {"ordo": 1}


@pytest.mark.parametrize(
    "records, code, verdict",
    [
        (
            [record(index=0), record(index=1, level="SHOULD", outcome="fail")],
            1,
            "conformant at MUST; SHOULD: 1 failing",
        ),
        (
            [dict(record(index=0, level="DETECT"), detect="reported")],
            0,
            "nothing checked at MUST",
        ),
        (
            [
                record(index=0),
                record(index=1, level="DETECT", outcome="waived", waiver="w"),
            ],
            0,
            "conformant; DETECT: 1 waived",
        ),
        (
            [
                record(index=0),
                dict(record(index=1, outcome="crash"), credited_to="ordo"),
            ],
            1,
            "conformant; ordo's own code",
        ),
        (
            [record(index=0), record(index=1, level="INFO", outcome="timeout")],
            1,
            "conformant at MUST; INFO: 1 failing",
        ),
        ([record(index=0, outcome="fail")], 1, "not conformant; MUST: 1 failing"),
    ],
)
def test_the_exit_code_of_ordo_run_and_its_headline_agree(
    tmp_path, capsys, records, code, verdict
):
    """The end of `ordo run` (runner/run.py finish): exit 1 exactly when the headline
    names a failing check, whether the report was written or (run.json unreadable) the
    journal is read for the code alone.
    """
    from runner.run import finish

    out = write_run(tmp_path / "run", records)
    run = json.loads((out / "run.json").read_text())
    assert finish(out, out / "journal.jsonl", "mpich", run) == code
    printed = [
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("verdict: ")
    ]
    assert printed and printed[0][len("verdict: ") :].startswith(verdict)
    assert (code == 1) == (" failing" in printed[0])
    # no report: the code from the records, by the same rule
    (out / "run.json").write_text("{ not json")
    (out / "results.json.gz").unlink()
    assert finish(out, out / "journal.jsonl", "mpich", run) == code


@pytest.mark.parametrize("keep", [False, True])
def test_a_finished_run_deletes_its_cache_unless_asked_to_keep_it(tmp_path, keep):
    """The cache/ folder (expected-result digests, covering arrays: 12.7 MB of the
    default MPICH run) is read only by later launches of the same run; a finished run is
    never resumed, so its end deletes it, and the report is still written. --keep-cache
    (finish's keep_cache) keeps it."""
    from runner.run import finish

    out = write_run(tmp_path / "run", [record(index=0)])
    (out / "cache").mkdir()
    (out / "cache" / "expect-0123456789abcdef-p2-r0.bin").write_bytes(bytes(64))
    run = json.loads((out / "run.json").read_text())
    assert finish(out, out / "journal.jsonl", "mpich", run, keep_cache=keep) == 0
    assert (out / "cache").is_dir() == keep
    assert (out / "results.json.gz").is_file() and (out / "journal.jsonl.gz").is_file()
    if keep:
        assert (
            out / "cache" / "expect-0123456789abcdef-p2-r0.bin"
        ).read_bytes() == bytes(64)


def test_a_case_held_back_by_a_crash_or_timeout_waiver_makes_the_verdict_with_waivers():
    s = results.summarize(
        [record(index=0), known_fatal_skip(1, "known-hang")], partial=False
    )
    assert s["verdict"] == "conformant with waivers"
    assert (
        s["levels"]["MUST"]["verdict"] == "pass with waivers"
        and s["levels"]["MUST"]["known_fatal"] == 1
    )
    assert s["known_fatal"] == {
        "ran": False,
        "not_run": 1,
        "by_waiver": {"known-hang": 1},
    }
    # The headline says how much "with waivers" stands for at MUST too.
    assert (
        s["headline"]
        == "conformant with waivers; MUST: 1 not run (known crash or hang)"
    )
    # At DETECT: the headline names them there.
    s = results.summarize(
        [record(index=0), known_fatal_skip(1, "known-crash", level="DETECT")],
        partial=False,
    )
    assert s["verdict"] == "conformant" and s["findings"] == {}
    assert s["headline"] == "conformant; DETECT: 1 not run (known crash or hang)"
    # Every MUST case held back: nothing ran there, whatever the waiver says.
    s = results.summarize([known_fatal_skip(0, "known-hang")], partial=False)
    assert (
        s["verdict"] == "nothing checked at MUST"
        and s["levels"]["MUST"]["verdict"] == "not checked"
    )


def _adapter_with_waivers(folder, ws):
    """An adapter file whose waivers file holds ws (the report reads the waivers of the
    run's adapter)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "waivers.json").write_text(json.dumps({"waivers": ws}))
    (folder / "adapter.json").write_text(
        json.dumps({"name": "mpich", "waivers": "waivers.json"})
    )
    return str(folder / "adapter.json")


WAIVERS = [
    {
        "id": "hang-known",
        "test": "Exscan.*",
        "outcome": "timeout",
        "expires": "2030-01-01",
        "reason": "hangs",
        "upstream": "https://example.org/1",
    },
    {
        "id": "crash-both",
        "test": "Scan.*",
        "outcome": "crash",
        "expires": "2030-01-01",
        "reason": "crashes",
        "upstream": "https://example.org/2",
    },
    {
        "id": "idle",
        "test": "Allreduce.*",
        "expires": "2030-01-01",
        "reason": "r",
        "upstream": "u",
    },
]


def _held_back_run(tmp_path, settings):
    recs = [
        record(index=0),
        known_fatal_skip(1, "hang-known"),
        known_fatal_skip(2, "hang-known"),
        known_fatal_skip(3, "crash-both", test="Scan.y"),
        record(
            test="Scan.y",
            index=4,
            outcome="waived",
            waiver="crash-both",
            message=(
                "this case ended the job | waived until 2030-01-01: crashes"
                " (https://example.org/2)"
            ),
        ),
    ]
    extra = {"adapter": _adapter_with_waivers(tmp_path / "adapter", WAIVERS)}
    if settings is not None:
        extra["settings"] = settings
    return results.build(write_run(tmp_path / "run", recs, run=run_json(**extra)))


def test_a_waiver_used_only_by_held_back_cases_is_not_rechecked_views_count_both_uses(
    tmp_path,
):
    report = _held_back_run(tmp_path, {"run_known_fatal": False})
    assert report["summary"]["verdict"] == "conformant with waivers"
    w = report["waivers"]
    assert w["used"] == {"crash-both": 1} and w["avoided"] == {
        "hang-known": 2,
        "crash-both": 1,
    }
    assert w["stale"] == ["idle"] and w["not_rechecked"] == ["hang-known"]
    assert report["summary"]["verdict"] == "conformant with waivers"
    page = html.render(report)
    assert (
        "<code>hang-known</code>: 0 checks waived after running, 2 not run (known crash"
        " or hang)" in page
    )
    assert (
        "<code>crash-both</code>: 1 check waived after running, 1 not run (known crash"
        " or hang)" in page
    )
    not_rechecked = page[page.index('id="not-rechecked"') :]
    assert "<code>hang-known</code>" in not_rechecked[: not_rechecked.index("</p>")]
    stale = page[page.index("Stale (this run") :]
    assert "hang-known" not in stale[: stale.index("</p>")]
    md = markdown.render(report)
    assert "- `hang-known`: 2 not run (known crash or hang), expires" in md
    assert (
        "- `crash-both`: 1 checks waived after running, 1 not run (known crash or"
        " hang), expires" in md
    )
    assert (
        "Not re-checked in this run" in md
        and "`hang-known`" in md.split("Not re-checked in this run")[1]
    )
    assert "Stale waivers (this run could have met them and did not): `idle`" in md


@pytest.mark.parametrize(
    "settings, said",
    [
        (
            {"run_known_fatal": False},
            "Known crashes and hangs were not run in this run: 3 cases",
        ),
        (
            {"run_known_fatal": True},
            "Known crashes and hangs were run in this run (--run-known-fatal)",
        ),
        (
            {},
            "Known crashes and hangs were run in this run",
        ),  # a run from before the option ran them
        (
            None,
            "Known crashes and hangs were not run in this run",
        ),  # no settings: the records say so
    ],
)
def test_the_report_says_whether_known_fatal_cases_ran(tmp_path, settings, said):
    report = _held_back_run(tmp_path, settings)
    assert said in html.render(report) and said in markdown.render(report)
    assert report["summary"]["known_fatal"]["ran"] == (settings or {}).get(
        "run_known_fatal", settings is not None
    )

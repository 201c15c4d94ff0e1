"""The record contract: every record Python makes (reports/records.py)
follows schema/record-1.schema.json, and so does every line a real run of the
C++ harness and of the property executable writes; `ordo compare --records`."""
import gzip
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from conftest import record  # noqa: E402
from reports import record_diff, records, waivers  # noqa: E402
from runner import properties, protocol  # noqa: E402
from runner.adapters import (  # noqa: E402
    build_dir_for,
    launch_env,
    launcher_prefix,
    load_adapter,
)
from runner.job import run_job  # noqa: E402
from runner.launch import job_command, ordo_flags  # noqa: E402

CASE = {
    "routine": "reduce",
    "op": "MPI_SUM",
    "datatype": "MPI_INT",
    "count": 3,
    "recvcounts": [],
    "root": 0,
    "comm": "world",
    "root_in_high_group": False,
    "in_place": False,
    "null_insignificant": True,
    "mode": "blocking",
    "seed": 1,
}
BEGUN = {
    "seq": 4,
    "id": "Reduce.x#3",
    "test": "Reduce.x",
    "clause": "reduce.values",
    "level": "MUST",
    "case": CASE,
    "routine": "MPI_Reduce",
}
HOW = {
    "ranks": 2,
    "vendor": "mpich",
    "variant": "default",
    "timed_out": False,
    "rc": 139,
    "tail": "a / b",
    "duration_s": 1.23456,
    "log": "/o/logs/x.log",
}
# A DETECT case (MPI_Reduce with sendbuf == recvbuf, erroneous at the root only) that
# overran: rank 0, the root, returned the error; rank 1 waits in the collective for it.
DETECT_BEGUN = dict(
    BEGUN, level="DETECT", clause="buffers.send-recv-aliasing", test="Detect.aliased"
)
DETECT_NOTES = {
    0: dict(
        DETECT_BEGUN,
        returned={
            "detect": "reported",
            "message": "MPI_Reduce returned error class 1: Invalid buffer",
        },
    ),
    1: dict(DETECT_BEGUN),
}


def made():
    """One record of each kind Python makes."""
    return {
        "case_died": records.case_died(BEGUN, **HOW),
        "case_timed_out": records.case_died(BEGUN, **dict(HOW, timed_out=True)),
        "detect_reported_while_others_waited": records.case_died(
            DETECT_BEGUN, **dict(HOW, timed_out=True, rc=124), notes=DETECT_NOTES
        ),
        "job_died": records.job_died("ordo_check_reduce", attempt=1, **HOW),
        "job_died_between_cases_after_a_failure": records.job_died(
            "ordo_check_reduce",
            attempt=1,
            last_case=dict(BEGUN, outcome="fail"),
            resumed_after=2,
            launch=1,
            family="ordo_check_reduce",
            **HOW,
        ),
        "job_died_before_its_first_case_cases_not_run": records.job_died(
            "ordo_sweep_checks",
            attempt=2,
            where=records.BEFORE_FIRST_CASE,
            resumed_after=4,
            last_case=dict(BEGUN, outcome="crash"),
            not_run={"after_seq": 4, "why": "twice"},
            **dict(HOW, rc=-6),
        ),
        "job_died_after_its_last_case": records.job_died(
            "ordo_check_reduce",
            attempt=0,
            where=records.AFTER_LAST_CASE,
            **dict(HOW, rc=1),
        ),
        "job_died_in_a_variant": records.job_died(
            "ordo_check_reduce", attempt=0, **dict(HOW, variant="v.a")
        ),
        "gave_up": records.gave_up(
            "ordo_check_reduce",
            ranks=2,
            vendor="mpich",
            variant="default",
            max_restarts=50,
        ),
        "corrupt_not_json": records.corrupt(7, '{"id": "cut', "is not JSON"),
        "corrupt_not_a_record": records.corrupt(
            8, '{"ranks": 3}', "is not a check record (x)", {"ranks": 3}
        ),
        "property_summary": records.property_summary(
            test=properties.PROPERTY_TEST,
            clause=properties.SUMMARY_CLAUSE,
            ranks=2,
            vendor="mpich",
            variant="default",
            seed=3,
            cases=4,
            bad=1,
            seconds=2.5,
            written_by="tools/properties.py",
        ),
    }


@pytest.mark.parametrize("kind", sorted(made()))
def test_every_record_python_makes_follows_the_record_schema(kind):
    record = made()[kind]
    assert records.schema_errors(record) == [], kind
    assert records.quick_problem(record) is None


def test_the_records_of_a_dead_job_say_what_happened():
    r = made()
    assert r["case_died"]["outcome"] == "crash" and r["case_died"]["id"] == "Reduce.x#3"
    assert "ended the job (exit code 139)" in r["case_died"]["message"]
    assert r["case_timed_out"]["outcome"] == "timeout"
    after = r["job_died_between_cases_after_a_failure"]
    assert after["id"] == "ordo_check_reduce@2ranks#job1" and after["case"] is None
    assert after["clause"] == "harness.job" and after["test"] == "ordo_check_reduce"
    assert after["job"]["last_case"] == {
        "seq": 4,
        "id": "Reduce.x#3",
        "test": "Reduce.x",
        "outcome": "fail",
    }
    assert (
        after["job"]["signal"] == "SIGSEGV" and after["job"]["where"] == "between_cases"
    )
    assert "after case 4 (Reduce.x#3, fail)" in after["message"]
    before = r["job_died_before_its_first_case_cases_not_run"]
    assert (
        before["job"]["signal"] == "SIGABRT"
        and before["job"]["not_run"]["after_seq"] == 4
    )
    assert "were not run: twice" in before["message"]
    assert records.not_run_reason(before).startswith(
        "ordo_sweep_checks at 2 ranks: its cases after case 4 "
    )
    assert records.not_run_reason(r["gave_up"]).startswith(
        "ordo_check_reduce at 2 ranks: its cases were not run"
    )
    assert (
        records.not_run_reason(after) is None
        and records.not_run_reason(r["case_died"]) is None
    )
    assert r["job_died"]["id"] == "ordo_check_reduce@2ranks#job1"
    assert r["job_died_in_a_variant"]["id"] == "ordo_check_reduce@2ranks#job0@v.a"
    assert r["case_died"]["duration_s"] == 1.235


def test_the_record_of_a_dead_case_keeps_the_bytes_of_its_note_which_waivers_read():
    """The harness's in-flight note has the case's bytes (count x type size):
    a crash or timeout waiver can then name a size threshold in bytes."""
    assert records.case_died(dict(BEGUN, bytes=12), **HOW)["bytes"] == 12
    # a type the reference does not model: none
    assert "bytes" not in records.case_died(BEGUN, **HOW)


def test_the_record_of_a_dead_case_keeps_the_size_of_its_communicator():
    """The harness adds the size of the case's communicator to the note once
    the communicator is built: a crash waiver can name a one-process
    communicator (comm_size 1) whatever the job's size."""
    assert records.case_died(dict(BEGUN, comm_size=1), **HOW)["comm_size"] == 1
    # died before its communicator was built
    assert "comm_size" not in records.case_died(BEGUN, **HOW)


def test_a_detect_case_overrun_while_others_wait_for_the_reporting_rank_is_reported():
    """The library returned the error where the call was erroneous; the other
    processes waiting in the collective for that process is not charged to it."""
    r = made()["detect_reported_while_others_waited"]
    assert r["outcome"] == "pass" and r["detect"] == "reported"
    assert r["message"].startswith(
        "reported on 1 of 2 ranks: MPI_Reduce returned error class 1"
    )
    assert "never returned from the call" in r["message"] and r["message"].endswith(
        ": 1"
    )
    how = dict(HOW, timed_out=True, rc=124)
    # A rank whose own arguments are not erroneous may return MPI_SUCCESS (MPICH 4.0.2's
    # reduce_scatter_gather at 3 processes: rank 1 returns, rank 2 waits for the root):
    # still reported, as the harness counts "reported on k of n ranks"; the message
    # names who did what.
    accepted = {
        **DETECT_NOTES,
        2: dict(DETECT_BEGUN, returned={"detect": "accepted", "message": ""}),
    }
    r3 = records.case_died(DETECT_BEGUN, **how, notes=accepted)
    assert r3["outcome"] == "pass" and r3["detect"] == "reported"
    assert (
        r3["message"].startswith("reported on 1 of 3 ranks")
        and "returned no error: 2" in r3["message"]
    )
    # Every rank still in the call, none reporting (or only accepting), or a crash: the
    # timeout (crash) stays.
    assert (
        records.case_died(
            DETECT_BEGUN, **how, notes={0: DETECT_BEGUN, 1: DETECT_BEGUN}
        )["outcome"]
        == "timeout"
    )
    only_accepted = {0: accepted[2], 1: DETECT_BEGUN}
    assert (
        records.case_died(DETECT_BEGUN, **how, notes=only_accepted)["outcome"]
        == "timeout"
    )
    assert (
        records.case_died(DETECT_BEGUN, **dict(HOW), notes=DETECT_NOTES)["outcome"]
        == "crash"
    )
    # All returned and reported, yet the job overran (after the call): not this rule.
    both = {0: DETECT_NOTES[0], 1: DETECT_NOTES[0]}
    assert records.case_died(DETECT_BEGUN, **how, notes=both)["outcome"] == "timeout"
    # A MUST case is never judged so.
    assert records.case_died(BEGUN, **how, notes=DETECT_NOTES)["outcome"] == "timeout"


def test_a_detect_case_ended_by_the_short_limit_after_a_returned_error_records_it():
    """The rank whose call returned the error gave the others the short limit
    (the harness's rule "reported"): the record carries the limit that ended
    the case, the soonest of the reporting ranks'; its message stays one text
    (the figures are in case_limit)."""
    how = dict(HOW, timed_out=True, rc=124)
    six = {
        "seconds": 6.0,
        "rule": "kind",
        "why": "max(10 s, ...); a DETECT case: at most 6 s",
    }
    short = {
        "seconds": 2.1,
        "rule": "reported",
        "why": "a process's call returned the error after 0.10 s; ...",
    }
    later = dict(short, seconds=2.4)
    begun = dict(DETECT_BEGUN, case_limit=six)
    notes = {
        0: dict(begun, returned=dict(DETECT_NOTES[0]["returned"], case_limit=later)),
        1: begun,
        2: dict(begun, returned=dict(DETECT_NOTES[0]["returned"], case_limit=short)),
    }
    r = records.case_died(begun, **how, notes=notes)
    assert r["outcome"] == "pass" and r["case_limit"] == short
    assert "ended after the short limit that follows a returned error" in r["message"]
    assert records.schema_errors(r) == []
    # No rank shortened it (an older harness, or the rest of the limit was shorter): the
    # case's own limit.
    plain = records.case_died(
        begun,
        **how,
        notes={0: dict(begun, returned=DETECT_NOTES[0]["returned"]), 1: begun},
    )
    assert plain["case_limit"] == six and "ended after its limit" in plain["message"]


def test_the_schema_rejects_what_is_not_a_record():
    bad = dict(made()["case_died"], outcome="maybe", ranks=0)
    errors = records.schema_errors(bad)
    assert any(e.startswith("outcome") for e in errors) and any(
        e.startswith("ranks") for e in errors
    )


def test_the_one_reader_reads_from_an_offset_and_marks_a_cut_line(tmp_path):
    j = tmp_path / "journal.jsonl"
    good = made()["case_died"]
    j.write_text(
        json.dumps(good) + "\n" + json.dumps(dict(good, id="second")) + "\n" + '{"cut'
    )
    all_ = records.read_journal(j)
    assert [r["outcome"] for r in all_] == ["crash", "crash", "corrupt"]
    assert [r["id"] for r in records.read_journal(j, len(json.dumps(good)) + 1)][
        :1
    ] == ["second"]
    checked = records.read_journal(j, check=True, vendor="mpich")
    assert "_line" in checked[0] and "_line" not in checked[2]
    assert records.read_journal(tmp_path / "none.jsonl") == []


def test_the_reader_shares_one_object_per_case_and_keeps_no_line_text(tmp_path):
    """A sweep's journal holds a million records of some tens of thousands of
    cases: records of one case share its object, and a checked record keeps its
    line's number, whose text journal_lines gives back."""
    good = made()["case_died"]
    other = dict(good, id="b", case=dict(good["case"]))
    third = dict(good, id="c", case=dict(good["case"], count=good["case"]["count"] + 1))
    lines = [json.dumps(x) for x in (good, other, third)]
    plain = tmp_path / "journal.jsonl"
    plain.write_text("\n".join(lines) + "\n")
    packed = tmp_path / "journal.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        read = records.read_journal(path)
        assert read[0]["case"] is read[1]["case"] and read[0]["case"] == good["case"]
        assert read[2]["case"] is not read[0]["case"]
        assert read[2]["case"]["count"] == good["case"]["count"] + 1
        after_first = records.read_journal(path, len(lines[0]) + 1)
        assert [r["id"] for r in after_first] == ["b", "c"]
        checked = records.read_journal(path, check=True, vendor="mpich")
        assert [r["_line"] for r in checked] == [1, 2, 3]
        assert records.journal_lines(path, [3, 1]) == {1: lines[0], 3: lines[2]}


# ---- ordo compare --records ------------------------------------------------------


def run_folder(path, recs):
    path.mkdir()
    (path / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def sample(folder):
    a = dict(made()["case_died"], log=f"{folder}/logs/x.log", time="t1", seq=4)
    b = dict(made()["job_died"], reproducer=f"{folder}/reproducers/r.cpp")
    return [a, b]


def test_identical_runs_differ_only_in_what_is_ignored(tmp_path):
    a = run_folder(tmp_path / "a", sample(tmp_path / "a"))
    b_recs = sample(tmp_path / "b")
    b_recs[0].update(time="t2", seq=9, duration_s=7.0)
    b = run_folder(tmp_path / "b", b_recs)
    result = record_diff.compare_folders(a, b)
    assert result["same"], record_diff.format_result(result)
    assert "identical records" in record_diff.format_result(result)


def test_the_log_lines_a_dead_job_quotes_and_property_seconds_are_not_compared():
    a = dict(
        made()["case_died"],
        message=(
            "this case ended the job (exit code 139); last output: rank 1 died / x"
            " | waived until 2027-01-01: r (u)"
        ),
    )
    b = dict(a, message=a["message"].replace("rank 1", "rank 0"))
    assert record_diff.compare_records([a], [b])["same"]
    c = dict(a, message=a["message"].replace("2027-01-01", "2028-01-01"))
    assert not record_diff.compare_records([a], [c])[
        "same"
    ]  # the waiver note is not log text
    s = made()["property_summary"]
    t = dict(s, property=dict(s["property"], seconds=9.0))
    assert record_diff.compare_records([s], [t])["same"]
    assert not record_diff.compare_records(
        [s], [dict(s, property=dict(s["property"], cases=5))]
    )["same"]


def test_a_changed_field_a_missing_and_an_extra_check_are_reported(tmp_path):
    base = sample(tmp_path / "a")
    a = run_folder(tmp_path / "a", base)
    changed = sample(tmp_path / "b")
    changed[0]["message"] = "other"
    changed[1]["id"] = "renamed"
    b = run_folder(tmp_path / "b", changed)
    result = record_diff.compare_folders(a, b)
    assert not result["same"]
    assert result["missing"] == [("default", 2, "ordo_check_reduce@2ranks#job1")]
    assert result["extra"] == [("default", 2, "renamed")]
    assert [(d[1], d[3]) for d in result["differences"]] == [("message", "other")]
    text = record_diff.format_result(result, "A", "B")
    assert (
        "1 missing from B" in text
        and "1 extra in B" in text
        and "message" in text
        and "DIFFER" in text
    )


def test_the_same_id_at_another_rank_count_or_variant_is_another_check():
    r = made()["case_died"]
    result = record_diff.compare_records([r], [dict(r, ranks=3)])
    assert result["missing"] and result["extra"]
    assert not record_diff.compare_records([r], [dict(r, variant="v")])["same"]


def test_ordo_compare_records_exits_0_when_identical_and_1_otherwise(tmp_path):
    a = run_folder(tmp_path / "a", sample(tmp_path / "a"))
    b = run_folder(tmp_path / "b", sample(tmp_path / "b"))
    c = run_folder(tmp_path / "c", sample(tmp_path / "c")[:1])
    cli = [sys.executable, str(ROOT / "tools" / "ordo_cli.py"), "compare", "--records"]
    same = subprocess.run(
        cli + [str(a), str(b)], capture_output=True, text=True, timeout=60
    )
    assert same.returncode == 0, same.stdout + same.stderr
    other = subprocess.run(
        cli + [str(a), str(c)], capture_output=True, text=True, timeout=60
    )
    assert (
        other.returncode == 1
        and "records: 2 in" in other.stdout
        and "1 missing" in other.stdout
    )


# ---- a real run: every line the harness writes -------------------------------------


def built(vendor):
    adapter = load_adapter(vendor)
    bdir = build_dir_for(adapter)
    exe = bdir / "conformance" / "noncommutative" / "ordo_check_noncommutative"
    props = bdir / properties.EXECUTABLE
    return adapter, bdir, exe if exe.is_file() else None, props.is_file()


def test_live_every_line_a_real_run_writes_follows_the_record_schema(tmp_path):
    """One check executable and the property executable at 2 ranks (run pytest
    under flock /tmp/ordo-mpi.lock: this launches MPI jobs)."""
    for vendor in ("openmpi", "mpich"):
        adapter, bdir, exe, props = built(vendor)
        if exe and props:
            break
    else:
        pytest.skip(
            "no build with ordo_check_noncommutative and ordo_properties (./ordo run or"
            " ./ordo test builds one)"
        )
    prefix = launcher_prefix(adapter, bdir, launch_env(adapter, bdir, {}, False))
    (tmp_path / "gtest").mkdir()
    journal = tmp_path / "journal.jsonl"
    journal.touch()
    base = job_command(
        adapter,
        prefix,
        2,
        exe,
        timeout=240,
        flags=ordo_flags(
            journal=journal,
            vendor=adapter["name"],
            variant="default",
            seed=3,
            case_timeout=60,
            adapter=adapter["_path"],
        )
        + [
            "--gtest_filter="
            "Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root"
        ],
    )
    run_job(base, exe.name, 2, tmp_path, journal, adapter, 2)
    properties.run_phase(
        adapter=adapter,
        bdir=bdir,
        prefix=prefix,
        out=tmp_path,
        journal=journal,
        ranks=[2],
        budget="5",
        seed=3,
        case_timeout=30,
        job_timeout=240,
        run_job=run_job,
    )
    lines = [line for line in journal.read_text().splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]
    assert any(
        r.get("test", "").startswith("Reduce.") for r in parsed
    ), "the check executable wrote no record"
    assert any(
        r.get("clause") == properties.SUMMARY_CLAUSE
        and r.get("property", {}).get("written_by") != "tools/properties.py"
        for r in parsed
    ), "the property executable wrote no summary of its own"
    problems = [
        (r.get("id"), records.schema_errors(r))
        for r in parsed
        if records.schema_errors(r)
    ]
    assert not problems, problems[:3]
    # The in-flight note each rank left (its last case's) follows its schema too.
    notes = protocol.inflight_files(journal)
    assert len(notes) == 2, notes
    for f in notes:
        assert records.note_errors(json.loads(f.read_text())) == [], f


def test_record_comparison_ignores_library_addresses_but_not_values():
    a = record(
        index=1,
        outcome="fail",
        message="MPI_Allreduce(sendbuf=0x55d0a1, recvbuf=0x7ffe10) failed",
    )
    b = dict(a, message="MPI_Allreduce(sendbuf=0x5610ff, recvbuf=0x7ffd22) failed")
    assert record_diff.compare_records([a], [b])["same"]
    c = dict(
        a,
        message="MPI_Allreduce(sendbuf=0x55d0a1, recvbuf=0x7ffe10) failed with count 4",
    )
    assert not record_diff.compare_records([a], [c])["same"]
    # The communicator a stack names, as MPI_COMM_WORLD or a handle, last argument or
    # not (the Fortran programs' world in a job of one family, a handle in a combined
    # job).
    w = dict(
        a,
        message=(
            "MPI_Ireduce(sendbuf=0x55d0a1, count=1, MPI_SUM, 1, MPI_COMM_WORLD,"
            " request=0x7ffe92) failed"
        ),
    )
    h = dict(
        a,
        message=(
            "MPI_Ireduce(sendbuf=0x557ecc, count=1, MPI_SUM, 1, comm=0xc4000129,"
            " request=0x7fff89) failed"
        ),
    )
    assert record_diff.compare_records([w], [h])["same"]
    assert not record_diff.compare_records(
        [w], [dict(h, message=h["message"].replace("count=1", "count=2"))]
    )["same"]


def test_a_field_added_on_purpose_is_counted_and_any_other_change_still_differs():
    a = record(index=1, outcome="fail", message="m")
    b = dict(a, tracer=[{"kind": "swapped"}])
    assert not record_diff.compare_records([a], [b])["same"]
    result = record_diff.compare_records([a], [b], new_fields=("tracer",))
    assert result["same"] and result["added"] == {"tracer": 1}
    assert "field 'tracer' added on 1 records" in record_diff.format_result(result)
    assert not record_diff.compare_records(
        [a], [dict(b, outcome="pass")], new_fields=("tracer",)
    )["same"]
    assert not record_diff.compare_records([b], [a], new_fields=("tracer",))[
        "same"
    ]  # a field lost is a change


def test_the_record_of_a_dead_case_keeps_the_node_maps_of_its_communicator():
    """Under --nodes the harness adds the node map of each group of the case's
    communicator to the note: a crash waiver can name where the root sits
    (comm_node_map root_node) or nodes whose ranks interleave (consecutive)."""
    maps = [[[0, 1], [2]]]
    assert (
        records.case_died(dict(BEGUN, comm_node_maps=maps), **HOW)["comm_node_maps"]
        == maps
    )
    # a note without maps: none
    assert "comm_node_maps" not in records.case_died(BEGUN, **HOW)


def test_the_record_of_a_dead_case_on_two_sizes_keeps_both_and_meets_either():
    """odd-even at an odd world size has communicators of two sizes; the note
    gives world rank 0's as comm_size and both as comm_sizes. A crash on the
    lone odd process (a one-process communicator) must still meet a waiver
    whose trigger is comm_size 1 (--run-known-fatal on Open MPI 4.1.4's
    coll/basic Exscan), and the record must validate against the schema."""
    begun = dict(BEGUN, comm_size=2, comm_sizes=[2, 1])
    record = records.case_died(begun, **HOW)
    assert record["comm_size"] == 2 and record["comm_sizes"] == [2, 1]
    assert not records.schema_errors(record)
    waiver = {
        "id": "w",
        "test": record["test"],
        "outcome": record["outcome"],
        "comm_size": 1,
        "reason": "r",
        "upstream": "u",
        "expires": "2099-01-01",
    }
    assert waivers.covers(waiver, record, signature=False)
    assert not waivers.covers(waiver, dict(record, comm_sizes=[2, 3]), signature=False)
    assert "comm_sizes" not in records.case_died(BEGUN, **HOW)

"""Which case a job that died is charged to (issue #38): tools/runner/job.py
with runner/protocol.py's rule. A job that dies with a case in flight is
charged to that case; one that dies with none in flight (between cases,
before its first case, after its last) gets a record of its own, which no
crash waiver of a case can waive, and a launch that dies before its first
case is launched again (within the restart budget) or its remaining cases
are counted as not run and the report says the run is partial.

A fake check executable plays the harness's side of the job protocol: five
cases (case n has count n, so a waiver can name one case), the outcome of
each and what each launch does read from a plan file. Like the harness, it
writes each rank's .finalized marker after "MPI_Finalize" (issue #36: a
rank without one died there, whatever the launcher's exit status); one
test runs the real harness under MPICH's mpiexec."""
import copy
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, needs_build, run_json, write_run
from reports import records, results, waivers as matcher
from runner import protocol
from runner.adapters import load_adapter
from runner.job import run_job
from runner.launch import ordo_flags

FAKE = r"""#!PYTHON
import json, os, sys, time
journal, plan_path = sys.argv[1], sys.argv[2]
plan = json.load(open(plan_path))
skip, standby = 0, None
for a in sys.argv[3:]:
    if a.startswith("--ordo-skip="):
        skip = int(a.split("=", 1)[1])
    if a.startswith("--ordo-standby="):
        standby = a.split("=", 1)[1]
# A launch made ready ahead (harness.h, await_go): told where to resume, or to quit.
if standby:
    open(standby + ".ready", "w").write("ready\n")
    while True:
        try:
            word = open(standby).read().split()
        except FileNotFoundError:
            word = []
        if word[:1] == ["quit"]:
            sys.exit(0)
        if word[:1] == ["skip"]:
            skip = int(word[1])
            break
        time.sleep(0.005)
count_path = journal + ".launches"
launch = len(open(count_path).read().split()) if os.path.exists(count_path) else 0
with open(count_path, "a") as f:
    f.write("%d\n" % skip)
do = plan["launches"][launch] if launch < len(plan["launches"]) else {}
print("fake job, launch %d, skip %d" % (launch, skip), flush=True)
if do.get("die_at_start"):
    print("the library failed in MPI_Init", flush=True)
    sys.exit(134)
for seq in range(skip + 1, plan["cases"] + 1):
    case = {"routine": "reduce", "op": "MPI_SUM", "datatype": "MPI_INT", "count": seq,
            "comm": "world"}
    begun = {"seq": seq, "id": "Reduce.x#%d" % (seq - 1), "test": "Reduce.x",
             "clause": "reduce.values", "level": "MUST", "case": case,
             "routine": "MPI_Reduce"}
    open(journal + ".inflight.0", "w").write(json.dumps(begun) + "\n")
    if do.get("die_in") == seq:
        # The ranks in the case when it died: those that had learnt its
        # communicator noted it (note_case_comm), the others had not yet.
        for rank, noted in enumerate(do.get("noted", [])):
            note = dict(begun, **(plan["comm"] if noted else {}))
            open(journal + ".inflight.%d" % rank, "w").write(json.dumps(note) + "\n")
        print("Segmentation fault in case %d" % seq, flush=True)
        # What a library and MPICH's launcher print as the job dies: the library's
        # own line, then the launcher's closing banner.
        for line in do.get("banner", []):
            print(line, flush=True)
        sys.exit(139)
    outcome = plan.get("outcomes", {}).get(str(seq), "pass")
    with open(journal, "a") as f:
        f.write(json.dumps(dict(begun, outcome=outcome, message="", ranks=2,
                                vendor="mpich", variant="default",
                                schema="ordo.check/1")) + "\n")
    if do.get("die_after") == seq:
        print("Segmentation fault after case %d" % seq, flush=True)
        sys.exit(139)
# As the harness (check_main.cpp, finish_checks): .done promises a marker from each
# of the 2 ranks, which each writes once its MPI_Finalize returned.
promise = "finalized %d\n" % plan.get("size", 2) if plan.get("promise", True) else ""
open(journal + ".done", "w").write("0\n" + promise)
if do.get("die_at_end"):
    print("Segmentation fault in MPI_Finalize", flush=True)
    sys.exit(139)
for rank in do.get("finalize_returns", range(plan.get("size", 2))):
    open(journal + ".finalized.%d" % rank, "w").write("returned\n")
if "finalize_returns" in do:
    print("Assertion failed in file src/util/mpir_pmi.c at line 456: 0", flush=True)
sys.exit(do.get("exit_code", 0))
"""

# A crash waiver of one case (count 1) and one of another (count 3): the real matcher
# applies them.
CASE_1_CRASH = {
    "id": "case-1-crash",
    "test": "*",
    "outcome": "crash",
    "case": {"routine": "reduce", "count": 1},
    "signature": {"exit_code": 139},
    "library_versions": "4.0.2",
    "expires": "2099-12-31",
    "reason": "the library crashes in case 1",
    "upstream": "none",
}
CASE_3_CRASH = dict(
    CASE_1_CRASH,
    id="case-3-crash",
    case={"routine": "reduce", "count": 3},
    reason="the library crashes in case 3",
)


class Waivers:
    def __init__(self, *ws):
        self.waivers = list(ws)

    def apply(self, record):
        return matcher.apply(
            record, self.waivers, today="2026-11-27", library_version="4.0.2"
        )


def run_fake(tmp_path, plan, waivers=(), max_restarts=10, ranks=2):
    j = tmp_path / "journal.jsonl"
    j.write_text("")
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps(dict({"cases": 5}, **plan)))
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE.replace("PYTHON", sys.executable))
    fake.chmod(0o755)
    base = ["timeout", "-k", "5", "60", str(fake), str(j), str(plan_path)]
    launches = run_job(
        base,
        "ordo_check_reduce",
        ranks,
        tmp_path,
        j,
        {"name": "mpich"},
        max_restarts,
        waivers=Waivers(*waivers),
    )
    lines = [json.loads(x) for x in j.read_text().splitlines()]
    for r in lines:
        assert records.schema_errors(r) == [], r
    skips = [int(x) for x in pathlib.Path(f"{j}.launches").read_text().split()]
    return launches, lines, skips


def job_records(lines):
    return [r for r in lines if r.get("clause") == "harness.job"]


def report_of(tmp_path, lines):
    """The report (reports/results.py) of a run whose run.json says it ended."""
    return results.build(write_run(tmp_path / "out", lines, run=run_json(ranks=(2,))))


def test_a_job_that_died_between_cases_long_after_a_failed_case_is_not_charged_to_it(
    tmp_path,
):
    """Case 1 failed; cases 2-4 passed; the job died after case 4. The old
    rule charged the death to case 1 (Reduce.x#0~after, with case 1's
    fields), and case 1's crash waiver waived it."""
    launches, lines, skips = run_fake(
        tmp_path,
        {"outcomes": {"1": "fail"}, "launches": [{"die_after": 4}]},
        waivers=[CASE_1_CRASH],
    )
    assert [r.get("seq") for r in lines] == [1, 2, 3, 4, None, 5]
    assert [r["outcome"] for r in lines] == [
        "fail",
        "pass",
        "pass",
        "pass",
        "crash",
        "pass",
    ]
    dead = lines[4]
    assert not any(r["id"].endswith("~after") for r in lines)
    assert not any(r.get("waiver") for r in lines)
    assert (
        dead["clause"] == "harness.job"
        and dead["level"] == "MUST"
        and dead["case"] is None
    )
    assert (
        dead["test"] == "ordo_check_reduce"
        and dead["id"] == "ordo_check_reduce@2ranks#job0"
    )
    job = dead["job"]
    assert job["where"] == "between_cases" and job["executable"] == "ordo_check_reduce"
    assert job["last_case"] == {
        "seq": 4,
        "id": "Reduce.x#3",
        "test": "Reduce.x",
        "outcome": "pass",
    }
    assert (
        job["exit_code"] == 139 and job["signal"] == "SIGSEGV" and not job["timed_out"]
    )
    assert (
        "Segmentation fault after case 4" in job["tail"]
        and job["launch"] == 0
        and job["resumed_after"] == 0
    )
    # No waiver of a case can name it: not case 1's, nor one of any case of the routine.
    again = matcher.apply(
        copy.deepcopy(dead),
        [CASE_1_CRASH, dict(CASE_1_CRASH, case={"routine": "reduce"})],
        today="2026-11-27",
        library_version="4.0.2",
    )
    assert again["outcome"] == "crash"
    # The job went on after case 4, once; the death counts in the verdict as a crash.
    assert skips == [0, 4] and [x["rc"] for x in launches] == [139, 0]
    report = report_of(tmp_path, lines)
    assert not report["partial"] and report["summary"]["verdict"] == "not conformant"


def test_a_job_that_died_between_passing_cases_names_the_last_case_and_goes_on(
    tmp_path,
):
    launches, lines, skips = run_fake(tmp_path, {"launches": [{"die_after": 2}]})
    assert [r.get("seq") for r in lines] == [1, 2, None, 3, 4, 5]
    job = lines[2]["job"]
    assert (
        job["where"] == "between_cases"
        and job["last_case"]["seq"] == 2
        and job["signal"] == "SIGSEGV"
    )
    assert (
        "outside any case, between cases, after case 2 (Reduce.x#1, pass)"
        in lines[2]["message"]
    )
    assert skips == [0, 2]


def test_a_first_launch_that_died_before_any_case_is_launched_again(tmp_path):
    """No case begun, none recorded: the record says so, and the job's cases
    run in a further launch (the old runner returned: none of them ran)."""
    launches, lines, skips = run_fake(tmp_path, {"launches": [{"die_at_start": True}]})
    assert [r.get("seq") for r in lines] == [None, 1, 2, 3, 4, 5]
    job = lines[0]["job"]
    assert (
        job["where"] == "before_first_case"
        and job["last_case"] is None
        and job["exit_code"] == 134
    )
    assert job["signal"] == "SIGABRT" and "not_run" not in job
    assert "before its first case, with no case recorded before" in lines[0]["message"]
    assert skips == [0, 0]
    assert not report_of(tmp_path, lines)["partial"]


def test_a_job_that_died_inside_a_case_is_charged_to_that_case_and_its_waiver_applies(
    tmp_path,
):
    """As before issue #38: the case in flight (begun, not recorded) is charged."""
    launches, lines, skips = run_fake(
        tmp_path, {"launches": [{"die_in": 3}]}, waivers=[CASE_1_CRASH, CASE_3_CRASH]
    )
    assert [r.get("seq") for r in lines] == [1, 2, 3, 4, 5]
    dead = lines[2]
    assert (
        dead["id"] == "Reduce.x#2"
        and dead["case"]["count"] == 3
        and dead["clause"] == "reduce.values"
    )
    assert (
        dead["outcome"] == "waived"
        and dead["waiver"] == "case-3-crash"
        and "job" not in dead
    )
    assert skips == [0, 3] and not job_records(lines)


# MPICH's hydra's closing banner, as it ends a job whose process aborted.
HYDRA_BANNER = [
    "[ RUN      ] Reduce.x",
    "[vm:6144 :0:6144] Caught signal 11 (Segmentation fault)",
    "==== backtrace (tid:   6144) ====",
    " 0  /lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2bc) [0x7f65]",
    "free(): invalid pointer",
    "",
    "=" * 83,
    "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
    "=   PID 2263 RUNNING AT vm",
    "=   EXIT CODE: 6",
    "=" * 83,
    "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Aborted (signal 6)",
    "This typically refers to a problem with your application.",
    "Please see the FAQ page for debugging suggestions",
]


def test_a_dead_case_quotes_the_librarys_lines_that_the_launchers_banner_follows(
    tmp_path,
):
    """The record of a case that died quotes the library's own diagnostic
    (printed after its test began) before the log's last lines, so that a
    waiver whose text signature names it applies; a signature the output does
    not hold still does not."""
    text = dict(
        CASE_3_CRASH,
        id="free-invalid",
        signature={"text": "*free(): invalid pointer*"},
    )
    other = dict(text, id="double-free", signature={"text": "*double free*"})
    plan = {"launches": [{"die_in": 3, "banner": HYDRA_BANNER}]}
    _, lines, _ = run_fake(tmp_path, plan, waivers=[text])
    dead = lines[2]
    assert dead["outcome"] == "waived" and dead["waiver"] == "free-invalid"
    assert (
        "last output: " + "=" * 83 + " / YOUR APPLICATION TERMINATED WITH THE EXIT"
        " STRING: Aborted (signal 6) / This typically refers to a problem with your"
        " application. / Please see the FAQ page for debugging suggestions; before"
        " them: [vm:6144 :0:6144] Caught signal 11 (Segmentation fault) / free():"
        " invalid pointer | waived until"
    ) in dead["message"]
    # the signal the launcher names is the record's (a waiver's `signal`)
    assert matcher.signal_of(dead["message"]) == 6
    assert "backtrace" not in dead["message"] and "libucs" not in dead["message"]
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    _, lines, _ = run_fake(other_dir, plan, waivers=[other])
    assert lines[2]["outcome"] == "crash" and "free(): invalid" in lines[2]["message"]


def test_the_tail_of_a_log_takes_no_sign_from_before_the_last_test_began(tmp_path):
    """A sign printed before the last test began (an earlier test's) is not the
    death's; nor are gtest's lines, backtrace frames and banner rules; a
    repeated line is quoted once; the last lines are quoted whatever they are."""
    log = tmp_path / "job.log"
    log.write_text(
        "\n".join(
            [
                "MPI_ERR_COUNT: earlier test's error",
                "[ RUN      ] A.first",
                "Assertion failed in an earlier test",
                "[       OK ] A.first (1 ms)",
                "[ RUN      ] A.second",
                "Abort(1) on node 1: Internal error",
                "[vm:12] [ 3] /lib/libmpi.so(abort+0x1) [0x1]",
                "/usr/lib/x86_64-linux-gnu/libc.so.6(abort+0xd2) [0x7f1f7371e0d7]",
                "Abort(1) on node 1: Internal error",
                "Assertion failed in file x.c at line 48: n == m",
                "-" * 20,
                "a",
                "b",
                "c",
                "d",
            ]
        )
        + "\n"
    )
    assert protocol.log_tail(log) == (
        "a / b / c / d; before them: Abort(1) on node 1: Internal error / Assertion"
        " failed in file x.c at line 48: n == m"
    )
    assert protocol.log_tail(tmp_path / "absent.log") == ""


# A waiver whose trigger is the communicator's size (as MPICH's noncommutative
# reduce_scatter's: it asserts on a communicator whose size is no power of two).
SIZE_5_CRASH = dict(
    CASE_1_CRASH,
    id="size-5-crash",
    case={"routine": "reduce", "count": 3},
    comm_size=5,
    reason="the library crashes on 5 processes",
)


@pytest.mark.parametrize("noted_by", [0, 1, 2, 3, 4])
def test_a_dead_case_carries_its_communicator_from_any_rank_that_noted_it(
    tmp_path, noted_by
):
    """A rank that dies in the library's call (an assertion at its start) ends
    the job while a slower rank is still before the point where the harness
    notes the case's communicator (note_case_comm): the MPICH 4.2.1 sweep's
    crash records without comm_size (47 of 5416). The record takes the
    communicator from whichever rank noted it, whatever the order of the
    notes' files, and a waiver of that size then applies."""
    comm = {"comm_size": 5, "comm_sizes": [3, 2], "comm_node_maps": [[[0, 1, 2]]]}
    noted = [rank == noted_by for rank in range(5)]
    launches, lines, skips = run_fake(
        tmp_path,
        {"launches": [{"die_in": 3, "noted": noted}], "comm": comm, "size": 5},
        waivers=[SIZE_5_CRASH],
        ranks=5,
    )
    dead = lines[2]
    assert dead["id"] == "Reduce.x#2"
    assert {k: dead.get(k) for k in comm} == comm
    assert dead["outcome"] == "waived" and dead["waiver"] == "size-5-crash"
    assert skips == [0, 3]


def test_a_case_no_rank_had_noted_the_communicator_of_stays_without_its_size(tmp_path):
    """None had learnt it: the record names no size (none is made up), and a
    waiver of a size does not apply."""
    launches, lines, skips = run_fake(
        tmp_path,
        {
            "launches": [{"die_in": 3, "noted": [False] * 3}],
            "comm": {"comm_size": 5},
            "size": 3,
        },
        waivers=[SIZE_5_CRASH],
        ranks=3,
    )
    dead = lines[2]
    assert "comm_size" not in dead and dead["outcome"] == "crash"


def test_the_notes_of_the_ranks_are_read_in_rank_order(tmp_path):
    j = tmp_path / "journal.jsonl"
    for rank in (10, 2, 0, 1):
        (tmp_path / f"journal.jsonl.inflight.{rank}").write_text("{}\n")
    assert [p.name.rsplit(".", 1)[1] for p in protocol.inflight_files(j)] == [
        "0",
        "1",
        "2",
        "10",
    ]


def test_a_relaunch_that_died_before_its_first_case_is_recorded_and_launched_again(
    tmp_path,
):
    """Case 2 crashed; the relaunch died in its start-up; a further launch
    runs cases 3-5 (the old runner returned after the relaunch: 3-5 never ran,
    and the run was not partial)."""
    launches, lines, skips = run_fake(
        tmp_path,
        {"launches": [{"die_in": 2}, {"die_at_start": True}]},
        waivers=[CASE_1_CRASH],
    )
    assert [r.get("seq") for r in lines] == [1, 2, None, 3, 4, 5]
    assert lines[1]["id"] == "Reduce.x#1" and lines[1]["outcome"] == "crash"
    job = lines[2]["job"]
    assert (
        job["where"] == "before_first_case"
        and job["resumed_after"] == 2
        and job["launch"] == 1
    )
    assert job["last_case"] == {
        "seq": 2,
        "id": "Reduce.x#1",
        "test": "Reduce.x",
        "outcome": "crash",
    }
    assert "not_run" not in job and lines[2]["case"] is None
    assert skips == [0, 2, 2]
    assert not report_of(tmp_path, lines)["partial"]


def test_a_relaunch_dying_again_before_its_first_case_ends_the_job_the_run_partial(
    tmp_path,
):
    launches, lines, skips = run_fake(
        tmp_path,
        {
            "launches": [
                {"die_in": 2},
                {"die_at_start": True},
                {"die_at_start": True},
                {},
            ]
        },
    )
    assert [r.get("seq") for r in lines] == [1, 2, None, None]
    assert skips == [0, 2, 2]  # launched again once, then no more
    first, second = lines[2]["job"], lines[3]["job"]
    assert "not_run" not in first and second["not_run"]["after_seq"] == 2
    assert "both ended before their first case" in second["not_run"]["why"]
    report = report_of(tmp_path, lines)
    assert report["partial"]
    assert any(
        r.startswith(
            "ordo_check_reduce at 2 ranks: its cases after case 2 were not run"
        )
        for r in report["partial_reasons"]
    ), report["partial_reasons"]


def test_a_relaunch_dead_before_its_first_case_with_no_restart_left_gives_up_partial(
    tmp_path,
):
    """--max-restarts 1: the crash of case 2 used the one restart; the
    relaunch's death before its first case uses up the budget."""
    launches, lines, skips = run_fake(
        tmp_path, {"launches": [{"die_in": 2}, {"die_at_start": True}]}, max_restarts=1
    )
    assert [r["id"] for r in lines][-2:] == [
        "ordo_check_reduce@2ranks#job1",
        "ordo_check_reduce@2ranks#gave-up",
    ]
    assert lines[-1]["job"]["not_run"]["after_seq"] == 2 and skips == [0, 2]
    report = report_of(tmp_path, lines)
    assert report["partial"] and any(
        "its cases after case 2 were not run (gave up after 1 restarts" in r
        for r in report["partial_reasons"]
    )


def test_a_gave_up_record_of_an_older_journal_makes_the_run_partial(tmp_path):
    old = {
        "schema": "ordo.check/1",
        "id": "ordo_check_reduce@2ranks#gave-up",
        "test": "ordo_check_reduce",
        "clause": "harness.job",
        "level": "MUST",
        "outcome": "crash",
        "ranks": 2,
        "vendor": "mpich",
        "variant": "default",
        "message": (
            "gave up after 50 restarts after crashes or timeouts that no waiver names"
        ),
        "case": None,
    }
    report = report_of(tmp_path, [old])
    assert report["partial"] and report["partial_reasons"] == [
        "ordo_check_reduce at 2 ranks: its cases were not run (gave up after 50"
        " restarts after crashes or timeouts that no waiver names)"
    ]


def test_a_job_that_died_after_its_last_case_is_recorded_and_not_launched_again(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(protocol, "FINALIZED_GRACE_SECONDS", 0.2)
    launches, lines, skips = run_fake(
        tmp_path,
        {"outcomes": {"5": "fail"}, "launches": [{"die_at_end": True}]},
        waivers=[dict(CASE_1_CRASH, case={"routine": "reduce", "count": 5})],
    )
    assert [r.get("seq") for r in lines] == [1, 2, 3, 4, 5, None]
    job = lines[-1]["job"]
    assert job["where"] == "after_last_case" and job["last_case"]["outcome"] == "fail"
    assert lines[-1]["outcome"] == "crash" and skips == [0]
    assert not report_of(tmp_path, lines)["partial"]
    # The exit status and the missing markers tell the same death: one record.
    assert len(job_records(lines)) == 1 and job["finalize_not_returned"] == [0, 1]
    assert "MPI_Finalize did not return on rank(s) 0, 1 of 2" in lines[-1]["message"]


def _leftovers(tmp_path):
    """The job's .finalized markers left beside the journal (the runner removes
    them once read)."""
    return sorted(p.name for p in tmp_path.glob(f"journal.jsonl{protocol.FINALIZED}*"))


def test_a_rank_whose_mpi_finalize_did_not_return_is_a_job_record_despite_exit_0(
    tmp_path, monkeypatch
):
    """Issue #36: every case passed, rank 1 aborted inside MPI_Finalize and the
    launcher exited 0 (MPICH 5.0.2's hydra did at 7 of 8 rank counts). The old
    runner took .done and exit code 0 for a job that ended normally: no record,
    a conformant run."""
    monkeypatch.setattr(protocol, "FINALIZED_GRACE_SECONDS", 0.2)
    launches, lines, skips = run_fake(
        tmp_path, {"launches": [{"finalize_returns": [0]}]}
    )
    assert [r.get("seq") for r in lines] == [1, 2, 3, 4, 5, None]
    dead = lines[-1]
    assert dead["clause"] == "harness.job" and dead["outcome"] == "crash"
    assert dead["case"] is None and dead["id"] == "ordo_check_reduce@2ranks#job0"
    job = dead["job"]
    assert job["where"] == "after_last_case" and job["finalize_not_returned"] == [1]
    assert job["exit_code"] == 0 and job["signal"] is None and not job["timed_out"]
    assert job["last_case"]["seq"] == 5 and "mpir_pmi.c" in job["tail"]
    assert (
        "MPI_Finalize did not return on rank(s) 1 of 2 (no .finalized marker from"
        " them), though the launcher exited 0" in dead["message"]
    )
    # Not launched again (every case ran), and the verdict counts the crash.
    assert skips == [0] and [x["rc"] for x in launches] == [0]
    report = report_of(tmp_path, lines)
    assert not report["partial"] and report["summary"]["verdict"] == "not conformant"
    assert _leftovers(tmp_path) == []


def test_a_failed_case_and_an_abort_in_mpi_finalize_under_exit_1_make_one_record(
    tmp_path, monkeypatch
):
    """Exit code 1 is also a normal end (a case failed): the markers still tell."""
    monkeypatch.setattr(protocol, "FINALIZED_GRACE_SECONDS", 0.2)
    launches, lines, skips = run_fake(
        tmp_path,
        {
            "outcomes": {"2": "fail"},
            "launches": [{"finalize_returns": [], "exit_code": 1}],
        },
    )
    assert [r["outcome"] for r in lines] == ["pass", "fail"] + ["pass"] * 3 + ["crash"]
    assert len(job_records(lines)) == 1
    assert lines[-1]["job"]["finalize_not_returned"] == [0, 1]
    assert "though the launcher exited 1" in lines[-1]["message"]


def test_a_job_whose_every_rank_returned_from_mpi_finalize_gets_no_record(tmp_path):
    launches, lines, skips = run_fake(tmp_path, {"launches": [{}]})
    assert [r.get("seq") for r in lines] == [1, 2, 3, 4, 5]
    assert not job_records(lines) and _leftovers(tmp_path) == []


def test_a_one_rank_job_is_judged_by_its_one_marker(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "FINALIZED_GRACE_SECONDS", 0.2)
    launches, lines, skips = run_fake(tmp_path, {"size": 1, "launches": [{}]}, ranks=1)
    assert len(lines) == 5 and not job_records(lines)
    (tmp_path / "journal.jsonl.launches").unlink()
    launches, lines, skips = run_fake(
        tmp_path, {"size": 1, "launches": [{"finalize_returns": []}]}, ranks=1
    )
    assert lines[-1]["job"]["finalize_not_returned"] == [0]
    assert "MPI_Finalize did not return on rank(s) 0 of 1" in lines[-1]["message"]


def test_a_done_file_without_the_promise_is_not_judged_by_markers(tmp_path):
    """An executable that writes no .finalized markers (its .done has no
    "finalized <size>" line): its end is judged by the exit status alone."""
    launches, lines, skips = run_fake(
        tmp_path, {"promise": False, "launches": [{"finalize_returns": []}]}
    )
    assert len(lines) == 5 and not job_records(lines)


def test_a_job_killed_by_its_time_limit_in_mpi_finalize_makes_one_timeout_record(
    tmp_path, monkeypatch
):
    """`timeout` ended a job hung in MPI_Finalize (exit 124): one record, a
    timeout, naming the ranks that never returned."""
    monkeypatch.setattr(protocol, "FINALIZED_GRACE_SECONDS", 0.2)
    launches, lines, skips = run_fake(
        tmp_path, {"launches": [{"finalize_returns": [1], "exit_code": 124}]}
    )
    assert len(job_records(lines)) == 1 and lines[-1]["outcome"] == "timeout"
    job = lines[-1]["job"]
    assert job["timed_out"] and job["finalize_not_returned"] == [0]
    assert "though the launcher exited" not in lines[-1]["message"]
    assert skips == [0]


def test_the_finalize_markers_are_read_only_when_promised(tmp_path):
    j = tmp_path / "journal.jsonl"
    assert protocol.finalize_not_returned(j, grace=0) == []  # no .done
    protocol.marker(j, protocol.DONE).write_text("0\n")
    assert protocol.finalize_promised(j) is None
    assert protocol.finalize_not_returned(j, grace=0) == []
    protocol.marker(j, protocol.DONE).write_text("0\nfinalized 3\n")
    protocol.marker(j, protocol.FINALIZED + "1").write_text("returned\n")
    assert protocol.finalize_promised(j) == 3
    assert protocol.finalize_not_returned(j, grace=0) == [0, 2]
    protocol.clear(j)
    assert not list(tmp_path.glob("journal.jsonl.*"))


def test_the_last_finished_case_and_the_family_of_a_combined_job_are_read_back(
    tmp_path,
):
    j = tmp_path / "journal.jsonl"
    other = (
        json.dumps({"seq": 9, "id": "Other#8", "outcome": "pass"}) + "\n"
    )  # another job's, before this one
    mine = [
        {"seq": 1, "id": "A#0", "outcome": "fail"},
        {"seq": 2, "id": "B#0", "test": "Op.b", "outcome": "pass"},
        {"seq": None, "id": "x@2ranks#job0", "outcome": "crash"},
    ]
    j.write_text(other + "".join(json.dumps(r) + "\n" for r in mine))
    assert protocol.last_finished(j, len(other))["id"] == "B#0"
    assert protocol.last_finished(j, j.stat().st_size) is None
    log = tmp_path / "ordo_sweep_checks-2ranks.log"
    log.write_text(
        '[==========] x\nordo family-tests: {"reduce": ["Reduce.a"], "op":'
        ' ["Op.b"]}\nSegmentation fault\n'
    )
    assert (
        protocol.family_of([tmp_path / "missing.log", log], "Op.b") == "ordo_check_op"
    )
    assert protocol.family_of([log], "Nowhere.c") is None


# A library whose MPI_Finalize, on the world rank ORDO_TEST_FINALIZE_EXITS_ON,
# ends the process (exit status 0) instead of returning: as a rank that aborts
# inside MPI_Finalize under a launcher that still exits 0 (MPICH 5.0.2's hydra).
FINALIZE_EXITS = r"""
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>
int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rc = PMPI_Finalize();
  const char* on = getenv("ORDO_TEST_FINALIZE_EXITS_ON");
  if (on && atoi(on) == rank) _exit(0);
  return rc;
}
"""


def test_a_real_rank_that_never_returns_from_mpi_finalize_is_recorded_under_mpich(
    tmp_path,
):
    """The real harness (ordo_check_op, two of its tests) under MPICH's
    mpiexec at 2 ranks, run by run_job: with every MPI_Finalize returning,
    no job record; with rank 1's MPI_Finalize ending its process (the
    launcher exits 0), the one record names rank 1."""
    needs_build("mpich")
    exe = BUILD / "mpich" / "conformance" / "op" / "ordo_check_op"
    mpicc, mpiexec = shutil.which("mpicc.mpich"), shutil.which("mpiexec.mpich")
    if not exe.is_file() or not mpicc or not mpiexec:
        pytest.skip(f"needs {exe}, mpicc.mpich and mpiexec.mpich")
    lib = tmp_path / "libfinalize_exits.so"
    src = tmp_path / "finalize_exits.c"
    src.write_text(FINALIZE_EXITS)
    subprocess.run(
        [mpicc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True, timeout=120
    )
    adapter = load_adapter("mpich")
    found = {}
    for exits_on in (None, 1):
        out = tmp_path / f"exits-on-{exits_on}"
        out.mkdir()
        journal = out / "journal.jsonl"
        journal.write_text("")
        env = ["-genv", "LD_PRELOAD", str(lib)]
        if exits_on is not None:
            env += ["-genv", "ORDO_TEST_FINALIZE_EXITS_ON", str(exits_on)]
        base = [
            "flock",
            "/tmp/ordo-mpi.lock",
            "timeout",
            "-k",
            "5",
            "300",
            mpiexec,
            "-n",
            "2",
            *env,
            str(exe),
            *ordo_flags(journal=journal, vendor="mpich", adapter=adapter["_path"]),
            "--gtest_filter=Op.every_predefined_reduction_op_reports_itself_commutative"
            ":Op.op_free_sets_the_handle_to_op_null",
        ]
        launches = run_job(base, "ordo_check_op", 2, out, journal, adapter, 2)
        lines = [json.loads(x) for x in journal.read_text().splitlines()]
        for r in lines:
            assert records.schema_errors(r) == [], r
        found[exits_on] = (launches, lines)
    launches, lines = found[None]
    assert [x["rc"] for x in launches] == [0] and lines
    assert not job_records(lines), job_records(lines)
    launches, lines = found[1]
    assert [x["rc"] for x in launches] == [0]  # the launcher hid the death
    dead = job_records(lines)
    assert len(dead) == 1 and dead[0]["outcome"] == "crash", dead
    job = dead[0]["job"]
    assert job["where"] == "after_last_case" and job["finalize_not_returned"] == [1]
    assert "MPI_Finalize did not return on rank(s) 1 of 2" in dead[0]["message"]
    assert len(lines) == len(found[None][1]) + 1
    assert _leftovers(out) == []

"""Derived case limits (issue #17): a library that hangs in one family of
cases costs a short limit per further case of that family, not the full
--case-timeout, and every hung case is still run and recorded as `timeout`
with the limit that applied and why. The rules themselves are the harness's
(conformance/harness/case_limits.h, tested by harness.case_limits); here the
runner's statistics and a real run of the mutant MPI."""
import json
import time

from conftest import journal_records as records, needs_build, run_ordo
from reports.records import HELD_BACK
from runner.case_limits import (
    HUNG_MESSAGE,
    CaseStats,
    call_key,
    hang_key,
    held_back,
    hung,
    kind_of,
)


def rec(
    routine="MPI_Reduce",
    ranks=4,
    variant="default",
    outcome="pass",
    seconds=0.01,
    message="",
    case=True,
    comm="world",
    count=5,
    id="Reduce.x#0",
    comm_size=4,
    root=0,
):
    r = {
        "routine": routine,
        "test": "Reduce.x",
        "ranks": ranks,
        "variant": variant,
        "outcome": outcome,
        "message": message,
        "case": {"routine": "reduce", "comm": comm, "count": count, "root": root}
        if case
        else None,
        "id": id,
        "comm_size": comm_size,
    }
    if seconds is not None:
        r["case_seconds"] = seconds
    return r


def test_the_statistics_keep_the_slowest_finished_case_and_hangs_per_kind_and_ranks(
    tmp_path,
):
    journal = tmp_path / "journal.jsonl"
    lines = [
        rec(seconds=0.02),
        rec(seconds=0.5),
        rec(routine="MPI_Scan", seconds=0.1),
        rec(ranks=3, seconds=9.0),  # another rank count
        rec(outcome="skip", seconds=7.0),  # a skip took no time of the library's
        rec(
            outcome="timeout",
            seconds=None,
            message=HUNG_MESSAGE + " of 10.00 s (any: ...)",
        ),
        rec(outcome="timeout", seconds=None, variant="v", message=HUNG_MESSAGE),
        rec(
            outcome="crash",
            seconds=None,
            message="this case ended the job (exit code 139)",
        ),
        rec(
            routine=None, case=False, seconds=0.3
        ),  # a case-less check: its kind is the check
        rec(seconds=3.0, variant="slow"),
    ]  # a variant's own timing, for its own jobs
    journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    stats = CaseStats(journal)
    stats.update()
    doc = stats.for_job(4, "default")
    assert doc["kinds"]["MPI_Reduce"] == {
        "slowest_s": 0.5,
        "slowest_work": 0.0,
        "finished": 2,
        "hung": 1,
    }
    assert doc["kinds"]["MPI_Scan"] == {
        "slowest_s": 0.1,
        "slowest_work": 0.0,
        "finished": 1,
        "hung": 0,
    }
    assert doc["kinds"]["Reduce.x"]["finished"] == 1
    # A variant's own hang and its own timings only: a forced algorithm may be far
    # slower than the default's.
    assert stats.for_job(4, "v")["kinds"] == {
        "MPI_Reduce": {"slowest_s": 0.0, "finished": 0, "hung": 1}
    }
    assert "fewer" not in stats.for_job(4, "v")
    assert stats.for_job(4, "slow")["kinds"] == {
        "MPI_Reduce": {"slowest_s": 3.0, "slowest_work": 0.0, "finished": 1, "hung": 0}
    }
    assert stats.for_job(3, "default")["kinds"] == {
        "MPI_Reduce": {"slowest_s": 9.0, "slowest_work": 0.0, "finished": 1, "hung": 0}
    }
    # A rank count's first cases are bounded by the slowest case at the most ranks below
    # it that has one.
    assert "fewer" not in stats.for_job(3, "default")
    assert stats.for_job(4, "default")["fewer"] == {
        "ranks": 3,
        "kind": "MPI_Reduce",
        "slowest_s": 9.0,
        "slowest_work": 0.0,
        "finished": 1,
    }
    assert stats.for_job(8, "default")["fewer"]["ranks"] == 4
    # Read incrementally: a line appended later counts once.
    with open(journal, "a") as f:
        f.write(
            json.dumps(rec(outcome="timeout", seconds=None, message=HUNG_MESSAGE))
            + "\n"
        )
    stats.write(tmp_path / "stats.json", 4, "default")
    again = json.loads((tmp_path / "stats.json").read_text())
    assert (
        again["kinds"]["MPI_Reduce"]["hung"] == 2
        and again["kinds"]["MPI_Reduce"]["finished"] == 2
    )


def test_the_statistics_keep_the_work_of_the_slowest_case_for_the_harness_to_scale_by(
    tmp_path,
):
    """The harness scales a larger case's limit by its work over the slowest case's
    (case_limits.h); the runner hands on that case's work from its record."""
    journal = tmp_path / "journal.jsonl"
    small = dict(
        rec(seconds=0.2),
        case_limit={"seconds": 10, "rule": "any", "why": "", "work": 4096},
    )
    large = dict(
        rec(seconds=0.9),
        case_limit={"seconds": 10, "rule": "kind", "why": "", "work": 786432},
    )
    quick = dict(
        rec(seconds=0.1),
        case_limit={"seconds": 10, "rule": "kind", "why": "", "work": 8192},
    )
    journal.write_text("".join(json.dumps(r) + "\n" for r in (small, large, quick)))
    stats = CaseStats(journal)
    stats.update()
    assert stats.for_job(4, "default")["kinds"]["MPI_Reduce"] == {
        "slowest_s": 0.9,
        "slowest_work": 786432.0,
        "finished": 3,
        "hung": 0,
    }


def test_the_runner_hands_on_streaks_of_hanging_cases_per_key_rank_count_and_variant(
    tmp_path,
):
    """The harness holds back a key's cases after two hangs in a row (case_limits.h);
    the runner keeps each key's streak from the journal, per variant across rank counts
    (a communicator of 4 processes is one in a world of 4 or of 5): hangs in a row,
    cases held back since the last, the last one's id and rank count.
    """

    def timeout(**kw):
        return rec(
            outcome="timeout", seconds=None, message=HUNG_MESSAGE + " of 0.50 s", **kw
        )

    def skipped(**kw):
        r = rec(outcome="skip", seconds=0, **kw)
        return dict(
            r,
            message=(
                f"{HELD_BACK}: the last 2 cases of {hang_key(r)} that ran in this run"
                " hung ..."
            ),
        )

    journal = tmp_path / "journal.jsonl"
    lines = [
        timeout(id="R#1"),
        timeout(id="R#2"),
        skipped(id="R#3"),
        timeout(id="R#4"),
        skipped(id="R#5"),
        timeout(
            comm="odd-even", comm_size=2, id="R#6"
        ),  # two processes: a key of its own, and ...
        rec(
            comm="odd-even", comm_size=2, id="R#7"
        ),  # ... a case of it finished: its streak ends
        timeout(count=0, id="R#8"),  # count 0 is a key of its own
        timeout(variant="v", id="R#9"),
        timeout(ranks=3, id="R#10"),
        timeout(comm="inter:1,3", id="R#11"),  # an intercommunicator: a key of its own
        rec(
            outcome="skip", message="communicator shape x needs more ranks", comm="dup"
        ),  # not a verdict
        dict(
            rec(
                routine="MPI_Scan",
                outcome="crash",
                seconds=None,
                message="this case ended the job",
            ),
            case={"routine": "scan", "comm": "world", "count": 5, "root": 0},
        ),
    ]
    journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    stats = CaseStats(journal)
    stats.update()
    doc = stats.for_job(4, "default")
    four, zero = (
        "MPI_Reduce on communicators of 4 processes",
        "MPI_Reduce on communicators of 4 processes, count 0",
    )
    assert doc["hang_streaks"] == {
        four: {
            "hung": 4,
            "skipped": 0,
            "last": "R#10 at 3 ranks",
        },  # R#10 at 3 ranks continues the streak
        zero: {"hung": 1, "skipped": 0, "last": "R#8 at 4 ranks"},
        "MPI_Reduce on intercommunicators of 4 processes": {
            "hung": 1,
            "skipped": 0,
            "last": "R#11 at 4 ranks",
        },
        # The call keys (routine, count, root, on any communicator): R#7 of count 5
        # finished after R#6.
        "MPI_Reduce in any form with count 5 and root 0": {
            "hung": 2,
            "skipped": 0,
            "last": "R#11 at 4 ranks",
        },
        "MPI_Reduce in any form with count 0 and root 0": {
            "hung": 1,
            "skipped": 0,
            "last": "R#8 at 4 ranks",
        },
    }
    assert stats.for_job(4, "v")["hang_streaks"] == {
        four: {"hung": 1, "skipped": 0, "last": "R#9 at 4 ranks"},
        "MPI_Reduce in any form with count 5 and root 0": {
            "hung": 1,
            "skipped": 0,
            "last": "R#9 at 4 ranks",
        },
    }
    assert stats.for_job(5, "default")["hang_streaks"] == doc["hang_streaks"]
    # Before R#10, the held-back cases since the last hang counted.
    early = CaseStats(journal)
    early.add(lines[0]), early.add(lines[1]), early.add(lines[2])
    assert early.for_job(4, "default")["hang_streaks"][four] == {
        "hung": 2,
        "skipped": 1,
        "last": "R#2 at 4 ranks",
    }
    # A case of the threads check's phase not run because another case of the phase was
    # held back names that case's key: the harness did not count it under its own key,
    # nor does the runner.
    early.add(
        dict(
            skipped(),
            message=(
                f"{HELD_BACK}: the threaded phase runs these 4 cases together, and"
                " thread 1's case (MPI_Ireduce) was held back: the last 2 cases of"
                " MPI_Ireduce on communicators of 4 processes that ran in this run"
                " hung ..."
            ),
        )
    )
    assert early.for_job(4, "default")["hang_streaks"][four]["skipped"] == 1
    # A case of the key that ran to its verdict (pass, fail, crash, ...) ends the
    # streak.
    with open(journal, "a") as f:
        f.write(
            json.dumps(rec(outcome="fail", message="expected 1, observed 2")) + "\n"
        )
    stats.update()
    assert sorted(stats.for_job(4, "default")["hang_streaks"]) == [
        "MPI_Reduce in any form with count 0 and root 0",
        zero,
        "MPI_Reduce on intercommunicators of 4 processes",
    ]
    # --run-hung-kinds: no streak is handed on, every case runs.
    everything = CaseStats(journal, hold_back=False)
    everything.update()
    assert everything.for_job(4, "default")["hang_streaks"] == {}
    assert everything.for_job(4, "default")["kinds"]["MPI_Reduce"]["hung"] == 6
    assert (
        hang_key(rec(case=False)) is None
        and held_back(skipped())
        and not held_back(rec(outcome="skip"))
    )
    # the argument checks' path
    assert hang_key(dict(rec(), level="DETECT")) == four + ", erroneous calls"


def test_a_count_and_root_that_hang_on_every_communicator_keep_their_own_streak(
    tmp_path,
):
    """Issue #38: MPI_Reduce hangs at one count and root on every communicator, and the
    routine's other cases finish between its hangs, ending every hang key's streak; the
    call key (routine, count, root, on any communicator) keeps its own, so the harness
    holds its cases back after two hangs in a row and gives a case whose call key's last
    case hung the short limit of rule "again"."""

    def timeout(**kw):
        return rec(
            outcome="timeout",
            seconds=None,
            message=HUNG_MESSAGE + " of 10.00 s",
            count=7,
            **kw,
        )

    journal = tmp_path / "journal.jsonl"
    lines = [
        timeout(comm="world", comm_size=2, ranks=2, id="C#1"),
        rec(
            count=1000, comm="world", comm_size=2, ranks=2, id="C#2"
        ),  # another count: it finishes
        rec(
            count=7, root=1, comm="world", comm_size=2, ranks=2, id="C#3"
        ),  # another root: it finishes
        timeout(comm="dup", comm_size=2, ranks=2, id="C#4"),
        rec(count=1000, comm="dup", comm_size=2, ranks=2, id="C#5"),
        timeout(comm="world", comm_size=3, ranks=3, id="C#6"),
    ]
    journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    stats = CaseStats(journal)
    stats.update()
    key = "MPI_Reduce in any form with count 7 and root 0"
    assert (
        call_key(lines[0]) == key
        and call_key(lines[2]) == "MPI_Reduce in any form with count 7 and root 1"
    )
    assert (
        call_key(
            dict(
                rec(routine="MPI_Allreduce"),
                case={"routine": "allreduce", "count": 7, "root": 0},
            )
        )
        == "MPI_Allreduce in any form with count 7"
    )
    # every form of the routine
    assert call_key(dict(lines[0], routine="MPI_Ireduce_c")) == key
    assert call_key(dict(lines[0], level="DETECT")) == key + ", erroneous calls"
    assert call_key(rec(case=False)) is None
    streaks = stats.for_job(3, "default")["hang_streaks"]
    # Three hangs in a row on three communicators; no hang key has two (another count
    # finished between).
    assert streaks[key] == {"hung": 3, "skipped": 0, "last": "C#6 at 3 ranks"}
    assert "MPI_Reduce on communicators of 2 processes" not in streaks
    assert streaks["MPI_Reduce on communicators of 3 processes"]["hung"] == 1
    # A case held back by the call key counts there; one of the combination that
    # finishes ends its streak.
    with open(journal, "a") as f:
        f.write(
            json.dumps(
                dict(
                    rec(outcome="skip", count=7, id="C#7", ranks=3, comm_size=3),
                    message=(
                        f"{HELD_BACK}: the last 3 cases of {key} that ran in this run"
                        " hung ..."
                    ),
                )
            )
            + "\n"
        )
    stats.update()
    assert stats.for_job(3, "default")["hang_streaks"][key]["skipped"] == 1
    assert (
        stats.for_job(3, "default")["hang_streaks"][
            "MPI_Reduce on communicators of 3 processes"
        ]["skipped"]
        == 0
    )
    with open(journal, "a") as f:
        f.write(
            json.dumps(rec(count=7, comm="inter:1,2", comm_size=3, ranks=3, id="C#8"))
            + "\n"
        )
    stats.update()
    assert key not in stats.for_job(3, "default")["hang_streaks"]


def test_a_kind_is_the_records_routine_and_only_a_case_that_overran_is_a_hang():
    assert kind_of(rec()) == "MPI_Reduce" and kind_of(rec(case=False)) == "Reduce.x"
    # a user function and a derived datatype are kinds of their own (as case_limits.cpp
    # case_kind)
    user = dict(
        rec(routine="MPI_Reduce_init"),
        case={"op": "witness.multiset", "datatype": "contiguous(4,MPI_INT)"},
    )
    assert kind_of(user) == "MPI_Reduce_init with a user op on a derived datatype"
    assert (
        kind_of(
            dict(rec(), case={"op": "MPI_SUM", "datatype": "vector(2,1,3,MPI_INT)"})
        )
        == "MPI_Reduce on a derived datatype"
    )
    assert (
        kind_of(dict(rec(), case={"op": "MPI_SUM", "datatype": "MPI_DOUBLE"}))
        == "MPI_Reduce"
    )
    assert hung(rec(outcome="timeout", message=HUNG_MESSAGE + " ..."))
    assert hung(
        rec(
            outcome="waived",
            message=HUNG_MESSAGE + " ... | waived until 2027-01-01: known",
        )
    )
    assert not hung(
        rec(outcome="timeout", message="the job ended (exit code 124) outside any case")
    )
    assert not hung(rec(outcome="fail", message="expected 1, observed 2"))


def test_the_runners_timeout_record_names_the_limit_that_ended_the_case():
    from reports import records

    limit = {
        "seconds": 2.0,
        "rule": "hung",
        "why": "1 MPI_Reduce case(s) already timed out at 4 ranks in this run",
    }
    begun = {
        "seq": 7,
        "id": "Reduce.x#6",
        "test": "Reduce.x",
        "clause": "reduce.values",
        "level": "MUST",
        "case": {"routine": "reduce"},
        "routine": "MPI_Reduce",
        "case_limit": limit,
    }
    r = records.case_died(
        begun,
        ranks=4,
        vendor="mutants",
        variant="default",
        timed_out=True,
        rc=124,
        tail="",
        duration_s=2.1,
        log="x.log",
    )
    assert r["outcome"] == "timeout" and r["case_limit"] == limit
    assert "of 2.00 s (hung: 1 MPI_Reduce case(s) already timed out" in r[
        "message"
    ] and hung(r)
    crash = records.case_died(
        begun,
        ranks=4,
        vendor="mutants",
        variant="default",
        timed_out=False,
        rc=139,
        tail="",
        duration_s=0.1,
        log="x.log",
    )
    assert crash["outcome"] == "crash" and not hung(crash)


def test_bad_floors_are_refused_in_one_line(tmp_path):
    for flag, value in (
        ("--case-floor", "-1"),
        ("--hung-case-floor", "0"),
        ("--case-timeout", "inf"),
    ):
        p = run_ordo(
            "run", flag, value, "--out", str(tmp_path / f"o{flag}"), "--ranks", "1"
        )
        assert p.returncode == 2, (flag, p.stdout[-1000:], p.stderr)
        assert p.stderr.count("\n") == 1 and flag in p.stderr


# ---- a real run of the mutant MPI --------------------------------------------------

# The determinism check at 2 to 4 ranks: a few hundred cases of every routine. The
# mutant hang-reduce-at-4-ranks hangs MPI_Reduce at the root of every 4-process
# communicator. The floors are those of a short run (a default run's are 10 s and 2 s).
RUN = [
    "run",
    "--vendor",
    "mutants",
    "--ranks",
    "2-4",
    "--filter",
    "determinism",
    "--property-budget",
    "0",
    "--case-floor",
    "2",
    "--hung-case-floor",
    "0.5",
]


def timed(out, *extra):
    t0 = time.time()
    p = run_ordo(*RUN, "--out", str(out), *extra, timeout=900)
    return p, time.time() - t0


HANG = ("--env", "ORDO_MUTANT=hang-reduce-at-4-ranks")


def test_a_library_hanging_in_one_family_records_every_hung_case_and_keeps_the_others(
    tmp_path,
):
    needs_build("mutants")
    clean, t_clean = timed(tmp_path / "clean")
    assert clean.returncode == 0, clean.stdout[-3000:] + clean.stderr
    hanging, t_hang = timed(tmp_path / "hang", *HANG)
    assert hanging.returncode == 1, hanging.stdout[-3000:] + hanging.stderr
    print(f"clean run {t_clean:.1f} s, hanging run {t_hang:.1f} s")
    a = {(r["ranks"], r["id"]): r for r in records(tmp_path / "clean")}
    b = {(r["ranks"], r["id"]): r for r in records(tmp_path / "hang")}
    assert len(a) == len(records(tmp_path / "clean")) and len(b) == len(
        records(tmp_path / "hang")
    )
    assert set(a) == set(b), "a case was dropped or added"
    hung_cases = sorted(
        (r for r in b.values() if r["outcome"] == "timeout"), key=lambda r: r["seq"]
    )
    # Held back by its hang key; a case held back by its call key (its routine in any
    # form with its count and root, on any communicator: issue #38) may be on another
    # communicator, and its message names that key.
    by_call = {
        k: r
        for k, r in b.items()
        if held_back(r) and f"cases of {call_key(r)} that ran" in r["message"]
    }
    assert all(
        r["routine"] in ("MPI_Reduce", "MPI_Ireduce", "MPI_Reduce_init")
        for r in by_call.values()
    )
    held = sorted(
        (r for k, r in b.items() if held_back(r) and k not in by_call),
        key=lambda r: r["seq"],
    )
    # Each MPI_Reduce case that the clean run finished at 4 ranks in a 4-process
    # communicator hangs.
    expected = {
        k
        for k, r in a.items()
        if k[0] == 4
        and r.get("routine") == "MPI_Reduce"
        and r["comm_size"] == 4
        and r["case"].get("count", 0) > 0
        and not r["case"]["comm"].startswith("inter")
    }
    # Every hung case is one of them, recorded with the limit that applied; so is every
    # case held back after two of its key hung in a row; every other case has the
    # outcome of the clean run.
    assert len(hung_cases) >= 3 and held
    for r in hung_cases:
        assert (
            r["ranks"] == 4
            and r["case"]["routine"] == "reduce"
            and r["message"].startswith(HUNG_MESSAGE)
        )
        assert r["case_limit"]["seconds"] > 0 and r["case_limit"]["why"]
    assert {(r["ranks"], r["id"]) for r in hung_cases + held} == expected - set(by_call)
    assert {
        k: r["outcome"] for k, r in b.items() if k not in expected and k not in by_call
    } == {
        k: a[k]["outcome"]
        for k, r in b.items()
        if k not in expected and k not in by_call
    }
    # Per key, in order: two hangs, then 1 held back, a hang, 4 held back, a hang, 16
    # held back, ...; each held-back case names the last hang of its key.
    by_key = {}
    for r in sorted(hung_cases + held + list(by_call.values()), key=lambda r: r["seq"]):
        by_key.setdefault(hang_key(r), []).append(r)
    for key, rs in by_key.items():
        hangs, skipped, last = 0, 0, None
        for r in rs:
            if r["outcome"] == "timeout":
                assert hangs < 2 or skipped == 4 ** (hangs - 2), (
                    key,
                    r["id"],
                    hangs,
                    skipped,
                )
                hangs, skipped, last = hangs + 1, 0, r["id"]
            elif (r["ranks"], r["id"]) not in by_call:
                assert hangs >= 2 and skipped < 4 ** (hangs - 2), (key, r["id"])
                assert (
                    f"the last {hangs} cases of {key} that ran in this run hung (the"
                    f" last: {last} at 4 ranks)" in r["message"]
                ), r["message"]
                skipped += 1
    # The reports say why they were not run.
    summary = (tmp_path / "hang" / "summary.md").read_text()
    assert (
        f"{len(held) + len(by_call)} checks not run because the cases of their routine"
        " on their communicator kept hanging" in summary
    )
    # The first hang had the limit derived from the finished cases; the next ones the
    # shorter one of a hung kind.
    first, rest = hung_cases[0], hung_cases[1:]
    assert first["case_limit"]["rule"] in ("kind", "any")
    assert all(
        r["case_limit"]["rule"] in ("hung", "again", "probe")
        and r["case_limit"]["seconds"] < first["case_limit"]["seconds"]
        for r in rest
    )
    # Every record of the clean run says which limit applied, with its wall time.
    assert all(
        "case_limit" in r and "case_seconds" in r for r in a.values() if r.get("case")
    )
    # The wall-time ratio itself (the "at most twice the clean run's time") is a
    # speed figure: it is measured by `ordo bench --hangs` (bench/results/suite.json),
    # never asserted by a timed test; here the limits that bound it: every hung case
    # after the first cost at most its short limit.
    assert all(
        r["case_limit"]["seconds"] <= first["case_limit"]["seconds"] for r in rest
    )
    # After the first hang every resumption but the first was made ready beside the
    # launch before it (a standby launch, runner/job.py): it resumed after its go, and
    # nothing of it or of an unused one is left.
    done = [
        json.loads(line)
        for line in (tmp_path / "hang" / "progress.jsonl").read_text().splitlines()
    ]
    launches = [
        x
        for e in done
        if e["event"] == "done" and e["ranks"] == 4
        for x in e.get("launches", [])
    ]
    assert len(launches) == len(hung_cases) + 1
    assert not launches[0].get("standby") and not launches[1].get("standby")
    assert all(x.get("standby") for x in launches[2:])
    assert all(x["phases"]["standby_s"] >= 0 for x in launches[2:] if x["phases"])
    assert not list((tmp_path / "hang").glob("journal.jsonl.standby-*"))
    logs = list((tmp_path / "hang" / "logs").glob("ordo_check_determinism-4ranks*.log"))
    assert len(logs) == len(launches), sorted(p.name for p in logs)
    # `--run-hung-kinds` runs every case: each of those hangs and is recorded as
    # `timeout` (4 ranks only: the hangs are there).
    every, _ = timed(tmp_path / "every", *HANG, "--ranks", "4", "--run-hung-kinds")
    assert every.returncode == 1, every.stdout[-3000:] + every.stderr
    c = {(r["ranks"], r["id"]): r for r in records(tmp_path / "every")}
    assert {k for k, r in c.items() if r["outcome"] == "timeout"} == expected
    assert not [r for r in c.values() if held_back(r)]


def test_the_property_phase_gets_the_derived_limits_and_holds_back_cases_that_hang(
    tmp_path,
):
    """Before, each generated case of a kind that hangs cost the property phase's whole
    per-case limit (60 s by default): 15 such cases at 4 processes took 15 minutes."""
    needs_build("mutants")
    # The huge check (its cases are skips without --huge) first: the property phase
    # meets the hangs first.
    p = run_ordo(
        "run",
        "--vendor",
        "mutants",
        "--ranks",
        "4",
        "--filter",
        "huge",
        "--property-budget",
        "300",
        "--case-timeout",
        "5",
        "--case-floor",
        "2",
        "--hung-case-floor",
        "0.5",
        *HANG,
        "--out",
        str(tmp_path / "o"),
        timeout=900,
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    props = [
        r
        for r in records(tmp_path / "o")
        if r["test"].startswith("Properties.") and r.get("seq")
    ]
    hung_cases = [r for r in props if r["outcome"] == "timeout"]
    held = [r for r in props if held_back(r)]
    assert hung_cases and held, [r["outcome"] for r in props][:50]
    # Each timeout had a derived limit: the first of each routine from the cases that
    # finished (their floor, 2 s here), the next ones the short limit of a kind that
    # hung or of a probe of a key that keeps hanging (0.5 s here); never the whole case
    # timeout.
    assert all(
        r["case_limit"]["rule"] in ("any", "kind", "fewer", "hung", "probe", "again")
        and r["case_limit"]["seconds"] <= 2
        for r in hung_cases
    ), [r["case_limit"] for r in hung_cases]
    assert all(
        r["case_limit"]["seconds"] <= 0.5
        for r in hung_cases
        if r["case_limit"]["rule"] in ("probe", "again")
    )
    assert any(r["case_limit"]["rule"] == "hung" for r in hung_cases)
    assert {hang_key(r) for r in held if hang_key(r) in r["message"]} <= {
        hang_key(r) for r in hung_cases
    }
    assert {call_key(r) for r in held if hang_key(r) not in r["message"]} <= {
        call_key(r) for r in hung_cases
    }
    assert all(
        r["routine"] in ("MPI_Reduce", "MPI_Ireduce", "MPI_Reduce_init")
        and r["comm_size"] == 4
        for r in hung_cases + [h for h in held if hang_key(h) in h["message"]]
    )


def test_probes_of_a_key_that_keeps_hanging_and_fortran_and_thread_cases_are_held_back(
    tmp_path,
):
    """A case that runs while its key keeps hanging (the 1 in 1, 4, 16, ...) has the
    short limit of rule "probe" even when its own kind has not hung (before: the 10 s
    floor of a first case of its kind, or 30 s from afar); the Fortran programs' cases
    (on the world) and the threads check's phase are held back as the other cases are
    (before: each ran and hung)."""
    needs_build("mutants")
    p = run_ordo(
        "run",
        "--vendor",
        "mutants",
        "--ranks",
        "4",
        "--filter",
        "buffers,threads,fortran",
        "--only",
        "Buffers.*:Threads.concurrent*:Fortran_seeds.*",
        "--property-budget",
        "0",
        "--case-timeout",
        "5",
        "--case-floor",
        "2",
        "--hung-case-floor",
        "0.5",
        *HANG,
        "--out",
        str(tmp_path / "o"),
        timeout=900,
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    rs = records(tmp_path / "o")
    hung_cases = [r for r in rs if r["outcome"] == "timeout"]
    probes = [r for r in hung_cases if r["case_limit"]["rule"] == "probe"]
    # A probe of MPI_Reduce with a user op on a derived datatype after the hangs of
    # MPI_Reduce's other cases.
    assert probes, [r["case_limit"] for r in hung_cases]
    for r in probes:
        assert r["case_limit"]["seconds"] == 0.5, r["case_limit"]
        assert (
            f"cases of {hang_key(r)} that ran in this run hung"
            in r["case_limit"]["why"]
        ), r["case_limit"]
        assert " with a user op" in kind_of(r) or " on a derived datatype" in kind_of(r)
        assert not any(
            q["outcome"] == "timeout"
            and kind_of(q) == kind_of(r)
            and q["seq"] < r["seq"]
            for q in hung_cases
        ), "the probe's own kind had not hung before it"
    # Every Fortran program's case (MPI_Reduce at the root of the world of 4) is held
    # back or hung, and its record names the size of its communicator.
    seeds = [r for r in rs if r["test"].startswith("Fortran_seeds.")]
    assert seeds and all(held_back(r) or r["outcome"] == "timeout" for r in seeds), [
        (r["outcome"], r["message"][:80]) for r in seeds
    ]
    assert all(r["comm_size"] == 4 for r in seeds)
    assert any(held_back(r) for r in seeds)
    # The threads check's phase: one of its cases (MPI_Ireduce on a duplicate of the
    # world) keeps hanging, so the phase does not run; that case's record names its own
    # key, the three others that it was held back.
    phase = [
        r
        for r in rs
        if r["test"]
        == "Threads.concurrent_reductions_on_distinct_communicators_from_several_"
        "threads"
    ]
    assert len(phase) == 4 and all(held_back(r) for r in phase), [
        r["message"][:80] for r in phase
    ]
    own = [
        r
        for r in phase
        if f"cases of {hang_key(r)} that ran" in r["message"]
        or f"cases of {call_key(r)} that ran" in r["message"]
    ]
    assert [r["routine"] for r in own] == ["MPI_Ireduce"]
    assert all(
        "the threaded phase runs these 4 cases together, and thread 1's case"
        " (MPI_Ireduce) was held back" in r["message"]
        for r in phase
        if r not in own
    )


def test_bench_hangs_counts_a_runs_seconds_without_its_waits_for_the_mpi_lock(tmp_path):
    """run.json's seconds per rank count are wall time; with other runs holding the MPI
    lock a clean MPICH run at ranks 2-4 read 44, 301 and 568 s (issue #38). Each rank
    count says how long it waited (lock_wait_s), and `ordo bench --hangs` leaves that
    out."""
    import bench

    for name, rows in (
        ("clean", [(2, 40.0, 30.0), (3, 20.0, 0.0)]),
        ("hang", [(2, 25.0, 0.0), (3, 35.0, 20.0)]),
    ):
        d = tmp_path / name
        d.mkdir()
        (d / "run.json").write_text(
            json.dumps(
                {
                    "end": "x",
                    "ranks": [2, 3],
                    "settings": {},
                    "per_rank_count": [
                        {"ranks": n, "seconds": s, "lock_wait_s": w} for n, s, w in rows
                    ],
                }
            )
        )
        (d / "journal.jsonl").write_text(json.dumps(rec()) + "\n")
    row = bench.hang_row([tmp_path / "clean", tmp_path / "hang"])
    assert (row["clean"]["seconds"], row["hanging"]["seconds"], row["ratio"]) == (
        30.0,
        40.0,
        1.33,
    )
    assert (row["clean"]["lock_wait_s"], row["hanging"]["lock_wait_s"]) == (30.0, 20.0)


def test_the_threaded_phase_has_the_limit_of_its_threads_calling_at_once(tmp_path):
    """The threads check runs four threads' calls under the watchdog of its first
    case. Its limit was one case's (the 10 s floor at most 7-8 ranks on 2 cores), and
    an MPICH --variants all sweep under load recorded two false timeouts of it
    (mpich.ireduce.intra.tsp_ring.chunk256 at 7 ranks, mpich.ch4.scan.composition_alpha
    at 8), each of which passes in about 1 s replayed. Now the limit is that many
    times one case's (a limit derived from cases that finished, here the
    determinism check's), and the record says so."""
    needs_build("mutants")
    p = run_ordo(
        "run",
        "--vendor",
        "mutants",
        "--ranks",
        "2",
        "--filter",
        "determinism,threads",
        "--only",
        "Allreduce.*:Threads.concurrent*",
        "--property-budget",
        "0",
        "--case-floor",
        "2",
        "--out",
        str(tmp_path / "o"),
        timeout=600,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    phase = [
        r
        for r in records(tmp_path / "o")
        if r.get("test", "").startswith("Threads.concurrent") and r.get("case_limit")
    ]
    assert phase, "no record of the threaded phase carries its limit"
    first = phase[0]["case_limit"]
    assert "x 4 threads calling at once" in first["why"], first
    assert first["seconds"] >= 4 * 2, first
    # the other cases of the phase keep one case's limit
    assert all("threads calling" not in r["case_limit"]["why"] for r in phase[1:])


def test_the_statistics_keep_the_least_work_of_a_kinds_hung_cases(tmp_path):
    """The harness gives a kind's short limit only to cases of at least the work
    of the least of its hung cases (case_limits.cpp): Open MPI 4.1.4's coll/sm
    hangs on elements of 4112 bytes, and a 16-byte case of the same kind then
    timed out at the 1 s floor, a false verdict. A hung case whose work is not
    known leaves the short limit for every case."""

    def timed_out(work):
        r = rec(outcome="timeout", seconds=None, message=HUNG_MESSAGE)
        if work is not None:
            r["case_limit"] = {"rule": "kind", "seconds": 10.0, "work": work}
        return r

    journal = tmp_path / "journal.jsonl"
    lines = [rec(seconds=0.05), timed_out(4112000.0), timed_out(4112.0)]
    journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    stats = CaseStats(journal)
    stats.update()
    kind = stats.for_job(4, "default")["kinds"]["MPI_Reduce"]
    assert kind["hung"] == 2 and kind["hung_min_work"] == 4112.0
    with open(journal, "a") as f:
        f.write(json.dumps(timed_out(None)) + "\n")
    stats.update()
    kind = stats.for_job(4, "default")["kinds"]["MPI_Reduce"]
    assert kind["hung"] == 3 and "hung_min_work" not in kind

"""ordo gate: regressions against a baseline, and waivers (synthetic runs, no MPI)."""
import datetime
import json
import os
import subprocess

import pytest

from conftest import ROOT, needs_build, record, run_json, write_run
from reports import gate, results
from reports import waivers as waivers_module

ORDO = str(ROOT / "ordo")
TODAY = "2026-11-22"
WAIVER = {
    "id": "w-1",
    "test": "Reduce.*",
    "reason": "known bug, upstream #1",
    "upstream": "https://example.org/1",
    "expires": "2027-06-30",
}


def run_gate(tmp_path, baseline, new, waivers=(WAIVER,), today=TODAY, args=()):
    path = tmp_path / "waivers.json"
    path.write_text(
        json.dumps(
            {"schema": "ordo.waivers/1", "vendor": "mpich", "waivers": list(waivers)}
        )
    )
    p = subprocess.run(
        [
            ORDO,
            "gate",
            "--baseline",
            str(baseline),
            str(new),
            "--waivers",
            str(path),
            "--today",
            today,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return p


def runs(tmp_path, old, new, new_run=None, old_run=None):
    a = write_run(tmp_path / "old", old, run=old_run)
    b = write_run(tmp_path / "new", new, run=new_run)
    results.write(a)
    return a / "results.json.gz", b


def passing(n=4):
    return [record(index=i, ranks=r, root=i) for r in (2, 4) for i in range(n)]


def test_an_unchanged_run_passes(tmp_path):
    old, new = runs(tmp_path, passing(), passing())
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.rstrip().endswith("gate: PASS") and "0 regressions" in p.stdout


def test_a_check_that_passed_and_now_fails_is_caught_and_named(tmp_path):
    new = passing()
    new[5] = dict(new[5], outcome="fail", message="on rank 0: expected 0, observed -2")
    new[6] = dict(new[6], outcome="timeout", message="did not finish")
    old, new_dir = runs(tmp_path, passing(), new)
    p = run_gate(tmp_path, old, new_dir)
    assert p.returncode == 1, p.stdout + p.stderr
    lines = [line for line in p.stdout.splitlines() if line.startswith("REGRESSION")]
    assert len(lines) == 2
    assert (
        "at 4 ranks" in lines[0] and "root=1" in lines[0] and "pass -> fail" in lines[0]
    )
    assert "pass -> timeout" in lines[1]
    assert "replay: ./ordo replay" in p.stdout and p.stdout.rstrip().endswith(
        "gate: FAIL"
    )


def test_a_failure_already_in_the_baseline_does_not_fail_the_gate(tmp_path):
    both = passing()
    both[0] = dict(both[0], outcome="fail", message="old bug")
    fixed = passing()
    old, new = runs(tmp_path, both, both)
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 0 and "1 still failing as in the baseline" in p.stdout
    old, new = runs(tmp_path / "2", both, fixed)
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 0 and "1 fixed" in p.stdout


def test_a_new_check_that_crashes_is_a_regression(tmp_path):
    crash = {
        "schema": "ordo.check/1",
        "id": "ordo_check_reduce@4ranks#job0",
        "test": "ordo_check_reduce",
        "clause": "harness.job",
        "level": "MUST",
        "case": None,
        "ranks": 4,
        "vendor": "mpich",
        "variant": "default",
        "outcome": "crash",
        "message": "exit code 139",
    }
    old, new = runs(tmp_path, passing(), passing() + [crash])
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 1 and "not in the baseline -> crash" in p.stdout


def test_a_waived_check_whose_waiver_lapsed_is_a_regression(tmp_path):
    waived = passing()
    waived[0] = dict(
        waived[0], outcome="waived", waiver="w-1", message="x | waived until 2027-06-30"
    )
    lapsed = passing()
    lapsed[0] = dict(
        lapsed[0],
        outcome="fail",
        message="x | the waiver for this check expired on 2026-01-01",
    )
    old, new = runs(tmp_path, waived, lapsed)
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 1 and "waived -> fail" in p.stdout


def test_an_expired_waiver_fails_the_gate(tmp_path):
    waived = passing()
    waived[0] = dict(waived[0], outcome="waived", waiver="w-1", message="x")
    old, new = runs(tmp_path, waived, waived)
    assert run_gate(tmp_path, old, new).returncode == 0
    p = run_gate(tmp_path, old, new, waivers=[dict(WAIVER, expires="2026-11-21")])
    assert p.returncode == 1
    assert "WAIVER      waiver w-1 expired on 2026-11-21" in p.stdout
    # The day it expires it still holds.
    assert (
        run_gate(tmp_path, old, new, waivers=[dict(WAIVER, expires=TODAY)]).returncode
        == 0
    )


@pytest.mark.parametrize(
    "waiver, problem",
    [
        ({k: v for k, v in WAIVER.items() if k != "reason"}, "has no reason"),
        (dict(WAIVER, reason="  "), "has no reason"),
        ({k: v for k, v in WAIVER.items() if k != "expires"}, "has no expiry date"),
        (dict(WAIVER, expires="30/06/2027"), "malformed expiry date"),
        (dict(WAIVER, expires="2027-02-30"), "malformed expiry date"),
    ],
)
def test_a_waiver_needs_a_reason_and_an_expiry_date(tmp_path, waiver, problem):
    old, new = runs(tmp_path, passing(), passing())
    p = run_gate(tmp_path, old, new, waivers=[waiver])
    assert p.returncode == 1 and problem in p.stdout


def test_a_check_waived_by_an_unknown_waiver_fails_the_gate(tmp_path):
    waived = passing()
    waived[0] = dict(waived[0], outcome="waived", waiver="gone", message="x")
    old, new = runs(tmp_path, waived, waived)
    p = run_gate(tmp_path, old, new)
    assert (
        p.returncode == 1
        and "waived by 'gone', which is not in the waivers file" in p.stdout
    )


def test_a_partial_new_run_fails_the_gate(tmp_path):
    old, new = runs(tmp_path, passing(), passing(), new_run=run_json(end=False))
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 1 and "PARTIAL     the new run is partial" in p.stdout


def test_the_default_waivers_are_those_of_the_vendor(tmp_path):
    report = results.build(write_run(tmp_path / "r", passing()))
    waivers, source = gate.default_waivers(report)
    assert source.endswith("vendors/mpich/waivers.json") and waivers
    assert not gate.waiver_problems(waivers, datetime.date(2026, 11, 22))


def test_a_site_adapter_names_its_own_waivers_file(tmp_path):
    """The adapter's "waivers" key is honoured (reports/waivers.py locate), for the gate
    and the report."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "adapter.json").write_text(
        json.dumps({"name": "site", "waivers": "known-bugs.json"})
    )
    (site / "known-bugs.json").write_text(
        json.dumps(
            {
                "schema": "ordo.waivers/1",
                "vendor": "site",
                "waivers": [
                    {
                        "id": "site-1",
                        "test": "*",
                        "reason": "r",
                        "upstream": "u",
                        "expires": "2099-12-31",
                    }
                ],
            }
        )
    )
    run = run_json(vendor="site", adapter=str(site / "adapter.json"))
    report = results.build(write_run(tmp_path / "r", passing(), run=run))
    waivers, source = gate.default_waivers(report)
    assert source == str(site / "known-bugs.json") and [w["id"] for w in waivers] == [
        "site-1"
    ]
    assert report["waivers"]["source"] == source


def test_unreadable_input_is_a_usage_error(tmp_path):
    old, new = runs(tmp_path, passing(), passing())
    for args in ((tmp_path / "nope.json", new), (old, tmp_path / "nope")):
        p = subprocess.run(
            [ORDO, "gate", "--baseline", str(args[0]), str(args[1])],
            capture_output=True,
            text=True,
        )
        assert (
            p.returncode == 2
            and p.stderr.startswith("ordo: ")
            and len(p.stderr.strip().splitlines()) == 1
        )
    p = subprocess.run(
        [ORDO, "gate", "--baseline", str(old), str(new), "--today", "soon"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2 and "--today" in p.stderr


# ---- version-bound waivers (issue #13)
# ---------------------------------------------------


def test_a_waiver_of_another_release_does_not_hide_a_failure_and_the_gate_names_it(
    tmp_path,
):
    """The new run waived a check with a waiver seen in 4.0.2; the waivers file now says
    the bug is a 4.1 one: judged again for the run's library (4.0.2), the check
    fails."""
    w = dict(WAIVER, library_versions="4.0.2")
    waived = record(
        index=0,
        ranks=2,
        outcome="waived",
        waiver="w-1",
        message=(
            "on rank 0: element 0 (leaf 0, byte 0): expected 1, observed 2 | waived"
            " until 2027-06-30: known bug, upstream #1 (https://example.org/1)"
        ),
    )
    release = {"library_version": "MPICH Version:\t4.0.2\nMPICH Release date: unknown"}
    # The baseline is the run itself (the same library, the check waived): only the
    # waivers file changes.
    old, new = runs(
        tmp_path,
        passing() + [waived],
        passing() + [waived],
        new_run=run_json(**release),
        old_run=run_json(**release),
    )
    assert run_gate(tmp_path, old, new, waivers=[w]).returncode == 0
    p = run_gate(tmp_path, old, new, waivers=[dict(w, library_versions="4.1")])
    assert p.returncode == 1, p.stdout
    assert (
        "REGRESSION" in p.stdout
        and "Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 2 ranks"
        in p.stdout
    )
    assert "the waiver w-1 did not apply: it is for 4.1, not 4.0.2" in p.stdout
    assert (
        "WAIVER      the waiver w-1 did not apply to 1 checks of this run: it is for"
        " 4.1, not 4.0.2" in p.stdout
    )


def test_a_waiver_narrowed_since_the_run_no_longer_waives_what_it_does_not_name(
    tmp_path,
):
    waived = record(
        index=0,
        ranks=3,
        outcome="waived",
        waiver="w-1",
        message="m | waived until 2027-06-30: r (u)",
    )
    old, new = runs(tmp_path, passing() + [waived], passing() + [waived])
    assert run_gate(tmp_path, old, new).returncode == 0
    p = run_gate(
        tmp_path, old, new, waivers=[dict(WAIVER, ranks={"power_of_two": True})]
    )
    assert (
        p.returncode == 1 and "its trigger no longer names this check" in p.stdout
    ), p.stdout


def test_the_mpich_run_with_one_waivers_release_changed_to_4_1_fails_the_gate(tmp_path):
    """A real MPICH 4.0.2 run: MAX/MIN on unsigned types are waived
    (pmodels/mpich#6083); with that waiver's release changed to 4.1 the gate fails and
    names the checks and the waiver.
    """
    needs_build("mpich")
    out = tmp_path / "run"
    p = subprocess.run(
        [
            ORDO,
            "run",
            "--vendor",
            "mpich",
            "--ranks",
            "1",
            "--property-budget",
            "0",
            "--filter",
            "values",
            "--only",
            "Reduce_local."
            "every_valid_predefined_op_and_datatype_gives_the_reference_result",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, ORDO_NO_INSTALL="1"),
    )
    report = results.load(out)
    waived = [
        r for r in report["records"] if r.get("waiver") == "mpich-6083-unsigned-max-min"
    ]
    assert p.returncode == 0 and waived, p.stdout[-2000:] + p.stderr[-2000:]
    doc = json.loads((ROOT / "vendors" / "mpich" / "waivers.json").read_text())
    for w in doc["waivers"]:
        if w["id"] == "mpich-6083-unsigned-max-min":
            w["library_versions"] = "4.1"
    changed = tmp_path / "waivers.json"
    changed.write_text(json.dumps(doc))
    same = subprocess.run(
        [ORDO, "gate", "--baseline", str(out), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert same.returncode == 0, same.stdout
    g = subprocess.run(
        [ORDO, "gate", "--baseline", str(out), str(out), "--waivers", str(changed)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert g.returncode == 1, g.stdout
    assert (
        f"the waiver mpich-6083-unsigned-max-min did not apply to {len(waived)} checks"
        " of this run: it is for 4.1, not 4.0.2" in g.stdout
    )
    assert g.stdout.count("did not apply: it is for 4.1, not 4.0.2") == min(
        len(waived), 200
    )


# ---- a run that shrank, lost checks to skips and waivers, or ran something else (issue
# #38) -------------

AVOID = (
    "not run (--ordo-avoid-known-fatal): the waiver {} names a crash or hang of this"
    " library here"
)
FATAL = {
    "id": "w-crash",
    "test": "Reduce.*",
    "outcome": "crash",
    "ranks": 4,
    "reason": "segfault, upstream #2",
    "upstream": "https://example.org/2",
    "expires": "2027-06-30",
}


def fails_with(p, *lines):
    """The gate failed, with each given text in a line of its own cause, and FAIL as its
    last line."""
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.rstrip().splitlines()[-1] == "gate: FAIL", p.stdout
    for text in lines:
        assert any(text in line for line in p.stdout.splitlines()), (text, p.stdout)


def test_a_check_of_the_baseline_absent_from_the_new_run_fails_the_gate_and_is_named(
    tmp_path,
):
    new = [r for r in passing() if not (r["ranks"] == 4 and r["case"]["root"] == 3)]
    # as many checks as the baseline: only the one is missing
    new.append(record(index=9, ranks=4, root=7))
    old, new_dir = runs(tmp_path, passing(), new)
    p = run_gate(tmp_path, old, new_dir)
    fails_with(
        p,
        (
            "MISSING    "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 4"
            " ranks"
        ),
    )
    missing = [line for line in p.stdout.splitlines() if line.startswith("MISSING")]
    assert (
        len(missing) == 1
        and "root=3" in missing[0]
        and "pass in the baseline, not in the new run" in missing[0]
    )
    assert "1 missing" in p.stdout and "CHECKS" not in p.stdout


def test_an_empty_new_run_fails_the_gate(tmp_path):
    old, new = runs(tmp_path, passing(), [])
    p = run_gate(tmp_path, old, new)
    fails_with(p, "CHECKS      the new run has no checks", "MISSING ")


def test_a_new_run_with_fewer_checks_than_the_baseline_fails_the_gate(tmp_path):
    """A truncated job: the first two checks at 4 ranks only (the baseline's, and
    nothing else, so the count is the cause of its own line)."""
    old, new = runs(tmp_path, passing(), passing()[:6])
    p = run_gate(tmp_path, old, new)
    fails_with(
        p,
        "CHECKS      the new run has 6 checks, fewer than the baseline's 8",
        "2 missing",
    )


def test_a_check_that_passed_and_is_now_skipped_fails_the_gate(tmp_path):
    new = passing()
    new[3] = dict(
        new[3],
        outcome="skip",
        message="MPI_Reduce_init is not provided by this library",
    )
    old, new_dir = runs(tmp_path, passing(), new)
    p = run_gate(tmp_path, old, new_dir)
    fails_with(
        p,
        (
            "SKIPPED    "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 2"
            " ranks"
        ),
    )
    assert (
        "pass -> skip: MPI_Reduce_init is not provided by this library" in p.stdout
        and "1 pass -> skip" in p.stdout
    )


def test_a_check_that_passed_and_is_now_waived_fails_unless_its_waiver_is_accepted(
    tmp_path,
):
    new = passing()
    new[1] = dict(
        new[1],
        outcome="waived",
        waiver="w-1",
        message="m | waived until 2027-06-30: known bug (u)",
    )
    old, new_dir = runs(tmp_path, passing(), new)
    p = run_gate(tmp_path, old, new_dir)
    fails_with(
        p,
        (
            "WAIVED     "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 2"
            " ranks"
        ),
        "pass -> waived by w-1 (accept it with --accept-waiver w-1)",
    )
    other = dict(WAIVER, id="w-other")
    assert (
        run_gate(
            tmp_path,
            old,
            new_dir,
            waivers=[WAIVER, other],
            args=["--accept-waiver", "w-other"],
        ).returncode
        == 1
    )
    p = run_gate(
        tmp_path, old, new_dir, waivers=[WAIVER, other], args=["--accept-waiver", "w-1"]
    )
    assert p.returncode == 0, p.stdout
    assert (
        "note        accepted (--accept-waiver):" in p.stdout
        and "0 pass -> waived, 1 accepted by --accept-waiver" in p.stdout
    )
    # An accepted id the waivers file does not have is a usage error (a typo must not
    # pass silently).
    p = run_gate(tmp_path, old, new_dir, args=["--accept-waiver", "w-typo"])
    assert (
        p.returncode == 2
        and p.stderr.startswith("ordo: --accept-waiver w-typo")
        and len(p.stderr.splitlines()) == 1
    )


@pytest.mark.parametrize(
    "what, old_run, new_run, option, line",
    [
        (
            "library",
            run_json(library_version="MPICH Version:\t4.0.2"),
            run_json(library_version="MPICH Version:\t4.1.2"),
            "--accept-library-change",
            "LIBRARY     the library differs: baseline mpich 4.0.2, new mpich 4.1.2",
        ),
        (
            "vendor",
            run_json(library_version="v 4.1.2"),
            run_json(vendor="site", library_version="v 4.1.2"),
            "--accept-library-change",
            "LIBRARY     the library differs: baseline mpich 4.1.2, new site 4.1.2",
        ),
        (
            "ranks",
            run_json(ranks=(1, 2, 3, 4)),
            run_json(ranks=(2, 4, 8)),
            "--accept-ranks-change",
            "RANKS       the rank counts differ: baseline 1-4, new 2,4,8 (1,3 dropped)",
        ),
        (
            "variants",
            run_json(variants=["default", "ch4-ring"]),
            run_json(variants=["default"]),
            "--accept-variants-change",
            (
                "VARIANTS    the variants differ: baseline ch4-ring, default, new"
                " default (ch4-ring dropped)"
            ),
        ),
    ],
)
def test_another_library_rank_set_or_variant_set_fails_unless_accepted(
    tmp_path, what, old_run, new_run, option, line
):
    old, new = runs(tmp_path, passing(), passing(), new_run=new_run, old_run=old_run)
    p = run_gate(tmp_path, old, new)
    fails_with(p, line + f" (accept it with {option})")
    assert (
        len(
            [
                x
                for x in p.stdout.splitlines()
                if x[:1].isupper() and not x.startswith("ordo gate")
            ]
        )
        == 1
    ), p.stdout
    p = run_gate(tmp_path, old, new, args=[option])
    assert p.returncode == 0, p.stdout
    assert f"note        accepted ({option}): {line.split(None, 1)[1]}" in p.stdout
    # Each option accepts its own change only.
    others = [
        o
        for o in (
            "--accept-library-change",
            "--accept-ranks-change",
            "--accept-variants-change",
        )
        if o != option
    ]
    assert run_gate(tmp_path, old, new, args=others).returncode == 1


def test_a_cut_rank_set_accepted_sets_aside_the_dropped_rank_counts_and_nothing_else(
    tmp_path,
):
    """--ranks 2,4 cut to 2: accepted, the baseline's checks at 4 ranks are set aside;
    one lost at 2 ranks still fails."""
    at2 = [r for r in passing() if r["ranks"] == 2]
    old, new = runs(
        tmp_path,
        passing(),
        at2,
        old_run=run_json(ranks=(2, 4)),
        new_run=run_json(ranks=(2,)),
    )
    fails_with(
        run_gate(tmp_path, old, new),
        "RANKS       the rank counts differ: baseline 2,4, new 2 (4 dropped)",
        (
            "MISSING    "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 4"
            " ranks"
        ),
    )
    p = run_gate(tmp_path, old, new, args=["--accept-ranks-change"])
    assert p.returncode == 0, p.stdout
    assert (
        "note        4 checks of the baseline set aside" in p.stdout
        and "0 missing" in p.stdout
    )
    old, new = runs(
        tmp_path / "2",
        passing(),
        at2[:-1],
        old_run=run_json(ranks=(2, 4)),
        new_run=run_json(ranks=(2,)),
    )
    fails_with(
        run_gate(tmp_path, old, new, args=["--accept-ranks-change"]),
        (
            "MISSING    "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 2"
            " ranks"
        ),
        (
            "CHECKS      the new run has 3 checks, fewer than the baseline's 4 (of 8, 4"
            " set aside"
        ),
    )


def test_what_new_checks_arrive_as_is_listed_with_each_waived_or_skipped_one_named(
    tmp_path,
):
    new = passing() + [
        record(index=10, ranks=2, root=10),
        record(
            index=11,
            ranks=2,
            root=11,
            outcome="waived",
            waiver="w-1",
            message="m | waived until 2027-06-30: k (u)",
        ),
        record(
            index=12,
            ranks=4,
            root=12,
            outcome="skip",
            message="MPI_Reduce_init is not provided by this library",
        ),
        record(
            index=13,
            ranks=4,
            root=13,
            outcome="skip",
            message="MPI_Reduce_init is not provided by this library",
        ),
    ]
    old, new_dir = runs(tmp_path, passing(), new)
    p = run_gate(tmp_path, old, new_dir)
    assert p.returncode == 0, p.stdout
    assert (
        "note        4 new checks (not in the baseline): 1 pass, 1 waived, 2 skip,"
        " 0 bad" in p.stdout
    )
    waived = [
        x for x in p.stdout.splitlines() if x.startswith("note        new, waived:")
    ]
    skipped = [
        x for x in p.stdout.splitlines() if x.startswith("note        new, skipped:")
    ]
    assert len(waived) == 1 and "root=11" in waived[0] and "by w-1" in waived[0]
    assert len(skipped) == 2 and all(
        "not provided by this library" in x for x in skipped
    )
    assert "4 new checks (1 pass, 1 waived, 2 skip, 0 bad)" in p.stdout.splitlines()[-2]


def held_back_runs(tmp_path, run=None):
    """A baseline and a new run that both held back the case at 4 ranks, root 3, as the
    waiver w-crash names it."""
    held = passing()
    held[7] = dict(held[7], outcome="skip", message=AVOID.format("w-crash"))
    return runs(tmp_path, held, held, new_run=run, old_run=run)


def test_a_case_held_back_by_a_standing_crash_waiver_passes(tmp_path):
    old, new = held_back_runs(tmp_path)
    p = run_gate(tmp_path, old, new, waivers=[WAIVER, FATAL])
    assert p.returncode == 0, p.stdout
    # A timeout waiver holds a case back too.
    p = run_gate(tmp_path, old, new, waivers=[WAIVER, dict(FATAL, outcome="timeout")])
    assert p.returncode == 0, p.stdout


@pytest.mark.parametrize(
    "waivers, why",
    [
        ([WAIVER], "the waiver w-crash is not in the waivers file"),
        (
            [WAIVER, dict(FATAL, expires="2026-11-01")],
            "the waiver w-crash expired on 2026-11-01",
        ),
        (
            [WAIVER, dict(FATAL, library_versions="4.1.*")],
            "the waiver w-crash is for 4.1.*, not 4.0.2",
        ),
        (
            [WAIVER, dict(FATAL, ranks=8)],
            "the waiver w-crash no longer names this case as a crash or a hang",
        ),
        (
            [WAIVER, dict(FATAL, outcome="fail")],
            "the waiver w-crash no longer names this case as a crash or a hang",
        ),
    ],
)
def test_a_case_held_back_as_known_fatal_is_judged_again_by_the_waivers_file(
    tmp_path, waivers, why
):
    old, new = held_back_runs(
        tmp_path, run=run_json(library_version="MPICH Version:\t4.0.2")
    )
    p = run_gate(tmp_path, old, new, waivers=waivers)
    fails_with(
        p,
        (
            "NOT RUN    "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 4"
            " ranks"
        ),
    )
    line = next(x for x in p.stdout.splitlines() if x.startswith("NOT RUN"))
    assert (
        "root=3" in line
        and f"was not run as a known crash or hang, but {why}: nothing shows it is fine"
        in line
    )


def test_a_case_that_passed_and_is_now_held_back_is_accepted_with_its_waiver(tmp_path):
    new = passing()
    new[7] = dict(new[7], outcome="skip", message=AVOID.format("w-crash"))
    old, new_dir = runs(tmp_path, passing(), new)
    fails_with(
        run_gate(tmp_path, old, new_dir, waivers=[WAIVER, FATAL]),
        (
            "SKIPPED    "
            " Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 4"
            " ranks"
        ),
        "(accept it with --accept-waiver w-crash)",
    )
    p = run_gate(
        tmp_path,
        old,
        new_dir,
        waivers=[WAIVER, FATAL],
        args=["--accept-waiver", "w-crash"],
    )
    assert p.returncode == 0, p.stdout


def test_offending_checks_are_listed_up_to_a_limit_then_counted(tmp_path):
    base = [record(index=i, ranks=4, root=i) for i in range(30)]
    old = results.build(write_run(tmp_path / "old", base))
    new = results.build(write_run(tmp_path / "new", base[:5]))
    d = gate.compare(old, new, [WAIVER], datetime.date(2026, 11, 22))
    text = gate.format_decision(d, "old", "new", old, new, "w.json", limit=10)
    lines = text.splitlines()
    assert len([x for x in lines if x.startswith("MISSING     Reduce.")]) == 10
    assert (
        "MISSING     ... and 15 more" in lines
        and lines[-1] == "gate: FAIL"
        and lines[-2].startswith("summary:")
    )


def test_the_gate_options_are_documented_in_its_help_and_its_page():
    p = subprocess.run(
        [ORDO, "gate", "--help"], capture_output=True, text=True, timeout=60
    )
    page = (ROOT / "docs" / "gating-and-ci.md").read_text()
    for option in (
        "--accept-waiver",
        "--accept-library-change",
        "--accept-ranks-change",
        "--accept-variants-change",
    ):
        assert option in p.stdout and option in page, option


@pytest.mark.parametrize("vendor, release", [("mpich", "4.0.2"), ("openmpi", "4.1.4")])
def test_each_example_held_back_by_a_vendors_crash_or_timeout_waiver_is_of_its_release(
    vendor, release
):
    """The real waivers files: each example a crash or timeout waiver covers, recorded
    as the harness records a case it did not run for that waiver, is judged standing for
    the vendor's Debian release, and not for another release (the gate must not fail the
    cases a run rightly held back, nor keep those of another).
    """
    waivers = gate.load_waivers(ROOT / "vendors" / vendor / "waivers.json")
    today = datetime.date(2026, 11, 22)
    held = []
    for w in waivers:
        as_fatal = [
            e
            for e in w.get("examples", {}).get("covers", [])
            if any(
                waivers_module.match(
                    w,
                    dict(e, outcome=o),
                    today=today.isoformat(),
                    library_version=release,
                )
                == waivers_module.WAIVED
                for o in ("crash", "timeout")
            )
        ]
        held += [
            dict(e, outcome="skip", waiver=None, message=AVOID.format(w["id"]))
            for e in as_fatal
        ]
    assert len(held) >= 20, len(held)
    assert gate.known_fatal(held, waivers, today, release) == []
    elsewhere = gate.known_fatal(held, waivers, today, "9.9.9")
    assert len(elsewhere) == len(held) and all(
        "is for" in why and "not 9.9.9" in why for _, _, why in elsewhere
    )

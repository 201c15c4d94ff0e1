"""ordo gate: regressions against a baseline, and waivers (synthetic runs, no MPI)."""
import datetime
import json
import subprocess

import pytest

from conftest import ROOT, record, run_json, write_run
from reports import gate, results

ORDO = str(ROOT / "ordo")
TODAY = "2026-11-22"
WAIVER = {"id": "w-1", "test": "Reduce.*", "reason": "known bug, upstream #1", "upstream": "https://example.org/1",
          "expires": "2027-06-30"}


def run_gate(tmp_path, baseline, new, waivers=(WAIVER,), today=TODAY):
    path = tmp_path / "waivers.json"
    path.write_text(json.dumps({"schema": "ordo.waivers/1", "vendor": "mpich", "waivers": list(waivers)}))
    p = subprocess.run([ORDO, "gate", "--baseline", str(baseline), str(new), "--waivers", str(path),
                        "--today", today], capture_output=True, text=True, timeout=120)
    return p


def runs(tmp_path, old, new, new_run=None):
    a = write_run(tmp_path / "old", old)
    b = write_run(tmp_path / "new", new, run=new_run)
    results.write(a)
    return a / "results.json", b


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
    assert "at 4 ranks" in lines[0] and "root=1" in lines[0] and "pass -> fail" in lines[0]
    assert "pass -> timeout" in lines[1]
    assert "replay: ./ordo replay" in p.stdout and p.stdout.rstrip().endswith("gate: FAIL")


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
    crash = {"schema": "ordo.check/1", "id": "ordo_check_reduce@4ranks#job0", "test": "ordo_check_reduce",
             "clause": "harness.job", "level": "MUST", "case": None, "ranks": 4, "vendor": "mpich",
             "variant": "default", "outcome": "crash", "message": "exit code 139"}
    old, new = runs(tmp_path, passing(), passing() + [crash])
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 1 and "not in the baseline -> crash" in p.stdout


def test_a_waived_check_whose_waiver_lapsed_is_a_regression(tmp_path):
    waived = passing()
    waived[0] = dict(waived[0], outcome="waived", waiver="w-1", message="x | waived until 2027-06-30")
    lapsed = passing()
    lapsed[0] = dict(lapsed[0], outcome="fail", message="x | the waiver for this check expired on 2026-01-01")
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
    assert run_gate(tmp_path, old, new, waivers=[dict(WAIVER, expires=TODAY)]).returncode == 0


@pytest.mark.parametrize("waiver, problem", [
    ({k: v for k, v in WAIVER.items() if k != "reason"}, "has no reason"),
    (dict(WAIVER, reason="  "), "has no reason"),
    ({k: v for k, v in WAIVER.items() if k != "expires"}, "has no expiry date"),
    (dict(WAIVER, expires="30/06/2027"), "malformed expiry date"),
    (dict(WAIVER, expires="2027-02-30"), "malformed expiry date"),
])
def test_a_waiver_needs_a_reason_and_an_expiry_date(tmp_path, waiver, problem):
    old, new = runs(tmp_path, passing(), passing())
    p = run_gate(tmp_path, old, new, waivers=[waiver])
    assert p.returncode == 1 and problem in p.stdout


def test_a_check_waived_by_an_unknown_waiver_fails_the_gate(tmp_path):
    waived = passing()
    waived[0] = dict(waived[0], outcome="waived", waiver="gone", message="x")
    old, new = runs(tmp_path, waived, waived)
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 1 and "waived by 'gone', which is not in the waivers file" in p.stdout


def test_a_partial_new_run_fails_the_gate(tmp_path):
    old, new = runs(tmp_path, passing(), passing(), new_run=run_json(end=False))
    p = run_gate(tmp_path, old, new)
    assert p.returncode == 1 and "PARTIAL     the new run is partial" in p.stdout


def test_missing_checks_and_new_waivers_are_listed_without_failing(tmp_path):
    new = passing()[:-1]
    new[0] = dict(new[0], outcome="waived", waiver="w-1", message="x")
    old, new_dir = runs(tmp_path, passing(), new)
    p = run_gate(tmp_path, old, new_dir)
    assert p.returncode == 0, p.stdout
    assert "newly waived" in p.stdout and "1 checks of the baseline are not in the new run" in p.stdout


def test_the_default_waivers_are_those_of_the_vendor(tmp_path):
    report = results.build(write_run(tmp_path / "r", passing()))
    waivers, source = gate.default_waivers(report)
    assert source.endswith("vendors/mpich/waivers.json") and waivers
    assert not gate.waiver_problems(waivers, datetime.date(2026, 11, 22))


def test_a_site_adapter_names_its_own_waivers_file(tmp_path):
    """The adapter's "waivers" key is honoured (reports/waivers.py locate), for the gate and the report."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "adapter.json").write_text(json.dumps({"name": "site", "waivers": "known-bugs.json"}))
    (site / "known-bugs.json").write_text(json.dumps({"schema": "ordo.waivers/1", "vendor": "site", "waivers": [
        {"id": "site-1", "test": "*", "reason": "r", "upstream": "u", "expires": "2099-12-31"}]}))
    run = run_json(vendor="site", adapter=str(site / "adapter.json"))
    report = results.build(write_run(tmp_path / "r", passing(), run=run))
    waivers, source = gate.default_waivers(report)
    assert source == str(site / "known-bugs.json") and [w["id"] for w in waivers] == ["site-1"]
    assert report["waivers"]["source"] == source


def test_unreadable_input_is_a_usage_error(tmp_path):
    old, new = runs(tmp_path, passing(), passing())
    for args in ((tmp_path / "nope.json", new), (old, tmp_path / "nope")):
        p = subprocess.run([ORDO, "gate", "--baseline", str(args[0]), str(args[1])], capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.startswith("ordo: ") and len(p.stderr.strip().splitlines()) == 1
    p = subprocess.run([ORDO, "gate", "--baseline", str(old), str(new), "--today", "soon"], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "--today" in p.stderr

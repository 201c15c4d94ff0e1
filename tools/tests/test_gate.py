"""ordo gate: regressions against a baseline, and waivers (synthetic runs, no MPI)."""
import datetime
import json
import os
import subprocess

import pytest

from conftest import ROOT, needs_build, record, run_json, write_run
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


# ---- version-bound waivers (issue #13) ---------------------------------------------------

def test_a_waiver_bound_to_another_release_does_not_hide_a_failure_and_the_gate_names_it(tmp_path):
    """The new run waived a check with a waiver seen in 4.0.2; the waivers file now says the
    bug is a 4.1 one: judged again for the run's library (4.0.2), the check fails."""
    w = dict(WAIVER, library_versions="4.0.2")
    waived = record(index=0, ranks=2, outcome="waived", waiver="w-1",
                    message="on rank 0: element 0 (leaf 0, byte 0): expected 1, observed 2 | waived until "
                            "2027-06-30: known bug, upstream #1 (https://example.org/1)")
    release = {"library_version": "MPICH Version:\t4.0.2\nMPICH Release date: unknown"}
    old, new = runs(tmp_path, passing() + [record(index=0, ranks=2)], passing() + [waived], new_run=run_json(**release))
    assert run_gate(tmp_path, old, new, waivers=[w]).returncode == 0
    p = run_gate(tmp_path, old, new, waivers=[dict(w, library_versions="4.1")])
    assert p.returncode == 1, p.stdout
    assert "REGRESSION" in p.stdout and "Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root at 2 ranks" in p.stdout
    assert "the waiver w-1 did not apply: it is for 4.1, not 4.0.2" in p.stdout
    assert "WAIVER      the waiver w-1 did not apply to 1 checks of this run: it is for 4.1, not 4.0.2" in p.stdout


def test_a_waiver_narrowed_since_the_run_no_longer_waives_what_it_does_not_name(tmp_path):
    waived = record(index=0, ranks=3, outcome="waived", waiver="w-1", message="m | waived until 2027-06-30: r (u)")
    old, new = runs(tmp_path, passing() + [record(index=0, ranks=3)], passing() + [waived])
    p = run_gate(tmp_path, old, new, waivers=[dict(WAIVER, ranks={"power_of_two": True})])
    assert p.returncode == 1 and "its trigger no longer names this check" in p.stdout, p.stdout


def test_the_mpich_run_with_one_waivers_release_changed_to_4_1_fails_the_gate(tmp_path):
    """A real MPICH 4.0.2 run: MAX/MIN on unsigned types are waived (pmodels/mpich#6083); with
    that waiver's release changed to 4.1 the gate fails and names the checks and the waiver."""
    needs_build("mpich")
    out = tmp_path / "run"
    p = subprocess.run([ORDO, "run", "--vendor", "mpich", "--ranks", "1",
                        "--property-budget", "0", "--filter", "values",
                        "--only", "Reduce_local.every_valid_predefined_op_and_datatype_gives_the_reference_result",
                        "--out", str(out)], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, ORDO_NO_INSTALL="1"))
    report = results.load(out)
    waived = [r for r in report["records"] if r.get("waiver") == "mpich-6083-unsigned-max-min"]
    assert p.returncode == 0 and waived, p.stdout[-2000:] + p.stderr[-2000:]
    doc = json.loads((ROOT / "vendors" / "mpich" / "waivers.json").read_text())
    for w in doc["waivers"]:
        if w["id"] == "mpich-6083-unsigned-max-min":
            w["library_versions"] = "4.1"
    changed = tmp_path / "waivers.json"
    changed.write_text(json.dumps(doc))
    same = subprocess.run([ORDO, "gate", "--baseline", str(out), str(out)], capture_output=True, text=True,
                          timeout=120)
    assert same.returncode == 0, same.stdout
    g = subprocess.run([ORDO, "gate", "--baseline", str(out), str(out), "--waivers", str(changed)],
                       capture_output=True, text=True, timeout=120)
    assert g.returncode == 1, g.stdout
    assert f"the waiver mpich-6083-unsigned-max-min did not apply to {len(waived)} checks of this run: " \
           "it is for 4.1, not 4.0.2" in g.stdout
    assert g.stdout.count("did not apply: it is for 4.1, not 4.0.2") == min(len(waived), 200)

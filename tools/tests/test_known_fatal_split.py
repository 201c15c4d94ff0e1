"""A case held back by a crash or timeout waiver is held back on every
process alike, whatever communicator of the shape a process is in.

At an odd world size the odd-even shape has two communicators of different
sizes (2 and 1 at 3 processes). A waiver whose trigger is a communicator of
one process once held the case back on the lone odd process only, while the
others ran it: the record read "skipped on rank 1 while the others ran it"
(a fail) and the processes, now at different cases, hung until the watchdog
ended the job (seen in MPICH's sweep under the tsp algorithms of
MPI_Ireduce, whose waiver names one-process communicators). Runs a real
check executable at 3 processes (run pytest under flock /tmp/ordo-mpi.lock:
this launches MPI jobs)."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from runner.adapters import (  # noqa: E402
    build_dir_for,
    launch_env,
    launcher_prefix,
    load_adapter,
)
from runner.job import run_job  # noqa: E402
from runner.launch import job_command, ordo_flags  # noqa: E402

TEST = "Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root"


def library_version(adapter):
    how = adapter["version"]
    out = subprocess.run(how["command"], capture_output=True, text=True).stdout
    m = re.search(how["pattern"], out)
    if not m:
        pytest.skip(f"cannot read {adapter['name']}'s version")
    return m.group(1)


def built():
    for vendor in ("mpich", "openmpi"):
        adapter = load_adapter(vendor)
        bdir = build_dir_for(adapter)
        exe = bdir / "conformance" / "noncommutative" / "ordo_check_noncommutative"
        if exe.is_file():
            return adapter, bdir, exe
    pytest.skip("no build with ordo_check_noncommutative (./ordo run builds one)")


def test_a_size_triggered_known_fatal_case_is_held_back_on_every_process(tmp_path):
    adapter, bdir, exe = built()
    waivers = tmp_path / "waivers.json"
    waivers.write_text(
        json.dumps(
            {
                "schema": "ordo.waivers/1",
                "vendor": adapter["name"],
                "waivers": [
                    {
                        "id": "test-one-process-crash",
                        "test": TEST,
                        "outcome": "crash",
                        "signature": {"signal": 11},
                        "comm_size": 1,
                        "library_versions": library_version(adapter),
                        "reason": "a test's crash on one-process communicators",
                        "upstream": "none (a test)",
                        "expires": "2099-12-31",
                    }
                ],
            }
        )
    )
    prefix = launcher_prefix(adapter, bdir, launch_env(adapter, bdir, {}, False))
    (tmp_path / "gtest").mkdir()
    journal = tmp_path / "journal.jsonl"
    journal.touch()
    base = job_command(
        adapter,
        prefix,
        3,
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
            f"--ordo-waivers={waivers}",
            "--ordo-avoid-known-fatal",
            f"--gtest_filter={TEST}",
        ],
    )
    run_job(base, exe.name, 3, tmp_path, journal, adapter, 3)
    recs = [
        json.loads(line) for line in journal.read_text().splitlines() if line.strip()
    ]
    odd_even = [r for r in recs if (r.get("case") or {}).get("comm") == "odd-even"]
    others = [
        r
        for r in recs
        if (r.get("case") or {}).get("comm") in ("world", "dup", "reversed")
    ]
    assert odd_even and others, f"no odd-even or world cases among {len(recs)}"
    wrong = [
        (r.get("id"), r.get("outcome"), (r.get("message") or "")[:160])
        for r in odd_even
        if r.get("outcome") != "skip"
        or "test-one-process-crash" not in (r.get("message") or "")
    ]
    assert not wrong, wrong[:3]
    # Cases on communicators of 3 processes are not the waiver's: they run.
    assert all(r.get("outcome") == "pass" for r in others), [
        (r.get("id"), r.get("outcome")) for r in others if r.get("outcome") != "pass"
    ][:3]
    assert not any(r.get("outcome") in ("fail", "timeout", "crash") for r in recs)

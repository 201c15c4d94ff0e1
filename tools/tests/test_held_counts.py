"""Reduce_scatter's recvcounts outlive the requests that read them (issue #36).

MPI-4.1 and MPI-5.0 6.12: arrays of counts are not modified until a
nonblocking collective completes, and a persistent request reads them at
every start until it is freed. ordo's own calls broke this in two ways: the
Fortran layer passed a copy of recvcounts that its return freed before the
request completed, and the C path's recvcounts lived in a local of invoke()
while a request was left pending (the outstanding and freed concurrency) or
kept for more starts (persistent). The real harness runs those calls under
MPICH's mpiexec at 2 ranks with an LD_PRELOAD interposer
(fixtures/held_counts.c) that records each MPI_Ireduce_scatter and
MPI_Reduce_scatter_init (and _c) request's recvcounts until the request is
freed and aborts the rank that free()s them before: no case may crash."""
import collections
import json
import pathlib
import shutil
import subprocess

import pytest

from conftest import BUILD, needs_build
from reports import records
from runner.adapters import load_adapter
from runner.job import run_job
from runner.launch import ordo_flags
from runner.waivers import JobWaivers

INTERPOSER = pathlib.Path(__file__).resolve().parent / "fixtures" / "held_counts.c"
MESSAGE = "recvcounts freed before the request completed"

# The paths of the fault: (check executable, its test, the cases selected as
# ROUTINE:MODE+MODE:COMM, the kinds of case (kind()) that must have run, the
# routines whose requests the interposer must have seen).
JOBS = {
    # the Fortran layer's copy: both bindings, nonblocking and persistent, both
    # count kinds (the mpi module has no large-count forms)
    "fortran": (
        "Fortran.every_routine_and_form_of_each_binding_applies_the_fortran"
        "_user_function_in_rank_order",
        "reduce_scatter:nonblocking+persistent:intra",
        [
            (binding, mode, "single", large)
            for binding, large in (("f08", False), ("f08", True), ("f90", False))
            for mode in ("nonblocking", "persistent")
        ],
        ["MPI_Ireduce_scatter", "MPI_Ireduce_scatter_c"]
        + ["MPI_Reduce_scatter_init", "MPI_Reduce_scatter_init_c"],
    ),
    # the C path: a persistent request kept for the starts after the first
    "noncommutative": (
        "Noncommutative.nonblocking_and_persistent_forms_keep_the_rank_order",
        "reduce_scatter:persistent:intra",
        [("c", "persistent", "single", False)],
        ["MPI_Reduce_scatter_init"],
    ),
    # the C path: a request left pending (the outstanding and freed concurrency)
    "crossing": (
        "Crossing.every_valid_pair_of_values_of_the_case_dimensions_is_checked",
        "reduce_scatter:nonblocking:intra",
        [
            ("c", "nonblocking", "outstanding", False),
            ("c", "nonblocking", "freed", False),
        ],
        ["MPI_Ireduce_scatter"],
    ),
}


def kind(record):
    """The path of the harness a record's case took."""
    c = record.get("case") or {}
    return (
        c.get("binding") or "c",
        c.get("mode"),
        c.get("concurrency") or "single",
        bool(c.get("large_count")),
    )


@pytest.mark.parametrize("family", sorted(JOBS))
def test_no_request_outlives_the_recvcounts_it_reads_under_mpich(tmp_path, family):
    """The harness's Reduce_scatter calls of one path, under the interposer:
    every case that ran must not crash, no rank may say the interposer's line,
    and every kind of case of the path must have run."""
    test, select, kinds, routines = JOBS[family]
    needs_build("mpich")
    exe = BUILD / "mpich" / "conformance" / family / f"ordo_check_{family}"
    mpicc, mpiexec = shutil.which("mpicc.mpich"), shutil.which("mpiexec.mpich")
    if not exe.is_file() or not mpicc or not mpiexec:
        pytest.skip(f"needs {exe}, mpicc.mpich and mpiexec.mpich")
    lib = tmp_path / "libheld_counts.so"
    subprocess.run(
        [mpicc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(INTERPOSER), "-ldl"],
        check=True,
        timeout=120,
    )
    adapter = load_adapter("mpich")
    out = tmp_path / "out"
    out.mkdir()
    journal = out / "journal.jsonl"
    journal.write_text("")
    seen_dir = tmp_path / "seen"
    seen_dir.mkdir()
    base = [
        "flock",
        "/tmp/ordo-mpi.lock",
        "timeout",
        "-k",
        "5",
        "120",
        mpiexec,
        "-n",
        "2",
        "-genv",
        "LD_PRELOAD",
        str(lib),
        "-genv",
        "HELD_COUNTS_SEEN",
        str(seen_dir),
        str(exe),
        *ordo_flags(
            journal=journal,
            vendor="mpich",
            adapter=adapter["_path"],
            select=select,
            waivers=JobWaivers(adapter).flag(),
        ),
        # MPICH's own known crashes (its waivers) are skips, as in `ordo run`
        "--ordo-avoid-known-fatal",
        f"--gtest_filter={test}",
    ]
    run_job(base, exe.name, 2, out, journal, adapter, 2)
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    for r in lines:
        assert records.schema_errors(r) == [], r
    crashes = [
        f"{r['id']}: {r['message'][:300]}"
        for r in lines
        if r["outcome"] in ("crash", "timeout")
    ]
    said = sorted(
        {
            line
            for log in (out / "logs").glob("*.log")
            for line in log.read_text(errors="replace").splitlines()
            if MESSAGE in line
        }
    )
    assert not crashes and not said, (crashes, said)
    ran = collections.Counter(kind(r) for r in lines if r["outcome"] != "skip")
    for k in kinds:
        assert ran[k], (k, ran)
    # the interposer saw the requests of the path on every rank (the rank's
    # MPI_Finalize wrote what it recorded)
    seen = [
        dict(line.split() for line in f.read_text().splitlines())
        for f in seen_dir.iterdir()
    ]
    assert len(seen) == 2, seen
    for rank_seen in seen:
        for routine in routines:
            assert int(rank_seen[routine]) > 0, (routine, rank_seen)

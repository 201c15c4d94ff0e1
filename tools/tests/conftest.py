"""Synthetic output folders of `ordo run` for the report tests (no MPI needed)."""
import copy
import gzip
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
for path in (
    ROOT,
    ROOT / "tools",
):  # the reports package, and the runner package and ordo_cli
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

BASE_CASE = {
    "routine": "reduce",
    "op": "witness.tracer",
    "datatype": "contiguous(4,MPI_INT)",
    "count": 1,
    "recvcounts": [],
    "root": 0,
    "comm": "world",
    "root_in_high_group": False,
    "in_place": False,
    "null_insignificant": True,
    "mode": "blocking",
    "seed": 1,
}

TRACER_MESSAGE = (
    "on rank 0: element 0 (leaf 0, byte 0): expected 0, observed -2; tracer: first"
    " wrong combine: invec = ranks 2..3, inoutvec = ranks 0..1 (operands swapped) (comm"
    " rank 0 of 4)"
)


def record(
    test="Reduce.noncommutative_op_is_applied_in_rank_order_at_every_root",
    index=0,
    ranks=4,
    outcome="pass",
    level="MUST",
    clause="user-op.noncommutative-order",
    message="",
    vendor="mpich",
    variant="default",
    waiver=None,
    **case,
):
    c = dict(BASE_CASE, **case)
    c_json = json.dumps(c, separators=(",", ":"))
    return {
        "schema": "ordo.check/1",
        "seq": index + 1,
        "id": f"{test}#{index}",
        "test": test,
        "clause": clause,
        "level": level,
        "routine": "MPI_Reduce",
        "case": c,
        "ranks": ranks,
        "comm_size": ranks,
        "vendor": vendor,
        "variant": variant,
        "outcome": outcome,
        "message": message,
        "failing_ranks": [0] if outcome == "fail" else [],
        "detect": None,
        "waiver": waiver,
        "duration_s": 1.5e-05,
        "reproducer": None,
        "replay": f"./ordo replay --vendor {vendor} --ranks {ranks} --case '{c_json}'",
        "time": "2026-11-22T04:13:27Z",
    }


def run_json(vendor="mpich", ranks=(1, 2, 3, 4), end=True, **extra):
    run = {
        "schema": "ordo.run/1",
        "ordo_version": "0.1.0",
        "git": {"commit": "0" * 40, "dirty": False},
        "vendor": vendor,
        "adapter": str(ROOT / "vendors" / vendor / "adapter.json"),
        "library_version": "Synthetic MPI 1.0\nbuilt for tests",
        "mpi_version": "4.1",
        "host": "testhost",
        "platform": "Linux",
        "cores": 2,
        "launcher": [f"/usr/bin/mpiexec.{vendor}", "-n", "N"],
        "command": ["./ordo", "run", "--vendor", vendor],
        "variants": ["default"],
        "ranks": list(ranks),
        "seed": 1,
        "env": {},
        "start": "2026-11-22T04:13:27+00:00",
        "end": "2026-11-22T04:13:32+00:00" if end else None,
        "per_rank_count": [],
    }
    run.update(extra)
    return run


def sample_records():
    """A small run: passes at 1-4 ranks, one tracer failure, one crash, one skip, one
    waived check."""
    recs = []
    for n in (1, 2, 3, 4):
        for i in range(3):
            recs.append(record(index=i, ranks=n, root=i % n))
    recs.append(
        record(index=3, ranks=4, outcome="fail", message=TRACER_MESSAGE, root=0)
    )
    recs.append(
        record(
            test="Allreduce.sum_of_int_is_exact_and_identical_on_every_rank",
            clause="allreduce.values",
            index=0,
            ranks=3,
            outcome="skip",
            message="MPI_Allreduce_init is not provided by this library",
            op="MPI_SUM",
            datatype="MPI_INT",
            mode="persistent",
        )
    )
    recs.append(
        record(
            test="Reduce.intercommunicator_root_group_may_pass_null_send_buffers",
            clause="reduce.intercomm-root",
            index=0,
            ranks=2,
            outcome="waived",
            message="on rank 0: Null buffer pointer | waived until 2027-06-30: known",
            waiver="mpich-6351-intercomm-reduce-null-sendbuf",
            comm="inter-1-n",
        )
    )
    recs.append(
        {
            "schema": "ordo.check/1",
            "id": "ordo_check_reduce@3ranks#job0",
            "test": "ordo_check_reduce",
            "clause": "harness.job",
            "level": "MUST",
            "routine": None,
            "case": None,
            "ranks": 3,
            "vendor": "mpich",
            "variant": "default",
            "outcome": "crash",
            "message": (
                "ordo_check_reduce at 3 ranks ended with exit code 139 outside a case"
            ),
            "failing_ranks": [],
            "duration_s": 0.5,
            "log": "/tmp/x/logs/ordo_check_reduce-3ranks.log",
        }
    )
    return recs


def write_run(folder, records, run=None, with_run=True):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "logs").mkdir(exist_ok=True)
    (folder / "logs" / "job.log").write_text("log of a job\n")
    (folder / "journal.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records)
    )
    if with_run:
        run = copy.deepcopy(run or run_json())
        counts = {}
        for r in records:
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        run.setdefault("summary", counts)
        (folder / "run.json").write_text(json.dumps(run, indent=2))
    return folder


@pytest.fixture
def sample_run(tmp_path):
    return write_run(tmp_path / "run", sample_records())


@pytest.fixture
def passing_run(tmp_path):
    return write_run(
        tmp_path / "pass",
        [record(index=i, ranks=n) for n in (1, 2, 3) for i in range(3)],
    )


# ---- real runs (test_reliability.py, test_variant_runs.py) ---------------------

BUILD = pathlib.Path(os.environ.get("ORDO_BUILD_ROOT", ROOT / "build"))


def run_ordo(*args, env=None, timeout=900):
    """./ordo with the given arguments (no package installation)."""
    e = dict(os.environ, ORDO_NO_INSTALL="1")
    e.update(env or {})
    return subprocess.run(
        [str(ROOT / "ordo"), *args],
        capture_output=True,
        text=True,
        env=e,
        timeout=timeout,
    )


def needs_build(vendor):
    if not (BUILD / vendor / "conformance").is_dir():
        pytest.skip(
            f"no build in {BUILD / vendor}: `./ordo test` builds it before these tests"
        )


def journal_records(out):
    """The records of an output folder's journal: journal.jsonl while the run can go on,
    journal.jsonl.gz once it has ended."""
    plain = pathlib.Path(out) / "journal.jsonl"
    path = plain if plain.is_file() else plain.with_name("journal.jsonl.gz")
    text = (
        gzip.decompress(path.read_bytes()).decode()
        if path.name.endswith(".gz")
        else path.read_text()
    )
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def _no_outer_mpi_lock(monkeypatch):
    """The tests take the MPI lock themselves where they launch MPI (`flock
    /tmp/ordo-mpi.lock`): an ORDO_MPI_LOCK of the caller's environment would
    make ordo wait for that same lock inside them, and change the launch
    lines some tests read."""
    monkeypatch.delenv("ORDO_MPI_LOCK", raising=False)

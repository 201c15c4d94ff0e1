"""The huge cases are opt-in (`./ordo run --huge`): without the option each is
a skip that says how to opt in and how much memory it needs; with it the
ranks get ORDO_HUGE=1, which the huge check reads, and the setting is kept
for --resume. The real runs need build/mpich (made by `./ordo test`)."""
import json

from conftest import journal_records, needs_build, run_ordo

ROUTINES = {
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block",
    "MPI_Scan",
    "MPI_Exscan",
    "MPI_Reduce_local",
}


def test_without_huge_every_huge_case_is_a_skip_that_says_how_to_opt_in(tmp_path):
    needs_build("mpich")
    out = tmp_path / "run"
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--filter",
        "huge",
        "--ranks",
        "2",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr)
    recs = journal_records(out)
    assert {r["routine"] for r in recs} == ROUTINES
    for r in recs:
        assert r["outcome"] == "skip" and r["clause"] == "collective.huge-counts", r
        assert r["message"].startswith("opt-in: ./ordo run --huge (needs about "), r[
            "message"
        ]
        assert r["message"].endswith(" GiB per process)"), r["message"]
        assert r["case"]["large_count"] is True
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["huge"] is False and "ORDO_HUGE" not in run["env"]


def test_huge_reaches_the_environment_of_the_ranks(tmp_path):
    needs_build("mpich")
    out = tmp_path / "run"
    # --only matches no check: the setting is recorded, nothing huge runs.
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--filter",
        "huge",
        "--only",
        "NoSuchCheck.*",
        "--ranks",
        "1",
        "--property-budget",
        "0",
        "--huge",
        "--out",
        str(out),
    )
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr)
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["huge"] is True and run["env"].get("ORDO_HUGE") == "1"

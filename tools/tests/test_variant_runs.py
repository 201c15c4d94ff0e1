"""Algorithm variants in real runs (build/mpich, build/openmpi as `./ordo test`
leaves them): a variant runs only the cases its algorithm is used for, its
records carry its name, and a forced algorithm MPICH cannot apply is seen."""
import json
import pathlib

from conftest import journal_records as records, needs_build, run_ordo

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_an_mpich_variant_runs_only_its_routine_and_reports_a_fallback(tmp_path):
    needs_build("mpich")
    out = tmp_path / "out"
    # smp needs a commutative op: MPICH falls back for the non-commutative cases and
    # says so.
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--variants",
        "mpich.reduce.intra.smp",
        "--filter",
        "noncommutative",
        "--ranks",
        "3",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode in (0, 1), p.stdout[-3000:] + p.stderr
    recs = records(out)
    assert recs, p.stdout[-3000:]
    assert all(r["variant"] == "mpich.reduce.intra.smp" for r in recs)
    assert all(
        r["case"]["routine"] == "reduce"
        and r["case"]["mode"] == "blocking"
        and not r["case"]["comm"].startswith("inter")
        for r in recs
    )
    run_json = json.loads((out / "run.json").read_text())
    row = [
        v
        for v in run_json["variant_outcomes"]
        if v["variant"] == "mpich.reduce.intra.smp"
    ][0]
    assert row["fallback_jobs"] and "not usable" in row["fallback_jobs"][0]["example"]
    assert (
        run_json["variant_details"][0]["env"]["MPIR_CVAR_REDUCE_INTRA_ALGORITHM"]
        == "smp"
    )


def test_a_variants_record_is_replayed_under_that_variants_settings(tmp_path):
    """A sweep's failure reproduces only under its algorithm: the record's replay
    command names the variant, and `ordo replay --record` sets the variant's
    settings (the record's own variant, or the one --variant picks)."""
    needs_build("mpich")
    out = tmp_path / "out"
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--variants",
        "default,mpich.reduce.intra.smp",
        "--filter",
        "values",
        "--only",
        "Reduce.*",
        "--ranks",
        "2",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode in (0, 1), p.stdout[-3000:] + p.stderr
    recs = [r for r in records(out) if r.get("case") and r.get("replay")]
    smp = [
        r
        for r in recs
        if r["variant"] == "mpich.reduce.intra.smp" and r["outcome"] == "pass"
    ]
    assert smp, p.stdout[-3000:]
    assert all(" --variant mpich.reduce.intra.smp " in r["replay"] for r in smp)
    assert all(
        "--variant" not in r["replay"] for r in recs if r["variant"] == "default"
    )
    rid = smp[0]["id"]
    # the id names a record of each
    assert any(r["id"] == rid and r["variant"] == "default" for r in recs)
    p = run_ordo(
        "replay",
        "--vendor",
        "mpich",
        "--record",
        f"{out / 'journal.jsonl'}:{rid}",
        "--variant",
        "mpich.reduce.intra.smp",
        "--timeout",
        "60",
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert "replay under variant mpich.reduce.intra.smp:" in p.stdout
    assert "MPIR_CVAR_REDUCE_INTRA_ALGORITHM=smp" in p.stdout
    p = run_ordo(
        "replay",
        "--vendor",
        "mpich",
        "--record",
        f"{out / 'journal.jsonl'}:{rid}",
        "--variant",
        "default",
        "--timeout",
        "60",
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert "replay under variant" not in p.stdout
    p = run_ordo(
        "replay",
        "--vendor",
        "mpich",
        "--record",
        f"{out / 'journal.jsonl'}:{rid}",
        "--variant",
        "mpich.no.such.variant",
    )
    assert p.returncode != 0 and "under variant mpich.no.such.variant" in p.stderr


def test_the_sweep_table_names_every_variant_and_its_failing_checks(tmp_path):
    needs_build("openmpi")
    out = tmp_path / "out"
    p = run_ordo(
        "run",
        "--vendor",
        "openmpi",
        "--variants",
        "default,openmpi.tuned.scan.*",
        "--filter",
        "noncommutative",
        "--ranks",
        "3",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode in (0, 1), p.stdout[-3000:] + p.stderr
    names = {r["variant"] for r in records(out)}
    assert "default" in names and any(
        n.startswith("openmpi.tuned.scan.") for n in names
    )
    for n in names:
        assert n in p.stdout  # the per-variant table
    scan_records = [r for r in records(out) if r["variant"] != "default"]
    assert all(r["case"]["routine"] == "scan" for r in scan_records)


def test_a_detect_case_erroneous_at_the_root_only_is_reported_while_others_wait_for_it(
    tmp_path,
):
    """MPI_Reduce with sendbuf == recvbuf is erroneous at the root only (recvbuf is
    significant there only). MPICH 4.0.2 returns the error at the root; under its
    reduce_scatter_gather algorithm the other process then waits for the root in the
    collective until the case's limit. The library detected the error: reported, and
    the record names the rank that never returned."""
    needs_build("mpich")
    out = tmp_path / "out"
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--variants",
        "mpich.reduce.intra.reduce_scatter_gather",
        "--filter",
        "detect",
        "--only",
        "Detect.the_send_buffer_is_the_receive_buffer*",
        "--ranks",
        "2,3",
        "--property-budget",
        "0",
        "--out",
        str(out),
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    recs = [r for r in records(out) if r["routine"] == "MPI_Reduce"]
    assert {r["ranks"] for r in recs} == {2, 3}
    assert all(r["outcome"] == "pass" and r["detect"] == "reported" for r in recs), recs
    assert all("never returned from the call" in r["message"] for r in recs)
    # At 2 processes rank 1 waits for the root; at 3, rank 1 returns (its arguments are
    # not erroneous: recvbuf is not significant there) and rank 2 waits.
    assert all(r["message"].endswith(": 1") for r in recs if r["ranks"] == 2)
    assert all(
        "returned no error: 1 |" in r["message"] and r["message"].endswith(": 2")
        for r in recs
        if r["ranks"] == 3
    )

"""The expected-result cache (conformance/harness/expect_cache.h, issue #17):
a later variant plans a case from the rank's own buffers and the digest the
first full plan kept, and every record is the one a run without the cache
makes; a result other than the reference's is judged against the full plan,
never taken from the cache."""
import json
import shutil

from conftest import journal_records as records, needs_build, run_ordo

# Two variants of one routine: the second meets every case of the first.
VARIANTS = "mpich.reduce.intra.binomial,mpich.reduce.intra.reduce_scatter_gather"
FAMILIES = "noncommutative,in_place,user_op"


def launches(out):
    events = [
        json.loads(line)
        for line in (out / "progress.jsonl").read_text().splitlines()
        if line.strip()
    ]
    return [
        (e["variant"], launch)
        for e in events
        if e.get("event") == "done" and not e["job"].startswith(("survey/", "seen/"))
        for launch in e.get("launches", [])
    ]


def cache_counts(out, variant=None):
    total = {"hits": 0, "mismatches": 0, "kept": 0}
    for v, launch in launches(out):
        if variant is None or v == variant:
            for k, n in (
                (launch.get("phases") or {}).get("expect_cache") or {}
            ).items():
                total[k] += n
    return total


def run(out, *extra, vendor="mpich", env=(), families=FAMILIES):
    args = [
        "run",
        "--vendor",
        vendor,
        "--filter",
        families,
        "--ranks",
        "3",
        "--property-budget",
        "0",
        "--out",
        str(out),
        *extra,
    ]
    for e in env:
        args += ["--env", e]
    return run_ordo(*args)


def test_a_later_variant_plans_from_the_cache_and_its_records_are_those_without_it(
    tmp_path,
):
    needs_build("mpich")
    cached, full = tmp_path / "cached", tmp_path / "full"
    for out, extra in ((cached, ()), (full, ("--no-expect-cache",))):
        # --keep-cache: a finished run deletes its cache/ folder, which this test reads
        p = run(out, "--variants", VARIANTS, "--keep-cache", *extra)
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    first, second = VARIANTS.split(",")
    # The first variant planned every case in full and kept the digests; the second
    # found them.
    assert cache_counts(cached, first)["kept"] > 50
    assert (
        cache_counts(cached, second)["hits"] > 50
        and cache_counts(cached, second)["kept"] == 0
    )
    assert cache_counts(full) == {"hits": 0, "mismatches": 0, "kept": 0}
    assert list((cached / "cache").glob("expect-*-p3-r0.bin")) and not list(
        (full / "cache").glob("expect-*")
    )
    p = run_ordo("compare", "--records", str(cached), str(full))
    assert p.returncode == 0 and "identical records" in p.stdout, p.stdout[-3000:]
    assert {r["variant"] for r in records(cached)} == {first, second}


def test_a_result_other_than_the_references_is_judged_against_the_full_plan(tmp_path):
    """A clean run of the mutant MPI keeps the digests; a run with a mutant
    that reverses the rank order reads them (the same build, cases and
    roles): each wrong result misses its digest and is judged against the
    reference computed then, with the verdicts and messages of a run without
    the cache."""
    needs_build("mutants")
    clean, cached, full = tmp_path / "clean", tmp_path / "cached", tmp_path / "full"
    p = run(clean, "--keep-cache", vendor="mutants", families="noncommutative")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    assert cache_counts(clean)["kept"] > 50
    cached.mkdir()
    shutil.copytree(clean / "cache", cached / "cache")
    mutant = ("ORDO_MUTANT=reverse-rank-order",)
    p = run(cached, vendor="mutants", env=mutant, families="noncommutative")
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    p = run(
        full,
        "--no-expect-cache",
        vendor="mutants",
        env=mutant,
        families="noncommutative",
    )
    assert p.returncode == 1, p.stdout[-3000:] + p.stderr
    # finished: deleted (no --keep-cache)
    assert not (cached / "cache").exists() and not (full / "cache").exists()
    counts = cache_counts(cached)
    assert counts["mismatches"] > 0 and counts["hits"] > 0, counts
    failed = [r for r in records(cached) if r["outcome"] == "fail"]
    assert failed and all(r["message"] for r in failed)
    p = run_ordo("compare", "--records", str(cached), str(full))
    assert p.returncode == 0 and "identical records" in p.stdout, p.stdout[-3000:]

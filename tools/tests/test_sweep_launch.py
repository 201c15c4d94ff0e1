"""A variant sweep's launches (issue #17): one launch of ordo_sweep_checks per
variant and rank count for the families it combines, their own launch for
the others, and the same records as one launch per family; the crossing
check's covering array computed once per run, rank count and selection (the
run's cache: each variant's own array, #39) and never read from an entry
computed from other inputs."""
import json
import pathlib

import pytest

from conftest import journal_records as records, needs_build, run_ordo

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Two variants of different routines, so that each job selects other cases; the
# families: crossing (the cache), noncommutative, in_place and fortran (combined with
# it), detect (combined, its erroneous calls last, those through the Fortran bindings
# too).
VARIANTS = "mpich.reduce.intra.binomial,mpich.allreduce.intra.recursive_doubling"
FAMILIES = "crossing,noncommutative,in_place,detect,fortran"


def sweep(out, *extra):
    # --keep-cache: a finished run deletes its cache/ folder, which these tests read
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--variants",
        VARIANTS,
        "--filter",
        FAMILIES,
        "--ranks",
        "3",
        "--property-budget",
        "0",
        "--keep-cache",
        "--out",
        str(out),
        *extra,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    return p


def jobs(out):
    events = [
        json.loads(line)
        for line in (out / "progress.jsonl").read_text().splitlines()
        if line.strip()
    ]
    return [
        e
        for e in events
        if e.get("event") == "done" and not e["job"].startswith(("survey/", "seen/"))
    ]


def coverage_lines(log):
    return [
        line
        for line in log.read_text().splitlines()
        if line.startswith("ordo crossing: strength")
    ]


@pytest.fixture(scope="module")
def per_family(tmp_path_factory):
    """The sweep with one launch per family, which two tests read (neither writes
    in it)."""
    needs_build("mpich")
    per = tmp_path_factory.mktemp("sweep") / "per"
    sweep(per, "--launch-per-family")
    return per


def test_one_launch_per_variant_gives_the_records_of_one_launch_per_family(
    tmp_path, per_family
):
    needs_build("mpich")
    one, per = tmp_path / "one", per_family
    sweep(one)
    # The launches: per variant, one of ordo_sweep_checks with the five families.
    a, b = jobs(one), jobs(per)
    assert sorted(j["executable"] for j in a) == ["ordo_sweep_checks"] * 2
    assert all(
        j["families"]
        == [
            "ordo_check_crossing",
            "ordo_check_detect",
            "ordo_check_fortran",
            "ordo_check_in_place",
            "ordo_check_noncommutative",
        ]
        for j in a
    )
    assert len(b) == 10 and "ordo_sweep_checks" not in {j["executable"] for j in b}
    # In the combined job the erroneous calls come last: every DETECT case (the Detect
    # suite's, those through the Fortran bindings included) after every other case of
    # every family.
    for variant in VARIANTS.split(","):
        mine = [r for r in records(one) if r["variant"] == variant]
        detect = [r["seq"] for r in mine if r["level"] == "DETECT"]
        assert detect and min(detect) > max(
            r["seq"] for r in mine if r["level"] != "DETECT"
        )
        assert all(
            r["id"].startswith("Detect.") for r in mine if r["level"] == "DETECT"
        )
    # The erroneous calls through the Fortran bindings (MPI_Allreduce's cases) are among
    # them.
    assert any(
        r["id"].startswith(
            "Detect.character_in_a_reduction_through_each_fortran_binding"
        )
        for r in records(one)
        if r["variant"] == "mpich.allreduce.intra.recursive_doubling"
    )
    # The library's thresholds (MPI_T, read at every launch's start) are kept per
    # variant in the run's cache: one launch per family reads them from it in all but a
    # variant's first launch.
    assert len(list((one / "cache").glob("thresholds-*.json"))) >= 2
    assert len(list((per / "cache").glob("thresholds-*.json"))) >= 2
    # Every record the same (ordo's own comparison), and each variant ran only its
    # routine.
    p = run_ordo("compare", "--records", str(one), str(per))
    assert p.returncode == 0 and "identical records" in p.stdout, p.stdout[-3000:]
    recs = records(one)
    assert recs and {r["variant"] for r in recs} == set(VARIANTS.split(","))
    assert all(r["case"]["routine"] == r["variant"].split(".")[1] for r in recs)
    assert {r["id"].split(".")[0] for r in recs} >= {
        "Crossing",
        "Noncommutative",
        "In_place",
        "Detect",
        "Fortran",
    }
    # No check of a family outside --filter ran in the combined executable.
    assert not any(
        r["id"].startswith(("Values.", "User_op.", "Buffers.")) for r in recs
    )


def test_the_covering_array_is_computed_once_per_rank_count_and_selection(
    tmp_path, per_family
):
    needs_build("mpich")
    out = per_family
    # Each variant's own array, over what it selects (#39): the two variants select
    # other routines, so two entries, each keyed by its selection and naming it.
    entries = sorted((out / "cache").glob("crossing-*.json"))
    scopes = {
        json.loads(json.loads(json.loads(e.read_text())["body"])["space"])["scope"]: e
        for e in entries
    }
    assert sorted(scopes) == ["allreduce:blocking:intra", "reduce:blocking:intra"]
    logs = {
        log.parent.name: log
        for log in (out / "logs").glob("*/ordo_check_crossing-3ranks.log")
    }
    assert len(logs) == 2
    for name, scope in (
        ("mpich.reduce.intra.binomial", "reduce:blocking:intra"),
        ("mpich.allreduce.intra.recursive_doubling", "allreduce:blocking:intra"),
    ):
        [line] = coverage_lines(logs[name])
        assert "(100.0%)" in line and line.endswith(f"in the selection {scope}")
    # An entry whose key is not this job's (another build, library, shape set or
    # selection) is never read: with its key changed and its rows emptied, a job
    # computes the array again and covers every pair.
    # (The changed entry is written into the new run's cache only: the sweep's own
    # folder is shared with another test.)
    reduce_entry = scopes["reduce:blocking:intra"]
    entry = json.loads(reduce_entry.read_text())
    body = json.loads(entry["body"])
    body["rows"] = []
    again = tmp_path / "again"
    again.mkdir()
    (again / "cache").mkdir()
    (again / "cache" / reduce_entry.name).write_text(
        json.dumps({"key": entry["key"] + "|another build", "body": json.dumps(body)})
    )
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--variants",
        "mpich.reduce.intra.binomial",
        "--filter",
        "crossing",
        "--ranks",
        "3",
        "--property-budget",
        "0",
        "--launch-per-family",
        "--out",
        str(again),
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    log = (
        again
        / "logs"
        / "mpich.reduce.intra.binomial"
        / "ordo_check_crossing-3ranks.log"
    )
    assert coverage_lines(log) == coverage_lines(logs["mpich.reduce.intra.binomial"])
    assert [r["id"] for r in records(again)] == [
        r["id"]
        for r in records(out)
        if r["variant"] == "mpich.reduce.intra.binomial"
        and r["id"].startswith("Crossing.")
    ]


def test_a_default_run_launches_its_families_once_per_rank_count_with_the_same_records(
    tmp_path,
):
    """The default run (no --variants) at a rank count: one launch of ordo_sweep_checks
    for every family but the threads check, the records of one launch per family, and
    what each family ran (`seen`, which a sweep's variants read to skip the families
    without their routine) the same as its own job's.
    """
    needs_build("mpich")
    one, per = tmp_path / "one", tmp_path / "per"
    for out, extra in ((one, []), (per, ["--launch-per-family"])):
        p = run_ordo(
            "run",
            "--vendor",
            "mpich",
            "--filter",
            FAMILIES + ",threads",
            "--ranks",
            "3",
            "--property-budget",
            "0",
            "--out",
            str(out),
            *extra,
        )
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr
    a, b = jobs(one), jobs(per)
    assert sorted(j["executable"] for j in a) == [
        "ordo_check_threads",
        "ordo_sweep_checks",
    ]
    assert sorted(j["executable"] for j in b) == sorted(
        ["ordo_check_threads"] + [f"ordo_check_{f}" for f in FAMILIES.split(",")]
    )
    p = run_ordo("compare", "--records", str(one), str(per))
    assert p.returncode == 0 and "identical records" in p.stdout, p.stdout[-3000:]
    # Every DETECT case after every other case of the combined job, as in a sweep's.
    mine = [r for r in records(one) if not r["id"].startswith("Threads.")]
    detect = [r["seq"] for r in mine if r["level"] == "DETECT"]
    assert detect and min(detect) > max(
        r["seq"] for r in mine if r["level"] != "DETECT"
    )

    def seen(out, prefix):
        events = [
            json.loads(line)
            for line in (out / "progress.jsonl").read_text().splitlines()
            if line.strip()
        ]
        return {
            e["executable"]: e["seen"]
            for e in events
            if e.get("event") == "done"
            and e["job"].startswith(prefix)
            and e.get("seen") is not None
        }

    per_family = {
        k: v for k, v in seen(per, "default/").items() if k != "ordo_check_threads"
    }
    assert seen(one, "seen/") == per_family and len(per_family) == 5


def test_family_seen_reads_the_families_tests_from_every_launch_log(tmp_path):
    from runner.run import family_seen

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "ordo_sweep_checks-3ranks.log").write_text(
        'noise\nordo family-tests: {"values":["Reduce.a","Scan.b"],"op":["Op.c"]}\n'
    )
    # A relaunch after a crash writes the line again; a line cut short is passed over.
    (logs / "ordo_sweep_checks-3ranks-resume1.log").write_text(
        'ordo family-tests: {"values":["Red\n'
    )
    case = {"routine": "scan", "mode": "blocking", "comm": "world"}
    recs = [
        {"test": "Scan.b", "case": case},
        {"test": "Op.c"},
        {"test": "Other.d", "case": case},
    ]
    got = dict(
        family_seen(
            logs,
            "ordo_sweep_checks",
            3,
            ["ordo_check_values", "ordo_check_op", "ordo_check_x"],
            recs,
        )
    )
    assert got == {
        "ordo_check_values": [("scan", "blocking", "intra")],
        "ordo_check_op": [],
    }


def test_the_own_launch_families_are_kept_in_one_file_the_build_and_runner_read(
    tmp_path,
):
    """The families that keep their own launch (issue #40): conformance/own_launch.txt
    only, read by conformance/CMakeLists.txt (file(STRINGS) with a REGEX) and by the
    runner (run.OWN_LAUNCH) alike; every line of it is a comment, blank, or a family
    of checks; with a build, ordo_sweep_checks links no object of those families and
    those of every other family."""
    import re

    from runner import run

    listed = ROOT / "conformance" / "own_launch.txt"
    cmake = (ROOT / "conformance" / "CMakeLists.txt").read_text()
    # No second list in the build: the only value of ordo_own_launch is the file's.
    assert not re.search(r"set\(\s*ordo_own_launch\b", cmake)
    read = re.findall(
        r"file\(STRINGS\s+\$\{CMAKE_CURRENT_SOURCE_DIR\}/own_launch\.txt\s+"
        r'ordo_own_launch\s+REGEX\s+"([^"]+)"\)',
        cmake,
    )
    assert len(read) == 1, "conformance/CMakeLists.txt reads own_launch.txt once"
    as_cmake = [
        line for line in listed.read_text().splitlines() if re.search(read[0], line)
    ]
    assert as_cmake, "own_launch.txt names no family"
    assert run.OWN_LAUNCH == tuple(f"ordo_check_{f}" for f in as_cmake)
    for line in listed.read_text().splitlines():
        assert not line.strip() or line.startswith("#") or line in as_cmake, line
    for family in as_cmake:
        assert (ROOT / "conformance" / family / "CMakeLists.txt").is_file(), family
    # The runner reads the file it is given, as the build does: comments and
    # blank lines are not families.
    other = tmp_path / "own_launch.txt"
    other.write_text("# a comment\n\nthreads\nhuge\n")
    assert run.read_own_launch(other) == ("ordo_check_threads", "ordo_check_huge")
    # What the build made of it (a configured build/mpich): the sweep executable's
    # objects are every family's but those.
    link = ROOT / "build/mpich/conformance/CMakeFiles/ordo_sweep_checks.dir/link.txt"
    if not link.is_file():
        return
    linked = set(re.findall(r"CMakeFiles/ordo_checks_(\w+)\.dir/", link.read_text()))
    families = {
        p.parent.name
        for p in (ROOT / "conformance").glob("*/CMakeLists.txt")
        if "ordo_add_checks" in p.read_text()
    }
    assert linked == families - set(as_cmake) and set(as_cmake) <= families

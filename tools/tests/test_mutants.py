"""The mutant vendor's list and driver (no MPI needed): the list is well formed
and names real clauses, checks and fault hooks; the driver judges a job as
the brief says (first MUST failure, crash or timeout) and refuses bad input."""
import json
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import mutants  # noqa: E402  (tools/mutants.py)

LIST = json.loads((ROOT / "vendors" / "mutants" / "mutants.json").read_text())[
    "mutants"
]


def test_at_least_twenty_mutants_each_with_a_name_category_description_and_clause():
    assert len(LIST) >= 20
    names = [m["name"] for m in LIST]
    assert len(set(names)) == len(names)
    for m in LIST:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m["name"]), m["name"]
        assert m["category"] and m["description"].endswith(".")


def test_the_list_covers_a_hang_and_a_crash():
    assert any("hang" in m["name"] for m in LIST)
    assert any("crash" in m["name"] for m in LIST)


def test_every_clause_is_in_the_catalogue_and_every_family_is_a_check_folder():
    clauses = json.loads((ROOT / "spec" / "clauses.json").read_text())["clauses"]
    for m in LIST:
        assert m["clause"] in clauses, (m["name"], m["clause"])
        for f in m.get("families", []):
            assert (ROOT / "conformance" / f / "CMakeLists.txt").is_file(), (
                m["name"],
                f,
            )


def test_the_list_and_the_fault_hooks_name_the_same_mutants():
    source = (ROOT / "reference" / "mpi" / "src" / "mutants.cpp").read_text()
    table = source[
        source.index("kNames[] = {") : source.index("};", source.index("kNames[] = {"))
    ]
    hooks = set(re.findall(r'"([a-z0-9-]+)"', table)) - {"none"}
    assert hooks == {m["name"] for m in LIST}


def test_a_must_failure_is_a_detection_and_other_levels_are_not(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("")
    j = tmp_path / "x.jsonl"
    should = {"outcome": "fail", "level": "SHOULD", "test": "T.s", "clause": "c"}
    must = {
        "outcome": "fail",
        "level": "MUST",
        "test": "T.m",
        "clause": "user-op.noncommutative-order",
        "message": "m",
        "id": "T.m#0",
    }
    pathlib.Path(str(j) + ".done").write_text("1\n")
    assert mutants.detection([should], 1, log, j) is None
    found = mutants.detection(
        [should, {"outcome": "pass", "level": "MUST"}, must], 1, log, j
    )
    assert found["check"] == "T.m [user-op.noncommutative-order]"


def test_a_dead_job_is_a_detection_and_the_watchdog_marker_makes_it_a_timeout(tmp_path):
    log = tmp_path / "ordo_check_reduce-4ranks.log"
    log.write_text("a\nb\n")
    j = tmp_path / "ordo_check_reduce-4ranks.jsonl"
    assert mutants.detection([], 139, log, j)["outcome"] == "crash"
    # an MPI_Abort: no .done
    assert mutants.detection([], 1, log, j)["outcome"] == "crash"
    pathlib.Path(str(j) + ".timeout").write_text("3\n")
    for rank, seq, test in ((0, 3, "Reduce.x"), (1, 2, "Reduce.w")):
        pathlib.Path(f"{j}.inflight.{rank}").write_text(
            json.dumps(
                {
                    "seq": seq,
                    "id": f"{test}#0",
                    "test": test,
                    "clause": "reduce.values",
                    "level": "MUST",
                    "case": None,
                    "routine": "",
                }
            )
        )
    # The runner's rule (runner/protocol.py): the earliest case begun that rank 0 had
    # not recorded.
    found = mutants.detection([], 9, log, j)
    assert found["outcome"] == "timeout" and found["check"].startswith(
        "Reduce.w [reduce.values]"
    )
    j.write_text(
        json.dumps({"seq": 2, "id": "Reduce.w#0", "outcome": "pass"}) + "\n"
    )  # rank 0 recorded case 2
    found = mutants.detection([], 9, log, j)
    assert found["check"].startswith("Reduce.x [reduce.values]")


def test_an_unknown_mutant_is_refused_in_one_line():
    p = subprocess.run(
        [str(ROOT / "ordo"), "mutants", "--only", "no-such-fault"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"ORDO_NO_INSTALL": "1", "PATH": "/usr/bin:/bin"},
    )
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "no-such-fault" in lines[0]


# ---- mutants whose fault exists in one build only (#37: the ABI's mutant)
# ---------------------------------------------------------------------------------------


def by_name(name):
    return next(m for m in LIST if m["name"] == name)


def test_a_mutant_that_only_the_abi_path_catches_is_listed_with_its_reason():
    abi_only = [m for m in LIST if m.get("abi_only")]
    assert [m["name"] for m in abi_only] == ["abi-internal-datatype-handle"]
    m = abi_only[0]
    # caught by an abi check, and first tried there
    assert m["clause"].startswith("abi.") and m["families"][0] == "abi"
    assert "--abi" in m["abi_only"]
    assert by_name("fortran-in-place-ignored").get("native_only")
    for m in LIST:
        assert not (m.get("abi_only") and m.get("native_only")), m["name"]


def test_the_library_refuses_the_same_mutants_in_the_build_where_they_have_no_fault():
    """mutants.cpp's mutant_not_in_this_build names the list's native_only mutants in
    an ABI build and its abi_only ones in any other."""
    source = (ROOT / "reference" / "mpi" / "src" / "mutants.cpp").read_text()
    body = source[source.index("const char* mutant_not_in_this_build") :]
    body = body[: body.index("return nullptr;")]
    abi_part, native_part = body.split("#else")

    def named(part):
        return {n.replace("_", "-") for n in re.findall(r"Mutant::([a-z0-9_]+)", part)}

    assert named(abi_part) == {m["name"] for m in LIST if m.get("native_only")}
    assert named(native_part) == {m["name"] for m in LIST if m.get("abi_only")}


def test_a_mutant_applies_only_in_its_build():
    abi_mutant = by_name("abi-internal-datatype-handle")
    fortran = by_name("fortran-in-place-ignored")
    plain = by_name("swap-operands")
    assert mutants.not_applicable(abi_mutant, through_abi=False).startswith(
        "through the ABI only: "
    )
    assert mutants.not_applicable(abi_mutant, through_abi=True) is None
    assert mutants.not_applicable(fortran, through_abi=True).startswith(
        "not through the ABI: "
    )
    assert mutants.not_applicable(fortran, through_abi=False) is None
    for through_abi in (False, True):
        assert mutants.not_applicable(plain, through_abi) is None


def test_a_not_applicable_mutant_is_never_detected_and_never_fails_the_run():
    ok = {"name": "a", "detected": True}
    escaped = {"name": "b", "detected": False}
    na = mutants.not_applicable_row(by_name("abi-internal-datatype-handle"), "why")
    assert na["applicable"] is False and na["detected"] is False
    assert na["not_applicable"] == "why" and na["caught_by"] is None
    assert mutants.verdict([ok, na], baseline_clean=True) == 0
    assert mutants.verdict([ok, na, escaped], baseline_clean=True) == 1
    assert mutants.verdict([ok, na], baseline_clean=False) == 1


class FakeJobs:
    """Runner.job without MPI: every job is clean without a mutant and shows a MUST
    failure with one; records which mutants were launched."""

    def __init__(self):
        self.launched = set()

    def __call__(self, runner, mutant, exe, n, extra=()):
        log = runner.out / f"{mutant or 'baseline'}-{n}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        journal = runner.out / f"{mutant or 'baseline'}-{n}.jsonl"
        pathlib.Path(str(journal) + ".done").write_text("1\n")
        if mutant is None:
            return [{"outcome": "pass", "level": "MUST"}], 0, 0.01, log, journal
        self.launched.add(mutant)
        failure = {
            "outcome": "fail",
            "level": "MUST",
            "test": "T.x",
            "clause": "c",
            "id": f"T.x#{mutant}",
            "message": "m",
        }
        return [failure], 1, 0.01, log, journal


def run_driver(monkeypatch, tmp_path, argv):
    """cmd_mutants on the host with the build and the jobs faked: (exit code, the
    report, the launched mutants, what it printed)."""
    import argparse
    import contextlib
    import io

    built = []
    monkeypatch.setattr(
        mutants,
        "build",
        lambda adapter, **kw: built.append(adapter["name"]) or (tmp_path / "b", []),
    )
    monkeypatch.setattr(
        mutants, "library_mutants", lambda bdir, path=None: {m["name"] for m in LIST}
    )
    monkeypatch.setattr(
        mutants, "check_executables", lambda bdir: ["/x/ordo_check_abi"]
    )
    monkeypatch.setattr(mutants, "git_state", lambda: {})
    jobs = FakeJobs()
    monkeypatch.setattr(
        mutants.Runner, "job", lambda self, *a, **k: jobs(self, *a, **k)
    )
    p = argparse.ArgumentParser()
    mutants.add_arguments(p)
    args = p.parse_args(argv + ["--out", str(tmp_path / "out")])
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        rc = mutants.cmd_mutants(args)
    report = json.loads((tmp_path / "out" / "mutants.json").read_text())
    return rc, report, jobs.launched, built, text.getvalue()


def test_on_the_host_the_abi_mutant_is_reported_not_applicable_and_the_run_passes(
    monkeypatch, tmp_path
):
    rc, report, launched, built, text = run_driver(
        monkeypatch, tmp_path, ["--ranks", "3"]
    )
    assert rc == 0 and built == ["mutants"] and report["through"] == "native"
    rows = {r["name"]: r for r in report["mutants"]}
    # every mutant of the list has its row, in the list's order: none silently absent
    assert [r["name"] for r in report["mutants"]] == [m["name"] for m in LIST]
    row = rows["abi-internal-datatype-handle"]
    assert row["applicable"] is False and row["detected"] is False
    assert row["not_applicable"].startswith("through the ABI only: ")
    assert "abi-internal-datatype-handle" not in launched
    assert launched == {m["name"] for m in LIST} - {"abi-internal-datatype-handle"}
    assert all(r["detected"] for r in rows.values() if r.get("applicable", True))
    assert f"{len(LIST)} mutants: {len(LIST) - 1} detected, 0 escaped, 1 not" in text
    assert "not applicable: abi-internal-datatype-handle: through the ABI only" in text


def test_only_the_abi_mutant_on_the_host_builds_and_launches_nothing(
    monkeypatch, tmp_path
):
    rc, report, launched, built, text = run_driver(
        monkeypatch, tmp_path, ["--only", "abi-internal-datatype-handle"]
    )
    assert rc == 0 and not built and not launched
    assert report["baseline"]["ran"] is False
    assert [r["applicable"] for r in report["mutants"]] == [False]


def test_through_the_abi_the_mutant_library_is_preloaded_over_the_chosen_library(
    monkeypatch, tmp_path
):
    from runner import abi
    from runner.adapters import launch_env

    monkeypatch.setattr(
        abi, "library_file", lambda name: f"/lib/libmpi_abi_{name}.so.1"
    )
    monkeypatch.setattr(abi, "header_dir", lambda: ("/inc/mpich", "mpich"))
    import argparse

    for library, launcher in ((None, "mpich"), ("openmpi", "openmpi")):
        args = argparse.Namespace(abi=True, abi_library=library)
        adapter = mutants.mutant_adapter(args)
        assert adapter["name"] == launcher and adapter["_build_name"] == "mpi-abi"
        assert adapter["_abi"]["library"] == f"/lib/libmpi_abi_{launcher}.so.1"
        env = launch_env(adapter, tmp_path, {}, plain_launch=True)
        assert env["LD_PRELOAD"].split()[0] == str(
            tmp_path / "vendors" / "mutants" / "libordo_mutmpi.so"
        )
        assert env["LD_LIBRARY_PATH"] == str(tmp_path / f"abi/run-{launcher}")
    with pytest.raises(mutants.OrdoError) as e:
        mutants.mutant_adapter(argparse.Namespace(abi=False, abi_library="mpich"))
    assert e.value.code == 2


def test_through_the_abi_the_fortran_binding_mutant_is_not_applicable(
    monkeypatch, tmp_path
):
    from runner import abi

    monkeypatch.setattr(
        abi, "library_file", lambda name: f"/lib/libmpi_abi_{name}.so.1"
    )
    monkeypatch.setattr(abi, "header_dir", lambda: ("/inc/mpich", "mpich"))
    rc, report, launched, built, text = run_driver(
        monkeypatch,
        tmp_path,
        ["--abi", "--only", "abi-internal-datatype-handle,fortran-in-place-ignored"],
    )
    assert rc == 0 and built == ["mpich"] and report["through"] == "abi"
    assert launched == {"abi-internal-datatype-handle"}
    rows = {r["name"]: r for r in report["mutants"]}
    assert rows["abi-internal-datatype-handle"]["detected"] is True
    assert rows["fortran-in-place-ignored"]["not_applicable"].startswith(
        "not through the ABI: "
    )
    assert report["abi"]["library_name"] == "mpich"


def test_abi_mutants_on_a_host_without_the_abi_or_without_abi_is_one_line():
    for argv, says in (
        (["--abi-library", "mpich"], "--abi-library without --abi"),
        (["--abi"], "--abi"),
    ):
        p = subprocess.run(
            [str(ROOT / "ordo"), "mutants", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            env={"ORDO_NO_INSTALL": "1", "PATH": "/usr/bin:/bin"},
        )
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        assert p.returncode == 2 and len(lines) == 1, (argv, p.stdout, p.stderr)
        assert says in lines[0]


def test_mutants_in_a_system_without_its_root_is_one_line_naming_how_to_make_it(
    tmp_path,
):
    import shutil

    if not shutil.which("bwrap"):
        pytest.skip("bwrap is not installed (the line would name it instead)")
    p = subprocess.run(
        [
            str(ROOT / "ordo"),
            "mutants",
            "--system",
            "debian-unstable",
            "--systems-dir",
            str(tmp_path),
            "--abi",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"ORDO_NO_INSTALL": "1", "PATH": "/usr/bin:/bin"},
    )
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 2 and len(lines) == 1, (p.stdout, p.stderr)
    assert "./ordo systems make debian-unstable" in lines[0]

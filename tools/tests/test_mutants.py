"""The mutant vendor's list and driver (no MPI needed): the list is well formed
and names real clauses, checks and fault hooks; the driver judges a job as
the brief says (first MUST failure, crash or timeout) and refuses bad input."""
import json
import pathlib
import re
import subprocess
import sys

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

"""The runner's structure (tools/runner/): every module imports, no module
imports another that imports it back, one command line for every launch, the
job protocol's names agree with the harness, and one rule for a dead job."""
import ast
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from runner import launch, protocol  # noqa: E402


def python_modules():
    """Module name -> path, for tools/ (top level and runner/) and reports/."""
    mods = {}
    for path in sorted((ROOT / "tools").glob("*.py")):
        mods[path.stem] = path
    for path in sorted((ROOT / "tools" / "runner").glob("*.py")):
        mods["runner" if path.stem == "__init__" else f"runner.{path.stem}"] = path
    for path in sorted((ROOT / "reports").glob("*.py")):
        mods["reports" if path.stem == "__init__" else f"reports.{path.stem}"] = path
    return mods


def imports_of(name, path, known):
    """The project modules a module imports (at any depth of its code)."""
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if m in known and m != name}


def test_no_module_imports_one_that_imports_it_back():
    mods = python_modules()
    graph = {name: imports_of(name, path, mods) for name, path in mods.items()}
    # A package's __init__ is imported by each of its modules: only a real circle
    # counts.
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open" and not (m.startswith(n + ".")):
                raise AssertionError(
                    "import circle: " + " -> ".join(stack[stack.index(n) :] + [n])
                )
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert "runner.run" in graph and "reports.records" in graph
    assert not any(
        m.startswith("runner")
        for m in set().union(*(graph[r] for r in graph if r.startswith("reports")))
    )


def test_every_module_imports():
    code = "import sys; sys.path[:0] = [%r, %r]\n" % (str(ROOT), str(ROOT / "tools"))
    code += "".join(
        f"import {m}\n" for m in python_modules() if m not in ("install-deps",)
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr


def test_the_command_list_hides_the_ctest_command():
    p = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "ordo_cli.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and "SUPPRESS" not in p.stdout and " job " not in p.stdout
    assert "run " in p.stdout and "mutants" in p.stdout


ADAPTER = {"name": "stub", "launcher": {"np_flag": "-n"}}


def test_a_job_command_is_timeout_launcher_ranks_executable_and_flags():
    cmd = launch.job_command(
        ADAPTER,
        ["mpiexec", "--x"],
        3,
        "/b/exe",
        timeout=60,
        flags=launch.ordo_flags(journal="/o/j", case_timeout=5, waivers=None) + ["--g"],
    )
    assert cmd == [
        "timeout",
        "-k",
        "5",
        "60",
        "mpiexec",
        "--x",
        "-n",
        "3",
        "/b/exe",
        "--ordo-journal=/o/j",
        "--ordo-case-timeout=5",
        "--g",
    ]
    assert launch.job_command(ADAPTER, ["m"], 1, "e", timeout=9, kill_after=None)[
        :3
    ] == ["timeout", "9", "m"]


def test_no_module_assembles_a_launch_line_of_its_own():
    """`timeout -k` appears in runner/launch.py only (the other launches call
    job_command)."""
    offenders = []
    for path in list((ROOT / "tools").rglob("*.py")) + list(
        (ROOT / "bench").rglob("*.py")
    ):
        if path.name == "launch.py" or "tests" in path.parts:
            continue
        text = path.read_text()
        if '"timeout", "-k"' in text or 'np_flag"], str(' in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


def test_the_marker_names_are_the_harness_names():
    """The harness writes the files runner/protocol.py reads (same suffixes, same
    restart exit code)."""
    sources = "".join(
        p.read_text() for p in (ROOT / "conformance" / "harness").glob("*.*")
    )
    for suffix in (
        protocol.INFLIGHT,
        protocol.DONE,
        protocol.TIMEOUT,
        protocol.RESTART,
        protocol.ENV,
        protocol.FINALIZED,
        protocol.FINALIZED_PROMISE,
    ):
        assert f'"{suffix}"' in sources, suffix
    assert f"{protocol.RESTART_EXIT_CODE}" in sources


def _note(seq, test, **more):
    """An in-flight note as the harness writes it (inflight-1.schema.json)."""
    return {
        "seq": seq,
        "id": f"{test}#0",
        "test": test,
        "clause": "reduce.values",
        "level": "MUST",
        "case": None,
        "routine": "",
        **more,
    }


def _begin(journal, rank, seq, test):
    pathlib.Path(f"{journal}.inflight.{rank}").write_text(json.dumps(_note(seq, test)))


def test_a_dead_job_is_charged_to_the_earliest_case_rank_0_had_not_recorded(tmp_path):
    j = tmp_path / "journal.jsonl"
    j.write_text(json.dumps({"seq": 1, "id": "A#0", "outcome": "pass"}) + "\n")
    assert protocol.charged_case(j, 0) == (None, False)
    _begin(j, 0, 3, "C")
    _begin(j, 1, 2, "B")  # rank 1 is still in case 2, which rank 0 never recorded
    case, recorded = protocol.charged_case(j, 0)
    assert case["test"] == "B" and not recorded


def test_a_case_the_watchdog_ended_carries_the_limit_of_the_rank_whose_watchdog_fired(
    tmp_path,
):
    """Each rank derives its case limit from what it saw; the record names the one that
    fired."""
    j = tmp_path / "journal.jsonl"
    j.write_text("")
    for rank, seconds in ((0, 1.82), (1, 60.0), (2, 60.0)):
        pathlib.Path(f"{j}.inflight.{rank}").write_text(
            json.dumps(
                _note(
                    5, "U", case_limit={"seconds": seconds, "rule": "hung", "why": ""}
                )
            )
        )
    pathlib.Path(f"{j}.timeout").write_text("5 0\n")
    assert protocol.watchdog_rank(j) == 0
    case, recorded = protocol.charged_case(j, 0)
    assert case["case_limit"]["seconds"] == 1.82 and not recorded
    pathlib.Path(f"{j}.timeout").write_text("5 2\n")
    assert protocol.charged_case(j, 0)[0]["case_limit"]["seconds"] == 60.0
    pathlib.Path(f"{j}.timeout").write_text("5\n")  # an older harness: no rank
    assert (
        protocol.watchdog_rank(j) is None and protocol.charged_case(j, 0)[0]["seq"] == 5
    )


def test_when_every_begun_case_was_recorded_the_highest_is_named(tmp_path):
    j = tmp_path / "journal.jsonl"
    j.write_text(
        "".join(
            json.dumps({"seq": s, "id": f"x#{s}", "outcome": "pass"}) + "\n"
            for s in (1, 2)
        )
    )
    _begin(j, 0, 2, "B")
    _begin(j, 1, 1, "A")
    case, recorded = protocol.charged_case(j, 0)
    assert case["test"] == "B" and recorded
    # Records before the job's own first record are another job's (seqs count per
    # executable).
    case, recorded = protocol.charged_case(j, j.stat().st_size)
    assert case["test"] == "A" and not recorded


@pytest.mark.parametrize(
    "rc,marker,expect",
    [(124, False, True), (137, False, True), (1, True, True), (139, False, False)],
)
def test_a_timeout_is_the_exit_code_of_timeout_or_the_watchdog_marker(
    tmp_path, rc, marker, expect
):
    j = tmp_path / "journal.jsonl"
    if marker:
        protocol.marker(j, protocol.TIMEOUT).write_text("3\n")
    assert protocol.timed_out(j, rc) == expect


def test_the_harness_begins_its_write_failure_line_as_the_protocol_says():
    sources = "".join(
        p.read_text()
        for d in ("conformance/harness", "property_tests")
        for p in (ROOT / d).glob("*.cpp")
    )
    assert sources.count(f'"{protocol.WRITE_FAILURE}') >= 4


def test_a_job_that_could_not_write_its_notes_stops_the_run_and_charges_no_case(
    tmp_path,
):
    """A full disk inside the harness (it aborts after its one line) is ordo's
    failure: the run stops with one line and resumes there; no case is
    recorded as crashed."""
    from runner.errors import OrdoError
    from runner.job import run_job

    j = tmp_path / "journal.jsonl"
    j.write_text(json.dumps({"seq": 1, "id": "A#0", "outcome": "pass"}) + "\n")
    before = j.read_text()
    fake = tmp_path / "job.sh"
    fake.write_text(
        f"#!/bin/sh\necho '{json.dumps(_note(2, 'B'))}' > {j}.inflight.0\n"
        f"echo 'ordo: cannot write the in-flight note of {j}: No space left"
        " on device'\n"
        "echo 'Abort(3) on node 0'\nexit 3\n"
    )
    fake.chmod(0o755)
    with pytest.raises(OrdoError) as e:
        run_job(
            [str(fake)],
            "job",
            2,
            tmp_path,
            j,
            {"name": "mpich"},
            2,
            waivers=_NoWaivers(),
        )
    assert "No space left on device" in str(e.value) and "--resume" in str(e.value)
    assert j.read_text() == before


class _NoWaivers:
    def apply(self, record):
        return record


def test_no_comment_names_a_path_of_one_machine():
    offenders = []
    for folder in ("tools", "reports", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".sh") or "tests" in path.parts:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if any(p in line for p in ("/work/", "/home/", "/root/")):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}")
    assert not offenders

"""The property phase (tools/runner/properties.py): the budget parser, the commands
and records of run_phase with a stub runner, and a live run through
run_job against an MPICH build (skipped, with the reason, when there
is none)."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from runner import properties  # noqa: E402
from runner.adapters import (  # noqa: E402
    build_dir_for,
    launch_env,
    launcher_prefix,
    load_adapter,
)
from runner.job import run_job  # noqa: E402
from reports.records import read_journal  # noqa: E402

ADAPTER = {
    "name": "stubmpi",
    "launcher": {"np_flag": "-n"},
    "_dir": "/nonexistent",
    "_path": "/x/adapter.json",
}


# ---- the budget ------------------------------------------------------------


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("20", ("cases", 20)),
        (" 7 ", ("cases", 7)),
        ("0", ("off", 0)),
        ("0s", ("off", 0)),
        ("90s", ("seconds", 90.0)),
        ("2.5s", ("seconds", 2.5)),
        ("15 s", ("seconds", 15.0)),
        ("40S", ("seconds", 40.0)),
    ],
)
def test_budget_parses_cases_seconds_and_off(text, parsed):
    assert properties.parse_budget(text) == parsed


@pytest.mark.parametrize(
    "text", ["", "-3", "abc", "20x", "1.5", "s", "3m", "20 cases", "99999999999"]
)
def test_a_malformed_budget_is_a_one_line_value_error_naming_it(text):
    with pytest.raises(ValueError) as e:
        properties.parse_budget(text)
    assert "\n" not in str(e.value)
    assert f"'{text}'" in str(e.value)


def test_the_first_slice_runs_the_given_seed_and_later_slices_fixed_other_seeds():
    assert properties.slice_seed(42, 4, 0) == 42
    later = {properties.slice_seed(42, n, k) for n in (2, 3, 4) for k in (1, 2, 3)}
    assert len(later) == 9 and 42 not in later
    assert properties.slice_seed(42, 4, 2) == properties.slice_seed(42, 4, 2)


# ---- run_phase with a stub runner ----------------------------------------


def fake_build(tmp_path):
    bdir = tmp_path / "build"
    (bdir / "property_tests").mkdir(parents=True)
    (bdir / "property_tests" / "ordo_properties").write_text("")
    out = tmp_path / "out"
    (out / "logs").mkdir(parents=True)
    return bdir, out, out / "journal.jsonl"


class StubRunner:
    """Stands for run_job: notes each command and writes what the
    property executable would (case records and a summary), or nothing."""

    def __init__(self, journal, passed=True, write_summary=True, seconds_per_case=0.01):
        self.journal, self.passed, self.write_summary = journal, passed, write_summary
        self.seconds_per_case = seconds_per_case
        self.calls = []

    def __call__(self, base, name, n, out, journal, adapter, max_restarts):
        flags = dict(a.split("=", 1) for a in base if a.startswith("--ordo-"))
        self.calls.append({"base": base, "name": name, "n": n, "flags": flags})
        cases = int(flags["--ordo-property-cases"])
        with open(journal, "a") as f:
            for i in range(cases):
                outcome = "fail" if not self.passed and i == cases - 1 else "pass"
                f.write(
                    json.dumps(
                        {
                            "test": properties.PROPERTY_TEST,
                            "seq": i + 1,
                            "clause": "reduce.values",
                            "outcome": outcome,
                            "ranks": n,
                        }
                    )
                    + "\n"
                )
            if self.write_summary:
                f.write(
                    json.dumps(
                        {
                            "test": properties.PROPERTY_TEST,
                            "clause": properties.SUMMARY_CLAUSE,
                            "level": "INFO",
                            "outcome": "pass",
                            "ranks": n,
                            "property": {
                                "cases": cases,
                                "passed": self.passed,
                                "seconds": cases * self.seconds_per_case,
                                "seed": flags["--ordo-seed"],
                            },
                        }
                    )
                    + "\n"
                )


def run(tmp_path, runner=None, **kw):
    bdir, out, journal = fake_build(tmp_path)
    runner = runner or StubRunner(journal)
    args = dict(
        adapter=ADAPTER,
        bdir=bdir,
        prefix=["mpiexec", "-x"],
        out=out,
        journal=journal,
        ranks=[1, 2, 3],
        budget="5",
        seed=11,
        case_timeout=20,
        job_timeout=300,
        run_job=runner,
    )
    args.update(kw)
    return properties.run_phase(**args), runner, journal


def test_a_case_budget_runs_every_rank_count_from_two_with_the_seed_and_the_count(
    tmp_path,
):
    result, runner, _ = run(tmp_path)
    assert [c["n"] for c in runner.calls] == [2, 3]
    for call in runner.calls:
        base, flags = call["base"], call["flags"]
        assert base[:4] == ["timeout", "-k", "5", "300"] and base[4:6] == [
            "mpiexec",
            "-x",
        ]
        assert base[6:8] == ["-n", str(call["n"])]
        assert base[8] == str(tmp_path / "build" / "property_tests" / "ordo_properties")
        assert flags["--ordo-seed"] == "11" and flags["--ordo-property-cases"] == "5"
        assert flags["--ordo-journal"] == str(tmp_path / "out" / "journal.jsonl")
        assert flags["--ordo-reproducers"] == str(tmp_path / "out" / "reproducers")
        assert (
            flags["--ordo-property-case-timeout"] == "20"
            and flags["--ordo-vendor"] == "stubmpi"
        )
        assert call["name"] == "ordo_properties"
    assert (tmp_path / "out" / "reproducers").is_dir()
    assert result["cases"] == 10 and result["failures"] == 0
    one = [r for r in result["per_ranks"] if r["ranks"] == 1]
    assert len(one) == 1 and one[0]["cases"] == 0 and "skipped" in one[0]["skipped"]
    assert [r["ranks"] for r in result["per_ranks"]] == [1, 2, 3]


def test_a_failing_property_counts_as_one_failure_per_run(tmp_path):
    bdir, out, journal = fake_build(tmp_path)
    runner = StubRunner(journal, passed=False)
    result = properties.run_phase(
        adapter=ADAPTER,
        bdir=bdir,
        prefix=[],
        out=out,
        journal=journal,
        ranks=[2, 4],
        budget="3",
        seed=1,
        case_timeout=20,
        job_timeout=60,
        run_job=runner,
    )
    assert result["failures"] == 2 and result["cases"] == 6


def test_a_run_without_its_summary_gets_one_written_with_the_seed_and_the_case_records(
    tmp_path,
):
    bdir, out, journal = fake_build(tmp_path)
    runner = StubRunner(journal, write_summary=False)
    result = properties.run_phase(
        adapter=ADAPTER,
        bdir=bdir,
        prefix=[],
        out=out,
        journal=journal,
        ranks=[2],
        budget="4",
        seed=9,
        case_timeout=20,
        job_timeout=60,
        run_job=runner,
    )
    summaries = [
        r for r in read_journal(journal) if r.get("clause") == properties.SUMMARY_CLAUSE
    ]
    assert len(summaries) == 1
    s = summaries[0]
    assert (
        s["property"]["seed"] == "9"
        and s["property"]["cases"] == 4
        and s["property"]["passed"] is False
    )
    assert (
        s["level"] == "INFO"
        and s["ranks"] == 2
        and s["vendor"] == "stubmpi"
        and s["test"] == properties.PROPERTY_TEST
    )
    assert result["failures"] == 1 and result["cases"] == 4


def test_budget_zero_runs_nothing(tmp_path):
    result, runner, journal = run(tmp_path, budget="0")
    assert runner.calls == [] and result["cases"] == 0 and result["per_ranks"] == []
    assert not journal.exists() or journal.read_text() == ""


def test_a_seconds_budget_measures_a_first_slice_then_sizes_the_next_from_the_rate(
    tmp_path,
):
    bdir, out, journal = fake_build(tmp_path)
    runner = StubRunner(journal, seconds_per_case=0.001)
    result = properties.run_phase(
        adapter=ADAPTER,
        bdir=bdir,
        prefix=[],
        out=out,
        journal=journal,
        ranks=[2],
        budget="2s",
        seed=3,
        case_timeout=20,
        job_timeout=60,
        run_job=runner,
    )
    assert len(runner.calls) >= 2
    first, second = runner.calls[0]["flags"], runner.calls[1]["flags"]
    assert (
        first["--ordo-property-cases"] == str(properties.FIRST_SLICE_CASES)
        and first["--ordo-seed"] == "3"
    )
    assert int(second["--ordo-property-cases"]) > properties.FIRST_SLICE_CASES
    assert second["--ordo-seed"] == str(properties.slice_seed(3, 2, 1))
    assert runner.calls[1]["name"] == "ordo_properties.slice2"
    assert result["per_ranks"][0]["slices"] == len(runner.calls)
    assert result["cases"] == sum(
        int(c["flags"]["--ordo-property-cases"]) for c in runner.calls
    )


def test_an_unwritable_reproducer_folder_is_a_one_line_os_error_naming_it(tmp_path):
    bdir, out, journal = fake_build(tmp_path)
    (out / "reproducers").write_text("a file where the folder should be")
    with pytest.raises(OSError) as e:
        properties.run_phase(
            adapter=ADAPTER,
            bdir=bdir,
            prefix=[],
            out=out,
            journal=journal,
            ranks=[2],
            budget="3",
            seed=1,
            case_timeout=20,
            job_timeout=60,
            run_job=StubRunner(journal),
        )
    assert isinstance(e.value, properties.ReproducerDirError)
    assert str(out / "reproducers") in str(e.value) and "\n" not in str(e.value)


def test_a_missing_property_executable_is_reported(tmp_path):
    with pytest.raises(FileNotFoundError, match="ordo_properties"):
        properties.run_phase(
            adapter=ADAPTER,
            bdir=tmp_path / "nobuild",
            prefix=[],
            out=tmp_path,
            journal=tmp_path / "j",
            ranks=[2],
            budget="3",
            seed=1,
            case_timeout=20,
            job_timeout=60,
            run_job=None,
        )


# ---- live: the real run_job and an MPICH build -----------------------------


def mpich_build():
    adapter = load_adapter("mpich")
    bdir = build_dir_for(adapter)
    return adapter, bdir, (bdir / "property_tests" / "ordo_properties").is_file()


def live_phase(adapter, bdir, out, seed):
    env = launch_env(adapter, bdir, {}, False)
    prefix = launcher_prefix(adapter, bdir, env)
    (out / "logs").mkdir(parents=True)
    (out / "gtest").mkdir()
    journal = out / "journal.jsonl"
    journal.touch()
    result = properties.run_phase(
        adapter=adapter,
        bdir=bdir,
        prefix=prefix,
        out=out,
        journal=journal,
        ranks=[1, 2],
        budget="6",
        seed=seed,
        case_timeout=20,
        job_timeout=240,
        run_job=run_job,
    )
    return result, read_journal(journal)


def test_live_a_fixed_seed_runs_the_same_cases_and_leaves_a_summary_record(tmp_path):
    adapter, bdir, built = mpich_build()
    if not built:
        pytest.skip(
            f"no MPICH build with the property executable in {bdir} (./ordo test builds"
            " it; ORDO_BUILD_ROOT moves it)"
        )
    runs = [
        live_phase(adapter, bdir, tmp_path / f"run{i}", seed=20240611) for i in range(2)
    ]
    cases = []
    for result, records in runs:
        summaries = [r for r in records if r.get("clause") == properties.SUMMARY_CLAUSE]
        assert len(summaries) == 1, records
        s = summaries[0]
        assert (
            s["property"]["seed"] == "20240611"
            and s["ranks"] == 2
            and s["level"] == "INFO"
        )
        assert s["property"]["cases"] == 6 == result["cases"]
        assert sum(s["property"]["labels"]["routine"].values()) == 6
        assert set(s["property"]["labels"]) >= {
            "routine",
            "op",
            "shape",
            "level",
            "count",
        }
        if s["property"]["passed"]:
            assert sum(d["cases"] for d in s["property"]["distribution"]) == 6
        else:
            assert s["case"] and s["replay"].startswith(
                "./ordo replay --vendor mpich --ranks 2"
            )
        assert result["failures"] == (0 if s["property"]["passed"] else 1)
        assert [r["ranks"] for r in result["per_ranks"]] == [1, 2]
        generated = [
            r
            for r in records
            if r.get("test") == properties.PROPERTY_TEST and r.get("seq")
        ]
        assert len(generated) >= 6 and all(
            r["schema"] == "ordo.check/1" for r in generated
        )
        cases.append([json.dumps(r["case"], sort_keys=True) for r in generated])
    assert cases[0] == cases[1]


def test_live_lockstep_all_ranks_draw_one_seed_and_shrink_to_one_case_at_2_to_8_ranks(
    tmp_path,
):
    """Issue #5: rank 0 decides RC_PARAMS and every rank prints it; against a
    broken reduction (the mutant MPI, swap-operands) every rank prints the
    same shrunk case, at every rank count from 2 to 8."""
    adapter = load_adapter("mutants")
    bdir = build_dir_for(adapter)
    exe = bdir / "property_tests" / "ordo_properties"
    if not exe.is_file():
        pytest.skip(
            f"no mutant MPI build with the property executable in {bdir} (./ordo test"
            " builds it)"
        )
    env = launch_env(adapter, bdir, {"ORDO_MUTANT": "swap-operands"}, False)
    prefix = launcher_prefix(adapter, bdir, env)
    for n in range(2, 9):
        cmd = (
            ["timeout", "-k", "5", "300"]
            + prefix
            + [
                "-n",
                str(n),
                str(exe),
                "--ordo-seed=7",
                "--ordo-property-cases=100",
                f"--ordo-journal={tmp_path / f'journal-{n}.jsonl'}",
                f"--ordo-reproducers={tmp_path}",
            ]
        )
        p = subprocess.run(
            cmd, capture_output=True, text=True, env=dict(os.environ, RC_PARAMS="")
        )
        assert p.returncode == 1, (
            n,
            p.stdout[-2000:],
            p.stderr[-2000:],
        )  # the property found the fault
        params = re.findall(
            r"^ordo properties: world rank (\d+) of (\d+): RC_PARAMS=\"(.*)\"$",
            p.stdout,
            re.M,
        )
        assert sorted(int(r) for r, _, _ in params) == list(range(n)), p.stdout[-2000:]
        assert {(size, text) for _, size, text in params} == {
            (str(n), "seed=7 max_success=100")
        }
        shrunk = re.findall(
            r"^ordo properties: world rank (\d+): shrunk case: (\{.*\})$",
            p.stdout,
            re.M,
        )
        assert sorted(int(r) for r, _ in shrunk) == list(range(n)), p.stdout[-2000:]
        assert len({case for _, case in shrunk}) == 1, shrunk
        assert json.loads(shrunk[0][1])["count"] <= 2

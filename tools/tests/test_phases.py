"""Where a job's seconds go, by its processes' own account (issue #17): the
harness's "ordo phases" line (conformance/harness/check_main.h), read back by
the runner for each launch, and summed by `ordo bench --sweeps`."""
import json
import pathlib

from runner import protocol
from runner.job import run_job

import bench

ROOT = pathlib.Path(__file__).resolve().parents[2]

LINE = {
    "wall_s": 2.5,
    "mpi_init_s": 0.3,
    "startup_s": 0.2,
    "standby_s": 0.0,
    "tests_s": 1.9,
    "finalize_s": 0.05,
    "cases": {"call": 0.5, "reference": 0.6, "verdict": 0.4},
    "outside_cases_by_test": {"Crossing.x": 0.3},
}


class _NoWaivers:
    def apply(self, record):
        return record


def test_the_harness_prints_the_line_the_runner_reads():
    source = (ROOT / "conformance" / "harness" / "check_main.cpp").read_text()
    assert f'"{protocol.PHASES}{{' in source.replace('\\"', '"')
    for key in LINE:
        assert f'"{key}' in source.replace('\\"', '"'), key


def test_the_last_phases_line_of_a_log_is_the_launchs_and_a_log_without_one_has_none(
    tmp_path,
):
    log = tmp_path / "a.log"
    log.write_text(
        '[ RUN ] X\nordo phases: {"wall_s": 1}\nordo phases: ' + json.dumps(LINE) + "\n"
    )
    assert protocol.phases(log) == LINE
    log.write_text("[ RUN ] X\nSegmentation fault\n")
    assert protocol.phases(log) is None
    log.write_text("ordo phases: {cut\n")
    assert protocol.phases(log) is None
    assert protocol.phases(tmp_path / "missing.log") is None


def test_a_job_returns_each_launch_with_its_exit_code_and_its_phases(tmp_path):
    j = tmp_path / "journal.jsonl"
    j.write_text("")
    fake = tmp_path / "job.sh"
    fake.write_text(
        f"#!/bin/sh\necho 'ordo phases: {json.dumps(LINE)}'\ntouch"
        f" {j}{protocol.DONE}\nexit 0\n"
    )
    fake.chmod(0o755)
    launches = run_job(
        [str(fake)], "job", 2, tmp_path, j, {"name": "mpich"}, 2, waivers=_NoWaivers()
    )
    assert (
        len(launches) == 1 and launches[0]["rc"] == 0 and launches[0]["phases"] == LINE
    )
    assert launches[0]["seconds"] >= 0


def test_the_sweep_split_sums_the_launches_and_counts_the_dead_whole():
    jobs = [
        {
            "launches": [
                {"seconds": 3.0, "rc": 0, "phases": LINE},
                {"seconds": 7.0, "rc": 124, "phases": None},
            ]
        },
        {"launches": [{"seconds": 2.7, "rc": 0, "phases": dict(LINE, wall_s=2.5)}]},
    ]
    s = bench.process_split(jobs)
    assert s["launches"] == 3 and s["launches_died"] == 1 and s["died_seconds"] == 7.0
    assert s["seconds"] == 12.7
    # each launch less its process's wall time
    assert s["launcher_seconds"] == round(3.0 + 2.7 - 5.0, 1)
    assert s["mpi_init_seconds"] == 0.6 and s["tests_seconds"] == 3.8
    assert s["case_phases_seconds"] == {"reference": 1.2, "call": 1.0, "verdict": 0.8}
    assert s["tests_outside_case_phases_seconds"] == round(3.8 - 3.0, 1)
    assert s["outside_case_phases_by_test"] == {"Crossing.x": 0.6}
    assert s["standby_launches"] == 0 and s["standby_hidden_seconds"] == 0
    assert s["expect_cache_rank0"] == {
        "hits": 0,
        "mismatches": 0,
        "kept": 0,
    }  # a line without it: none
    # an older run's jobs carry no launches
    assert bench.process_split([{"seconds": 1.0}]) is None
    cached = dict(LINE, expect_cache={"hits": 5, "mismatches": 1, "kept": 0})
    kept = dict(LINE, expect_cache={"hits": 0, "mismatches": 0, "kept": 7})
    s = bench.process_split(
        [
            {
                "launches": [
                    {"seconds": 3.0, "rc": 0, "phases": cached},
                    {"seconds": 3.0, "rc": 0, "phases": kept},
                ]
            }
        ]
    )
    assert s["expect_cache_rank0"] == {"hits": 5, "mismatches": 1, "kept": 7}


def test_a_standby_launchs_start_up_is_counted_apart_and_its_seconds_from_its_go():
    # Started ahead: 0.3 s MPI_Init, 0.2 s start-up, then 1.5 s idle until its go; 0.55
    # s from the go to its end (tests 0.5 s, finalize 0.05 s): the launcher's share is
    # 0.55 - 0.55 = 0.
    ahead = dict(LINE, wall_s=2.55, standby_s=1.5, tests_s=0.5)
    s = bench.process_split(
        [{"launches": [{"seconds": 0.55, "rc": 0, "phases": ahead, "standby": True}]}]
    )
    assert s["standby_launches"] == 1 and s["standby_hidden_seconds"] == 0.5
    assert s["mpi_init_seconds"] == 0 and s["startup_seconds"] == 0
    assert s["launcher_seconds"] == 0.0 and s["tests_seconds"] == 0.5


def _finished_run(folder, system, seconds):
    folder.mkdir()
    run = {
        "vendor": "mpich",
        "end": "2026-11-28T12:00:00+00:00",
        "settings": {"property_budget": 100},
        "per_rank_count": [
            {"ranks": n, "seconds": s, "variant": "default", "outcomes": {"pass": 10}}
            for n, s in enumerate(seconds, start=1)
        ],
    }
    if system:
        run["system"] = {"name": system}
    (folder / "run.json").write_text(json.dumps(run))
    return folder


def test_bench_runs_keep_the_host_and_a_root_apart_and_compare_them(tmp_path, capsys):
    """`ordo bench --runs HOST ROOT` (issue #36: a run in a root at most 10% slower
    than on the host): the same library's two runs are two totals, one per system,
    and the root's line says how much slower it was."""
    host = _finished_run(tmp_path / "host", None, [10.0, 30.0])
    root = _finished_run(tmp_path / "root", "debian-12", [11.0, 33.0])
    rows = bench.run_rows([host, root])
    assert [r["system"] for r in rows] == ["host", "host", "debian-12", "debian-12"]
    bench.print_runs(rows)
    out = capsys.readouterr().out
    assert "mpich      host            all          40.0 s" in out
    assert "mpich      debian-12       all          44.0 s" in out
    assert "mpich      debian-12       against the host: +10.0%" in out

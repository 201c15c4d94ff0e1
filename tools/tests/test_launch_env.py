"""A user's environment joins the adapter's, never silently replaces it
(runner/adapters.py: launch_env, join_env, env_notices), and every rank
reports the environment it was launched with (runner/protocol.py: ENV;
runner/run.py: fold_rank_env). The real MPICH run needs build/mpich with
ordo_check_char_types and the yield-when-idle preload (`./ordo run` or
`./ordo test` builds them)."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT
from runner import adapters, protocol, run
from runner.adapters import launch_env, launcher_prefix, load_adapter
from runner.job import run_job
from runner.launch import job_command, ordo_flags


def mpich(tmp_path):
    return load_adapter("mpich"), tmp_path / "build"


def test_a_users_preload_joins_the_adapters_preload_after_it(tmp_path):
    adapter, bdir = mpich(tmp_path)
    yield_so = f"{bdir}/vendors/mpich/libordo_yield_when_idle.so"
    env = launch_env(
        adapter, bdir, {"LD_PRELOAD": "/opt/prof/libprof.so"}, False, sanitize=False
    )
    assert env["LD_PRELOAD"] == f"{yield_so} /opt/prof/libprof.so"
    # --plain-launch: no launch setting, the user's value alone
    assert (
        launch_env(
            adapter, bdir, {"LD_PRELOAD": "/opt/prof/libprof.so"}, True, sanitize=False
        )["LD_PRELOAD"]
        == "/opt/prof/libprof.so"
    )
    # the same entry given again (a colon-separated list, as ld.so also accepts) is not
    # repeated
    again = launch_env(
        adapter, bdir, {"LD_PRELOAD": f"/a.so:{yield_so}"}, False, sanitize=False
    )
    assert again["LD_PRELOAD"] == f"{yield_so} /a.so"
    # a list-valued variable joins: no notice; nothing else was replaced
    assert (
        adapters.env_notices(
            adapter, bdir, {"LD_PRELOAD": "/opt/prof/libprof.so"}, False
        )
        == []
    )


@pytest.mark.parametrize(
    "name,first,then,joined",
    [
        ("LD_PRELOAD", "a.so b.so", "c.so:a.so", "a.so b.so c.so"),
        (
            "LD_PRELOAD",
            "a.so",
            "  b.so  ",
            "a.so b.so",
        ),  # empty entries mean nothing to ld.so
        (
            "LD_LIBRARY_PATH",
            "/x:/y",
            "/z;/x",
            "/x:/y:/z",
        ),  # ld.so: colons or semicolons
        ("PATH", "/usr/bin:/bin", "/opt/bin:/usr/bin", "/usr/bin:/bin:/opt/bin"),
        (
            "PATH",
            "/bin",
            "/opt/bin:",
            "/bin:/opt/bin:",
        ),  # an empty entry of PATH (the current directory) stays
    ],
)
def test_list_valued_variables_join_in_order_without_duplicates(
    name, first, then, joined
):
    assert adapters.join_list(name, first, then) == joined


def test_any_other_variable_the_user_sets_replaces_the_adapters_with_a_notice(tmp_path):
    adapter = {
        "name": "x",
        "env": {"MPIR_CVAR_A": "1", "PATH": "/adapter/bin"},
        "launch_settings": [
            {"name": "s", "env": {"MPIR_CVAR_B": "{build}/f"}, "why": "w"}
        ],
    }
    bdir = tmp_path / "b"
    user = {"MPIR_CVAR_A": "2", "MPIR_CVAR_B": f"{bdir}/f", "PATH": "/mine", "NEW": "v"}
    env = launch_env(adapter, bdir, user, False, sanitize=False)
    assert env == {
        "MPIR_CVAR_A": "2",
        "MPIR_CVAR_B": f"{bdir}/f",
        "PATH": "/adapter/bin:/mine",
        "NEW": "v",
    }
    notices = adapters.env_notices(adapter, bdir, user, False)
    # B is set to the adapter's own value (no change), PATH joins, NEW is the user's
    # alone: one notice
    assert notices == [
        {"variable": "MPIR_CVAR_A", "value": "2", "replaced": "1", "from": "its env"}
    ]
    assert (
        adapters.notice_line(notices[0])
        == "ordo: --env MPIR_CVAR_A=2 replaces the adapter's MPIR_CVAR_A=1 (its env)"
    )
    # a variant's setting counts as the adapter's too
    layered = adapters.env_notices(
        adapter,
        bdir,
        {"MPIR_CVAR_C": "x"},
        False,
        [("variant v", {"MPIR_CVAR_C": "y"})],
    )
    assert layered == [
        {"variable": "MPIR_CVAR_C", "value": "x", "replaced": "y", "from": "variant v"}
    ]
    assert adapters.join_env({"A": "1"}, {"A": "2"}) == ({"A": "2"}, [("A", "1", "2")])


def test_the_adapters_own_layers_join_too():
    """The reference and mutant adapters repeat their base preload in the
    launch setting's: joined, each library once, the reference first."""
    for vendor, first in (
        ("reference-mpich", "reference/mpi/libordo_refmpi.so"),
        ("mutants", "vendors/mutants/libordo_mutmpi.so"),
    ):
        adapter = load_adapter(vendor)
        entries = launch_env(adapter, pathlib.Path("/b"), {}, False, sanitize=False)[
            "LD_PRELOAD"
        ].split()
        assert entries == [
            f"/b/{first}",
            "/b/vendors/mpich/libordo_yield_when_idle.so",
        ], vendor


def test_the_ranks_report_the_named_variables_and_the_runner_folds_them(tmp_path):
    assert adapters.env_report_names({"B": "1", "A": "2"}) == [
        "A",
        "B",
        "LD_LIBRARY_PATH",
        "LD_PRELOAD",
        "PATH",
    ]
    journal = tmp_path / "journal.jsonl"
    for rank in (0, 1):
        pathlib.Path(f"{journal}{protocol.ENV}{rank}").write_text(
            json.dumps({"A": "2", "PATH": None})
        )
    # a rank that died while writing
    pathlib.Path(f"{journal}{protocol.ENV}2.tmp").write_text("{")
    row = {}
    run.fold_rank_env(row, "job1", protocol.rank_envs(journal))
    assert row == {
        "rank_env": {"0": {"A": "2", "PATH": None}, "1": {"A": "2", "PATH": None}}
    }
    assert not list(
        tmp_path.glob("journal.jsonl.env.*")
    ), "the reports are removed once read"
    run.fold_rank_env(row, "job2", {1: {"A": "3", "PATH": None}})
    assert row["rank_env_differs"] == [
        {"job": "job2", "rank": 1, "env": {"A": "3", "PATH": None}}
    ]


# ---- a real MPICH run -------------------------------------------------------------


def test_live_every_mpich_rank_reports_both_preloads(tmp_path):
    """A short MPICH job at 2 ranks with --env LD_PRELOAD=<a preload built
    here>: every rank's recorded environment holds the adapter's
    yield-when-idle preload and the user's, in that order (the MPI lock
    taken per launch, ORDO_MPI_LOCK; the job bounded by `timeout`)."""
    adapter = load_adapter("mpich")
    bdir = BUILD / "mpich"
    exe = bdir / "conformance" / "char_types" / "ordo_check_char_types"
    yield_so = bdir / "vendors" / "mpich" / "libordo_yield_when_idle.so"
    if not exe.is_file() or not yield_so.is_file() or not shutil.which("mpiexec.mpich"):
        pytest.skip(
            f"needs {exe} and {yield_so} (./ordo run --vendor mpich builds them) and"
            " MPICH"
        )
    src = tmp_path / "harmless.c"
    src.write_text(
        "static int loaded;\n__attribute__((constructor)) static void mark(void) {"
        " loaded = 1; }\nint ordo_harmless_preload(void) { return loaded; }\n"
    )
    mine = tmp_path / "libharmless.so"
    subprocess.run(
        ["cc", "-shared", "-fPIC", str(src), "-o", str(mine)], check=True, timeout=60
    )
    env = launch_env(adapter, bdir, {"LD_PRELOAD": str(mine)}, False, sanitize=False)
    journal = tmp_path / "journal.jsonl"
    journal.touch()
    (tmp_path / "gtest").mkdir()
    os.environ[
        "ORDO_MPI_LOCK"
    ] = "/tmp/ordo-mpi.lock"  # conftest removes it after the test
    try:
        base = job_command(
            adapter,
            launcher_prefix(adapter, bdir, env),
            2,
            exe,
            timeout=240,
            flags=ordo_flags(
                journal=journal,
                vendor="mpich",
                case_timeout=60,
                env_names=",".join(adapters.env_report_names(env)),
            ),
        )
    finally:
        del os.environ["ORDO_MPI_LOCK"]
    assert base[:2] == ["flock", "/tmp/ordo-mpi.lock"] and "timeout" in base
    run_job(base, exe.name, 2, tmp_path, journal, adapter, 0)
    row = {}
    run.fold_rank_env(row, exe.name, protocol.rank_envs(journal))
    assert sorted(row.get("rank_env", {})) == ["0", "1"], (
        row,
        (tmp_path / "logs").glob("*"),
    )
    for rank, seen in row["rank_env"].items():
        assert seen["LD_PRELOAD"].split() == [str(yield_so), str(mine)], (rank, seen)
        assert seen["PATH"] is not None  # a list-valued variable the launcher passed on
    assert any(
        json.loads(line).get("outcome") == "pass"
        for line in journal.read_text().splitlines()
    )


def test_live_ordo_run_records_every_ranks_environment_and_the_notices(
    tmp_path, monkeypatch, capsys
):
    """`ordo run` at 2 ranks of one check family, with a site adapter (MPICH's,
    with a variable of its own) and --env LD_PRELOAD=<a preload built here>
    --env of that variable: run.json's env joins the preloads, its notice is
    printed and kept, and every rank's reported environment holds both
    preloads. The build step is the build folder as it is (the test needs
    only ordo_check_char_types, ordo_replay and the preload; `./ordo run`
    builds the whole suite)."""
    import ordo_cli

    bdir = BUILD / "mpich"
    needed = [
        bdir / "conformance" / "char_types" / "ordo_check_char_types",
        bdir / "conformance" / "ordo_replay",
        bdir / "vendors" / "mpich" / "libordo_yield_when_idle.so",
    ]
    if not all(p.is_file() for p in needed) or not shutil.which("mpiexec.mpich"):
        pytest.skip(
            f"needs {', '.join(map(str, needed))} (./ordo run --vendor mpich builds"
            " them) and MPICH"
        )
    site = json.loads((ROOT / "vendors" / "mpich" / "adapter.json").read_text())
    site["env"] = {"ORDO_SITE_SETTING": "adapter"}
    site["waivers"] = str(ROOT / "vendors" / "mpich" / "waivers.json")
    adapter_file = tmp_path / "site-mpich.json"
    adapter_file.write_text(json.dumps(site))
    src = tmp_path / "harmless.c"
    src.write_text("int ordo_harmless_preload(void) { return 1; }\n")
    mine = tmp_path / "libharmless.so"
    subprocess.run(
        ["cc", "-shared", "-fPIC", str(src), "-o", str(mine)], check=True, timeout=60
    )

    def built(
        adapter,
        reference_tests,
        user_env=None,
        plain_launch=False,
        sanitize=False,
        **kw,
    ):
        return bdir, launcher_prefix(
            adapter,
            bdir,
            launch_env(adapter, bdir, user_env or {}, plain_launch, sanitize),
        )

    monkeypatch.setattr(run, "build", built)
    # every launch flocked; each job under `timeout`
    monkeypatch.setenv("ORDO_MPI_LOCK", "/tmp/ordo-mpi.lock")
    out = tmp_path / "out"
    rc = ordo_cli.main(
        [
            "run",
            "--vendor",
            str(adapter_file),
            "--ranks",
            "2",
            "--filter",
            "char_types",
            "--property-budget",
            "0",
            "--timeout",
            "300",
            "--out",
            str(out),
            "--env",
            f"LD_PRELOAD={mine}",
            "--env",
            "ORDO_SITE_SETTING=user",
        ]
    )
    printed = capsys.readouterr().out
    assert rc == 0, printed[-3000:]
    assert (
        "ordo: --env ORDO_SITE_SETTING=user replaces the adapter's"
        " ORDO_SITE_SETTING=adapter (its env)" in printed
    )
    doc = json.loads((out / "run.json").read_text())
    yield_so = str(bdir / "vendors" / "mpich" / "libordo_yield_when_idle.so")
    assert doc["env"]["LD_PRELOAD"] == f"{yield_so} {mine}"
    assert doc["env_notices"] == [
        {
            "variable": "ORDO_SITE_SETTING",
            "value": "user",
            "replaced": "adapter",
            "from": "its env",
        }
    ]
    [row] = doc["per_rank_count"]
    assert sorted(row["rank_env"]) == ["0", "1"], row
    for rank, seen in row["rank_env"].items():
        assert seen["LD_PRELOAD"].split() == [yield_so, str(mine)], (rank, seen)
        assert seen["ORDO_SITE_SETTING"] == "user"
    assert "rank_env_differs" not in row
    assert not list(out.glob("journal.jsonl.env.*"))

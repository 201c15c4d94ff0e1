"""`ordo run --abi` (#37, tools/runner/abi.py): one build through the MPI-5.0
standard ABI, run against each library that provides it."""
import copy
import json
import os
import pathlib

import jsonschema
import pytest

from conftest import ROOT, record, run_json, run_ordo, write_run
from runner import abi, adapters, build
from runner.errors import OrdoError
from runner.reporting import build_identity_line


@pytest.fixture
def libdir(tmp_path, monkeypatch):
    """A library folder with both ABI libraries and MPICH's standard header (files
    of their own: the host has neither)."""
    d = tmp_path / "lib"
    (d / "mpi_abi_mpich" / "include").mkdir(parents=True)
    (d / "mpi_abi_mpich" / "include" / "mpi.h").write_text("/* standard ABI */\n")
    (d / "libmpi_abi_mpich.so.1.0.0").write_bytes(b"mpich")
    (d / "libmpi_abi_openmpi.so.1.0.0").write_bytes(b"openmpi")
    monkeypatch.setattr(abi, "LIB_DIRS", (str(d),))
    monkeypatch.setenv("ORDO_BUILD_ROOT", str(tmp_path / "build"))
    return d


def fake_build(monkeypatch, commands):
    """build.build with cmake recorded (configure and build succeed, nothing runs)
    and no launch probes."""
    monkeypatch.setattr(
        build, "run_logged", lambda cmd, log, cwd=None: commands.append(cmd) or 0
    )
    monkeypatch.setattr(build, "probe_launch_settings", lambda *a, **k: False)
    monkeypatch.setattr(build, "require_tools", lambda adapter: None)


def settings(**kw):
    return {"vendor": "mpich", "abi": True, "abi_library": None, **kw}


def test_one_build_two_launches_with_each_librarys_file(libdir, monkeypatch):
    commands: list = []
    fake_build(monkeypatch, commands)
    plans = {}
    for name in ("mpich", "openmpi"):
        adapter = abi.abi_adapter(settings(abi_library=name))
        bdir, prefix = build.build(adapter, reference_tests=False, quiet=True)
        env = adapters.launch_env(adapter, bdir, {}, False, False)
        plans[name] = (adapter, bdir, prefix, env)
    # one build folder, configured the same for both (nothing is built again)
    (a_m, bdir_m, prefix_m, env_m), (a_o, bdir_o, prefix_o, env_o) = (
        plans["mpich"],
        plans["openmpi"],
    )
    assert bdir_m == bdir_o and bdir_m.name == "mpi-abi"
    configures = [c for c in commands if "-S" in c]
    builds = [c for c in commands if "--build" in c]
    assert len(configures) == 2 and configures[0] == configures[1]
    assert builds[0] == builds[1]
    cfg = configures[0]
    assert "-DORDO_ABI_BUILD=ON" in cfg and "-DMPI_SKIP_COMPILER_WRAPPER=ON" in cfg
    assert f"-DMPI_C_HEADER_DIR={libdir / 'mpi_abi_mpich' / 'include'}" in cfg
    assert "-DORDO_FORTRAN_WRAPPER=" in cfg
    assert not any(a.startswith("-DMPI_C_COMPILER") for a in cfg)
    # the link-time library is the header's, whichever library runs
    link = bdir_m / "abi" / "link" / "libmpi_abi.so"
    assert os.path.realpath(link) == str(libdir / "libmpi_abi_mpich.so.1.0.0")
    assert not (bdir_m / "abi" / "link" / abi.SONAME).exists()
    # each launch: its own library folder first on LD_LIBRARY_PATH, its own launcher
    assert env_m["LD_LIBRARY_PATH"] != env_o["LD_LIBRARY_PATH"]
    for env, name in ((env_m, "mpich"), (env_o, "openmpi")):
        lib = pathlib.Path(env["LD_LIBRARY_PATH"].split(":")[0]) / abi.SONAME
        assert os.path.realpath(lib) == str(libdir / f"libmpi_abi_{name}.so.1.0.0")
    assert pathlib.Path(prefix_m[0]).name == "mpiexec.mpich"
    assert pathlib.Path(prefix_o[0]).name == "mpiexec.openmpi"
    assert "--oversubscribe" in prefix_o
    # MPICH's yield-when-idle preload, from the ABI build's own folder
    assert env_m["LD_PRELOAD"] == str(
        bdir_m / "vendors" / "mpich" / "libordo_yield_when_idle.so"
    )
    assert "LD_PRELOAD" not in env_o
    # run.json names the launching adapter, never the ABI build's name
    assert a_m["name"] == "mpich" and a_o["name"] == "openmpi"


def test_the_build_identity_is_the_same_for_the_same_files_only(tmp_path):
    exes = []
    for concern in ("minloc_maxloc", "fortran"):
        exe = tmp_path / "conformance" / concern / f"ordo_check_{concern}"
        exe.parent.mkdir(parents=True)
        exe.write_bytes(concern.encode() * 100)
        exes.append(str(exe))
    first = build.build_identity(tmp_path, exes)
    assert first == build.build_identity(tmp_path, list(reversed(exes)))
    assert set(first["executables"]) == {
        "conformance/minloc_maxloc/ordo_check_minloc_maxloc",
        "conformance/fortran/ordo_check_fortran",
    }
    with open(exes[0], "ab") as f:
        f.write(b"\0")
    assert build.build_identity(tmp_path, exes)["sha256"] != first["sha256"]


def run_schema():
    schema = json.loads(
        (ROOT / "reports" / "schema" / "results-2.schema.json").read_text()
    )
    return {
        "$schema": schema["$schema"],
        "$defs": schema["$defs"],
        **schema["properties"]["run"],
    }


def abi_run(libdir, name="mpich", abi_version="1.0"):
    adapter = abi.abi_adapter(settings(abi_library=name))
    rec = abi.record(
        adapter,
        {"library": "MPICH Version: 5.0.2", "abi_version": abi_version},
        owner=lambda path: "libmpich12" if "abi_mpich.so" in path else "libmpich-dev",
        installed=lambda names=None: {
            "libmpich12": "5.0.2-2",
            "libmpich-dev": "5.0.2-2",
        },
    )
    return run_json(
        vendor=name,
        abi=rec,
        build_identity={
            "sha256": "a" * 64,
            "executables": {"conformance/ordo_replay": "b" * 64},
        },
    )


def test_run_json_abi_fields_are_valid_and_the_schema_refuses_bad_ones(libdir):
    schema = run_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    run = abi_run(libdir)
    assert run["abi"]["library"] == str(libdir / "libmpi_abi_mpich.so.1.0.0")
    assert run["abi"]["package"] == "libmpich12"
    assert run["abi"]["package_version"] == "5.0.2-2"
    assert run["abi"]["abi_version"] == "1.0"
    assert run["abi"]["header"].endswith("mpi_abi_mpich/include/mpi.h")
    assert list(validator.iter_errors(run)) == []
    assert list(validator.iter_errors({**run, "abi": None})) == []
    for bad in (
        {**run["abi"], "abi_version": "one"},
        {k: v for k, v in run["abi"].items() if k != "package_version"},
    ):
        assert list(validator.iter_errors({**run, "abi": bad}))
    bad_id = copy.deepcopy(run)
    bad_id["build_identity"]["sha256"] = "xyz"
    assert list(validator.iter_errors(bad_id))


def test_compare_tells_whether_the_builds_match():
    same = [{"run": {"build_identity": {"sha256": "c" * 64}}}] * 2
    assert "identical executables" in build_identity_line(same)
    other = same[:1] + [{"run": {"build_identity": {"sha256": "d" * 64}}}]
    assert "differ" in build_identity_line(other)
    assert "not compared" in build_identity_line(same[:1] + [{"run": {}}])


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"abi_library": "/no/such/libmpi_abi.so.1"}, "no such file"),
        ({"abi": False, "abi_library": "mpich"}, "without --abi"),
        ({"vendor": "openmpi", "abi_library": "mpich"}, "launched by its own adapter"),
        ({"vendor": "mutants"}, "give --abi-library PATH"),
    ],
)
def test_bad_abi_settings_are_one_line(libdir, kw, words):
    with pytest.raises(OrdoError) as e:
        abi.abi_adapter(settings(**kw))
    assert words in str(e.value) and "\n" not in str(e.value)
    assert e.value.code == 2


def test_a_system_without_the_abi_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(abi, "LIB_DIRS", (str(tmp_path),))
    with pytest.raises(OrdoError) as e:
        abi.abi_adapter(settings())
    assert "--system debian-unstable" in str(e.value) and e.value.code == 2
    (tmp_path / "libmpi_abi_mpich.so.1.0.0").write_bytes(b"x")
    with pytest.raises(OrdoError) as e:
        abi.abi_adapter(settings())
    assert "no standard mpi.h" in str(e.value) and e.value.code == 2


@pytest.mark.parametrize(
    "args",
    [
        ["--abi", "--abi-library", "/no/such/libmpi_abi.so.1"],
        ["--abi-library", "mpich"],
    ],
)
def test_the_command_line_says_one_line_and_exits_2(args, tmp_path):
    p = run_ordo("run", *args, "--out", str(tmp_path / "out"), timeout=120)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "--abi" in p.stderr


@pytest.mark.skipif(
    abi.library_file("mpich") is not None or abi.library_file("openmpi") is not None,
    reason="this machine has an ABI library",
)
def test_abi_on_a_system_without_it_says_so(tmp_path):
    p = run_ordo("run", "--abi", "--out", str(tmp_path / "out"), timeout=120)
    assert p.returncode == 2 and "--system debian-unstable" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_build_jobs_and_targets_from_the_environment(libdir, monkeypatch):
    commands: list = []
    fake_build(monkeypatch, commands)
    monkeypatch.setenv("ORDO_BUILD_JOBS", "1")
    monkeypatch.setenv("ORDO_BUILD_TARGETS", "ordo_replay ordo_check_minloc_maxloc")
    build.build(abi.abi_adapter(settings()), reference_tests=False, quiet=True)
    (cmd,) = [c for c in commands if "--build" in c]
    assert cmd[cmd.index("-j") + 1] == "1"
    assert cmd[cmd.index("--target") :] == [
        "--target",
        "ordo_replay",
        "ordo_check_minloc_maxloc",
    ]
    monkeypatch.delenv("ORDO_BUILD_TARGETS")
    monkeypatch.setenv("ORDO_BUILD_JOBS", "none")
    commands.clear()
    build.build(abi.abi_adapter(settings()), reference_tests=False, quiet=True)
    (cmd,) = [c for c in commands if "--build" in c]
    assert "--target" not in cmd and cmd[cmd.index("-j") + 1] == str(os.cpu_count())


def test_ordo_compare_prints_whether_two_abi_runs_used_the_same_build(libdir, tmp_path):
    recs = [record(index=i, ranks=2) for i in range(3)]
    runs = {
        name: write_run(tmp_path / name, recs, run=abi_run(libdir, name))
        for name in ("mpich", "openmpi")
    }
    validator = jsonschema.validators.validator_for(run_schema())(run_schema())
    for folder in runs.values():
        assert not list(
            validator.iter_errors(json.loads((folder / "run.json").read_text()))
        )
    p = run_ordo(
        "compare", *map(str, runs.values()), "--out", str(tmp_path / "cmp"), timeout=120
    )
    assert p.returncode == 0, p.stderr
    assert "build: identical executables in every run" in p.stdout
    other = json.loads((runs["openmpi"] / "run.json").read_text())
    other["build_identity"]["sha256"] = "e" * 64
    (runs["openmpi"] / "run.json").write_text(json.dumps(other))
    p = run_ordo(
        "compare", *map(str, runs.values()), "--out", str(tmp_path / "cmp"), timeout=120
    )
    assert p.returncode == 0 and "build: the executables differ" in p.stdout


def test_an_abi_runs_replay_commands_go_through_the_abi(libdir, monkeypatch):
    """The ranks of an ABI run get ORDO_ABI_LIBRARY (the harness writes `--abi
    --abi-library` into every replay command); any other run's never do."""
    monkeypatch.setenv(abi.REPLAY_VARIABLE, "left over")
    abi.adapter_for(settings(abi_library="openmpi"))
    assert os.environ[abi.REPLAY_VARIABLE] == "openmpi"
    own = libdir / "libmpi_abi_openmpi.so.1.0.0"
    abi.adapter_for(settings(vendor="openmpi", abi_library=str(own)))
    assert os.environ[abi.REPLAY_VARIABLE] == str(own)
    assert abi.adapter_for({"vendor": "mpich"})["name"] == "mpich"
    assert abi.REPLAY_VARIABLE not in os.environ
    text = (ROOT / "conformance" / "harness" / "case_record.cpp").read_text()
    assert 'getenv("ORDO_ABI_LIBRARY")' in text and "--abi --abi-library" in text


def test_replay_takes_abi_and_says_one_line_for_a_missing_library(tmp_path):
    p = run_ordo(
        "replay",
        "--abi",
        "--abi-library",
        "/no/such/libmpi_abi.so.1",
        "--case",
        "{}",
        timeout=120,
    )
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "no such file" in p.stderr

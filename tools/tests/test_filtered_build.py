"""A filtered run builds what it launches (#36, runner/run.py run_targets): the
targets of `ordo run --filter`, and a run that launches only what its build made."""
import json
import pathlib
import types

import jsonschema
import pytest

from conftest import ROOT
from runner import build, properties, run as run_mod
from runner.errors import EXIT_USAGE, OrdoError

DEFAULT = {"name": "default"}


def settings(**kw):
    base = {
        "filter": None,
        "huge": False,
        "launch_per_family": False,
        "default_one_launch": True,
    }
    return {**base, **kw}


def options(props=None, chosen=(DEFAULT,)):
    return types.SimpleNamespace(props=props, chosen=list(chosen))


@pytest.fixture(autouse=True)
def _no_build_targets(monkeypatch):
    monkeypatch.delenv("ORDO_BUILD_TARGETS", raising=False)


def test_a_run_without_filter_builds_everything():
    assert run_mod.run_targets(settings(), options()) is None


def test_a_filtered_run_builds_the_support_target_and_the_families_it_names():
    assert run_mod.run_targets(settings(filter="minloc"), options()) == [
        "ordo_run_support",
        "ordo_check_minloc_maxloc",
    ]


def test_the_families_a_filter_names_are_the_checkouts_folders():
    # every folder of conformance/ with a CMakeLists.txt, and nothing else
    folders = sorted(
        f"ordo_check_{d.name}"
        for d in (ROOT / "conformance").iterdir()
        if (d / "CMakeLists.txt").is_file()
    )
    assert run_mod.check_families() == folders
    assert "ordo_check_harness" not in folders and "ordo_check_common" not in folders
    targets = run_mod.run_targets(
        settings(filter="ordo_check_", launch_per_family=True), options()
    )
    assert targets == ["ordo_run_support"] + folders


def test_the_sweep_is_built_where_the_jobs_launch_it():
    two = "minloc,user_op"
    with_sweep = run_mod.run_targets(settings(filter=two), options())
    assert with_sweep == [
        "ordo_run_support",
        "ordo_check_minloc_maxloc",
        "ordo_check_user_op",
        run_mod.SWEEP_EXECUTABLE,
    ]
    # one launch per family: no sweep
    assert run_mod.SWEEP_EXECUTABLE not in run_mod.run_targets(
        settings(filter=two, launch_per_family=True), options()
    )
    # a resumed run of the default variant's launches per family, and one of a
    # variant's sweep
    old = settings(filter=two, default_one_launch=False)
    assert run_mod.SWEEP_EXECUTABLE not in run_mod.run_targets(old, options())
    assert run_mod.SWEEP_EXECUTABLE in run_mod.run_targets(
        old, options(chosen=[DEFAULT, {"name": "ring"}])
    )
    # one family in the sweep, the other keeping its own launch: no sweep
    own = run_mod.OWN_LAUNCH[0].removeprefix("ordo_check_")
    assert run_mod.SWEEP_EXECUTABLE not in run_mod.run_targets(
        settings(filter=f"minloc,{own}"), options()
    )


def test_a_property_budget_builds_the_property_executable():
    targets = run_mod.run_targets(settings(filter="minloc"), options(props=properties))
    assert targets[-1] == properties.EXECUTABLE.name == "ordo_properties"


def test_build_targets_from_the_environment_build_those_instead(monkeypatch):
    monkeypatch.setenv("ORDO_BUILD_TARGETS", "ordo_replay ordo_check_values")
    assert run_mod.run_targets(settings(filter="minloc"), options()) is None


def test_a_filter_that_names_no_family_is_one_line_and_exit_2():
    with pytest.raises(OrdoError) as e:
        run_mod.run_targets(settings(filter="nosuchfamily"), options())
    assert e.value.code == EXIT_USAGE
    assert "--filter nosuchfamily" in str(e.value) and "\n" not in str(e.value)


def fake_build_dir(bdir):
    for name in ("minloc_maxloc", "user_op", "values"):
        exe = bdir / "conformance" / name / f"ordo_check_{name}"
        exe.parent.mkdir(parents=True)
        exe.write_text(name)
    (bdir / "conformance" / run_mod.SWEEP_EXECUTABLE).write_text("sweep")
    (bdir / "conformance" / "ordo_replay").write_text("replay")


def test_a_filtered_run_launches_only_what_its_build_made(tmp_path):
    # An older whole build left every executable (and the sweep) in the folder: a
    # build of targets launches its own only.
    fake_build_dir(tmp_path)
    s = settings(filter="minloc,user_op,values")
    targets = ["ordo_run_support", "ordo_check_minloc_maxloc", "ordo_check_user_op"]
    exes, sweep = run_mod.run_executables(tmp_path, s, targets)
    assert [pathlib.Path(e).name for e in exes] == targets[1:]
    assert sweep is None
    exes, sweep = run_mod.run_executables(
        tmp_path, s, targets + [run_mod.SWEEP_EXECUTABLE]
    )
    assert sweep == str(tmp_path / "conformance" / run_mod.SWEEP_EXECUTABLE)
    # a whole build: what the folder holds, as before
    exes, sweep = run_mod.run_executables(tmp_path, s)
    assert len(exes) == 3 and sweep is not None


def test_build_passes_the_targets_to_cmake(monkeypatch, tmp_path):
    commands: list = []
    monkeypatch.setattr(
        build, "run_logged", lambda cmd, log, cwd=None: commands.append(cmd) or 0
    )
    monkeypatch.setattr(build, "probe_launch_settings", lambda *a, **k: False)
    monkeypatch.setattr(build, "require_tools", lambda adapter: None)
    monkeypatch.setattr(build, "build_dir_for", lambda adapter, sanitize: tmp_path)
    from runner.adapters import load_adapter

    adapter = load_adapter("mpich")
    build.build(
        adapter,
        reference_tests=False,
        quiet=True,
        targets=["ordo_run_support", "ordo_check_values"],
    )
    (cmd,) = [c for c in commands if "--build" in c]
    assert cmd[cmd.index("--target") :] == [
        "--target",
        "ordo_run_support",
        "ordo_check_values",
    ]
    commands.clear()
    build.build(adapter, reference_tests=False, quiet=True)
    (cmd,) = [c for c in commands if "--build" in c]
    assert "--target" not in cmd


def test_the_run_schema_holds_build_targets():
    schema = json.loads(
        (ROOT / "reports" / "schema" / "results-2.schema.json").read_text()
    )
    prop = schema["$defs"]["run"]["properties"]["build_targets"]
    check = jsonschema.validators.validator_for(prop)(prop)
    assert check.is_valid(None) and check.is_valid(["ordo_run_support"])
    assert not check.is_valid("ordo_run_support")


def test_a_build_configured_by_the_same_command_is_not_configured_again(tmp_path):
    calls: list = []

    def cmake(cmd, log, cwd=None):
        calls.append(cmd)
        (tmp_path / "CMakeCache.txt").write_text("")
        (tmp_path / "Makefile").write_text("")
        return 0

    log = tmp_path / "ordo-build.log"
    cmd = ["cmake", "-S", str(ROOT), "-B", str(tmp_path), "-DORDO_VENDOR=mpich"]
    orig = build.run_logged
    try:
        build.run_logged = cmake
        assert build.configure_once(cmd, tmp_path, log)
        assert build.configure_once(list(cmd), tmp_path, log)
        assert len(calls) == 1 and "configured by the same command" in log.read_text()
        # another command (a probe changed the launcher's flags): configured
        assert build.configure_once(cmd + ["-DORDO_MPIEXEC_PREFLAGS=-x"], tmp_path, log)
        assert len(calls) == 2
        # a folder without its cache (removed, or a failed configure): configured
        (tmp_path / "CMakeCache.txt").unlink()
        assert build.configure_once(cmd + ["-DORDO_MPIEXEC_PREFLAGS=-x"], tmp_path, log)
        assert len(calls) == 3
        # a failed configure leaves no record: the next build configures
        build.run_logged = lambda cmd, log, cwd=None: calls.append(cmd) or 1
        assert not build.configure_once(cmd, tmp_path, log)
        assert not (tmp_path / build.CONFIGURED_FILE).exists()
    finally:
        build.run_logged = orig


def test_cmake_configures_again_when_a_file_it_reads_changes():
    """What makes skipping an unchanged configure safe: the adapter files and the
    folders of checks and vendors that the configure reads are CMake's configure
    dependencies (its own build then configures again)."""
    text = (ROOT / "conformance" / "CMakeLists.txt").read_text()
    assert "file(GLOB family_lists CONFIGURE_DEPENDS" in text
    vendors = (ROOT / "cmake" / "OrdoVendorBuilds.cmake").read_text()
    assert "CMAKE_CONFIGURE_DEPENDS" in vendors and "adapter.json" in vendors
    assert "file(GLOB lists CONFIGURE_DEPENDS" in vendors

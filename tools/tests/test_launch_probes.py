"""Launch settings that apply only where they change nothing the library
reports (`unchanged` in vendors/adapter.schema.json; build.probe_launch_settings):
probed once without the setting and once with it, applied only when both
probes show the same thing, and recorded. A fake launcher plays the library;
the last test probes the real Open MPI build."""
import json
import os
import pathlib
import sys

from conftest import needs_build, run_ordo
from runner.adapters import launch_env, load_adapter
from runner.build import PROBES_FILE, probe_launch_settings, read_probes

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The fake launcher: its ranks' variables come as -x K=V; with PROBE=1 it
# prints what it "selected": A, or B when SETTING=1 and FAKE_CHANGES=1 (its
# own environment) say the setting changes the choice.
FAKE = r"""#!PYTHON
import os, sys
env, args = {}, sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "-x":
        k, v = args.pop(0).split("=", 1)
        env[k] = v
with open(os.environ["FAKE_CALLS"], "a") as f:
    f.write(" ".join(sorted(k + "=" + v for k, v in env.items())) + "\n")
if env.get("PROBE") == "1":
    changes = os.environ.get("FAKE_CHANGES") == "1"
    sel = "B" if env.get("SETTING") == "1" and changes else "A"
    print("select: component %s selected" % sel, file=sys.stderr)
"""


def fake_adapter(tmp_path, pattern=r"select: component (\S+) selected"):
    launcher = tmp_path / "fake-mpiexec"
    launcher.write_text(FAKE.replace("PYTHON", sys.executable))
    launcher.chmod(0o755)
    bdir = tmp_path / "build"
    (bdir / "conformance").mkdir(parents=True)
    # never run: the fake launcher only prints
    (bdir / "conformance" / "ordo_replay").write_text("")
    adapter = {
        "name": "fake",
        "env": {"BASE": "1"},
        "launcher": {
            "command": str(launcher),
            "np_flag": "-n",
            "env_flag": ["-x", "{key}={value}"],
        },
        "launch_settings": [
            {
                "name": "always",
                "env": {"ALWAYS": "1"},
                "why": "no probe: always applied",
            },
            {
                "name": "probed",
                "env": {"SETTING": "1"},
                "why": "w",
                "unchanged": {
                    "env": {"PROBE": "1"},
                    "pattern": pattern,
                    "why": "the selection",
                },
            },
        ],
    }
    return adapter, bdir


def test_a_setting_that_changes_nothing_is_applied_and_one_that_does_is_not(
    tmp_path, monkeypatch
):
    calls = tmp_path / "calls"
    monkeypatch.setenv("FAKE_CALLS", str(calls))
    adapter, bdir = fake_adapter(tmp_path)
    # Not probed yet: only the unconditional setting.
    assert launch_env(adapter, bdir, {}, False) == {"BASE": "1", "ALWAYS": "1"}
    # an outcome changed
    assert (
        probe_launch_settings(adapter, bdir, {"USER": "1"}, False, quiet=True) is True
    )
    # Probed without the setting, then with it, each with the probe's variable and the
    # user's.
    assert calls.read_text().splitlines() == [
        "ALWAYS=1 BASE=1 PROBE=1 USER=1",
        "ALWAYS=1 BASE=1 PROBE=1 SETTING=1 USER=1",
    ]
    assert adapter["_probed"]["probed"] == {
        "applied": True,
        "without": "A",
        "with": "A",
        "why": "the selection",
    }
    assert launch_env(adapter, bdir, {}, False) == {
        "BASE": "1",
        "ALWAYS": "1",
        "SETTING": "1",
    }
    assert launch_env(adapter, bdir, {}, True) == {"BASE": "1"}  # --plain-launch: none
    assert read_probes(bdir)["probed"]["applied"] is True  # kept in the build folder
    # the same outcome again
    assert probe_launch_settings(adapter, bdir, {}, False, quiet=True) is False

    # Where the setting changes what the library selects, it is not applied.
    monkeypatch.setenv("FAKE_CHANGES", "1")
    assert probe_launch_settings(adapter, bdir, {}, False, quiet=True) is True
    assert adapter["_probed"]["probed"] == {
        "applied": False,
        "without": "A",
        "with": "B",
        "why": "the selection",
    }
    assert "SETTING" not in launch_env(adapter, bdir, {}, False)
    assert json.loads((bdir / PROBES_FILE).read_text())["probed"]["applied"] is False


def test_a_probe_that_sees_nothing_applies_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_CALLS", str(tmp_path / "calls"))
    adapter, bdir = fake_adapter(tmp_path, pattern=r"selected by the library: (\S+)")
    probe_launch_settings(adapter, bdir, {}, False)
    assert adapter["_probed"]["probed"]["applied"] is False
    assert adapter["_probed"]["probed"]["without"] is None
    assert "SETTING" not in launch_env(adapter, bdir, {}, False)
    out = capsys.readouterr().out
    assert (
        out.count("\n") == 1
        and "launch setting probed not applied: its probe saw None without it" in out
    )


def test_open_mpis_pml_setting_is_probed_applied_and_recorded(tmp_path, monkeypatch):
    """On this machine Open MPI selects ob1 with and without cm opened: the
    setting applies, a run's ranks get it, and run.json says why."""
    needs_build("openmpi")
    monkeypatch.setenv("ORDO_MPI_LOCK", "/tmp/ordo-mpi.lock")
    adapter = load_adapter("openmpi")
    bdir = ROOT / "build" / "openmpi"
    probe_launch_settings(adapter, bdir, {}, False, quiet=True)
    probe = adapter["_probed"]["pml-cm-not-opened"]
    assert (
        probe["applied"] is True and probe["without"] == probe["with"] == "ob1"
    ), probe
    assert launch_env(adapter, bdir, {}, False)["OMPI_MCA_pml"] == "^cm"
    out = tmp_path / "out"
    p = run_ordo(
        "run",
        "--vendor",
        "openmpi",
        "--filter",
        "buffers",
        "--only",
        "Buffers.*null*",
        "--ranks",
        "2",
        "--property-budget",
        "0",
        "--out",
        str(out),
        env={"ORDO_MPI_LOCK": "/tmp/ordo-mpi.lock"},
    )
    assert p.returncode in (0, 1), p.stdout[-3000:] + p.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["launch_probes"]["pml-cm-not-opened"]["applied"] is True
    assert run["env"]["OMPI_MCA_pml"] == "^cm"
    assert any("OMPI_MCA_pml=^cm" in arg for arg in run["launcher"])
    p = run_ordo(
        "run",
        "--vendor",
        "openmpi",
        "--filter",
        "buffers",
        "--only",
        "Buffers.*null*",
        "--ranks",
        "2",
        "--property-budget",
        "0",
        "--plain-launch",
        "--out",
        str(tmp_path / "plain"),
        env={"ORDO_MPI_LOCK": "/tmp/ordo-mpi.lock"},
    )
    assert p.returncode in (0, 1), p.stdout[-3000:] + p.stderr
    run = json.loads((tmp_path / "plain" / "run.json").read_text())
    assert run["launch_probes"] is None and "OMPI_MCA_pml" not in run["env"]
    assert os.path.exists(bdir / PROBES_FILE)


def file_setting(tmp_path, prepare_ok=True, file_changes=False):
    """A setting of this machine: a file made by its preparation, named by
    the setting; probed by a command of its own (which reads the setting's
    variable from its environment) and by a launch of the fake library."""
    script = tmp_path / "describe"
    script.write_text(
        '#!/bin/sh\nif [ -n "$TOPO_FILE" ] && [ "$FILE_CHANGES" = 1 ]; then echo'
        " 'machine: other'; else echo 'machine: this'; fi\n"
    )
    script.chmod(0o755)
    return {
        "name": "from-file",
        "env": {"TOPO_FILE": "{build}/topo.txt", "SETTING": "1"},
        "why": "w",
        "this_machine": True,
        "prepare": {
            "command": (
                ["sh", "-c", "echo topology > {build}/topo.txt"]
                if prepare_ok
                else ["sh", "-c", "echo 'no such tool' >&2; exit 3"]
            ),
            "why": "the machine's description",
        },
        "unchanged": [
            {
                "command": [str(script)],
                "env": {"FILE_CHANGES": "1" if file_changes else "0"},
                "pattern": r"machine: (\S+)",
                "why": "the description",
            },
            {
                "env": {"PROBE": "1"},
                "pattern": r"select: component (\S+) selected",
                "why": "the selection",
            },
        ],
    }


def test_a_prepared_setting_applies_where_every_probe_holds(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_CALLS", str(tmp_path / "calls"))
    adapter, bdir = fake_adapter(tmp_path)
    adapter["launch_settings"] = [file_setting(tmp_path)]
    assert "TOPO_FILE" not in launch_env(adapter, bdir, {}, False)  # not prepared yet
    probe_launch_settings(adapter, bdir, {}, False, quiet=True)
    assert (
        bdir / "topo.txt"
    ).read_text() == "topology\n"  # the preparation ran, in the build folder
    probed = adapter["_probed"]["from-file"]
    assert probed["applied"] is True and probed["prepared"] is True
    assert [(p["without"], p["with"]) for p in probed["probes"]] == [
        ("this", "this"),
        ("A", "A"),
    ]
    assert launch_env(adapter, bdir, {}, False)["TOPO_FILE"] == str(bdir / "topo.txt")
    # Under a launcher template (processes perhaps on other machines): not applied.
    assert "TOPO_FILE" not in launch_env(
        {**adapter, "_launcher_template": "/x/srun.json"}, bdir, {}, False
    )


def test_a_setting_whose_preparation_fails_or_whose_probe_differs_is_not_applied(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("FAKE_CALLS", str(tmp_path / "calls"))
    adapter, bdir = fake_adapter(tmp_path)
    adapter["launch_settings"] = [file_setting(tmp_path, prepare_ok=False)]
    probe_launch_settings(adapter, bdir, {}, False)
    probed = adapter["_probed"]["from-file"]
    assert probed["applied"] is False and probed["prepared"] is False
    assert "exited with 3 no such tool" in probed["why"]
    assert not (tmp_path / "calls").exists()  # no probe ran
    assert (
        "launch setting from-file not applied: its preparation failed"
        in capsys.readouterr().out
    )
    assert "TOPO_FILE" not in launch_env(adapter, bdir, {}, False)
    # Prepared, but the command's probe sees another machine with the file: not applied.
    adapter["launch_settings"] = [file_setting(tmp_path, file_changes=True)]
    probe_launch_settings(adapter, bdir, {}, False)
    probed = adapter["_probed"]["from-file"]
    assert probed["applied"] is False
    assert (probed["without"], probed["with"]) == ("this", "other")
    assert (
        "its probe saw 'this' without it and 'other' with it (the description)"
        in capsys.readouterr().out
    )
    # Only the second probe differs: not applied either.
    monkeypatch.setenv("FAKE_CHANGES", "1")
    adapter["launch_settings"] = [file_setting(tmp_path)]
    probe_launch_settings(adapter, bdir, {}, False, quiet=True)
    probed = adapter["_probed"]["from-file"]
    assert probed["applied"] is False and probed["probes"][1]["with"] == "B"


def test_the_hwloc_topology_file_is_prepared_probed_and_applied_for_open_mpi(
    tmp_path, monkeypatch
):
    """On this machine hwloc gives the same topology from its exported file
    as found on the machine, and Open MPI binds the same: the setting
    applies, and a run's ranks get it. (MPICH has no such setting: its
    calls were slower with the file, see docs/adapters-and-clusters.md.)"""
    monkeypatch.setenv("ORDO_MPI_LOCK", "/tmp/ordo-mpi.lock")
    assert "hwloc-topology-from-file" not in [
        s["name"] for s in load_adapter("mpich")["launch_settings"]
    ]
    for vendor in ("openmpi",):
        needs_build(vendor)
        adapter = load_adapter(vendor)
        bdir = ROOT / "build" / vendor
        probe_launch_settings(adapter, bdir, {}, False, quiet=True)
        probed = adapter["_probed"]["hwloc-topology-from-file"]
        assert probed["applied"] is True, probed
        topology, binding = probed["probes"]
        assert (
            topology["without"] == topology["with"] and "<topology" in topology["with"]
        )
        assert (
            binding["without"] == binding["with"] and "not bound" not in binding["with"]
        ), binding
        env = launch_env(adapter, bdir, {}, False)
        assert (
            env["HWLOC_XMLFILE"] == str(bdir / "hwloc-topology.xml")
            and env["HWLOC_THISSYSTEM"] == "1"
        )
        assert (bdir / "hwloc-topology.xml").read_text().lstrip().startswith("<?xml")

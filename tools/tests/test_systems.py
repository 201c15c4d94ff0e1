"""Systems (#36, tools/runner/systems.py): `ordo systems`, `ordo run --system NAME`
inside a root of another Debian release, and what runs and reports record of it."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import ROOT, journal_records, record, run_json, write_run
from reports import markdown, package, results as res
from runner import systems

PYTHON = "/usr/bin/python3"
CLI = str(ROOT / "tools" / "ordo_cli.py")


def cli(*args, env=None, timeout=120):
    e = dict(os.environ, ORDO_NO_INSTALL="1")
    e.pop(systems.INSIDE, None)
    e.update(env or {})
    return subprocess.run(
        [PYTHON, CLI, *args], capture_output=True, text=True, env=e, timeout=timeout
    )


def one_line_exit_2(p):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ordo: "), p.stderr
    return lines[0]


# ---- making roots
# ---------------------------------------------------------------------------------------------------


def test_the_mirror_is_the_hosts_main_archive_in_either_format(tmp_path):
    deb822 = tmp_path / "debian.sources"
    deb822.write_text(
        "Types: deb\n# http://snapshot.debian.org/archive/debian/2025\n"
        "URIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm\n"
    )
    assert systems.host_mirror([deb822]) == "http://mirror.example/debian"
    one_line = tmp_path / "sources.list"
    one_line.write_text(
        "# deb http://commented.example/debian bookworm main\n"
        "deb [arch=amd64] https://other.example/apt stable main\n"
        "deb http://ftp.example.org/debian bookworm main\n"
    )
    assert systems.host_mirror([one_line]) == "http://ftp.example.org/debian"
    assert systems.host_mirror([tmp_path / "absent"]) == systems.DEFAULT_MIRROR


def test_a_root_holds_the_build_deps_and_both_libraries_only_sid_skips_valid_until():
    # What it must hold, read here from the files that say so (not from systems.py's own
    # reading).
    adapters = [
        json.loads((ROOT / "vendors" / v / "adapter.json").read_text())
        for v in ("mpich", "openmpi")
    ]
    wanted = {p for a in adapters for p in a["packages"]} | {
        "cmake",
        "g++",
        "gfortran",
        "libgtest-dev",
        "librapidcheck-dev",
        "python3",
        "git",
    }
    for name, suite in (
        ("debian-13", "trixie"),
        ("debian-unstable", "sid"),
        ("debian-12", "bookworm"),
    ):
        cmd = systems.mmdebstrap_command(name, "/tmp/target", "http://m.example/debian")
        assert cmd[:2] == ["mmdebstrap", "--variant=apt"]
        assert cmd[-3:] == [suite, "/tmp/target", "http://m.example/debian"]
        included = set(
            next(a for a in cmd if a.startswith("--include="))[
                len("--include=") :
            ].split(",")
        )
        assert wanted <= included, wanted - included
        no_check = [a for a in cmd if "Check-Valid-Until" in a]
        # In the root's own apt configuration (--aptopt), never the host's.
        assert no_check == (
            ['--aptopt=Acquire::Check-Valid-Until "false"'] if suite == "sid" else []
        )


def test_an_unknown_system_missing_tool_or_unreachable_mirror_is_one_line_and_exit_2(
    tmp_path,
):
    assert "debian-14" in one_line_exit_2(
        cli("systems", "make", "debian-14", "--systems-dir", str(tmp_path))
    )
    # PATH without mmdebstrap and bwrap
    line = one_line_exit_2(
        cli(
            "systems",
            "make",
            "debian-13",
            "--systems-dir",
            str(tmp_path),
            env={"PATH": str(tmp_path)},
        )
    )
    assert "mmdebstrap not found" in line and "apt-get install -y mmdebstrap" in line
    if shutil.which("mmdebstrap") and shutil.which("bwrap"):
        # Nothing listens on port 9 of this machine: refused at once, without DNS or the
        # network.
        line = one_line_exit_2(
            cli(
                "systems",
                "make",
                "debian-13",
                "--systems-dir",
                str(tmp_path),
                "--mirror",
                "http://127.0.0.1:9/debian",
            )
        )
        assert "unreachable" in line and "127.0.0.1:9" in line
        assert not (tmp_path / "debian-13").exists()
    line = one_line_exit_2(
        cli("systems", "remove", "debian-13", "--systems-dir", str(tmp_path))
    )
    assert "nothing to remove" in line


def test_the_commands_that_make_or_enter_a_root_ask_for_mmdebstrap_and_bubblewrap(
    tmp_path,
):
    # A dpkg that knows no package: install-deps.sh lists every package it asks for.
    stub = tmp_path / "dpkg-query"
    stub.write_text("#!/bin/sh\nexit 1\n")
    stub.chmod(0o755)
    env = dict(os.environ, ORDO_NO_INSTALL="1", PATH=f"{tmp_path}:{os.environ['PATH']}")

    def asked(*args):
        p = subprocess.run(
            [str(ROOT / "ordo"), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert p.returncode == 2, (args, p.returncode, p.stderr)
        return p.stderr.split()

    for args in (
        ("systems", "make", "debian-13"),
        ("run", "--system", "debian-13", "--ranks", "2"),
        ("run", "--system=debian-unstable"),
        ("test",),
    ):
        words = asked(*args)
        assert "mmdebstrap" in words and "bubblewrap" in words, args
    words = asked("run", "--ranks", "2")
    assert "mmdebstrap" not in words and "bubblewrap" not in words
    # Inside a root, where `run --system` runs the command again, neither is needed.
    env[systems.INSIDE] = "debian-13"
    words = asked("run", "--system", "debian-13", "--ranks", "2")
    assert "mmdebstrap" not in words and "bubblewrap" not in words


def test_ordo_test_makes_the_system_tests_root_where_it_is_missing(
    tmp_path, monkeypatch, capsys
):
    from runner import selftest

    monkeypatch.setenv("ORDO_SYSTEMS_DIR", str(tmp_path))
    made = []

    def fake_make(name, root, mirror=None, quiet=False):
        made.append((name, pathlib.Path(root)))
        systems.record_of(root).write_text(
            json.dumps({"schema": systems.SCHEMA, "name": name})
        )

    monkeypatch.setattr(systems, "make", fake_make)
    assert selftest.system_root_step() == 0
    assert made == [("debian-13", tmp_path / "debian-13")]
    # Made once: the next `ordo test` uses it as it is.
    assert selftest.system_root_step() is None and len(made) == 1

    def unreachable(name, root, mirror=None, quiet=False):
        raise systems.OrdoError("the repository http://m.example/debian is unreachable")

    monkeypatch.setenv("ORDO_SYSTEMS_DIR", str(tmp_path / "other"))
    monkeypatch.setattr(systems, "make", unreachable)
    assert selftest.system_root_step() == 1
    assert "ordo: the repository http://m.example/debian is unreachable" in (
        capsys.readouterr().out.splitlines()
    )


def test_systems_lists_the_roots_of_a_folder_with_their_records(tmp_path):
    root = tmp_path / "debian-13"
    (root / "usr").mkdir(parents=True)
    (tmp_path / "debian-13.json").write_text(
        json.dumps(
            {
                "schema": systems.SCHEMA,
                "name": "debian-13",
                "made": "2026-11-27T13:00:00+00:00",
                "seconds": 90.0,
                "os_release": {"PRETTY_NAME": "Debian GNU/Linux 13 (trixie)"},
                "packages": {
                    "libmpich-dev": "4.3.0+really4.2.1-1",
                    "libopenmpi-dev": "5.0.7-1",
                },
            }
        )
    )
    p = cli("systems", "list", "--systems-dir", str(tmp_path))
    assert p.returncode == 0, p.stderr
    line = next(ln for ln in p.stdout.splitlines() if "debian-13" in ln)
    assert (
        "Debian GNU/Linux 13 (trixie)" in line
        and "libmpich-dev 4.3.0+really4.2.1-1" in line
    )
    assert "not made" in next(
        ln for ln in p.stdout.splitlines() if "debian-unstable" in ln
    )
    p = cli("systems", "remove", "debian-13", "--systems-dir", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert not root.exists() and not (tmp_path / "debian-13.json").exists()


def test_remove_leaves_a_folder_that_is_not_a_root_alone(tmp_path):
    (tmp_path / "debian-13" / "precious").mkdir(parents=True)
    assert "not removed" in one_line_exit_2(
        cli("systems", "remove", "debian-13", "--systems-dir", str(tmp_path))
    )
    assert (tmp_path / "debian-13" / "precious").is_dir()


# ---- running inside a root
# ------------------------------------------------------------------------------------------


def test_a_run_in_a_system_without_its_root_is_one_line_and_exit_2(tmp_path):
    if not shutil.which("bwrap"):
        pytest.skip("bwrap is not installed (the line would name it instead)")
    line = one_line_exit_2(
        cli(
            "run",
            "--system",
            "debian-13",
            "--systems-dir",
            str(tmp_path),
            "--vendor",
            "mpich",
            "--ranks",
            "2",
        )
    )
    assert "./ordo systems make debian-13" in line


def test_the_root_is_entered_with_the_mounts_mpi_needs_and_the_lock_file():
    cmd = systems.bwrap_command(
        "debian-13",
        "/r",
        ["/bin/true"],
        binds=[ROOT, "/tmp/ordo-mpi.lock"],
        ro_binds=["/git"],
        env={"A": "1"},
    )
    text = " ".join(cmd)
    assert cmd[:4] == ["bwrap", "--bind", "/r", "/"]
    for mount in (
        "--proc /proc",
        "--dev-bind /dev /dev",
        "--tmpfs /dev/shm",
        "--ro-bind /sys /sys",
        "--ro-bind-try /etc/hosts /etc/hosts",
        f"--bind {ROOT} {ROOT}",
        "--bind /tmp/ordo-mpi.lock /tmp/ordo-mpi.lock",
        "--ro-bind /git /git",
        "--setenv A 1",
    ):
        assert mount in text, mount
    # The lock file is bound after the root's own tmpfs /tmp, which would hide it.
    assert text.index("--tmpfs /tmp") < text.index("--bind /tmp/ordo-mpi.lock")
    env = systems.inner_env("debian-13")
    # apart from the host's build/<vendor>
    assert env["ORDO_BUILD_ROOT"] == str(ROOT / "build" / "debian-13")
    assert env["ORDO_NO_INSTALL"] == "1" and env[systems.INSIDE] == "debian-13"


def test_the_command_inside_keeps_system_and_gets_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [
        "run",
        "--system",
        "debian-13",
        "--system-root",
        "/site/root",
        "--systems-dir=/x",
        "--out",
        "o",
        "--ranks",
        "2",
    ]
    inner = systems.absolute_paths(systems.strip_system_options(argv))
    assert inner == [
        "run",
        "--system",
        "debian-13",
        "--out",
        str(tmp_path / "o"),
        "--ranks",
        "2",
    ]
    assert systems.absolute_paths(
        ["replay", "--record", "j/journal.jsonl:Reduce.x#1"]
    ) == ["replay", "--record", f"{tmp_path}/j/journal.jsonl:Reduce.x#1"]


# ---- what runs and reports record
# -----------------------------------------------------------------------------------

SYSTEM = {
    "name": "debian-13",
    "os_release": {"PRETTY_NAME": "Debian GNU/Linux 13 (trixie)", "VERSION_ID": "13"},
    "tools": {
        "cxx": {
            "command": "mpicxx.mpich",
            "path": "/usr/bin/mpicxx.mpich",
            "package": "mpich",
            "version": "4.3.0+really4.2.1-1",
        }
    },
    "packages": {"libmpich-dev": "4.3.0+really4.2.1-1", "mpich": "4.3.0+really4.2.1-1"},
}


def test_a_report_of_a_run_in_a_system_replays_every_record_in_it_and_shows_the_system(
    tmp_path,
):
    dead = {
        "schema": "ordo.check/1",
        "seq": 0,
        "id": "harness.job#ordo_check_reduce",
        "test": "ordo_check_reduce",
        "clause": "harness.job",
        "level": "INFO",
        "ranks": 2,
        "vendor": "mpich",
        "variant": "default",
        "outcome": "crash",
        "message": "the job died",
        "time": "2026-11-22T04:13:27Z",
    }
    recs = [
        record(ranks=2),
        record(index=1, ranks=2, outcome="fail", message="wrong"),
        dead,
    ]
    out = write_run(
        tmp_path / "run",
        recs,
        run=run_json(system=SYSTEM, command=["./ordo", "run", "--system", "debian-13"]),
    )
    report = res.build(out)
    replays = [res.replay_command(r) for r in report["records"]]
    assert all(
        cmd.startswith("./ordo replay --system debian-13 --vendor mpich")
        for cmd in replays[:2]
    ), replays
    assert replays[2].startswith(
        "./ordo run --system debian-13 --vendor mpich --ranks 2"
    ), replays[2]
    assert all(cmd.count("--system") == 1 for cmd in replays)
    md = markdown.render(report)
    assert (
        "System: debian-13 (Debian GNU/Linux 13 (trixie)) · mpich 4.3.0+really4.2.1-1"
        in md
    )
    assert "--system debian-13" in package._commands(
        report, str(out), str(tmp_path / "pkg")
    )
    # The stored form (schema, case templates) keeps them.
    path = res.dump(report, tmp_path / "results.json.gz")
    back = res.load(path)
    assert [r.get("replay") for r in back["records"]] == [
        r.get("replay") for r in report["records"]
    ]
    assert back["run"]["system"] == SYSTEM


def test_a_report_of_a_run_on_the_host_replays_without_system(tmp_path):
    out = write_run(
        tmp_path / "run",
        [record(ranks=2)],
        run=run_json(system={"name": "host", "os_release": {}, "packages": {}}),
    )
    report = res.build(out)
    assert "--system" not in res.replay_command(report["records"][0])


def test_a_run_records_its_systems_packages_from_dpkg():
    from runner.adapters import load_adapter

    if not shutil.which("mpicxx.mpich") or not shutil.which("dpkg-query"):
        pytest.skip("needs MPICH's Debian packages")
    system = systems.describe_current(load_adapter("mpich"))
    assert system["name"] == "host"
    expected = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", "libmpich-dev"],
        capture_output=True,
        text=True,
    ).stdout
    assert system["packages"]["libmpich-dev"] == expected
    launcher = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", "mpich"],
        capture_output=True,
        text=True,
    ).stdout
    assert system["tools"]["launcher"]["package"] == "mpich"
    assert system["tools"]["launcher"]["version"] == launcher
    assert (
        system["os_release"]["VERSION_ID"]
        == systems.os_release("/etc/os-release")["VERSION_ID"]
    )


# ---- the real thing
# -------------------------------------------------------------------------------------------------

SHORT_RUN_SYSTEM = "debian-13"
SHORT_RUN_FAMILY = os.environ.get("ORDO_SYSTEM_TEST_FAMILY", "ordo_check_minloc_maxloc")


def test_a_short_run_inside_debian_13_records_its_system(tmp_path):
    """The system path for real: one family of checks against Debian 13's MPICH, built
    and run in its root. Skipped when the root is not made (`./ordo systems make
    debian-13`, about 1-3 minutes and 1 GiB).
    """
    root = systems.root_of(SHORT_RUN_SYSTEM)
    made = systems.read_record(root)
    if made is None or not shutil.which("bwrap"):
        pytest.skip(
            f"no root of {SHORT_RUN_SYSTEM} at {root} (make it with `./ordo systems"
            f" make {SHORT_RUN_SYSTEM}`), or bwrap is missing"
        )
    # A filtered run builds only what it launches (runner/run.py run_targets): the
    # first run in a root builds the harness and one family there, not the whole
    # of ordo.
    out = tmp_path / "out"
    # The runner takes the MPI lock per launch (its file is bound into the root), not
    # around the build.
    env = {k: v for k, v in os.environ.items() if k != systems.INSIDE}
    env.update(ORDO_MPI_LOCK="/tmp/ordo-mpi.lock", ORDO_NO_INSTALL="1")
    p = subprocess.run(
        [
            "timeout",
            "1500",
            str(ROOT / "ordo"),
            "run",
            "--system",
            SHORT_RUN_SYSTEM,
            "--vendor",
            "mpich",
            "--ranks",
            "2",
            "--filter",
            SHORT_RUN_FAMILY,
            "--property-budget",
            "0",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert p.returncode in (0, 1), p.stdout[-3000:] + p.stderr[-3000:]
    run = json.loads((out / "run.json").read_text())
    system = run["system"]
    assert system["name"] == SHORT_RUN_SYSTEM
    assert (
        system["os_release"]["VERSION_ID"] == made["os_release"]["VERSION_ID"] == "13"
    )
    # The versions the root's own dpkg database holds (read from outside it when it was
    # made).
    assert system["packages"]["libmpich-dev"] == made["packages"]["libmpich-dev"]
    assert system["tools"]["launcher"]["version"] == made["packages"]["mpich"]
    assert run["command"][:4] == ["./ordo", "run", "--system", SHORT_RUN_SYSTEM]
    recs = journal_records(out)
    assert recs and all(r["vendor"] == "mpich" for r in recs)
    with_case = [r for r in recs if r.get("replay")]
    assert with_case and all(
        r["replay"].startswith(f"./ordo replay --system {SHORT_RUN_SYSTEM} ")
        for r in with_case
    )
    # Its build is the system's own, apart from the host's.
    assert (ROOT / "build" / SHORT_RUN_SYSTEM / "mpich" / "CMakeCache.txt").is_file()
    # It built what it launched, and its record says so: the build's identity holds
    # those executables only.
    family = f"ordo_check_{SHORT_RUN_FAMILY.removeprefix('ordo_check_')}"
    assert run["build_targets"] == ["ordo_run_support", family]
    assert sorted(
        pathlib.Path(e).name for e in run["build_identity"]["executables"]
    ) == sorted([family, "ordo_replay"])
    # The library the run asked is the root's: its upstream version
    # (4.3.0+really4.2.1-1: 4.2.1).
    upstream = (
        made["packages"]["libmpich-dev"]
        .rsplit("really", 1)[-1]
        .split("-")[0]
        .split("+")[0]
    )
    assert upstream in (run.get("library_version") or ""), run.get("library_version")


def test_a_run_of_a_system_is_resumed_in_that_system_only(tmp_path):
    out = write_run(
        tmp_path / "run",
        [record(ranks=2)],
        run=run_json(end=False, system=SYSTEM, settings={"vendor": "mpich"}),
    )
    line = one_line_exit_2(cli("run", "--resume", str(out)))
    assert "ran in the system debian-13, this is host" in line
    assert f"./ordo run --system debian-13 --resume {out}" in line


def test_the_packages_of_several_files_are_found_in_one_query():
    """describe_current asks dpkg once for every tool (a run's seconds), with the
    answers of one query per file."""
    files = [shutil.which(c) for c in ("g++", "cmake", "sh", "mpiexec.mpich")]
    files = [f for f in files if f] + ["/no/such/file"]
    one_each = {f: systems.owners([f]).get(f) for f in files}
    assert systems.owners(files) == {f: p for f, p in one_each.items() if p}
    assert one_each["/no/such/file"] is None
    dpkg = subprocess.run(
        ["dpkg-query", "-S", os.path.realpath(shutil.which("cmake"))],
        capture_output=True,
        text=True,
    ).stdout
    assert systems.owner(shutil.which("cmake")) == dpkg.split(":")[0].split(",")[0]

"""`ordo run --launcher srun` on a real Slurm: a one-machine cluster
(tools/slurm/cluster.sh: munged, slurmctld and slurmd from Debian's
packages, everything in a temporary folder) started for these tests and
ended after them, and a small check family run through srun against both
libraries:

- MPICH 4.0.2 through `srun --mpi=pmi2` (`--launcher srun-mpi`,
  ORDO_SRUN_MPI=pmi2): Debian's MPICH speaks PMI-1/PMI-2, not PMIx;
- Open MPI 4.1.4 through `srun` with the site's plugin pmix
  (`--launcher srun`, SLURM_MPI_TYPE=pmix, as a cluster's MpiDefault would
  say): Debian builds Open MPI and Slurm's pmix_v4 plugin against the same
  PMIx 4.2;
- MPICH through `--mpi=pmix` starts n singletons, which the runner refuses
  as an infrastructure error (exit 3) before any check runs.

Every launch takes the machine's MPI lock launch by launch (ORDO_MPI_LOCK,
default /tmp/ordo-mpi.lock; ORDO_MPI_LOCK= (empty) when pytest itself runs
under that lock) and every step has a timeout. Skipped with the reason without Slurm (as
root `./ordo test` installs it: tools/install-deps.sh --with-slurm) or
without the builds `./ordo test` makes first."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest
from conftest import journal_records, needs_build, run_ordo

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "tools" / "slurm" / "cluster.sh"
MPI_LOCK = os.environ.get("ORDO_MPI_LOCK", "/tmp/ordo-mpi.lock")
# One small family: the Reduce and Reduce_local checks of the noncommutative executable
# (tens of checks).
SMALL = [
    "--filter",
    "noncommutative",
    "--only",
    "Reduce.*:Reduce_local.*",
    "--property-budget",
    "0",
]
DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "srun", "scontrol")


def slurm_missing():
    missing = [
        d
        for d in DAEMONS
        if shutil.which(d) is None and not os.access(f"/usr/sbin/{d}", os.X_OK)
    ]
    return (
        f"Slurm is not installed ({', '.join(missing)} missing; tools/install-deps.sh"
        " --with-slurm installs slurmd slurmctld slurm-client munge)"
        if missing
        else None
    )


requires_slurm = pytest.mark.skipif(
    slurm_missing() is not None or os.geteuid() != 0,
    reason=slurm_missing() or "slurmd starts job steps as their user: needs root",
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slurm") / "cluster"
    start = subprocess.run(
        [str(CLUSTER), "start", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        assert start.returncode == 0, start.stderr
        assert start.stdout.strip() == f"export SLURM_CONF={folder}/slurm.conf"
        yield {
            "dir": folder,
            "env": {
                "SLURM_CONF": str(folder / "slurm.conf"),
                "ORDO_MPI_LOCK": MPI_LOCK,
            },
        }
    finally:
        subprocess.run(
            [str(CLUSTER), "stop", str(folder)],
            capture_output=True,
            text=True,
            timeout=120,
        )


def allocations(cluster):
    """How many jobs slurmctld has allocated so far (its log)."""
    log = (cluster["dir"] / "slurmctld.log").read_text(errors="replace")
    return len(re.findall(r"_slurm_rpc_allocate_resources JobId=\d+", log))


def one_line_error(p, code):
    assert p.returncode == code, (p.returncode, p.stdout[-2000:], p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ordo: "), p.stderr
    return lines[0]


def check_run_through_srun(cluster, out, vendor, template, ranks, env, library):
    before = allocations(cluster)
    p = run_ordo(
        "run",
        "--vendor",
        vendor,
        "--launcher",
        template,
        "--ranks",
        ",".join(map(str, ranks)),
        *SMALL,
        "--out",
        str(out),
        env={**cluster["env"], **env},
        timeout=900,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    run = json.loads((out / "run.json").read_text())
    assert run["launcher_template"] == str(
        ROOT / "vendors" / "launchers" / f"{template}.json"
    )
    assert any(pathlib.Path(word).name == "srun" for word in run["launcher"]), run[
        "launcher"
    ]
    assert library in run["library_version"]
    # The build machine's hwloc topology file is no description of the cluster's nodes.
    if vendor == "openmpi":
        hwloc = run["launch_probes"]["hwloc-topology-from-file"]
        assert (
            hwloc["applied"] is False and "launcher template" in hwloc["not_here"]
        ), hwloc
    assert "HWLOC_XMLFILE" not in run["env"] and not any(
        "HWLOC_XMLFILE" in w for w in run["launcher"]
    )
    for n in ranks:  # one MPI job of n processes at each rank count, not n singletons
        assert run["node_maps"][str(n)]["node_map"] == [list(range(n))]
    records = journal_records(out)
    assert records and {r["outcome"] for r in records} == {"pass"}
    assert {r["ranks"] for r in records} == set(ranks)
    assert all(
        f"--launcher {template} " in r["replay"] for r in records if r.get("replay")
    )
    # every launch went through this cluster: the version job, a probe and a check job
    # per rank count
    assert allocations(cluster) - before >= 1 + 2 * len(ranks)
    return records


@requires_slurm
def test_the_cluster_offers_the_mpi_plugins_of_both_libraries(cluster):
    p = subprocess.run(
        ["srun", "--mpi=list"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **cluster["env"]},
    )
    assert p.returncode == 0, p.stderr
    listed = p.stdout + p.stderr
    assert "pmi2" in listed and "pmix" in listed, listed


@requires_slurm
def test_mpich_runs_the_checks_through_srun_with_pmi2(cluster, tmp_path):
    needs_build("mpich")
    check_run_through_srun(
        cluster,
        tmp_path / "run",
        "mpich",
        "srun-mpi",
        [2, 3],
        {"ORDO_SRUN_MPI": "pmi2"},
        "MPICH",
    )


@requires_slurm
def test_openmpi_runs_the_checks_through_srun_with_pmix(cluster, tmp_path):
    needs_build("openmpi")
    check_run_through_srun(
        cluster,
        tmp_path / "run",
        "openmpi",
        "srun",
        [2, 3],
        {"SLURM_MPI_TYPE": "pmix"},
        "Open MPI",
    )


@requires_slurm
def test_a_plugin_the_library_does_not_speak_starts_singletons_and_is_refused(
    cluster, tmp_path
):
    needs_build("mpich")
    out = tmp_path / "run"
    p = run_ordo(
        "run",
        "--vendor",
        "mpich",
        "--launcher",
        "srun-mpi",
        "--ranks",
        "2",
        *SMALL,
        "--out",
        str(out),
        env={**cluster["env"], "ORDO_SRUN_MPI": "pmix"},
        timeout=600,
    )
    line = one_line_error(p, 3)
    assert (
        "world of 1 process" in line
        and "--mpi=pmix" in line
        and "srun --mpi=list" in line
    )
    assert not journal_records(out)  # no check ran


# ---- the option itself (no cluster, no MPI) -------------------------------------


def test_launcher_usage_errors_are_one_line(tmp_path):
    line = one_line_error(run_ordo("run", "--launcher", "nope", "--ranks", "2"), 2)
    assert "unknown launcher 'nope'" in line and "srun-mpi" in line
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"launcher": {"command": "srun"}}))
    line = one_line_error(run_ordo("run", "--launcher", str(bad), "--ranks", "2"), 2)
    assert "malformed launcher file" in line and "notes" in line
    bad.write_text("{")
    assert "malformed launcher file" in one_line_error(
        run_ordo("run", "--launcher", str(bad), "--ranks", "2"), 2
    )
    env = {k: v for k, v in os.environ.items() if k != "ORDO_SRUN_MPI"}
    p = subprocess.run(
        [str(ROOT / "ordo"), "run", "--launcher", "srun-mpi", "--ranks", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "ORDO_NO_INSTALL": "1"},
    )
    assert "ORDO_SRUN_MPI" in one_line_error(p, 2)
    line = one_line_error(
        run_ordo("run", "--launcher", "srun", "--nodes", "2", "--ranks", "2"), 2
    )
    assert "--nodes with --launcher" in line
    line = one_line_error(run_ordo("replay", "--launcher", "nope", "--case", "{}"), 2)
    assert "unknown launcher 'nope'" in line


def test_a_missing_launcher_command_is_one_line(tmp_path):
    fragment = {
        "launcher": {
            "command": "ordo-no-such-launcher",
            "np_flag": "-n",
            "env_flag": [],
        },
        "notes": "x",
    }
    path = tmp_path / "launcher.json"
    path.write_text(json.dumps(fragment))
    line = one_line_error(run_ordo("run", "--launcher", str(path), "--ranks", "2"), 2)
    assert "ordo-no-such-launcher" in line and "not found on PATH" in line

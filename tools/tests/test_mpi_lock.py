"""The MPI lock (ORDO_MPI_LOCK): a launch made while this process holds it runs
under that hold. A job's runner holds the lock across its launches; after a
case timed out there, judging the record by a waiver bound to releases probes
the library's release with a one-process launch, whose own `flock` waited for
the runner itself: the ctest job hung until ctest's limit (seen: Open MPI
4.1.4, conformance.detect.3ranks, with ORDO_MPI_LOCK set)."""
import sys
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from runner import launch  # noqa: E402

ADAPTER = {"launcher": {"np_flag": "-n"}}


def test_a_launch_takes_the_lock_unless_this_process_holds_it(tmp_path, monkeypatch):
    lock = tmp_path / "mpi.lock"
    monkeypatch.setenv("ORDO_MPI_LOCK", str(lock))
    cmd = launch.job_command(ADAPTER, ["mpiexec"], 1, "prog", timeout=60)
    assert cmd[:2] == ["flock", str(lock)]
    with launch.holding(str(lock)):
        inner = launch.job_command(ADAPTER, ["mpiexec"], 1, "prog", timeout=60)
        assert inner[0] == "timeout", inner
    again = launch.job_command(ADAPTER, ["mpiexec"], 1, "prog", timeout=60)
    assert again[:2] == ["flock", str(lock)]


def test_a_probe_launched_under_the_hold_does_not_wait_for_it(tmp_path, monkeypatch):
    # The probe's command line, run for real: with the hold's flock it would wait
    # for this process (killed here after 10 s).
    import subprocess

    lock = tmp_path / "mpi.lock"
    monkeypatch.setenv("ORDO_MPI_LOCK", str(lock))
    with launch.holding(str(lock)):
        cmd = launch.job_command(ADAPTER, ["env"], 1, "true", timeout=5)
        cmd = [w for w in cmd if w not in ("-n", "1")]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        assert p.returncode == 0, (cmd, p.stderr)

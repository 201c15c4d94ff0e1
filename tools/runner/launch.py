"""THE command line of a job: every launch of a check, property, survey,
replay or benchmark executable is built here.

    timeout -k 5 T  <launcher and its flags>  <np flag> N  <executable>
        --ordo-... flags
"""
import contextlib
import fcntl
import os
import signal
import time


def job_command(adapter, prefix, ranks, executable, *, timeout, flags=(), kill_after=5):
    """The command that runs `executable` at `ranks` processes under the
    adapter's launcher (prefix: adapters.launcher_prefix), ended by `timeout`
    after `timeout` seconds (and killed `kill_after` seconds later).

    flags: the executable's own arguments, in order, e.g.
    ordo_flags(journal=..., vendor=...) + ["--gtest_filter=..."]. None: no
    timeout (a command for a person to run)."""
    head = (
        []
        if timeout is None
        else ["timeout"]
        + (["-k", str(kill_after)] if kill_after else [])
        + [str(timeout)]
    )
    return (
        (mpi_lock() if timeout is not None else [])
        + head
        + list(prefix)
        + [adapter["launcher"]["np_flag"], str(ranks), str(executable)]
        + list(flags)
    )


def mpi_lock():
    """`flock FILE` when ORDO_MPI_LOCK=FILE is set: each launch then waits for
    the machine's one MPI job at a time (the lock is taken per launch, so a
    long run lets other MPI jobs in between its own; the case timeout starts
    once the lock is held). runner/job.py takes it itself for a whole job
    (split_lock, holding): its relaunches and a standby launch in one hold.
    Unset: nothing. Never set it under a command that holds the same lock
    itself (a bench's own `flock` wrap): flock would wait for its parent."""
    lock = os.environ.get("ORDO_MPI_LOCK")
    # A launch made while this process holds the lock (holding: a job's waiver
    # judgement probing the library's release between its launches) runs under
    # that hold: a `flock` of its own would wait for this very process.
    return ["flock", lock] if lock and not HELD[0] else []


def split_lock(cmd):
    """(the lock file, the command without its `flock FILE` head) of a
    job_command; (None, cmd) when it takes no lock."""
    if len(cmd) >= 2 and cmd[0] == "flock":
        return cmd[1], list(cmd[2:])
    return None, list(cmd)


def job_limit(cmd):
    """The seconds `timeout` allows a job_command (after split_lock); None
    when it has no `timeout` head."""
    if not cmd or cmd[0] != "timeout":
        return None
    args = cmd[1:]
    if args[:1] == ["-k"]:
        args = args[2:]
    try:
        return float(args[0])
    except (IndexError, ValueError):
        return None


# Seconds this process waited for the MPI lock (holding), in all: a run's
# rank counts in run.json say how much of their wall time was such a wait
# (`lock_wait_s`), which `ordo bench --hangs` leaves out.
LOCK_WAITED = [0.0]
# How many holds of the MPI lock this process is in (holding).
HELD = [0]


@contextlib.contextmanager
def holding(lock):
    """The MPI lock (the file `flock` would take; None: none) held by this
    process for the block: a job's launches, and the standby launch started
    beside one of them (runner/job.py), all within one hold."""
    if lock is None:
        yield
        return
    with open(lock, "a") as f:
        t0 = time.time()
        fcntl.flock(f, fcntl.LOCK_EX)
        LOCK_WAITED[0] += time.time() - t0
        HELD[0] += 1
        try:
            yield
        finally:
            HELD[0] -= 1
            fcntl.flock(f, fcntl.LOCK_UN)


def outer_timeout(cmd, seconds):
    """The limit a caller may put around `cmd` as a whole: none when the
    command first waits for the MPI lock (`flock`: ORDO_MPI_LOCK, or a bench's
    own wrap), whose wait may be long; the `timeout` inside still bounds the
    MPI job itself."""
    return None if cmd and cmd[0] == "flock" else seconds


def ordo_flags(**settings):
    """--ordo-<name>=<value> for each setting that is not None, in the given
    order (journal=..., case_timeout=... -> --ordo-journal=...,
    --ordo-case-timeout=...).
    """
    return [
        f"--ordo-{key.replace('_', '-')}={value}"
        for key, value in settings.items()
        if value is not None
    ]


def die_with_parent():
    """In the child, before exec: end (SIGTERM) when ordo itself dies, even by
    kill -9; `timeout` passes the signal on to the MPI job it watches."""
    try:
        import ctypes

        # PR_SET_PDEATHSIG
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass

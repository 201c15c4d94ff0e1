"""An output folder of `ordo run` while it is written: one run at a time
(OutputLock), the jobs done and under way (progress.jsonl), run.json
rewritten atomically, and a stale job of an interrupted run ended."""
import datetime
import json
import os
import platform
import signal

from .journal import probe_writable
from .errors import EXIT_INFRA, OrdoError


HELD_LOCKS: list = []


class OutputLock:
    """One run per output folder: an exclusive lock on DIR/.ordo.lock, held
    for the whole run (released by the kernel when the process ends, kill -9
    included)."""

    def __init__(self, out):
        import fcntl

        self.path = out / ".ordo.lock"
        try:
            self.f = open(self.path, "a+")
        except OSError as e:
            raise OrdoError(
                f"cannot write the output folder {out}: {e.strerror}; choose another"
                " --out"
            )
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.f.seek(0)
            holder = self.f.read().strip() or "another process"
            raise OrdoError(
                f"another ordo run is writing into {out} ({holder}); wait for it to end"
                " or choose another --out"
            )
        self.f.seek(0)
        self.f.truncate()
        self.f.write(
            f"pid {os.getpid()} on {platform.node()} since "
            f"{datetime.datetime.now().isoformat(timespec='seconds')}\n"
        )
        self.f.flush()


def read_progress(path):
    """The jobs of a run: {key: {"start": event, "done": event}} from progress.jsonl."""
    jobs: dict = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line cut short: that job is simply not done
            jobs.setdefault(e.get("job"), {})[e.get("event")] = e
    return jobs


def end_stale_job(event):
    """The MPI job an interrupted run left behind (if it is still there)."""
    pid = (event or {}).get("pid")
    if not pid:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
        print(
            (
                "ordo: ended the job the interrupted run left running (process group"
                f" {pid})"
            ),
            flush=True,
        )
    except (ProcessLookupError, PermissionError):
        pass


def write_json_atomic(path, document):
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except OSError as e:
        raise OrdoError(
            (
                f"cannot write {path}: {e.strerror}; make room (or fix the folder),"
                f" then `./ordo run --resume {path.parent}` finishes the run"
            ),
            EXIT_INFRA,
        )


def check_writable_dir(path, what, option):
    try:
        probe_writable(path)
    except OSError as e:
        raise OrdoError(
            f"cannot write the {what} {path}: {e.strerror}; fix it or choose another"
            f" {option}"
        )

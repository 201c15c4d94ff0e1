"""The files a job leaves beside its journal (the harness writes them:
conformance/harness/, the same names), and the one rule for which case a
job that died is charged to.

    <journal>.inflight.<rank>  the case that rank has begun (JSON: seq, id, test,
                               clause, ...; a DETECT case's also "returned" once that
                               rank's call returned)
    <journal>.done             the executable ran to its end: its first line the
                               gtest exit code; a second line "finalized <world size>"
                               promises the markers below (written before MPI_Finalize)
    <journal>.finalized.<rank> that rank's MPI_Finalize returned (written after it)
    <journal>.timeout          "<seq> <rank>": that rank's watchdog ended an overrunning
                               case
    <journal>.restart          "<seq>": the job ended on purpose after case <seq>, whose
                               waiver says the library corrupts memory there
                               (restart_job); the process exits with RESTART_EXIT_CODE
    <journal>.env.<rank>       that rank's values of the variables the runner named
                               (--ordo-env-names): JSON {name: value, or null when
                               unset}

The dead-job rule (charged_case): a job that died is charged to a case only
when a case was in flight, the earliest case a rank had begun that rank 0 had
not recorded. A job that died with none in flight (every begun case
recorded, or none begun in this launch) gets a record of its own (clause
harness.job, reports/records.py, job_died) naming the last case that
finished, never charged to it: a crash waiver of that case cannot waive it.
The record of the case charged takes the communicator's size (comm_size,
comm_sizes, comm_node_maps) from any rank in that case that had noted it
(with_case_comm): the rank whose note stands for the case may have been
killed before it got there (the MPICH 4.2.1 sweep: 47 of 5416 crash records
had no comm_size, and no waiver of a size could apply).

The finalize rule (finalize_not_returned): a launcher may exit 0 although a
rank aborted inside MPI_Finalize, or 1 as after a failed case (MPICH 5.0.2's
hydra did), and .done is written before MPI_Finalize: so a job whose .done
promises the markers and lacks a rank's .finalized.<rank> did not end
normally, whatever its exit status; runner/job.py gives it one record of
its own (after its last case), naming those ranks. A .done without the
promise (an executable that writes no markers) is not judged by this rule.

A job whose harness could not write one of these files (or its journal: a
full disk) says so on its output in a line beginning WRITE_FAILURE and
aborts; that death is ordo's, never a case's (write_failure).

Every in-flight note is read through read_note, which validates it against
reports/schema/inflight-1.schema.json: a note that breaks it is a defect of
ordo's harness (its one writer, conformance/harness/record.h), never charged
to a case: the run stops with one line naming the file and what is wrong.
Except after a crash (a signal or an abort, not a timeout): a library that
corrupts the heap (a double free) can garble what the harness writes, so the
note is not used, as a rank without one, and the dead case's record says
which rank's note broke the schema and how.
A note that is not JSON at all (a rank that died while writing it) is
skipped, as a rank without a note.
"""
import glob
import json
import os
import pathlib
import re
import time

from reports.records import note_errors, read_journal

from .errors import EXIT_INFRA, OrdoError


INFLIGHT = ".inflight."
DONE = ".done"
FINALIZED = ".finalized."
# The .done file's line that promises the FINALIZED markers: "finalized <world size>".
FINALIZED_PROMISE = "finalized"
# How long a missing marker is waited for once the launcher has ended (a file a rank
# on another node wrote just before it exited may show late on a shared file system).
FINALIZED_GRACE_SECONDS = 2.0
TIMEOUT = ".timeout"
RESTART = ".restart"
ENV = ".env."
RESTART_EXIT_CODE = 75
# The exit codes of `timeout` when it ended the job (TERM, then KILL).
TIMEOUT_EXIT_CODES = (124, 137)
# How the harness (conformance/harness/journal_files.cpp, property_tests/) begins the
# line it prints before it aborts because it cannot write its journal or notes.
WRITE_FAILURE = "ordo: cannot write "


def marker(journal, suffix):
    return pathlib.Path(str(journal) + suffix)


def _note_rank(path):
    """The world rank an in-flight note's file name ends in (None: not a number)."""
    try:
        return int(str(path).rsplit(INFLIGHT, 1)[1])
    except (ValueError, IndexError):
        return None


def inflight_files(journal):
    """The ranks' in-flight notes, in rank order (a directory lists its files in
    no set order): which rank's note stands for a case is then the same on
    every run."""
    found = [pathlib.Path(p) for p in glob.glob(str(journal) + INFLIGHT + "*")]
    return sorted(found, key=lambda p: (_note_rank(p) is None, _note_rank(p) or 0, p))


def finalized_files(journal):
    return [
        pathlib.Path(p) for p in glob.glob(glob.escape(str(journal) + FINALIZED) + "*")
    ]


def clear(journal):
    """Removes the markers of a previous launch."""
    for f in [
        marker(journal, TIMEOUT),
        marker(journal, DONE),
        marker(journal, RESTART),
    ] + inflight_files(journal):
        f.unlink(missing_ok=True)
    clear_finalized(journal)


def clear_finalized(journal):
    for f in finalized_files(journal):
        f.unlink(missing_ok=True)


def finalize_promised(journal):
    """The world size whose ranks each promised a FINALIZED marker (the .done
    file's line "finalized <size>"), or None: no .done, or one without the
    promise."""
    try:
        lines = marker(journal, DONE).read_text().splitlines()
    except OSError:
        return None
    for line in lines[1:]:
        words = line.split()
        if len(words) == 2 and words[0] == FINALIZED_PROMISE and words[1].isdigit():
            return int(words[1])
    return None


def finalize_not_returned(journal, grace=None):
    """The world ranks (sorted) whose MPI_Finalize did not return: those the
    .done file promised a <journal>.finalized.<rank> that is missing, after
    waiting up to `grace` seconds (None: FINALIZED_GRACE_SECONDS) for it.
    [] when every promised marker is there, or when nothing was promised
    (finalize_promised is None). Call it once the launcher has ended: a rank
    still running could write it later."""
    size = finalize_promised(journal)
    if not size:
        return []
    end = time.time() + (FINALIZED_GRACE_SECONDS if grace is None else grace)
    while True:
        missing = [
            r for r in range(size) if not marker(journal, f"{FINALIZED}{r}").exists()
        ]
        if not missing or time.time() >= end:
            return missing
        time.sleep(0.05)


def rank_envs(journal):
    """{world rank: the environment it reported} of the job that last ran
    with this journal (the files it left: ENV), the files then removed, so
    that the next job's are its own."""
    envs = {}
    for p in glob.glob(glob.escape(str(journal) + ENV) + "*"):
        path = pathlib.Path(p)
        try:
            rank = int(p.rsplit(ENV, 1)[1])
            env = json.loads(path.read_text())
            if isinstance(env, dict):
                envs[rank] = env
        except (OSError, ValueError, IndexError):
            # A .tmp left by a rank that died while writing: no report of that rank.
            pass
        path.unlink(missing_ok=True)
    return dict(sorted(envs.items()))


def read_note(path, crashed=False):
    """The in-flight note in `path` (a dict), or None when it cannot be read or
    is not JSON (cut short by a dying rank). Raises OrdoError (one line) when
    it is JSON that breaks the note's schema, unless the job `crashed` (ended
    by a signal or an abort, not a timeout): then the process's memory may
    have been corrupted under the harness (a library's double free), and the
    note is not used, as a rank without one (broken_notes names it for the
    record)."""
    try:
        note = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None
    errors = note_errors(note)
    if errors and crashed:
        return None
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise OrdoError(
            f"the in-flight note {path} breaks reports/schema/inflight-1.schema.json: "
            f"{errors[0]}{more} (a defect of ordo's harness)",
            EXIT_INFRA,
        )
    return note


def begun_cases(journal, crashed=False):
    """The cases the ranks had begun (one per rank that wrote its file)."""
    begun = []
    for f in inflight_files(journal):
        note = read_note(f, crashed)
        if note is not None:
            begun.append(note)
    return begun


def broken_notes(journal):
    """[(world rank, the first schema error)] of the in-flight notes that are
    JSON but break the note's schema (read_note: not used after a crash)."""
    out = []
    for f in sorted(inflight_files(journal)):
        try:
            note = json.loads(f.read_text())
            rank = int(str(f).rsplit(INFLIGHT, 1)[1])
        except (OSError, ValueError, IndexError):
            continue
        errors = note_errors(note)
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            out.append((rank, errors[0] + more))
    return out


def ranks_in_case(journal, seq, crashed=False):
    """{world rank: its note} of the ranks whose in-flight note is case `seq`.
    A DETECT case's note holds "returned" once that rank's call returned
    (with how: reported or accepted); a rank without it never returned."""
    notes = {}
    for f in inflight_files(journal):
        rank = _note_rank(f)
        if rank is None:
            continue
        note = read_note(f, crashed)
        if note is not None and note.get("seq") == seq:
            notes[rank] = note
    return notes


# What a rank's note learns once the case's communicator is known
# (conformance/harness/case_flight.cpp, note_case_comm): the same on every rank,
# world rank 0's.
COMM_KEYS = ("comm_size", "comm_sizes", "comm_node_maps")


def with_case_comm(case, notes):
    """The note `case` with the communicator of the case as a rank that had
    learnt it noted it, when `case`'s own rank had not: a rank is not yet past
    that point when another dies in the library's call (an assertion at the
    call's start ends the job while a slower rank, on cores shared by more
    processes, is still before it), and the record of the case must still
    carry the size a waiver's comm_size reads. notes: {world rank: its note}
    of the ranks in that case (ranks_in_case); the lowest rank that has it."""
    if case is None or isinstance(case.get("comm_size"), int):
        return case
    for _, note in sorted(notes.items()):
        if note.get("seq") == case.get("seq") and isinstance(
            note.get("comm_size"), int
        ):
            return {
                **{k: v for k, v in case.items() if k not in COMM_KEYS},
                **{k: note[k] for k in COMM_KEYS if k in note},
            }
    return case


def watchdog_rank(journal):
    """The rank whose watchdog ended the job (the .timeout marker's second
    word), or None."""
    try:
        words = marker(journal, TIMEOUT).read_text().split()
        return int(words[1]) if len(words) > 1 else None
    except (OSError, ValueError):
        return None


def timed_out(journal, rc):
    return rc in TIMEOUT_EXIT_CODES or marker(journal, TIMEOUT).exists()


def write_failure(log):
    """The harness's own line when the job died because it could not write
    its journal or in-flight note (a full disk), or None."""
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith(WRITE_FAILURE):
                    return line.strip()
    except OSError:
        return None
    return None


# A dead job's record quotes the end of its log (TAIL_LINES lines) and the
# lines before them of the case's own output that say how it died (TAIL_SIGNS):
# the launcher's closing banner (MPICH's hydra prints ten lines) would
# otherwise hide the library's own diagnostic ("free(): invalid pointer",
# an assertion) that a waiver's text signature names.
TAIL_LINES = 4
TAIL_SIGNS = 4
TAIL_WIDTH = 300
# The words of a line that says how a process ended (runner/recheck.py's SIGNS
# adds its own).
DEATH_WORDS = (
    r"Abort|abort|Assert|[Ss]ignal \d|fault|truncat|overlap|free\(|malloc|"
    r"corrupt|Killed|MPI_ERR|\b[Ee]rror\b"
)
_SIGN = re.compile(DEATH_WORDS + r"|Floating point")
# gtest's progress lines; a backtrace's frames (UCX's " 3  /lib/...", Open MPI's
# "[host:pid] [ 3] /lib/...", MPICH's "/usr/lib/.../libc.so.6(abort+0x1) [0x7f]");
# a banner's rules and boxed lines
_NOT_SIGN = re.compile(
    r"^\[ *(RUN|OK|PASSED|FAILED|SKIPPED|DISABLED) *\]|^\[[-=]+\]|"
    r"^\s*\d+\s+\S*/|^\[[^\]]*\]\s*\[\s*\d+\]|^\S*/\S*\(.*\)\s*\[0x[0-9a-f]+\]$|"
    r"^[=*-]{3,}|^=\s"
)


def log_tail(log):
    """What a dead job's record quotes of its log: its last TAIL_LINES lines,
    then ("; before them: ") the last TAIL_SIGNS lines before them that say
    how it died, printed after the last test began, each joined by " / "."""
    try:
        lines = pathlib.Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    lines = [ln.rstrip()[:TAIL_WIDTH] for ln in lines]
    last = lines[-TAIL_LINES:]
    begun = max(
        (i for i, ln in enumerate(lines) if ln.startswith("[ RUN      ]")), default=-1
    )
    signs: list[str] = []
    for ln in lines[begun + 1 : len(lines) - len(last)]:
        s = ln.strip()
        if s and _SIGN.search(s) and not _NOT_SIGN.search(s) and s not in last:
            if s in signs:
                signs.remove(s)
            signs.append(s)
    quoted = " / ".join(last)
    if signs:
        # after the last lines: a waiver's `signal` reads the first signal the
        # message names, the launcher's (reports/waivers.py, signal_of)
        quoted += "; before them: " + " / ".join(signs[-TAIL_SIGNS:])
    return quoted


# Less free space than this beside the journal: a job that died there may have
# died of the full disk (its log could not even hold the harness's line).
LOW_SPACE_BYTES = 256 * 1024


def out_of_space(journal):
    """A line like write_failure's when the journal's file system is (nearly)
    full, or None."""
    try:
        st = os.statvfs(pathlib.Path(journal).parent)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    if free < LOW_SPACE_BYTES:
        return (
            f"{WRITE_FAILURE}{pathlib.Path(journal).parent}: No space left on device"
            f" ({free} bytes free)"
        )
    return None


def restart_after(journal):
    """The case after which the job ended on purpose (a restart_job waiver), or None."""
    try:
        return int(marker(journal, RESTART).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def charged_case(journal, first_offset, crashed=False):
    """The case a job that died is charged to: the earliest case a rank had
    begun that rank 0 had not recorded (ranks run ahead of rank 0, and a case
    is not over until rank 0 records it: a rank already in the next case says
    nothing about that one); else the highest case begun (which rank 0 did
    record); None when no rank had begun one. first_offset: where this job's
    records start in the journal (seqs count per executable).

    Returns (case, recorded): recorded tells whether rank 0 recorded it."""
    recorded = {
        r.get("seq") for r in read_journal(journal, first_offset) if r.get("seq")
    }
    begun = begun_cases(journal, crashed)
    open_cases = sorted(
        (c for c in begun if c.get("seq") not in recorded),
        key=lambda c: c.get("seq", 0),
    )
    if open_cases:
        case = open_cases[0]
        in_case = ranks_in_case(journal, case.get("seq"), crashed)
        # The note of the rank whose watchdog ended the case: its limit is the one that
        # fired (each rank derives its own from what it saw, and they can differ).
        rank = watchdog_rank(journal)
        if rank is not None:
            case = in_case.get(rank, case)
        return with_case_comm(case, in_case), False
    case = max(begun, key=lambda c: c.get("seq", 0), default=None)
    return case, case is not None


def last_finished(journal, first_offset):
    """The job's last record of a case (the highest seq from first_offset
    on; the last of them in the journal), or None. A job that died outside
    any case names it in its own record; it is never charged with the death."""
    last = None
    for r in read_journal(journal, first_offset):
        seq = r.get("seq")
        if (
            isinstance(seq, int)
            and not isinstance(seq, bool)
            and (last is None or seq >= last["seq"])
        ):
            last = r
    return last


FAMILY_TESTS = "ordo family-tests: "


def family_of(logs, test):
    """The family (ordo_check_<family>) whose tests include `test`, by the
    line a combined job's launch writes to its log (check_main.cpp,
    select_families), or None."""
    for log in logs:
        try:
            lines = pathlib.Path(log).read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.startswith(FAMILY_TESTS):
                continue
            try:
                listed = json.loads(line[len(FAMILY_TESTS) :])
            except ValueError:
                continue  # cut short by a dying launch
            for family, names in listed.items() if isinstance(listed, dict) else ():
                if test in (names or ()):
                    return f"ordo_check_{family}"
    return None


PHASES = "ordo phases: "


def phases(log):
    """Where rank 0's process spent its time (conformance/harness/check_main.h,
    finish_checks): the dict of the job log's "ordo phases:" line, or None
    when the process did not end normally (a crash, a timeout) or is an
    older build."""
    found = None
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith(PHASES):
                    found = line[len(PHASES) :]
    except OSError:
        return None
    try:
        return json.loads(found) if found else None
    except ValueError:
        return None

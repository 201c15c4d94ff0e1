"""One check executable at one rank count, as a job that survives its
crashes: when the job dies (a crash, an abort, the watchdog's timeout), the
case in flight is recorded (runner/protocol.py says which) and the
executable resumes after it, so that one bad case costs one case. A job
that died with no case in flight gets a record of its own (harness.job),
never charged to a case before; one whose launch died before its first case
is launched again at the same place, once (within the restart budget): a
second such death in a row, or a used-up budget, ends it with its remaining
cases counted as not run, and the report says the run is partial.

A job that died once is likely to die again (a library that hangs in a family
of cases, a DETECT check whose erroneous calls leave processes waiting): from
its first resumption on, a standby launch is started beside each launch. It
runs the launcher, MPI_Init and ordo's start-up while the other launch runs,
then waits idle (harness.h, await_go) until it is told where to resume (or to
quit): the next resumption costs what is left of the launch, not a whole one.
The MPI lock is held for the whole job (launch.holding)."""
import os
import pathlib
import signal
import subprocess
import time

from reports import records
from . import protocol
from .errors import EXIT_INFRA, OrdoError
from .journal import append_record, journal_offset
from .launch import die_with_parent, holding, job_limit, split_lock

# A standby that is not needed is told to quit and ends with MPI_Finalize once
# its start-up is done; past this many seconds, it is ended by a signal.
STANDBY_QUIT_SECONDS = 30
# A standby not ready this long after it is needed (its MPI_Init hangs, say) is
# ended, and the job resumed by a launch of its own.
STANDBY_READY_SECONDS = 60


class Standby:
    """A launch started ahead: `cmd` with --ordo-standby=GO, its output in
    `log`. go(skip) resumes the job in it; quit() ends it unused."""

    def __init__(self, cmd, log, go):
        self.log, self.go_path, self.started = log, go, time.time()
        # written by its rank 0 when it waits (harness.h, await_go)
        self.ready = go.with_name(go.name + ".ready")
        go.unlink(missing_ok=True)
        self.ready.unlink(missing_ok=True)
        self.f = open(log, "w")
        self.proc = subprocess.Popen(
            cmd + [f"--ordo-standby={go}"],
            stdout=self.f,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )

    def alive(self):
        return self.proc.poll() is None

    def usable(self, limit):
        """Ready (its start-up done: it waits for its go), after waiting for
        that as long as it is alive (at most STANDBY_READY_SECONDS), and with
        most of its `timeout` still ahead: it counts from the standby's
        start, and a resumption must not find less than half of the job's
        time limit left (None: no limit). A standby that dies in its start-up
        is never told to go: the job is resumed by a launch of its own."""
        end = time.time() + STANDBY_READY_SECONDS
        while not self.ready.exists() and self.alive() and time.time() < end:
            time.sleep(0.005)
        return (
            self.ready.exists()
            and self.alive()
            and (limit is None or time.time() - self.started < limit / 2)
        )

    def _say(self, word):
        tmp = self.go_path.with_name(self.go_path.name + ".tmp")
        tmp.write_text(word + "\n")
        os.replace(tmp, self.go_path)  # whole, never half-written

    def go(self, skip):
        self._say(f"skip {skip}")

    def quit(self):
        """Ends it unused (it ran no test), and its log with it: told to quit
        (it ends with MPI_Finalize as soon as its start-up is done), ended by
        a signal only past STANDBY_QUIT_SECONDS: a signal to a launch still
        starting may end the launcher and leave its ranks (MPICH's hydra puts
        each rank in a session of its own) waiting for a go that never comes.
        One that had ended by itself keeps its log, renamed
        (...-standby.log): the launch that takes its place writes the name
        it had."""
        if not self.alive():
            self.close()
            self.log.rename(self.log.with_name(self.log.stem + "-standby.log"))
            return
        self._say("quit")
        try:
            self.proc.wait(timeout=STANDBY_QUIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
        self.proc.wait()
        gone(self.proc.pid)
        self.close()
        self.log.unlink(missing_ok=True)

    def close(self):
        self.f.close()
        self.go_path.unlink(missing_ok=True)
        self.ready.unlink(missing_ok=True)


def gone(pgid, seconds=5.0):
    """Waits until no process of the group `pgid` is left (a launch's
    `timeout` leads its own group: the launcher and the ranks), at most
    `seconds`, then ends what is left: processes of a job ended by a signal
    may outlive their launcher by a moment, and must not share the cores
    with the next job."""
    end = time.time() + seconds
    while True:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        if time.time() > end:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            return
        time.sleep(0.01)


def run_job(
    base,
    name,
    n,
    out,
    journal,
    adapter,
    max_restarts,
    *,
    variant="default",
    skip=0,
    logdir=None,
    on_start=None,
    waivers=None,
    extra_fields=None,
    before_launch=None,
):
    """Runs `base` (launch.job_command: the executable at n ranks) until it ends
    normally. skip: the cases already recorded (resuming an interrupted run).
    on_start(pid) is told the process (group) of each launch. waivers: the
    runner's JobWaivers (runner/waivers.py) that crashes and timeouts are
    judged with; None: the adapter's, matched without a library release.
    extra_fields: added to every record the runner writes for the job (the
    virtual nodes of `ordo run --nodes`, as the harness adds them to its own).
    before_launch(): called before each launch (the derived case limits'
    statistics, runner/case_limits.py, brought up to date with the journal).

    Returns the job's launches: [{"seconds", "rc", "phases"}], phases from the
    process's own line (protocol.phases; None for a launch that died); a
    standby launch has "standby": true and its seconds count from its go."""
    if waivers is None:
        from .waivers import JobWaivers

        waivers = JobWaivers(adapter)
    clean_restarts = 0
    logdir = logdir or out / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    attempt = 0
    launches = []
    # Restarts after a crash or timeout no waiver names: these count against
    # max_restarts.
    unexplained = 0
    before_first = 0  # launches in a row that died before their first case
    # seqs count per executable: look at this job's only
    first_record = journal_offset(journal)
    done = protocol.marker(journal, protocol.DONE)
    dead = {"ranks": n, "vendor": adapter["name"], "variant": variant}
    extra = dict(extra_fields or {})
    lock, base = split_lock(base)
    limit = job_limit(base)
    standby = None

    def xml(index):  # each launch's GoogleTest XML
        path = out / "gtest" / f"{variant}-{name}-{n}ranks-{index}.xml"
        return f"--gtest_output=xml:{path}"

    with holding(lock):
        try:
            while True:
                protocol.clear(journal)
                index = attempt + clean_restarts
                log = (
                    logdir
                    / f"{name}-{n}ranks{'' if index == 0 else f'-resume{index}'}.log"
                )
                cmd = base + [xml(index)]
                if before_launch:
                    before_launch()
                # not ready, dead, or waited too long
                if standby is not None and not standby.usable(limit):
                    standby.quit()
                    standby = None
                t0 = time.time()
                if standby is not None:
                    launch, standby = standby, None
                    launch.go(skip)
                    proc, f, log = launch.proc, launch.f, launch.log
                else:
                    launch = None
                    f = open(log, "w")
                    proc = subprocess.Popen(
                        cmd + [f"--ordo-skip={skip}"],
                        stdout=f,
                        stderr=subprocess.STDOUT,
                        preexec_fn=die_with_parent,
                    )
                if on_start:
                    on_start(proc.pid)
                # a resumption: the next one, if any, is made ready beside it
                if index > 0:
                    nxt = index + 1
                    standby = Standby(
                        base + [xml(nxt)],
                        logdir / f"{name}-{n}ranks-resume{nxt}.log",
                        pathlib.Path(f"{journal}.standby-{os.getpid()}-{nxt}"),
                    )
                rc = proc.wait()
                if rc not in (0, 1):
                    # a job ended by a signal: none of its processes outlives it
                    gone(proc.pid)
                if launch is not None:
                    launch.close()
                else:
                    f.close()
                entry = {
                    "seconds": round(time.time() - t0, 3),
                    "rc": rc,
                    "phases": protocol.phases(log),
                }
                if launch is not None:
                    entry[
                        "standby"
                    ] = True  # started ahead: its seconds count from its go
                launches.append(entry)
                # .done: the job ran every case. A rank whose MPI_Finalize did not
                # return (its .finalized marker missing) makes the job a death after
                # its last case even when the launcher's exit status hides it (MPICH
                # 5.0.2's hydra exits 0 or 1 after an abort in MPI_Finalize).
                unreturned = (
                    protocol.finalize_not_returned(journal) if done.exists() else []
                )
                if rc in (0, 1) and done.exists() and not unreturned:
                    done.unlink(missing_ok=True)
                    protocol.clear_finalized(journal)
                    return launches
                failed = protocol.write_failure(log) or protocol.out_of_space(journal)
                if failed:
                    # ordo could not write its own records (a full disk): nothing is
                    # charged to the case in flight; the run stops and resumes there.
                    raise OrdoError(
                        (
                            f"{failed.removeprefix('ordo: ')} (in {name} at {n} ranks);"
                            " make room (or fix the folder), then `./ordo run --resume"
                            f" {out}` finishes the run"
                        ),
                        EXIT_INFRA,
                    )
                after = protocol.restart_after(journal)
                if after is not None and after > skip:
                    # The harness ended the job on purpose after a case whose waiver
                    # says the library corrupts memory there: already recorded.
                    skip = after
                    clean_restarts += 1
                    before_first = 0
                    continue
                how = {
                    "timed_out": protocol.timed_out(journal, rc),
                    "rc": rc,
                    "duration_s": time.time() - t0,
                    "log": log,
                    "tail": protocol.log_tail(log),
                }
                # A crash (not a timeout) may have corrupted the processes' memory
                # under the harness: an in-flight note that breaks its schema is then
                # not used, and the record says so.
                crashed = rc not in (0, 1) and not how["timed_out"]
                if rc in (0, 1) and done.exists():
                    # Only MPI_Finalize failed: every case was recorded, none is in
                    # flight (the record below is the job's own, after its last case).
                    case, recorded = None, False
                else:
                    case, recorded = protocol.charged_case(
                        journal, first_record, crashed
                    )
                broken = protocol.broken_notes(journal) if crashed else []
                if broken:
                    how["tail"] += " | " + "; ".join(
                        f"rank {r}'s in-flight note broke its schema ({e}): not used"
                        " (the job crashed; a library that corrupts the heap can"
                        " garble the harness's writes)"
                        for r, e in broken
                    )
                if case and not recorded:
                    # A DETECT case that timed out: which ranks' calls had returned, and
                    # how.
                    notes = (
                        protocol.ranks_in_case(journal, case.get("seq"), crashed)
                        if case.get("level") == "DETECT"
                        else {}
                    )
                    record = waivers.apply(
                        {**records.case_died(case, **dead, **how, notes=notes), **extra}
                    )
                    append_record(journal, record)
                    skip = case["seq"]
                    before_first = 0
                else:
                    # No case in flight: the job's own record, never charged to the case
                    # before (that case finished; a waiver of it cannot waive this
                    # death).
                    last = protocol.last_finished(journal, first_record)
                    where = (
                        records.AFTER_LAST_CASE
                        if done.exists()
                        else records.BETWEEN_CASES
                        if case
                        else records.BEFORE_FIRST_CASE
                    )
                    # A combined job's family of that case, by the tests its logs list;
                    # else the executable's.
                    family = (
                        protocol.family_of(
                            sorted(logdir.glob(f"{name}-{n}ranks*.log")),
                            last.get("test"),
                        )
                        if last
                        else None
                    ) or (name if str(name).startswith("ordo_check_") else None)
                    died = dict(
                        attempt=attempt,
                        launch=index,
                        where=where,
                        resumed_after=skip,
                        last_case=last,
                        family=family,
                        **dead,
                        **how,
                    )
                    if where == records.AFTER_LAST_CASE:
                        # One record, whichever showed the death: the exit status, the
                        # missing markers, or both.
                        append_record(
                            journal,
                            {
                                **records.job_died(
                                    name, **died, finalize_not_returned=unreturned
                                ),
                                **extra,
                            },
                        )
                        protocol.clear_finalized(journal)
                        return launches
                    if case:
                        skip = max(skip, case["seq"])
                        before_first = 0
                    else:
                        # Died before its first case: launched again at the same place
                        # (within the restart budget); a second such death in a row ends
                        # the job, its remaining cases not run (the report is partial).
                        before_first += 1
                        if before_first >= 2:
                            why = (
                                f"its launches {index - 1} and {index} both ended"
                                f" before their first case (resumed after case {skip})"
                            )
                            append_record(
                                journal,
                                {
                                    **records.job_died(
                                        name,
                                        **died,
                                        not_run={
                                            "after_seq": last.get("seq")
                                            if last
                                            else None,
                                            "why": why,
                                        },
                                    ),
                                    **extra,
                                },
                            )
                            return launches
                    record = {**records.job_died(name, **died), **extra}
                    append_record(journal, record)
                attempt += 1
                # A crash or timeout a waiver names is a known fault and costs its one
                # case; so does a further hang of a kind that already hung (its short
                # limit, rule "hung") or of a key whose last case hung (rules "again"
                # and "probe": the harness holds back the cases of such a key,
                # runner/case_limits.py, so their number grows with the logarithm of the
                # family's). Only the others use up the restart budget (each restart
                # resumes after a recorded case, so the loop ends either way).
                hung_again = record.get("outcome") == "timeout" and (
                    record.get("case_limit") or {}
                ).get("rule") in ("hung", "probe", "again")
                if record.get("outcome") != "waived" and not hung_again:
                    unexplained += 1
                if unexplained > max_restarts:
                    last = protocol.last_finished(journal, first_record)
                    append_record(
                        journal,
                        {
                            **records.gave_up(
                                name,
                                max_restarts=max_restarts,
                                after_seq=last.get("seq") if last else None,
                                **dead,
                            ),
                            **extra,
                        },
                    )
                    return launches
        finally:
            if standby is not None:
                standby.quit()

"""One check executable at one rank count, as a job that survives its
crashes: when the job dies (a crash, an abort, the watchdog's timeout), the
case in flight is recorded (runner/protocol.py says which) and the
executable resumes after it, so that one bad case costs one case."""
import subprocess
import time

from reports import records
from . import protocol
from .errors import EXIT_INFRA, OrdoError
from .journal import append_record, journal_offset, last_failed
from .launch import die_with_parent


def run_job(base, name, n, out, journal, adapter, max_restarts, *, variant="default", skip=0, logdir=None,
            on_start=None, waivers=None, extra_fields=None, before_launch=None):
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
    process's own line (protocol.phases; None for a launch that died)."""
    if waivers is None:
        from .waivers import JobWaivers
        waivers = JobWaivers(adapter)
    clean_restarts = 0
    logdir = logdir or out / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    attempt = 0
    launches = []
    unexplained = 0  # restarts after a crash or timeout no waiver names: these count against max_restarts
    first_record = journal_offset(journal)  # seqs count per executable: look at this job's only
    done = protocol.marker(journal, protocol.DONE)
    dead = {"ranks": n, "vendor": adapter["name"], "variant": variant}
    extra = dict(extra_fields or {})
    while True:
        protocol.clear(journal)
        log = logdir / f"{name}-{n}ranks{'' if attempt + clean_restarts == 0 else f'-resume{attempt + clean_restarts}'}.log"
        cmd = base + [f"--ordo-skip={skip}",
                      f"--gtest_output=xml:{out / 'gtest' / f'{variant}-{name}-{n}ranks-{attempt}.xml'}"]
        if before_launch:
            before_launch()
        t0 = time.time()
        with open(log, "w") as f:
            proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
            if on_start:
                on_start(proc.pid)
            rc = proc.wait()
        launches.append({"seconds": round(time.time() - t0, 3), "rc": rc, "phases": protocol.phases(log)})
        if rc in (0, 1) and done.exists():
            done.unlink(missing_ok=True)
            return launches
        failed = protocol.write_failure(log) or protocol.out_of_space(journal)
        if failed:
            # ordo could not write its own records (a full disk): nothing is
            # charged to the case in flight; the run stops and resumes there.
            raise OrdoError(f"{failed.removeprefix('ordo: ')} (in {name} at {n} ranks); make room (or fix the "
                            f"folder), then `./ordo run --resume {out}` finishes the run", EXIT_INFRA)
        after = protocol.restart_after(journal)
        if after is not None and after > skip:
            # The harness ended the job on purpose after a case whose waiver
            # says the library corrupts memory there: already recorded.
            skip = after
            clean_restarts += 1
            continue
        how = {"timed_out": protocol.timed_out(journal, rc), "rc": rc, "duration_s": time.time() - t0, "log": log,
               "tail": " / ".join(log.read_text(errors="replace").splitlines()[-4:])}
        case, recorded = protocol.charged_case(journal, first_record)
        prior = None if case and not recorded else last_failed(journal, first_record)
        if case and not recorded:
            # A DETECT case that timed out: which ranks' calls had returned, and how.
            notes = protocol.ranks_in_case(journal, case.get("seq")) if case.get("level") == "DETECT" else {}
            record = waivers.apply({**records.case_died(case, **dead, **how, notes=notes), **extra})
            append_record(journal, record)
            skip = case["seq"]
        elif prior:
            record = waivers.apply({**records.died_after_failure(prior, **dead, **how), **extra})
            append_record(journal, record)
            if done.exists() or not case:
                return launches
            skip = case["seq"]
        else:
            record = records.job_died(name, attempt=attempt, **dead, **how)
            append_record(journal, {**record, **extra})
            if not case or done.exists():
                return launches
            skip = case["seq"]
        attempt += 1
        # A crash or timeout a waiver names is a known fault and costs its one
        # case; only the others use up the restart budget (each restart
        # resumes after a recorded case, so the loop ends either way).
        if record.get("outcome") != "waived":
            unexplained += 1
        if unexplained > max_restarts:
            append_record(journal, {**records.gave_up(name, max_restarts=max_restarts, **dead), **extra})
            return launches

"""The ordo command line (run with Debian's /usr/bin/python3 by ./ordo).

    ordo run      build against an MPI library and run the conformance checks
    ordo test     build and run the project's own tests (what CI runs)
    ordo replay   run one case again (from a failure message or a journal record)
    ordo list     list vendors, clauses or checks
    ordo doctor   is this machine ready, and what to install
    ordo report   results.json and the HTML / Markdown / JUnit views of a run
    ordo compare  several runs side by side in one HTML page
    ordo gate     fail when a run got worse than a baseline (CI)
    ordo package  the procurement package of a run, with its verifier

Exit codes: 0 conformant / passed, 1 conformance failures, 2 usage or set-up
error, 3 infrastructure failure.
"""
import argparse
import datetime
import fnmatch
import glob
import json
import os
import pathlib
import platform
import re
import signal
import shlex
import shutil
import subprocess
import sys
import time

from journal_io import probe_writable, read_journal

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INFRA = 0, 1, 2, 3
DEFAULT_RANKS = "1-8"
SCHEMA_RUN = "ordo.run/1"


class OrdoError(Exception):
    def __init__(self, message, code=EXIT_USAGE):
        super().__init__(message)
        self.code = code


# ---- adapters ------------------------------------------------------------

def known_vendors():
    return sorted(p.parent.name for p in (ROOT / "vendors").glob("*/adapter.json"))


def load_adapter(name_or_path):
    """A vendor by name (vendors/<name>/adapter.json) or a site's own adapter file."""
    path = ROOT / "vendors" / name_or_path / "adapter.json"
    if not path.is_file():
        candidate = pathlib.Path(name_or_path)
        if candidate.suffix == ".json" or os.sep in name_or_path:
            path = candidate
        else:
            raise OrdoError(f"unknown vendor '{name_or_path}': choose one of "
                            f"{', '.join(known_vendors())}, or give an adapter file (--vendor path/to/adapter.json)")
    try:
        adapter = json.loads(path.read_text())
    except OSError as e:
        raise OrdoError(f"cannot read the adapter file {path}: {e.strerror}")
    except ValueError as e:
        raise OrdoError(f"malformed adapter file {path}: {e}")
    problems = []
    for key in ("name", "compilers", "launcher"):
        if key not in adapter:
            problems.append(f"no '{key}'")
    launcher = adapter.get("launcher", {})
    for key in ("command", "np_flag", "env_flag"):
        if key not in launcher:
            problems.append(f"no 'launcher.{key}'")
    if not isinstance(adapter.get("compilers", {}), dict) or "cxx" not in adapter.get("compilers", {}):
        problems.append("no 'compilers.cxx'")
    if problems:
        raise OrdoError(f"malformed adapter file {path}: {', '.join(problems)}")
    adapter["_dir"] = str(path.parent.resolve())
    adapter["_path"] = str(path.resolve())
    return adapter


def require_tools(adapter):
    """The wrappers and launcher must exist: one clear line otherwise."""
    needed = [adapter["compilers"].get("c"), adapter["compilers"]["cxx"], adapter["launcher"]["command"]]
    for tool in needed:
        if tool and shutil.which(tool) is None:
            packages = " ".join(adapter.get("packages", [])) or "the MPI library's development package"
            raise OrdoError(f"{tool} not found: the {adapter['name']} library is not installed "
                            f"(install it with: sudo apt-get install -y {packages})")


def build_dir_for(adapter):
    # ORDO_BUILD_ROOT moves the build directories (default: build/ in the checkout).
    return pathlib.Path(os.environ.get("ORDO_BUILD_ROOT", ROOT / "build")).resolve() / adapter["name"]


def expand(value, build):
    """An adapter's template: {build}, {root} and {env:NAME} (a variable of the
    user's environment, e.g. a site's hostfile)."""
    value = value.replace("{build}", str(build)).replace("{root}", str(ROOT))
    for name in re.findall(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}", value):
        if name not in os.environ:
            raise OrdoError(f"the adapter needs the environment variable {name} (see vendors/README.md): "
                            f"set it, e.g. export {name}=...")
        value = value.replace("{env:" + name + "}", os.environ[name])
    return value


def launch_env(adapter, build, user_env, plain_launch):
    env = dict(adapter.get("env", {}))
    if not plain_launch:
        for setting in adapter.get("launch_settings", []):
            env.update(setting.get("env", {}))
    env.update(user_env)
    return {k: expand(v, build) for k, v in env.items()}


def launcher_prefix(adapter, build, env):
    """The launcher and its flags, up to (not including) the rank count."""
    la = adapter["launcher"]
    cmd = [shutil.which(la["command"]) or la["command"]] + [expand(f, build) for f in la.get("flags", [])]
    if os.geteuid() == 0:
        cmd += la.get("root_flags", [])
    if not la["env_flag"]:
        # A launcher that hands its own environment to every rank (srun's
        # default): the variables are set for the launcher itself.
        return (["env"] + [f"{key}={value}" for key, value in env.items()] + cmd) if env else cmd
    for key, value in env.items():
        cmd += [part.replace("{key}", key).replace("{value}", value) for part in la["env_flag"]]
    return cmd


# ---- arguments -----------------------------------------------------------

def parse_ranks(text):
    ranks = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-", 1))
                if lo > hi:
                    raise ValueError
                ranks.extend(range(lo, hi + 1))
            else:
                ranks.append(int(part))
    except ValueError:
        ranks = []
    if not ranks or any(r < 1 or r > 1024 for r in ranks):
        raise OrdoError(f"--ranks '{text}' is not a list of rank counts such as 1,2,3 or 1-8")
    return sorted(set(ranks))


def parse_env(items):
    env = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key or not key.replace("_", "").isalnum():
            raise OrdoError(f"--env '{item}' is not of the form KEY=VALUE")
        env[key] = value
    return env


# ---- building ------------------------------------------------------------

def run_logged(cmd, log, cwd=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd)


def build(adapter, reference_tests, user_env=None, plain_launch=False, quiet=False):
    require_tools(adapter)
    bdir = build_dir_for(adapter)
    bdir.mkdir(parents=True, exist_ok=True)
    log = bdir / "ordo-build.log"
    env = launch_env(adapter, bdir, user_env or {}, plain_launch)
    prefix = launcher_prefix(adapter, bdir, env)
    configure = [
        "cmake", "-S", str(ROOT), "-B", str(bdir),
        f"-DMPI_C_COMPILER={shutil.which(adapter['compilers'].get('c', '')) or ''}",
        f"-DMPI_CXX_COMPILER={shutil.which(adapter['compilers']['cxx'])}",
        f"-DMPIEXEC_EXECUTABLE={prefix[0]}",
        f"-DMPIEXEC_NUMPROC_FLAG={adapter['launcher']['np_flag']}",
        f"-DORDO_MPIEXEC_PREFLAGS={';'.join(prefix[1:])}",
        f"-DORDO_VENDOR={adapter['name']}",
    ]
    if reference_tests or not (bdir / "CMakeCache.txt").exists():  # `ordo run` keeps a test build's setting
        configure.append(f"-DORDO_REFERENCE_TESTS={'ON' if reference_tests else 'OFF'}")
    if not quiet:
        print(f"ordo: building against {adapter['name']} in {bdir.relative_to(ROOT) if bdir.is_relative_to(ROOT) else bdir}",
              flush=True)
    t0 = time.time()
    if run_logged(configure, log) != 0 or run_logged(["cmake", "--build", str(bdir), "-j", str(os.cpu_count() or 2)], log) != 0:
        tail = log.read_text().splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        raise OrdoError(f"the build against {adapter['name']} failed (log: {log})", EXIT_INFRA)
    if not quiet:
        print(f"ordo: built in {time.time() - t0:.0f} s", flush=True)
    return bdir, prefix


def library_version(prefix, adapter, bdir):
    exe = bdir / "conformance" / "ordo_replay"
    try:
        out = subprocess.run(["timeout", "60"] + prefix + [adapter["launcher"]["np_flag"], "1", str(exe),
                                                          "--ordo-library-version"],
                             capture_output=True, text=True, timeout=90)
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                version = json.loads(line)
                # Some libraries pad the string with NULs (Open MPI): keep the text.
                return {k: v.replace("\x00", "").strip() if isinstance(v, str) else v for k, v in version.items()}
    except (subprocess.TimeoutExpired, ValueError):
        pass
    return {"library": "unknown", "mpi_version": "unknown"}


def git_state():
    def git(*args):
        try:
            return subprocess.run(["git", "-C", str(ROOT)] + list(args), capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return {"commit": git("rev-parse", "HEAD") or "unknown", "dirty": bool(git("status", "--porcelain"))}


# ---- run -----------------------------------------------------------------

def journal_offset(path):
    return path.stat().st_size if path.exists() else 0


def append_record(path, record):
    append_line(path, json.dumps(record, sort_keys=True))


def append_line(path, line):
    """One line, flushed to disk; a failure (a full disk) ends the run with one
    line saying how to finish it: nothing written before is touched."""
    try:
        with open(path, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise OrdoError(f"cannot write {path}: {e.strerror}; make room (or fix the folder), then "
                        f"`./ordo run --resume {pathlib.Path(path).parent}` finishes the run", EXIT_INFRA)


def summarize(records):
    counts = {}
    for r in records:
        counts[r.get("outcome", "?")] = counts.get(r.get("outcome", "?"), 0) + 1
    return counts


def last_failed(journal, offset):
    """The most recent case of this job that failed or was waived (a library
    that corrupts memory in one case may bring the process down later)."""
    failed = [r for r in read_journal(journal, offset)
              if r.get("seq") and r.get("case") is not None and r.get("outcome") in ("fail", "crash", "waived")]
    return failed[-1] if failed else None


def inflight_files(journal):
    return [pathlib.Path(p) for p in glob.glob(str(journal) + ".inflight.*")]


def apply_job_waivers(record, adapter):
    """A crash or timeout that a waiver of the adapter names (its "outcome")
    is recorded as waived, with the waiver's reason; an expired one is not."""
    path = pathlib.Path(adapter["_dir"]) / adapter.get("waivers", "waivers.json")
    try:
        waivers = json.loads(path.read_text()).get("waivers", [])
    except (OSError, ValueError):
        return record
    today = datetime.date.today().isoformat()
    for w in waivers:
        if w.get("outcome", "fail") != record.get("outcome"):
            continue
        if not fnmatch.fnmatchcase(record.get("test") or "", w.get("test", "-")):
            continue
        if "variant" in w and not fnmatch.fnmatchcase(record.get("variant") or "default", w["variant"]):
            continue
        case = record.get("case") or {}
        if not all(k in case and (fnmatch.fnmatchcase(str(case[k]), v) if isinstance(v, str) else case[k] == v)
                   for k, v in (w.get("case") or {}).items()):
            continue
        if w.get("expires", "") < today:
            record["message"] += f" | the waiver {w.get('id')} expired on {w.get('expires')}"
            continue
        record["outcome"] = "waived"
        record["waiver"] = w.get("id")
        record["message"] += f" | waived until {w.get('expires')}: {w.get('reason')} ({w.get('upstream')})"
        break
    return record


def _die_with_parent():
    """In the child, before exec: end (SIGTERM) when ordo itself dies, even by
    kill -9; `timeout` passes the signal on to the MPI job it watches."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_job(base, name, n, out, journal, adapter, max_restarts, *, variant="default", skip=0, logdir=None,
            on_start=None):
    """Runs one check executable at n ranks; when the job dies (a crash, an
    abort, the watchdog's timeout), records the case in flight and resumes
    the executable after it, so that one bad case costs one case. skip: the
    cases already recorded (resuming an interrupted run). on_start(pid) is
    told the process (group) of each launch."""
    marker = pathlib.Path(str(journal) + ".timeout")
    done = pathlib.Path(str(journal) + ".done")
    restart = pathlib.Path(str(journal) + ".restart")  # a restart_job waiver: resume after its case
    clean_restarts = 0
    logdir = logdir or out / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    attempt = 0
    unexplained = 0  # restarts after a crash or timeout no waiver names: these count against max_restarts
    first_record = journal_offset(journal)  # seqs count per executable: look at this job's only
    while True:
        for f in [marker, done, restart] + inflight_files(journal):
            f.unlink(missing_ok=True)
        log = logdir / f"{name}-{n}ranks{'' if attempt + clean_restarts == 0 else f'-resume{attempt + clean_restarts}'}.log"
        cmd = base + [f"--ordo-skip={skip}",
                      f"--gtest_output=xml:{out / 'gtest' / f'{variant}-{name}-{n}ranks-{attempt}.xml'}"]
        t0 = time.time()
        with open(log, "w") as f:
            proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
            if on_start:
                on_start(proc.pid)
            rc = proc.wait()
        if rc in (0, 1) and done.exists():
            done.unlink(missing_ok=True)
            return
        if restart.exists():
            # The harness ended the job on purpose after a case whose waiver
            # says the library corrupts memory there: already recorded.
            try:
                after = int(restart.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                after = None
            if after is not None and after > skip:
                skip = after
                clean_restarts += 1
                continue
        dt = time.time() - t0
        timed_out = rc in (124, 137) or marker.exists()
        tail = " / ".join(log.read_text(errors="replace").splitlines()[-4:])
        recorded = {r.get("seq") for r in read_journal(journal, first_record) if r.get("seq")}
        begun = []
        for f in inflight_files(journal):
            try:
                begun.append(json.loads(f.read_text()))
            except (OSError, ValueError):
                continue
        # The earliest case a rank had begun and rank 0 had not recorded: ranks
        # run ahead of rank 0, and a case is not over until rank 0 records it
        # (a rank already in the next case says nothing about that one).
        open_cases = sorted((c for c in begun if c.get("seq") not in recorded), key=lambda c: c.get("seq", 0))
        case = open_cases[0] if open_cases else max(begun, key=lambda c: c.get("seq", 0), default=None)
        record = {"schema": "ordo.check/1", "ranks": n, "vendor": adapter["name"], "variant": variant,
                  "outcome": "timeout" if timed_out else "crash", "duration_s": round(dt, 3), "log": str(log),
                  "failing_ranks": [], "detect": None, "waiver": None, "reproducer": None}
        if case and case.get("seq") not in recorded:
            record.update({k: case.get(k) for k in ("seq", "id", "test", "clause", "level", "case", "routine")})
            what = "did not finish within the case time limit" if timed_out else "ended the job"
            record["message"] = f"this case {what} (exit code {rc}); last output: {tail}"
            append_record(journal, apply_job_waivers(record, adapter))
            skip = case["seq"]
        elif last_failed(journal, first_record):
            # The job died between cases (or at its end) after a case that
            # failed: most likely the library corrupted memory during that
            # case. Recorded against it.
            prior = last_failed(journal, first_record)
            record.update({k: prior.get(k) for k in ("seq", "test", "clause", "level", "case", "routine")})
            record["id"] = f"{prior.get('id')}~after"
            record["message"] = (f"the job ended (exit code {rc}) outside any case, after this case had failed: "
                                 f"most likely memory the library corrupted in it; last output: {tail}")
            append_record(journal, apply_job_waivers(record, adapter))
            if done.exists() or not case:
                return
            skip = case["seq"]
        else:
            record.update({"id": f"{name}@{n}ranks#job{attempt}" + ("" if variant == "default" else f"@{variant}"),
                           "test": name, "clause": "harness.job", "level": "MUST", "case": None, "routine": None,
                           "message": f"{name} at {n} ranks ended with exit code {rc} outside a case; last output: {tail}"})
            append_record(journal, record)
            if not case or done.exists():
                return
            skip = case["seq"]
        attempt += 1
        # A crash or timeout a waiver names is a known fault and costs its one
        # case; only the others use up the restart budget (each restart
        # resumes after a recorded case, so the loop ends either way).
        if record.get("outcome") != "waived":
            unexplained += 1
        if unexplained > max_restarts:
            append_record(journal, {"schema": "ordo.check/1", "id": f"{name}@{n}ranks#gave-up", "test": name,
                                    "clause": "harness.job", "level": "MUST", "outcome": "crash", "ranks": n,
                                    "variant": variant, "message": f"gave up after {max_restarts} restarts after "
                                    "crashes or timeouts that no waiver names", "case": None})
            return


def coverage_table(records):
    """Checks per clause of spec/clauses.json, generated from a run's records;
    clauses without any check are listed too."""
    spec = json.loads((ROOT / "spec" / "clauses.json").read_text())["clauses"]
    rows = {}
    for r in records:
        slug = r.get("clause") or "?"
        row = rows.setdefault(slug, {"levels": set(), "outcomes": {}})
        row["levels"].add(r.get("level") or "?")
        row["outcomes"][r.get("outcome")] = row["outcomes"].get(r.get("outcome"), 0) + 1
    lines = [f"{'clause':40} {'section':14} {'level':12} {'checks':>7}  outcomes"]
    for slug in sorted(set(spec) | set(rows)):
        row = rows.get(slug, {"levels": set(), "outcomes": {}})
        n = sum(row["outcomes"].values())
        section = spec.get(slug, {}).get("section", "?")
        lines.append(f"{slug:40} {section[:14]:14} {','.join(sorted(row['levels'])) or '-':12} {n:>7}  " +
                     (", ".join(f"{v} {o}" for o, v in sorted(row["outcomes"].items())) or "no checks"))
    return "\n".join(lines) + "\n"


def cmd_job(args):
    """One check executable at one rank count, as CTest runs it: resumed after
    crashes and timeouts, waivers applied; exit 0 when nothing failed."""
    adapter = load_adapter(args.vendor)
    build = pathlib.Path(args.build_dir).resolve()
    env = launch_env(adapter, build, {}, False)
    prefix = launcher_prefix(adapter, build, env)
    out = pathlib.Path(args.out).resolve()
    (out / "logs").mkdir(parents=True, exist_ok=True)
    (out / "gtest").mkdir(exist_ok=True)
    journal = out / "journal.jsonl"
    journal.write_text("")
    name = pathlib.Path(args.executable).name
    base = (["timeout", "-k", "5", str(args.timeout)] + prefix +
            [adapter["launcher"]["np_flag"], str(args.ranks), args.executable, f"--ordo-journal={journal}",
             f"--ordo-vendor={adapter['name']}", f"--ordo-adapter={adapter['_path']}",
             f"--ordo-case-timeout={args.case_timeout}"])
    waivers = pathlib.Path(adapter["_dir"]) / adapter.get("waivers", "waivers.json")
    if waivers.is_file():
        base.append(f"--ordo-waivers={waivers}")
    run_job(base, name, args.ranks, out, journal, adapter, 50)
    records = read_journal(journal)
    bad = [r for r in records if r.get("outcome") in ("fail", "crash", "timeout", "corrupt")]
    counts = summarize(records)
    print(f"{name} at {args.ranks} ranks: {len(records)} checks: " +
          ", ".join(f"{v} {o}" for o, v in sorted(counts.items())))
    for r in bad[:20]:
        print(f"  {r.get('outcome')}: {r.get('id')} [{r.get('clause')}, {r.get('level')}] {(r.get('message') or '')[:400]}")
    return EXIT_FAIL if bad else EXIT_OK


RUN_SETTINGS = ("vendor", "ranks", "variants", "seed", "timeout", "case_timeout", "max_restarts", "filter",
                "only", "plain_launch", "env", "property_budget")


HELD_LOCKS = []


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
            raise OrdoError(f"cannot write the output folder {out}: {e.strerror}; choose another --out")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.f.seek(0)
            holder = self.f.read().strip() or "another process"
            raise OrdoError(f"another ordo run is writing into {out} ({holder}); wait for it to end "
                            f"or choose another --out")
        self.f.seek(0)
        self.f.truncate()
        self.f.write(f"pid {os.getpid()} on {platform.node()} since "
                     f"{datetime.datetime.now().isoformat(timespec='seconds')}\n")
        self.f.flush()


def repair_journal(journal):
    """A journal whose last line was cut short (a write interrupted by a kill
    or a full disk): the cut bytes move to journal.jsonl.damaged, so that the
    records go on from a line boundary. Returns the number of bytes moved."""
    if not journal.exists() or journal.stat().st_size == 0:
        return 0
    with open(journal, "rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return 0
        cut = data.rfind(b"\n") + 1
        with open(str(journal) + ".damaged", "ab") as d:
            d.write(data[cut:] + b"\n")
        f.truncate(cut)
    return len(data) - cut


def read_progress(path):
    """The jobs of a run: {key: {"start": event, "done": event}} from progress.jsonl."""
    jobs = {}
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
        print(f"ordo: ended the job the interrupted run left running (process group {pid})", flush=True)
    except (ProcessLookupError, PermissionError):
        pass


def case_kind(case):
    return "inter" if str(case.get("comm", "")).startswith("inter") else "intra"


def target_matches(t, routine, mode, kind):
    return ((t.get("routine", "*") in ("*", routine)) and (t.get("comm", "any") in ("*", "any", kind)) and
            (not t.get("modes") or "*" in t["modes"] or mode in t["modes"]))


def select_flag(variant):
    if not variant.get("targets"):
        return []
    parts = [f"{t.get('routine', '*')}:{'+'.join(t.get('modes') or ['*'])}:{t.get('comm', 'any')}"
             for t in variant["targets"]]
    return ["--ordo-select=" + ";".join(parts)]


def survey_cases(prefix, adapter, n, exe, out, settings):
    """Which cases (routine, mode, comm kind) a check executable has at n
    ranks, without running any: a variant sweep launches only the
    executables that have cases its algorithm is used for. None if the
    survey did not finish (then the executable is run)."""
    path = out / "logs" / f"survey-{pathlib.Path(exe).name}-{n}ranks.txt"
    path.unlink(missing_ok=True)
    cmd = (["timeout", "-k", "5", "300"] + prefix +
           [adapter["launcher"]["np_flag"], str(n), exe, f"--ordo-survey={path}",
            f"--ordo-vendor={adapter['name']}", f"--ordo-seed={settings['seed']}",
            f"--ordo-adapter={adapter['_path']}"] +
           ([f"--gtest_filter={settings['only']}"] if settings.get("only") else []))
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent)
    if rc not in (0, 1):
        return None
    try:
        lines = path.read_text().splitlines() if path.exists() else []
    except OSError:
        return None
    return sorted({tuple(line.split()) for line in lines if len(line.split()) == 3})


def check_writable_dir(path, what, option):
    try:
        probe_writable(path)
    except OSError as e:
        raise OrdoError(f"cannot write the {what} {path}: {e.strerror}; fix it or choose another {option}")


def cmd_run(args):
    if args.resume:
        out = pathlib.Path(args.resume).resolve()
        try:
            run = json.loads((out / "run.json").read_text())
            settings = run["settings"]
        except FileNotFoundError:
            raise OrdoError(f"{out} holds no run.json: not an output folder of `ordo run` that can be resumed")
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise OrdoError(f"{out / 'run.json'} is unreadable or corrupt ({e}); it cannot be resumed: "
                            f"`ordo report {out}` still reports what the journal holds")
        if run.get("end"):
            raise OrdoError(f"the run in {out} finished at {run['end']}: nothing to resume")
    else:
        settings = {k: getattr(args, k) for k in RUN_SETTINGS}
    adapter = load_adapter(settings["vendor"])
    if settings["vendor"] not in known_vendors():  # a site's adapter file: found again on --resume
        settings["vendor"] = adapter["_path"]
    ranks = parse_ranks(settings["ranks"])
    user_env = parse_env(settings["env"])
    if not 0 <= settings["seed"] < 2 ** 53:
        raise OrdoError(f"--seed {settings['seed']} is out of range: use 0 to 2^53-1 (seeds travel in JSON)")
    budget = str(settings.get("property_budget") or "0")
    props = None
    if budget != "0":
        try:
            import properties  # tools/properties.py: the property phase
            properties.parse_budget(budget)
            props = properties
        except ImportError:
            print("ordo: the property phase is not available in this checkout (tools/properties.py)", file=sys.stderr)
        except ValueError as e:
            raise OrdoError(f"--property-budget: {e}")
    import variants as variants_mod  # tools/variants.py
    try:
        discovered = variants_mod.discover(adapter) if settings["variants"] != "default" else []
        chosen = variants_mod.select(adapter, settings["variants"], discovered)
    except variants_mod.VariantError as e:
        raise OrdoError(str(e))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    if not args.resume:
        out = pathlib.Path(args.out or ROOT / "out" / f"run-{adapter['name']}-{stamp}").resolve()
    journal, progress_path = out / "journal.jsonl", out / "progress.jsonl"
    if not args.resume and journal.exists():
        raise OrdoError(f"{out} already holds a run (journal.jsonl); `./ordo run --resume {out}` finishes it, "
                        f"or choose another --out")
    require_tools(adapter)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OrdoError(f"cannot write the output folder {out}: {e.strerror}; choose another --out")
    HELD_LOCKS.append(OutputLock(out))  # held until the process ends
    check_writable_dir(out / "logs", "log folder", "--out")
    check_writable_dir(out / "gtest", "folder", "--out")
    reproducers = out / "reproducers"
    if props:
        check_writable_dir(reproducers, "reproducer folder", "--out")
    jobs = read_progress(progress_path)
    if args.resume:
        moved = repair_journal(journal)
        if moved:
            print(f"ordo: the journal's last line was cut short; its {moved} bytes are kept in "
                  f"{journal.name}.damaged", flush=True)
        stale = [j for j in jobs.values() if "start" in j and "done" not in j]
        for j in stale:
            end_stale_job(j["start"])
        print(f"ordo: resuming {out}: {sum('done' in j for j in jobs.values())} jobs done", flush=True)
    else:
        journal.touch()
    bdir, prefix = build(adapter, reference_tests=False, user_env=user_env, plain_launch=settings["plain_launch"])
    executables = sorted(glob.glob(str(bdir / "conformance" / "*" / "ordo_check_*")))
    if settings["filter"]:
        executables = [e for e in executables if settings["filter"] in pathlib.Path(e).name]
    if not executables:
        raise OrdoError(f"no check executables were built in {bdir}", EXIT_INFRA)
    waivers = pathlib.Path(adapter["_dir"]) / adapter.get("waivers", "waivers.json")
    if args.resume:
        run["resumed"] = run.get("resumed", []) + [datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")]
    else:
        version = library_version(prefix, adapter, bdir)
        run = {
            "schema": SCHEMA_RUN, "ordo_version": (ROOT / "VERSION").read_text().strip(),
            "git": git_state(), "vendor": adapter["name"], "adapter": adapter["_path"],
            "library_version": version.get("library"), "mpi_version": version.get("mpi_version"),
            "host": platform.node(), "platform": platform.platform(), "cores": os.cpu_count(),
            "launcher": prefix + [adapter["launcher"]["np_flag"], "N"],
            "command": ["./ordo"] + sys.argv[1:], "variants": [v["name"] for v in chosen], "ranks": ranks,
            "seed": settings["seed"], "env": launch_env(adapter, bdir, user_env, settings["plain_launch"]),
            "start": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "end": None,
            "per_rank_count": [], "settings": settings,
            "variant_details": [{k: v.get(k) for k in ("name", "env", "targets", "source")} for v in chosen],
        }
    write_json_atomic(out / "run.json", run)
    lib = (run.get("library_version") or "?").splitlines()[0] if run.get("library_version") else "?"
    print(f"ordo: {adapter['name']} ({lib}), ranks {','.join(map(str, ranks))}, "
          f"variants {len(chosen)}, output {out}", flush=True)
    common = (adapter.get("algorithm_variants") or {}).get("common_env", {})
    seen = {}  # (n, executable) -> what the default variant ran: [routine, mode, kind]
    for key, j in jobs.items():
        if "done" in j and j["done"].get("seen") is not None:
            seen[(j["done"]["ranks"], j["done"]["executable"])] = [tuple(x) for x in j["done"]["seen"]]
    per_variant = {}
    for variant in chosen:
        vname = variant["name"]
        venv = dict(user_env)
        if vname != "default":
            venv = {**common, **((variant.get("fallback") or {}).get("env") or {}), **variant["env"], **user_env}
        env = launch_env(adapter, bdir, venv, settings["plain_launch"])
        vprefix = launcher_prefix(adapter, bdir, env)
        pattern = (variant.get("fallback") or {}).get("pattern")
        logdir = out / "logs" if vname == "default" else out / "logs" / vname
        vrow = per_variant.setdefault(vname, {"variant": vname, "seconds": 0.0, "fallback_jobs": [],
                                              "skipped_jobs": 0})
        for n in ranks:
            t_n = time.time()
            before = journal_offset(journal)
            jobs_here = [(pathlib.Path(e).name, e) for e in executables]
            if vname == "default" and props and n >= 2:
                jobs_here.append(("properties", None))
            for name, exe in jobs_here:
                key = f"{vname}/{n}/{name}"
                state = jobs.get(key, {})
                if "done" in state:
                    continue
                targets = variant.get("targets")
                if targets and exe is not None and (n, name) not in seen:
                    seen_now = survey_cases(prefix, adapter, n, exe, out, settings)
                    if seen_now is not None:
                        seen[(n, name)] = seen_now
                        append_line(progress_path, json.dumps(
                            {"job": f"survey/{n}/{name}", "event": "done", "ranks": n, "executable": name,
                             "seen": sorted(seen_now)}, sort_keys=True))
                if targets and (n, name) in seen and not any(
                        target_matches(t, *s) for t in targets for s in seen[(n, name)]):
                    vrow["skipped_jobs"] += 1  # the default run had no case this variant selects
                    continue
                skip = 0
                if "start" in state:  # interrupted in this job: go on after its last record
                    skip = max((r.get("seq") or 0 for r in read_journal(journal, state["start"]["offset"])),
                               default=0)
                k = journal_offset(journal)
                start_event = {"job": key, "event": "start", "offset": k if "start" not in state
                               else state["start"]["offset"], "pid": None}

                def on_start(pid, ev=start_event):
                    ev["pid"] = pid
                    append_line(progress_path, json.dumps(ev, sort_keys=True))

                t0 = time.time()
                if exe is None:
                    def job(base, jname, jn, jout, jjournal, jadapter, max_restarts, **kw):
                        return run_job(base, jname, jn, jout, jjournal, jadapter, max_restarts, variant=vname,
                                       skip=skip, logdir=logdir, on_start=on_start)
                    share = budget
                    if budget.endswith("s"):  # seconds in all: shared over the rank counts with properties
                        share = f"{float(budget[:-1]) / max(1, sum(1 for m in ranks if m >= 2)):.1f}s"
                    try:
                        props.run_phase(adapter=adapter, bdir=bdir, prefix=vprefix, out=out, journal=journal,
                                        ranks=[n], budget=share, seed=settings["seed"],
                                        case_timeout=settings["case_timeout"], job_timeout=settings["timeout"],
                                        run_job=job, variant=vname)
                    except FileNotFoundError as e:
                        raise OrdoError(f"{e}; rebuild with `./ordo run` after a clean of {bdir}", EXIT_INFRA)
                    except OSError as e:  # the reproducer folder
                        raise OrdoError(f"{e}; fix it, then `./ordo run --resume {out}` finishes the run")
                else:
                    base = (["timeout", "-k", "5", str(settings["timeout"])] + vprefix +
                            [adapter["launcher"]["np_flag"], str(n), exe, f"--ordo-journal={journal}",
                             f"--ordo-vendor={adapter['name']}", f"--ordo-variant={vname}",
                             f"--ordo-seed={settings['seed']}", f"--ordo-case-timeout={settings['case_timeout']}",
                             f"--ordo-adapter={adapter['_path']}"] + select_flag(variant) +
                            ([f"--gtest_filter={settings['only']}"] if settings.get("only") else []))
                    if waivers.is_file():
                        base.append(f"--ordo-waivers={waivers}")
                    run_job(base, name, n, out, journal, adapter, settings["max_restarts"], variant=vname,
                            skip=skip, logdir=logdir, on_start=on_start)
                dt = time.time() - t0
                new = read_journal(journal, k)
                done_event = {"job": key, "event": "done", "seconds": round(dt, 3), "ranks": n, "executable": name,
                              "variant": vname}
                if vname == "default":
                    done_event["seen"] = sorted({(r["case"].get("routine"), r["case"].get("mode"),
                                                  case_kind(r["case"]))
                                                 for r in read_journal(journal, start_event["offset"])
                                                 if isinstance(r.get("case"), dict)})
                    seen[(n, name)] = [tuple(x) for x in done_event["seen"]]
                if pattern:
                    hits = []
                    for log in sorted(logdir.glob(f"{name}-{n}ranks*.log")):
                        hits += [l for l in log.read_text(errors="replace").splitlines() if re.search(pattern, l)]
                    done_event["fallback_lines"] = len(hits)
                    if hits:
                        vrow["fallback_jobs"].append({"job": f"{name}@{n}", "lines": len(hits),
                                                      "example": hits[0][:300]})
                append_line(progress_path, json.dumps(done_event, sort_keys=True))
                c = summarize(new)
                label = "" if vname == "default" else f"{vname} "
                print(f"  [{label}{n} ranks] {name:28} {len(new):5d} checks  " +
                      "  ".join(f"{v} {o}" for o, v in sorted(c.items())) + f"  {dt:6.1f} s", flush=True)
            recs = read_journal(journal, before)
            dt_n = time.time() - t_n
            vrow["seconds"] += dt_n
            run["per_rank_count"].append({"variant": vname, "ranks": n, "seconds": round(dt_n, 2),
                                          "outcomes": summarize(recs)})
            write_json_atomic(out / "run.json", run)
    records = read_journal(journal)
    run["end"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    run["summary"] = summarize(records)
    run["variant_outcomes"] = variant_outcomes(records, per_variant)
    write_json_atomic(out / "run.json", run)
    print(f"\n{'variant':40} {'ranks':>5} {'seconds':>8}  outcomes")
    for row in run["per_rank_count"]:
        print(f"{row.get('variant', 'default'):40} {row['ranks']:>5} {row['seconds']:>8.1f}  " +
              ", ".join(f"{v} {o}" for o, v in sorted(row["outcomes"].items())))
    if len(chosen) > 1:
        print("\n" + format_variant_outcomes(run["variant_outcomes"]))
    print(f"total: {len(records)} checks: " + ", ".join(f"{v} {o}" for o, v in sorted(run["summary"].items())))
    table = coverage_table(records)
    (out / "coverage.txt").write_text(table)
    print("\n" + table)
    print(f"journal: {journal}\nrun:     {out / 'run.json'}")
    write_run_reports(out)
    bad = sum(run["summary"].get(o, 0) for o in ("fail", "crash", "timeout", "corrupt"))
    return EXIT_FAIL if bad else EXIT_OK


def write_json_atomic(path, document):
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except OSError as e:
        raise OrdoError(f"cannot write {path}: {e.strerror}; make room (or fix the folder), then "
                        f"`./ordo run --resume {path.parent}` finishes the run", EXIT_INFRA)


def variant_outcomes(records, per_variant):
    """Per variant: its outcomes and the checks that went wrong under it."""
    rows = {}
    for r in records:
        v = r.get("variant") or "default"
        row = rows.setdefault(v, {"variant": v, "outcomes": {}, "bad": []})
        o = r.get("outcome")
        row["outcomes"][o] = row["outcomes"].get(o, 0) + 1
        if o in ("fail", "crash", "timeout", "corrupt", "waived"):
            row["bad"].append({"id": r.get("id"), "outcome": o, "ranks": r.get("ranks"), "clause": r.get("clause"),
                               "waiver": r.get("waiver")})
    for v, extra in per_variant.items():
        row = rows.setdefault(v, {"variant": v, "outcomes": {}, "bad": []})
        row.update({k: extra[k] for k in ("seconds", "fallback_jobs", "skipped_jobs")})
    return [rows[k] for k in sorted(rows, key=lambda x: (x != "default", x))]


def format_variant_outcomes(rows):
    lines = [f"{'variant':44} {'checks':>7} {'pass':>7} {'waived':>6} {'fail':>5} {'crash':>5} {'timeout':>7}"
             f"  fell back   failing checks"]
    for row in rows:
        o = row["outcomes"]
        failing = sorted({b["id"].split("#")[0] for b in row["bad"] if b["outcome"] != "waived"})
        fb = sum(f["lines"] for f in row.get("fallback_jobs", []))
        lines.append(f"{row['variant']:44} {sum(o.values()):>7} {o.get('pass', 0):>7} {o.get('waived', 0):>6} "
                     f"{o.get('fail', 0):>5} {o.get('crash', 0):>5} {o.get('timeout', 0):>7}  "
                     f"{(str(fb) + ' msgs') if fb else '-':10}  " +
                     (", ".join(failing[:4]) + (f" (+{len(failing) - 4})" if len(failing) > 4 else "")))
    return "\n".join(lines)


# ---- test ----------------------------------------------------------------

def cmd_test(args):
    t_all = time.time()
    results = []
    vendors = args.vendors.split(",") if args.vendors else ["mpich", "openmpi"]
    adapters = [load_adapter(v) for v in vendors]
    for a in adapters:
        require_tools(a)
    for i, a in enumerate(adapters):
        bdir, _ = build(a, reference_tests=(i == 0))
        t0 = time.time()
        log = bdir / "ordo-ctest.log"
        cmd = ["ctest", "--test-dir", str(bdir), "--output-on-failure", "-j", "2", "--timeout", "600"]
        print(f"ordo: ctest against {a['name']} (log: {log})", flush=True)
        with open(log, "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
        text = log.read_text(errors="replace")
        summary = [l for l in text.splitlines() if "tests passed" in l or "tests failed" in l]
        print("  " + (summary[-1] if summary else f"ctest exited with {rc}"), flush=True)
        if rc != 0:
            failed = [l for l in text.splitlines() if "***Failed" in l or "***Timeout" in l or "(Failed)" in l]
            print("\n".join("  " + l for l in failed[:40]), flush=True)
        results.append((f"ctest {a['name']}", rc, time.time() - t0))
    t0 = time.time()  # the mutant vendor: every injected fault must be caught (tools/mutants.py)
    print("ordo: mutants", flush=True)
    rc = subprocess.call([sys.executable, str(ROOT / "tools" / "mutants.py")])
    results.append(("mutants", rc, time.time() - t0))
    t0 = time.time()  # after the builds: the reliability tests run real jobs in them
    py = [sys.executable, "-m", "pytest", "-q", "-rs", str(ROOT / "tools" / "tests")]
    print("ordo: python tests", flush=True)
    rc = subprocess.call(py, cwd=str(ROOT))
    results.append(("pytest tools/tests", rc, time.time() - t0))
    print(f"\n{'suite':24} {'result':8} {'seconds':>8}")
    for name, rc, dt in results:
        print(f"{name:24} {'pass' if rc == 0 else 'FAIL':8} {dt:8.1f}")
    print(f"total {time.time() - t_all:.0f} s")
    return EXIT_OK if all(rc == 0 for _, rc, _ in results) else EXIT_FAIL


# ---- replay --------------------------------------------------------------

def cmd_replay(args):
    adapter = load_adapter(args.vendor)
    ranks = parse_ranks(args.ranks)
    if len(ranks) != 1:
        raise OrdoError("--ranks takes one rank count for replay")
    clause = args.clause or "replay"
    if args.record:
        path, _, rid = args.record.rpartition(":")
        records = [r for r in read_journal(pathlib.Path(path)) if r.get("id") == rid]
        if not records or not records[0].get("case"):
            raise OrdoError(f"no record with a case and id '{rid}' in {path}")
        case_json = json.dumps(records[0]["case"])
        clause = records[0].get("clause", clause)
        ranks = [records[0].get("ranks", ranks[0])]
    elif args.case:
        case_json = args.case
    else:
        raise OrdoError("replay needs --case '<json>' or --record JOURNAL:ID")
    try:
        if not isinstance(json.loads(case_json), dict):
            raise ValueError("not an object")
    except ValueError as e:
        raise OrdoError(f"--case is not a JSON object: {e}")
    user_env = parse_env(args.env)
    bdir, prefix = build(adapter, reference_tests=False, user_env=user_env, plain_launch=args.plain_launch,
                         quiet=True)
    cmd = (["timeout", "-k", "5", str(args.timeout)] + prefix +
           [adapter["launcher"]["np_flag"], str(ranks[0]), str(bdir / "conformance" / "ordo_replay"),
            f"--ordo-case={case_json}", f"--ordo-clause={clause}", f"--ordo-vendor={adapter['name']}"])
    rc = subprocess.call(cmd)
    return EXIT_OK if rc == 0 else (EXIT_FAIL if rc == 1 else EXIT_INFRA)


# ---- list / doctor ---------------------------------------------------------

def cmd_list(args):
    if args.what == "vendors":
        for v in known_vendors():
            a = load_adapter(v)
            print(f"{v:18} {'tested here' if a.get('tested_here') else 'not tested here':16} {a.get('description', '')}")
    elif args.what == "clauses":
        spec = json.loads((ROOT / "spec" / "clauses.json").read_text())
        for slug, c in sorted(spec["clauses"].items()):
            print(f"{slug:40} §{c['section']:12} {c['paraphrase']}")
    elif args.what == "variants":
        import variants as variants_mod
        adapter = load_adapter(args.vendor)
        try:
            found = variants_mod.discover(adapter)
        except variants_mod.VariantError as e:
            raise OrdoError(str(e))
        for v in [variants_mod.DEFAULT] + found:
            targets = ", ".join(f"{t.get('routine')}/{'+'.join(t.get('modes') or ['*'])}/{t.get('comm', 'any')}"
                                for t in v.get("targets") or []) or "every case"
            env = " ".join(f"{k}={val}" for k, val in v.get("env", {}).items())
            print(f"{v['name']:44} {targets:40} {env}")
        print(f"{len(found)} variants besides default ({adapter['name']})")
    else:
        return subprocess.call([sys.executable, str(ROOT / "tools" / "lint_clauses.py"), str(ROOT)])
    return EXIT_OK


def cmd_doctor(args):
    ok = True
    rc = subprocess.call([str(ROOT / "tools" / "install-deps.sh"), "--check"])
    print(f"{'Debian packages':28} {'ok' if rc == 0 else 'missing (see above)'}")
    ok &= rc == 0
    for v in known_vendors():
        a = load_adapter(v)
        try:
            require_tools(a)
            print(f"{'MPI library ' + v:28} ok")
        except OrdoError as e:
            print(f"{'MPI library ' + v:28} {e}")
            ok = False
    for mod, pkg in (("jsonschema", "python3-jsonschema"), ("jinja2", "python3-jinja2"), ("pytest", "python3-pytest")):
        try:
            __import__(mod)
            print(f"{'python module ' + mod:28} ok")
        except ImportError:
            print(f"{'python module ' + mod:28} missing: sudo apt-get install -y {pkg}")
            ok = False
    print(f"{'cores':28} {os.cpu_count()}")
    return EXIT_OK if ok else EXIT_USAGE


# ---- main ----------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(prog="ordo", description="Conformance suite for the reduction semantics of MPI.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run the conformance checks against an MPI library")
    r.add_argument("--vendor", default="mpich", help="mpich, openmpi, or a site adapter file (default: mpich)")
    r.add_argument("--ranks", default=DEFAULT_RANKS, help=f"rank counts, e.g. 1,2,3 or 1-8 (default: {DEFAULT_RANKS})")
    r.add_argument("--out", help="output folder (default: out/run-<vendor>-<time>)")
    r.add_argument("--env", action="append", metavar="K=V", help="add to the environment of every rank (repeatable)")
    r.add_argument("--seed", type=int, default=1, help="base seed of the inputs (default: 1)")
    r.add_argument("--timeout", type=int, default=600, help="seconds allowed per check executable and rank count")
    r.add_argument("--filter", help="run only the check executables whose name contains this text")
    r.add_argument("--only", metavar="GLOBS",
                   help="run only the checks (GoogleTest names, e.g. 'Reduce.*:Scan.*') that match")
    r.add_argument("--case-timeout", type=float, default=60, help="seconds allowed per case (default: 60)")
    r.add_argument("--max-restarts", type=int, default=50,
                   help="resumptions of one executable after crashes or timeouts (default: 50)")
    r.add_argument("--plain-launch", action="store_true", help="do not apply the adapter's launch settings")
    r.add_argument("--variants", default="default",
                   help="algorithm variants: default, all, or names/patterns a,b,c (see `ordo list variants`)")
    r.add_argument("--property-budget", default="20",
                   help="property phase: N cases per rank count, or Ns seconds in all; 0 turns it off (default: 20)")
    r.add_argument("--resume", metavar="DIR", help="finish an interrupted run in DIR (its settings are reused)")
    r.set_defaults(func=cmd_run)

    j = sub.add_parser("job", help=argparse.SUPPRESS)  # one executable at one rank count (CTest)
    j.add_argument("--vendor", required=True)
    j.add_argument("--build-dir", required=True)
    j.add_argument("--ranks", type=int, required=True)
    j.add_argument("--out", required=True)
    j.add_argument("--timeout", type=int, default=600)
    j.add_argument("--case-timeout", type=float, default=60)
    j.add_argument("executable")
    j.set_defaults(func=cmd_job)

    t = sub.add_parser("test", help="build and run the project's own tests")
    t.add_argument("--vendors", help="comma-separated vendors to test against (default: mpich,openmpi)")
    t.set_defaults(func=cmd_test)

    rp = sub.add_parser("replay", help="run one case again")
    rp.add_argument("--vendor", default="mpich")
    rp.add_argument("--ranks", default="2")
    rp.add_argument("--case", help="the case as JSON, as printed by a failure")
    rp.add_argument("--record", metavar="JOURNAL:ID", help="a record of a journal, by id")
    rp.add_argument("--clause", help="the clause to report the case under")
    rp.add_argument("--env", action="append", metavar="K=V")
    rp.add_argument("--timeout", type=int, default=120)
    rp.add_argument("--plain-launch", action="store_true")
    rp.set_defaults(func=cmd_replay)

    ls = sub.add_parser("list", help="list vendors, clauses or checks")
    ls.add_argument("what", choices=["vendors", "clauses", "checks", "variants"])
    ls.add_argument("--vendor", default="mpich", help="the library whose variants to list (default: mpich)")
    ls.set_defaults(func=cmd_list)

    d = sub.add_parser("doctor", help="is the environment ready, and what to install")
    d.set_defaults(func=cmd_doctor)

    import mutants  # tools/mutants.py: the mutant vendor's driver
    mu = sub.add_parser("mutants", help="run the checks against every mutant of vendors/mutants")
    mutants.add_arguments(mu)
    mu.set_defaults(func=mutants.run)

    import bench  # tools/bench.py: the suite's own benchmarks in one table
    be = sub.add_parser("bench", help="the suite's benchmarks in one table (fold, properties, runs, mutants)")
    bench.add_arguments(be)
    be.set_defaults(func=bench.run)

    add_report_parsers(sub)

    args = p.parse_args(argv)
    if not args.command:
        p.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except OrdoError as e:
        print(f"ordo: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("ordo: interrupted", file=sys.stderr)
        return EXIT_INFRA


# ---- reports: report / compare / gate / package (reports/) ---------------------

def _reports():
    """The reports package, or one line naming the Debian package that is missing."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from reports import deps
    try:
        deps.require("jsonschema", "jinja2")
    except deps.MissingModule as e:
        raise OrdoError(str(e))
    import reports.results
    import reports.views
    return reports


def _report_error(e):
    return OrdoError(str(e), EXIT_USAGE)


def write_run_reports(out):
    """At the end of `ordo run`: results.json and every view; a failure here never loses the journal."""
    try:
        rep = _reports()
        report, paths = rep.views.write_for_output_folder(out)
    except Exception as e:  # the run's own results are safe in journal.jsonl
        print(f"ordo: the report could not be written ({e}); `ordo report {out}` tries again", file=sys.stderr)
        return None
    print(f"report:  {paths['html']} ({report['summary']['verdict']})\n"
          f"         {paths['results']}, {paths['markdown'].name}, {paths['junit'].name}")
    return paths


def cmd_report(args):
    rep = _reports()
    src = pathlib.Path(args.source)
    try:
        if src.is_dir() and (src / "journal.jsonl").is_file():
            dest = pathlib.Path(args.out) if args.out else src
            dest.mkdir(parents=True, exist_ok=True)
            report, results_path = rep.results.write(src, dest / rep.results.RESULTS_NAME)
        else:
            report = rep.results.load(src)
            results_path = src / rep.results.RESULTS_NAME if src.is_dir() else src
            dest = pathlib.Path(args.out) if args.out else results_path.parent
        paths = rep.views.write_all(report, dest)
    except rep.results.ReportError as e:
        raise _report_error(e)
    except OSError as e:
        raise OrdoError(f"cannot write the report: {e}")
    s = report["summary"]
    print(f"ordo: {report['run']['vendor']}: {s['verdict']}" + (" (PARTIAL run)" if report["partial"] else "") +
          f", {s['total']} checks: " + ", ".join(f"{n} {o}" for o, n in sorted(s["outcomes"].items())))
    print(f"results: {results_path}")
    for kind in ("html", "markdown", "junit"):
        print(f"{kind + ':':8} {paths[kind]}")
    corrupt = s["outcomes"].get("corrupt", 0)
    if corrupt:  # written, and yet not a clean report: say so in the exit code
        raise OrdoError(f"{corrupt} journal line(s) of {src} could not be read (a write cut short?); the report is "
                        f"written and marked partial; `./ordo run --resume {src}` sets a cut last line aside and "
                        f"finishes the run", EXIT_INFRA)
    return EXIT_OK


def cmd_compare(args):
    rep = _reports()
    import reports.html
    if len(args.runs) < 2:
        raise OrdoError("compare needs at least two runs (output folders or results.json files)")
    try:
        loaded = [rep.results.obtain(r) for r in args.runs]
        page = reports.html.render_compare(loaded, [str(r) for r in args.runs])
    except rep.results.ReportError as e:
        raise _report_error(e)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    dest = pathlib.Path(args.out or ROOT / "out" / f"compare-{stamp}")
    try:
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "compare.html").write_text(page)
    except OSError as e:
        raise OrdoError(f"cannot write {dest / 'compare.html'}: {e.strerror}")
    for r, path in zip(loaded, args.runs):
        print(f"  {r['run']['vendor']:10} {r['summary']['verdict']:24} {r['summary']['total']:6d} checks  {path}")
    print(f"comparison: {dest / 'compare.html'}")
    return EXIT_OK


def cmd_gate(args):
    rep = _reports()
    import reports.gate
    try:
        today = (datetime.date.fromisoformat(args.today) if args.today
                 else datetime.datetime.now(datetime.timezone.utc).date())
    except ValueError:
        raise OrdoError(f"--today '{args.today}' is not a date of the form YYYY-MM-DD")
    try:
        baseline = rep.results.obtain(args.baseline)
        new = rep.results.obtain(args.new)
        if args.waivers:
            waivers, source = reports.gate.load_waivers(args.waivers), args.waivers
        else:
            waivers, source = reports.gate.default_waivers(new)
    except rep.results.ReportError as e:
        raise _report_error(e)
    decision = reports.gate.compare(baseline, new, waivers, today)
    print(reports.gate.format_decision(decision, args.baseline, args.new, baseline, new, source))
    return EXIT_OK if decision["passed"] else EXIT_FAIL


def cmd_package(args):
    rep = _reports()
    import reports.package
    try:
        report, files = reports.package.make(args.source, args.dest)
    except rep.results.ReportError as e:
        raise _report_error(e)
    except OSError as e:
        raise OrdoError(f"cannot write the package: {e}")
    dest = pathlib.Path(args.dest).resolve()
    print(f"ordo: package of {report['run']['vendor']} ({report['summary']['verdict']}): {len(files)} files in {dest}")
    rc = subprocess.call([sys.executable, str(dest / "verify.py"), str(dest)])
    return EXIT_OK if rc == 0 else EXIT_INFRA


def add_report_parsers(sub):
    rp = sub.add_parser("report", help="write results.json and the HTML / Markdown / JUnit views of a run",
                        description="Builds results.json from an output folder (run.json + journal.jsonl; a run "
                                    "without an end is reported as partial) and writes report.html, summary.md "
                                    "and junit.xml next to it; or re-generates the views of a results.json.")
    rp.add_argument("source", metavar="OUT", help="an output folder of `ordo run`, or a results.json")
    rp.add_argument("--out", metavar="DIR", help="write into DIR instead of next to the source")
    rp.set_defaults(func=cmd_report)

    cp = sub.add_parser("compare", help="several runs side by side in one HTML page",
                        description="Writes DIR/compare.html: verdicts, clauses, heat maps and every check whose "
                                    "outcome differs, one column per run (and variant).")
    cp.add_argument("runs", nargs="+", metavar="OUT", help="output folders or results.json files")
    cp.add_argument("--out", metavar="DIR", help="output folder (default: out/compare-<time>)")
    cp.set_defaults(func=cmd_compare)

    gp = sub.add_parser("gate", help="exit 1 when a run got worse than a baseline",
                        description="Exit 0: nothing got worse. Exit 1: a check that passed (or was waived or "
                                    "skipped, or is new) now fails, crashes or times out; a waiver has no reason, "
                                    "no expiry date, or has expired; or the new run is partial. Exit 2: a file "
                                    "cannot be read or does not follow its schema.")
    gp.add_argument("--baseline", required=True, metavar="OLD", help="the baseline: results.json or output folder")
    gp.add_argument("new", metavar="NEW", help="the new run: results.json or output folder")
    gp.add_argument("--waivers", metavar="FILE",
                    help="waivers file (default: vendors/<vendor>/waivers.json of the new run's vendor)")
    gp.add_argument("--today", metavar="YYYY-MM-DD", help="judge waiver expiry on this date (default: today, UTC)")
    gp.set_defaults(func=cmd_gate)

    pp = sub.add_parser("package", help="the procurement package of a run, with its verifier",
                        description="Writes into DEST the report, results.json, the adapter used, the exact "
                                    "commands, the suite's commit and git status, the raw output, a statement "
                                    "template to sign, and verify.py (checksums and schema); then verifies it.")
    pp.add_argument("source", metavar="OUT", help="an output folder of `ordo run`, or a results.json")
    pp.add_argument("--dest", required=True, metavar="DIR", help="a new (or empty) folder for the package")
    pp.set_defaults(func=cmd_package)


if __name__ == "__main__":
    sys.exit(main())

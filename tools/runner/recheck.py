"""`ordo findings --recheck` (#36): every reproducer of vendors/*/findings/
against each newer release of its library, and what it shows there.

The host (the release the findings were found on) is the control; each
--system NAME is a root of another Debian release (`ordo systems`), where
the same plan runs again inside the root (systems.run_inside). The plan of a
finding is made on the host: one run per variant its waivers name (the
variant the host's own list gives that pattern, chosen by the header's launch
line that sets its variables; that line gives the process count and the
arguments) and one under the library's own choice when a waiver names no
variant. A reproducer of several modes shows each waiver's bug in one: a
waiver's "reproducer_args" (and "reproducer_ranks") give that run its own
arguments, and --apply reads each waiver's own run only. Each run builds
the reproducer with the release's wrapper and launches it under the
release's launcher (findings.build_and_run: the MPI
lock of ORDO_MPI_LOCK, --timeout).

What a run shows: it fails (a nonzero exit, a signal, an abort or the time
limit), passes (exit 0), or is not applicable (it does not build there, or
the variant is not among the release's variants, or one of its variables is
not among the release's control variables: MPICH ignores an unknown CVAR, so
without that check a gone algorithm would read as fixed). The status of a
finding x release: on the host `present` or `not reproduced`; on a newer
release `present`, `fixed` (passes where the host's control is present),
`not reproduced` (passes, and the control did not show the bug either) or
`not applicable`.

--repeat N runs each N times: a finding that fails some times and passes
others is `intermittent` there. Each failed run has a kind, in the words of a
waiver's outcome: timeout (the time limit, or an exit code the header gives a
hang), crash (a signal, an abort the output shows) or fail (another nonzero
exit: the reproducer's report of a wrong result).

--apply extends the library_versions of a waiver with a newer release's
version string (the adapter's version command in that root), editing only
that field of vendors/<v>/waivers.json, where the waiver's run is present
there in each of at least MIN_RUNS runs and each run's failure is one the
waiver covers: its kind among the waiver's outcomes and, for a crash or a
timeout, the waiver's signature shown by the run (decisions()).
"""
import collections
import datetime
import fnmatch
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from . import ROOT, findings, protocol, systems
from . import variants as variants_mod
from .adapters import build_dir_for, launcher_prefix, load_adapter
from .errors import EXIT_OK, EXIT_USAGE, OrdoError
from .launch import job_command, outer_timeout

SCHEMA = "ordo.findings-recheck/1"
PRESENT, FIXED, INTERMITTENT = "present", "fixed", "intermittent"
NOT_APPLICABLE, NOT_REPRODUCED = "not applicable", "not reproduced"
FAILS, PASSES = "fails", "passes"
VARIES = "varies"  # a run repeated: failed some times, passed others
TAIL_LINES = 6  # lines of a run's output kept as evidence (its end)
TAIL_WIDTH = 240  # characters of each
HANG_RE = re.compile(r"\bhang", re.I)
ENV_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# What the libraries and launchers print when a process ends abnormally.
ABORTED = re.compile(
    r"Abort\(\d+\) on node|Assertion failed|Assertion .* failed|"
    r"YOUR APPLICATION TERMINATED|"
    r"MPI_ABORT was invoked|exited due to process rank|Segmentation fault|"
    r"free\(\): invalid|double free|malloc\(\): |corrupted (size|double)"
)
# The lines of a run's output that say how it ended (kept as evidence, and
# what a waiver's signature is matched against, with the run's exit).
SIGNS = re.compile(protocol.DEATH_WORDS + r"|\bhang|not returned|EXIT STRING")
SIGN_LINES = 12
# The failure kinds, in the words of a waiver's outcome.
FAIL, CRASH, TIMEOUT = "fail", "crash", "timeout"
# --apply extends a waiver from a release only where its reproducer failed in
# each of at least this many runs there, each failure one the waiver covers.
MIN_RUNS = 3
HANG_WORDS = re.compile(r"\bhang(?:s|ing)?\b|\bnot returned\b|\balarm\b", re.I)
# A stated exit code whose clause says the library lacks what the reproducer
# needs ("4 when the library has no MPI_Reduce_init"): the run could not try
# the bug there.
LACKS_WORDS = re.compile(
    r"\b(?:has|have) no\b|\black(?:s|ing)?\b|\bdoes not (?:have|provide|offer)\b|"
    r"\bnot (?:available|provided|supported)\b",
    re.I,
)
# A stated exit code whose clause says the error was reported, at another
# process than the one that exits with it ("5 when it has not returned after
# 20 s while another process returned the error (the error is reported: ...)"):
# the library detected the erroneous call, which ordo's DETECT checks count as
# reported ("reported on k of n ranks"), so the run passes.
REPORTED_WORDS = re.compile(r"\bthe error is reported\b", re.I)
COMPILER_ERROR = re.compile(r"\b(error|Error|fatal)\b|undefined reference")


# ---- the plan: which runs each finding gets -----------------------------------


def line_env(line):
    """The variables a launch line sets: VAR=value words before the launcher,
    -genv/-env K V (Hydra), -x K=V and --mca k v (Open MPI: OMPI_MCA_k)."""
    env, words = {}, line.split()
    i = 0
    while i < len(words):
        w = words[i]
        m = ENV_WORD.match(w)
        if m:
            env[m.group(1)] = m.group(2)
        elif w in ("-genv", "-env") and i + 2 < len(words):
            env[words[i + 1]] = words[i + 2]
            i += 2
        elif w in ("--mca", "-mca") and i + 2 < len(words):
            env["OMPI_MCA_" + words[i + 1]] = words[i + 2]
            i += 2
        elif w == "-x" and i + 1 < len(words):
            m = ENV_WORD.match(words[i + 1])
            if m:
                env[m.group(1)] = m.group(2)
            i += 1
        if re.search(r"\./(repro|a\.out)\b", w):
            break
        i += 1
    return env


def shell_variables(head):
    """The header's own shell variables (NAME="..." over several lines, or
    NAME=word), their values on one line; AGENT is ordo's launch agent of
    virtual nodes unless the header says otherwise."""
    out = {"AGENT": "vendors/launchers/virtual-node-agent.sh"}
    for m in re.finditer(
        r'^\s*([A-Z][A-Z0-9_]*)=(?:"([^"]*)"|(\S+))', head, re.M | re.S
    ):
        value = m.group(2) if m.group(2) is not None else m.group(3)
        out[m.group(1)] = " ".join(value.replace("\\\n", " ").split())
    return out


def expand(line, names):
    for _ in range(3):  # a variable's value may name another ($L names $AGENT)
        line = re.sub(
            r"\$\{?([A-Z][A-Z0-9_]*)\}?",
            lambda m: names.get(m.group(1), m.group(0)),
            line,
        )
    return line


def launch_lines(head):
    """Each launch line of the header, its shell variables expanded: {"line",
    "env", "ranks", "args", "flags", "hosts"} (the ranks, arguments and
    compile flags as findings.launch_plan reads them of that line alone;
    hosts: the line places its ranks on (virtual) hosts). A line that sets
    variables and runs ./repro "(under mpiexec)" counts as a launch at 2."""
    compiles, launches = findings.header_commands(head)
    names = shell_variables(head)
    logical = findings.header_commands(head.replace("./repro", "mpiexec ./repro"))[1]
    for line in logical:
        bare = line.replace("mpiexec ./repro", "./repro")
        if (
            bare not in launches
            and "under mpiexec" in bare
            and re.match(r"^(?:[A-Z_][A-Z0-9_]*=\S+\s+)+\./repro\b", bare)
        ):
            launches.append(bare.replace("./repro", "mpiexec -n 2 ./repro", 1))
    out = []
    for line in launches:
        line = expand(line, names)
        ranks, args, flags = findings.launch_plan("\n".join(compiles[:1] + [line]))
        out.append(
            {
                "line": line,
                "env": line_env(line),
                "ranks": ranks,
                "args": args,
                "flags": flags,
                "hosts": bool(re.search(r"\s(-hosts?|--host|--hostfile)\s", line)),
                "placement": placement_flags(line),
            }
        )
    if not out:
        ranks, args, flags = findings.launch_plan(head)
        out.append(
            {
                "line": None,
                "env": {},
                "ranks": ranks,
                "args": args,
                "flags": flags,
                "hosts": False,
                "placement": [],
            }
        )
    return out


def placement_flags(line):
    """The launcher's own flags of a line that places its ranks on (virtual)
    hosts: the words between the launcher and -n, less the variables it sets
    (-genv, -env, -x, --mca coll*: the run's variables); a relative path of
    the checkout (ordo's launch agent) made absolute. [] for another line."""
    words = line.split()
    at = next(
        (i for i, w in enumerate(words) if re.match(r"(mpiexec|mpirun)\S*$", w)), None
    )
    if at is None or not re.search(r"\s(-hosts?|--host|--hostfile)\s", line):
        return []
    out, i = [], at + 1
    while i < len(words) and words[i] not in ("-n", "-np"):
        w = words[i]
        if w in ("-genv", "-env") or (
            w in ("--mca", "-mca") and "".join(words[i + 1 : i + 2]).startswith("coll")
        ):
            i += 3
            continue
        if w == "-x":
            i += 2
            continue
        if not w.startswith("-") and "/" in w and (ROOT / w).exists():
            w = str(ROOT / w)
        out.append(w)
        i += 1
    return out


def host_files(head):
    """{name: text} of the files the header writes with printf '...' > NAME
    (a host file)."""
    return {
        m.group(2): m.group(1).encode().decode("unicode_escape")
        for m in re.finditer(r"printf\s+'([^']*)'\s*>\s*(\S+)", head)
    }


def _agreement(variant, line):
    env = line["env"]
    return sum(
        1
        for k, v in (variant.get("env") or {}).items()
        if k in env and str(env[k]).lower() == str(v).lower()
    )


# The variables of a header's line a run takes besides its variant's: the
# library's control variables (MPICH's cliques: ranks on virtual nodes) and
# glibc's heap settings (MALLOC_PERTURB_: a heap fault shows), not
# a launcher's own (a host file, an agent), nor another algorithm's choice.
LINE_VARIABLES = re.compile(r"^(MPIR_CVAR_\w+|OMPI_MCA_coll\w*|MALLOC_\w+)$")
# The reduction routines a reproducer may take as its first argument.
ROUTINES = (
    "reduce",
    "allreduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
)


def routine_argument(args, variant):
    """args with a leading routine name replaced by the variant's routine when
    the line was written for another (the reproducer takes the routine as its
    first argument: "reduce", "ireduce", ...)."""
    names = ROUTINES + tuple("i" + r for r in ROUTINES)
    targets = (variant or {}).get("targets") or []
    if not args or args[0] not in names or len(targets) != 1:
        return args
    routine, modes = targets[0]["routine"], targets[0].get("modes") or []
    want = routine if "blocking" in modes else "i" + routine
    return args if args[0] in (routine, "i" + routine) else [want] + args[1:]


def is_default(waiver):
    """Does the waiver name the library's own choice: no variant, or a pattern
    that matches "default" (the name its records carry)."""
    v = waiver.get("variant")
    return not v or fnmatch.fnmatchcase("default", str(v))


def own_args(waiver):
    """The arguments with which the reproducer shows this waiver's bug (its
    "reproducer_args": a reproducer of several modes shows each waiver's bug
    in one of them), or None: the header's line chosen for the run."""
    args = waiver.get("reproducer_args")
    return [str(a) for a in args] if isinstance(args, list) else None


def own_ranks(waiver):
    """The process count at which the reproducer shows this waiver's bug (its
    "reproducer_ranks"), or None: the chosen line's."""
    n = waiver.get("reproducer_ranks")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def plan(finding, known, head):
    """The runs of one finding: [{"variant", "patterns", "waivers", "env",
    "ranks", "args", "flags", "line", "note"}] (one run per distinct variant,
    process count and arguments; env: the line's own control variables;
    waivers: the ids of the waivers the run stands for, whose --apply reads
    it); known: the host's variants (None when they could not be listed). A
    waiver with "reproducer_args" has a run with those arguments (and the
    process count of the header's line that has them, or its own
    "reproducer_ranks"): the run of another mode would be no evidence of its
    bug."""
    lines = launch_lines(head)

    runs: list[dict] = []

    def add(
        variant, pattern, line, note=None, args=None, extra=True, waivers=(), ranks=None
    ):
        notes = [note] if note else []
        if line["hosts"]:
            notes.append(
                "the header's line places the ranks on (virtual) hosts: "
                "its launcher flags are given"
            )
        venv = (variant or {}).get("env") or {}
        spec = {
            "variant": (variant or {}).get("name"),
            "patterns": [pattern] if pattern else [],
            "waivers": [w for w in waivers if w],
            "env": {
                k: v
                for k, v in line["env"].items()
                if extra
                and LINE_VARIABLES.match(k)
                and not re.search("algorithm", k, re.I)
                and k not in venv
                and "$" not in v
            },
            "ranks": line["ranks"] if ranks is None else ranks,
            "args": line["args"] if args is None else args,
            "flags": line["flags"],
            "launcher_flags": line.get("placement") or [],
            "files": {
                k: v for k, v in host_files(head).items() if k in line["placement"]
            },
            "line": line["line"],
            "note": "; ".join(notes) or None,
        }
        if variant is None and pattern:
            spec["unmatched"] = True
        for r in runs:
            same = ("variant", "env", "ranks", "args", "flags")
            if all(r[k] == spec[k] for k in same) and not spec.get("unmatched"):
                r["patterns"] += [p for p in spec["patterns"] if p not in r["patterns"]]
                r["waivers"] += [w for w in spec["waivers"] if w not in r["waivers"]]
                return
        runs.append(spec)

    def with_args(candidates, args):
        """The lines whose arguments are the waiver's own (all of them when
        the waiver names none), and a note when no line has them."""
        if args is None:
            return candidates, None
        own = [ln for ln in candidates if ln["args"] == args]
        if own:
            return own, None
        return candidates, (
            f"no launch line of the header has the waiver's arguments "
            f"{' '.join(args)} and it names no process count: that of another line"
        )

    # the lines that set no variable: the library's own choice
    plain = [ln for ln in lines if not ln["env"]] or lines
    if not finding["waivers"]:
        add(None, None, plain[0])
    for w in finding["waivers"]:
        if not is_default(w):
            continue
        args = own_args(w)
        chosen, note = with_args(plain, args)
        if args is not None and note:
            chosen, note = with_args(lines, args)
        add(
            None,
            None,
            chosen[0],
            note=note if own_ranks(w) is None else None,
            args=args,
            waivers=[w.get("id")],
            ranks=own_ranks(w),
        )
    # One run per variant pattern and arguments, standing for its waivers.
    groups: dict = {}
    for w in finding["waivers"]:
        if is_default(w):
            continue
        args = own_args(w)
        key = (str(w["variant"]), None if args is None else tuple(args), own_ranks(w))
        groups.setdefault(key, []).append(w.get("id"))
    for (p, args, ranks), ids in groups.items():
        args = None if args is None else list(args)
        matched = [v for v in known or [] if fnmatch.fnmatchcase(v["name"], p)]
        if not matched:
            add(
                None,
                p,
                lines[0],
                "the waiver's variant pattern names no variant of the "
                "release it was found on",
                waivers=ids,
            )
            continue
        candidates, note = with_args(lines, args)
        best = max(
            (
                (_agreement(v, ln), -i, -j, v, ln)
                for i, v in enumerate(matched)
                for j, ln in enumerate(candidates)
            ),
            key=lambda t: t[:3],
        )
        # The line's own variables go with it only when it is the variant's line.
        add(
            best[3],
            p,
            best[4],
            note=note if ranks is None else None,
            args=routine_argument(best[4]["args"], best[3]) if args is None else args,
            extra=best[0] > 0,
            waivers=ids,
            ranks=ranks,
        )
    return runs


def host_variants(adapter):
    try:
        return variants_mod.discover(adapter), None
    except variants_mod.VariantError as e:
        return None, str(e)


def make_plans(vendors, root=ROOT):
    """{vendor: [{"id", "path", "hang", "runs"}]} of the vendors' findings."""
    out = {}
    for vendor in vendors:
        adapter = load_adapter(vendor)
        known, _ = host_variants(adapter)
        items = []
        for f in findings.find_all(root):
            if f["vendor"] != vendor:
                continue
            head = findings.header(root / f["path"])
            items.append(
                {
                    "id": f["id"],
                    "path": f["path"],
                    "hang": is_hang(f, head),
                    "runs": plan(f, known, head),
                }
            )
        out[vendor] = items
    return out


def is_hang(finding, head):
    """A finding whose bug is (or may be) a hang: a waiver's outcome timeout,
    or the header speaks of a hang."""
    return any("timeout" in findings.outcomes(w) for w in finding["waivers"]) or bool(
        HANG_RE.search(head)
    )


# ---- the release's own variants and variables ---------------------------------


def known_variables(adapter):
    """The names of the control variables the installed library knows (MPICH:
    the MPIR_CVAR_ names mpivars lists; Open MPI: OMPI_MCA_ and the parameter
    names ompi_info lists, framework selectors included); None when the tool
    gives nothing."""
    kind = (adapter.get("algorithm_variants") or {}).get("discover")
    command = variants_mod.DISCOVERERS.get(kind) if kind else None
    if not command:
        return None
    try:
        p = variants_mod._run_tool(command, dict(os.environ))
    except variants_mod.VariantError:
        return None
    if p is None or not p.stdout:
        return None
    if kind == "mpich-mpivars":
        return set(re.findall(r"\b(MPIR_CVAR_[A-Z0-9_]+)", p.stdout))
    return {
        "OMPI_MCA_" + m
        for m in re.findall(r"^mca:\w+:\w+:param:(\w+):", p.stdout, re.M)
    }


def applicable(name, variants, variables, extra=None):
    """(the variant to run: the release's variant of that name with the
    line's own variables `extra`, or None for the library's own choice; why
    it is not applicable, or None)."""
    found = None
    if name is not None:
        if variants is None:
            return None, "the release's variants could not be listed"
        found = next((v for v in variants if v["name"] == name), None)
        if found is None:
            return None, f"the variant {name} is not among the release's variants"
    env = dict((found or {}).get("env") or {})
    env.update(extra or {})
    if variables is not None:
        gone = sorted(
            k
            for k in env
            if k.startswith(("MPIR_CVAR_", "OMPI_MCA_")) and k not in variables
        )
        if gone:
            return None, (
                f"{'the variant ' + name if name else 'the run'} sets "
                f"{', '.join(gone)}, not a control variable of the release"
            )
    if not env:
        return None, None
    return {"name": name or "default", "env": env}, None


# ---- running -------------------------------------------------------------------


def first_error(text):
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    # the compiler's or the linker's own line before collect2's summary
    for ln in sorted(lines, key=lambda ln: ln.startswith("collect2:")):
        if COMPILER_ERROR.search(ln):
            return ln[:TAIL_WIDTH]
    return lines[0][:TAIL_WIDTH] if lines else "(no output)"


def tail(text, n=TAIL_LINES):
    lines = [ln.rstrip()[:TAIL_WIDTH] for ln in (text or "").splitlines() if ln.strip()]
    return lines[-n:]


def outcome_of(result, timeout):
    """(fails / passes / not applicable, evidence) of a build_and_run result."""
    ev = {
        "compile": " ".join(shlex.quote(str(c)) for c in result.get("compile") or []),
        "compile_rc": result.get("compile_rc"),
    }
    if result.get("compile_rc") != 0:
        ev["first_error"] = first_error(result.get("compile_output"))
        return NOT_APPLICABLE, ev
    rc = result.get("rc")
    ev.update(
        {
            "command": " ".join(
                shlex.quote(str(c)) for c in result.get("command") or []
            ),
            "rc": rc,
            "timed_out": bool(result.get("timed_out")),
            "tail": tail(result.get("output")),
        }
    )
    if result.get("timed_out"):
        ev["how"] = f"ended by the time limit ({timeout} s)"
        return FAILS, ev
    if rc and 128 < rc <= 128 + 64:  # a shell's 128 + the signal (255 is not one)
        ev["how"] = f"killed by signal {rc - 128} (exit status {rc})"
    elif rc and rc < 0:
        ev["how"] = f"signal {-rc}"
    else:
        ev["how"] = f"exit status {rc}"
        said = re.findall(r"\bsignal (\d+)\b", result.get("output") or "")
        if rc and said:
            ev["how"] += f" (the output names signal {said[-1]})"
    if rc == 0 and aborted(result.get("output")):
        ev[
            "how"
        ] = f"exit status 0, but the output shows an abort: {aborted(result['output'])}"
        return FAILS, ev
    return (PASSES if rc == 0 else FAILS), ev


def aborted(text):
    """The line of a run's output that shows a process ended abnormally (its
    launcher may still exit 0: MPICH 4.2.1's Hydra after 'Abort(1) on node
    1'), or None."""
    for line in (text or "").splitlines():
        if ABORTED.search(line):
            return line.strip()[:TAIL_WIDTH]
    return None


def recheck_outcomes(rows):
    """The outcome of each row that passed, judged again from its kept output
    (the evidence's tail): an abort there fails it."""
    for r in rows:
        for t in runs_of(r) if r.get("runs") else [r]:
            ev = t.get("evidence") or {}
            if t.get("outcome") == PASSES and ev.get("rc") == 0:
                text = "\n".join((ev.get("signs") or []) + (ev.get("tail") or []))
                line = aborted(text)
                if line:
                    t["outcome"] = FAILS
                    ev["how"] = f"exit status 0, but the output shows an abort: {line}"
    return rows


def with_placement(adapter, spec, work):
    """The adapter with the header line's placement flags after its own (the
    files the header writes, a host file, written into `work`)."""
    extra = list(spec.get("launcher_flags") or [])
    if not extra:
        return adapter
    for name, text in (spec.get("files") or {}).items():
        path = pathlib.Path(work) / pathlib.Path(name).name
        path.write_text(text)
        extra = [str(path) if w == name else w for w in extra]
    la = dict(adapter["launcher"])
    la["flags"] = list(la.get("flags") or []) + extra
    return dict(adapter, launcher=la)


def placement_works(adapter, spec, timeout=60):
    """None when the release's launcher starts /bin/true with the header
    line's placement flags, else why not (a launcher that cannot place ranks
    on those virtual hosts: the finding's placement does not apply there)."""
    cmd = job_command(
        adapter,
        launcher_prefix(adapter, build_dir_for(adapter), {}),
        spec["ranks"],
        "/bin/true",
        timeout=timeout,
    )
    try:
        p = subprocess.run(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            timeout=outer_timeout(cmd, timeout + 30),
        )
    except subprocess.TimeoutExpired:
        return "the launcher with the header's placement flags did not start /bin/true"
    if p.returncode == 0:
        return None
    said = [
        ln.strip()
        for ln in p.stdout.splitlines()
        if ln.strip() and not set(ln.strip()) <= set("-=*")
    ]
    said = [
        ln for ln in said if re.search(r"\b(no|not|unable|cannot|fail|error)", ln, re.I)
    ] + said
    return (
        "the release's launcher cannot place the ranks as the header's line does "
        f"(/bin/true under its flags: exit status {p.returncode}: "
        f"{(said or ['no output'])[0][:TAIL_WIDTH]})"
    )


def run_one(
    adapter, finding, spec, variants, variables, timeout, runner=None, keep=None
):
    """One run of the plan here: {"outcome", "evidence", "seconds", "reason"};
    keep: a file to write the run's whole output into (the evidence names it)."""
    runner = runner or findings.build_and_run
    if spec.get("unmatched"):
        # A pattern the host's release has no variant of (a finding of a newer
        # release, its algorithm new there): this release's own variant of it.
        mine = [
            v
            for v in variants or []
            if any(fnmatch.fnmatchcase(v["name"], p) for p in spec["patterns"])
        ]
        if not mine:
            return {
                "outcome": NOT_APPLICABLE,
                "reason": f"no variant of this release matches {spec['patterns'][0]}",
                "evidence": {},
                "seconds": 0.0,
            }
        spec = dict(
            spec,
            variant=mine[0]["name"],
            args=routine_argument(spec["args"], mine[0]),
            env={},
        )
    variant, why = applicable(spec.get("variant"), variants, variables, spec.get("env"))
    if why:
        return {
            "outcome": NOT_APPLICABLE,
            "reason": why,
            "evidence": {},
            "seconds": 0.0,
        }
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="ordo-recheck-")
    try:
        placed = with_placement(adapter, spec, work)
        why = placement_works(placed, spec) if placed is not adapter else None
        if why:
            return {
                "outcome": NOT_APPLICABLE,
                "reason": why,
                "evidence": {},
                "seconds": round(time.time() - t0, 1),
            }
        result = runner(
            placed,
            finding,
            variant,
            spec["ranks"],
            spec["args"],
            spec["flags"],
            timeout,
        )
    except OrdoError as e:
        return {
            "outcome": NOT_APPLICABLE,
            "reason": str(e),
            "evidence": {},
            "seconds": round(time.time() - t0, 1),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    outcome, ev = outcome_of(result, timeout)
    outcome, reason = by_stated_exit(
        outcome, ev, _stated(finding.get("path"), _STATED), None
    )
    if keep is not None and outcome != NOT_APPLICABLE:
        keep = pathlib.Path(keep)
        keep.parent.mkdir(parents=True, exist_ok=True)
        keep.write_text(result.get("output") or "")
        ev["output_file"] = str(keep)
    if outcome == NOT_APPLICABLE and reason is None:
        reason = f"does not build: {ev['first_error']}"
    return {
        "outcome": outcome,
        "reason": reason,
        "evidence": ev,
        "seconds": round(time.time() - t0, 1),
    }


def by_stated_exit(outcome, ev, stated, reason):
    """(outcome, reason) of a failed run whose exit code the reproducer's header
    gives to a library that lacks what it needs (not applicable) or to an error
    reported at another process (a pass); any other run as it is."""
    if outcome != FAILS or ev.get("timed_out"):
        return outcome, reason
    said = stated.get(ev.get("rc"))
    if said == NOT_APPLICABLE:
        return NOT_APPLICABLE, lacks_reason(ev["rc"])
    if said == PASSES:
        return PASSES, reported_reason(ev["rc"])
    return outcome, reason


def reported_reason(rc):
    return (
        f"exit status {rc}: the reproducer's header says the error was reported"
        " (at another process)"
    )


def lacks_reason(rc):
    return (
        f"exit status {rc}: the reproducer's header says the library lacks what"
        " it needs there"
    )


def system_name():
    return os.environ.get(systems.INSIDE) or "host"


def describe(adapter):
    return {
        "release": findings.library_release(adapter),
        "os": findings.os_release(),
        "packages": findings.package_versions(list(adapter.get("packages", []))),
    }


def run_plans(plans, timeout, only=None, runner=None, say=None, repeat=1, keep=None):
    """Runs the plans here: {"system", "vendors": {vendor: describe}, "rows"};
    each run `repeat` times (a row's "runs": each time's outcome and evidence);
    keep: a folder for the runs' whole outputs."""
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    system = system_name()
    doc = {"system": system, "vendors": {}, "rows": []}
    for vendor, items in plans.items():
        adapter = load_adapter(vendor)
        facts = describe(adapter)
        doc["vendors"][vendor] = facts
        variants, note = host_variants(adapter)
        facts["variants_note"] = note
        variables = known_variables(adapter)
        for item in items:
            if only and item["id"] not in only:
                continue
            finding = {"id": item["id"], "vendor": vendor, "path": item["path"]}
            for spec in item["runs"]:
                times = []
                for i in range(max(1, repeat)):
                    name = f"{item['id']}.{spec.get('variant') or 'default'}"
                    name += f".{spec['ranks']}{arg_label(spec['args'])}.{i + 1}.txt"
                    out_file = (
                        pathlib.Path(keep) / system / vendor / name if keep else None
                    )
                    times.append(
                        run_one(
                            adapter,
                            finding,
                            spec,
                            variants,
                            variables,
                            timeout,
                            runner,
                            out_file,
                        )
                    )
                    if times[-1]["outcome"] == NOT_APPLICABLE:
                        break  # not applicable: the same each time, nothing ran
                got = merge_times(times)
                row = {
                    "finding": item["id"],
                    "vendor": vendor,
                    "path": item["path"],
                    "hang": item["hang"],
                    "system": system,
                    "release": facts["release"],
                    # an unmatched pattern's rows are named by it on every release
                    "variant": (
                        spec["patterns"][0]
                        if spec.get("unmatched")
                        else spec.get("variant") or "default"
                    ),
                    "patterns": spec.get("patterns") or [],
                    "waivers": spec.get("waivers") or [],
                    "env": spec.get("env") or {},
                    "ranks": spec["ranks"],
                    "args": spec["args"],
                    "note": spec.get("note"),
                    **got,
                }
                doc["rows"].append(row)
                how = got["evidence"].get("how") or got.get("reason") or ""
                say(
                    f"ordo: [{system} {vendor} {facts['release']}] {item['id']} "
                    f"({row['variant']}): {got['outcome']} ({how}; {got['seconds']} s)"
                )
    return doc


def arg_label(args):
    """The arguments of a run in a file name: "" without any, else ".a-b"."""
    text = "-".join(re.sub(r"[^A-Za-z0-9_]+", "_", str(a)) for a in args or [])
    return f".{text}" if text else ""


def run_key(r):
    """What makes a row the same run on every system: the finding, the variant,
    the arguments and the process count (a reproducer of several modes has a
    row per mode its waivers name)."""
    return (
        r["vendor"],
        r["finding"],
        r["variant"],
        tuple(r.get("args") or ()),
        r.get("ranks"),
    )


def stands_for(r, waiver):
    """Is the row the run of this waiver: named by it (rows from plans that
    list their waivers), else, for rows of an older recheck file, its variant
    pattern or the library's own choice."""
    if "waivers" in r:
        return waiver.get("id") in r["waivers"]
    if is_default(waiver):
        return r["variant"] == "default"
    return str(waiver["variant"]) in r.get("patterns", [])


def merge_times(times):
    """One row of the runs of one spec: the first time's fields, its outcome
    the times' own when they agree (else VARIES), "runs": each time's outcome,
    evidence and seconds."""
    got = dict(times[0])
    outs = {t["outcome"] for t in times}
    got["outcome"] = outs.pop() if len(outs) == 1 else VARIES
    got["seconds"] = round(sum(t["seconds"] for t in times), 1)
    got["runs"] = [
        {"outcome": t["outcome"], "evidence": t["evidence"], "seconds": t["seconds"]}
        for t in times
    ]
    if got["outcome"] == VARIES:
        failing = next((t for t in times if t["outcome"] == FAILS), times[0])
        got["evidence"] = failing["evidence"]
    return got


# ---- the statuses ----------------------------------------------------------------


def stated_exits(head):
    """{exit code: "timeout", "fail" or "not applicable"}: the exit codes the
    header's "Exits 0 when ..., 1 on a wrong value, 3 when the alarm ends a
    hang" sentences give (a code whose clause speaks of a hang, an alarm or a
    call that has not returned: the reproducer's own report of a hang; one
    whose clause says the library has no such routine: not applicable there;
    any other: its report of a wrong result or of an erroneous call
    accepted)."""
    text = " ".join((head or "").split())
    out: dict = {}
    for sentence in re.split(r"(?<=\.)\s+(?=[A-Z])", text):
        if not re.search(r"\b[Ee]xit", sentence):
            continue
        for m in re.finditer(
            r"(?:^|[,;(]|\bor\b|\band\b|\bExits\b|\bstatus\b)\s*(\d+)\s+"
            r"(?:when|on|after|otherwise|if)\b([^,;]*)",
            sentence,
        ):
            code = int(m.group(1))
            if code:
                clause = m.group(2)
                out.setdefault(
                    code,
                    PASSES
                    if REPORTED_WORDS.search(clause)
                    else NOT_APPLICABLE
                    if LACKS_WORDS.search(clause)
                    else TIMEOUT
                    if HANG_WORDS.search(clause)
                    else FAIL,
                )
        for m in re.finditer(
            r"\bhang\w*\s+with\s+exit\s+(?:code\s+|status\s+)?(\d+)", sentence
        ):
            out[int(m.group(1))] = TIMEOUT
    return out


def signs(text):
    """The lines of a run's output that say how it ended (SIGNS), at most
    SIGN_LINES of them, each once."""
    got = []
    for line in (text or "").splitlines():
        line = line.strip()[:TAIL_WIDTH]
        if line and SIGNS.search(line) and line not in got:
            got.append(line)
    return got[:SIGN_LINES]


def kind_of(ev, stated):
    """The kind of a failed run, in the words of a waiver's outcome: timeout
    (the time limit, or an exit code the header gives a hang), crash (a
    signal, or an abort the output shows) or fail (any other nonzero exit:
    the reproducer's own report of a wrong result)."""
    rc = ev.get("rc")
    if ev.get("timed_out") or (rc and stated.get(rc) == TIMEOUT):
        return TIMEOUT
    how = ev.get("how") or ""
    text = "\n".join((ev.get("signs") or []) + (ev.get("tail") or []))
    if "signal" in how or "abort" in how or aborted(text):
        return CRASH
    return FAIL


def runs_of(r):
    """A row's runs (one, a row of a recheck without --repeat)."""
    return r.get("runs") or [
        {"outcome": r["outcome"], "evidence": r["evidence"], "seconds": r["seconds"]}
    ]


# The stated exits of each reproducer run here (run_one), read once.
_STATED: dict = {}


def _stated(path, cache):
    if path not in cache:
        try:
            cache[path] = stated_exits(findings.header(ROOT / path))
        except (OSError, TypeError):
            cache[path] = {}
    return cache[path]


def judge_runs(r, cache):
    """Each failed run's kind (and the signs of its kept output, when the
    output is still there), and the row's outcome from its runs'."""
    runs = runs_of(r)
    stated = _stated(r.get("path"), cache)
    for t in runs:
        ev = t.get("evidence") or {}
        # a run of an older recheck (or --from): the header's own exit for a
        # library that lacks what the reproducer needs, or for an error reported
        t["outcome"], reason = by_stated_exit(t["outcome"], ev, stated, None)
        if reason:
            t["reason"] = reason
        kept = ev.get("output_file")
        if kept and "signs" not in ev and t["outcome"] != NOT_APPLICABLE:
            try:
                ev["signs"] = signs(pathlib.Path(kept).read_text(errors="replace"))
            except OSError:
                pass
        t["kind"] = kind_of(ev, stated) if t["outcome"] == FAILS else None
    outs = {t["outcome"] for t in runs}
    if NOT_APPLICABLE in outs:
        r["outcome"] = NOT_APPLICABLE
        r["reason"] = r.get("reason") or next(
            (t.get("reason") for t in runs if t.get("reason")), None
        )
    else:
        r["outcome"] = outs.pop() if len(outs) == 1 else VARIES
    failed = [t for t in runs if t["outcome"] == FAILS]
    r["kinds"] = sorted({t["kind"] for t in failed})
    r["failed"] = [len(failed), len(runs)]
    if len(runs) > 1 and failed:
        r["evidence"] = failed[0]["evidence"]
    return r


def classify(rows):
    """Sets each row's status from its runs and the host's control of the
    same finding and variant (see the module's notes): present (every run
    failed), intermittent (some failed, some passed), fixed, not reproduced,
    not applicable; and each failed run's kind."""
    cache: dict = {}
    for r in rows:
        if r.get("runs") or r["outcome"] != NOT_APPLICABLE:
            judge_runs(r, cache)
    control = {run_key(r): r for r in rows if r["system"] == "host"}
    for r in rows:
        c = control.get(run_key(r))
        if r["outcome"] == NOT_APPLICABLE:
            r["status"] = NOT_APPLICABLE
        elif r["outcome"] == VARIES:
            r["status"] = INTERMITTENT
        elif r["system"] == "host":
            r["status"] = PRESENT if r["outcome"] == FAILS else NOT_REPRODUCED
        elif r["outcome"] == FAILS:
            r["status"] = PRESENT
        elif c is not None and c["outcome"] == FAILS:
            r["status"] = FIXED
        else:
            r["status"] = NOT_REPRODUCED
        base = r.setdefault("plan_note", r.get("note"))  # the plan's own
        notes = [base] if base else []
        if r["status"] == INTERMITTENT:
            notes.append(f"failed {r['failed'][0]} of {r['failed'][1]} runs")
        if len(r.get("kinds") or []) > 1:
            notes.append("failed in different ways: " + ", ".join(r["kinds"]))
        if r["outcome"] in (FAILS, VARIES) and TIMEOUT in (r.get("kinds") or []):
            notes.append(
                "a hang: the finding is a hang"
                if r.get("hang")
                else "a hang, though the finding is not known as one"
            )
        if r["system"] != "host" and (c is None or c["outcome"] != FAILS):
            release = c["release"] if c else "the release it was found on"
            notes.append(
                f"intermittent on {release}"
                if c is not None and c["outcome"] == VARIES
                else f"not applicable on {release}"
                if c is not None and c["outcome"] == NOT_APPLICABLE
                else f"not reproduced on {release}"
            )
        r["note"] = "; ".join(notes) or None
    return rows


# ---- --apply ------------------------------------------------------------------------


def run_record(t):
    """A failed run as the waiver matcher reads a record: its kind and a
    message (how it ended, the exit code, the signs and the end of its
    output)."""
    ev = t.get("evidence") or {}
    message = ev.get("how") or ""
    if ev.get("rc") is not None and not ev.get("timed_out"):
        message += f" (exit code {ev['rc']})"
    lines = list(ev.get("signs") or []) + list(ev.get("tail") or [])
    return {
        "outcome": t.get("kind"),
        "message": message + "; output: " + " | ".join(lines),
    }


def covered(waiver, t):
    """Does the waiver cover this failed run: its kind among the waiver's
    outcomes and, for a crash or a timeout, the waiver's signature shown."""
    from reports import waivers as matcher

    rec = run_record(t)
    if rec["outcome"] not in matcher.outcomes_of(waiver):
        return False
    return rec["outcome"] == FAIL or matcher.signature_matches(
        waiver.get("signature"), rec
    )


def _why_not(waiver, runs):
    from reports import waivers as matcher

    names = matcher.outcomes_of(waiver)
    kinds = sorted({t["kind"] for t in runs})
    other = [k for k in kinds if k not in names]
    if other:
        return (
            f"kind mismatch: the runs show {', '.join(kinds)}; the waiver's "
            f"outcome is {', '.join(names)}"
        )
    bad = [i + 1 for i, t in enumerate(runs) if not covered(waiver, t)]
    how = (runs[bad[0] - 1].get("evidence") or {}).get("how") or ""
    return (
        f"signature not shown in run(s) {', '.join(map(str, bad))} of {len(runs)} "
        f"({how}); the waiver's signature is {json.dumps(waiver.get('signature'))}"
    )


def decisions(doc, root=ROOT):
    """[{"vendor", "waiver", "finding", "variant", "system", "release",
    "extend", "why", "host"}]: for each waiver a failing run on a newer
    release stands for (its variant pattern, or the library's own choice for
    a waiver without one), whether --apply extends it to that release. It
    does where the row is present in at least MIN_RUNS runs and the waiver
    covers each run's failure (its kind, and its signature for a crash or a
    timeout); not where the finding is intermittent there, ran fewer times,
    or failed in a way the waiver does not name. "host": whether the host's
    runs show the waiver's failure too (the control of that judgement)."""
    out: list = []
    found = {(f["vendor"], f["id"]): f for f in findings.find_all(pathlib.Path(root))}
    host = {run_key(r): r for r in doc["rows"] if r["system"] == "host"}
    for r in doc["rows"]:
        if r["system"] == "host" or r.get("status") not in (PRESENT, INTERMITTENT):
            continue
        if not r.get("release"):
            continue
        f = found.get((r["vendor"], r["finding"]))
        for w in (f or {}).get("waivers", []):
            if not w.get("id") or not stands_for(r, w):
                continue
            runs = runs_of(r)
            failed = [t for t in runs if t["outcome"] == FAILS]
            if r["status"] == INTERMITTENT:
                extend = False
                why = f"intermittent: failed {len(failed)} of {len(runs)} runs"
            elif len(runs) < MIN_RUNS:
                extend = False
                why = f"{len(runs)} run(s): --apply needs {MIN_RUNS} (--repeat)"
            elif all(covered(w, t) for t in failed):
                extend = True
                why = f"each of {len(runs)} runs shows it: " + ", ".join(
                    r.get("kinds") or []
                )
            else:
                extend, why = False, _why_not(w, failed)
            c = host.get(run_key(r))
            hf = [t for t in runs_of(c) if t["outcome"] == FAILS] if c else []
            out.append(
                {
                    "vendor": r["vendor"],
                    "waiver": w["id"],
                    "finding": r["finding"],
                    "variant": r["variant"],
                    "system": r["system"],
                    "release": r["release"],
                    "extend": extend,
                    "why": why,
                    "host": bool(hf) and all(covered(w, t) for t in hf),
                }
            )
    return out


def extensions(doc, root=ROOT):
    """{(vendor, waiver id): [release, ...]}: the newer releases decisions()
    extends each waiver to."""
    out: dict = {}
    for d in decisions(doc, root):
        if d["extend"]:
            got = out.setdefault((d["vendor"], d["waiver"]), [])
            if d["release"] not in got:
                got.append(d["release"])
    return out


def extend_text(text, waiver_id, add):
    """waivers.json's text with the library_versions of one waiver extended by
    the releases `add` (a list then), the rest of the text as it was; the text
    unchanged when it already names them."""
    doc = json.loads(text)
    items = doc.get("waivers") if isinstance(doc, dict) else doc
    target = next((w for w in items if w.get("id") == waiver_id), None)
    if target is None:
        raise OrdoError(f"no waiver {waiver_id}")
    have = findings.releases(target)
    new = have + [v for v in add if v not in have]
    if new == have:
        return text
    at = re.search(r'"id"\s*:\s*' + re.escape(json.dumps(waiver_id)), text)
    key = re.compile(r'"library_versions"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])')
    m = key.search(text, at.end()) if at else None
    target["library_versions"] = new
    edited = text[: m.start(1)] + json.dumps(new) + text[m.end(1) :] if m else None
    if edited is None or json.loads(edited) != doc:
        raise OrdoError(
            f"cannot edit the library_versions of {waiver_id} in place "
            f"(not where its entry is)"
        )
    return edited


def apply(doc, root=ROOT, write=True, vendors=None, only=None):
    """Extends the waivers of vendors/<v>/waivers.json under root (write:
    False, only says how); returns [(vendor, waiver id, releases before,
    releases after)]. vendors and only (finding ids) narrow it to those
    libraries and findings, as --vendor and --finding narrow a recheck."""
    changes = []
    by_vendor: dict = {}
    for (vendor, wid), add in sorted(extensions(doc, root).items()):
        if vendors and vendor not in vendors:
            continue
        if only and finding_of_waiver(root, vendor, wid) not in only:
            continue
        by_vendor.setdefault(vendor, []).append((wid, add))
    for vendor, items in by_vendor.items():
        path = pathlib.Path(root) / "vendors" / vendor / "waivers.json"
        text = path.read_text()
        for wid, add in items:
            before = json.loads(text)
            w = next(x for x in before["waivers"] if x.get("id") == wid)
            was = findings.releases(w)
            text = extend_text(text, wid, add)
            now = findings.releases(
                next(x for x in json.loads(text)["waivers"] if x.get("id") == wid)
            )
            if now != was:
                changes.append((vendor, wid, was, now))
        if write:
            path.write_text(text)
    return changes


# ---- the Markdown ----------------------------------------------------------------


def _cell(r):
    if r is None:
        return "-"
    ev = r["evidence"]
    if r["outcome"] == NOT_APPLICABLE:
        return f"{r['status']}: {r.get('reason') or ''}".replace("|", "\\|")
    how = ev.get("how", "")
    how = re.sub(r"ended by the time limit \((\d+) s\)", r"timeout \1 s", how)
    how = re.sub(r"killed by signal (\d+) \(exit status \d+\)", r"signal \1", how)
    runs = r.get("runs") or []
    if len(runs) > 1:
        got, n = r.get("failed") or [0, len(runs)]
        kinds = "/".join(r.get("kinds") or [])
        said = f"{kinds}: {how}; " if got else ""
        return (
            f"**{r['status']}** ({said}failed {got} of {n}, {r['seconds']} s)".replace(
                "|", "\\|"
            )
        )
    return f"**{r['status']}** ({how}, {r['seconds']} s)"


def columns(doc):
    """[(system, {vendor: release})] in the order they ran (host first)."""
    return [(s["system"], s["vendors"]) for s in doc["systems"]]


def markdown(doc):
    cols = columns(doc)
    lines = [
        "# Old findings against new releases",
        "",
        f"`{doc['command']}` on {doc['date']} (ordo {doc.get('commit') or '?'}). "
        "Each reproducer of vendors/*/findings/, built with each release's "
        "wrapper and run under its launcher, with the variant each of its waivers "
        "names (or the library's own choice), at the process count and with the "
        f"arguments of the header's launch line; limit {doc['timeout']} s a run. "
        "The host is the control: a finding not reproduced there is never "
        "called fixed." + (f" ({doc['rewritten']}.)" if doc.get("rewritten") else ""),
        "",
        "| system | OS | " + " | ".join(doc["vendor_names"]) + " |",
        "|---|---|" + "---|" * len(doc["vendor_names"]),
    ]
    for s in doc["systems"]:
        first: dict = next(iter(s["vendors"].values()), {})
        os_name = first.get("os", "?")
        lines.append(
            f"| {s['system']} | {os_name} | "
            + " | ".join(
                str((s["vendors"].get(v) or {}).get("release") or "-")
                for v in doc["vendor_names"]
            )
            + " |"
        )
    rows = doc["rows"]
    for vendor in doc["vendor_names"]:
        mine = [r for r in rows if r["vendor"] == vendor]
        if not mine:
            continue
        head = [
            f"{(vs.get(vendor) or {}).get('release') or '?'} ({name})"
            for name, vs in cols
        ]
        lines += [
            "",
            f"## {vendor}",
            "",
            "| finding | variant | " + " | ".join(head) + " |",
            "|---|---|" + "---|" * len(head),
        ]
        keys = list(dict.fromkeys(run_key(r) for r in mine))
        # A finding with several runs of one variant (a mode per waiver): its
        # rows name their arguments.
        shared = collections.Counter(k[1:3] for k in keys)
        for key in keys:
            fid, variant, args = key[1], key[2], key[3]
            cells = []
            for name, _ in cols:
                r = next(
                    (x for x in mine if run_key(x) == key and x["system"] == name),
                    None,
                )
                cells.append(_cell(r))
            label = variant
            if shared[(fid, variant)] > 1:
                label += f" (`{' '.join(args)}`, {key[4]} processes)"
            lines.append(f"| {fid} | {label} | " + " | ".join(cells) + " |")
        for name, vs in cols[1:]:
            release = (vs.get(vendor) or {}).get("release") or name
            lines += ["", f"### What {vendor} {release} ({name}) does to them", ""]
            for status in (
                FIXED,
                PRESENT,
                INTERMITTENT,
                NOT_REPRODUCED,
                NOT_APPLICABLE,
            ):
                got = [r for r in mine if r["system"] == name and r["status"] == status]
                names = [f"{r['finding']} ({r['variant']})" for r in got]
                lines.append(
                    f"- {status} ({len(got)}): " + (", ".join(names) or "none")
                )
        notes = [r for r in mine if r.get("note")]
        if notes:
            lines += ["", "Notes:", ""]
            for r in notes:
                lines.append(
                    f"- {r['finding']} ({r['variant']}) on {r['system']}: {r['note']}"
                )
    ext = doc.get("extensions") or []
    lines += ["", "## What --apply would extend", ""]
    lines += [
        f"- {v} `{wid}`: {json.dumps(was)} -> {json.dumps(now)}"
        for v, wid, was, now in ext
    ] or ["- nothing: no waiver's run is present on a newer release"]
    kept = [d for d in doc.get("decisions") or [] if not d["extend"]]
    lines += [
        "",
        "## What --apply does not extend",
        "",
        f"A waiver is extended to a release only where its reproducer failed in "
        f"each of at least {MIN_RUNS} runs there, each failure of a kind the "
        "waiver names and, for a crash or a timeout, showing its signature.",
        "",
    ]
    lines += [
        f"- {d['vendor']} `{d['waiver']}` on {d['release']} ({d['system']}): "
        f"{d['why']}"
        + ("" if d["host"] else " (the host's runs do not show it either)")
        for d in kept
    ] or ["- nothing"]
    return "\n".join(lines) + "\n"


# ---- the command -------------------------------------------------------------------


def add_arguments(p):
    """The options of `ordo findings --recheck` (the parser's findings)."""
    p.add_argument(
        "--recheck",
        action="store_true",
        help="run every reproducer on the host (the control) and in each --system, and "
        "record whether each finding is present, fixed or not applicable there "
        "(writes findings_recheck.json and .md into --out DIR)",
    )
    p.add_argument(
        "--vendor",
        choices=["mpich", "openmpi"],
        help="with --recheck: only this library's findings",
    )
    p.add_argument(
        "--system",
        action="append",
        metavar="NAME",
        help="with --recheck: a root of another release ("
        + ", ".join(sorted(systems.SYSTEMS))
        + "); repeatable",
    )
    p.add_argument(
        "--systems-dir",
        metavar="DIR",
        help="with --system: the systems folder (see `ordo systems --help`)",
    )
    p.add_argument(
        "--finding",
        action="append",
        metavar="ID",
        help="with --recheck: only this finding (repeatable)",
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="with --recheck: extend the library_versions of each waiver whose "
        "reproducer is present on a newer release (vendors/<v>/waivers.json)",
    )
    p.add_argument(
        "--from",
        dest="from_json",
        metavar="FILE",
        help="with --recheck: take the results of an earlier --recheck (its JSON) "
        "instead of running",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="with --recheck: run each reproducer N times on each release (default 1); "
        "a finding that fails some times and passes others, or fails in different "
        "ways, is intermittent there, and --apply extends a waiver only from a "
        f"finding present in each of at least {MIN_RUNS} runs",
    )
    # Inside a root: the host's plan in, the rows out.
    p.add_argument("--plan", help=argparse_suppress())
    p.add_argument("--json", help=argparse_suppress())


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def _commit():
    import subprocess

    try:
        p = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return p.stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def cmd_recheck(args):
    if args.report or args.run or args.variant:
        raise OrdoError(
            "--recheck does not go with --report, --run or --variant", EXIT_USAGE
        )
    if args.repeat < 1:
        raise OrdoError(f"--repeat {args.repeat}: give 1 or more", EXIT_USAGE)
    if args.plan:  # inside a root: run the host's plan, write the rows
        if not args.json:
            raise OrdoError("--plan goes with --json FILE", EXIT_USAGE)
        plans = json.loads(pathlib.Path(args.plan).read_text())
        got = run_plans(
            plans,
            args.timeout,
            only=args.finding,
            repeat=args.repeat,
            keep=pathlib.Path(args.json).resolve().parent / "outputs",
        )
        pathlib.Path(args.json).write_text(json.dumps(got, indent=1) + "\n")
        return EXIT_OK
    if os.environ.get(systems.INSIDE) and args.system:
        raise OrdoError("--system inside a root", EXIT_USAGE)
    for name in args.system or []:
        systems.check_name(name)
    out = pathlib.Path(
        args.out
        or ROOT / "out" / f"findings-recheck-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    ).resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OrdoError(f"cannot make {out}: {e.strerror}", EXIT_USAGE)
    vendors = [args.vendor] if args.vendor else ["mpich", "openmpi"]
    if args.from_json:
        try:
            doc = json.loads(pathlib.Path(args.from_json).read_text())
        except (OSError, ValueError) as e:
            raise OrdoError(f"cannot read {args.from_json}: {e}", EXIT_USAGE)
        if doc.get("schema") != SCHEMA:
            raise OrdoError(f"{args.from_json} is not a --recheck result", EXIT_USAGE)
        doc["rows"] = classify(recheck_outcomes(doc["rows"]))
        doc["rewritten"] = (
            f"rewritten from {pathlib.Path(args.from_json).name} by `./ordo findings "
            "--recheck --from`: the runs that exited 0 judged again from their kept "
            "output"
        )
    else:
        doc = sweep(args, vendors, out)
    doc["decisions"] = decisions(doc)
    doc["extensions"] = [[v, wid, was, now] for v, wid, was, now in preview(doc)]
    (out / "findings_recheck.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / "findings_recheck.md").write_text(markdown(doc))
    print(
        f"ordo: the recheck is in {out}/findings_recheck.{{json,md}}", file=sys.stderr
    )
    if args.apply:
        for v, wid, was, now in apply(doc, vendors=vendors, only=args.finding):
            print(f"ordo: {v} {wid}: library_versions {was} -> {now}", file=sys.stderr)
    return EXIT_OK


def finding_of_waiver(root, vendor, wid):
    """The finding (its reproducer's file stem) a waiver names."""
    path = pathlib.Path(root) / "vendors" / vendor / "waivers.json"
    for w in json.loads(path.read_text())["waivers"]:
        if w.get("id") == wid:
            return pathlib.Path(w.get("reproducer") or "").stem
    return None


def preview(doc, root=ROOT):
    """What apply() would change, without writing."""
    return apply(doc, root, write=False)


def sweep(args, vendors, out):
    t0 = time.time()
    plans = make_plans(vendors)
    plan_file = out / "plan.json"
    plan_file.write_text(json.dumps(plans, indent=1) + "\n")
    keep = out / "outputs"
    parts = [
        run_plans(plans, args.timeout, only=args.finding, repeat=args.repeat, keep=keep)
    ]
    for name in args.system or []:
        root = systems.root_of(name, args.systems_dir)
        rows_file = out / f"rows-{name}.json"
        if rows_file.exists():
            rows_file.unlink()
        argv = ["findings", "--recheck", "--plan", str(plan_file), "--json"]
        argv += [str(rows_file), "--timeout", str(args.timeout)]
        argv += ["--repeat", str(args.repeat)]
        for f in args.finding or []:
            argv += ["--finding", f]
        rc = systems.run_inside(name, root, argv, out_dirs=[out])
        if rc != 0 or not rows_file.exists():
            raise OrdoError(f"the recheck inside {name} ended with exit code {rc}")
        parts.append(json.loads(rows_file.read_text()))
    rows = classify([r for p in parts for r in p["rows"]])
    command = ["./ordo"] + [a for a in sys.argv[1:]]
    return {
        "schema": SCHEMA,
        "command": " ".join(shlex.quote(a) for a in command),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "commit": _commit(),
        "timeout": args.timeout,
        "repeat": args.repeat,
        "seconds": round(time.time() - t0, 1),
        "vendor_names": vendors,
        "systems": [{"system": p["system"], "vendors": p["vendors"]} for p in parts],
        "rows": rows,
    }

"""`ordo run`: build against a library, then each variant, rank count and
check executable as one job (runner/job.py), the property phase
(runner/properties.py), and at the end run.json, the coverage table and the
report (reports/)."""
import dataclasses
import datetime
import json
import os
import pathlib
import platform
import re
import shutil
import signal
import sys
import time
import typing

from reports import results
from reports.records import BAD, journal_file, read_journal
from . import (
    ROOT,
    abi,
    placement as placement_mod,
    properties,
    protocol,
    systems,
    variants as variants_mod,
)
from .case_limits import CaseStats
from .adapters import (
    env_notices,
    env_report_names,
    known_launchers,
    launch_env,
    launcher_prefix,
    known_vendors,
    notice_line,
    require_launcher,
    require_tools,
    template_variables,
    with_launcher,
)
from .arguments import parse_env, parse_ranks
from .build import (
    build,
    build_identity,
    check_executables,
    git_state,
    library_version,
)
from .coverage import coverage_table
from .errors import EXIT_FAIL, EXIT_INFRA, EXIT_OK, OrdoError
from .job import run_job
from .journal import (
    append_line,
    compress_journal,
    journal_offset,
    repair_journal,
    summarize,
)
from . import launch as launch_mod
from .launch import job_command, ordo_flags
from .progress import (
    HELD_LOCKS,
    OutputLock,
    check_writable_dir,
    end_stale_job,
    read_progress,
    write_json_atomic,
)
from .reporting import write_run_reports
from .survey import case_kind, select_flag, survey_cases, target_matches
from .waivers import JobWaivers, library_release


RUN_SETTINGS = (
    "vendor",
    "ranks",
    "variants",
    "seed",
    "timeout",
    "case_timeout",
    "max_restarts",
    "filter",
    "only",
    "plain_launch",
    "env",
    "property_budget",
    "sanitize",
    "depth",
    "run_known_fatal",
    "huge",
    "nodes",
    "placement",
    "case_floor",
    "hung_case_floor",
    "launcher",
    "launch_per_family",
    "no_expect_cache",
    "run_hung_kinds",
    "abi",
    "abi_library",
)


SCHEMA_RUN = "ordo.run/1"

# With --huge, the huge check's cases each fill, move and judge more than
# 2 GiB per process (about 1.5 min a case at 2 processes on 2 cores): its
# job gets at least these limits, per case and for the job.
HUGE_EXECUTABLE, HUGE_CASE_TIMEOUT, HUGE_JOB_TIMEOUT = "ordo_check_huge", 900, 3600
# A variant sweep's job (not the default run's): every family of checks that
# has cases the variant selects, in one launch of ordo_sweep_checks
# (conformance/CMakeLists.txt: the detect family's erroneous calls last) per
# variant and rank count, except these, which keep their own launch: the
# families of conformance/own_launch.txt (the threads check's thread level;
# the build reads the same file to leave them out of ordo_sweep_checks), and
# with --huge the huge check's limits (without it, its cases are skips that
# say so).
SWEEP_EXECUTABLE = "ordo_sweep_checks"
OWN_LAUNCH_FILE = ROOT / "conformance" / "own_launch.txt"
# A line that names a family; the others are comments or blank (the REGEX
# with which conformance/CMakeLists.txt reads the file).
OWN_LAUNCH_LINE = re.compile(r"[a-z0-9_]+")


def read_own_launch(path=OWN_LAUNCH_FILE):
    """The check executables of the families a list of own-launch families
    names, read as the build reads conformance/own_launch.txt."""
    return tuple(
        f"ordo_check_{line}"
        for line in pathlib.Path(path).read_text().splitlines()
        if OWN_LAUNCH_LINE.fullmatch(line)
    )


OWN_LAUNCH = read_own_launch()
# The floors of the derived case limits (`--case-floor`, `--hung-case-floor`;
# conformance/harness/case_limits.h): a case gets at least DEFAULT_CASE_FLOOR
# seconds, or DEFAULT_HUNG_FLOOR once cases of its kind hung in this run.
DEFAULT_CASE_FLOOR, DEFAULT_HUNG_FLOOR = 10.0, 1.0


def cmd_run(args):
    """`ordo run`: its phases in order (a new run, or --resume of one)."""
    if args.resume:
        settings, run, out = resumed_settings(args)
    else:
        settings, run, out = new_settings(args), None, None
    adapter, launched = run_adapters(settings)
    options = run_options(settings, adapter)
    out, journal, progress_path = output_paths(args, adapter, out)
    stop_on_signals()
    try:
        return run_into(
            args, settings, run, adapter, launched, options, out, journal, progress_path
        )
    except KeyboardInterrupt:
        # The journal keeps every record written; the job in flight ends with
        # ordo (its launch's parent-death signal).
        raise OrdoError(
            f"interrupted; `./ordo run --resume {out}` finishes the run", EXIT_INFRA
        )


def stop_on_signals():
    """SIGINT and SIGTERM stop the run, whatever ordo inherited: a shell
    starts a background command with SIGINT ignored, and the run would then
    take the launcher's death by that SIGINT for the library's and launch
    the job again."""

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def run_into(
    args, settings, run, adapter, launched, options, out, journal, progress_path
):
    """The run's phases once its output folder is known."""
    require_tools(adapter)
    if launched is not adapter:
        require_launcher(launched)
    jobs = open_output(args, out, journal, progress_path, options)
    # the ASan/UBSan build, build/<vendor>-sanitize/
    sanitize = bool(settings.get("sanitize"))
    targets = run_targets(settings, options)
    adapter, bdir, prefix = build_for_run(
        adapter, launched, settings, options, sanitize, targets
    )
    executables, sweep_exe = run_executables(bdir, settings, targets)
    run = run_record(
        args, run, settings, options, adapter, bdir, prefix, sanitize, targets
    )
    write_json_atomic(out / "run.json", run)
    ctx = RunState(
        args=args,
        settings=settings,
        options=options,
        adapter=adapter,
        out=out,
        journal=journal,
        progress_path=progress_path,
        jobs=jobs,
        run=run,
        bdir=bdir,
        prefix=prefix,
        sanitize=sanitize,
        executables=executables,
        sweep_exe=sweep_exe,
        # Crashes and timeouts are judged against the release the run recorded
        # (the harness asks the library itself).
        waivers=JobWaivers(adapter, library_release(run.get("library_version"))),
    )
    announce_run(ctx)
    ctx.start_launches()
    for variant in options.chosen:
        run_variant(ctx, variant)
    return report_run(ctx)


# ---- settings ----


def resumed_settings(args):
    """--resume: the settings, run.json and output folder of the run it
    finishes; one line (exit 2) where that run cannot be resumed here."""
    out = pathlib.Path(args.resume).resolve()
    try:
        run = json.loads((out / "run.json").read_text())
        settings = run["settings"]
    except FileNotFoundError:
        raise OrdoError(
            f"{out} holds no run.json: not an output folder of `ordo run` "
            "that can be resumed"
        )
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise OrdoError(
            f"{out / 'run.json'} is unreadable or corrupt ({e}); it cannot be "
            f"resumed: `ordo report {out}` still reports what the journal holds"
        )
    if run.get("end"):
        raise OrdoError(f"the run in {out} finished at {run['end']}: nothing to resume")
    ran_in = (run.get("system") or {}).get("name") or "host"
    here = os.environ.get(systems.INSIDE) or "host"
    if ran_in != here:  # its build and library are the other system's
        raise OrdoError(
            f"the run in {out} ran in the system {ran_in}, this is {here}: "
            "resume it with "
            + (
                f"`./ordo run --system {ran_in} --resume {out}`"
                if ran_in != "host"
                else f"`./ordo run --resume {out}` outside --system"
            )
        )
    # A run from before the sweep's one launch per variant: its jobs were one
    # per family.
    settings.setdefault("launch_per_family", True)
    # A run from before the default variant's one launch per rank count: its
    # default jobs were one per family.
    settings.setdefault("default_one_launch", False)
    return settings, run, out


def new_settings(args):
    """A new run's settings: its command line's."""
    settings = {k: getattr(args, k) for k in RUN_SETTINGS}
    settings["default_one_launch"] = True
    return settings


def run_adapters(settings):
    """The adapter of the run's vendor, and the one its jobs launch through:
    the same, or with --launcher the adapter with a launcher template's
    launcher (vendors/launchers/); the build keeps the adapter's own (its
    CTest entries use it)."""
    # Through the MPI-5.0 standard ABI (--abi, runner/abi.py): one build, the
    # library chosen at launch, launched by its own adapter.
    adapter = abi.adapter_for(settings)
    settings["vendor"] = adapter["name"] if adapter.get("_abi") else settings["vendor"]
    if settings["vendor"] not in known_vendors():
        # a site's adapter file: found again on --resume
        settings["vendor"] = adapter["_path"]
    launched = adapter
    if settings.get("launcher"):
        launched = with_launcher(adapter, settings["launcher"])
        if settings["launcher"] not in known_launchers():
            # a site's file: found again on --resume
            settings["launcher"] = launched["_launcher_template"]
        if settings.get("nodes") is not None:
            raise OrdoError(
                f"--nodes with --launcher {settings['launcher']}: the virtual "
                "nodes are made through the adapter's own launcher; run --nodes "
                "without --launcher"
            )
        missing = [
            name
            for name in template_variables(launched["launcher"])
            if name not in os.environ
        ]
        if missing:
            # a variable the template needs (ORDO_SRUN_MPI, ORDO_HOSTFILE):
            # one line now, not after the build
            raise OrdoError(
                f"the launcher {settings['launcher']} needs the environment "
                f"variable {missing[0]} (its notes in "
                f"{launched['_launcher_template']} say what to set): "
                f"export {missing[0]}=..."
            )
    return adapter, launched


@dataclasses.dataclass
class RunOptions:
    """A run's settings, checked and resolved before its build."""

    ranks: list
    nodes: typing.Any  # virtual nodes (runner/placement.py), or None
    where: typing.Any  # their placement
    plans: dict  # per rank count: the node of each rank and the adapter's method
    user_env: dict  # what the launches add to the environment
    cli_env: dict  # the user's own --env (the notices of what it replaces)
    budget: str  # --property-budget
    props: typing.Any  # runner/properties.py with a budget, else None
    chosen: list  # the variants


def run_options(settings, adapter):
    """The run's rank counts, placement, environment, property budget and
    variants; one line (exit 2) for a setting out of range."""
    ranks = parse_ranks(settings["ranks"])
    # Virtual nodes (runner/placement.py): per rank count, the node of each
    # rank and the adapter's method.
    nodes, where = placement_mod.from_settings(settings)
    plans = (
        placement_mod.plan(adapter, where, nodes, ranks) if nodes is not None else {}
    )
    user_env = parse_env(settings["env"])
    cli_env = dict(user_env)  # the user's own --env (the notices of what it replaces)
    user_env = checks_env(settings, user_env)
    check_limits(settings)
    budget, props = property_phase(settings)
    return RunOptions(
        ranks=ranks,
        nodes=nodes,
        where=where,
        plans=plans,
        user_env=user_env,
        cli_env=cli_env,
        budget=budget,
        props=props,
        chosen=chosen_variants(adapter, settings),
    )


def checks_env(settings, user_env):
    """--env with what --depth and --huge tell the checks."""
    # a run from before --depth: 2
    depth = 2 if settings.get("depth") is None else settings["depth"]
    if depth not in (2, 3):
        raise OrdoError(
            f"--depth {depth}: the crossing check covers pairs (2) or triples (3)"
        )
    if depth != 2:  # the crossing check reads it (conformance/crossing/)
        user_env = {**user_env, "ORDO_CROSSING_DEPTH": str(depth)}
    if settings.get("huge"):
        # the huge check reads it (conformance/huge/); a run from before
        # --huge: off
        user_env = {**user_env, "ORDO_HUGE": "1"}
    return user_env


def check_limits(settings):
    """--seed and the per-case time limits: in range, or one line (exit 2)."""
    if not 0 <= settings["seed"] < 2**53:
        raise OrdoError(
            f"--seed {settings['seed']} is out of range: use 0 to 2^53-1 "
            "(seeds travel in JSON)"
        )
    for key in ("case_timeout", "case_floor", "hung_case_floor"):
        value = settings.get(key)
        if value is not None and not 0 < value < float("inf"):
            raise OrdoError(
                f"--{key.replace('_', '-')} {value}: give a positive number of seconds"
            )


def property_phase(settings):
    """--property-budget, and the property phase's module when it is not 0."""
    budget = str(settings.get("property_budget") or "0")
    props = None
    if budget != "0":
        try:
            properties.parse_budget(budget)
            props = properties
        except ValueError as e:
            raise OrdoError(f"--property-budget: {e}")
    return budget, props


def chosen_variants(adapter, settings):
    """The variants of --variants, of those the adapter discovers."""
    try:
        discovered = (
            variants_mod.discover(adapter) if settings["variants"] != "default" else []
        )
        return variants_mod.select(adapter, settings["variants"], discovered)
    except variants_mod.VariantError as e:
        raise OrdoError(str(e))


# ---- the output folder ----


def output_paths(args, adapter, out):
    """The output folder (a resumed run's, --out, or a new one under out/),
    its journal and its progress file; one line (exit 2) where the folder
    holds a run this one may not add to."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    if not args.resume:
        out = pathlib.Path(
            args.out or ROOT / "out" / f"run-{adapter['name']}-{stamp}"
        ).resolve()
    journal, progress_path = out / "journal.jsonl", out / "progress.jsonl"
    held = journal_file(out)
    if not args.resume and held is not None:
        raise OrdoError(
            f"{out} already holds a run ({held.name}); "
            + (
                f"`./ordo run --resume {out}` finishes it, or choose another --out"
                if held == journal
                else "choose another --out"
            )
        )
    if args.resume and not journal.is_file() and held is not None:
        # A compressed journal is a run that ended; appending to a new plain
        # one would split its records.
        raise OrdoError(
            f"{out} holds a finished run's journal ({held.name}): nothing to resume"
        )
    return out, journal, progress_path


def open_output(args, out, journal, progress_path, options):
    """Makes the output folder and its subfolders, locks it for this process,
    and returns the progress of its jobs (a resumed run's, its journal
    repaired and its interrupted jobs' processes ended)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OrdoError(
            f"cannot write the output folder {out}: {e.strerror}; "
            "choose another --out"
        )
    HELD_LOCKS.append(OutputLock(out))  # held until the process ends
    check_writable_dir(out / "logs", "log folder", "--out")
    check_writable_dir(out / "gtest", "folder", "--out")
    if options.props:
        check_writable_dir(out / "reproducers", "reproducer folder", "--out")
    jobs = read_progress(progress_path)
    if not args.resume:
        journal.touch()
        return jobs
    moved = repair_journal(journal)
    if moved:
        print(
            f"ordo: the journal's last line was cut short; its {moved} bytes are "
            f"kept in {journal.name}.damaged",
            flush=True,
        )
    stale = [j for j in jobs.values() if "start" in j and "done" not in j]
    for j in stale:
        end_stale_job(j["start"])
    print(
        f"ordo: resuming {out}: {sum('done' in j for j in jobs.values())} jobs done",
        flush=True,
    )
    return jobs


# ---- the build ----


SUPPORT_TARGET = "ordo_run_support"  # CMakeLists.txt: ordo_replay, the preloads


def check_families():
    """The check executables this checkout builds: ordo_check_<folder> for every
    folder of conformance/ with a CMakeLists.txt (as build.check_executables)."""
    return [
        f"ordo_check_{d.name}"
        for d in sorted((ROOT / "conformance").iterdir())
        if (d / "CMakeLists.txt").is_file()
    ]


def filter_matches(settings, names):
    """The names (of check executables) that --filter keeps: those holding one
    of its comma-separated parts."""
    wanted = [t for t in (settings.get("filter") or "").split(",") if t]
    return [n for n in names if any(t in pathlib.Path(n).name for t in wanted)]


def run_targets(settings, options):
    """The CMake targets a --filter'ed run builds, None for a whole build (a run
    without --filter, or ORDO_BUILD_TARGETS set): what every run uses
    (SUPPORT_TARGET), the check executables the filter keeps, the sweep's
    executable where the run's jobs launch it (plan_jobs: two families or more
    in one launch) and the property executable with a property budget. The run
    then launches only what this build made (run_executables); its record says
    which targets (run.json "build_targets")."""
    if not settings.get("filter") or os.environ.get("ORDO_BUILD_TARGETS", "").split():
        return None
    matched = filter_matches(settings, check_families())
    if not matched:
        raise OrdoError(
            f"--filter {settings['filter']}: no family of checks matches it (their"
            f" executables: {', '.join(check_families())})"
        )
    targets = [SUPPORT_TARGET] + matched
    own = OWN_LAUNCH + ((HUGE_EXECUTABLE,) if settings.get("huge") else ())
    if (
        not settings.get("launch_per_family")
        and (
            settings.get("default_one_launch")
            or any(v["name"] != "default" for v in options.chosen)
        )
        and len([m for m in matched if m not in own]) >= 2
    ):
        targets.append(SWEEP_EXECUTABLE)
    if options.props:
        targets.append(properties.EXECUTABLE.name)
    return targets


def build_for_run(adapter, launched, settings, options, sanitize, targets=None):
    """Builds against the adapter (targets: run_targets's, None for all);
    returns the adapter the jobs launch through (with --launcher, the
    template's), the build folder and its launcher prefix."""
    bdir, prefix = build(
        adapter,
        reference_tests=False,
        user_env=options.user_env,
        plain_launch=settings["plain_launch"],
        sanitize=sanitize,
        targets=targets,
    )
    if launched is adapter:
        return adapter, bdir, prefix
    # The library's probes hold under any launcher; a file of this machine's
    # does not.
    probed = dict(adapter.get("_probed") or {})
    for setting in launched.get("launch_settings", []):
        if (
            setting.get("this_machine")
            and launched.get("_launcher_template")
            and setting["name"] in probed
        ):
            probed[setting["name"]] = {
                **probed[setting["name"]],
                "applied": False,
                "not_here": "a setting of this machine (a file that describes it) "
                "does not apply under a launcher template, which may start "
                "processes on other machines",
            }
    launched["_probed"] = probed or None
    prefix = launcher_prefix(
        launched,
        bdir,
        launch_env(
            launched, bdir, options.user_env, settings["plain_launch"], sanitize
        ),
    )
    return launched, bdir, prefix


def run_executables(bdir, settings, targets=None):
    """The build's check executables that --filter keeps, and the sweep's
    executable (None where the build has none); of a build of targets
    (run_targets), only those it made: an executable an older build left in
    the folder is not launched."""
    executables = check_executables(bdir)
    sweep_path = bdir / "conformance" / SWEEP_EXECUTABLE
    sweep_exe = str(sweep_path) if sweep_path.is_file() else None
    if settings["filter"]:
        executables = filter_matches(settings, executables)
    if targets is not None:
        executables = [e for e in executables if pathlib.Path(e).name in targets]
        sweep_exe = sweep_exe if SWEEP_EXECUTABLE in targets else None
    if not executables:
        raise OrdoError(f"no check executables were built in {bdir}", EXIT_INFRA)
    return executables, sweep_exe


def run_record(
    args, run, settings, options, adapter, bdir, prefix, sanitize, targets=None
):
    """run.json: a resumed run's, with the time it resumed, or a new run's."""
    if args.resume:
        run["resumed"] = run.get("resumed", []) + [
            datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        ]
        return run
    version = library_version(prefix, adapter, bdir)
    chosen = options.chosen
    executables = check_executables(bdir) + [
        str(p)
        for p in (
            bdir / "conformance" / "ordo_replay",
            bdir / "conformance" / SWEEP_EXECUTABLE,
        )
        if p.is_file()
    ]
    if targets is not None:  # a filtered build: what it made, no older file
        executables = [e for e in executables if pathlib.Path(e).name in targets] + [
            str(bdir / "conformance" / "ordo_replay")
        ]
    return {
        "schema": SCHEMA_RUN,
        "ordo_version": (ROOT / "VERSION").read_text().strip(),
        "git": git_state(),
        "vendor": adapter["name"],
        "adapter": adapter["_path"],
        "library_version": version.get("library"),
        "mpi_version": version.get("mpi_version"),
        "host": platform.node(),
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "launcher": prefix + [adapter["launcher"]["np_flag"], "N"],
        "launcher_template": adapter.get("_launcher_template"),
        "command": ["./ordo"] + sys.argv[1:],
        "variants": [v["name"] for v in chosen],
        "ranks": options.ranks,
        "seed": settings["seed"],
        "env": launch_env(
            adapter, bdir, options.user_env, settings["plain_launch"], sanitize
        ),
        "start": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "end": None,
        "per_rank_count": [],
        "settings": settings,
        "variant_details": [
            {k: v.get(k) for k in ("name", "env", "targets", "source")} for v in chosen
        ],
        "nodes": options.nodes,
        "placement": options.where if options.nodes is not None else None,
        "node_maps": {},
        # The launch settings applied only where a probe saw them change
        # nothing (vendors/adapter.schema.json).
        "launch_probes": None
        if settings["plain_launch"]
        else (adapter.get("_probed") or None),
        # Where it ran (runner/systems.py): the host, or the root of `--system
        # NAME`; os-release and the Debian versions of the library's, the
        # compilers' and the launcher's packages.
        "system": systems.describe_current(adapter),
        # A SHA-256 of each executable the run may launch, and of them all: two
        # runs with the same sha256 ran identical binaries (`ordo compare`).
        "build_identity": build_identity(bdir, executables),
        # The CMake targets the run's build made (a --filter'ed run's: run_targets),
        # null where it built everything.
        "build_targets": targets,
        # Through the MPI-5.0 standard ABI (runner/abi.py): the library file,
        # its package, the ABI version it reports, the header of the build.
        "abi": abi.record(adapter, version, systems.owner, systems.installed)
        if adapter.get("_abi")
        else None,
    }


# ---- the jobs ----


@dataclasses.dataclass
class RunState:
    """What the jobs of a run share once it is built: its settings, adapter,
    output folder, build and run.json, and what the jobs learn as they go."""

    args: typing.Any
    settings: dict
    options: RunOptions
    adapter: dict  # the adapter the jobs launch through
    out: pathlib.Path
    journal: pathlib.Path
    progress_path: pathlib.Path
    jobs: dict  # the progress of the jobs, by key (a resumed run's)
    run: dict  # run.json
    bdir: pathlib.Path
    prefix: list
    sanitize: bool
    executables: list
    sweep_exe: typing.Optional[str]
    waivers: typing.Any
    # (n, executable) -> what the default variant ran: [routine, mode, kind]
    seen: dict = dataclasses.field(default_factory=dict)
    per_variant: dict = dataclasses.field(default_factory=dict)
    case_stats: typing.Any = None
    stats_path: typing.Optional[pathlib.Path] = None
    limit_flags: list = dataclasses.field(default_factory=list)

    def start_launches(self):
        """What the jobs read before the first launch: what a resumed run's
        jobs saw, and the derived case limits."""
        for j in self.jobs.values():
            if "done" in j and j["done"].get("seen") is not None:
                self.seen[(j["done"]["ranks"], j["done"]["executable"])] = [
                    tuple(x) for x in j["done"]["seen"]
                ]
        # The derived case limits' statistics and the streaks of cases that
        # keep hanging (runner/case_limits.py); a run from before
        # --run-hung-kinds ran every case: its resumption does too.
        self.case_stats = CaseStats(
            self.journal, hold_back=not self.settings.get("run_hung_kinds", True)
        )
        # rewritten before each launch (before_launch)
        self.stats_path = self.out / "case-stats.json"
        self.limit_flags = ordo_flags(
            case_stats=self.stats_path,
            case_floor=self.settings.get("case_floor", DEFAULT_CASE_FLOOR),
            hung_case_floor=self.settings.get("hung_case_floor", DEFAULT_HUNG_FLOOR),
        )


def announce_run(ctx):
    """The run's first lines: the library, rank counts, variants and output
    folder, and the system it runs in when not the host."""
    run = ctx.run
    lib = (
        (run.get("library_version") or "?").splitlines()[0]
        if run.get("library_version")
        else "?"
    )
    print(
        f"ordo: {ctx.adapter['name']} ({lib}), "
        f"ranks {','.join(map(str, ctx.options.ranks))}, "
        f"variants {len(ctx.options.chosen)}, output {ctx.out}",
        flush=True,
    )
    if (run.get("system") or {}).get("name", "host") != "host":
        print(
            f"ordo: system {run['system']['name']} "
            f"({(run['system'].get('os_release') or {}).get('PRETTY_NAME', '?')})",
            flush=True,
        )


@dataclasses.dataclass
class RankCount:
    """One variant at one rank count: what its jobs share."""

    variant: dict
    n: int
    logdir: pathlib.Path
    vrow: dict  # the variant's row of run.json's variant_outcomes
    adapter: dict  # the variant's adapter (with the virtual nodes' flags)
    prefix: list
    env_flags: list
    # what each rank reported of its environment (fold_rank_env)
    rank_env: dict = dataclasses.field(default_factory=dict)

    @property
    def vname(self):
        return self.variant["name"]


def run_variant(ctx, variant):
    """A variant's jobs at each rank count."""
    vname = variant["name"]
    venv = variants_mod.launch_settings(ctx.adapter, variant, ctx.options.user_env)
    logdir = ctx.out / "logs" if vname == "default" else ctx.out / "logs" / vname
    vrow = ctx.per_variant.setdefault(
        vname,
        {"variant": vname, "seconds": 0.0, "fallback_jobs": [], "skipped_jobs": 0},
    )
    for n in ctx.options.ranks:
        run_rank_count(ctx, variant, venv, logdir, vrow, n)


def run_rank_count(ctx, variant, venv, logdir, vrow, n):
    """A variant's jobs at n ranks, then its row of run.json's per_rank_count."""
    run, plans = ctx.run, ctx.options.plans
    t_n, waited_n = time.time(), launch_mod.LOCK_WAITED[0]
    rc = rank_count_launch(ctx, variant, venv, logdir, vrow, n)
    before = journal_offset(ctx.journal)
    jobs_here, families = plan_jobs(ctx, rc.vname, n)
    for name, exe in jobs_here:
        run_one_job(ctx, rc, name, exe, families)
    if n in plans:  # proof in every job: each log's node map is the one asked for
        verified = verify_job_logs(
            logdir,
            n,
            plans[n]["groups"],
            ctx.adapter["name"],
            ctx.options.nodes,
            ctx.options.where,
        )
        run["node_maps"][str(n)]["jobs_verified"] = (
            run["node_maps"][str(n)].get("jobs_verified", 0) + verified
        )
    recs = read_journal(ctx.journal, before)
    dt_n = time.time() - t_n
    vrow["seconds"] += dt_n
    run["per_rank_count"].append(
        {
            "variant": rc.vname,
            "ranks": n,
            "seconds": round(dt_n, 2),
            "lock_wait_s": round(launch_mod.LOCK_WAITED[0] - waited_n, 2),
            "outcomes": summarize(recs),
            **rc.rank_env,
        }
    )
    write_json_atomic(ctx.out / "run.json", run)


def rank_count_launch(ctx, variant, venv, logdir, vrow, n):
    """How a variant's jobs at n ranks launch: the virtual nodes' adapter and
    environment, the notices of the user's --env, and the node map at n
    ranks, recorded once."""
    adapter, settings, options, run = ctx.adapter, ctx.settings, ctx.options, ctx.run
    vadapter, placed_env = adapter, {}
    if n in options.plans:
        vadapter, placed_env = placement_mod.apply(
            adapter,
            options.plans[n]["method"],
            options.plans[n]["node_of"],
            ctx.out / "virtual-nodes" / f"hostfile-{n}ranks",
            ctx.bdir,
        )
    env = launch_env(
        vadapter,
        ctx.bdir,
        {**placed_env, **venv},
        settings["plain_launch"],
        ctx.sanitize,
    )
    vprefix = launcher_prefix(vadapter, ctx.bdir, env)
    # A variable of the user's --env that replaces one of the adapter's (not a
    # list-valued one, which joins): one line, once, and kept in run.json.
    for notice in env_notices(
        vadapter,
        ctx.bdir,
        options.cli_env,
        settings["plain_launch"],
        [
            ("virtual nodes", placed_env),
            (
                f"variant {variant['name']}",
                variants_mod.launch_settings(adapter, variant, {}),
            ),
        ],
    ):
        if notice not in run.setdefault("env_notices", []):
            run["env_notices"].append(notice)
            print(notice_line(notice), flush=True)
    # Every rank reports the variables it was launched with (protocol.ENV),
    # folded into this rank count's row of run.json (fold_rank_env).
    env_flags = ordo_flags(env_names=",".join(env_report_names(env)))
    # The large-element datatype class's element: above the chunk or segment
    # size the variant forces, or else the library's own default of the
    # settings its algorithm reads (harness.h, --ordo-element-bytes).
    env_flags += ordo_flags(
        element_bytes=variants_mod.element_bytes(venv, variant.get("chunk_defaults"))
    )
    if str(n) not in run.setdefault("node_maps", {}):
        placed_flags = vadapter["launcher"]["flags"][
            len(adapter["launcher"].get("flags", [])) :
        ]
        record_node_map(
            run,
            ctx.out,
            vadapter,
            vprefix,
            n,
            ctx.bdir,
            options.plans.get(n),
            options.nodes,
            options.where,
            {"env": placed_env, "flags": placed_flags},
        )
    return RankCount(variant, n, logdir, vrow, vadapter, vprefix, env_flags)


def plan_jobs(ctx, vname, n):
    """The jobs of a variant at n ranks, [(name, executable)]: one per check
    executable, or the sweep's one launch of every family but those that keep
    their own; then the property phase's (executable None). With the sweep's
    launch, also {family executable: its path} that it runs, else None."""
    settings = ctx.settings
    jobs_here = [(pathlib.Path(e).name, e) for e in ctx.executables]
    families = None  # a sweep job: {family executable: its path} that it runs
    if (
        (vname != "default" or settings.get("default_one_launch"))
        and not settings.get("launch_per_family")
        and ctx.sweep_exe
    ):
        own = OWN_LAUNCH + ((HUGE_EXECUTABLE,) if settings.get("huge") else ())
        families = {name: e for name, e in jobs_here if name not in own}
        if len(families) >= 2:
            # (one family alone: its own executable is the same launch)
            jobs_here = [(SWEEP_EXECUTABLE, ctx.sweep_exe)] + [
                (name, e) for name, e in jobs_here if name in own
            ]
        else:
            families = None
    if vname == "default" and ctx.options.props and n >= 2:
        jobs_here.append(("properties", None))
    return jobs_here, families


def run_one_job(ctx, rc, name, exe, families):
    """One job (a check executable, the sweep's, or the property phase), unless
    it is done (a resumed run) or none of its families has a case the variant
    selects; its progress events, its line of the output and the crossing
    check's figures."""
    key = f"{rc.vname}/{rc.n}/{name}"
    state = ctx.jobs.get(key, {})
    if "done" in state:
        return
    wanted = wanted_families(ctx, rc, name, exe, families)
    if not wanted:
        return
    # an earlier job's reports, left by an interrupted run: not this one's
    protocol.rank_envs(ctx.journal)
    skip = 0
    if "start" in state:  # interrupted in this job: go on after its last record
        skip = max(
            (
                r.get("seq") or 0
                for r in read_journal(ctx.journal, state["start"]["offset"])
            ),
            default=0,
        )
    k = journal_offset(ctx.journal)
    start_event = {
        "job": key,
        "event": "start",
        "offset": k if "start" not in state else state["start"]["offset"],
        "pid": None,
    }

    def on_start(pid, ev=start_event):
        ev["pid"] = pid
        append_line(ctx.progress_path, json.dumps(ev, sort_keys=True))

    t0 = time.time()
    launches = None
    if exe is None:
        launch_properties(ctx, rc, skip, on_start)
    else:
        launches = launch_checks(ctx, rc, name, exe, wanted, skip, on_start)
    dt = time.time() - t0
    fold_rank_env(rc.rank_env, name, protocol.rank_envs(ctx.journal))
    new = read_journal(ctx.journal, k)
    done_event = job_done_event(ctx, rc, name, wanted, launches, dt, start_event)
    append_line(ctx.progress_path, json.dumps(done_event, sort_keys=True))
    c = summarize(new)
    label = "" if rc.vname == "default" else f"{rc.vname} "
    print(
        f"  [{label}{rc.n} ranks] {name:28} {len(new):5d} checks  "
        + "  ".join(f"{v} {o}" for o, v in sorted(c.items()))
        + f"  {dt:6.1f} s",
        flush=True,
    )
    report_crossing(ctx, rc, name)


def wanted_families(ctx, rc, name, exe, families):
    """The families of a job (its executable, or those the sweep job combines)
    that have a case the variant selects; a family the default run has not
    surveyed at n ranks is surveyed first."""
    targets = rc.variant.get("targets")
    seen, n = ctx.seen, rc.n
    members = [(name, exe)] if name != SWEEP_EXECUTABLE else sorted(families.items())
    wanted = []
    for member, member_exe in members:
        if targets and member_exe is not None and (n, member) not in seen:
            survey_family(ctx, n, member, member_exe)
        if (
            targets
            and (n, member) in seen
            and not any(
                target_matches(t, *s) for t in targets for s in seen[(n, member)]
            )
        ):
            # the default run had no case this variant selects
            rc.vrow["skipped_jobs"] += 1
            continue
        wanted.append(member)
    return wanted


def survey_family(ctx, n, member, member_exe):
    """What a family's cases are at n ranks (runner/survey.py), into `seen`
    and the progress file."""
    seen_now = survey_cases(
        ctx.prefix, ctx.adapter, n, member_exe, ctx.out, ctx.settings
    )
    if seen_now is None:
        return
    ctx.seen[(n, member)] = seen_now
    append_line(
        ctx.progress_path,
        json.dumps(
            {
                "job": f"survey/{n}/{member}",
                "event": "done",
                "ranks": n,
                "executable": member,
                "seen": sorted(seen_now),
            },
            sort_keys=True,
        ),
    )


def launch_properties(ctx, rc, skip, on_start):
    """The property phase's job at a rank count (runner/properties.py)."""
    settings, options = ctx.settings, ctx.options
    vname, n = rc.vname, rc.n
    nodes, where = options.nodes, options.where

    # The property phase's cases get the derived limits and the held-back cases
    # of the checks (runner/case_limits.py): a library that hangs must not cost
    # its per-case limit in every generated case of a hanging kind.
    def job(base, jname, jn, jout, jjournal, jadapter, max_restarts, **kw):
        return run_job(
            base,
            jname,
            jn,
            jout,
            jjournal,
            jadapter,
            max_restarts,
            variant=vname,
            skip=skip,
            logdir=rc.logdir,
            on_start=on_start,
            waivers=ctx.waivers,
            extra_fields=placement_fields(nodes, where, ctx.run, n),
            before_launch=lambda: ctx.case_stats.write(ctx.stats_path, n, vname),
        )

    budget = options.budget
    share = budget
    if budget.endswith("s"):
        # seconds in all: shared over the rank counts with properties
        rank_counts = max(1, sum(1 for m in options.ranks if m >= 2))
        share = f"{float(budget[:-1]) / rank_counts:.1f}s"
    try:
        options.props.run_phase(
            adapter=rc.adapter,
            bdir=ctx.bdir,
            prefix=rc.prefix,
            out=ctx.out,
            journal=ctx.journal,
            ranks=[n],
            budget=share,
            seed=settings["seed"],
            case_timeout=settings["case_timeout"],
            job_timeout=settings["timeout"],
            run_job=job,
            variant=vname,
            # as for the checks: a known crash or hang of this
            # release is a skip naming its waiver
            extra_args=(
                []
                if settings.get("run_known_fatal", True)
                else ["--ordo-avoid-known-fatal"]
            )
            + placement_mod.flags(nodes, where)
            + ordo_flags(launcher=settings.get("launcher"))
            + ctx.limit_flags
            + rc.env_flags,
        )
    except FileNotFoundError as e:
        raise OrdoError(
            f"{e}; rebuild with `./ordo run` after a clean of {ctx.bdir}",
            EXIT_INFRA,
        )
    except OSError as e:  # the reproducer folder
        raise OrdoError(
            f"{e}; fix it, then `./ordo run --resume {ctx.out}` finishes the run"
        )


def launch_checks(ctx, rc, name, exe, wanted, skip, on_start):
    """A job of check executables (one family's, or the sweep's of `wanted`):
    its launches (runner/job.py)."""
    settings = ctx.settings
    huge = settings.get("huge") and name == HUGE_EXECUTABLE
    case_timeout, job_timeout = settings["case_timeout"], settings["timeout"]
    if name == SWEEP_EXECUTABLE:  # --timeout is per family
        job_timeout = settings["timeout"] * len(wanted)
    if huge:
        case_timeout = max(case_timeout, HUGE_CASE_TIMEOUT)
        job_timeout = max(job_timeout, HUGE_JOB_TIMEOUT)
    flags = ordo_flags(
        journal=ctx.journal,
        vendor=ctx.adapter["name"],
        variant=rc.vname,
        seed=settings["seed"],
        case_timeout=case_timeout,
        adapter=ctx.adapter["_path"],
    )
    before_launch = None
    if not huge:
        # Derived case limits (runner/case_limits.py): what cases of each kind
        # took in this run, brought up to date before each launch (after a
        # hang, its kind's short limit).
        flags += ctx.limit_flags

        def before_launch(path=ctx.stats_path, jn=rc.n, jv=rc.vname):
            ctx.case_stats.write(path, jn, jv)

    flags += check_flags(ctx, rc, name, wanted)
    base = job_command(
        rc.adapter, rc.prefix, rc.n, exe, timeout=job_timeout, flags=flags
    )
    # --max-restarts is per family too: a combined job may resume as often as
    # its families would.
    restarts = settings["max_restarts"] * (
        len(wanted) if name == SWEEP_EXECUTABLE else 1
    )
    return run_job(
        base,
        name,
        rc.n,
        ctx.out,
        ctx.journal,
        ctx.adapter,
        restarts,
        variant=rc.vname,
        skip=skip,
        logdir=rc.logdir,
        on_start=on_start,
        waivers=ctx.waivers,
        extra_fields=placement_fields(
            ctx.options.nodes, ctx.options.where, ctx.run, rc.n
        ),
        before_launch=before_launch,
    )


def check_flags(ctx, rc, name, wanted):
    """A check job's flags after its journal's and limits': the variant's
    cases, --only, the waivers and cache, the sweep's families, placement,
    launcher and environment report, and --run-known-fatal's."""
    settings, options = ctx.settings, ctx.options
    flags = select_flag(rc.variant) + (
        [f"--gtest_filter={settings['only']}"] if settings.get("only") else []
    )
    flags += ordo_flags(waivers=ctx.waivers.flag(), cache_dir=ctx.out / "cache")
    if settings.get("no_expect_cache"):
        flags += ["--ordo-no-expect-cache"]
    if name == SWEEP_EXECUTABLE:
        flags += ordo_flags(families=",".join(m[len("ordo_check_") :] for m in wanted))
    flags += placement_mod.flags(options.nodes, options.where)
    flags += ordo_flags(launcher=settings.get("launcher")) + rc.env_flags
    # A run from before --run-known-fatal ran those cases: its resumption does too.
    if not settings.get("run_known_fatal", True):
        flags += ["--ordo-avoid-known-fatal"]
    return flags


def job_done_event(ctx, rc, name, wanted, launches, dt, start_event):
    """A job's "done" progress event; for the default variant, what the job
    ran (`seen`), per family of a sweep job too; with a variant's fallback
    pattern, its log lines that match it."""
    done_event = {
        "job": f"{rc.vname}/{rc.n}/{name}",
        "event": "done",
        "seconds": round(dt, 3),
        "ranks": rc.n,
        "executable": name,
        "variant": rc.vname,
    }
    if name == SWEEP_EXECUTABLE:
        done_event["families"] = wanted
    if launches:  # each launch's seconds, exit code and where its process spent them
        done_event["launches"] = launches
    if rc.vname == "default":
        note_seen(ctx, rc, name, wanted, start_event["offset"], done_event)
    pattern = (rc.variant.get("fallback") or {}).get("pattern")
    if pattern:
        hits = []
        for log in sorted(rc.logdir.glob(f"{name}-{rc.n}ranks*.log")):
            hits += [
                line
                for line in log.read_text(errors="replace").splitlines()
                if re.search(pattern, line)
            ]
        done_event["fallback_lines"] = len(hits)
        if hits:
            rc.vrow["fallback_jobs"].append(
                {"job": f"{name}@{rc.n}", "lines": len(hits), "example": hits[0][:300]}
            )
    return done_event


def note_seen(ctx, rc, name, wanted, offset, done_event):
    """What a default variant's job ran, [routine, mode, kind], into its done
    event and `seen`; a sweep job's per family, each in a progress event."""
    n = rc.n
    job_records = read_journal(ctx.journal, offset)  # read once for both uses
    done_event["seen"] = sorted(
        {
            (r["case"].get("routine"), r["case"].get("mode"), case_kind(r["case"]))
            for r in job_records
            if isinstance(r.get("case"), dict)
        }
    )
    ctx.seen[(n, name)] = [tuple(x) for x in done_event["seen"]]
    if name != SWEEP_EXECUTABLE:
        return
    # What each family of the combined job ran, for the variants' jobs that
    # follow (and a resumption): its records, told apart by the families'
    # tests the job's log lists.
    for member, member_seen in family_seen(rc.logdir, name, n, wanted, job_records):
        ctx.seen[(n, member)] = [tuple(x) for x in member_seen]
        append_line(
            ctx.progress_path,
            json.dumps(
                {
                    "job": f"seen/{n}/{member}",
                    "event": "done",
                    "ranks": n,
                    "executable": member,
                    "variant": rc.vname,
                    "seen": member_seen,
                },
                sort_keys=True,
            ),
        )


def report_crossing(ctx, rc, name):
    """The crossing check's coverage figure (conformance/crossing/), from its
    job log, and the space it crossed (the report's coverage matrix: invalid
    and unavailable pairs): the default variant's in run.crossing, another
    variant's (its own array, over what it selects) in
    run.crossing_variants[variant]."""
    if name not in ("ordo_check_crossing", SWEEP_EXECUTABLE):
        return
    log = rc.logdir / f"{name}-{rc.n}ranks.log"
    if not log.is_file():
        return
    label = "" if rc.vname == "default" else f"[{rc.vname}] "
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("ordo crossing: "):
            print(f"      {label}{line[len('ordo crossing: '):]}", flush=True)
        elif line.startswith("ordo crossing-space: "):
            try:
                space = json.loads(line[len("ordo crossing-space: ") :])
            except ValueError:
                # a line cut short by a dying job: the matrix shows no reasons
                continue
            if rc.vname == "default":
                ctx.run.setdefault("crossing", {})[str(rc.n)] = space
            else:
                spaces = ctx.run.setdefault("crossing_variants", {})
                spaces.setdefault(rc.vname, {})[str(rc.n)] = space


# ---- the end ----


def report_run(ctx):
    """The end of the run: run.json's end, summary and variants' outcomes,
    the table of rank counts, the coverage table, then finish()."""
    run, out = ctx.run, ctx.out
    records = read_journal(ctx.journal)
    run["end"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds"
    )
    run["summary"] = summarize(records)
    run["variant_outcomes"] = variant_outcomes(records, ctx.per_variant)
    write_json_atomic(out / "run.json", run)
    print(f"\n{'variant':40} {'ranks':>5} {'seconds':>8}  outcomes")
    for row in run["per_rank_count"]:
        print(
            f"{row.get('variant', 'default'):40} {row['ranks']:>5} "
            f"{row['seconds']:>8.1f}  "
            + ", ".join(f"{v} {o}" for o, v in sorted(row["outcomes"].items()))
        )
    if len(ctx.options.chosen) > 1:
        print("\n" + format_variant_outcomes(run["variant_outcomes"]))
    print(
        f"total: {len(records)} checks: "
        + ", ".join(f"{v} {o}" for o, v in sorted(run["summary"].items()))
    )
    table = coverage_table(records)
    (out / "coverage.txt").write_text(table)
    print("\n" + table)
    # the report reads the journal again: a sweep's records are gigabytes
    del records
    return finish(
        out,
        ctx.journal,
        ctx.adapter["name"],
        run,
        keep_cache=getattr(ctx.args, "keep_cache", False),
    )


def finish(out, journal, vendor, run, keep_cache=False):
    """The end of a run (run.json has its end: it is not resumed): the journal
    compressed (journal.jsonl.gz, every byte kept), the cache/ folder deleted
    (only later launches of the same run read it; --keep-cache keeps it), its
    report, and its exit code, which follows the rule the headline states
    (reports/results.py findings): 1 when a check of any level, or of ordo's
    own code, failed, crashed or timed out; from the journal's records, read
    as the report reads them, when no report could be written.
    """
    journal = compress_journal(journal) or journal
    if not keep_cache:
        shutil.rmtree(out / "cache", ignore_errors=True)
    print(f"journal: {journal}\nrun:     {out / 'run.json'}", flush=True)
    written = write_run_reports(out)
    if written:
        summary = written[0]["summary"]
    else:
        checked, _ = results.read_journal(journal, vendor)
        for r in checked:
            r.pop("_line", None)
        summary = results.summarize(checked, partial=False, run=run)
    return EXIT_FAIL if results.findings(summary) else EXIT_OK


FAMILY_TESTS = protocol.FAMILY_TESTS


def family_seen(logdir, name, n, families, records) -> list:
    """Per family of a combined job (ordo_sweep_checks): what it ran, [routine,
    mode, kind] as a job of its own records in `seen`. The families' tests
    come from the line each launch of the job writes to its log
    (check_main.cpp's select_families); a family whose tests no log names is
    left out (the variants then survey it as before)."""
    tests = {}
    for log in sorted(logdir.glob(f"{name}-{n}ranks*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(FAMILY_TESTS):
                try:
                    listed = json.loads(line[len(FAMILY_TESTS) :])
                except ValueError:
                    continue  # cut short by a dying launch
                for family, names in listed.items():
                    for t in names:
                        tests[t] = f"ordo_check_{family}"
    out: dict = {f: set() for f in families if f in set(tests.values())}
    for r in records:
        family = tests.get(r.get("test"))
        if family in out and isinstance(r.get("case"), dict):
            out[family].add(
                (r["case"].get("routine"), r["case"].get("mode"), case_kind(r["case"]))
            )
    return [(f, sorted(v)) for f, v in sorted(out.items())]


def fold_rank_env(row, job, reported):
    """Folds what each rank of a job reported of its environment
    (protocol.rank_envs) into a rank count's row of run.json: "rank_env",
    {world rank: {variable: value, null when unset}} as the first job that
    reported it saw it, and "rank_env_differs", any later job whose rank saw
    other values ({"job", "rank", "env"}; the jobs of a rank count share
    their launch environment, so it stays absent unless the launcher
    changed it)."""
    for rank, env in reported.items():
        known = row.setdefault("rank_env", {})
        if str(rank) not in known:
            known[str(rank)] = env
        elif known[str(rank)] != env:
            row.setdefault("rank_env_differs", []).append(
                {"job": job, "rank": rank, "env": env}
            )


def placement_fields(nodes, where, run, n):
    """What the runner's own records (a crash, a timeout) say of the placement."""
    if nodes is None:
        return {}
    seen = (run.get("node_maps") or {}).get(str(n), {}).get("node_map")
    return {"nodes": nodes, "placement": where, **({"node_map": seen} if seen else {})}


def record_node_map(run, out, adapter, prefix, n, bdir, plan, nodes, where, settings):
    """The node map the library shows at n ranks, into run.json; with --nodes
    it must be the one asked for (exit 3 otherwise, before any check ran)."""
    found, tail = placement_mod.probe(adapter, prefix, n, bdir)
    row = {
        "node_map": found["node_map"] if found else None,
        "processor_names": found.get("processor_names") if found else None,
    }
    if plan:
        row.update(
            {"asked": plan["groups"], "method": plan["method"]["name"], **settings}
        )
    run["node_maps"][str(n)] = row
    write_json_atomic(out / "run.json", run)
    shown_ranks = sorted(r for group in (row["node_map"] or []) for r in group)
    if found and shown_ranks != list(range(n)):
        # n processes that are not one MPI job of n (singletons of a launcher
        # whose MPI plugin the library does not speak, e.g. srun --mpi=pmix for
        # MPICH): no check may run so, it would judge nothing.
        raise OrdoError(
            f"at {n} ranks the launcher's job showed a world of "
            f"{len(shown_ranks)} process"
            f"{'es' if len(shown_ranks) != 1 else ''} "
            f"(node map {placement_mod.describe(found)}, "
            f"launcher {launcher_words(adapter, prefix)}): the launcher did not "
            f"start one MPI job of {n}; with srun, is the MPI plugin the "
            "library's (srun --mpi=list, --launcher srun-mpi)?",
            EXIT_INFRA,
        )
    if plan:
        placement_mod.verify(
            found,
            plan["groups"],
            vendor=adapter["name"],
            nodes=nodes,
            placement=where,
            ranks=n,
            where="ordo_replay --ordo-node-map"
            + ("" if found else f"; its output: {tail}"),
        )
    shown = placement_mod.describe(found) if found else f"no node map ({tail})"
    print(
        f"ordo: node map at {n} ranks: {shown}"
        + (f" ({plan['method']['name']})" if plan else ""),
        flush=True,
    )


def launcher_words(adapter, prefix):
    """The launcher and its flags of a prefix, without the variables set before it."""
    name = pathlib.Path(adapter["launcher"]["command"]).name
    at = next((i for i, w in enumerate(prefix) if pathlib.Path(w).name == name), 0)
    return " ".join(prefix[at:])


def verify_job_logs(logdir, n, expected, vendor, nodes, where):
    """Every job log at n ranks in logdir shows the asked node map; returns
    how many did."""
    count = 0
    for log in sorted(logdir.glob(f"*-{n}ranks*.log")):
        found = placement_mod.parse_node_map(log.read_text(errors="replace"))
        if found is None:
            continue  # a job that ended before MPI_Init returned: its records say so
        placement_mod.verify(
            found,
            expected,
            vendor=vendor,
            nodes=nodes,
            placement=where,
            ranks=n,
            where=f"job log {log.name}",
        )
        count += 1
    return count


def variant_outcomes(records, per_variant) -> list:
    """Per variant: its outcomes and the checks that went wrong under it."""
    rows: dict = {}
    for r in records:
        v = r.get("variant") or "default"
        row = rows.setdefault(v, {"variant": v, "outcomes": {}, "bad": []})
        o = r.get("outcome")
        row["outcomes"][o] = row["outcomes"].get(o, 0) + 1
        if o in BAD + ("waived",):
            row["bad"].append(
                {
                    "id": r.get("id"),
                    "outcome": o,
                    "ranks": r.get("ranks"),
                    "clause": r.get("clause"),
                    "waiver": r.get("waiver"),
                }
            )
    for v, extra in per_variant.items():
        row = rows.setdefault(v, {"variant": v, "outcomes": {}, "bad": []})
        row.update({k: extra[k] for k in ("seconds", "fallback_jobs", "skipped_jobs")})
    return [rows[k] for k in sorted(rows, key=lambda x: (x != "default", x))]


def format_variant_outcomes(rows):
    lines = [
        f"{'variant':44} {'checks':>7} {'pass':>7} {'waived':>6} {'fail':>5} "
        f"{'crash':>5} {'timeout':>7}"
        "  fell back   failing checks"
    ]
    for row in rows:
        o = row["outcomes"]
        failing = sorted(
            {b["id"].split("#")[0] for b in row["bad"] if b["outcome"] != "waived"}
        )
        fb = sum(f["lines"] for f in row.get("fallback_jobs", []))
        lines.append(
            f"{row['variant']:44} {sum(o.values()):>7} {o.get('pass', 0):>7} "
            f"{o.get('waived', 0):>6} "
            f"{o.get('fail', 0):>5} {o.get('crash', 0):>5} {o.get('timeout', 0):>7}  "
            f"{(str(fb) + ' msgs') if fb else '-':10}  "
            + (
                ", ".join(failing[:4])
                + (f" (+{len(failing) - 4})" if len(failing) > 4 else "")
            )
        )
    return "\n".join(lines)

"""The ordo command line (run with Debian's /usr/bin/python3 by ./ordo):
argument parsing and dispatch only; the work is done in tools/runner/.

    ordo run      build against an MPI library and run the conformance checks
    ordo test     build and run the project's own tests (what CI runs)
    ordo replay   run one case again (from a failure message or a journal record)
    ordo list     list vendors, clauses or checks
    ordo doctor   is this machine ready, and what to install
    ordo report   results.json.gz and the HTML / Markdown / JUnit / TAP views of a run
    ordo compare  several runs side by side in one HTML page
                  (--records: their records check by check)
    ordo gate     fail when a run got worse than a baseline (CI)
    ordo package  the procurement package of a run, with its verifier
    ordo mutants  the checks against every mutant of vendors/mutants
    ordo bench    the suite's benchmarks in one table
    ordo findings the library faults ordo found, and a bug report for each
    ordo systems  the roots of other Debian releases that `run --system` runs in

Exit codes: 0 conformant / passed, 1 conformance failures, 2 usage or set-up
error, 3 infrastructure failure.
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (tools/bench.py)
import mutants  # noqa: E402  (tools/mutants.py)
from runner.arguments import DEFAULT_RANKS  # noqa: E402
from runner.ctest_job import cmd_job  # noqa: E402
from runner.errors import EXIT_INFRA, EXIT_USAGE, OrdoError  # noqa: E402
from runner.findings import cmd_findings  # noqa: E402
from runner.info import cmd_doctor, cmd_list  # noqa: E402
from runner.replay import cmd_replay  # noqa: E402
from runner.reporting import (  # noqa: E402
    cmd_compare,
    cmd_gate,
    cmd_package,
    cmd_report,
)
from runner.run import cmd_run  # noqa: E402
from runner.selftest import cmd_test  # noqa: E402
from runner import recheck, systems  # noqa: E402


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments get one line and exit 2, as every usage error of ordo does
    (argparse itself prints the whole usage first); its subcommands' parsers are
    of this class too."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"ordo: {message} (see `{self.prog} --help`)\n")


def findings_command(args):
    """`ordo findings`: --recheck goes to runner.recheck (which uses
    runner.findings), the rest to runner.findings."""
    if getattr(args, "recheck", False):
        return recheck.cmd_recheck(args)
    return cmd_findings(args)


def build_parser():
    """The whole command line: every subcommand and its options (main(); the CI
    templates' test checks every ./ordo line of .github/ and ci/ against it;
    tools/docs_options.py renders the options tables of docs/ from it)."""
    p = OneLineParser(
        prog="ordo", description="Conformance suite for the reduction semantics of MPI."
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run the conformance checks against an MPI library")
    r.add_argument(
        "--vendor",
        default="mpich",
        metavar="NAME|FILE",
        help="the MPI library: a vendor of vendors/ or a site's adapter file "
        "(default: %(default)s)",
    )
    r.add_argument(
        "--ranks",
        default=DEFAULT_RANKS,
        metavar="LIST",
        help="rank counts, e.g. 1,2,3 or 1-8 (default: %(default)s)",
    )
    r.add_argument(
        "--out",
        metavar="DIR",
        help="output folder, which must not hold a run already "
        "(default: out/run-<vendor>-<time>)",
    )
    r.add_argument(
        "--env",
        action="append",
        metavar="K=V",
        help="add to the environment of every rank (repeatable)",
    )
    r.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="N",
        help="base seed of the inputs (default: %(default)s)",
    )
    r.add_argument(
        "--timeout",
        type=int,
        default=600,
        metavar="S",
        help="seconds allowed per check executable and rank count "
        "(default: %(default)s)",
    )
    r.add_argument(
        "--filter",
        metavar="TEXT",
        help="run only the check executables whose name contains TEXT "
        "(or one of several, comma-separated: crossing,in_place); only they "
        "and what they need are built",
    )
    r.add_argument(
        "--only",
        metavar="GLOBS",
        help="run only the checks (GoogleTest names, e.g. 'Reduce.*:Scan.*') that "
        "match",
    )
    r.add_argument(
        "--case-timeout",
        type=float,
        default=60,
        metavar="S",
        help="the longest limit of a case in seconds; each case's own limit is "
        "derived from what cases of its kind took in this run (default: %(default)s)",
    )
    r.add_argument(
        "--case-floor",
        type=float,
        default=10,
        metavar="S",
        help="the least derived case limit in seconds (default: %(default)s)",
    )
    r.add_argument(
        "--hung-case-floor",
        type=float,
        default=1,
        metavar="S",
        help="the least limit in seconds of a case of a kind that already hung "
        "at this rank count (default: %(default)s)",
    )
    r.add_argument(
        "--max-restarts",
        type=int,
        default=50,
        metavar="N",
        help="resumptions of a job after crashes or timeouts that no waiver "
        "explains, per family (default: %(default)s)",
    )
    r.add_argument(
        "--plain-launch",
        action="store_true",
        help="do not apply the adapter's launch settings",
    )
    r.add_argument(
        "--variants",
        default="default",
        metavar="LIST",
        help="the library's algorithm variants to run the checks under: default, "
        "all, or names and patterns a,b,c (`ordo list variants`; default: "
        "%(default)s)",
    )
    r.add_argument(
        "--property-budget",
        default="2000",
        metavar="N|Ns",
        help="the property phase: N cases per rank count, or N seconds in all; "
        "0 turns it off (default: %(default)s)",
    )
    r.add_argument(
        "--depth",
        type=int,
        default=2,
        metavar="2|3",
        help="the crossing check's covering array: every valid pair (2) or "
        "triple (3) of case values (default: %(default)s)",
    )
    r.add_argument(
        "--huge",
        action="store_true",
        help="also run the `huge` check's cases, each one call of a large-count "
        "binding on more than 2^31 bytes (several GiB per process); without it "
        "each is a skip that says so",
    )
    r.add_argument(
        "--run-known-fatal",
        action="store_true",
        help="also run the cases that a crash or timeout waiver names for the "
        "installed release; without it each is a skip that names its waiver",
    )
    r.add_argument(
        "--run-hung-kinds",
        action="store_true",
        help="run every case of a key that keeps hanging in this run; without it, "
        "after two hangs in a row its further cases are skips that name the hangs, "
        "and 1 in 2, 5, 17, ... of them still runs",
    )
    r.add_argument(
        "--sanitize",
        action="store_true",
        help="use the AddressSanitizer/UBSan build of ordo's own code "
        "(build/<vendor>-sanitize/)",
    )
    r.add_argument(
        "--abi",
        action="store_true",
        help="build the C and C++ checks once through the MPI-5.0 standard ABI "
        "(the standard mpi.h, libmpi_abi.so.1; build/<system>/mpi-abi/) and run "
        "them against the ABI library of --vendor (or of --abi-library)",
    )
    r.add_argument(
        "--abi-library",
        metavar="NAME|PATH",
        help="with --abi: the library to run against, mpich or openmpi (launched "
        "by that adapter), or a libmpi_abi.so.1 file (launched by --vendor's)",
    )
    r.add_argument(
        "--nodes",
        type=int,
        metavar="N",
        help="make the library believe its ranks sit on N nodes of this machine "
        "(the adapter's virtual_nodes); the node map it shows must match",
    )
    r.add_argument(
        "--placement",
        metavar="P",
        help="with --nodes: block (default), cyclic, first-alone (rank 0 alone on "
        "its node) or sizes:A,B,... (ranks per node)",
    )
    r.add_argument(
        "--launcher",
        metavar="NAME|FILE",
        help="start every job through a launcher template (srun, srun-mpi, "
        "mpiexec-hostfile, mpiexec-hydra-hostfile, or a site's file) instead of "
        "the adapter's launcher",
    )
    r.add_argument(
        "--launch-per-family",
        action="store_true",
        help="launch each family's check executable on its own instead of one "
        "ordo_sweep_checks per variant and rank count (the same records)",
    )
    r.add_argument(
        "--no-expect-cache",
        action="store_true",
        help="plan every case with the reference at every rank, never from the "
        "run's expected-result cache (the same verdicts, slower)",
    )
    r.add_argument(
        "--keep-cache",
        action="store_true",
        help="keep the run's cache/ folder when the run ends",
    )
    r.add_argument(
        "--resume",
        metavar="DIR",
        help="finish an interrupted run in DIR (its settings are reused)",
    )
    systems.add_options(r)
    r.set_defaults(func=cmd_run)

    # One executable at one rank count, as CTest runs it: no help= keeps it out of
    # the command list (and of docs/).
    j = sub.add_parser("job")
    j.add_argument("--vendor", required=True)
    j.add_argument("--build-dir", required=True)
    j.add_argument("--ranks", type=int, required=True)
    j.add_argument("--out", required=True)
    j.add_argument("--timeout", type=int, default=600)
    j.add_argument("--case-timeout", type=float, default=60)
    j.add_argument("executable")
    j.set_defaults(func=cmd_job)

    t = sub.add_parser("test", help="build and run the project's own tests")
    t.add_argument(
        "--vendors",
        help="comma-separated vendors to test against (default: mpich,openmpi)",
    )
    t.add_argument(
        "--sanitize-only",
        action="store_true",
        help="only the sanitizer step: ordo's own code under ASan/UBSan against "
        "reference-mpich",
    )
    t.set_defaults(func=cmd_test)
    t.add_argument(
        "--lint-only",
        action="store_true",
        help="only the lint steps: black, flake8, mypy and shellcheck",
    )

    rp = sub.add_parser("replay", help="run one case again")
    rp.add_argument(
        "--vendor",
        default="mpich",
        metavar="NAME|FILE",
        help="the MPI library, as for `run` (default: %(default)s)",
    )
    rp.add_argument(
        "--ranks",
        default=None,
        metavar="N",
        help="the rank count (default: 2, or with --record the record's own; an id"
        " that ran at several rank counts needs it)",
    )
    rp.add_argument(
        "--case", metavar="JSON", help="the case as JSON, as a failure prints it"
    )
    rp.add_argument(
        "--abi",
        action="store_true",
        help="through the MPI-5.0 standard ABI's build, as `run --abi` (an ABI "
        "run's replay commands say so)",
    )
    rp.add_argument(
        "--abi-library",
        metavar="NAME|PATH",
        help="with --abi: the library to run against, as for `run`",
    )
    rp.add_argument(
        "--record",
        metavar="JOURNAL:ID",
        help="a record of a journal (journal.jsonl or journal.jsonl.gz), by id",
    )
    rp.add_argument(
        "--clause", metavar="SLUG", help="the clause to report the case under"
    )
    rp.add_argument(
        "--level",
        choices=["MUST", "SHOULD", "DETECT", "INFO"],
        help="the level to judge the case at, DETECT for an erroneous call "
        "(default: MUST, or the record's own with --record)",
    )
    rp.add_argument(
        "--variant",
        metavar="NAME",
        help="under an algorithm variant's settings (default: the record's own "
        "with --record)",
    )
    rp.add_argument(
        "--env",
        action="append",
        metavar="K=V",
        help="add to the environment of every rank (repeatable)",
    )
    rp.add_argument(
        "--timeout",
        type=int,
        default=120,
        metavar="S",
        help="seconds the case may run (default: %(default)s)",
    )
    rp.add_argument(
        "--plain-launch",
        action="store_true",
        help="do not apply the adapter's launch settings",
    )
    rp.add_argument(
        "--sanitize",
        action="store_true",
        help="in the AddressSanitizer/UBSan build (as `run --sanitize`)",
    )
    rp.add_argument(
        "--nodes", type=int, metavar="N", help="on N virtual nodes (as `run --nodes`)"
    )
    rp.add_argument(
        "--launcher",
        metavar="NAME|FILE",
        help="through a launcher template (as `run --launcher`)",
    )
    rp.add_argument(
        "--placement",
        metavar="P",
        help="with --nodes: the placement (as `run --placement`)",
    )
    systems.add_options(rp)
    rp.set_defaults(func=cmd_replay)

    ls = sub.add_parser("list", help="list vendors, clauses or checks")
    ls.add_argument(
        "what",
        choices=["vendors", "clauses", "checks", "variants"],
        help="what to list",
    )
    ls.add_argument(
        "--vendor",
        default="mpich",
        help="the library whose variants to list (default: mpich)",
    )
    ls.set_defaults(func=cmd_list)

    d = sub.add_parser("doctor", help="is the environment ready, and what to install")
    d.set_defaults(func=cmd_doctor)

    mu = sub.add_parser(
        "mutants", help="run the checks against every mutant of vendors/mutants"
    )
    mutants.add_arguments(mu)
    systems.add_options(mu)
    mu.set_defaults(func=mutants.run)

    be = sub.add_parser(
        "bench",
        help="the suite's benchmarks in one table (fold, properties, runs, mutants)",
    )
    bench.add_arguments(be)
    be.set_defaults(func=bench.run)

    fi = sub.add_parser(
        "findings",
        help="the library faults ordo found (vendors/*/findings/), and a bug report "
        "for each",
        description="Lists the findings (the reproducers of vendors/*/findings/, by "
        "file stem) with their library, their waivers and whether they are reported "
        "upstream; with --report ID, writes the Markdown of a bug report for that "
        "finding.",
    )
    fi.add_argument(
        "--report",
        metavar="ID",
        help="the finding (its reproducer's file stem) to write the report of",
    )
    fi.add_argument(
        "--run",
        action="store_true",
        help="with --report: build and run the reproducer here and put its "
        "output and exit status in the report",
    )
    fi.add_argument(
        "--variant",
        metavar="NAME",
        help="with --run: the algorithm variant to run it under, 'default' for "
        "none (default: the first its waivers name)",
    )
    fi.add_argument(
        "--timeout",
        type=int,
        default=60,
        metavar="S",
        help="with --run: seconds the reproducer may run (default: %(default)s)",
    )
    fi.add_argument(
        "--out",
        metavar="FILE",
        help="write the report into FILE instead of standard output "
        "(with --recheck: the folder DIR of its JSON and Markdown)",
    )
    recheck.add_arguments(fi)
    fi.set_defaults(func=findings_command)
    sy = sub.add_parser(
        "systems",
        help="list, make or remove the roots of other Debian releases (run --system)",
        description="A system is a root of another Debian release (made by mmdebstrap) "
        "holding ordo's build dependencies and that release's MPICH and Open MPI; "
        "`ordo run --system NAME` builds and runs inside it (bubblewrap). Known: "
        + ", ".join(f"{k} ({v})" for k, v in sorted(systems.SYSTEMS.items()))
        + ".",
    )
    sy.add_argument(
        "action",
        nargs="?",
        choices=["list", "make", "remove"],
        help="list (default), make or remove",
    )
    sy.add_argument("name", nargs="?", metavar="NAME", help="the system (make, remove)")
    sy.add_argument(
        "--mirror",
        metavar="URL",
        help="the Debian archive to make a root from (default: the one the "
        "host's apt uses)",
    )
    systems.add_options(sy, run_like=False)
    sy.set_defaults(func=systems.cmd_systems)

    add_report_parsers(sub)
    return p


def main(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if not args.command:
        p.print_help()
        return EXIT_USAGE
    try:
        if args.command in (
            "run",
            "replay",
            "mutants",
        ):  # --system NAME: the whole command again, inside the root
            rc = systems.maybe_run_inside(
                args, sys.argv[1:] if argv is None else list(argv)
            )
            if rc is not None:
                return rc
        return args.func(args)
    except OrdoError as e:
        print(f"ordo: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("ordo: interrupted", file=sys.stderr)
        return EXIT_INFRA


def add_report_parsers(sub):
    rp = sub.add_parser(
        "report",
        help="write results.json.gz and the HTML / Markdown / JUnit / TAP views of a "
        "run",
        description="Builds results.json.gz from an output folder (run.json + "
        "journal.jsonl, or journal.jsonl.gz once the run has ended; a run without an "
        "end is reported as partial) and writes report.html, summary.md, junit.xml and "
        "report.tap next to it; or re-generates the views of a results.json.gz (or of "
        "a results.json of version 1).",
    )
    rp.add_argument(
        "source",
        metavar="OUT",
        help="an output folder of `ordo run`, or a results.json.gz (or results.json)",
    )
    rp.add_argument(
        "--out", metavar="DIR", help="write into DIR instead of next to the source"
    )
    rp.set_defaults(func=cmd_report)

    cp = sub.add_parser(
        "compare",
        help="several runs side by side in one HTML page",
        description="Writes DIR/compare.html: verdicts, clauses, heat maps and every "
        "check whose outcome differs, one column per run (and variant); with runs of "
        "several releases also DIR/matrix.html and DIR/matrix.md, one column per "
        "release.",
    )
    cp.add_argument(
        "runs",
        nargs="+",
        metavar="OUT",
        help="output folders or results.json.gz (or results.json) files",
    )
    cp.add_argument(
        "--out", metavar="DIR", help="output folder (default: out/compare-<time>)"
    )
    cp.add_argument(
        "--matrix",
        action="store_true",
        help="also write the release matrix (DIR/matrix.html, DIR/matrix.md): "
        "findings, clauses and new failures per release; on by itself when the "
        "runs are of more than one release or library",
    )
    cp.add_argument(
        "--findings",
        metavar="FILE",
        help="the results of `ordo findings --recheck` "
        "(bench/results/findings_recheck.json) for the matrix's findings table "
        "(implies --matrix)",
    )
    cp.add_argument(
        "--records",
        action="store_true",
        help="compare two output folders' journals record by record, times and "
        "paths left out; exit 0 when identical, 1 otherwise",
    )
    cp.add_argument(
        "--new-field",
        action="append",
        default=[],
        metavar="NAME",
        help="with --records: a record field the second run may add, counted, "
        "not compared (repeatable)",
    )
    cp.set_defaults(func=cmd_compare)

    gp = sub.add_parser(
        "gate",
        help="exit 1 when a run got worse than a baseline, or covers less of it",
        description="Exit 0: nothing got worse and nothing was lost. Exit 1, with a "
        "line per cause (per check, up to a limit): a check that passed (or was waived "
        "or skipped, or is new) now fails, crashes or times out; a check of the "
        "baseline is not in the new run; the new run has no checks or fewer than the "
        "baseline; a check that passed is now a skip, or waived (unless "
        "--accept-waiver names its waiver); the library (vendor and release), the rank "
        "counts or the variants differ from the baseline's (unless accepted by "
        "--accept-library-change, --accept-ranks-change, --accept-variants-change); a "
        "case not run as a known crash or hang (--ordo-avoid-known-fatal) whose "
        "waiver, judged again by the waivers file, no longer names it; a waiver has no "
        "reason, no expiry date, or has expired, or does not apply to a check it "
        "waived; or the new run is partial. The new checks are listed by outcome, each "
        "that arrives waived or skipped on its own line. Exit 2: a file cannot be read "
        "or does not follow its schema, or --accept-waiver names no waiver of the "
        "waivers file.",
    )
    gp.add_argument(
        "--baseline",
        required=True,
        metavar="OLD",
        help="the baseline: results.json.gz, results.json or output folder",
    )
    gp.add_argument(
        "new",
        metavar="NEW",
        help="the new run: results.json.gz, results.json or output folder",
    )
    gp.add_argument(
        "--waivers",
        metavar="FILE",
        help="the waivers file (default: the new run's adapter's)",
    )
    gp.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        help="judge waiver expiry on this date (default: today, UTC)",
    )
    gp.add_argument(
        "--accept-waiver",
        action="append",
        default=[],
        metavar="ID",
        help="accept that the waiver ID waives or holds back checks that passed "
        "in the baseline (repeatable)",
    )
    gp.add_argument(
        "--accept-library-change",
        action="store_true",
        help="accept a new run of another library (vendor or release) than the "
        "baseline's",
    )
    gp.add_argument(
        "--accept-ranks-change",
        action="store_true",
        help="accept a new run of other rank counts than the baseline's; the "
        "baseline's checks at the others are set aside",
    )
    gp.add_argument(
        "--accept-variants-change",
        action="store_true",
        help="accept a new run of other variants than the baseline's; the "
        "baseline's checks of the others are set aside",
    )
    gp.set_defaults(func=cmd_gate)

    pp = sub.add_parser(
        "package",
        help="the procurement package of a run, with its verifier",
        description="Writes into DEST the report, results.json.gz, the adapter used, "
        "the exact commands, the suite's commit and git status, the raw output, a "
        "statement template to sign, and verify.py (checksums and schema); then "
        "verifies it.",
    )
    pp.add_argument(
        "source",
        metavar="OUT",
        help="an output folder of `ordo run`, or a results.json.gz (or results.json)",
    )
    pp.add_argument(
        "--dest",
        required=True,
        metavar="DIR",
        help="a new (or empty) folder for the package",
    )
    pp.set_defaults(func=cmd_package)


if __name__ == "__main__":
    sys.exit(main())

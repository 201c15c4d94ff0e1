"""The runner: everything `./ordo` does besides parsing its arguments
(tools/ordo_cli.py). One module per concern:

    errors       OrdoError and the exit codes
    adapters     an MPI library's adapter: tools, templates, launch environment,
                 launcher
    arguments    rank lists and KEY=VALUE values of the command line
    build        cmake configure and build; the library's version; the suite's git state
    launch       THE command line of a job (timeout, launcher, ranks, executable,
                 --ordo-* flags)
    protocol     the files a job leaves beside its journal, and which case a dead job is
                 charged to
    journal      appending to a journal, its offsets, a cut last line (records:
                 reports/records.py)
    job          one executable at one rank count, resumed after crashes and timeouts
    waivers      the waivers a job is judged with (matching: reports/waivers.py)
    variants     the library's algorithm variants (`--variants`)
    survey       which cases an executable has, and which a variant selects
    properties   the property phase (`--property-budget`)
    progress     an output folder under way: lock, progress.jsonl, run.json, resume
    coverage     checks per clause
    run          `ordo run`
    ctest_job    `ordo job` (CTest's command for one executable)
    replay       `ordo replay`
    selftest     `ordo test`
    lint         its lint steps: black, flake8, mypy, shellcheck
    info         `ordo list`, `ordo doctor`
    reporting    `ordo report`, `compare`, `gate`, `package` (over reports/)
    findings     `ordo findings`: the reproducers of vendors/*/findings/ and a bug
                 report for each

The runner imports reports/ (records, waivers); reports/ never imports the runner.
"""
import pathlib
import sys


ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:  # the reports package
    sys.path.insert(0, str(ROOT))

"""`ordo report`, `compare`, `gate` and `package`: the commands over reports/,
and the report written at the end of `ordo run`."""
import datetime
import pathlib
import subprocess
import sys

from . import ROOT
from .errors import EXIT_FAIL, EXIT_INFRA, EXIT_OK, EXIT_USAGE, OrdoError


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
    """At the end of `ordo run`: results.json and every view; a failure here never loses
    the journal. Returns (the report, the paths of its files), or None when it could not
    be written.
    """
    try:
        rep = _reports()
        report, paths = rep.views.write_for_output_folder(out)
    except Exception as e:  # the run's own results are safe in journal.jsonl
        print(
            (
                f"ordo: the report could not be written ({e}); `ordo report {out}`"
                " tries again"
            ),
            file=sys.stderr,
        )
        return None
    print(
        f"report:  {paths['html']}\n         {paths['results']},"
        f" {paths['markdown'].name}, {paths['junit'].name},"
        f" {paths['tap'].name}\nverdict:"
        f" {report['summary'].get('headline') or report['summary']['verdict']}"
    )
    return report, paths


def cmd_report(args):
    rep = _reports()
    from reports.records import journal_file

    src = pathlib.Path(args.source)
    try:
        # journal.jsonl, or journal.jsonl.gz
        if src.is_dir() and journal_file(src) is not None:
            dest = pathlib.Path(args.out) if args.out else src
            dest.mkdir(parents=True, exist_ok=True)
            report, results_path = rep.results.write(
                src, dest / rep.results.RESULTS_NAME
            )
        else:
            # results.json.gz, or a results.json of version 1
            report = rep.results.load(src)
            results_path = rep.results.results_file(src) if src.is_dir() else src
            dest = pathlib.Path(args.out) if args.out else results_path.parent
        paths = rep.views.write_all(report, dest)
    except rep.results.ReportError as e:
        raise _report_error(e)
    except OSError as e:
        raise OrdoError(f"cannot write the report: {e}")
    s = report["summary"]
    print(
        f"ordo: {report['run']['vendor']}: {s.get('headline') or s['verdict']}"
        + (" (PARTIAL run)" if report["partial"] else "")
        + f", {s['total']} checks: "
        + ", ".join(f"{n} {o}" for o, n in sorted(s["outcomes"].items()))
    )
    print(f"results: {results_path}")
    for kind in ("html", "markdown", "junit", "tap"):
        print(f"{kind + ':':8} {paths[kind]}")
    corrupt = s["outcomes"].get("corrupt", 0)
    if corrupt:  # written, and yet not a clean report: say so in the exit code
        raise OrdoError(
            (
                f"{corrupt} journal line(s) of {src} could not be read (a write cut"
                " short?); the report is written and marked partial; `./ordo run"
                f" --resume {src}` sets a cut last line aside and finishes the run"
            ),
            EXIT_INFRA,
        )
    return EXIT_OK


def cmd_compare(args):
    if args.records:
        return compare_records(args)
    rep = _reports()
    import reports.html
    import reports.matrix

    if len(args.runs) < 2 and not (args.matrix or args.findings):
        raise OrdoError(
            "compare needs at least two runs (output folders or results.json files)"
        )
    names = [str(r) for r in args.runs]
    model = None
    try:
        # The findings file first: a wrong one is refused before the runs are read.
        findings = (
            reports.matrix.load_findings(args.findings) if args.findings else None
        )
        loaded = [rep.results.obtain(r) for r in args.runs]
        wanted = args.matrix or findings is not None
        if wanted or reports.matrix.differ(loaded, names):
            model = reports.matrix.build(loaded, names, findings)
        page = reports.html.render_compare(
            loaded, names, "matrix.html" if model is not None else None
        )
    except rep.results.ReportError as e:
        raise _report_error(e)
    if not wanted and model is None and reports.matrix.differ(loaded, names) is None:
        print(
            "ordo: no release matrix: a run has no run.json (--matrix says which)",
            file=sys.stderr,
        )
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    dest = pathlib.Path(args.out or ROOT / "out" / f"compare-{stamp}")
    files = {"compare.html": page}
    if model is not None:
        files["matrix.html"] = reports.html.render_matrix(model)
        files["matrix.md"] = reports.matrix.markdown(model)
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (dest / name).write_text(text)
    except OSError as e:
        raise OrdoError(f"cannot write into {dest}: {e.strerror}")
    for r, path in zip(loaded, args.runs):
        s = r["summary"]
        print(
            f"  {r['run']['vendor']:10} {s['total']:6d} checks  {path}:"
            f" {s.get('headline') or s['verdict']}"
        )
    print(build_identity_line(loaded))
    print(f"comparison: {dest / 'compare.html'}")
    if model is not None:
        print(
            f"matrix:     {dest / 'matrix.html'}, {dest / 'matrix.md'}"
            f" ({len(model['columns'])} releases)"
        )
    return EXIT_OK


def build_identity_line(loaded):
    """Whether the runs ran identical executables (run.json's build_identity): the
    same build through the MPI ABI against two libraries shows one sha256."""
    hashes: list = [
        ((r.get("run") or {}).get("build_identity") or {}).get("sha256") or ""
        for r in loaded
    ]
    if not all(hashes):
        missing = sum(1 for h in hashes if not h)
        return (
            f"  build: {missing} of the runs recorded no build identity (runs"
            " before it was recorded): not compared"
        )
    if len(set(hashes)) == 1:
        return (
            f"  build: identical executables in every run (sha256 {hashes[0][:16]}...)"
        )
    return "  build: the executables differ: " + ", ".join(
        f"{h[:16]}..." for h in hashes
    )


def cmd_gate(args):
    rep = _reports()
    import reports.gate

    try:
        today = (
            datetime.date.fromisoformat(args.today)
            if args.today
            else datetime.datetime.now(datetime.timezone.utc).date()
        )
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
    known = {w.get("id") for w in waivers}
    for wid in args.accept_waiver:
        if wid not in known:
            raise OrdoError(
                f"--accept-waiver {wid}: {source} has no waiver of that id", EXIT_USAGE
            )
    decision = reports.gate.compare(
        baseline,
        new,
        waivers,
        today,
        accept_waivers=args.accept_waiver,
        accept_library=args.accept_library_change,
        accept_ranks=args.accept_ranks_change,
        accept_variants=args.accept_variants_change,
    )
    print(
        reports.gate.format_decision(
            decision, args.baseline, args.new, baseline, new, source
        )
    )
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
    headline = report["summary"].get("headline") or report["summary"]["verdict"]
    print(
        f"ordo: package of {report['run']['vendor']} ({headline}):"
        f" {len(files)} files in {dest}"
    )
    rc = subprocess.call([sys.executable, str(dest / "verify.py"), str(dest)])
    return EXIT_OK if rc == 0 else EXIT_INFRA


def compare_records(args):
    """`ordo compare --records A B`: two runs' journals, check by check."""
    _reports()
    from reports import record_diff

    if len(args.runs) != 2:
        raise OrdoError("compare --records takes two output folders of `ordo run`")
    a, b = args.runs
    try:
        result = record_diff.compare_folders(a, b, new_fields=tuple(args.new_field))
    except FileNotFoundError as e:
        raise OrdoError(str(e))
    print(record_diff.format_result(result, args.runs[0], args.runs[1]))
    return EXIT_OK if result["same"] else EXIT_FAIL

"""The procurement package: one folder that a buyer can archive and check.

    DEST/
      README.txt            what is here and how to verify it
      report.html summary.md junit.xml.gz report.tap.gz results.json.gz
      STATEMENT.md          a statement template to fill in and sign
      commands.txt          the exact commands of the run
      adapter/              the vendor adapter used (and its waivers, launch settings,
                            findings)
      suite/                the run's commit; commit, `git status` and diff of the
                            packaging checkout
      run/                  the raw output of the run: run.json.gz, journal.jsonl.gz,
                            logs/, gtest/
      schema/               results-2.schema.json, results-1.schema.json,
                            record-1.schema.json, junit.xsd
      verify.py             re-checks the checksums and the schema
      SHA256SUMS            checksums of every file above
"""
import gzip
import hashlib
import pathlib
import shlex
import shutil
import subprocess

from . import records as rec, results as res, views

HERE = pathlib.Path(__file__).resolve().parent


def _git(*args):
    try:
        p = subprocess.run(
            ["git", "-C", str(res.ROOT)] + list(args),
            capture_output=True,
            text=True,
            timeout=30,
        )
        return p.stdout if p.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _git_bytes(*args):
    try:
        p = subprocess.run(
            ["git", "-C", str(res.ROOT)] + list(args), capture_output=True, timeout=30
        )
        return p.stdout if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def _adapter_at_run_commit(report, target):
    """The adapter's folder as it was at the run's commit, when the run used a vendor of
    this repository."""
    run = report["run"]
    commit = run["git"].get("commit") or ""
    adapter = pathlib.Path(run.get("adapter") or "")
    if len(commit) != 40 or adapter.parent.parent.name != "vendors":
        return None
    folder = f"vendors/{adapter.parent.name}"
    listing = _git_bytes("ls-tree", "-r", "--name-only", commit, "--", folder)
    names = [n for n in (listing or b"").decode().split("\n") if n]
    if not names:
        return None
    for name in names:
        content = _git_bytes("show", f"{commit}:{name}")
        if content is None:
            return None
        path = target / pathlib.Path(name).relative_to(folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    note = (
        " (the run's checkout had local changes: see run/run.json, git.dirty)"
        if run["git"].get("dirty")
        else ""
    )
    return f"adapter/ holds {folder}/ as of the run's commit {commit}{note}.\n"


def _adapter_files(report):
    """The adapter used: its whole folder for a vendor of vendors/, else the file and
    its waivers."""
    path = report["run"].get("adapter")
    if not path or not pathlib.Path(path).is_file():
        candidate = res.ROOT / "vendors" / report["run"]["vendor"] / "adapter.json"
        path = str(candidate) if candidate.is_file() else None
    if not path:
        return None, []
    path = pathlib.Path(path)
    folder = path.parent
    if folder.parent == res.ROOT / "vendors":
        files = [
            p
            for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
        ]
    else:
        files = [path]
        waivers = report["waivers"].get("source")
        if waivers and pathlib.Path(waivers).is_file():
            files.append(pathlib.Path(waivers))
    return folder, files


def _commands(report, out_dir, dest):
    run = report["run"]
    q = lambda parts: " ".join(shlex.quote(str(p)) for p in parts)  # noqa: E731
    lines = [
        "# The exact commands of this run, as recorded in run/run.json.",
        "",
        "# 1. The suite at the commit of the run:",
        (
            "git clone <ordo repository> ordo && cd ordo && git checkout"
            f" {run['git'].get('commit', 'unknown')}"
        ),
        (
            "# (suite/git-status.txt shows whether the checkout had local changes;"
            " suite/git-diff.patch holds them)"
        ),
        "",
        "# 2. The run:",
        q(run["command"])
        if run["command"]
        else "# (not recorded: the run did not complete)",
    ]
    system = run.get("system")
    # where it ran (`ordo run --system NAME`: a root of that Debian release)
    if isinstance(system, dict):
        lines += [
            "#    on the system "
            + str(system.get("name") or "host")
            + ": "
            + str(
                (system.get("os_release") or {}).get("PRETTY_NAME") or "release unknown"
            )
            + "; packages:"
        ]
        lines += [
            f"#      {k} {v}" for k, v in sorted((system.get("packages") or {}).items())
        ]
    lines += [
        "",
        (
            "# 3. Each check executable was launched at each rank count N with this"
            " launcher"
        ),
        (
            "#    (tools/runner/launch.py, job_command, adds the executable and its"
            " --ordo-* and --gtest_output arguments):"
        ),
        q(run["launcher"]) if run["launcher"] else "# (not recorded)",
    ]
    if run.get("env"):
        lines += ["", "#    with this environment added to every rank:"] + [
            f"{k}={shlex.quote(v)}" for k, v in sorted(run["env"].items())
        ]
    lines += [
        "",
        (
            f"#    rank counts: {', '.join(map(str, run['ranks']))}; seed:"
            f" {run.get('seed')}"
        ),
        "",
        "# 4. This package was made with:",
        q(["./ordo", "package", out_dir, "--dest", dest]),
        "",
        "# 5. To verify it:",
        "/usr/bin/python3 verify.py",
        "",
        (
            "# 6. One failing case again (each record of results.json.gz carries its"
            " own replay command):"
        ),
        res.with_system(
            "./ordo replay --record run/journal.jsonl.gz:<check id> --vendor "
            + shlex.quote(run["vendor"])
            + " --ranks <N>",
            res.system_name(run),
        ),
    ]
    return "\n".join(lines) + "\n"


def _statement(report):
    run, summary = report["run"], report["summary"]
    waivers = {r.get("waiver") for r in report["records"] if r["outcome"] == "waived"}
    waivers |= {
        res.known_fatal_waiver(r)
        for r in report["records"]
        if res.known_fatal_waiver(r)
    }  # held back
    lines = [
        (
            "# Conformance statement (template: fill in, sign, and keep as"
            " STATEMENT-signed.*)"
        ),
        "",
        "Product (MPI library) and version: ______________________________",
        "",
        (
            "The library identifies itself as:"
            f" `{res.first_line(run.get('library_version')) or 'unknown'}`"
        ),
        f"(MPI version {run.get('mpi_version') or 'unknown'}).",
        "",
        f"Test suite: ordo {run['ordo_version']}, commit `{run['git'].get('commit')}`"
        + (" (modified: see suite/git-diff.patch)" if run["git"].get("dirty") else "")
        + ".",
        (
            f"Vendor adapter: {run['vendor']} (adapter/). Host:"
            f" {run['host']} ({run.get('platform', 'platform unknown')})."
        ),
        (
            f"Rank counts: {', '.join(map(str, run['ranks']))}. Seed:"
            f" {run.get('seed')}. Run from {run.get('start') or 'unknown'} to"
            f" {run.get('end') or 'unknown (incomplete run)'}."
        ),
        "",
        f"Result: **{summary.get('headline') or summary['verdict']}**"
        f" ({summary['total']} checks). "
        + "; ".join(
            f"{level}: {counts['verdict']} ({counts['total']})"
            for level, counts in ((lv, summary["levels"][lv]) for lv in rec.LEVELS)
        )
        + ".",
        res.known_fatal_sentence(summary),
    ]
    if report["partial"]:
        lines += [
            "",
            "This run is PARTIAL: " + "; ".join(report["partial_reasons"]) + ".",
        ]
    if waivers:
        lines += [
            "",
            "Waivers in effect (known library bugs, each with its upstream reference):",
        ]
        known = {w["id"]: w for w in report["waivers"]["waivers"]}
        for wid in sorted(w or "?" for w in waivers):
            w = known.get(wid, {})
            lines.append(
                f"- {wid}: {w.get('reason', '?')} ({w.get('upstream', '?')}), expires"
                f" {w.get('expires', '?')}"
            )
    lines += [
        "",
        (
            "I declare that the results in this package were produced by the commands"
            " in commands.txt, with the"
        ),
        (
            'ordo suite at the commit recorded in run/run.json ("git"), that no check'
            " was modified or removed"
        ),
        (
            "for this run, and that the files of this package are those listed in"
            " SHA256SUMS (verify.py)."
        ),
        "",
        (
            "Name: ______________________________   Organisation:"
            " ______________________________"
        ),
        "",
        "Role: ______________________________   Date: ______________________________",
        "",
        "Signature: ______________________________",
    ]
    return "\n".join(lines) + "\n"


README = """ordo procurement package
========================

A conformance run of the reduction semantics of MPI (ordo), with everything
needed to check it:

  report.html     the report (open in any browser; it loads nothing from the network)
  summary.md      a one-page summary
  junit.xml.gz    the checks as JUnit XML, gzip-compressed (passing checks summarised
                  per check and clause; every failing, crashed, timed-out and waived
                  check has its own element; `zcat junit.xml.gz > junit.xml` gives the
                  file CI tools read)
  report.tap.gz   the checks as TAP version 13, gzip-compressed (waived checks are
                  TODO tests; `zcat report.tap.gz` shows it)
  results.json.gz the run report every other file is generated from (gzip-compressed
                  JSON, schema/results-2.schema.json; `zcat results.json.gz` shows it)
  STATEMENT.md    a statement template: fill it in, sign it, keep it as
                  STATEMENT-signed.<ext>
  commands.txt    the exact commands of the run
  adapter/        the vendor adapter the run used (launcher, settings, waivers)
  suite/          the run's commit; the commit and `git status` of the checkout that
                  made the package
  run/            the raw output of the run (run.json.gz and journal.jsonl.gz: the
                  run's settings and its journal compressed with gzip, logs,
                  GoogleTest XML)
  verify.py       re-checks this package: /usr/bin/python3 verify.py
  SHA256SUMS      checksums of every file (also: sha256sum -c SHA256SUMS)

verify.py needs Debian's python3 and python3-jsonschema only.
"""


def _gzip_file(src, dest, keep=False):
    """dest: src gzip-compressed (reproducibly: no time stamp); src removed unless
    keep."""
    with open(src, "rb") as f, open(dest, "wb") as raw:
        with gzip.GzipFile(
            filename=pathlib.Path(src).name,
            mode="wb",
            fileobj=raw,
            compresslevel=6,
            mtime=0,
        ) as z:
            shutil.copyfileobj(f, z, 1 << 20)
    if not keep:
        pathlib.Path(src).unlink()


def make(out_dir, dest):
    """Builds the package; returns (report, list of files written)."""
    out = pathlib.Path(out_dir).resolve()
    dest = pathlib.Path(dest).resolve()
    if dest.exists() and any(dest.iterdir()):
        raise res.ReportError(f"{dest} is not empty; choose a new --dest folder")
    if dest == out or out in dest.parents:
        raise res.ReportError(
            f"--dest {dest} must not be inside the output folder {out}"
        )
    report = res.obtain(out)
    dest.mkdir(parents=True, exist_ok=True)
    res.dump(report, dest / res.RESULTS_NAME)
    report = res.load(dest / res.RESULTS_NAME)  # validated as read back
    paths = views.write_all(report, dest)
    # TAP has one line per check (a passing one's names it), JUnit an element with its
    # replay command for every waived, skipped or failing check: both kept compressed,
    # as the journal is (every byte kept; zcat)
    for kind in ("tap", "junit"):
        _gzip_file(paths[kind], paths[kind].with_name(paths[kind].name + ".gz"))
    (dest / "schema").mkdir()
    for name in (
        "results-2.schema.json",
        "results-1.schema.json",
        "record-1.schema.json",
        "junit.xsd",
    ):
        shutil.copy2(HERE / "schema" / name, dest / "schema" / name)
    shutil.copy2(HERE / "verify_package.py", dest / "verify.py")
    (dest / "verify.py").chmod(0o755)
    (dest / "README.txt").write_text(README)
    (dest / "STATEMENT.md").write_text(_statement(report))
    (dest / "commands.txt").write_text(_commands(report, str(out), str(dest)))
    (dest / "adapter").mkdir()
    source = _adapter_at_run_commit(report, dest / "adapter")
    if source is None:
        folder, files = _adapter_files(report)
        for f in files:
            target = (
                dest / "adapter" / f.relative_to(folder)
                if folder in f.parents
                else dest / "adapter" / f.name
            )
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
        source = (
            f"adapter/ holds {report['run'].get('adapter')} (with its folder or its"
            " waivers) as found when the package was made: the run's commit is not in"
            " this repository.\n"
            if files
            else (
                f"The adapter of this run ({report['run'].get('adapter')}) could not be"
                " found.\n"
            )
        )
    (dest / "adapter" / "SOURCE.txt").write_text(source)
    suite = dest / "suite"
    suite.mkdir()
    head = _git("rev-parse", "HEAD").strip() or "unknown"
    run_commit = report["run"]["git"].get("commit", "unknown")
    (suite / "commit.txt").write_text(
        f"run:     {run_commit} (dirty: {report['run']['git'].get('dirty')})\n"
        f"package: {head} (the checkout `ordo package` ran in)\n"
        + (
            ""
            if head == run_commit
            else "NOTE: the package was made from another commit than the run's.\n"
        )
    )
    (suite / "git-status.txt").write_text(
        _git("status", "--porcelain=v1", "--branch", "--untracked-files=all")
        or "(git status unavailable)\n"
    )
    diff = _git("diff", "HEAD")
    if diff:
        (suite / "git-diff.patch").write_text(diff)
    run_dir = dest / "run"
    run_dir.mkdir()
    if (
        out / "run.json"
    ).is_file():  # compressed: it lists the waived checks of each variant again
        _gzip_file(out / "run.json", run_dir / "run.json.gz", keep=True)
    journal = rec.journal_file(out)
    # a finished run's: as it is
    if journal is not None and journal.name == rec.COMPRESSED_JOURNAL:
        shutil.copyfile(journal, run_dir / rec.COMPRESSED_JOURNAL)
    # compressed (a default run's journal: 135 MB -> 4 MB), every byte kept
    elif journal is not None:
        with open(journal, "rb") as src, open(
            run_dir / rec.COMPRESSED_JOURNAL, "wb"
        ) as raw:
            with gzip.GzipFile(
                filename=rec.JOURNAL, mode="wb", fileobj=raw, compresslevel=6, mtime=0
            ) as z:
                shutil.copyfileobj(src, z, 1 << 20)
    for name in ("logs", "gtest"):
        if (out / name).is_dir():
            shutil.copytree(out / name, run_dir / name)
    files = sorted(p for p in dest.rglob("*") if p.is_file() and p.name != "SHA256SUMS")
    with open(dest / "SHA256SUMS", "w") as manifest:
        for p in files:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            manifest.write(f"{digest}  {p.relative_to(dest).as_posix()}\n")
    return report, files

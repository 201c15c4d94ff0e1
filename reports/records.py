"""Check records: the one Python module that makes them and reads them back.

A check record is one line of an output folder's journal.jsonl; its single
definition is schema/record-1.schema.json. The C++ harness and the property
executable write the records of the checks they run. Python writes only what
no MPI process could:

    case_died(...)          a case that ended its job (crash) or overran (timeout)
    job_died(...)           a job that died outside any case (between cases, before
                            its first, after its last): its own record, never a case's
    gave_up(...)            the restart budget of one executable used up
    not_run_reason(record)  a job's cases not run (the report is then partial)
    corrupt(...)            a journal line that is not a check record
    property_summary(...)   a property run that ended without its summary

    read_journal(path)      the one journal reader (the runner's and the report's)
    schema_errors(record)   what a record breaks of the record schema
    note_errors(note)       what an in-flight note (<journal>.inflight.<rank>:
                            the case a rank had begun) breaks of its schema,
                            schema/inflight-1.schema.json
"""
import datetime
import gzip
import json
import sys
import pathlib
import re
import signal

SCHEMA = "ordo.check/1"
SCHEMA_ID = "urn:ordo:schema:record:1"
SCHEMA_PATH = (
    pathlib.Path(__file__).resolve().parent / "schema" / "record-1.schema.json"
)
NOTE_SCHEMA_PATH = SCHEMA_PATH.with_name("inflight-1.schema.json")

LEVELS = ("MUST", "SHOULD", "DETECT", "INFO")
OUTCOMES = ("pass", "fail", "crash", "timeout", "skip", "waived", "corrupt")
# The outcomes that are findings: a check that did not pass and is not waived.
BAD = ("fail", "crash", "timeout", "corrupt")
# How the message of a case the harness held back begins: its routine on its
# communicator kept hanging in the run (conformance/harness/case_limits.h,
# kHeldBack; `ordo run --run-hung-kinds` runs every case).
HELD_BACK = "not run (it keeps hanging)"

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def is_bad(record):
    return record.get("outcome") in BAD


def printable(text):
    """Control characters made visible (\\x00); XML and HTML cannot carry them."""
    if text is None:
        return ""
    return _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), str(text))


# ---- records of a job that died -------------------------------------------------


def _dead_job(*, ranks, vendor, variant, outcome, duration_s, log):
    return {
        "schema": SCHEMA,
        "ranks": ranks,
        "vendor": vendor,
        "variant": variant,
        "outcome": outcome,
        "duration_s": round(duration_s, 3),
        "log": str(log),
        "failing_ranks": [],
        "detect": None,
        "waiver": None,
        "reproducer": None,
    }


def case_died(
    begun, *, ranks, vendor, variant, timed_out, rc, tail, duration_s, log, notes=None
):
    """The case a job was in when it died: begun is the case a rank had begun
    (its <journal>.inflight.<rank> file, runner/protocol.py).

    notes: for a DETECT case, {world rank: its in-flight note} of the ranks
    still in the case; a note's "returned" ({"detect", "message"}) says that
    rank's call had returned when the case overran, and how. When some
    reported the error and the others never returned (they wait in the
    collective for the processes that returned the error, which an MPI
    library may let them do: after an error the other processes' calls are
    not defined to complete), the library did detect it: the case is
    reported, as when every rank returns (the harness's rule: reported on k
    of n ranks, whatever the others returned), and the record says which
    ranks did not return. A rank may return MPI_SUCCESS where its own
    arguments are not erroneous (MPI_Reduce with sendbuf == recvbuf at a
    process other than the root, whose recvbuf is not significant: MPICH
    4.0.2's reduce_scatter_gather at 3 processes returns there while the
    third process waits for the root). No rank reporting keeps the timeout."""
    record = _dead_job(
        ranks=ranks,
        vendor=vendor,
        variant=variant,
        outcome="timeout" if timed_out else "crash",
        duration_s=duration_s,
        log=log,
    )
    record.update(
        {
            k: begun.get(k)
            for k in ("seq", "id", "test", "clause", "level", "case", "routine")
        }
    )
    # ordo's own code was running (Reduce_locals without MPIX_Reduce_locals)
    if begun.get("credited_to"):
        record["credited_to"] = begun["credited_to"]
    if begun.get("dimensions"):  # a crossing case: its place in the coverage matrix
        record["dimensions"] = begun["dimensions"]
    for key in (
        "bytes",
        "comm_size",
    ):  # count x type size, the communicator's size: waivers' conditions read them
        if isinstance(begun.get(key), int):
            record[key] = begun[key]
    if isinstance(begun.get("layout"), str):  # the element's layout: waivers read it
        record["layout"] = begun["layout"]
    # every size where the shape's communicators differ: the case may have died in any
    if isinstance(begun.get("comm_sizes"), list):
        record["comm_sizes"] = begun["comm_sizes"]
    # each group's node map (the waivers' comm_node_map)
    if isinstance(begun.get("comm_node_maps"), list):
        record["comm_node_maps"] = begun["comm_node_maps"]
    limit = begun.get("case_limit")
    # the derived limit that applied (conformance/harness/case_limits.h)
    if isinstance(limit, dict):
        record["case_limit"] = limit
    what = "did not finish within the case time limit" if timed_out else "ended the job"
    if timed_out and isinstance(limit, dict):
        what += (
            f" of {limit.get('seconds', 0):.2f} s ({limit.get('rule')}:"
            f" {limit.get('why')})"
        )
    record["message"] = f"this case {what} (exit code {rc}); last output: {tail}"
    returned = {
        r: n["returned"]
        for r, n in (notes or {}).items()
        if isinstance(n.get("returned"), dict)
    }
    waiting = sorted(r for r in (notes or {}) if r not in returned)
    reported = sorted(r for r, v in returned.items() if v.get("detect") == "reported")
    accepted = sorted(r for r, v in returned.items() if v.get("detect") == "accepted")
    if timed_out and begun.get("level") == "DETECT" and reported and waiting:
        names = ", ".join(map(str, waiting))
        others = (
            f" | ranks whose call returned no error: {', '.join(map(str, accepted))}"
            if accepted
            else ""
        )
        # A rank whose call returned the error shortened the case's limit (the
        # harness's rule "reported", case_limits.h): the soonest such limit ended it.
        shorter = [
            v["case_limit"]
            for v in (returned[r] for r in reported)
            if isinstance(v.get("case_limit"), dict)
        ]
        ended = "after its limit"
        if shorter:
            record["case_limit"] = min(shorter, key=lambda x: x.get("seconds", 0))
            ended = (
                "after the short limit that follows a returned error (its case_limit)"
            )
        record.update(
            {
                "outcome": "pass",
                "detect": "reported",
                "message": (
                    f"reported on {len(reported)} of"
                    f" {len(reported) + len(accepted) + len(waiting)} ranks:"
                    f" {returned[reported[0]].get('message', '')}{others} | ranks that"
                    " never returned from the call (waiting in it for the processes"
                    f" that returned the error; the case was ended {ended}): {names}"
                ),
            }
        )
    return record


def signal_of(rc):
    """The signal that ended a process, by its exit status: a negative status
    (Python's for a child a signal ended) or 128 + the signal (a shell's, a
    launcher's); None for any other."""
    if not isinstance(rc, int) or isinstance(rc, bool):
        return None
    number = -rc if rc < 0 else rc - 128 if 128 < rc < 128 + 65 else None
    if number is None:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# Where a job was when it died outside any case (the "where" of a job record's "job").
BETWEEN_CASES, BEFORE_FIRST_CASE, AFTER_LAST_CASE = (
    "between_cases",
    "before_first_case",
    "after_last_case",
)
_WHERE_TEXT = {
    BETWEEN_CASES: "between cases",
    BEFORE_FIRST_CASE: "before its first case",
    AFTER_LAST_CASE: "after its last case (it had run every case)",
}


def _last_case(last):
    """A record's identity as a job record's "last_case" (None: none)."""
    if not isinstance(last, dict):
        return None
    return {
        "seq": last.get("seq"),
        "id": last.get("id"),
        "test": last.get("test"),
        "outcome": last.get("outcome"),
    }


def job_died(
    name,
    *,
    attempt,
    ranks,
    vendor,
    variant,
    timed_out,
    rc,
    tail,
    duration_s,
    log,
    where=BETWEEN_CASES,
    last_case=None,
    resumed_after=0,
    launch=None,
    family=None,
    not_run=None,
    finalize_not_returned=None,
):
    """A job that died outside any case: its own record, never charged to a
    case (runner/protocol.py, charged_case: no case was in flight). where:
    between cases (every case a rank had begun, rank 0 had recorded),
    before its first case (no rank had begun one in this launch) or after
    its last case (the job had written its .done). last_case: the job's
    last record of a case (that case finished; it is named, not charged).
    resumed_after: the launch's --ordo-skip. family: the check family of
    the last case (a combined job's member), when known. not_run: set when
    the job ends here with cases not run ({"after_seq", "why"}): the report
    is then partial (reports/results.py). finalize_not_returned: the world
    ranks whose MPI_Finalize did not return (a job after its last case whose
    .finalized markers are missing, runner/protocol.py): the record is made
    even when the launcher exited 0 or 1, and says so.

    The record's test is the executable, its clause harness.job (MUST) and
    its case null: a crash or timeout waiver of a case (which names the
    case's test and fields) cannot name it, and it counts in the verdict."""
    record = _dead_job(
        ranks=ranks,
        vendor=vendor,
        variant=variant,
        outcome="timeout" if timed_out else "crash",
        duration_s=duration_s,
        log=log,
    )
    sig = signal_of(rc)
    last = _last_case(last_case)
    job = {
        "executable": name,
        "family": family,
        "launch": launch if launch is not None else attempt,
        "where": where,
        "resumed_after": resumed_after,
        "last_case": last,
        "exit_code": rc,
        "signal": sig,
        "timed_out": bool(timed_out),
        "tail": tail,
    }
    if not_run:
        job["not_run"] = not_run
    if finalize_not_returned:
        job["finalize_not_returned"] = sorted(finalize_not_returned)
    after = (
        f"after case {last['seq']} ({last['id']}, {last['outcome']})"
        if last
        else "with no case recorded before"
    )
    how = (
        f"exit code {rc}"
        + (f", {sig}" if sig else "")
        + (", the job's time limit" if timed_out else "")
    )
    message = (
        f"{name} at {ranks} ranks ended ({how}) outside any case,"
        f" {_WHERE_TEXT.get(where, where)}, {after}"
    )
    if finalize_not_returned:
        message += (
            "; MPI_Finalize did not return on rank(s) "
            + ", ".join(map(str, sorted(finalize_not_returned)))
            + f" of {ranks} (no .finalized marker from them)"
            + (
                f", though the launcher exited {rc} as for a job that ended normally"
                if rc in (0, 1)
                else ""
            )
        )
    if not_run:
        message += (
            f"; its cases after case {not_run.get('after_seq')} were not run:"
            f" {not_run.get('why')}"
        )
    record.update(
        {
            "seq": None,
            "id": f"{name}@{ranks}ranks#job{attempt}"
            + ("" if variant == "default" else f"@{variant}"),
            "test": name,
            "clause": "harness.job",
            "level": "MUST",
            "case": None,
            "routine": None,
            "job": job,
            "message": f"{message}; last output: {tail}",
        }
    )
    return record


def gave_up(name, *, ranks, vendor, variant, max_restarts, after_seq=None):
    """The restart budget of a job used up: its cases after after_seq (its
    last recorded case) were not run, and the report is partial."""
    why = (
        f"gave up after {max_restarts} restarts after crashes or timeouts that no"
        " waiver names"
    )
    return {
        "schema": SCHEMA,
        "id": f"{name}@{ranks}ranks#gave-up",
        "test": name,
        "clause": "harness.job",
        "level": "MUST",
        "outcome": "crash",
        "ranks": ranks,
        "vendor": vendor,
        "variant": variant,
        "message": why,
        "case": None,
        "job": {"executable": name, "not_run": {"after_seq": after_seq, "why": why}},
    }


def not_run_reason(record):
    """Why the cases of a record's job after some case were not run (a job
    record with "job": {"not_run"}, or a gave-up record of a journal from
    before that field), as one line of a report's partial_reasons; None
    for any other record."""
    job = record.get("job") if isinstance(record.get("job"), dict) else {}
    not_run = job.get("not_run") if isinstance(job.get("not_run"), dict) else None
    if not_run is None and not (
        record.get("clause") == "harness.job"
        and str(record.get("id", "")).endswith("#gave-up")
    ):
        return None
    not_run = not_run or {
        "after_seq": None,
        "why": record.get("message") or "the job gave up",
    }
    variant = record.get("variant") or "default"
    where = "" if variant == "default" else f" (variant {variant})"
    after = (
        f" after case {not_run['after_seq']}"
        if not_run.get("after_seq") is not None
        else ""
    )
    return (
        f"{job.get('executable') or record.get('test')} at"
        f" {record.get('ranks')} ranks{where}: its cases{after} were not run"
        f" ({not_run.get('why')})"
    )


# ---- records of the report -------------------------------------------------------


def corrupt(n, text, why, raw=None):
    """Journal line n, which is not a check record (why: "is not JSON", ...)."""
    raw = raw if isinstance(raw, dict) else {}
    ranks = (
        raw.get("ranks")
        if isinstance(raw.get("ranks"), int) and raw.get("ranks") >= 1
        else 1
    )
    return {
        "schema": SCHEMA,
        "id": f"journal-line-{n}",
        "test": "journal",
        "clause": "harness.journal",
        "level": "MUST",
        "routine": None,
        "case": None,
        "ranks": ranks,
        "vendor": str(raw.get("vendor", "unknown")),
        "variant": str(raw.get("variant", "default")),
        "outcome": "corrupt",
        "message": f"journal line {n} {why}: {printable(text)[:300]}",
    }


def property_summary(
    *, test, clause, ranks, vendor, variant, seed, cases, bad, seconds, written_by
):
    """The summary of a property run whose process never wrote one (bad: its
    crash, timeout and failure records)."""
    return {
        "schema": SCHEMA,
        "seq": None,
        "id": f"{test}#summary",
        "test": test,
        "clause": clause,
        "level": "INFO",
        "routine": None,
        "case": None,
        "ranks": ranks,
        "comm_size": ranks,
        "vendor": vendor,
        "variant": variant,
        "outcome": "pass",
        "failing_ranks": [],
        "detect": None,
        "waiver": None,
        "duration_s": round(seconds, 3),
        "reproducer": None,
        "replay": None,
        "time": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        ),
        "message": (
            f"property run at {ranks} ranks (seed {seed}) ended without its summary"
            f" after {cases} case records; {bad} crash/timeout/failure records above"
            " say why"
        ),
        "property": {
            "rc_params": None,
            "seed": str(seed),
            "cases": cases,
            "shrink_steps": None,
            "passed": False,
            "seconds": round(seconds, 3),
            "distribution": [],
            "labels": {},
            "written_by": written_by,
        },
    }


# ---- reading ------------------------------------------------------------------------

_STRINGS = ("id", "test", "clause", "vendor", "variant", "message")


def _normalize(record, n, vendor):
    """Fills what a runner's record of a dead job may lack, so that it reads like a
    harness record."""
    defaults = {
        "id": f"journal-line-{n}",
        "test": "unknown",
        "clause": "harness.job",
        "level": "MUST",
        "vendor": vendor or "unknown",
        "variant": "default",
        "message": "",
    }
    for key, value in defaults.items():
        if record.get(key) in (None, ""):
            record[key] = value
    return record


def quick_problem(record):
    """What a reader needs of a record before the schema sees it (the schema is
    slower)."""
    if not isinstance(record, dict):
        return "not an object"
    for key in _STRINGS:
        if not isinstance(record.get(key), str):
            return f"'{key}' is not a string"
    if record.get("outcome") not in OUTCOMES:
        return f"unknown outcome {record.get('outcome')!r}"
    if record.get("level") not in LEVELS:
        return f"unknown level {record.get('level')!r}"
    ranks = record.get("ranks")
    if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
        return "'ranks' is not a positive integer"
    return None


JOURNAL, COMPRESSED_JOURNAL = "journal.jsonl", "journal.jsonl.gz"
JOURNAL_NAMES = (JOURNAL, COMPRESSED_JOURNAL)
GZIP_MAGIC = b"\x1f\x8b"


def journal_file(folder):
    """The journal of an output folder or of a package's run/ folder: journal.jsonl
    while the run can go on (or resume), journal.jsonl.gz once it has ended
    (runner/journal.py compress_journal) and in a package; None when there is
    neither."""
    for name in JOURNAL_NAMES:
        if (pathlib.Path(folder) / name).is_file():
            return pathlib.Path(folder) / name
    return None


def read_journal(path, offset=0, *, check=False, vendor=None):
    """The records of a journal from a byte offset on (0: all of them); [] when
    there is no journal. A line that is not JSON becomes a corrupt record.
    A gzip-compressed journal (a finished run's journal.jsonl.gz, a
    package's) is read as well (the offset then counts its uncompressed
    bytes).

    check=True (the report): a record also gets the defaults a runner's record
    may lack (vendor: the run's), a line that is not a check record becomes a
    corrupt record too, and each good record carries "_line": its line number,
    for the caller to pop (journal_lines gives the text back).

    The journal is read a line at a time, never whole, and records that hold
    the same case share one case object (a sweep's journal holds a million
    records of some tens of thousands of cases); the strings every record
    repeats (test, clause, variant, ...) are interned. Readers never change
    a record's case in place. Raises OSError when the journal cannot be
    read."""
    path = pathlib.Path(path)
    if not path.exists():
        return []
    records = []
    cases: dict = {}
    for n, line in _journal_lines(path, offset):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            records.append(corrupt(n, line, "is not JSON"))
            continue
        if isinstance(record, dict):
            _share(record, cases)
        if check:
            problem = quick_problem(
                _normalize(record, n, vendor) if isinstance(record, dict) else record
            )
            if problem:
                records.append(
                    corrupt(n, line, f"is not a check record ({problem})", record)
                )
                continue
            record["_line"] = n
        records.append(record)
    return records


# the fields whose values many records repeat: one string object each
_REPEATED = (
    "schema",
    "test",
    "clause",
    "level",
    "routine",
    "vendor",
    "variant",
    "outcome",
    "waiver",
    "credited_to",
)


def _share(record, cases):
    """The record's case becomes the one object of that case that `cases` holds
    ({its JSON text: case}); its repeated strings are interned."""
    for key in _REPEATED:
        value = record.get(key)
        if type(value) is str:
            record[key] = sys.intern(value)
    case = record.get("case")
    if type(case) is dict:
        try:
            key = json.dumps(case, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError):
            return
        held = cases.get(key)
        if held is None:
            for k, v in case.items():
                if type(v) is str and len(v) < 64:
                    case[k] = sys.intern(v)
            cases[key] = case
        else:
            record["case"] = held


def _journal_lines(path, offset=0):
    """(line number, text) of a journal's lines from a byte offset on (0: all),
    a line at a time; a gzip-compressed journal too (the offset then counts its
    uncompressed bytes). A line's undecodable bytes become U+FFFD."""
    with open(path, "rb") as f:
        compressed = f.read(2) == GZIP_MAGIC
        f.seek(0)
        stream = gzip.GzipFile(fileobj=f) if compressed else f
        try:
            if offset and not compressed:
                f.seek(offset)
            elif offset:
                # skip whole blocks up to the offset, then split from there
                left = offset
                while left > 0:
                    got = stream.read(min(left, 1 << 20))
                    if not got:
                        return
                    left -= len(got)
            for n, raw in enumerate(stream, 1):
                yield n, raw.decode("utf-8", errors="replace").rstrip("\r\n")
        finally:
            if compressed:
                stream.close()


def journal_lines(path, numbers):
    """{line number: text} of the given line numbers of a journal (read from its
    start): the text of the few records a report rejects, which read_journal does
    not keep."""
    wanted = set(numbers)
    found: dict = {}
    if not wanted:
        return found
    for n, line in _journal_lines(pathlib.Path(path)):
        if n in wanted:
            found[n] = line
            if len(found) == len(wanted):
                break
    return found


# ---- the schema --------------------------------------------------------------------

_validator = None


def schema():
    return json.loads(SCHEMA_PATH.read_text())


def validator():
    """The record schema's validator (jsonschema: python3-jsonschema)."""
    global _validator
    if _validator is None:
        import jsonschema

        doc = schema()
        cls = jsonschema.validators.validator_for(doc)
        cls.check_schema(doc)
        # Its references name it by its $id (urn:ordo:schema:record:1#/$defs/...),
        # resolved here, never fetched.
        _validator = with_store(cls, doc, resolver_store())
    return _validator


def with_store(cls, doc, store):
    """A validator of class cls for doc whose references to the schemas of store ({$id:
    schema}) are resolved from store, never fetched: through the `referencing` registry
    where jsonschema has one (4.18 on, Debian 13; its deprecated RefResolver there
    resolves urn: references to the empty URL and fails), else RefResolver (Debian 12's
    4.10)."""
    import jsonschema

    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
    except ImportError:
        return cls(doc, resolver=jsonschema.RefResolver.from_schema(doc, store=store))
    registry = Registry().with_resources(
        (uri, Resource.from_contents(schema, default_specification=DRAFT202012))
        for uri, schema in store.items()
    )
    return cls(doc, registry=registry)


def schema_errors(record):
    """Readable violations of the record schema ("case/count: -1 is less than the
    minimum of 0")."""
    errors = sorted(
        validator().iter_errors(record), key=lambda e: list(e.absolute_path)
    )
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(record)'}: {e.message}"
        for e in errors
    ]


_note_validator = None


def note_errors(note):
    """Readable violations of the in-flight note's schema (inflight-1.schema.json,
    whose shared fields refer to the record schema): [] for a note the harness
    wrote ("seq: 'x' is not of type 'integer'")."""
    global _note_validator
    if _note_validator is None:
        import jsonschema

        doc = json.loads(NOTE_SCHEMA_PATH.read_text())
        cls = jsonschema.validators.validator_for(doc)
        cls.check_schema(doc)
        _note_validator = with_store(cls, doc, resolver_store())
    errors = sorted(
        _note_validator.iter_errors(note), key=lambda e: list(e.absolute_path)
    )
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(note)'}: {e.message}"
        for e in errors
    ]


def resolver_store():
    """The record schema by its $id, for a validator of a schema that refers to
    it (results-1.schema.json): resolved from this folder, never fetched."""
    doc = schema()
    return {doc["$id"]: doc, SCHEMA_PATH.name: doc}

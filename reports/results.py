"""results.json: build it from an output folder, validate it, read it back.

An output folder of `ordo run` holds run.json (provenance, written at the end
of the run) and journal.jsonl (one record per check, appended as each check
completes; journal.jsonl.gz once the run has ended). results.json joins them with the
clause catalogue (spec/) and the waivers the run was judged with, and adds the verdicts
derived from the records, so that every view can be generated from this one file.

A report built while a run is under way, or after it was interrupted, or of a
run a job of which ended with cases not run (records.not_run_reason), says so:
"partial" is true and "partial_reasons" tells why.
"""
import datetime
import gzip
import hashlib
import json
import os
import pathlib
import re
import shlex
import subprocess
import time

from . import deps, records as rec, waivers
from .records import BAD, LEVELS, printable

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Version 2 (written): version 1 with each distinct case stored once, gzip-compressed
# (results.json.gz); version 1 (results.json, plain JSON, every record whole) is still
# read. load() reads either.
SCHEMA_ID = "ordo.results/2"
SCHEMA_V1 = "ordo.results/1"
SCHEMA_DIR = pathlib.Path(__file__).resolve().parent / "schema"
SCHEMA_PATH = SCHEMA_DIR / "results-2.schema.json"
SCHEMA_PATHS = {SCHEMA_ID: SCHEMA_PATH, SCHEMA_V1: SCHEMA_DIR / "results-1.schema.json"}
RESULTS_NAME = "results.json.gz"
RESULTS_NAME_V1 = "results.json"
GZIP_MAGIC = b"\x1f\x8b"


class ReportError(Exception):
    """A report cannot be built or read; the message is one line."""


# ---- strings ---------------------------------------------------------------


def first_line(text):
    text = printable(text).strip()
    return text.splitlines()[0] if text else ""


def case_text(case):
    """The case parameters as one line, e.g. op=MPI_SUM datatype=MPI_INT count=17 root=0
    comm=world."""
    if not case:
        return ""
    order = (
        "op",
        "datatype",
        "count",
        "recvcounts",
        "root",
        "comm",
        "in_place",
        "mode",
        "binding",
        "seed",
    )
    parts = []
    for key in order:
        if key not in case:
            continue
        value = case[key]
        if key == "recvcounts" and not value:
            continue
        if key == "in_place" and not value:
            continue
        if key == "mode" and value == "blocking":
            continue
        if key == "binding" and value == "c":
            continue
        parts.append(
            f"{key}={json.dumps(value) if isinstance(value, (list, bool)) else value}"
        )
    if case.get("root_in_high_group"):
        parts.append("root_in_high_group=true")
    return " ".join(parts)


def replay_command(record):
    """The command that runs the record's case again (or its whole job, for a job that
    died)."""
    if record.get("replay"):
        return record["replay"]
    # a case that ended its job: the runner records it without a replay command
    if record.get("case"):
        case = json.dumps(record["case"], separators=(",", ":"))
        # an erroneous call
        level = " --level DETECT" if record.get("level") == "DETECT" else ""
        variant = record.get("variant") or "default"
        # its algorithm's settings
        variant = "" if variant == "default" else f" --variant {shlex.quote(variant)}"
        return (
            "./ordo replay --vendor"
            f" {shlex.quote(record.get('vendor', 'mpich'))} --ranks"
            f" {record.get('ranks')}{variant}{level} --case {shlex.quote(case)}"
        )
    if record.get("clause") == "harness.job":
        variant = record.get("variant") or "default"
        variant = "" if variant == "default" else f" --variants {shlex.quote(variant)}"
        # A job of several families (ordo_sweep_checks) is run again as the run ran it:
        # every family.
        what = (
            ""
            if record.get("test") == "ordo_sweep_checks"
            else f" --filter {record.get('test')}"
        )
        return (
            f"./ordo run --vendor {record.get('vendor', 'mpich')} --ranks"
            f" {record.get('ranks')}{variant}{what}"
        )
    return ""


def system_name(run):
    """The system a run ran in (`ordo run --system NAME`), or None on the host (or a run
    from before systems)."""
    name = ((run or {}).get("system") or {}).get("name")
    return name if name and name != "host" else None


def with_system(command, name):
    """A replay command of ordo that runs in the system NAME: `--system NAME` after
    `./ordo replay` or `./ordo run`, unless it names one already (the harness adds it
    inside a root)."""
    if not command or not name or " --system " in command:
        return command
    for head in ("./ordo replay", "./ordo run"):
        if command.startswith(head + " ") or command == head:
            return f"{head} --system {shlex.quote(name)}{command[len(head):]}"
    return command


# The case fields whose value the harness takes when the case's JSON leaves them out
# (the initialisers of struct Case, reference/include/ordo/reference/case.h;
# Case::from_json starts from them), and which short_replay leaves out when they hold
# it. tools/tests/test_reports.py reads them back from case.h.
CASE_DEFAULTS = {
    "root_datatype": "",
    "recvcounts": [],
    "root_in_high_group": False,
    "in_place": False,
    "null_insignificant": True,
    "mode": "blocking",
    "locals_in_is_in_place": False,
    "locals_arg_is_in_place": False,
    "locals_arg_is_in": False,
    "large_count": False,
    "binding": "c",
    "exact": True,
    "alias_send_recv": False,
    "erroneous": "",
    "concurrency": "",
}


def short_case(case):
    """The case without the fields at the harness's default (CASE_DEFAULTS): the same
    case to the harness."""
    return {
        k: v
        for k, v in case.items()
        if k not in CASE_DEFAULTS
        or (type(v), v) != (type(CASE_DEFAULTS[k]), CASE_DEFAULTS[k])
    }


def short_replay(record):
    """replay_command(record), its --case JSON without the fields at the harness's
    default (short_case): the same case run again, in about a third of the characters
    (the TAP and JUnit views give it for each of thousands of waived checks). Any other
    command (one whose --case is not the record's case) is whole.
    """
    replay, case = replay_command(record), record.get("case")
    if not replay or not isinstance(case, dict):
        return replay
    tail = " --case " + shlex.quote(json.dumps(case, separators=(",", ":")))
    if not replay.endswith(tail):
        return replay
    return (
        replay[: -len(tail)]
        + " --case "
        + shlex.quote(json.dumps(short_case(case), separators=(",", ":")))
    )


def record_key(record):
    """Identifies a check across runs: test, variant, rank count and the case itself."""
    case = record.get("case")
    what = json.dumps(case, sort_keys=True) if case else record.get("id", "")
    return (
        record.get("test", ""),
        record.get("variant", "default"),
        record.get("ranks", 0),
        what,
    )


def keyed(records, key=record_key):
    """Records by key; a key seen again (the same case run twice) gets its occurrence
    number."""
    out: dict = {}
    seen: dict = {}
    for r in records:
        k = key(r)
        n = seen.get(k, 0)
        seen[k] = n + 1
        out[k + (n,)] = r
    return out


# ---- validation --------------------------------------------------------------

_validators = {}


def _validator(part=None, schema_id=SCHEMA_V1):
    """The validator of a results schema (by default version 1's: the records whole, as
    every reader sees them and as build() checks them); part: one of its $defs."""
    if (part, schema_id) not in _validators:
        jsonschema = deps.require("jsonschema")
        schema = json.loads(SCHEMA_PATHS[schema_id].read_text())
        if part is not None:
            schema = {
                "$schema": schema["$schema"],
                "$defs": schema["$defs"],
                "$ref": f"#/$defs/{part}",
            }
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        # The records' schema (record-1.schema.json) is resolved from this folder, never
        # fetched.
        _validators[(part, schema_id)] = rec.with_store(
            cls, schema, rec.resolver_store()
        )
    return _validators[(part, schema_id)]


def schema_errors(document, part=None, schema_id=None):
    """Readable schema violations ("records/3/outcome: 'maybe' is not one of ..."),
    first ones first. schema_id: the document's own version (default: version 1, the
    records whole)."""
    validator = _validator(part, schema_id or SCHEMA_V1)
    errors = sorted(
        validator.iter_errors(document), key=lambda e: list(e.absolute_path)
    )
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
        for e in errors
    ]


def validate(document, what, schema_id=None):
    errors = schema_errors(document, schema_id=schema_id)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        name = SCHEMA_PATHS[schema_id or SCHEMA_V1].name
        raise ReportError(f"{what} does not follow {name}: {errors[0][:300]}{more}")


# ---- the stored form (version 2) -------------------------------------------------

REPLAY_SLOT = "{case}"


def compact_case(case):
    """A case's JSON as the harness writes it into a replay command: keys in order, no
    spaces."""
    return json.dumps(case, separators=(",", ":"), ensure_ascii=False)


def encode(report):
    """The stored form of a report (schema version 2): each distinct case once in
    "cases", each distinct replay command template once in "replays"; a record names
    them by index. Lossless: a replay command that its template would not give back
    exactly is kept as it is."""
    cases: list = []
    case_index: dict = {}
    replays: list = []
    replay_index: dict = {}
    stored: list = []
    for r in report["records"]:
        r = dict(r)
        case = r.get("case")
        if isinstance(case, dict):
            text = compact_case(case)
            ref = case_index.get(text)
            if ref is None:
                ref = case_index[text] = len(cases)
                cases.append(case)
            del r["case"]
            r["case_ref"] = ref
            replay = r.get("replay")
            if (
                isinstance(replay, str)
                and REPLAY_SLOT not in replay
                and replay.count(text) == 1
            ):
                template = replay.replace(text, REPLAY_SLOT)
                if template.replace(REPLAY_SLOT, text) == replay:
                    ref = replay_index.get(template)
                    if ref is None:
                        ref = replay_index[template] = len(replays)
                        replays.append(template)
                    del r["replay"]
                    r["replay_ref"] = ref
        stored.append(r)
    doc = {k: v for k, v in report.items() if k not in ("records", "stored_as")}
    doc.update(
        {"schema": SCHEMA_ID, "cases": cases, "replays": replays, "records": stored}
    )
    return doc


def decode(doc):
    """The records of a stored report whole again: the form every reader and view works
    on, which is a report of version 1 (one of version 1 is returned as it is)."""
    if doc.get("schema") == SCHEMA_V1:
        return doc
    cases, replays = doc["cases"], doc["replays"]
    texts: dict = {}
    records = []
    for r in doc["records"]:
        if "case_ref" in r:
            r = dict(r)
            ref = r.pop("case_ref")
            case = cases[ref]
            r["case"] = case
            if "replay_ref" in r:
                text = texts.get(ref)
                if text is None:
                    text = texts[ref] = compact_case(case)
                r["replay"] = replays[r.pop("replay_ref")].replace(REPLAY_SLOT, text)
        records.append(r)
    out = {k: v for k, v in doc.items() if k not in ("cases", "replays", "records")}
    out[
        "schema"
    ] = SCHEMA_V1  # the whole form: a valid report of version 1 (less "stored_as")
    out["stored_as"] = doc["schema"]  # what the file holds, for the views to name
    out["records"] = records
    return out


def _check_refs(doc, what):
    """Every case_ref and replay_ref names an entry (the schema cannot say so)."""
    n_cases, n_replays = len(doc["cases"]), len(doc["replays"])
    for i, r in enumerate(doc["records"]):
        if r.get("case_ref", -1) >= n_cases or r.get("replay_ref", -1) >= n_replays:
            raise ReportError(
                f"{what}: records/{i} refers to a case or replay command the report"
                " does not hold"
            )


def read_document(path):
    """The JSON document of a report file, plain or gzip-compressed (recognised by its
    first bytes, whatever its name)."""
    path = pathlib.Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == GZIP_MAGIC:
            data = gzip.decompress(data)
        return json.loads(data)
    except OSError as e:
        raise ReportError(f"cannot read the report {path}: {e.strerror or e}")
    except (ValueError, EOFError) as e:  # not JSON, not UTF-8, a gzip stream cut short
        raise ReportError(f"the report {path} is not JSON: {str(e)[:200]}")


def dump(report, path):
    """Writes a report in its stored form (version 2, gzip) to path, atomically; returns
    the path."""
    return _dump(report, path)[0]


def _dump(report, path):
    """dump(), and the SHA-256 of the bytes it compressed into the file. The JSON
    text is written a batch of records at a time (a sweep's report is a million
    records: its text is never held whole); the bytes are those of one
    json.dumps of the stored form, whose last key is "records"."""
    path = pathlib.Path(path)
    tmp = path.with_name(path.name + ".tmp")
    # Keys in their order: a case's keys in the harness's, which its replay command's
    # JSON follows.
    doc = encode(report)
    records = doc.pop("records")
    head = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as raw:
            # mtime 0: the same report gives the same bytes (a package's checksums do
            # not depend on the hour).
            # Level 9: about 8% smaller than level 6 for a default run (4.2 against 4.6
            # MB), 0.7 s more.
            with gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0
            ) as f:

                def put(text):
                    data = text.encode("utf-8")
                    digest.update(data)
                    f.write(data)

                put((head[:-1] + "," if head != "{}" else "{") + '"records":[')
                for start in range(0, len(records), _DUMP_BATCH):
                    put(
                        ("," if start else "")
                        + ",".join(
                            json.dumps(r, separators=(",", ":"), ensure_ascii=False)
                            for r in records[start : start + _DUMP_BATCH]
                        )
                    )
                put("]}\n")
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ReportError(f"cannot write {path}: {e.strerror}")
    return path, digest.hexdigest()


_DUMP_BATCH = 5000


def _digest_of(path):
    """The SHA-256 of a gzip file's uncompressed bytes, read a block at a time;
    None when it cannot be read whole."""
    digest = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    return digest.hexdigest()


def results_file(folder):
    """The report of an output folder: results.json.gz, else a version-1 results.json;
    None when neither."""
    folder = pathlib.Path(folder)
    for name in (RESULTS_NAME, RESULTS_NAME_V1):
        if (folder / name).is_file():
            return folder / name
    return None


# ---- verdicts ------------------------------------------------------------------


def count(records):
    counts: dict = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return counts


def detect_counts(records):
    c = {"reported": 0, "accepted": 0}
    for r in records:
        if r["level"] == "DETECT" and r.get("detect") in c:
            c[r["detect"]] += 1
    return c


def known_fatal_waiver(record):
    """The waiver that held a case back (a crash or timeout waiver names it, and the run
    did not give --run-known-fatal): the id its skip names (reports/waivers.py AVOIDED);
    None for any other record.
    """
    if record.get("outcome") != "skip":
        return None
    m = waivers.AVOIDED.match(record.get("message") or "")
    return m.group(1) if m else None


def level_verdict(level, counts, known_fatal=0):
    """A level's (or a clause's) verdict from its outcome counts; known_fatal: how many
    of its skips are cases a crash or timeout waiver held back, which count as that
    waiver's use (pass with waivers).
    """
    total = sum(counts.values())
    if total == 0:
        return "not checked"
    if level == "INFO":
        return "recorded"
    if any(counts.get(o) for o in BAD):
        return "fail"
    if not total - counts.get("skip", 0):
        return (  # every check was skipped (or held back): nothing at this level ran
            "not checked"
        )
    if counts.get("waived") or known_fatal:
        return "pass with waivers"
    return "pass"


def credited_to_library(record):
    """Records of checks that ran ordo's own code in place of the library's
    (the portable MPIX_Reduce_locals) are not the library's conformance."""
    return record.get("credited_to", "library") != "ordo"


_FEATURE = re.compile(r"\(([^()]+)\)\s*$")


def skip_reason(message):
    """A skip's reason, grouped: the feature a library lacks ('... is not
    provided by this library (MPI-4 persistent collectives)' -> 'MPI-4
    persistent collectives absent'), else its first line with its standalone
    numbers as N (a count or a rank varies from case to case; the digits of a
    name such as 'MPI-4.1 6.9.4' or 'mpich-6351' are kept)."""
    line = first_line(message).strip()
    m = _FEATURE.search(line)
    if m and "not provided" in line:
        return f"{m.group(1)} absent"
    return re.sub(r"(?<![\w.-])\d+(?![\w.-])", "N", line) or "no reason given"


def library_gap(reason):
    """A skip that says the library lacks something (not a shape that needs more
    ranks), or a case the harness held back because its kind kept hanging."""
    return reason.endswith(" absent") or reason.startswith(rec.HELD_BACK)


def not_tested(records):
    """Clauses of the judged levels that the library's checks did not (fully) exercise:
    'not tested' when every check was skipped or ran ordo's own code, 'partly tested'
    when the library lacks a feature some of them needed; with the reasons."""
    by_clause: dict = {}
    for r in records:
        if r["level"] == "INFO":
            continue
        row = by_clause.setdefault(
            (r["clause"], r["level"]),
            {"checks": 0, "skipped": 0, "ordo": 0, "reasons": {}},
        )
        row["checks"] += 1
        if not credited_to_library(r):
            row["ordo"] += 1
            why = (
                "the library has no MPIX_Reduce_locals: ordo's portable"
                " implementation ran"
            )
            row["reasons"][why] = row["reasons"].get(why, 0) + 1
        elif r["outcome"] == "skip":
            row["skipped"] += 1
            why = skip_reason(r.get("message"))
            row["reasons"][why] = row["reasons"].get(why, 0) + 1
    out = []
    for (clause, level), row in sorted(by_clause.items()):
        untested = row["skipped"] + row["ordo"]
        if not untested:
            continue
        gaps = {
            k: v
            for k, v in row["reasons"].items()
            if library_gap(k) or k.startswith("the library has no")
        }
        if untested == row["checks"]:
            status = "not tested"
        elif gaps:
            status = "partly tested"
        else:
            # Some cases need another rank count or shape: the clause is exercised
            # elsewhere.
            continue
        reasons = sorted(row["reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(
            {
                "clause": clause,
                "level": level,
                "status": status,
                "checks": row["checks"],
                "untested": untested,
                "reasons": [{"reason": k, "checks": v} for k, v in reasons],
            }
        )
    return out


def headline(verdict, gaps, summary=None):
    """The verdict at MUST (qualified "at MUST" when another level has findings), then
    per level, MUST first, what went wrong, was waived or was held back as known to
    crash or hang (findings(): "MUST: 3 waived; SHOULD: 2 failing; DETECT: 1 failing, 3
    waived"), ordo's own code's failures, and for MUST what was not tested and why."""
    parts = [verdict]
    if summary is not None:
        found = summary.get("findings", {})
        if verdict.startswith("conformant") and set(found) - {
            "MUST",
            "ordo",
        }:  # another level's findings
            parts[0] = verdict + " at MUST"
        for level in LEVELS:
            lv = summary["levels"][level]
            # every level alike: what failed, was waived, or was not run as known to
            # crash or hang ("with waivers" alone would not say how much)
            phrase = _level_phrase(lv, found.get(level, 0))
            if phrase:
                parts.append(f"{level}: {phrase}")
        if found.get("ordo"):
            parts.append(f"ordo's own code: {found['ordo']} {FAILING_WORD}")
    for status in ("not tested", "partly tested"):
        rows = [g for g in gaps if g["level"] == "MUST" and g["status"] == status]
        if rows:
            reasons = []
            for g in rows:
                for item in g["reasons"]:
                    if item["reason"] not in reasons and (
                        library_gap(item["reason"])
                        or item["reason"].startswith("the library has no")
                        or status == "not tested"
                    ):
                        reasons.append(item["reason"])
            n = len(rows)
            reasons = merge_amounts(reasons)
            parts.append(
                f"{n} MUST clause{'s' if n != 1 else ''} {status}:"
                f" {', '.join(reasons) or 'see the clauses'}"
            )
    return "; ".join(parts)


_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)(?= [KMGT]iB)")


def merge_amounts(reasons):
    """Reasons that differ only in one amount of memory (what a huge case
    needs per process, one per routine) said once, with the range of them:
    'needs about 6.3-8.0 GiB per process'. Order of first appearance."""
    groups: dict = {}
    order: list = []
    hole = "\x00"  # the amount's place in a key (a reason may hold '#' itself)
    for reason in reasons:
        numbers = _AMOUNT.findall(reason)
        key = _AMOUNT.sub(hole, reason) if len(numbers) == 1 else reason
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(
            (float(numbers[0]), numbers[0]) if len(numbers) == 1 else (0.0, reason)
        )
    out = []
    for key in order:
        values = groups[key]
        if hole not in key:
            out.append(key)
            continue
        low, high = min(values), max(values)
        out.append(key.replace(hole, low[1] if low == high else f"{low[1]}-{high[1]}"))
    return out


BINDINGS = ("c", "f08", "f90")
BINDING_NAMES = {"c": "C", "f08": "Fortran mpi_f08", "f90": "Fortran mpi"}


def binding_of(record):
    """The language binding a check's call was made through (the case's
    "binding": c, f08, f90); c for a case written before the field existed;
    None for a record without a case."""
    case = record.get("case")
    if not isinstance(case, dict):
        return None
    return case.get("binding") or "c"


def by_binding(records):
    """Outcome counts per binding of the records that ran a case, in BINDINGS
    order (a binding no record used is left out)."""
    groups: dict = {}
    for r in records:
        b = binding_of(r)
        if b is not None:
            groups.setdefault(b, []).append(r)
    order = list(BINDINGS) + sorted(set(groups) - set(BINDINGS))
    return {
        b: {"total": len(groups[b]), "outcomes": count(groups[b])}
        for b in order
        if b in groups
    }


FAILING_WORD = "failing"


def findings(summary):
    """THE rule of a run's outcome, stated by its headline and followed by `ordo run`'s
    exit code (1 when this is not empty): the checks that went wrong (fail, crash,
    timeout, corrupt; not a waived one) at each level of the library's checks, and in
    ordo's own code ("ordo"), as {where: count}, only those with any.
    """
    out = {}
    for level in LEVELS:
        n = sum(summary["levels"][level]["outcomes"].get(o, 0) for o in BAD)
        if n:
            out[level] = n
    n = sum((summary.get("ordo_own") or {}).get("outcomes", {}).get(o, 0) for o in BAD)
    if n:
        out["ordo"] = n
    return out


def _level_phrase(lv, bad):
    """What went wrong at a level, or was waived: "2 failing, 3 waived, 1 not run (known
    crash or hang)"."""
    parts = []
    if bad:
        parts.append(f"{bad} {FAILING_WORD}")
    if lv["outcomes"].get("waived"):
        parts.append(f"{lv['outcomes']['waived']} waived")
    if lv.get("known_fatal"):
        parts.append(f"{lv['known_fatal']} not run (known crash or hang)")
    return ", ".join(parts)


def must_verdict(levels, partial, records):
    """The verdict at MUST: the normative semantics, which is what conformance means."""
    must = levels["MUST"]
    ran = must["total"] - must["outcomes"].get("skip", 0)
    if must["verdict"] == "fail":
        return "not conformant"
    if partial:
        return "incomplete"
    if not records:
        return "nothing checked"
    if not ran:
        return (  # e.g. --filter detect: no MUST check ran, nothing to be conformant to
            "nothing checked at MUST"
        )
    if must["verdict"] == "pass with waivers":
        return "conformant with waivers"
    return "conformant"


def summarize(records, partial, run=None):
    """Verdicts per level over the library's checks (not those of ordo's own code),
    the findings of every level (findings()), the clauses not tested and why, the
    known-fatal cases (held back by a crash or timeout waiver), and the headline.
    run: the run's provenance (run.json), which says whether known-fatal cases ran."""
    library = [r for r in records if credited_to_library(r)]
    levels = {}
    for level in LEVELS:
        mine = [r for r in library if r["level"] == level]
        c = count(mine)
        held = sum(1 for r in mine if known_fatal_waiver(r))
        levels[level] = {
            "total": sum(c.values()),
            "outcomes": c,
            "verdict": level_verdict(level, c, held),
        }
        if held:
            levels[level]["known_fatal"] = held
    # DETECT: how often the library reported the erroneous use, and how often it
    # accepted it.
    levels["DETECT"]["detect"] = detect_counts(library)
    verdict = must_verdict(levels, partial, records)
    gaps = not_tested(records)
    own = [r for r in records if not credited_to_library(r)]
    summary = {
        "total": len(records),
        "outcomes": count(records),
        "levels": levels,
        "verdict": verdict,
        "not_tested": gaps,
        "bindings": by_binding(records),
        "known_fatal": known_fatal_summary(records, run),
    }
    if own:
        summary["ordo_own"] = {
            "total": len(own),
            "outcomes": count(own),
            "clauses": sorted({r["clause"] for r in own}),
            "note": (
                "these checks ran ordo's portable implementation (over the library's "
                "MPI_Reduce_local) because the library has none of its own; they test "
                "ordo, and are not counted in the library's verdict"
            ),
        }
    summary["findings"] = findings(summary)
    summary["headline"] = headline(verdict, gaps, summary)
    return summary


def known_fatal_ran(run, records):
    """Did the run run the cases that a crash or timeout waiver names (`ordo run
    --run-known-fatal`)? From its settings (run.json); a run from before the option ran
    them; without settings, False when a record says a case was held back, else None
    (unknown)."""
    settings = (run or {}).get("settings")
    if isinstance(settings, dict):
        return bool(settings.get("run_known_fatal", True))
    if any(known_fatal_waiver(r) for r in records):
        return False
    return None


def known_fatal_summary(records, run):
    """Whether known-fatal cases ran, and how many this run held back, per waiver."""
    by_waiver: dict = {}
    for r in records:
        wid = known_fatal_waiver(r)
        if wid:
            by_waiver[wid] = by_waiver.get(wid, 0) + 1
    return {
        "ran": known_fatal_ran(run, records),
        "not_run": sum(by_waiver.values()),
        "by_waiver": by_waiver,
    }


def known_fatal_sentence(summary):
    """One line for the views: whether this run ran the cases a crash or timeout waiver
    names."""
    kf = summary.get("known_fatal") or {}
    n = kf.get("not_run", 0)
    if kf.get("ran"):
        return (
            "Known crashes and hangs were run in this run (--run-known-fatal): a waiver"
            " whose bug is fixed shows as stale."
        )
    if kf.get("ran") is False:
        return (
            "Known crashes and hangs were not run in this run:"
            f" {n} case{'s' if n != 1 else ''} that a crash or timeout waiver names"
            f" {'were' if n != 1 else 'was'} held back (each a skip naming its waiver,"
            " counted as that waiver's use); ordo run --run-known-fatal runs them, so"
            " that a fixed bug turns its waiver stale."
        )
    return (
        "Whether known crashes and hangs were run in this run is not recorded (no run"
        " settings)."
    )


# ---- building --------------------------------------------------------------------

_corrupt = rec.corrupt


def read_journal(path, vendor=None):
    """The journal's records (reports/records.py reads it); a line that is not a
    valid record becomes a 'corrupt' record. Returns (records, corrupt lines)."""
    try:
        records = rec.read_journal(path, check=True, vendor=vendor)
    except OSError as e:
        raise ReportError(f"cannot read the journal {path}: {e.strerror}")
    return records, sum(1 for r in records if "_line" not in r)


def _version():
    try:
        return (ROOT / "VERSION").read_text().strip()
    except OSError:
        return "unknown"


def _run_from_records(records):
    vendors = sorted({r["vendor"] for r in records if r.get("vendor")})
    return {
        "schema": "ordo.run/1",
        "ordo_version": _version(),
        "git": {"commit": "unknown", "dirty": None},
        "vendor": vendors[0] if len(vendors) == 1 else ("+".join(vendors) or "unknown"),
        "adapter": None,
        "library_version": None,
        "mpi_version": None,
        "host": "unknown",
        "launcher": [],
        "command": [],
        "variants": sorted({r["variant"] for r in records}) or ["default"],
        "ranks": sorted({r["ranks"] for r in records}),
        "seed": None,
        "start": None,
        "end": None,
    }


_RUN_DEFAULTS = {
    "ordo_version": "unknown",
    "git": {"commit": "unknown", "dirty": None},
    "vendor": "unknown",
    "library_version": None,
    "mpi_version": None,
    "host": "unknown",
    "launcher": [],
    "command": [],
    "variants": ["default"],
    "ranks": [],
    "seed": None,
    "start": None,
    "end": None,
}


def _load_json(path, what):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except OSError as e:
        raise ReportError(f"cannot read {what} {path}: {e.strerror}")
    except ValueError as e:
        raise ReportError(f"{what} {path} is not JSON: {e}")


def _git(*args):
    try:
        p = subprocess.run(
            ["git", "-C", str(ROOT)] + list(args),
            capture_output=True,
            text=True,
            timeout=30,
        )
        return p.stdout if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def _catalogue(commit, used):
    """The clause catalogue: this checkout's spec/clauses.json (slugs are stable, and
    the newest paraphrase is the best); a slug the records use that it no longer has is
    taken from the file at the run's commit.
    """
    here = ROOT / "spec" / "clauses.json"
    spec = _load_json(here, "the clause catalogue")
    clauses = spec.setdefault("clauses", {})
    source = str(here)
    missing = sorted(set(used) - set(clauses) - {"harness.job", "harness.journal"})
    if missing and re.fullmatch(r"[0-9a-f]{40}", commit):
        try:
            old = json.loads(_git("show", f"{commit}:spec/clauses.json") or "{}").get(
                "clauses", {}
            )
        except ValueError:
            old = {}
        found = [slug for slug in missing if slug in old]
        for slug in found:
            clauses[slug] = old[slug]
        if found:
            source += f", and {len(found)} clause(s) from spec/clauses.json at {commit}"
    return spec, source


CITED = (
    "MPI-4.1",
    "MPI-5.0",
)  # the standards spec/clauses.json cites: "section" and "section_50"


def citations(info):
    """A clause's sections in the standards it is cited from: {"MPI-4.1": ...,
    "MPI-5.0": ...}, and MPI-5.0's heading and the reason it has no section where the
    catalogue states them. A catalogue older than the MPI-5.0 citations gives "not
    cited" for MPI-5.0."""
    s50 = info.get("section_50") or (
        "none" if info.get("no_section_50") else "not cited"
    )
    return {
        "MPI-4.1": info.get("section", "?"),
        "MPI-5.0": s50,
        "title_50": info.get("title_50", ""),
        "no_section_50": info.get("no_section_50", ""),
    }


def standard_claim(report):
    """One sentence: the MPI version the library claims (MPI_Get_version, run.json's
    mpi_version) beside the standards the clauses are cited from."""
    claimed = report["run"].get("mpi_version")
    cited = (
        " and ".join(CITED)
        if any("section_50" in c for c in report["spec"]["clauses"].values())
        else report["spec"].get("standard", "MPI-4.1")
    )
    claim = (
        f"The library claims MPI {claimed} (MPI_Get_version)"
        if claimed and claimed != "unknown"
        else "The MPI version the library claims (MPI_Get_version) was not recorded"
    )
    return f"{claim}; the clauses are cited from {cited}."


def waivers_file_of(run, root=ROOT, checkout_first=False):
    """The waivers file of the adapter a run used (reports/waivers.py locates it
    by the adapter's "waivers" key): the run's adapter file, else the vendor's
    adapter of this checkout (checkout_first: the other way round); None when
    there is none."""
    ours = pathlib.Path(root) / "vendors" / (run.get("vendor") or "") / "adapter.json"
    candidates = [run.get("adapter"), str(ours) if run.get("vendor") else None]
    if checkout_first:
        candidates.reverse()
    adapter_path = next(
        (c for c in candidates if c and pathlib.Path(c).is_file()), None
    )
    if not adapter_path:
        return None
    try:
        adapter = json.loads(pathlib.Path(adapter_path).read_text())
        adapter["_dir"] = str(pathlib.Path(adapter_path).parent)
        return waivers.locate(adapter)
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def _waivers_of(run):
    """The waivers file of the adapter the run used, if it can still be found."""
    path = waivers_file_of(run)
    if path is None:
        return {"source": None, "waivers": []}
    try:
        found = waivers.load(path, validate=False)
        return {
            "source": str(path),
            "waivers": [w for w in found if isinstance(w, dict)],
        }
    except (waivers.WaiverFileError, AttributeError):
        return {"source": None, "waivers": []}


def _judged_waivers(run, records):
    """The run's waivers and how its records met them (waivers.usage): a waiver that
    waived nothing is stale; one that named a failing check but did not apply says why.
    """
    found = _waivers_of(run)
    day = (run.get("end") or run.get("start") or _now())[:10]
    found.update(
        waivers.usage(
            records,
            found["waivers"],
            today=day,
            library_version=waivers.parse_library_version(
                run.get("library_version") or ""
            ),
            variants=run.get("variants") or ["default"],
            ranks=run.get("ranks") or [],
        )
    )
    # A waiver whose only uses in this run are cases it held back (a known crash or
    # hang, not run) is not stale, and not confirmed either: its bug was not re-checked
    # (`ordo run --run-known-fatal` does).
    used = found.get("used", {})
    found["not_rechecked"] = sorted(
        w for w in found.get("avoided", {}) if w not in used
    )
    return found


def build(out_dir):
    """results.json's content for an output folder (run.json + its journal:
    journal.jsonl, or journal.jsonl.gz once the run has ended), validated."""
    out = pathlib.Path(out_dir)
    journal = rec.journal_file(out)
    if journal is None:
        raise ReportError(
            f"{out} holds no journal.jsonl (nor journal.jsonl.gz): not an output folder"
            " of `ordo run`"
        )
    reasons, notes = [], []
    run_path = out / "run.json"
    run = _load_json(run_path, "the run file") if run_path.is_file() else None
    if run is not None and (
        not isinstance(run, dict) or run.get("schema") != "ordo.run/1"
    ):
        raise ReportError(
            f"{run_path} is not a run file of this ordo (schema ordo.run/1)"
        )
    records, corrupt = read_journal(journal, run.get("vendor") if run else None)
    lines = [r.pop("_line", None) for r in records]
    if run is not None:
        for key, value in _RUN_DEFAULTS.items():
            if key not in run:
                run[key] = value
                notes.append(f"run.json has no '{key}'")
        if not run.get("end"):
            reasons.append(
                "the run has no end time: it was interrupted or is still under way"
            )
    else:
        run = _run_from_records(records)
        reasons.append(
            "no run.json: the run was interrupted or is still under way (provenance"
            " unknown)"
        )
    # One schema pass over the report in its stored form (version 2: each distinct case
    # checked once); a record it rejects (or whose case it rejects) becomes a corrupt
    # record, and the report is assembled and checked again.
    results = _assemble(out, journal, run, records, reasons, corrupt, notes)
    stored = encode(results)
    rejected: dict = {}
    by_case: dict | None = None
    errors = list(_validator(schema_id=SCHEMA_ID).iter_errors(stored))
    for e in errors:
        path = list(e.absolute_path)
        if len(path) >= 2 and path[0] == "records" and lines[path[1]] is not None:
            rejected.setdefault(
                path[1],
                f"{'/'.join(map(str, path[2:])) or '(record)'}: {e.message[:120]}",
            )
        elif len(path) >= 2 and path[0] == "cases":
            if by_case is None:
                by_case = {}
                for i, r in enumerate(stored["records"]):
                    by_case.setdefault(r.get("case_ref"), []).append(i)
            for i in by_case.get(path[1], []):
                if lines[i] is not None:
                    rejected.setdefault(
                        i,
                        f"{'/'.join(map(str, ['case'] + path[2:]))}: {e.message[:120]}",
                    )
    if rejected:
        texts = rec.journal_lines(journal, [lines[i] for i in rejected])
        for i, why in rejected.items():
            n = lines[i]
            records[i] = _corrupt(
                n, texts.get(n, ""), f"is not a check record ({why})", records[i]
            )
        results = _assemble(
            out, journal, run, records, reasons, corrupt + len(rejected), notes
        )
        stored = encode(results)
    # A clean first pass is the whole check (the schema pass is most of a build's time).
    if rejected or errors:
        validate(stored, f"the report built from {out}", schema_id=SCHEMA_ID)
    return results


def _assemble(out, journal, run, records, reasons, corrupt, notes):
    reasons = list(reasons)
    run_path = out / "run.json"
    if corrupt:
        reasons.append(f"{corrupt} journal line(s) could not be read as check records")
    expected = run.get("summary")
    if isinstance(expected, dict) and sum(expected.values()) != len(records):
        reasons.append(
            f"run.json counts {sum(expected.values())} checks, the journal holds"
            f" {len(records)}"
        )
    # A job that ended with cases not run (its restart budget used up, or its launches
    # dying before their first case): the run did not check what it was asked to.
    reasons += [why for why in map(rec.not_run_reason, records) if why]
    system = system_name(run)
    # Every replay command runs in the run's system (the runner's own records name
    # none).
    if system:
        for r in records:
            replay = replay_command(r)
            if replay:
                r["replay"] = with_system(replay, system)
    spec, spec_source = _catalogue(
        run["git"].get("commit") or "", {r["clause"] for r in records}
    )
    partial = bool(reasons)
    results = {
        # The whole form every reader works on; dump() stores it as version 2.
        "schema": SCHEMA_V1,
        "generated": {
            "by": f"ordo {_version()} reports",
            "at": _now(),
            "from": [str(run_path), str(journal)],
            "notes": notes,
        },
        "partial": partial,
        "partial_reasons": reasons,
        "run": run,
        "spec": {
            "standard": spec.get("standard", "MPI-4.1"),
            "clauses": spec.get("clauses", {}),
            "source": spec_source,
        },
        "waivers": _judged_waivers(run, records),
        "summary": summarize(records, partial, run),
        "records": records,
    }
    return results


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write(out_dir, dest=None):
    """Builds the report of an output folder into results.json.gz there (or at dest),
    validated when built, and read back (the bytes written, or else validated again). A
    version-1 results.json beside it, which the new report replaces, is removed (the
    journal it was built from is untouched)."""
    t0 = time.time()
    results = build(out_dir)
    # the build's own time (ordo bench)
    results["generated"]["seconds"] = round(time.time() - t0, 3)
    path = pathlib.Path(dest) if dest else pathlib.Path(out_dir) / RESULTS_NAME
    path, digest = _dump(results, path)
    old = path.with_name(RESULTS_NAME_V1)
    # the folder's report of an earlier ordo, now replaced
    if path.name == RESULTS_NAME and old.is_file():
        try:
            old.unlink()
        except OSError:
            pass
    # Read back: the file must hold exactly the bytes written, the document build()
    # validated (its stored form, encoded alike, with the build's seconds added); then
    # the report is the one just built (decoding the file would give it back, with
    # its cases shared as read_journal already shares them), and the schema pass is
    # not made a second time (it is most of a report's time). Any other content is
    # read as any report is, validated.
    if _digest_of(path) != digest:
        return load(path), path
    results["stored_as"] = SCHEMA_ID
    return results, path


def load(path):
    """THE reader of a report, for every reader of reports/ and tools/ (views, compare,
    gate, package, bench): results.json.gz (version 2) or results.json (version 1), a
    file or an output folder holding one, plain or gzip-compressed; validated against
    the schema of its version, and returned with its records whole (each with its case
    and replay command), whatever the version."""
    path = pathlib.Path(path)
    if path.is_dir():
        found = results_file(path)
        if found is None:
            raise ReportError(
                f"{path} holds no {RESULTS_NAME} (nor a {RESULTS_NAME_V1})"
            )
        path = found
    document = read_document(path)
    if not isinstance(document, dict) or not str(document.get("schema", "")).startswith(
        "ordo.results/"
    ):
        raise ReportError(f'{path} is not an ordo report (no "schema": "{SCHEMA_ID}")')
    if document["schema"] not in SCHEMA_PATHS:
        raise ReportError(
            f"{path} is a report of schema {document['schema']}; this ordo reads "
            f"{' and '.join(sorted(SCHEMA_PATHS))}"
        )
    validate(document, str(path), schema_id=document["schema"])
    if document["schema"] != SCHEMA_V1:
        _check_refs(document, str(path))
    return decode(document)


def obtain(path):
    """A report from a results file, or from an output folder (rebuilt when its journal
    is there)."""
    p = pathlib.Path(path)
    if p.is_dir() and rec.journal_file(p) is not None:
        return build(p)
    if p.is_dir() and results_file(p) is None:
        raise ReportError(
            f"{p} holds neither a journal (journal.jsonl, journal.jsonl.gz) nor"
            f" {RESULTS_NAME} (nor {RESULTS_NAME_V1})"
        )
    if not p.exists():
        raise ReportError(f"{p} does not exist")
    return load(p)

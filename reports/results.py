"""results.json: build it from an output folder, validate it, read it back.

An output folder of `ordo run` holds run.json (provenance, written at the end
of the run) and journal.jsonl (one record per check, appended as each check
completes). results.json joins them with the clause catalogue (spec/) and the
waivers the run was judged with, and adds the verdicts derived from the
records, so that every view can be generated from this one file.

A report built while a run is under way, or after it was interrupted, says so:
"partial" is true and "partial_reasons" tells why.
"""
import datetime
import json
import os
import pathlib
import re
import shlex
import subprocess

from . import deps, records as rec, waivers
from .records import BAD, LEVELS, printable

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA_ID = "ordo.results/1"
SCHEMA_PATH = pathlib.Path(__file__).resolve().parent / "schema" / "results-1.schema.json"
RESULTS_NAME = "results.json"



class ReportError(Exception):
    """A report cannot be built or read; the message is one line."""


# ---- strings ---------------------------------------------------------------

def first_line(text):
    text = printable(text).strip()
    return text.splitlines()[0] if text else ""


def case_text(case):
    """The case parameters as one line, e.g. op=MPI_SUM datatype=MPI_INT count=17 root=0 comm=world."""
    if not case:
        return ""
    order = ("op", "datatype", "count", "recvcounts", "root", "comm", "in_place", "mode", "binding", "seed")
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
        parts.append(f"{key}={json.dumps(value) if isinstance(value, (list, bool)) else value}")
    if case.get("root_in_high_group"):
        parts.append("root_in_high_group=true")
    return " ".join(parts)


def replay_command(record):
    """The command that runs the record's case again (or its whole job, for a job that died)."""
    if record.get("replay"):
        return record["replay"]
    if record.get("case"):  # a case that ended its job: the runner records it without a replay command
        case = json.dumps(record["case"], separators=(",", ":"))
        return (f"./ordo replay --vendor {shlex.quote(record.get('vendor', 'mpich'))} --ranks {record.get('ranks')} "
                f"--case {shlex.quote(case)}")
    if record.get("clause") == "harness.job":
        return (f"./ordo run --vendor {record.get('vendor', 'mpich')} --ranks {record.get('ranks')} "
                f"--filter {record.get('test')}")
    return ""


def record_key(record):
    """Identifies a check across runs: test, variant, rank count and the case itself."""
    case = record.get("case")
    what = json.dumps(case, sort_keys=True) if case else record.get("id", "")
    return (record.get("test", ""), record.get("variant", "default"), record.get("ranks", 0), what)


def keyed(records, key=record_key):
    """Records by key; a key seen again (the same case run twice) gets its occurrence number."""
    out, seen = {}, {}
    for r in records:
        k = key(r)
        n = seen.get(k, 0)
        seen[k] = n + 1
        out[k + (n,)] = r
    return out


# ---- validation --------------------------------------------------------------

_validators = {}


def _validator(part=None):
    if part not in _validators:
        jsonschema = deps.require("jsonschema")
        schema = json.loads(SCHEMA_PATH.read_text())
        if part is not None:
            schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{part}"}
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        # The records' schema (record-1.schema.json) is resolved from this folder, never fetched.
        resolver = jsonschema.RefResolver.from_schema(schema, store=rec.resolver_store())
        _validators[part] = cls(schema, resolver=resolver)
    return _validators[part]


def schema_errors(document, part=None):
    """Readable schema violations ("records/3/outcome: 'maybe' is not one of ..."), first ones first."""
    errors = sorted(_validator(part).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in errors]


def validate(document, what):
    errors = schema_errors(document)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ReportError(f"{what} does not follow {SCHEMA_PATH.name}: {errors[0][:300]}{more}")


# ---- verdicts ------------------------------------------------------------------

def count(records):
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return counts


def detect_counts(records):
    c = {"reported": 0, "accepted": 0}
    for r in records:
        if r["level"] == "DETECT" and r.get("detect") in c:
            c[r["detect"]] += 1
    return c


def level_verdict(level, counts):
    total = sum(counts.values())
    if total == 0:
        return "not checked"
    if level == "INFO":
        return "recorded"
    if any(counts.get(o) for o in BAD):
        return "fail"
    return "pass with waivers" if counts.get("waived") else "pass"


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
    """A skip that says the library lacks something (not a shape that needs more ranks)."""
    return reason.endswith(" absent")


def not_tested(records):
    """Clauses of the judged levels that the library's checks did not (fully) exercise:
    'not tested' when every check was skipped or ran ordo's own code, 'partly tested'
    when the library lacks a feature some of them needed; with the reasons."""
    by_clause = {}
    for r in records:
        if r["level"] == "INFO":
            continue
        row = by_clause.setdefault((r["clause"], r["level"]), {"checks": 0, "skipped": 0, "ordo": 0, "reasons": {}})
        row["checks"] += 1
        if not credited_to_library(r):
            row["ordo"] += 1
            why = "the library has no MPIX_Reduce_locals: ordo's portable implementation ran"
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
        gaps = {k: v for k, v in row["reasons"].items() if library_gap(k) or k.startswith("the library has no")}
        if untested == row["checks"]:
            status = "not tested"
        elif gaps:
            status = "partly tested"
        else:
            continue  # some cases need another rank count or shape: the clause is exercised elsewhere
        reasons = sorted(row["reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append({"clause": clause, "level": level, "status": status, "checks": row["checks"],
                    "untested": untested, "reasons": [{"reason": k, "checks": v} for k, v in reasons]})
    return out


def headline(verdict, gaps):
    """The verdict and, for MUST, what was not tested and why."""
    parts = [verdict]
    for status in ("not tested", "partly tested"):
        rows = [g for g in gaps if g["level"] == "MUST" and g["status"] == status]
        if rows:
            reasons = []
            for g in rows:
                for item in g["reasons"]:
                    if item["reason"] not in reasons and (library_gap(item["reason"]) or
                                                          item["reason"].startswith("the library has no") or
                                                          status == "not tested"):
                        reasons.append(item["reason"])
            n = len(rows)
            parts.append(f"{n} MUST clause{'s' if n != 1 else ''} {status}: {', '.join(reasons) or 'see the clauses'}")
    return "; ".join(parts)


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
    groups = {}
    for r in records:
        b = binding_of(r)
        if b is not None:
            groups.setdefault(b, []).append(r)
    order = list(BINDINGS) + sorted(set(groups) - set(BINDINGS))
    return {b: {"total": len(groups[b]), "outcomes": count(groups[b])} for b in order if b in groups}


def summarize(records, partial):
    """Verdicts per level over the library's checks (not those of ordo's own code),
    the clauses not tested and why, and the headline."""
    library = [r for r in records if credited_to_library(r)]
    levels = {}
    for level in LEVELS:
        c = count(r for r in library if r["level"] == level)
        levels[level] = {"total": sum(c.values()), "outcomes": c, "verdict": level_verdict(level, c)}
    # DETECT: how often the library reported the erroneous use, and how often it accepted it.
    levels["DETECT"]["detect"] = detect_counts(library)
    must = levels["MUST"]["verdict"]
    if must == "fail":
        verdict = "not conformant"
    elif partial:
        verdict = "incomplete"
    elif not records:
        verdict = "nothing checked"
    elif must == "pass with waivers":
        verdict = "conformant with waivers"
    else:
        verdict = "conformant"
    gaps = not_tested(records)
    own = [r for r in records if not credited_to_library(r)]
    summary = {"total": len(records), "outcomes": count(records), "levels": levels, "verdict": verdict,
               "headline": headline(verdict, gaps), "not_tested": gaps, "bindings": by_binding(records)}
    if own:
        summary["ordo_own"] = {"total": len(own), "outcomes": count(own),
                               "clauses": sorted({r["clause"] for r in own}),
                               "note": "these checks ran ordo's portable implementation (over the library's "
                                       "MPI_Reduce_local) because the library has none of its own; they test "
                                       "ordo, and are not counted in the library's verdict"}
    return summary


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
        "schema": "ordo.run/1", "ordo_version": _version(), "git": {"commit": "unknown", "dirty": None},
        "vendor": vendors[0] if len(vendors) == 1 else ("+".join(vendors) or "unknown"), "adapter": None,
        "library_version": None, "mpi_version": None, "host": "unknown", "launcher": [], "command": [],
        "variants": sorted({r["variant"] for r in records}) or ["default"],
        "ranks": sorted({r["ranks"] for r in records}), "seed": None, "start": None, "end": None,
    }


_RUN_DEFAULTS = {"ordo_version": "unknown", "git": {"commit": "unknown", "dirty": None}, "vendor": "unknown",
                 "library_version": None, "mpi_version": None, "host": "unknown", "launcher": [], "command": [],
                 "variants": ["default"], "ranks": [], "seed": None, "start": None, "end": None}


def _load_json(path, what):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except OSError as e:
        raise ReportError(f"cannot read {what} {path}: {e.strerror}")
    except ValueError as e:
        raise ReportError(f"{what} {path} is not JSON: {e}")


def _git(*args):
    try:
        p = subprocess.run(["git", "-C", str(ROOT)] + list(args), capture_output=True, text=True, timeout=30)
        return p.stdout if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def _catalogue(commit, used):
    """The clause catalogue: this checkout's spec/clauses.json (slugs are stable, and the newest paraphrase
    is the best); a slug the records use that it no longer has is taken from the file at the run's commit."""
    here = ROOT / "spec" / "clauses.json"
    spec = _load_json(here, "the clause catalogue")
    clauses = spec.setdefault("clauses", {})
    source = str(here)
    missing = sorted(set(used) - set(clauses) - {"harness.job", "harness.journal"})
    if missing and re.fullmatch(r"[0-9a-f]{40}", commit):
        try:
            old = json.loads(_git("show", f"{commit}:spec/clauses.json") or "{}").get("clauses", {})
        except ValueError:
            old = {}
        found = [slug for slug in missing if slug in old]
        for slug in found:
            clauses[slug] = old[slug]
        if found:
            source += f", and {len(found)} clause(s) from spec/clauses.json at {commit}"
    return spec, source


def waivers_file_of(run, root=ROOT, checkout_first=False):
    """The waivers file of the adapter a run used (reports/waivers.py locates it
    by the adapter's "waivers" key): the run's adapter file, else the vendor's
    adapter of this checkout (checkout_first: the other way round); None when
    there is none."""
    ours = pathlib.Path(root) / "vendors" / (run.get("vendor") or "") / "adapter.json"
    candidates = [run.get("adapter"), str(ours) if run.get("vendor") else None]
    if checkout_first:
        candidates.reverse()
    adapter_path = next((c for c in candidates if c and pathlib.Path(c).is_file()), None)
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
        return {"source": str(path), "waivers": [w for w in found if isinstance(w, dict)]}
    except (waivers.WaiverFileError, AttributeError):
        return {"source": None, "waivers": []}


def _judged_waivers(run, records):
    """The run's waivers and how its records met them (waivers.usage): a waiver that
    waived nothing is stale; one that named a failing check but did not apply says why."""
    found = _waivers_of(run)
    day = (run.get("end") or run.get("start") or _now())[:10]
    found.update(waivers.usage(records, found["waivers"], today=day,
                               library_version=waivers.parse_library_version(run.get("library_version") or ""),
                               variants=run.get("variants") or ["default"], ranks=run.get("ranks") or []))
    return found


def build(out_dir):
    """results.json's content for an output folder (run.json + journal.jsonl), validated."""
    out = pathlib.Path(out_dir)
    journal = out / "journal.jsonl"
    if not journal.is_file():
        raise ReportError(f"{out} holds no journal.jsonl: not an output folder of `ordo run`")
    reasons, notes = [], []
    run_path = out / "run.json"
    run = _load_json(run_path, "the run file") if run_path.is_file() else None
    if run is not None and (not isinstance(run, dict) or run.get("schema") != "ordo.run/1"):
        raise ReportError(f"{run_path} is not a run file of this ordo (schema ordo.run/1)")
    records, corrupt = read_journal(journal, run.get("vendor") if run else None)
    lines = [r.pop("_line", None) for r in records]
    if run is not None:
        for key, value in _RUN_DEFAULTS.items():
            if key not in run:
                run[key] = value
                notes.append(f"run.json has no '{key}'")
        if not run.get("end"):
            reasons.append("the run has no end time: it was interrupted or is still under way")
    else:
        run = _run_from_records(records)
        reasons.append("no run.json: the run was interrupted or is still under way (provenance unknown)")
    # One schema pass over the whole report; a record it rejects becomes a corrupt record, and the report is
    # assembled and checked again.
    results = _assemble(out, run, records, reasons, corrupt, notes)
    rejected = {}
    for e in _validator().iter_errors(results):
        path = list(e.absolute_path)
        if len(path) >= 2 and path[0] == "records" and lines[path[1]] is not None:
            rejected.setdefault(path[1], f"{'/'.join(map(str, path[2:])) or '(record)'}: {e.message[:120]}")
    if rejected:
        for i, why in rejected.items():
            n, line = lines[i]
            records[i] = _corrupt(n, line, f"is not a check record ({why})", records[i])
        results = _assemble(out, run, records, reasons, corrupt + len(rejected), notes)
    validate(results, f"the report built from {out}")
    return results


def _assemble(out, run, records, reasons, corrupt, notes):
    reasons = list(reasons)
    journal, run_path = out / "journal.jsonl", out / "run.json"
    if corrupt:
        reasons.append(f"{corrupt} journal line(s) could not be read as check records")
    expected = run.get("summary")
    if isinstance(expected, dict) and sum(expected.values()) != len(records):
        reasons.append(f"run.json counts {sum(expected.values())} checks, the journal holds {len(records)}")
    spec, spec_source = _catalogue(run["git"].get("commit") or "", {r["clause"] for r in records})
    partial = bool(reasons)
    results = {
        "schema": SCHEMA_ID,
        "generated": {"by": f"ordo {_version()} reports", "at": _now(), "from": [str(run_path), str(journal)],
                      "notes": notes},
        "partial": partial,
        "partial_reasons": reasons,
        "run": run,
        "spec": {"standard": spec.get("standard", "MPI-4.1"), "clauses": spec.get("clauses", {}),
                 "source": spec_source},
        "waivers": _judged_waivers(run, records),
        "summary": summarize(records, partial),
        "records": records,
    }
    return results


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write(out_dir, dest=None):
    """Builds results.json in the output folder (or at dest), validated when written and read back."""
    results = build(out_dir)
    path = pathlib.Path(dest) if dest else pathlib.Path(out_dir) / RESULTS_NAME
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(results, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except OSError as e:
        raise ReportError(f"cannot write {path}: {e.strerror}")
    return load(path), path


def load(path):
    """Reads results.json (or the results.json of an output folder) and validates it."""
    path = pathlib.Path(path)
    if path.is_dir():
        path = path / RESULTS_NAME
    document = _load_json(path, "the report")
    if not isinstance(document, dict) or not str(document.get("schema", "")).startswith("ordo.results/"):
        raise ReportError(f"{path} is not an ordo report (no \"schema\": \"{SCHEMA_ID}\")")
    if document["schema"] != SCHEMA_ID:
        raise ReportError(f"{path} is a report of schema {document['schema']}; this ordo reads {SCHEMA_ID}")
    validate(document, str(path))
    return document


def obtain(path):
    """A report from results.json, or from an output folder (rebuilt when its journal is there)."""
    p = pathlib.Path(path)
    if p.is_dir() and (p / "journal.jsonl").is_file():
        return build(p)
    if p.is_dir() and not (p / RESULTS_NAME).is_file():
        raise ReportError(f"{p} holds neither journal.jsonl nor {RESULTS_NAME}")
    if not p.exists():
        raise ReportError(f"{p} does not exist")
    return load(p)

#!/usr/bin/python3
"""Verifies an ordo procurement package (copied into each package as verify.py).

    /usr/bin/python3 verify.py [PACKAGE_DIR]

Checks that every file listed in SHA256SUMS is present and unaltered, that no
other file was added (a signed statement may be added as STATEMENT-signed.*),
that the report (results.json.gz, gzip-compressed, or a results.json of
version 1) follows the JSON Schema of its version shipped in schema/, that its
summary agrees with its records and every case it refers to is there, and that
junit.xml.gz (or junit.xml) and the journal (run/journal.jsonl.gz or run/journal.jsonl)
count the same checks.
Exit codes: 0 verified, 1 the package does not verify, 2 cannot run (a
Debian package is missing, or the folder is not a package).
This script stands alone: it needs only Debian's python3 and python3-jsonschema.
"""
import gzip
import hashlib
import json
import pathlib
import sys
import xml.etree.ElementTree as ET

MANIFEST = "SHA256SUMS"
ALLOWED_EXTRA = ("STATEMENT-signed",)
BAD = ("fail", "crash", "timeout", "corrupt")
REPORTS = ("results.json.gz", "results.json")
JOURNALS = ("run/journal.jsonl.gz", "run/journal.jsonl")
JUNITS = ("junit.xml.gz", "junit.xml")
SCHEMAS = {
    "ordo.results/2": "results-2.schema.json",
    "ordo.results/1": "results-1.schema.json",
}


def read_maybe_gzip(path):
    """A file's bytes, decompressed when it is gzip (recognised by its first bytes)."""
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_files(pkg, problems):
    listed = {}
    for n, line in enumerate((pkg / MANIFEST).read_text().splitlines(), 1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        if (
            not sep
            or len(digest) != 64
            or name.startswith("/")
            or ".." in pathlib.PurePosixPath(name).parts
        ):
            problems.append(f"{MANIFEST} line {n} is malformed")
            continue
        listed[name] = digest
    for name, digest in sorted(listed.items()):
        path = pkg / name
        if not path.is_file():
            problems.append(f"missing: {name}")
        elif sha256(path) != digest:
            problems.append(f"altered: {name} (its checksum differs from {MANIFEST})")
    for path in sorted(p for p in pkg.rglob("*") if p.is_file()):
        name = path.relative_to(pkg).as_posix()
        if name == MANIFEST or name in listed or "__pycache__" in path.parts:
            continue
        if not name.startswith(ALLOWED_EXTRA):
            problems.append(f"not part of the package: {name}")
    return len(listed)


def check_results(pkg, problems):
    try:
        import jsonschema
    except ImportError:
        print(
            (
                "verify: the python module 'jsonschema' is missing: install it with: "
                "sudo apt-get install -y python3-jsonschema"
            ),
            file=sys.stderr,
        )
        sys.exit(2)
    name = next((n for n in REPORTS if (pkg / n).is_file()), REPORTS[0])
    try:
        results = json.loads(read_maybe_gzip(pkg / name))
        schema_id = results.get("schema") if isinstance(results, dict) else None
        schema_file = SCHEMAS.get(schema_id) if isinstance(schema_id, str) else None
        if schema_file is None:
            problems.append(
                f"{name} is not an ordo report of a schema this verifier knows"
                f" ({', '.join(SCHEMAS)})"
            )
            return None
        schema = json.loads((pkg / "schema" / schema_file).read_text())
        record = json.loads((pkg / "schema" / "record-1.schema.json").read_text())
    except (OSError, ValueError, EOFError) as e:
        problems.append(f"cannot read {name} or its schema: {e}")
        return None
    # The records' schema is the package's own copy, found by its $id (never fetched).
    cls = jsonschema.validators.validator_for(schema)
    # jsonschema 4.18 on (Debian 13): its registry (RefResolver there fails on the urn:
    # $id).
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        validator = cls(
            schema,
            registry=Registry().with_resource(
                record["$id"],
                Resource.from_contents(record, default_specification=DRAFT202012),
            ),
        )
    except ImportError:  # 4.10 (Debian 12)
        validator = cls(
            schema,
            resolver=jsonschema.RefResolver.from_schema(
                schema, store={record["$id"]: record}
            ),
        )
    errors = sorted(validator.iter_errors(results), key=lambda e: list(e.absolute_path))
    for err in errors[:5]:
        problems.append(
            f"{name} does not follow its schema:"
            f" {'/'.join(map(str, err.absolute_path))}: {err.message[:200]}"
        )
    if errors:
        return None
    records = results["records"]
    # Version 2 stores each case once: every reference must name one.
    n_cases, n_replays = len(results.get("cases", [])), len(results.get("replays", []))
    if any(
        r.get("case_ref", -1) >= n_cases or r.get("replay_ref", -1) >= n_replays
        for r in records
    ):
        problems.append(
            f"{name}: a record refers to a case or replay command the report does not"
            " hold"
        )
    counts: dict = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    if (
        counts != results["summary"]["outcomes"]
        or len(records) != results["summary"]["total"]
    ):
        problems.append(f"{name}: the summary does not agree with the records")
    journal = next((pkg / n for n in JOURNALS if (pkg / n).is_file()), None)
    if journal is not None:
        try:
            text = read_maybe_gzip(journal).decode("utf-8", errors="replace")
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) != len(records):
                problems.append(
                    f"{journal.relative_to(pkg)} holds {len(lines)} records,"
                    f" {name} {len(records)}"
                )
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            problems.append(f"cannot read {journal.relative_to(pkg)}: {e}")
    junit = next((pkg / n for n in JUNITS if (pkg / n).is_file()), None)
    if junit is not None:
        try:
            root = ET.fromstring(read_maybe_gzip(junit))
            # Passing checks are summarised: a testcase stands for its "checks" property
            # (1 without it).
            checks = 0
            for case in root.iter("testcase"):
                checks += int(
                    next(
                        (
                            # no value: a problem (int("")), not a crash
                            p.get("value", "")
                            for p in case.iter("property")
                            if p.get("name") == "checks"
                        ),
                        "1",
                    )
                )
            if root.tag != "testsuites" or checks != len(records):
                problems.append(
                    f"{junit.name} does not count the same checks as {name} ({checks}, "
                    f"{len(records)})"
                )
        except (ET.ParseError, ValueError, OSError, EOFError, gzip.BadGzipFile) as e:
            problems.append(f"{junit.name} is not well-formed XML: {e}")
    results["_name"] = name
    return results


def main(argv):
    pkg = pathlib.Path(
        argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent
    )
    if not (pkg / MANIFEST).is_file():
        print(f"verify: {pkg} is not an ordo package (no {MANIFEST})", file=sys.stderr)
        return 2
    problems: list = []
    n = check_files(pkg, problems)
    results = check_results(pkg, problems)
    for p in problems:
        print(f"verify: {p}")
    if problems:
        print(f"verify: FAILED: {len(problems)} problem(s) in {pkg}")
        return 1
    s = results["summary"]
    bad = sum(s["outcomes"].get(o, 0) for o in BAD)
    print(
        f"verify: OK: {n} files match {MANIFEST}; {results['_name']} follows"
        f" {results['schema']}: {results['run']['vendor']}, {s['total']} checks,"
        f" {bad} failing, verdict '{s.get('headline') or s['verdict']}'"
        + (" (PARTIAL run)" if results["partial"] else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

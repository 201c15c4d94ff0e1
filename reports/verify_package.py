#!/usr/bin/python3
"""Verifies an ordo procurement package (copied into each package as verify.py).

    /usr/bin/python3 verify.py [PACKAGE_DIR]

Checks that every file listed in SHA256SUMS is present and unaltered, that no
other file was added (a signed statement may be added as STATEMENT-signed.*),
that results.json follows the JSON Schema shipped in schema/, that its summary
agrees with its records, and that junit.xml and the journal agree with it.
Exit codes: 0 verified, 1 the package does not verify, 2 cannot run (a
Debian package is missing, or the folder is not a package).
This script stands alone: it needs only Debian's python3 and python3-jsonschema.
"""
import hashlib
import json
import pathlib
import sys
import xml.etree.ElementTree as ET

MANIFEST = "SHA256SUMS"
ALLOWED_EXTRA = ("STATEMENT-signed",)
BAD = ("fail", "crash", "timeout", "corrupt")


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
        if not sep or len(digest) != 64 or name.startswith("/") or ".." in pathlib.PurePosixPath(name).parts:
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
        print("verify: the python module 'jsonschema' is missing: install it with: "
              "sudo apt-get install -y python3-jsonschema", file=sys.stderr)
        sys.exit(2)
    try:
        results = json.loads((pkg / "results.json").read_text())
        schema = json.loads((pkg / "schema" / "results-1.schema.json").read_text())
        record = json.loads((pkg / "schema" / "record-1.schema.json").read_text())
    except (OSError, ValueError) as e:
        problems.append(f"cannot read results.json or its schema: {e}")
        return None
    # The records' schema is the package's own copy, found by its $id (never fetched).
    resolver = jsonschema.RefResolver.from_schema(schema, store={record["$id"]: record})
    validator = jsonschema.validators.validator_for(schema)(schema, resolver=resolver)
    errors = sorted(validator.iter_errors(results), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        problems.append(f"results.json does not follow its schema: {'/'.join(map(str, e.absolute_path))}: "
                        f"{e.message[:200]}")
    if errors:
        return None
    records = results["records"]
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    if counts != results["summary"]["outcomes"] or len(records) != results["summary"]["total"]:
        problems.append("results.json: the summary does not agree with the records")
    journal = pkg / "run" / "journal.jsonl"
    if journal.is_file():
        lines = [line for line in journal.read_text(errors="replace").splitlines() if line.strip()]
        if len(lines) != len(records):
            problems.append(f"run/journal.jsonl holds {len(lines)} records, results.json {len(records)}")
    junit = pkg / "junit.xml"
    if junit.is_file():
        try:
            root = ET.parse(junit).getroot()
            if root.tag != "testsuites" or int(root.get("tests", -1)) != len(records):
                problems.append("junit.xml does not count the same checks as results.json")
        except (ET.ParseError, ValueError) as e:
            problems.append(f"junit.xml is not well-formed XML: {e}")
    return results


def main(argv):
    pkg = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent)
    if not (pkg / MANIFEST).is_file():
        print(f"verify: {pkg} is not an ordo package (no {MANIFEST})", file=sys.stderr)
        return 2
    problems = []
    n = check_files(pkg, problems)
    results = check_results(pkg, problems)
    for p in problems:
        print(f"verify: {p}")
    if problems:
        print(f"verify: FAILED: {len(problems)} problem(s) in {pkg}")
        return 1
    s = results["summary"]
    bad = sum(s["outcomes"].get(o, 0) for o in BAD)
    print(f"verify: OK: {n} files match {MANIFEST}; results.json follows {results['schema']}: "
          f"{results['run']['vendor']}, {s['total']} checks, {bad} failing, verdict '{s['verdict']}'"
          + (" (PARTIAL run)" if results["partial"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""Rejects a check without a known clause.

Every TEST in conformance/ must declare ORDO_CLAUSE("<slug>", <LEVEL>) with a
slug from spec/clauses.json and a level of MUST, SHOULD, DETECT or INFO; every
clause the reference raises (SemanticsError("<slug>", ...)) must be known too.
Every clause of the catalogue cites its section of MPI-4.1 ("section") and of
MPI-5.0 ("section_50" with MPI-5.0's heading in "title_50"), or says in
"no_section_50" why MPI-5.0 has none for it. A clause of what MPI-4.1 does
not have (MPI-5.0's standard ABI) gives "section": "none" and the reason in
"no_section_41".
Prints the number of checks per clause. Exit 0 when clean, 1 otherwise.
"""
import json
import pathlib
import re
import sys

LEVELS = {"MUST", "SHOULD", "DETECT", "INFO"}
TEST_RE = re.compile(
    r"^(?:TEST|TEST_F|RC_GTEST_PROP|RC_GTEST_FIXTURE_PROP)\s*\(\s*(\w+)\s*,\s*(\w+)",
    re.M,
)
CLAUSE_RE = re.compile(r'ORDO_CLAUSE\(\s*"([^"]+)"\s*,\s*(\w+)\s*\)')
RAISE_RE = re.compile(r'SemanticsError\(\s*"([^"]+)"')


def _text(value):
    return isinstance(value, str) and value.strip() != ""


def citation_errors(clauses):
    """The clauses that do not cite both standards: each needs its MPI-4.1
    section, and its MPI-5.0 section with MPI-5.0's heading, or a stated
    reason (no_section_50) why MPI-5.0 has no section for it."""
    errors = []
    for slug, c in clauses.items():
        if not isinstance(c, dict):
            errors.append(f"spec/clauses.json: clause '{slug}' is not an object")
            continue
        if not _text(c.get("section")):
            errors.append(
                f"spec/clauses.json: clause '{slug}' cites no MPI-4.1 section"
                ' ("section")'
            )
        elif c["section"] == "none" and not _text(c.get("no_section_41")):
            # a clause of what MPI-4.1 does not have (MPI-5.0's standard ABI)
            errors.append(
                f"spec/clauses.json: clause '{slug}' has MPI-4.1 section \"none\""
                ' without a reason ("no_section_41")'
            )
        if _text(c.get("no_section_50")):
            continue
        if "no_section_50" in c:
            errors.append(
                f"spec/clauses.json: clause '{slug}' has an empty \"no_section_50\""
                " reason"
            )
        elif not _text(c.get("section_50")):
            errors.append(
                f"spec/clauses.json: clause '{slug}' cites no MPI-5.0 section"
                ' ("section_50") and gives no reason ("no_section_50")'
            )
        elif not _text(c.get("title_50")):
            errors.append(
                f"spec/clauses.json: clause '{slug}' cites MPI-5.0"
                f" {c['section_50']} without its heading (\"title_50\")"
            )
    return errors


def main(root: pathlib.Path) -> int:
    try:
        spec = json.loads((root / "spec" / "clauses.json").read_text())
        known = set(spec["clauses"])
    except (OSError, ValueError, KeyError) as e:
        print(f"lint: cannot read spec/clauses.json: {e}")
        return 1
    errors = citation_errors(spec["clauses"])
    per_clause = {k: 0 for k in known}
    for path in sorted((root / "conformance").rglob("*.cpp")):
        if "harness" in path.parts:
            continue
        text = path.read_text()
        starts = [m.start() for m in TEST_RE.finditer(text)] + [len(text)]
        for i, m in enumerate(TEST_RE.finditer(text)):
            body = text[m.end() : starts[i + 1]]
            c = CLAUSE_RE.search(body)
            name = f"{m.group(1)}.{m.group(2)}"
            rel = path.relative_to(root)
            if not c:
                errors.append(f"{rel}: {name} declares no ORDO_CLAUSE")
                continue
            slug, level = c.groups()
            if slug not in known:
                errors.append(f"{rel}: {name} names unknown clause '{slug}'")
            elif level not in LEVELS:
                errors.append(f"{rel}: {name} has unknown level '{level}'")
            else:
                per_clause[slug] += 1
    for path in sorted((root / "reference").rglob("*.cpp")):
        for slug in RAISE_RE.findall(path.read_text()):
            if slug not in known:
                errors.append(
                    f"{path.relative_to(root)}: raises unknown clause '{slug}'"
                )
    for e in errors:
        print("lint:", e)
    print(f"{'clause':45} checks")
    for slug in sorted(per_clause):
        print(f"{slug:45} {per_clause[slug]}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))

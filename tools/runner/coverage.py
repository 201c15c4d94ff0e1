"""The coverage table of a run: checks per clause of spec/clauses.json."""
import json

from . import ROOT


def coverage_table(records):
    """Checks per clause of spec/clauses.json, generated from a run's records;
    clauses without any check are listed too."""
    spec = json.loads((ROOT / "spec" / "clauses.json").read_text())["clauses"]
    rows: dict = {}
    for r in records:
        slug = r.get("clause") or "?"
        row = rows.setdefault(slug, {"levels": set(), "outcomes": {}})
        row["levels"].add(r.get("level") or "?")
        row["outcomes"][r.get("outcome")] = row["outcomes"].get(r.get("outcome"), 0) + 1
    lines = [f"{'clause':40} {'section':14} {'level':12} {'checks':>7}  outcomes"]
    for slug in sorted(set(spec) | set(rows)):
        row = rows.get(slug, {"levels": set(), "outcomes": {}})
        n = sum(row["outcomes"].values())
        section = spec.get(slug, {}).get("section", "?")
        levels = ",".join(sorted(row["levels"])) or "-"
        lines.append(
            f"{slug:40} {section[:14]:14} {levels:12} {n:>7}  "
            + (
                ", ".join(f"{v} {o}" for o, v in sorted(row["outcomes"].items()))
                or "no checks"
            )
        )
    return "\n".join(lines) + "\n"

"""The property phase's generated cases as the report shows them: one column per
variant and rank count, one table per dimension (datatype layout, op, routine,
count, ...), from the summary records the property runs wrote (clause
property.reduce-family, their `property.labels`). The verdicts are the cases' own
records; this is what was drawn."""

import collections

CLAUSE = "property.reduce-family"
# the dimensions in the order a reader looks for them; any other follows, sorted
ORDER = (
    "datatype",
    "op",
    "routine",
    "count",
    "shape",
    "concurrency",
    "binding",
    "level",
)
TITLES = {
    "datatype": "datatype layout (witness ops: every case; others: derived layouts)",
    "op": "op kind",
    "routine": "routine and form",
    "count": "count",
    "shape": "communicator",
    "concurrency": "concurrency",
    "binding": "binding",
    "level": "level",
}


def summaries(records):
    """The property runs' summary records."""
    return [
        r
        for r in records
        if r.get("clause") == CLAUSE and isinstance(r.get("property"), dict)
    ]


def _column(record):
    return (record.get("variant") or "default", record.get("ranks") or 0)


def context(records):
    """What the report's property section shows, or None for a run without a
    property phase."""
    runs = summaries(records)
    if not runs:
        return None
    columns = sorted({_column(r) for r in runs}, key=lambda c: (c[0] != "default", c))
    heads: dict = {
        c: {"cases": 0, "seeds": [], "passed": True, "seconds": 0.0} for c in columns
    }
    counts: dict = collections.defaultdict(
        lambda: collections.defaultdict(collections.Counter)
    )
    for r in runs:
        col = _column(r)
        p = r["property"]
        head = heads[col]
        head["cases"] += int(p.get("cases") or 0)
        if p.get("seed") is not None and str(p["seed"]) not in head["seeds"]:
            head["seeds"].append(str(p["seed"]))
        head["passed"] = head["passed"] and bool(p.get("passed"))
        head["seconds"] += float(p.get("seconds") or 0.0)
        for dim, labels in (p.get("labels") or {}).items():
            if not isinstance(labels, dict):
                continue
            for label, n in labels.items():
                counts[dim][label][col] += int(n)
    dims = [d for d in ORDER if d in counts] + sorted(set(counts) - set(ORDER))
    tables = []
    for dim in dims:
        rows = []
        for label in sorted(
            counts[dim], key=lambda lab: (-sum(counts[dim][lab].values()), lab)
        ):
            cells = [counts[dim][label].get(c, 0) for c in columns]
            rows.append({"label": label, "cells": cells, "total": sum(cells)})
        tables.append({"dimension": dim, "title": TITLES.get(dim, dim), "rows": rows})
    return {
        "columns": [
            {
                "variant": v,
                "ranks": n,
                **heads[(v, n)],
                "seconds": round(heads[(v, n)]["seconds"], 1),
            }
            for v, n in columns
        ],
        "tables": tables,
        "cases": sum(h["cases"] for h in heads.values()),
    }

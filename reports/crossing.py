"""The coverage matrix of the crossed case space.

For every pair of dimensions of the crossing check (routine, form, op, datatype,
count, root, in_place, comm: conformance/crossing), a matrix of which pairs of
values ran, in how many cases and with which outcomes ("nonblocking x
struct-padded: 40 cases, 2 fail"); the pairs no valid call has, and those only
calls the library cannot run hold, with their reasons. Computed from results.json
alone: the crossing records' "dimensions" and run.crossing, the space the check
crossed at each rank count (the reference says what is valid, the harness what
the library lacks). In a variant sweep each variant runs its own covering array
over the routines and forms it selects (run.crossing_variants): each has its own
view, of its own records against its own space.
"""
import collections
import itertools

from . import records as rec

# A cell whose pair never ran: why, in the words the template shows.
INVALID, UNAVAILABLE, MISSING = "invalid", "unavailable", "missing"


def _worst(counts):
    for o in ("corrupt", "crash", "timeout", "fail", "waived", "skip", "pass"):
        if counts.get(o):
            return o
    return "none"


def _dimensions(spaces, records):
    """[(name, [values])] in the check's order: from the space it printed, else from the
    records."""
    for n in sorted(spaces, key=int):
        return [(d["name"], list(d["values"])) for d in spaces[n]["dimensions"]]
    names: list = []
    values: collections.defaultdict = collections.defaultdict(list)
    for r in records:
        for k, v in r["dimensions"].items():
            if k not in names:
                names.append(k)
            if v not in values[k]:
                values[k].append(v)
    return [(k, values[k]) for k in names]


def _listed(spaces, key, order):
    """{(dim a, dim b): {(value a, value b): {ranks: reason}}} of the spaces' invalid or
    unavailable pairs, a before b in the dimensions' order (a JSON object's keys may
    come in any order)."""
    out: collections.defaultdict = collections.defaultdict(
        lambda: collections.defaultdict(dict)
    )
    for n, space in spaces.items():
        for t in space.get(key, []):
            items = sorted(
                t["values"].items(), key=lambda kv: order.get(kv[0], len(order))
            )
            if len(items) != 2:
                continue
            (a, va), (b, vb) = items
            out[(a, b)][(va, vb)][int(n)] = t["reason"]
    return out


def _variant(record):
    return record.get("variant") or "default"


def spaces_by_variant(run):
    """{variant: {ranks: space}}: the default variant's spaces (run.crossing) and
    each other variant's own (run.crossing_variants), each built over what that
    variant selects."""
    out = {}
    if run.get("crossing"):
        out["default"] = run["crossing"]
    for name, spaces in (run.get("crossing_variants") or {}).items():
        if spaces:
            out[name] = spaces
    return out


def context(report):
    """What the template's coverage section shows; None when the run had no crossing
    check. A run of one variant: that variant's view, as always. A sweep: the
    default variant's view (when it ran) and one view per other variant in
    "variants", each of its own records against its own space (a variant's
    covering array is built for the routines and forms it selects), with
    "per_variant" the figures of all of them."""
    run = report["run"]
    records = [r for r in report["records"] if isinstance(r.get("dimensions"), dict)]
    spaces = spaces_by_variant(run)
    if not spaces and not records:
        return None
    names = sorted(
        set(spaces) | {_variant(r) for r in records},
        key=lambda v: (v != "default", v),
    )
    views = []
    for name in names:
        view = _view(spaces.get(name, {}), [r for r in records if _variant(r) == name])
        view["variant"] = name
        view["anchor"] = "coverage-" + "".join(
            c if c.isalnum() or c in "-_" else "-" for c in name
        )
        view["scope"] = next(
            (
                s["scope"]
                for _, s in sorted(spaces.get(name, {}).items())
                if "scope" in s
            ),
            "",
        )
        views.append(view)
    if len(views) == 1:
        out = views[0]
        out["variants"] = []
        out["per_variant"] = []
        return out
    main = views[0] if views[0]["variant"] == "default" else None
    out = dict(main) if main else {"dimensions": views[0]["dimensions"]}
    out["cases"] = len(records)
    out["main"] = main is not None
    out["variants"] = [v for v in views if v is not main]
    out["per_variant"] = per_variant_figures(views)
    return out


def per_variant_figures(views):
    """One row per variant and rank count: cases, valid pairs, held by the array,
    held by the cases that ran."""
    rows = []
    for v in views:
        for f in v["figures"]:
            rows.append(dict(f, variant=v["variant"], scope=v["scope"]))
    return rows


def _view(spaces, records):
    """The coverage of one variant: its matrices, figures, gaps and listed pairs."""
    dims = _dimensions(spaces, records)
    rank_counts = sorted(int(n) for n in spaces)
    order = {name: i for i, (name, _) in enumerate(dims)}
    invalid, unavailable = _listed(spaces, "invalid", order), _listed(
        spaces, "unavailable", order
    )

    # (a, b, va, vb) -> outcomes
    cells: collections.defaultdict = collections.defaultdict(collections.Counter)
    # ranks -> {(a, b, va, vb)} of cases not skipped
    ran_pairs = collections.defaultdict(set)
    cases_at = collections.Counter(r["ranks"] for r in records)
    for r in records:
        d = r["dimensions"]
        for (a, _), (b, _) in itertools.combinations(dims, 2):
            if a in d and b in d:
                cells[(a, b, d[a], d[b])][r["outcome"]] += 1
                if r["outcome"] != "skip":
                    ran_pairs[r["ranks"]].add((a, b, d[a], d[b]))

    matrices, gaps = [], []
    totals: collections.Counter = collections.Counter()
    for (a, va_all), (b, vb_all) in itertools.combinations(dims, 2):
        rows = []
        for va in va_all:
            row = []
            for vb in vb_all:
                counts = dict(cells.get((a, b, va, vb), {}))
                total = sum(counts.values())
                bad = sum(counts.get(o, 0) for o in rec.BAD)
                cell = {
                    "a": va,
                    "b": vb,
                    "counts": counts,
                    "total": total,
                    "bad": bad,
                    "worst": _worst(counts),
                    "status": "ran",
                    "reason": "",
                }
                inv = invalid.get((a, b), {}).get((va, vb), {})
                una = unavailable.get((a, b), {}).get((va, vb), {})
                if not total:
                    if inv and (not rank_counts or len(inv) == len(rank_counts)):
                        cell["status"], cell["reason"] = INVALID, inv[max(inv)]
                    elif una:
                        cell["status"], cell["reason"] = UNAVAILABLE, una[max(una)]
                    elif inv:
                        cell["status"] = INVALID
                        cell["reason"] = "; ".join(
                            f"at {n} processes: {why}" for n, why in sorted(inv.items())
                        )
                    else:
                        cell["status"] = MISSING
                        cell["reason"] = "a valid pair no case of this run held"
                        gaps.append(f"{a}={va} x {b}={vb}")
                totals[cell["status"]] += 1
                cell["title"] = f"{a}={va} x {b}={vb}: " + (
                    f"{total} cases"
                    + "".join(f", {v} {o}" for o, v in sorted(counts.items()))
                    if total
                    else f"{cell['status']}: {cell['reason']}"
                )
                row.append(cell)
            rows.append({"value": va, "cells": row})
        matrices.append({"a": a, "b": b, "columns": vb_all, "rows": rows})

    def grouped(listing):
        by_reason = collections.defaultdict(list)
        for (a, b), pairs in sorted(listing.items()):
            for (va, vb), per_n in sorted(pairs.items()):
                for n, why in per_n.items():
                    by_reason[why].append((n, f"{a}={va} x {b}={vb}"))
        out = []
        for why, items in sorted(
            by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])
        ):
            pairs = sorted({p for _, p in items})
            out.append(
                {
                    "reason": why,
                    "count": len(pairs),
                    "ranks": sorted({n for n, _ in items}),
                    "examples": pairs[:6],
                }
            )
        return out

    figures = []
    for n in rank_counts:
        s = spaces[str(n)]
        ran = len(ran_pairs.get(n, ()))
        figures.append(
            {
                "ranks": n,
                "cases": cases_at.get(n, 0),
                "valid": s["valid_tuples"],
                "held": s["covered_tuples"],
                "ran": ran,
                "percent_ran": 100.0 * ran / s["valid_tuples"]
                if s["valid_tuples"]
                else 100.0,
                "unavailable": len(s.get("unavailable", [])),
                "invalid": len(s.get("invalid", [])),
            }
        )
    return {
        "matrices": matrices,
        "figures": figures,
        "totals": dict(totals),
        "gaps": gaps,
        "invalid": grouped(invalid),
        "unavailable": grouped(unavailable),
        "cases": len(records),
        "dimensions": [name for name, _ in dims],
        "main": True,
    }

"""The HTML views: one run's report and the comparison of several runs.

Both are one self-contained file: inline CSS and SVG, no script, no request to
the network (a Content-Security-Policy in the page forbids any). Every string
is escaped by Jinja2's autoescaping; control characters are made visible first
(rec.printable), so a library's version string or message cannot break
the page.
"""
import collections
import json
import pathlib
import re

from . import crossing, deps, properties, records as rec, results as res, tracer

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"
# Worst first: the colour of a heat-map cell is that of its worst outcome.
SEVERITY = ("corrupt", "crash", "timeout", "fail", "waived", "skip", "pass")
MAX_FAILURES_SHOWN = 500
MAX_ROWS = 1000


def _environment():
    jinja2 = deps.require("jinja2")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        # type() is str: Markup (already escaped, e.g. an SVG) is passed through
        # untouched.
        finalize=lambda v: rec.printable(v)
        if type(v) is str
        else ("" if v is None else v),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["anchor"] = anchor
    env.filters["plural"] = lambda n, word: f"{n} {word}" + ("" if n == 1 else "s")
    env.globals["css"] = (TEMPLATES / "report.css").read_text()
    return env


def anchor(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", str(text)).strip("-") or "x"


def worst(counts):
    for outcome in SEVERITY:
        if counts.get(outcome):
            return outcome
    return "none"


def _ranks_of(report):
    ranks = set(report["run"].get("ranks") or [])
    ranks.update(r["ranks"] for r in report["records"])
    return sorted(ranks)


def _failure_view(n, r, waivers):
    case = r.get("case") or {}
    trees = []
    if case.get("op") in ("witness.tracer", "witness.tracer-c") or "tracer:" in r.get(
        "message", ""
    ):
        for item in tracer.from_record(r)[:3]:
            trees.append(
                {
                    "svg": tracer.svg(item),
                    "text": tracer.describe(item),
                    "on_rank": item["on_rank"],
                }
            )
    waiver = waivers.get(r.get("waiver") or "")
    return {
        "n": n,
        "anchor": f"f-{n}",
        "r": r,
        "case": case,
        "case_items": [
            (k, json.dumps(v) if isinstance(v, (list, bool, dict)) else v)
            for k, v in case.items()
        ],
        "case_text": res.case_text(case),
        "replay": res.replay_command(r),
        "reproducer": r.get("reproducer") or (waiver or {}).get("reproducer"),
        "trees": trees,
    }


def _shown(bad):
    """The failures shown in full: the first of every clause and of every heat-map cell,
    then the others in journal order, up to MAX_FAILURES_SHOWN; numbered by their place
    among all failures.
    """
    chosen, seen = set(), set()
    for i, r in enumerate(bad):
        for key in (
            ("clause", r["clause"]),
            ("cell", r["variant"], r["test"], r["ranks"]),
        ):
            if key not in seen:
                seen.add(key)
                chosen.add(i)
    for i in range(len(bad)):
        if len(chosen) >= MAX_FAILURES_SHOWN:
            break
        chosen.add(i)
    return [(i, bad[i]) for i in sorted(chosen)]


def context(report):
    """Everything the report template shows, computed from results.json only."""
    records = report["records"]
    run = report["run"]
    waivers = {w["id"]: w for w in report["waivers"]["waivers"]}
    bad = [r for r in records if r["outcome"] in rec.BAD]
    failures = [_failure_view(i + 1, r, waivers) for i, r in _shown(bad)]
    first_failure: dict = {}
    for f in failures:
        r = f["r"]
        first_failure.setdefault(("clause", r["clause"]), f["anchor"])
        first_failure.setdefault(
            ("cell", r["variant"], r["test"], r["ranks"]), f["anchor"]
        )
    for r in records:
        # a cell without failures links to its waiver instead
        if r["outcome"] == "waived":
            first_failure.setdefault(
                ("cell", r["variant"], r["test"], r["ranks"]),
                "w-" + anchor(r.get("waiver") or "(no waiver id)"),
            )

    # Clause by clause: every clause of the catalogue, checked or not, then any unknown
    # to it.
    by_clause = collections.defaultdict(list)
    for r in records:
        by_clause[r["clause"]].append(r)
    clauses = []
    catalogue = report["spec"]["clauses"]
    for slug in list(catalogue) + sorted(set(by_clause) - set(catalogue)):
        recs = by_clause.get(slug, [])
        info = catalogue.get(slug, {})
        counts = res.count(recs)
        levels = sorted({r["level"] for r in recs}, key=rec.LEVELS.index)
        verdict = (
            "not checked"
            if not recs
            else res.level_verdict(
                levels[0] if len(levels) == 1 else "MUST",
                counts,
                sum(1 for r in recs if res.known_fatal_waiver(r)),
            )
        )
        if slug == "harness.job":
            info = {
                "section": "-",
                "section_50": "-",
                "title": "A check executable died",
                "paraphrase": (
                    "The job crashed or timed out with no case in flight (between"
                    " cases, before its first or after its last), charged to no case;"
                    " checks it could not reach make the run partial."
                ),
            }
        clauses.append(
            {
                "slug": slug,
                "anchor": "clause-" + anchor(slug),
                "section": info.get("section", "?"),
                "cited": res.citations(info),
                "title": info.get("title", ""),
                "paraphrase": info.get("paraphrase", "not in the catalogue"),
                "levels": levels,
                "counts": counts,
                "total": len(recs),
                "verdict": verdict,
                "detect": res.detect_counts(recs) if "DETECT" in levels else None,
                "worst": worst(counts),
                "first_failure": first_failure.get(("clause", slug)),
            }
        )

    # Heat map: variant x check x rank count, coloured by the worst outcome of each
    # cell.
    ranks = _ranks_of(report)
    cells = collections.defaultdict(list)
    for r in records:
        cells[(r["variant"], r["test"], r["ranks"])].append(r)
    rows = []
    for variant, test in sorted({(v, t) for v, t, _ in cells}):
        row = {"variant": variant, "test": test, "cells": []}
        for n in ranks:
            c = res.count(cells.get((variant, test, n), []))
            row["cells"].append(
                {
                    "ranks": n,
                    "counts": c,
                    "total": sum(c.values()),
                    "worst": worst(c),
                    "link": first_failure.get(("cell", variant, test, n)),
                }
            )
        rows.append(row)

    waived = collections.defaultdict(list)
    # cases a crash or timeout waiver held back: not run
    held_back = collections.defaultdict(list)
    for r in records:
        if r["outcome"] == "waived":
            waived[r.get("waiver") or "(no waiver id)"].append(r)
        elif res.known_fatal_waiver(r):
            held_back[res.known_fatal_waiver(r)].append(r)
    waived_groups = [
        {
            "id": wid,
            "anchor": "w-" + anchor(wid),
            "waiver": waivers.get(wid, {}),
            "records": [
                (r, res.case_text(r.get("case")))
                for r in waived.get(wid, [])[:MAX_ROWS]
            ],
            "count": len(waived.get(wid, [])),
            "held": [
                (r, res.case_text(r.get("case")))
                for r in held_back.get(wid, [])[:MAX_ROWS]
            ],
            "held_count": len(held_back.get(wid, [])),
        }
        for wid in sorted(set(waived) | set(held_back))
    ]
    skips = collections.Counter(
        (r["test"], r.get("message", "")) for r in records if r["outcome"] == "skip"
    )
    info = [r for r in records if r["level"] == "INFO"][:MAX_ROWS]
    return {
        "report": report,
        "run": run,
        "summary": report["summary"],
        "levels": rec.LEVELS,
        "clauses": [c for c in clauses if c["total"]],
        "unchecked": [c for c in clauses if not c["total"]],
        "standard_claim": res.standard_claim(report),
        "cited": res.CITED,
        "ranks": ranks,
        "heat_rows": rows,
        "failures": failures,
        "failures_total": len(bad),
        "waived_groups": waived_groups,
        "held_back_total": sum(len(v) for v in held_back.values()),
        "known_fatal_sentence": res.known_fatal_sentence(report["summary"]),
        "skips": [
            {"test": t, "reason": m, "count": n} for (t, m), n in sorted(skips.items())
        ],
        "info": [(r, res.case_text(r.get("case"))) for r in info],
        "outcomes": rec.OUTCOMES,
        "library_first_line": res.first_line(run.get("library_version")) or "unknown",
        "crossing": crossing.context(report),
        "properties": properties.context(records),
        "binding_names": res.BINDING_NAMES,
    }


def render(report):
    return _environment().get_template("report.html.j2").render(**context(report))


def compare_context(reports, names):
    """Several runs side by side: one column per (run, variant)."""
    columns = []
    for i, (report, name) in enumerate(zip(reports, names)):
        variants = sorted({r["variant"] for r in report["records"]}) or ["default"]
        for v in variants:
            columns.append(
                {
                    "run": i,
                    "variant": v,
                    "name": name,
                    "report": report,
                    "label": f"{report['run']['vendor']}"
                    + ("" if v == "default" else f" [{v}]"),
                }
            )
    rows: dict = {}
    for ci, col in enumerate(columns):
        mine = [r for r in col["report"]["records"] if r["variant"] == col["variant"]]
        for key, r in res.keyed(
            mine, lambda r: tuple(res.record_key(r)[i] for i in (0, 2, 3))
        ).items():
            rows.setdefault(key, {})[ci] = r
    differences = []
    for (test, n, _, _), per_col in rows.items():
        outcomes = [
            per_col[ci]["outcome"] if ci in per_col else None
            for ci in range(len(columns))
        ]
        if len(set(outcomes)) > 1:
            any_r = next(iter(per_col.values()))
            differences.append(
                {
                    "test": test,
                    "ranks": n,
                    "case_text": res.case_text(any_r.get("case")),
                    "clause": any_r["clause"],
                    "level": any_r["level"],
                    "cells": [per_col.get(ci) for ci in range(len(columns))],
                }
            )
    # Clause x column and check x (column, rank count) summaries.
    slugs = []
    for report in reports:
        for slug in list(report["spec"]["clauses"]) + [
            r["clause"] for r in report["records"]
        ]:
            if slug not in slugs:
                slugs.append(slug)
    catalogue = {}
    for report in reports:
        catalogue.update(report["spec"]["clauses"])
    clause_rows = []
    for slug in slugs:
        cells = []
        for col in columns:
            c = res.count(
                r
                for r in col["report"]["records"]
                if r["clause"] == slug and r["variant"] == col["variant"]
            )
            cells.append({"counts": c, "total": sum(c.values()), "worst": worst(c)})
        clause_rows.append(
            {
                "slug": slug,
                "section": catalogue.get(slug, {}).get("section", "-"),
                "cited": res.citations(
                    catalogue.get(slug, {"section": "-", "section_50": "-"})
                ),
                "cells": cells,
            }
        )
    ranks = sorted({n for report in reports for n in _ranks_of(report)})
    tests = sorted({r["test"] for report in reports for r in report["records"]})
    heat = []
    for test in tests:
        row = {"test": test, "groups": []}
        for col in columns:
            group = []
            for n in ranks:
                c = res.count(
                    r
                    for r in col["report"]["records"]
                    if r["test"] == test
                    and r["ranks"] == n
                    and r["variant"] == col["variant"]
                )
                group.append(
                    {
                        "ranks": n,
                        "counts": c,
                        "total": sum(c.values()),
                        "worst": worst(c),
                    }
                )
            row["groups"].append(group)
        heat.append(row)
    return {
        "columns": columns,
        "differences": differences[:MAX_ROWS],
        "differences_total": len(differences),
        "clause_rows": clause_rows,
        "ranks": ranks,
        "heat": heat,
        "levels": rec.LEVELS,
        "first_line": res.first_line,
        "outcomes": rec.OUTCOMES,
    }


def render_compare(reports, names, matrix_page=None):
    """The comparison page; matrix_page: the release matrix's file name beside it, for
    a link (None: no matrix)."""
    return (
        _environment()
        .get_template("compare.html.j2")
        .render(matrix_page=matrix_page, **compare_context(reports, names))
    )


def render_matrix(model):
    """The release matrix (reports/matrix.py's build) as a page."""
    return (
        _environment()
        .get_template("matrix.html.j2")
        .render(outcomes=rec.OUTCOMES, **model)
    )

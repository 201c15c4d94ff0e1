"""The release matrix of `ordo compare` (#36): runs of several releases of MPICH and
Open MPI (and the results of `ordo findings --recheck`) read side by side.

A release is a library, its version (run.json's library_version) and the system it
ran on (run.json's system: the os-release of the host or of a root). Three tables,
one column per release, ordered by library then version:

- each finding x each release: present, intermittent, fixed, not reproduced, not
  applicable or not tested, from the recheck results file (`--findings FILE`) and
  from the runs' waived records (a finding whose waiver matched records in a run is
  present there);
- each clause's worst outcome per release, with counts, from the runs' records;
- the failures of each release that no waiver matched, by check and clause.

`build` gives the matrix as plain data, `markdown` renders it as tables, and
html.render_matrix as a page in the style of the other reports.
"""
import json
import pathlib
import re

from . import records as rec, results as res, waivers as waivers_mod

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECHECK_SCHEMA = "ordo.findings-recheck/1"
PRESENT, FIXED = "present", "fixed"
INTERMITTENT = "intermittent"  # the recheck's runs failed some times (--repeat)
NOT_REPRODUCED, NOT_APPLICABLE, NOT_TESTED = (
    "not reproduced",
    "not applicable",
    "not tested",
)
# The states of a finding x release, the strongest evidence first: one run that
# shows the bug outweighs another that does not.
STATES = (PRESENT, INTERMITTENT, NOT_REPRODUCED, FIXED, NOT_APPLICABLE, NOT_TESTED)
RECHECK_STATES = (PRESENT, INTERMITTENT, FIXED, NOT_REPRODUCED, NOT_APPLICABLE)
SEVERITY = ("corrupt", "crash", "timeout", "fail", "waived", "skip", "pass")
LIBRARY_NAMES = {"mpich": "MPICH", "openmpi": "Open MPI"}
MAX_FAILURE_ROWS = 500


class MatrixError(res.ReportError):
    """Input the matrix cannot be made from (one line)."""


# ---- releases ------------------------------------------------------------------


def version_key(version):
    """Dotted numbers first, a pre-release ("6.0.0rc2") before its release."""
    m = re.match(r"(\d+(?:\.\d+)*)(.*)", version or "")
    if not m:
        return ((), 0, version or "")
    nums = tuple(int(x) for x in m.group(1).split("."))
    rest = m.group(2).lstrip("~-.+")
    return (nums, 0 if rest else 1, rest)


def short_os(pretty):
    """ "Debian GNU/Linux 13 (trixie)" -> "Debian 13"; "Debian GNU/Linux forky/sid" ->
    "Debian forky/sid"."""
    if not pretty:
        return "system unknown"
    text = pretty.replace("GNU/Linux ", "")
    return re.sub(r"\s*\((\w+)\)$", "", text).strip() or pretty


def library_name(vendor):
    return LIBRARY_NAMES.get(vendor, vendor)


def run_release(report, name):
    """(vendor, version, os) of a run; one line when the run cannot tell."""
    if any(str(r).startswith("no run.json") for r in report.get("partial_reasons", [])):
        raise MatrixError(
            f"{name} has no run.json: the release matrix needs each run's library"
            " release and system (an interrupted run: `ordo run --resume` finishes it)"
        )
    run = report["run"]
    vendor = run.get("vendor")
    version = waivers_mod.parse_library_version(run.get("library_version") or "")
    if not vendor or not version:
        raise MatrixError(
            f"{name}: its run.json names no library release (vendor"
            f" {vendor or '?'}, library_version {run.get('library_version')!r})"
        )
    system = run.get("system") or {}
    pretty = (system.get("os_release") or {}).get("PRETTY_NAME") or ""
    return vendor, version, pretty, system.get("name") or ""


def differ(reports, names):
    """Whether the runs are of more than one release (or library); None when one of
    them cannot tell (no run.json)."""
    try:
        keys = {run_release(r, n)[:3] for r, n in zip(reports, names)}
    except MatrixError:
        return None
    return len(keys) > 1


# ---- the recheck results file --------------------------------------------------


def _shape(cond, path, what):
    if not cond:
        raise MatrixError(
            f"{path} is not a findings recheck file ({RECHECK_SCHEMA}, from `ordo"
            f" findings --recheck`): {what}"
        )


def load_findings(path):
    """The recheck results file, its shape checked; one line when it is not one."""
    p = pathlib.Path(path)
    try:
        doc = json.loads(p.read_text())
    except OSError as e:
        raise MatrixError(f"cannot read {p}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise MatrixError(f"{p} is not JSON: {e}")
    _shape(isinstance(doc, dict), p, "not an object")
    _shape(
        doc.get("schema") == RECHECK_SCHEMA,
        p,
        f"its schema is {doc.get('schema')!r}",
    )
    systems = doc.get("systems")
    _shape(isinstance(systems, list), p, "no list 'systems'")
    for i, s in enumerate(systems):
        _shape(
            isinstance(s, dict)
            and isinstance(s.get("system"), str)
            and isinstance(s.get("vendors"), dict)
            and all(isinstance(v, dict) for v in s["vendors"].values()),
            p,
            f"systems[{i}] has no 'system' name and 'vendors' object",
        )
    rows = doc.get("rows")
    _shape(isinstance(rows, list), p, "no list 'rows'")
    for i, r in enumerate(rows):
        _shape(isinstance(r, dict), p, f"rows[{i}] is not an object")
        for key in ("finding", "vendor", "system"):
            _shape(
                isinstance(r.get(key), str) and r[key],
                p,
                f"rows[{i}] has no '{key}'",
            )
        _shape(
            r.get("status") in RECHECK_STATES,
            p,
            f"rows[{i}] has the status {r.get('status')!r}, not one of "
            + ", ".join(RECHECK_STATES),
        )
    return doc


# ---- the matrix ----------------------------------------------------------------


def _waiver_findings(reports):
    """waiver id -> (its library, its finding: the reproducer's name, else the
    waiver's id), from the checkout's vendors/*/waivers.json and the runs' waivers."""
    out = {}
    docs = []
    for path in sorted((ROOT / "vendors").glob("*/waivers.json")):
        try:
            docs.append((path.parent.name, json.loads(path.read_text())["waivers"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    for report in reports:
        ws = (report.get("waivers") or {}).get("waivers") or []
        docs.append((report["run"].get("vendor"), ws))
    for vendor, ws in docs:
        for w in ws if isinstance(ws, list) else ():
            if isinstance(w, dict) and w.get("id"):
                repro = w.get("reproducer")
                out[w["id"]] = (vendor, pathlib.Path(repro).stem if repro else w["id"])
    return out


def _release(vendor, version, pretty, system_name):
    return {
        "vendor": vendor,
        "library": library_name(vendor),
        "version": version,
        "os": pretty,
        "system": short_os(pretty),
        "system_names": [system_name] if system_name else [],
        "label": f"{library_name(vendor)} {version}",
        "runs": [],
        "rechecked": False,
    }


def _worst(counts):
    for outcome in SEVERITY:
        if counts.get(outcome):
            return outcome
    return "none"


def build(reports, names, findings=None):
    """The matrix as plain data: releases (columns), findings, clauses, failures."""
    releases: dict = {}
    run_keys = []
    for report, name in zip(reports, names):
        vendor, version, pretty, sysname = run_release(report, name)
        key = (vendor, version, pretty)
        rel = releases.setdefault(key, _release(vendor, version, pretty, sysname))
        rel["runs"].append(name)
        if sysname and sysname not in rel["system_names"]:
            rel["system_names"].append(sysname)
        run_keys.append(key)
    recheck_rows = []
    if findings is not None:
        for s in findings["systems"]:
            for vendor, facts in s["vendors"].items():
                version, pretty = facts.get("release"), facts.get("os") or ""
                if not version:
                    continue
                key = (vendor, version, pretty)
                rel = releases.setdefault(
                    key, _release(vendor, version, pretty, s["system"])
                )
                rel["rechecked"] = True
                if s["system"] not in rel["system_names"]:
                    rel["system_names"].append(s["system"])
        where = {
            (v, s["system"]): (v, facts.get("release"), facts.get("os") or "")
            for s in findings["systems"]
            for v, facts in s["vendors"].items()
            if facts.get("release")
        }
        for r in findings["rows"]:
            found = where.get((r["vendor"], r["system"]))
            if found is None:  # a system the file does not describe (or its release)
                found = (r["vendor"], str(r.get("release") or "?"), "")
                releases.setdefault(
                    found, _release(r["vendor"], found[1], "", r["system"])
                )
            recheck_rows.append((found, r))
    # A run that does not name its system (a run.json from before systems) joins the
    # one release of its library and version that does, when there is one.
    alias = {}
    for key in [k for k in releases if not k[2]]:
        named = [k for k in releases if k[:2] == key[:2] and k[2]]
        if len(named) == 1:
            alias[key] = named[0]
            releases.pop(key)
    run_keys = [alias.get(k, k) for k in run_keys]
    for key, rel in releases.items():  # in the order given
        rel["runs"] = [n for n, k in zip(names, run_keys) if k == key]
    recheck_rows = [(alias.get(k, k), r) for k, r in recheck_rows]
    order = sorted(
        releases, key=lambda k: (library_name(k[0]).lower(), version_key(k[1]), k[2])
    )
    columns = [releases[k] for k in order]
    index = {k: i for i, k in enumerate(order)}
    for i, c in enumerate(columns):
        c["index"] = i
    with_runs = [i for i, c in enumerate(columns) if c["runs"]]

    # Findings x releases, one table per library.
    finding_of = _waiver_findings(reports)
    waivers_of: dict = {}
    for wid, where in finding_of.items():
        waivers_of.setdefault(where, set()).add(wid)
    cells: dict = {}  # (vendor, finding, variant) -> {column: {state: [notes]}}
    waiver_ids: dict = {}

    def add(vendor, finding, variant, col, state, note):
        row = cells.setdefault((vendor, finding, variant or "default"), {})
        row.setdefault(col, {}).setdefault(state, []).append(note)

    for key, r in recheck_rows:
        why = r.get("reason") or (r.get("evidence") or {}).get("how") or ""
        add(
            r["vendor"],
            r["finding"],
            r.get("variant"),
            index[key],
            r["status"],
            f"recheck: {r['status']}" + (f" ({why})" if why else ""),
        )
    for report, key in zip(reports, run_keys):
        col = index[key]
        waived: dict = {}
        for r in report["records"]:
            if r["outcome"] == "waived" and r.get("waiver"):
                k = (r["waiver"], r.get("variant") or "default")
                waived[k] = waived.get(k, 0) + 1
        for (wid, variant), n in waived.items():
            finding = finding_of.get(wid, (key[0], wid))[1]
            waiver_ids.setdefault((key[0], finding), set()).add(wid)
            add(
                key[0],
                finding,
                variant,
                col,
                PRESENT,
                f"run: its waiver {wid} matched {n} record" + ("" if n == 1 else "s"),
            )
        known = (report["summary"].get("known_fatal") or {}).get("by_waiver") or {}
        for wid, n in known.items():
            finding = finding_of.get(wid, (key[0], wid))[1]
            waiver_ids.setdefault((key[0], finding), set()).add(wid)
            add(
                key[0],
                finding,
                "default",
                col,
                NOT_TESTED,
                f"run: {n} case(s) not run, known fatal by {wid}"
                " (--run-known-fatal runs them)",
            )
    libraries = []
    for vendor in sorted({k[0] for k in cells}, key=lambda v: library_name(v).lower()):
        cols = [c["index"] for c in columns if c["vendor"] == vendor]
        rows = []
        for (v, finding, variant), per_col in sorted(cells.items()):
            if v != vendor:
                continue
            row_cells: list = []
            for ci in cols:
                got = per_col.get(ci, {})
                state = next((s for s in STATES if s in got), NOT_TESTED)
                notes = [n for s in STATES for n in got.get(s, [])]
                row_cells.append({"state": state, "notes": notes})
            rows.append(
                {
                    "finding": finding,
                    "variant": variant,
                    "waivers": sorted(
                        waiver_ids.get((vendor, finding), set())
                        | waivers_of.get((vendor, finding), set())
                    ),
                    "cells": row_cells,
                }
            )
        counts = {
            s: [
                sum(1 for r in rows if r["cells"][j]["state"] == s)
                for j in range(len(cols))
            ]
            for s in STATES
        }
        libraries.append(
            {
                "vendor": vendor,
                "library": library_name(vendor),
                "columns": cols,
                "rows": rows,
                "counts": counts,
            }
        )

    # Clauses x releases (the releases with runs).
    catalogue: dict = {}
    slugs: list = []
    for report in reports:
        catalogue.update(report["spec"]["clauses"])
    for report in reports:
        for slug in list(report["spec"]["clauses"]) + [
            r["clause"] for r in report["records"]
        ]:
            if slug not in slugs:
                slugs.append(slug)
    per_clause: dict = {}
    failures: dict = {}
    for report, key in zip(reports, run_keys):
        col = index[key]
        for r in report["records"]:
            c = per_clause.setdefault(r["clause"], {}).setdefault(col, {})
            c[r["outcome"]] = c.get(r["outcome"], 0) + 1
            if r["outcome"] in rec.BAD:
                f = failures.setdefault((r["test"], r["clause"], r["level"]), {})
                f.setdefault(col, {})
                f[col][r["outcome"]] = f[col].get(r["outcome"], 0) + 1
    clause_rows: list = []
    for slug in slugs:
        if slug not in per_clause:
            continue
        info = catalogue.get(slug, {"section": "-", "section_50": "-"})
        row_cells = []
        for ci in with_runs:
            counts = per_clause[slug].get(ci, {})
            row_cells.append(
                {
                    "worst": _worst(counts),
                    "counts": counts,
                    "total": sum(counts.values()),
                }
            )
        clause_rows.append(
            {
                "slug": slug,
                "cited": res.citations(info),
                "paraphrase": info.get("paraphrase", ""),
                "cells": row_cells,
            }
        )
    failure_rows: list = []
    for (test, clause, level), per_col in failures.items():
        row_cells = []
        for ci in with_runs:
            counts = per_col.get(ci, {})
            row_cells.append(
                {
                    "worst": _worst(counts),
                    "counts": counts,
                    "total": sum(counts.values()),
                }
            )
        failure_rows.append(
            {
                "test": test,
                "clause": clause,
                "level": level,
                "cells": row_cells,
                "total": sum(c["total"] for c in row_cells),
            }
        )
    failure_rows.sort(key=lambda r: (-r["total"], r["test"], r["clause"]))
    failure_totals = [
        sum(r["cells"][j]["total"] for r in failure_rows) for j in range(len(with_runs))
    ]
    return {
        "columns": columns,
        "with_runs": with_runs,
        "libraries": libraries,
        "clauses": clause_rows,
        "clauses_not_exercised": len([s for s in slugs if s not in per_clause]),
        "failures": failure_rows[:MAX_FAILURE_ROWS],
        "failures_total": len(failure_rows),
        "failure_totals": failure_totals,
        "findings_source": (findings or {}).get("command"),
        "findings_date": (findings or {}).get("date"),
        "states": list(STATES),
        "runs": [{"name": n, "release": index[k]} for n, k in zip(names, run_keys)],
    }


# ---- Markdown --------------------------------------------------------------------


def _md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def column_head(c):
    return f"{c['label']} ({c['system']})"


def counts_text(cell):
    """ "pass 12/12" or "fail: 3 fail, 1 crash, 8 pass" (of the outcomes present)."""
    if not cell["total"]:
        return "–"
    parts = [f"{cell['counts'][o]} {o}" for o in SEVERITY if cell["counts"].get(o)]
    if cell["worst"] == "pass":
        return f"pass {cell['total']}/{cell['total']}"
    return f"{cell['worst']}: " + ", ".join(parts)


def failure_text(cell):
    if not cell["total"]:
        return "0"
    return ", ".join(
        f"{cell['counts'][o]} {o}" for o in SEVERITY if cell["counts"].get(o)
    )


def _table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(_md(x) for x in row) + " |" for row in rows]
    return lines


def markdown(m):
    cols = m["columns"]
    out = ["# ordo release matrix", ""]
    out += [
        "Releases (library, version, system), ordered by library then version:",
        "",
    ]
    out += _table(
        ["release", "system", "runs", "recheck"],
        [
            [
                c["label"],
                c["os"] or c["system"],
                ", ".join(c["runs"]) or "none",
                "yes" if c["rechecked"] else "no",
            ]
            for c in cols
        ],
    )
    out += ["", "## Findings x releases", ""]
    if m["findings_source"]:
        out += [
            f"Recheck results: `{m['findings_source']}` ({m['findings_date']}).",
            "",
        ]
    if not m["libraries"]:
        out += ["No findings: no recheck results given and no waiver matched.", ""]
    for lib in m["libraries"]:
        out += [f"### {lib['library']}", ""]
        out += _table(
            ["finding", "variant"] + [column_head(cols[i]) for i in lib["columns"]],
            [
                [f"`{r['finding']}`", r["variant"]] + [c["state"] for c in r["cells"]]
                for r in lib["rows"]
            ],
        )
        out.append("")
    run_cols = [cols[i] for i in m["with_runs"]]
    out += ["## Clauses x releases", ""]
    out += [
        "The worst outcome of each clause's checks in each release's runs,"
        " with counts.",
        "",
    ]
    out += _table(
        ["clause", "MPI-4.1", "MPI-5.0"] + [column_head(c) for c in run_cols],
        [
            [f"`{r['slug']}`", r["cited"]["MPI-4.1"], r["cited"]["MPI-5.0"]]
            + [counts_text(c) for c in r["cells"]]
            for r in m["clauses"]
        ],
    )
    out += ["", f"## New failures ({m['failures_total']} checks)", ""]
    out += ["Failures that no waiver matched, by check and clause.", ""]
    if m["failures"]:
        out += _table(
            ["check", "clause", "level"] + [column_head(c) for c in run_cols],
            [
                [f"`{r['test']}`", f"`{r['clause']}`", r["level"]]
                + [failure_text(c) for c in r["cells"]]
                for r in m["failures"]
            ]
            + [["all", "", ""] + [str(n) for n in m["failure_totals"]]],
        )
        if m["failures_total"] > len(m["failures"]):
            out += ["", f"The first {len(m['failures'])} are shown."]
    else:
        out.append("None: every failure of every release is matched by a waiver.")
    return "\n".join(out) + "\n"

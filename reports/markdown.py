"""A Markdown summary of one run that fits a merge-request comment.

The verdict per level, the counts, the first failures with their replay
commands, the waivers in use. It stays under MAX_CHARS (GitHub accepts 65536
characters in a comment). Strings from a library or a command go into code
spans or are escaped, so they cannot inject markup or HTML.
"""
import html
import json
import re

from . import crossing, properties, records as rec, results as res

MAX_CHARS = 60000
MAX_FAILURES = 20
MAX_MESSAGE = 400

# Inline text: these are the characters that can start markup in the middle of a line.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def text(value, limit=None):
    """Plain text for Markdown: one line, markup characters escaped, HTML made inert."""
    s = " ".join(rec.printable(value).split())
    if limit and len(s) > limit:
        s = s[: limit - 1] + "\u2026"
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", s)


def code(value, limit=None):
    """An inline code span that holds any text (its fence is longer than any run of
    backticks in it)."""
    s = " ".join(rec.printable(value).split())
    if limit and len(s) > limit:
        s = s[: limit - 1] + "\u2026"
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def placement_lines(run):
    """The virtual nodes of the run (`ordo run --nodes`) and the node map the
    library showed at each rank count; nothing for a run on the machine as it is."""
    maps = run.get("node_maps") or {}
    if not run.get("nodes") and all(
        len(m.get("node_map") or [[]]) <= 1 for m in maps.values()
    ):
        return []
    head = (
        f"Virtual nodes: {run['nodes']}, placement"
        f" {text(run.get('placement') or 'block')}"
        if run.get("nodes")
        else "Nodes as the launcher placed them"
    )
    shown = [
        f"{n} ranks {code(json.dumps(m.get('node_map'), separators=(',', ':')))}"
        + (f" ({text(m['method'])})" if m.get("method") else "")
        for n, m in sorted(maps.items(), key=lambda kv: int(kv[0]))
    ]
    return ["", head + (": node map " + "; ".join(shown) if shown else "")]


def coverage_lines(report):
    """The crossing check's coverage per variant, in a variant sweep (each variant
    runs its own covering array over what it selects): one line per variant, its
    rank counts, cases, and the valid pairs the cases that ran hold at the rank
    count where they hold the least."""
    ctx = crossing.context(report)
    if not ctx or not ctx.get("per_variant"):
        return []
    by_variant: dict = {}
    for f in ctx["per_variant"]:
        by_variant.setdefault(f["variant"], []).append(f)
    lines = [
        "| variant | selects | ranks | crossing cases"
        " | valid pairs held by cases that ran (least) |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for name, figures in by_variant.items():
        least = min(figures, key=lambda f: (f["percent_ran"], f["ranks"]))
        ranks = sorted(f["ranks"] for f in figures)
        lines.append(
            f"| {code(name)} | {code(figures[0]['scope'] or 'every case')}"
            f" | {ranks[0]}-{ranks[-1]} | {sum(f['cases'] for f in figures)}"
            f" | {least['ran']} of {least['valid']} ({least['percent_ran']:.1f}%)"
            f" at {least['ranks']} |"
        )
    return ["**Crossing coverage per variant**", ""] + lines + [""]


def property_lines(report):
    """The property phase: cases per variant and rank count, and the datatype
    layouts drawn."""
    ctx = properties.context(report["records"])
    if ctx is None:
        return []
    lines = ["", "## Property phase", ""]
    for c in ctx["columns"]:
        seeds = ", ".join(c["seeds"]) or "none recorded"
        state = "" if c["passed"] else ", ended with a failure"
        lines.append(
            f"- {text(c['variant'])} at {c['ranks']} ranks: {c['cases']} cases,"
            f" seed {text(seeds)}{state}"
        )
    for t in ctx["tables"]:
        if t["dimension"] == "datatype":
            lines += ["", "Datatype layouts drawn (cases, all runs):", ""]
            lines += [f"- {text(row['label'])}: {row['total']}" for row in t["rows"]]
    return lines


def binding_lines(summary):
    """The checks per language binding of the calls, when a Fortran binding ran."""
    bindings = summary.get("bindings") or {}
    if set(bindings) <= {"c"}:
        return []
    lines = [
        "| binding | checks | " + " | ".join(rec.OUTCOMES) + " |",
        "| --- | ---: | " + " | ".join("---:" for _ in rec.OUTCOMES) + " |",
    ]
    for b, v in bindings.items():
        lines.append(
            f"| {text(res.BINDING_NAMES.get(b, b))} | {v['total']} | "
            + " | ".join(str(v["outcomes"].get(o, 0)) for o in rec.OUTCOMES)
            + " |"
        )
    return lines + [""]


def clause_lines(report):
    """The clauses this run checked, with their sections of MPI-4.1 and MPI-5.0
    and the MPI version the library claims, folded away in a details block."""
    by_clause: dict = {}
    for r in report["records"]:
        by_clause.setdefault(r["clause"], []).append(r)
    catalogue = report["spec"]["clauses"]
    rows = []
    for slug in [s for s in catalogue if s in by_clause] + sorted(
        set(by_clause) - set(catalogue)
    ):
        recs = by_clause[slug]
        cited = res.citations(catalogue.get(slug, {"section": "-", "section_50": "-"}))
        levels = sorted({r["level"] for r in recs}, key=rec.LEVELS.index)
        verdict = res.level_verdict(
            levels[0] if len(levels) == 1 else "MUST", res.count(recs)
        )
        rows.append(
            f"| {code(slug)} | {text(cited['MPI-4.1'])} | {text(cited['MPI-5.0'])} | "
            f"{text(', '.join(levels))} | {len(recs)} | {text(verdict)} |"
        )
    if not rows:
        return []
    # A summary element holds HTML, not Markdown: its text is HTML-escaped, not
    # Markdown-escaped.
    summary = html.escape(
        " ".join(
            rec.printable(
                f"Clauses checked ({len(rows)}). {res.standard_claim(report)}"
            ).split()
        )
    )
    return (
        [
            "<details><summary>" + summary + "</summary>",
            "",
            "| clause | " + " | ".join(res.CITED) + " | level | checks | verdict |",
            "| --- | --- | --- | --- | ---: | --- |",
        ]
        + rows
        + ["", "</details>", ""]
    )


def system_lines(run):
    """The system the run ran in (`ordo run --system`): its release and the library's
    packages."""
    system = run.get("system")
    if not isinstance(system, dict):
        return []
    release = (system.get("os_release") or {}).get("PRETTY_NAME") or "release unknown"
    tools = system.get("tools") or {}
    versions = sorted(
        {
            f"{t['package']} {t['version']}"
            for t in tools.values()
            if isinstance(t, dict) and t.get("package") and t.get("version")
        }
    )
    return [
        "",
        f"System: {text(system.get('name') or 'host')} ({text(release)})"
        + (f" · {text(', '.join(versions))}" if versions else ""),
    ]


def render(report, report_link="report.html"):
    run, summary = report["run"], report["summary"]
    lines = [
        (
            f"### ordo: {text(run['vendor'])}:"
            f" {text(summary.get('headline') or summary['verdict'])}"
        ),
        "",
    ]
    lib = res.first_line(run.get("library_version")) or "library version unknown"
    ranks = sorted({r["ranks"] for r in report["records"]}) or run.get("ranks", [])
    commit = (run["git"].get("commit") or "unknown")[:12]
    lines.append(
        f"{text(lib)} · MPI {text(run.get('mpi_version') or '?')} · ordo"
        f" {text(run['ordo_version'])} ({code(commit)})"
        f" · {summary['total']} checks at rank counts"
        f" {text(', '.join(map(str, ranks)) or 'none')}"
    )
    lines += placement_lines(run)
    lines += system_lines(run)
    lines.append("")
    if report["partial"]:
        lines.append(
            "> **Partial report**: " + text("; ".join(report["partial_reasons"]))
        )
        lines.append("")
    lines.append("| level | verdict | checks | " + " | ".join(rec.OUTCOMES) + " |")
    lines.append(
        "| --- | --- | ---: | " + " | ".join("---:" for _ in rec.OUTCOMES) + " |"
    )
    for level in rec.LEVELS:
        lv = summary["levels"][level]
        verdict = f"**{lv['verdict']}**" if lv["verdict"] == "fail" else lv["verdict"]
        lines.append(
            f"| {level} | {verdict} | {lv['total']} | "
            + " | ".join(str(lv["outcomes"].get(o, 0)) for o in rec.OUTCOMES)
            + " |"
        )
    lines.append("")
    lines += binding_lines(summary)
    for g in summary.get("not_tested", []):
        if g["level"] == "MUST":
            lines.append(
                f"- {g['status']}: {code(g['clause'])} ({g['untested']} of"
                f" {g['checks']} checks): "
                + text("; ".join(item["reason"] for item in g["reasons"]))
            )
    if summary.get("ordo_own"):
        own = summary["ordo_own"]
        lines.append(
            f"- ordo's own implementation, not the library's: {own['total']} checks of "
            + ", ".join(code(c) for c in own["clauses"])
            + " (the library has no MPIX_Reduce_locals)"
        )
    for w in report["waivers"].get("not_applied", []):
        lines.append(
            f"- waiver {code(w['id'])} did not apply to {w['checks']} failing checks:"
            f" {text(w['why'])}"
        )
    if lines[-1] != "":
        lines.append("")
    bad = [r for r in report["records"] if r["outcome"] in rec.BAD]
    entries = []
    for r in bad[:MAX_FAILURES]:
        case = res.case_text(r.get("case"))
        entry = (
            f"- **{r['outcome']}** {code(r['test'])} at {r['ranks']} ranks"
            f" [{code(r['clause'])}, {r['level']}]"
            + (f" {code(case, 200)}" if case else "")
            + f"\n  {text(r.get('message', ''), MAX_MESSAGE)}"
        )
        replay = res.replay_command(r)
        if replay:
            entry += f"\n  replay: {code(replay, 1200)}"
        entries.append(entry)
    failures_at = len(lines)
    waived: dict = {}
    for r in report["records"]:
        if r["outcome"] == "waived":
            waived[r.get("waiver") or "?"] = waived.get(r.get("waiver") or "?", 0) + 1
    # cases a crash or timeout waiver held back (not run), per waiver
    held_back: dict = {}
    for r in report["records"]:
        wid = res.known_fatal_waiver(r)
        if wid:
            held_back[wid] = held_back.get(wid, 0) + 1
    if waived or held_back:
        known = {w["id"]: w for w in report["waivers"]["waivers"]}
        lines.append(
            f"**Waived** ({sum(waived.values())} checks waived after running, "
            f"{sum(held_back.values())} not run: a known crash or hang):"
        )
        lines.append("")
        for wid in sorted(set(waived) | set(held_back)):
            w = known.get(wid, {})
            uses = (
                [f"{waived[wid]} checks waived after running"]
                if waived.get(wid)
                else []
            ) + (
                [f"{held_back[wid]} not run (known crash or hang)"]
                if held_back.get(wid)
                else []
            )
            lines.append(
                f"- {code(wid)}: {', '.join(uses)}, expires"
                f" {text(w.get('expires', '?'))}; "
                f"{text(w.get('reason', 'no reason recorded'), 300)}"
                f" ({text(w.get('upstream', ''), 200)})"
            )
        lines.append("")
    usage = report["waivers"]
    if usage.get("stale"):
        lines.append(
            "Stale waivers (this run could have met them and did not): "
            + ", ".join(code(w) for w in usage["stale"])
        )
        lines.append("")
    if usage.get("not_rechecked"):
        lines.append(
            "Not re-checked in this run (every case of theirs was held back as a known"
            " crash or hang, so their bug may be fixed): "
            + ", ".join(code(w) for w in usage["not_rechecked"])
        )
        lines.append("")
    lines.append(text(res.known_fatal_sentence(summary)))
    lines.append("")
    skipped = summary["outcomes"].get("skip", 0) - sum(held_back.values())
    held = sum(
        1
        for r in report["records"]
        if r["outcome"] == "skip" and (r.get("message") or "").startswith(rec.HELD_BACK)
    )
    if held:
        lines.append(
            f"{held} checks not run because the cases of their routine on their"
            " communicator kept hanging in this run (each record names the hangs;"
            " `ordo run --run-hung-kinds` runs them)."
        )
        lines.append("")
    if skipped - held:
        lines.append(
            f"{skipped - held} checks skipped (a routine, feature or shape absent); the"
            " full report has each reason."
        )
        lines.append("")
    lines += coverage_lines(report)
    lines += property_lines(report)
    lines += clause_lines(report)
    lines.append(
        f"<sub>Full report: {text(report_link)} ·"
        f" {report.get('stored_as') or report['schema']} · generated"
        f" {text(report['generated']['at'])}</sub>"
    )
    # The failures go in as far as the comment's size allows.
    budget = MAX_CHARS - len("\n".join(lines)) - 200
    kept = []
    for entry in entries:
        if budget - len(entry) - 1 < 0:
            break
        kept.append(entry)
        budget -= len(entry) + 1
    if bad:
        head = (
            f"**Failures** ({len(bad)}"
            + (f", the first {len(kept)} shown" if len(kept) < len(bad) else "")
            + "):"
        )
        block = (
            [head, ""]
            + kept
            + (
                [f"- \u2026 and {len(bad) - len(kept)} more in the full report"]
                if len(kept) < len(bad)
                else []
            )
            + [""]
        )
    else:
        block = ["No check failed, crashed or timed out.", ""]
    lines[failures_at:failures_at] = block
    return "\n".join(lines) + "\n"

"""The regression gate: is a new run worse than a baseline run?

A check is matched across the two runs by its test, variant, rank count and
case (results.record_key). The gate fails (exit 1) when

  - a check is bad in the new run (fail, crash, timeout, corrupt) and was not
    bad in the baseline (pass, waived, skip) or is new: a regression;
  - a waiver of the new run's vendor has no reason, no valid expiry date, or
    has expired; or a waived check names a waiver that does not exist;
  - a waived check of the new run is not waived when judged again by the
    waivers file for the new run's library release (another release, a
    narrowed trigger, an expired date): the check counts as its original
    outcome, and the gate names the waiver and why it did not apply;
  - the new run is partial (interrupted: it cannot show that nothing got worse).

It lists, without failing: checks still failing as in the baseline, checks
fixed, checks newly waived or skipped, and baseline checks the new run lacks.
"""
import datetime
import re

from . import records as rec, results as res, waivers as waiver_files

EXIT_PASS, EXIT_FAIL = 0, 1
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def waiver_problems(waivers, today):
    """Problems of a waivers list: missing reason, missing or malformed expiry, expired."""
    problems = []
    for i, w in enumerate(waivers):
        wid = w.get("id") or f"#{i}"
        if not w.get("id"):
            problems.append(f"waiver {wid} has no id")
        if not str(w.get("reason", "")).strip():
            problems.append(f"waiver {wid} has no reason")
        expires = str(w.get("expires", ""))
        if not expires:
            problems.append(f"waiver {wid} has no expiry date (\"expires\": \"YYYY-MM-DD\")")
            continue
        try:
            if not _DATE.match(expires):
                raise ValueError
            date = datetime.date.fromisoformat(expires)
        except ValueError:
            problems.append(f"waiver {wid} has a malformed expiry date '{expires}' (use YYYY-MM-DD)")
            continue
        if date < today:
            problems.append(f"waiver {wid} expired on {expires}: fix the library, or renew the waiver with a "
                            f"reason (reason: {str(w.get('reason', ''))[:160]})")
    return problems


def load_waivers(path):
    """The waivers of a file, read by reports/waivers.py; what the gate judges
    (a reason, an expiry date) it reports itself, as problems of the new run."""
    try:
        doc = waiver_files.load_document(path, validate=False)
    except waiver_files.WaiverFileError as e:
        raise res.ReportError(str(e))
    waivers = doc.get("waivers") if isinstance(doc, dict) else None
    if not isinstance(waivers, list) or not all(isinstance(w, dict) for w in waivers):
        raise res.ReportError(f"the waivers file {path} has no \"waivers\" list of objects")
    return waivers


def default_waivers(report, root=res.ROOT):
    """The waivers file of the new run's adapter (its "waivers" key): the
    vendor's adapter of this checkout, else the run's own adapter file; else
    the copy embedded in the report."""
    path = res.waivers_file_of(report["run"], root, checkout_first=True)
    if path:
        return load_waivers(path), str(path)
    return report["waivers"]["waivers"], "the waivers embedded in the new report"


def _describe(r):
    case = res.case_text(r.get("case"))
    return f"{r['test']} at {r['ranks']} ranks" + (f" [{case}]" if case else "") + \
        (f" (variant {r['variant']})" if r.get("variant", "default") != "default" else "")


def rejudge(records, waivers, today, library_version):
    """The new run's waived checks judged again by the waivers file the gate is
    given, for the library's release: a check whose waiver does not apply (any
    more) is its original outcome again, and the message says why. Returns the
    records and, per waiver that did not apply, why and how many checks."""
    by_id = {w.get("id"): w for w in waivers}
    out, not_applied = [], {}
    for r in records:
        w = by_id.get(r.get("waiver")) if r["outcome"] == "waived" else None
        if w is None:
            out.append(r)
            continue
        again = waiver_files.apply(waiver_files.unwaived(r, w), waivers, today=today.isoformat(), library_version=library_version)
        if again["outcome"] == "waived":
            out.append(r)
            continue
        verdict = waiver_files.match(w, again, today=today.isoformat(), library_version=library_version)
        why = (f"it is for {' or '.join(waiver_files.versions_of(w))}, not {library_version or 'an unknown release'}"
               if verdict == waiver_files.VERSION else f"it expired on {w.get('expires')}" if verdict == waiver_files.EXPIRED
               else "its trigger no longer names this check")
        row = not_applied.setdefault(w.get("id"), {"id": w.get("id"), "why": why, "checks": 0})
        row["checks"] += 1
        again["_not_waived"] = f"the waiver {w.get('id')} did not apply: {why}"
        out.append(again)
    return out, sorted(not_applied.values(), key=lambda x: x["id"])


def compare(baseline, new, waivers, today):
    """The gate's decision: a dict with the lists and 'passed'. The new run's
    waived checks are judged again by the given waivers for the new run's
    library release (rejudge), so that a waiver bound to another release, or
    narrowed since, cannot hide a regression."""
    old = res.keyed(baseline["records"])
    seen = set()
    regressions, still_bad, fixed, newly_waived, newly_skipped, new_checks = [], [], [], [], [], 0
    release = waiver_files.parse_library_version(new["run"].get("library_version") or "")
    judged, not_applied = rejudge(new["records"], waivers, today, release)
    for key, r in res.keyed(judged).items():
        seen.add(key)
        before = old.get(key)
        was = before["outcome"] if before else None
        now = r["outcome"]
        if now in rec.BAD:
            if was in rec.BAD:
                still_bad.append((r, was))
            else:
                regressions.append((r, was))
        elif was in rec.BAD:
            fixed.append((r, was))
        elif now == "waived" and was not in (None, "waived"):
            newly_waived.append((r, was))
        elif now == "skip" and was not in (None, "skip"):
            newly_skipped.append((r, was))
        if before is None:
            new_checks += 1
    missing = [r for key, r in old.items() if key not in seen]
    problems = list(waiver_problems(waivers, today))
    for row in not_applied:
        problems.append(f"the waiver {row['id']} did not apply to {row['checks']} checks of this run: {row['why']} "
                        f"(library: {res.first_line(new['run'].get('library_version')) or 'unknown'})")
    known = {w.get("id") for w in waivers}
    unknown = sorted({r.get("waiver") or "(none)" for r in new["records"]
                      if r["outcome"] == "waived" and r.get("waiver") not in known})
    for wid in unknown:
        problems.append(f"checks are waived by '{wid}', which is not in the waivers file")
    partial = [f"the new run is partial: {reason}" for reason in new["partial_reasons"]] if new["partial"] else []
    return {"regressions": regressions, "still_bad": still_bad, "fixed": fixed, "newly_waived": newly_waived,
            "newly_skipped": newly_skipped, "missing": missing, "new_checks": new_checks,
            "waiver_problems": problems, "partial": partial, "not_applied": not_applied,
            "passed": not regressions and not problems and not partial}


def format_decision(d, baseline_name, new_name, baseline, new, waivers_source, limit=200):
    """The gate's report: every regression and waiver problem on its own line, then a summary."""
    lines = [f"ordo gate: baseline {baseline_name} ({baseline['run']['vendor']}, {len(baseline['records'])} checks)"
             f" -> new {new_name} ({new['run']['vendor']}, {len(new['records'])} checks); waivers: {waivers_source}"]
    for r, was in d["regressions"][:limit]:
        lines.append(f"REGRESSION  {_describe(r)} [{r['clause']}, {r['level']}]: {was or 'not in the baseline'} "
                     f"-> {r['outcome']}: {res.first_line(r.get('message'))[:300]}" +
                     (f" ({r['_not_waived']})" if r.get("_not_waived") else ""))
        replay = res.replay_command(r)
        if replay:
            lines.append(f"            replay: {rec.printable(replay)}")
    if len(d["regressions"]) > limit:
        lines.append(f"REGRESSION  ... and {len(d['regressions']) - limit} more")
    for p in d["waiver_problems"]:
        lines.append(f"WAIVER      {p}")
    for p in d["partial"]:
        lines.append(f"PARTIAL     {p}")
    for r, was in d["newly_waived"][:20]:
        lines.append(f"note        newly waived: {_describe(r)}: {was} -> waived ({r.get('waiver')})")
    if len(d["newly_waived"]) > 20:
        lines.append(f"note        ... and {len(d['newly_waived']) - 20} more newly waived")
    for r, was in d["newly_skipped"][:20]:
        lines.append(f"note        newly skipped: {_describe(r)}: {was} -> skip: {res.first_line(r.get('message'))[:160]}")
    if len(d["newly_skipped"]) > 20:
        lines.append(f"note        ... and {len(d['newly_skipped']) - 20} more newly skipped")
    if d["missing"]:
        lines.append(f"note        {len(d['missing'])} checks of the baseline are not in the new run "
                     f"(e.g. {_describe(d['missing'][0])})")
    lines.append(f"summary: {len(d['regressions'])} regressions, {len(d['waiver_problems'])} waiver problems, "
                 f"{len(d['still_bad'])} still failing as in the baseline, {len(d['fixed'])} fixed, "
                 f"{len(d['newly_waived'])} newly waived, {len(d['newly_skipped'])} newly skipped, "
                 f"{d['new_checks']} new checks, {len(d['missing'])} missing")
    lines.append("gate: PASS" if d["passed"] else "gate: FAIL")
    return "\n".join(rec.printable(line) for line in lines)

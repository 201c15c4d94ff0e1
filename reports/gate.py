"""The regression gate: is a new run worse than a baseline run, or less of one?

A check is matched across the two runs by its test, variant, rank count and
case (results.record_key). The gate fails (exit 1), with a line per cause
(and per offending check, up to a limit), when

  - a check is bad in the new run (fail, crash, timeout, corrupt) and was not
    bad in the baseline (pass, waived, skip) or is new: a regression;
  - a check of the baseline is not in the new run; the new run has no checks,
    or fewer than the baseline;
  - a check that passed in the baseline is a skip now, or is waived now (unless
    the waiver is accepted by name: accept_waivers, `--accept-waiver ID`);
  - the library (vendor and release), the rank counts or the variants of the
    new run differ from the baseline's, each unless accepted (accept_library,
    accept_ranks, accept_variants); with the rank counts or variants accepted,
    the baseline's checks at those the new run dropped are not compared;
  - a case the new run did not run because a crash or timeout waiver names it
    (`--ordo-avoid-known-fatal`, a skip whose message waivers.AVOIDED reads)
    is not named by that waiver when judged again by the waivers file for the
    new run's release (absent, expired, another release, a narrowed trigger):
    nothing shows the case is fine;
  - a waiver of the new run's vendor has no reason, no valid expiry date, or
    has expired; or a waived check names a waiver that does not exist;
  - a waived check of the new run is not waived when judged again by the
    waivers file for the new run's library release (another release, a
    narrowed trigger, an expired date): the check counts as its original
    outcome, and the gate names the waiver and why it did not apply;
  - the new run is partial (interrupted: it cannot show that nothing got worse).

It lists, without failing: checks still failing as in the baseline, checks
fixed, bad checks now waived or skipped, accepted changes, and what the new
checks (not in the baseline) arrive as: counts per outcome, and a line for
each that arrives waived or skipped.
"""
import datetime
import re

from . import records as rec, results as res, waivers as waiver_files

EXIT_PASS, EXIT_FAIL = 0, 1
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def waiver_problems(waivers, today):
    """Problems of a waivers list: missing reason, missing or malformed expiry,
    expired."""
    problems = []
    for i, w in enumerate(waivers):
        wid = w.get("id") or f"#{i}"
        if not w.get("id"):
            problems.append(f"waiver {wid} has no id")
        if not str(w.get("reason", "")).strip():
            problems.append(f"waiver {wid} has no reason")
        expires = str(w.get("expires", ""))
        if not expires:
            problems.append(
                f'waiver {wid} has no expiry date ("expires": "YYYY-MM-DD")'
            )
            continue
        try:
            if not _DATE.match(expires):
                raise ValueError
            date = datetime.date.fromisoformat(expires)
        except ValueError:
            problems.append(
                f"waiver {wid} has a malformed expiry date '{expires}' (use YYYY-MM-DD)"
            )
            continue
        if date < today:
            problems.append(
                f"waiver {wid} expired on {expires}: fix the library, or renew the"
                f" waiver with a reason (reason: {str(w.get('reason', ''))[:160]})"
            )
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
        raise res.ReportError(
            f'the waivers file {path} has no "waivers" list of objects'
        )
    return waivers


def default_waivers(report, root=res.ROOT):
    """The waivers file of the new run's adapter (its "waivers" key): the
    vendor's adapter of this checkout, else the run's own adapter file; else
    the copy embedded in the report."""
    path = res.waivers_file_of(report["run"], root, checkout_first=True)
    if path:
        return load_waivers(path), str(path)
    return report["waivers"]["waivers"], "the waivers embedded in the new report"


def _held_back_by(record):
    """The waiver that held a skipped case back (--ordo-avoid-known-fatal), or None."""
    m = waiver_files.AVOIDED.match(record.get("message") or "")
    return m.group(1) if m else None


def _describe(r):
    case = res.case_text(r.get("case"))
    return (
        f"{r['test']} at {r['ranks']} ranks"
        + (f" [{case}]" if case else "")
        + (
            f" (variant {r['variant']})"
            if r.get("variant", "default") != "default"
            else ""
        )
    )


def rejudge(records, waivers, today, library_version):
    """The new run's waived checks judged again by the waivers file the gate is
    given, for the library's release: a check whose waiver does not apply (any
    more) is its original outcome again, and the message says why. Returns the
    records and, per waiver that did not apply, why and how many checks."""
    by_id = {w.get("id"): w for w in waivers}
    out: list = []
    not_applied: dict = {}
    for r in records:
        w = by_id.get(r.get("waiver")) if r["outcome"] == "waived" else None
        if w is None:
            out.append(r)
            continue
        again = waiver_files.apply(
            waiver_files.unwaived(r, w),
            waivers,
            today=today.isoformat(),
            library_version=library_version,
        )
        if again["outcome"] == "waived":
            out.append(r)
            continue
        verdict = waiver_files.match(
            w, again, today=today.isoformat(), library_version=library_version
        )
        why = (
            f"it is for {' or '.join(waiver_files.versions_of(w))}, not"
            f" {library_version or 'an unknown release'}"
            if verdict == waiver_files.VERSION
            else f"it expired on {w.get('expires')}"
            if verdict == waiver_files.EXPIRED
            else "its trigger no longer names this check"
        )
        row = not_applied.setdefault(
            w.get("id"), {"id": w.get("id"), "why": why, "checks": 0}
        )
        row["checks"] += 1
        again["_not_waived"] = f"the waiver {w.get('id')} did not apply: {why}"
        out.append(again)
    return out, sorted(not_applied.values(), key=lambda x: x["id"])


def _span(numbers):
    """Rank counts as ranges: [1, 2, 3, 4, 8] -> "1-4,8"."""
    numbers = sorted(set(numbers))
    parts, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        parts.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ",".join(parts) or "none"


def rank_counts(report):
    """The rank counts a run was asked for (run.json), else those its records hold."""
    return set(report["run"].get("ranks") or []) or {
        r["ranks"] for r in report["records"] if isinstance(r.get("ranks"), int)
    }


def variants(report):
    """The variants a run was asked for (run.json), else those its records hold."""
    return (
        set(report["run"].get("variants") or [])
        or {r.get("variant") or "default" for r in report["records"]}
        or {"default"}
    )


def library(report):
    """The library a run tested: its vendor (adapter) and release, e.g. ("mpich",
    "4.0.2"); without a release in the version text, the text's first line; release None
    when unknown.
    """
    text = report["run"].get("library_version") or ""
    release = waiver_files.parse_library_version(text) or res.first_line(text) or None
    return report["run"].get("vendor") or "unknown", release


def _library_text(lib):
    return f"{lib[0]} {lib[1] or '(release unknown)'}"


def known_fatal(records, waivers, today, release):
    """The cases a run did not run because a crash or timeout waiver names them
    (the skips waivers.AVOIDED reads), judged again by the waivers given for the
    run's release: each as it would have been recorded had it crashed or hung
    (the harness's own question: the trigger alone, since a case not run has no
    message to hold a signature against), through waivers.match.
    Returns [(record, waiver id, why)] for those whose waiver no longer names
    them; why is None for those it still does (not returned)."""
    by_id = {w.get("id"): w for w in waivers}
    out = []
    for r in records:
        if r.get("outcome") != "skip":
            continue
        m = waiver_files.AVOIDED.match(r.get("message") or "")
        if not m:
            continue
        wid = m.group(1)
        w = by_id.get(wid)
        if w is None:
            out.append((r, wid, f"the waiver {wid} is not in the waivers file"))
            continue
        verdicts = set()
        for fatal in ("crash", "timeout"):
            as_fatal = dict(r, outcome=fatal, message="")
            as_fatal.pop("waiver", None)
            verdicts.add(
                waiver_files.match(
                    w,
                    as_fatal,
                    today=today.isoformat(),
                    library_version=release,
                    signature=False,
                )
            )
        if waiver_files.WAIVED in verdicts:
            continue
        if waiver_files.VERSION in verdicts:
            why = (
                f"the waiver {wid} is for {' or '.join(waiver_files.versions_of(w))}, "
                f"not {release or 'an unknown release'}"
            )
        elif waiver_files.EXPIRED in verdicts:
            why = f"the waiver {wid} expired on {w.get('expires')}"
        else:
            why = f"the waiver {wid} no longer names this case as a crash or a hang"
        out.append((r, wid, why))
    return out


ACCEPT_OPTIONS = {
    "library": "--accept-library-change",
    "ranks": "--accept-ranks-change",
    "variants": "--accept-variants-change",
}


def compare(
    baseline,
    new,
    waivers,
    today,
    *,
    accept_waivers=(),
    accept_library=False,
    accept_ranks=False,
    accept_variants=False,
):
    """The gate's decision: a dict with the lists and 'passed'. The new run's
    waived checks are judged again by the given waivers for the new run's
    library release (rejudge), so that a waiver bound to another release, or
    narrowed since, cannot hide a regression; so are the cases it did not run
    as known to crash or hang (known_fatal). accept_waivers: ids of waivers
    whose waiving (or holding back) of checks that passed in the baseline is
    accepted; accept_library, accept_ranks, accept_variants: a change of the
    run's library, rank counts or variants is accepted."""
    accept_waivers = set(accept_waivers)
    release = waiver_files.parse_library_version(
        new["run"].get("library_version") or ""
    )
    # What was run: the library, the rank counts, the variants.
    changes = []
    old_lib, new_lib = library(baseline), library(new)
    if old_lib != new_lib:
        changes.append(
            {
                "what": "library",
                "accepted": accept_library,
                "text": (
                    f"the library differs: baseline {_library_text(old_lib)}, new"
                    f" {_library_text(new_lib)}"
                ),
            }
        )
    old_ranks, new_ranks = rank_counts(baseline), rank_counts(new)
    if old_ranks != new_ranks:
        lost = old_ranks - new_ranks
        changes.append(
            {
                "what": "ranks",
                "accepted": accept_ranks,
                "text": (
                    f"the rank counts differ: baseline {_span(old_ranks)}, new"
                    f" {_span(new_ranks)}"
                )
                + (f" ({_span(lost)} dropped)" if lost else ""),
            }
        )
    old_variants, new_variants = variants(baseline), variants(new)
    if old_variants != new_variants:
        lost = old_variants - new_variants
        changes.append(
            {
                "what": "variants",
                "accepted": accept_variants,
                "text": (
                    f"the variants differ: baseline {', '.join(sorted(old_variants))},"
                    f" new {', '.join(sorted(new_variants))}"
                )
                + (f" ({', '.join(sorted(lost))} dropped)" if lost else ""),
            }
        )
    same_release_note = None
    if old_lib == new_lib and (baseline["run"].get("library_version") or "") != (
        new["run"].get("library_version") or ""
    ):
        same_release_note = (
            "the library's version text differs within the same release"
            f" ({_library_text(new_lib)}): baseline"
            f" '{res.first_line(baseline['run'].get('library_version'))[:120]}', new"
            f" '{res.first_line(new['run'].get('library_version'))[:120]}'"
        )

    # The baseline's checks compared: with a change of rank counts or variants accepted,
    # those at rank counts or variants the new run was not asked for are set aside
    # (counted, not compared).
    def in_scope(r):
        if accept_ranks and r.get("ranks") not in new_ranks:
            return False
        if accept_variants and (r.get("variant") or "default") not in new_variants:
            return False
        return True

    old_all = res.keyed(baseline["records"])
    old = {k: r for k, r in old_all.items() if in_scope(r)}
    set_aside = len(old_all) - len(old)

    seen = set()
    regressions: list = []
    still_bad: list = []
    fixed: list = []
    newly_waived: list = []
    newly_skipped: list = []
    lost_to_skip: list = []
    lost_to_waiver: list = []
    accepted_waived: list = []
    arrivals = {"pass": 0, "waived": 0, "skip": 0, "bad": 0}
    arrived_waived, arrived_skipped = [], []
    judged, not_applied = rejudge(new["records"], waivers, today, release)
    for key, r in res.keyed(judged).items():
        seen.add(key)
        before = old_all.get(key)
        was = before["outcome"] if before else None
        now = r["outcome"]
        if before is None:
            arrivals[now if now in ("pass", "waived", "skip") else "bad"] += 1
            if now == "waived":
                arrived_waived.append(r)
            elif now == "skip":
                arrived_skipped.append(r)
        if now in rec.BAD:
            (still_bad if was in rec.BAD else regressions).append((r, was))
        elif now == "pass":
            if was in rec.BAD:
                fixed.append((r, was))
        elif now == "waived":
            if was == "pass":
                (
                    accepted_waived
                    if r.get("waiver") in accept_waivers
                    else lost_to_waiver
                ).append((r, was))
            elif was is not None and was != "waived":
                newly_waived.append((r, was))
        elif now == "skip":
            held = waiver_files.AVOIDED.match(r.get("message") or "")
            if was == "pass":
                if held and held.group(1) in accept_waivers:
                    accepted_waived.append((r, was))
                else:
                    lost_to_skip.append((r, was))
            elif was is not None and was != "skip":
                newly_skipped.append((r, was))
    missing = [r for key, r in old.items() if key not in seen]
    counts = []
    if not new["records"]:
        counts.append("the new run has no checks")
    elif len(new["records"]) < len(old):
        counts.append(
            f"the new run has {len(new['records'])} checks, fewer than the baseline's"
            f" {len(old)}"
            + (
                f" (of {len(old_all)}, {set_aside} set aside: rank counts or variants"
                " the new run was not asked for)"
                if set_aside
                else ""
            )
        )
    not_run = known_fatal(new["records"], waivers, today, release)
    problems = list(waiver_problems(waivers, today))
    for row in not_applied:
        problems.append(
            f"the waiver {row['id']} did not apply to {row['checks']} checks of this"
            f" run: {row['why']} (library:"
            f" {res.first_line(new['run'].get('library_version')) or 'unknown'})"
        )
    known = {w.get("id") for w in waivers}
    unknown = sorted(
        {
            r.get("waiver") or "(none)"
            for r in new["records"]
            if r["outcome"] == "waived" and r.get("waiver") not in known
        }
    )
    for wid in unknown:
        problems.append(
            f"checks are waived by '{wid}', which is not in the waivers file"
        )
    partial = (
        [f"the new run is partial: {reason}" for reason in new["partial_reasons"]]
        if new["partial"]
        else []
    )
    used = {r.get("waiver") for r, _ in accepted_waived if r["outcome"] == "waived"} | {
        _held_back_by(r) for r, _ in accepted_waived if r["outcome"] == "skip"
    }
    unused_accepts = sorted(accept_waivers - used)
    flags = {
        "library": accept_library,
        "ranks": accept_ranks,
        "variants": accept_variants,
    }
    idle_options = [
        ACCEPT_OPTIONS[what]
        for what, given in flags.items()
        if given and what not in {c["what"] for c in changes}
    ]
    failing = (
        regressions
        or problems
        or partial
        or missing
        or counts
        or lost_to_skip
        or lost_to_waiver
        or not_run
        or any(not c["accepted"] for c in changes)
    )
    return {
        "regressions": regressions,
        "still_bad": still_bad,
        "fixed": fixed,
        "newly_waived": newly_waived,
        "newly_skipped": newly_skipped,
        "missing": missing,
        "counts": counts,
        "lost_to_skip": lost_to_skip,
        "lost_to_waiver": lost_to_waiver,
        "accepted_waived": accepted_waived,
        "unused_accepts": unused_accepts,
        "idle_options": idle_options,
        "not_run": not_run,
        "changes": changes,
        "same_release_note": same_release_note,
        "set_aside": set_aside,
        "arrivals": arrivals,
        "arrived_waived": arrived_waived,
        "arrived_skipped": arrived_skipped,
        "new_checks": sum(arrivals.values()),
        "waiver_problems": problems,
        "partial": partial,
        "not_applied": not_applied,
        "passed": not failing,
    }


def _listed(lines, tag, items, line_of, limit, more=""):
    """A line per item up to the limit, then one '... and N more'."""
    for item in items[:limit]:
        lines.append(f"{tag:<12}{line_of(item)}")
    if len(items) > limit:
        lines.append(f"{tag:<12}... and {len(items) - limit} more{more}")


def _message(r, n=160):
    return res.first_line(r.get("message"))[:n]


def format_decision(
    d, baseline_name, new_name, baseline, new, waivers_source, limit=200
):
    """The gate's report: a line per cause of failure (per check, up to the limit), the
    notes, a summary, and 'gate: PASS' or 'gate: FAIL' last."""
    lines = [
        f"ordo gate: baseline {baseline_name} ({baseline['run']['vendor']},"
        f" {len(baseline['records'])} checks) -> new"
        f" {new_name} ({new['run']['vendor']}, {len(new['records'])} checks); waivers:"
        f" {waivers_source}"
    ]
    for c in d["changes"]:
        if not c["accepted"]:
            lines.append(
                f"{c['what'].upper():<12}{c['text']} (accept it with"
                f" {ACCEPT_OPTIONS[c['what']]})"
            )
    for p in d["counts"]:
        lines.append(f"CHECKS      {p}")
    for r, was in d["regressions"][:limit]:
        lines.append(
            f"REGRESSION  {_describe(r)} [{r['clause']}, {r['level']}]:"
            f" {was or 'not in the baseline'} -> {r['outcome']}:"
            f" {res.first_line(r.get('message'))[:300]}"
            + (f" ({r['_not_waived']})" if r.get("_not_waived") else "")
        )
        replay = res.replay_command(r)
        if replay:
            lines.append(f"            replay: {rec.printable(replay)}")
    if len(d["regressions"]) > limit:
        lines.append(f"REGRESSION  ... and {len(d['regressions']) - limit} more")
    _listed(
        lines,
        "MISSING",
        d["missing"],
        lambda r: f"{_describe(r)}: {r['outcome']} in the baseline, not in the new run",
        limit,
    )
    _listed(
        lines,
        "SKIPPED",
        d["lost_to_skip"],
        lambda x: f"{_describe(x[0])}: pass -> skip: {_message(x[0])}"
        + (
            f" (accept it with --accept-waiver {_held_back_by(x[0])})"
            if _held_back_by(x[0])
            else ""
        ),
        limit,
    )
    _listed(
        lines,
        "WAIVED",
        d["lost_to_waiver"],
        lambda x: (
            f"{_describe(x[0])}: pass -> waived by {x[0].get('waiver')} (accept it with"
            f" --accept-waiver {x[0].get('waiver')}): {_message(x[0])}"
        ),
        limit,
    )
    _listed(
        lines,
        "NOT RUN",
        d["not_run"],
        lambda x: (
            f"{_describe(x[0])} was not run as a known crash or hang, "
            f"but {x[2]}: nothing shows it is fine"
        ),
        limit,
    )
    for p in d["waiver_problems"]:
        lines.append(f"WAIVER      {p}")
    for p in d["partial"]:
        lines.append(f"PARTIAL     {p}")
    # Notes: what does not fail the gate.
    for c in d["changes"]:
        if c["accepted"]:
            lines.append(
                f"note        accepted ({ACCEPT_OPTIONS[c['what']]}): {c['text']}"
            )
    for option in d["idle_options"]:
        lines.append(
            f"note        {option}: nothing to accept, the new run's is the baseline's"
        )
    if d["same_release_note"]:
        lines.append(f"note        {d['same_release_note']}")
    if d["set_aside"]:
        lines.append(
            f"note        {d['set_aside']} checks of the baseline set aside: at rank"
            " counts or variants the new run was not asked for (accepted)"
        )
    _listed(
        lines,
        "note",
        d["accepted_waived"],
        lambda x: (
            f"accepted (--accept-waiver): {_describe(x[0])}: "
            f"pass -> {x[0]['outcome']}: {_message(x[0])}"
        ),
        limit,
        " accepted",
    )
    for wid in d["unused_accepts"]:
        lines.append(
            f"note        --accept-waiver {wid}: no check that passed in the baseline"
            " is waived or held back by it"
        )
    _listed(
        lines,
        "note",
        d["newly_waived"],
        lambda x: (
            f"newly waived: {_describe(x[0])}: {x[1]} -> waived ({x[0].get('waiver')})"
        ),
        20,
        " newly waived",
    )
    _listed(
        lines,
        "note",
        d["newly_skipped"],
        lambda x: f"newly skipped: {_describe(x[0])}: {x[1]} -> skip: {_message(x[0])}",
        20,
        " newly skipped",
    )
    a = d["arrivals"]
    if d["new_checks"]:
        lines.append(
            f"note        {d['new_checks']} new checks (not in the baseline):"
            f" {a['pass']} pass, {a['waived']} waived, {a['skip']} skip, {a['bad']} bad"
        )
    _listed(
        lines,
        "note",
        d["arrived_waived"],
        lambda r: f"new, waived: {_describe(r)} by {r.get('waiver')}: {_message(r)}",
        limit,
        " new waived checks",
    )
    _listed(
        lines,
        "note",
        d["arrived_skipped"],
        lambda r: f"new, skipped: {_describe(r)}: {_message(r)}",
        limit,
        " new skipped checks",
    )
    unaccepted = sum(1 for c in d["changes"] if not c["accepted"])
    lines.append(
        f"summary: {len(d['regressions'])} regressions,"
        f" {len(d['waiver_problems'])} waiver problems, {len(d['missing'])} missing,"
        f" {len(d['lost_to_skip'])} pass -> skip, {len(d['lost_to_waiver'])} pass ->"
        f" waived, {len(d['accepted_waived'])} accepted by --accept-waiver,"
        f" {len(d['not_run'])} not run without a standing waiver, {unaccepted} run"
        f" changes ({len(d['changes']) - unaccepted} accepted),"
        f" {len(d['still_bad'])} still failing as in the baseline,"
        f" {len(d['fixed'])} fixed, {len(d['newly_waived'])} newly waived,"
        f" {len(d['newly_skipped'])} newly skipped, {d['new_checks']} new checks"
        f" ({a['pass']} pass, {a['waived']} waived, {a['skip']} skip, {a['bad']} bad)"
    )
    lines.append("gate: PASS" if d["passed"] else "gate: FAIL")
    return "\n".join(rec.printable(line) for line in lines)

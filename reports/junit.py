"""JUnit XML of one run, for CI systems (valid against schema/junit.xsd).

One <testsuite> per check executable family and rank count (e.g.
"mpich.Reduce.4ranks"). Every check that is not a pass keeps its own
<testcase>: fail -> <failure>, crash / timeout / corrupt -> <error>, waived ->
<skipped> "waived by <waiver id>: <message>" (a known library bug, not a new
failure), the message ending with the waiver's note (its expiry, reason and
upstream report) in the first waived check of each waiver only, and its
replay command with the case's fields at the harness's default left out.
Passing checks are summarised: one <testcase> per check (GoogleTest name)
and clause, named "<check>: N checks passed", and skipped ones one per check,
clause and reason ("N checks skipped: <reason>"); a default run's 90000
passing cases make a few hundred elements instead of 90000 (issue #17).
Each <testcase> carries the number of checks it stands for in its "checks"
property, so that the checks still add up to the report's (verify.py).
"""
import xml.etree.ElementTree as ET

from . import records as rec, results as res, waivers as wvr

XSD = res.SCHEMA_PATH.parent / "junit.xsd"
# The outcomes whose every check keeps its own element.
OWN_ELEMENT = ("fail", "crash", "timeout", "corrupt", "waived")


def _s(value):
    return rec.printable(value)


def _props(parent, pairs):
    props = ET.SubElement(parent, "properties")
    for key, value in pairs:
        ET.SubElement(props, "property", name=key, value=_s(value))


def _own_case(suite, prefix, ranks, r, counts, waivers, noted):
    seconds = float(r.get("duration_s") or 0.0)
    case = ET.SubElement(
        suite,
        "testcase",
        name=_s(f"{r['id']} {res.case_text(r.get('case'))}".strip()),
        classname=_s(f"{prefix}{ranks}ranks.{r['test']}"),
        time=f"{seconds:.6f}",
    )
    _props(
        case,
        [
            ("clause", r["clause"]),
            ("level", r["level"]),
            ("outcome", r["outcome"]),
            ("checks", "1"),
        ],
    )
    message = _s(f"[{r['clause']}, {r['level']}] {r.get('message', '')}")
    if r["outcome"] == "fail":
        counts["failures"] += 1
        ET.SubElement(
            case, "failure", message=message[:1000], type=r["level"]
        ).text = message
    elif r["outcome"] in ("crash", "timeout", "corrupt"):
        counts["errors"] += 1
        ET.SubElement(
            case, "error", message=message[:1000], type=r["outcome"]
        ).text = message
    else:  # waived (a skip of its own: pass and skip are summarised)
        counts["skipped"] += 1
        # The waiver's note (expiry, reason, upstream), which waivers.apply appended to
        # the message, is kept in its first waived check only: the same words in each of
        # thousands of elements (the default MPICH run) said nothing more.
        wid, text = r.get("waiver"), r.get("message") or ""
        if wid in waivers and wid in noted:
            text = wvr.without_note(text, waivers[wid])
        noted.add(wid)
        ET.SubElement(
            case,
            "skipped",
            message=_s(f"waived by {wid or 'an unnamed waiver'}: {text}")[:1000],
        )
    # A waived check's case without its fields at the harness's default (the same case:
    # results.short_replay).
    replay = res.short_replay(r) if r["outcome"] == "waived" else res.replay_command(r)
    if replay:
        ET.SubElement(case, "system-out").text = _s("replay: " + replay)
    return seconds


def _summary_case(suite, prefix, ranks, key, rows, counts):
    test, clause, level, outcome, reason = key
    seconds = sum(float(r.get("duration_s") or 0.0) for r in rows)
    n = len(rows)
    plural = "s" if n != 1 else ""
    what = f"{n} check{plural} {'passed' if outcome == 'pass' else 'skipped'}"
    case = ET.SubElement(
        suite,
        "testcase",
        name=_s(f"{test}: {what}" + (f": {reason}" if reason else "")),
        classname=_s(f"{prefix}{ranks}ranks.{test}"),
        time=f"{seconds:.6f}",
    )
    _props(
        case,
        [
            ("clause", clause),
            ("level", level),
            ("outcome", outcome),
            ("checks", str(n)),
            ("first", rows[0]["id"]),
            ("last", rows[-1]["id"]),
        ],
    )
    if outcome == "skip":
        counts["skipped"] += 1
        ET.SubElement(case, "skipped", message=_s(f"skip: {n} checks: {reason}")[:1000])
    return seconds


def render(report):
    run = report["run"]
    waivers = {
        w["id"]: w
        for w in (report.get("waivers") or {}).get("waivers", [])
        if w.get("id")
    }
    noted: set = set()  # the waivers whose note a <skipped> message has given
    groups: dict = {}
    for r in report["records"]:
        family = r["test"].split(".", 1)[0] if r.get("test") else "ordo"
        groups.setdefault((family, r["variant"], r["ranks"]), []).append(r)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    root = ET.Element("testsuites", name=_s(f"ordo {run['vendor']}"))
    for (family, variant, ranks), records in sorted(groups.items()):
        prefix = f"{run['vendor']}." + ("" if variant == "default" else f"{variant}.")
        name = f"{prefix}{family}.{ranks}ranks"
        suite = ET.SubElement(root, "testsuite", name=_s(name))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        _props(
            suite,
            [
                ("vendor", run["vendor"]),
                ("library", res.first_line(run.get("library_version"))),
                ("mpi_version", run.get("mpi_version") or ""),
                ("ranks", str(ranks)),
                ("variant", variant),
                ("ordo_commit", run["git"].get("commit") or ""),
                ("partial", str(report["partial"]).lower()),
                ("checks", str(len(records))),
            ],
        )
        # In record order: each summary element where its first check was.
        summaries: dict = {}
        order: list = []
        for r in records:
            if r["outcome"] in OWN_ELEMENT:
                order.append(("own", r))
                continue
            reason = res.skip_reason(r.get("message")) if r["outcome"] == "skip" else ""
            key = (r["test"], r["clause"], r["level"], r["outcome"], reason)
            if key not in summaries:
                summaries[key] = []
                order.append(("summary", key))
            summaries[key].append(r)
        for kind, item in order:
            counts["tests"] += 1
            if kind == "own":
                counts["time"] += _own_case(
                    suite, prefix, ranks, item, counts, waivers, noted
                )
            else:
                counts["time"] += _summary_case(
                    suite, prefix, ranks, item, summaries[item], counts
                )
        for attr, value in counts.items():
            suite.set(attr, f"{value:.6f}" if attr == "time" else str(value))
            total[attr] += value
    for attr, value in total.items():
        root.set(attr, f"{value:.6f}" if attr == "time" else str(value))
    ET.indent(root)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + ET.tostring(root, encoding="unicode")
        + "\n"
    )


def checks_of(root):
    """The checks a JUnit document of ordo stands for (the "checks" property of each
    testcase; 1 when it has none, as in a JUnit file of ordo before issue #17)."""
    n = 0
    for case in root.iter("testcase"):
        value = next(
            (
                p.get("value")
                for p in case.iter("property")
                if p.get("name") == "checks"
            ),
            "1",
        )
        n += int(value)
    return n

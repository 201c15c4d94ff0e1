r"""TAP (Test Anything Protocol, version 13) view of one run, for CI systems
whose harness reads TAP (MPICH's own test runner, Perl's prove and
TAP::Parser, TAP consumers of GitLab or Jenkins).

One test line per check, in the report's order, after the plan `1..N`:

    pass                       ok N - \#<k>
    skip                       ok N - \#<k> <case> # SKIP <reason>
    waived                     not ok N - \#<k> <case> # TODO waived by <waiver id>
                               (a YAML block gives clause, level, message, replay
                               command with the case's fields at the harness's default
                               left out)
    fail, crash, timeout,      not ok N - <id> [<ranks> ranks] <case>
    corrupt                    (a YAML block gives outcome, clause, level,
                               message and the replay command)

A passing, skipped or waived check's line is numbered under a comment line
`# <test> [<ranks> ranks, variant <v>]`, which opens each run of such
checks of one test, rank count and variant: its id is <test>#<k> (a check
id without a numbered suffix stays whole on its line, as a failure's
does, and the next numbered line opens its group again). A passing check's
line names it and no more (a default run has about 120000 of them): its
case and message are in results.json.gz.

A waived check is a known library bug: the check failed, and a TAP
consumer counts a `not ok` with a TODO directive as an expected failure,
not as a failed test (TAP 13, "TODO tests"), which is what a waiver
means. The directive names the waiver; the YAML block of its first waived
check gives the waiver's reason, upstream report and expiry, and every
block gives the check's message without the note the waiver appended to
it (waivers.apply), which would repeat them. A check that a waiver would
have covered but that now passes never occurs: waived records are
failures by construction. Version 13, not 14: Debian's TAP::Parser (perl
5.36, 3.44) refuses a later version line.

Generated from results.json and from nothing else (views.py)."""
import json

from . import records as rec, results as res, waivers as wvr

FAILED = ("fail", "crash", "timeout", "corrupt")


def _line(value):
    """One line of printable text."""
    return " ".join(rec.printable(value).split())


def _text(value):
    """A test's description: one line, and a '#' that would start a directive
    escaped (TAP: '\\#'). A directive's explanation runs to the end of the
    line and is taken as is (_line)."""
    return _line(value).replace("\\", "\\\\").replace("#", "\\#")


def _yaml(fields):
    """A YAML block (TAP 13 diagnostics): each value as a double-quoted scalar
    (JSON strings are YAML), indented two spaces under its test line."""
    lines = ["  ---"]
    for key, value in fields.items():
        if value in (None, "", []):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            lines.append(f"  {key}: {value}")
        else:
            lines.append(
                f"  {key}: {json.dumps(rec.printable(value), ensure_ascii=False)}"
            )
    lines.append("  ...")
    return lines


def description(r, case=True):
    """<id> [<ranks> ranks, variant <v>] <case>; without the case when case is False (a
    passing check)."""
    variant = (
        "" if r.get("variant", "default") == "default" else f", variant {r['variant']}"
    )
    ranks = f"{r['ranks']} rank{'' if r['ranks'] == 1 else 's'}"
    text = res.case_text(r.get("case")) if case else ""
    return _text(f"{r['id']} [{ranks}{variant}] {text}".strip())


def numbered(check_id):
    """(<test>, <k>) of an id <test>#<k>, or (check_id, None) when it has no numbered
    suffix."""
    test, sep, k = check_id.rpartition("#")
    return (test, k) if sep and test and k.isdigit() else (check_id, None)


def group_comment(r, test):
    """The comment line over a run of passing, skipped or waived checks of one test,
    rank count and variant."""
    return "# " + description({**r, "id": test}, case=False)


def render(report):
    run = report["run"]
    waivers = {
        w["id"]: w
        for w in (report.get("waivers") or {}).get("waivers", [])
        if w.get("id")
    }
    lines = [
        "TAP version 13",
        f"1..{len(report['records'])}",
        (
            f"# ordo {_line(run['vendor'])}:"
            f" {_line(res.first_line(run.get('library_version')))}"
        ),
        "# verdict: "
        + _line(report["summary"].get("headline") or report["summary"]["verdict"]),
    ]
    if report.get("partial"):
        lines.append(
            f"# PARTIAL run: {_line('; '.join(report.get('partial_reasons') or []))}"
        )
    lines.append(
        "# a passing, skipped or waived check's line starts with its number k under '#"
        " <test> [<ranks>]': its id is <test>#k; a passing check's case and message are"
        " in results.json.gz"
    )
    # group: the comment line the numbered lines below it belong to
    group, waivers_given = None, set()
    for n, r in enumerate(report["records"], 1):
        outcome = r["outcome"]
        test, k = numbered(r["id"])
        if outcome in FAILED or k is None:
            # A line with the whole id: the next numbered line opens its group again.
            group = None
            head = f"{n} - {description(r, case=outcome != 'pass')}"
        else:
            comment = group_comment(r, test)
            if comment != group:
                lines.append(comment)
                group = comment
            case = res.case_text(r.get("case")) if outcome != "pass" else ""
            head = f"{n} - " + _text(f"#{k} {case}".strip())
        if outcome == "pass":
            lines.append(f"ok {head}")
        elif outcome == "skip":
            reason = res.first_line(r.get("message")) or "skipped (no reason recorded)"
            lines.append(f"ok {head} # SKIP {_line(reason)}")
        elif outcome == "waived":
            wid = r.get("waiver")
            w = waivers.get(wid, {})
            lines.append(
                f"not ok {head} # TODO waived by {_line(wid or 'an unnamed waiver')}"
            )
            first = wid not in waivers_given
            waivers_given.add(wid)
            # Its outcome is the directive's, its rank count and variant its line's; the
            # waiver's reason, upstream and expiry are in the first block of the waiver,
            # and the note they make at the end of each message (waivers.apply) is left
            # out.
            message = wvr.without_note(r.get("message"), w) if w else r.get("message")
            lines += _yaml(
                {
                    "clause": r.get("clause"),
                    "level": r.get("level"),
                    "routine": r.get("routine"),
                    "message": message,
                    "waiver": wid,
                    **(
                        {
                            "waiver_reason": w.get("reason"),
                            "waiver_upstream": w.get("upstream"),
                            "waiver_expires": w.get("expires"),
                        }
                        if first
                        else {}
                    ),
                    "replay": res.short_replay(r),
                }
            )
        else:  # fail, crash, timeout, corrupt
            lines.append(f"not ok {head}")
            lines += _yaml(
                {
                    "outcome": outcome,
                    "clause": r.get("clause"),
                    "level": r.get("level"),
                    "routine": r.get("routine"),
                    "ranks": r.get("ranks"),
                    "variant": r.get("variant"),
                    "message": r.get("message"),
                    "replay": res.replay_command(r),
                    "reproducer": r.get("reproducer"),
                    "log": r.get("log"),
                }
            )
    return "\n".join(lines) + "\n"

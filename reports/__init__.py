"""ordo's run report and its views.

results.json (one versioned file, schema/results-1.schema.json) is built from
an output folder's run.json and journal.jsonl; every view is generated from it
and from nothing else:

    results.py   build, validate, load results.json; the per-level verdicts
    html.py      the self-contained HTML report and the comparison page
    markdown.py  a summary that fits a merge-request comment
    junit.py     JUnit XML for CI systems (schema/junit.xsd)
    tap.py       TAP version 13 for TAP harnesses (waived checks as TODO tests)
    tracer.py    the combine order of a failing witness.tracer case, as SVG
    gate.py      the regression gate against a baseline, and waiver checks
    package.py   the procurement package (and verify_package.py, its verifier)

Only Debian's packages are used: python3-jsonschema and python3-jinja2.
"""

"""ordo's run report and its views.

results.json.gz (one versioned file, schema/results-2.schema.json, gzip) is
built from an output folder's run.json and journal (journal.jsonl, or
journal.jsonl.gz once the run has ended); every view is
generated from it and from nothing else. results.load is the one reader of a
report (version 2, or a results.json of version 1): every command and view
reads through it.

    results.py   build, validate, store (dump), load a report; the per-level verdicts
    html.py      the self-contained HTML report and the comparison page
    markdown.py  a summary that fits a merge-request comment
    junit.py     JUnit XML for CI systems (schema/junit.xsd)
    tap.py       TAP version 13 for TAP harnesses (waived checks as TODO tests)
    tracer.py    the combine order of a failing witness.tracer case, as SVG
    gate.py      the regression gate against a baseline, and waiver checks
    package.py   the procurement package (and verify_package.py, its verifier)

Only Debian's packages are used: python3-jsonschema and python3-jinja2.
"""

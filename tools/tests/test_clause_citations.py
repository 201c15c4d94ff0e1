"""Every clause cites MPI-4.1 and MPI-5.0 (issue #37): the lint that requires both
citations, and the reports that show both columns and the MPI version the
library claims (no MPI)."""
import copy
import importlib.util
import json
import re
import shutil

from conftest import ROOT, record, run_json, sample_records
from reports import html, markdown, results

CATALOGUE = json.loads((ROOT / "spec" / "clauses.json").read_text())


def _lint():
    spec = importlib.util.spec_from_file_location(
        "lint_clauses", ROOT / "tools" / "lint_clauses.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lint_tree(tmp_path, catalogue):
    """A source tree of one check, one clause, and the given catalogue."""
    (tmp_path / "spec").mkdir(parents=True)
    (tmp_path / "spec" / "clauses.json").write_text(json.dumps(catalogue))
    (tmp_path / "conformance" / "reduce").mkdir(parents=True)
    (tmp_path / "conformance" / "reduce" / "reduce.cpp").write_text(
        'TEST(Reduce, order) {\n  ORDO_CLAUSE("user-op.noncommutative-order",'
        " MUST);\n}\n"
    )
    (tmp_path / "reference").mkdir()
    return tmp_path


# ---- lint ----------------------------------------------------------------------


def test_the_catalogue_cites_mpi50_beside_mpi41_for_every_clause():
    lint = _lint()
    assert lint.citation_errors(CATALOGUE["clauses"]) == []
    assert "MPI-5.0" in CATALOGUE["standard"] and "MPI-4.1" in CATALOGUE["standard"]
    for slug, c in CATALOGUE["clauses"].items():
        assert c.get("section") and (
            c.get("no_section_50") or (c.get("section_50") and c.get("title_50"))
        ), slug


def test_lint_rejects_a_clause_without_its_mpi50_citation(tmp_path, capsys):
    lint = _lint()
    good = {
        "standard": "MPI-4.1 and MPI-5.0",
        "clauses": {
            "user-op.noncommutative-order": copy.deepcopy(
                CATALOGUE["clauses"]["user-op.noncommutative-order"]
            )
        },
    }
    assert lint.main(_lint_tree(tmp_path / "good", good)) == 0
    bad = copy.deepcopy(good)
    c = bad["clauses"]["user-op.noncommutative-order"]
    del c["section_50"], c["title_50"]
    assert lint.main(_lint_tree(tmp_path / "bad", bad)) == 1
    out = capsys.readouterr().out
    assert "'user-op.noncommutative-order' cites no MPI-5.0 section" in out


def test_lint_wants_mpi50s_heading_or_a_reason():
    lint = _lint()
    base = copy.deepcopy(CATALOGUE["clauses"]["reduce.values"])
    no_title = dict(base)
    del no_title["title_50"]
    assert any(
        "without its heading" in e for e in lint.citation_errors({"x": no_title})
    )
    no_41 = dict(base, section="")
    assert any(
        "cites no MPI-4.1 section" in e for e in lint.citation_errors({"x": no_41})
    )
    reason = {k: v for k, v in base.items() if k not in ("section_50", "title_50")}
    assert (
        lint.citation_errors({"x": dict(reason, no_section_50="removed in MPI-5.0")})
        == []
    )
    assert any(
        "empty" in e
        for e in lint.citation_errors({"x": dict(reason, no_section_50=" ")})
    )


def test_a_clause_mpi41_lacks_gives_none_with_a_reason():
    """The standard ABI's clauses (#37): MPI-4.1 has no section for them."""
    lint = _lint()
    abi = copy.deepcopy(CATALOGUE["clauses"]["abi.version"])
    assert abi["section"] == "none" and abi["no_section_41"].strip()
    assert lint.citation_errors({"x": abi}) == []
    del abi["no_section_41"]
    assert any("no_section_41" in e for e in lint.citation_errors({"x": abi}))
    assert any(
        "no_section_41" in e
        for e in lint.citation_errors({"x": dict(abi, no_section_41=" ")})
    )


# ---- reports -------------------------------------------------------------------


def _report(records, clauses=None, **run_extra):
    """A report whose catalogue cites a distinct MPI-5.0 section for two clauses, so a
    column that showed the MPI-4.1 number twice would be caught."""
    if clauses is None:
        clauses = copy.deepcopy(CATALOGUE["clauses"])
        clauses["user-op.noncommutative-order"].update(
            section_50="50.9.5", title_50="Heading in five"
        )
        clauses["allreduce.values"].update(section_50="50.9.6")
    return {
        "schema": results.SCHEMA_V1,
        "generated": {"by": "test", "at": "2026-11-27T00:00:00+00:00"},
        "partial": False,
        "partial_reasons": [],
        "run": run_json(**run_extra),
        "spec": {"standard": "MPI-4.1 and MPI-5.0", "clauses": clauses},
        "waivers": {"source": None, "waivers": []},
        "summary": results.summarize(records, False),
        "records": records,
    }


def _row(page, slug):
    m = re.search(r'<tr id="clause-' + re.escape(slug) + r'">(.*?)</tr>', page, re.S)
    assert m, slug
    return [
        re.sub(r"<[^>]+>", "", c).strip()
        for c in re.findall(r"<td[^>]*>(.*?)</td>", m.group(1), re.S)
    ]


def test_html_clause_table_shows_both_standards_and_the_claimed_version():
    report = _report(sample_records(), mpi_version="4.0")
    assert not results.schema_errors(report), results.schema_errors(report)
    page = html.render(report)
    assert "<th>clause</th><th>MPI-4.1</th><th>MPI-5.0</th>" in page
    assert _row(page, "user-op.noncommutative-order")[1:3] == ["6.9.5", "50.9.5"]
    assert _row(page, "allreduce.values")[1:3] == ["6.9.6", "50.9.6"]
    assert 'title="Heading in five">50.9.5' in page
    # A clause this run did not check, in the folded table, is cited too.
    assert _row(page, "scan.values")[1:3] == [
        "6.11.1",
        CATALOGUE["clauses"]["scan.values"]["section_50"],
    ]
    # The proposal has no MPI-5.0 section and says why.
    assert _row(page, "reduce-locals.assignments")[2] == "proposal"
    claim = (
        "The library claims MPI 4.0 (MPI_Get_version); the clauses are cited from"
        " MPI-4.1 and MPI-5.0."
    )
    assert claim in page
    assert page.index(claim) < page.index('id="clause-user-op.noncommutative-order"')


def test_markdown_clause_table_shows_both_standards_and_the_claimed_version():
    md = markdown.render(_report(sample_records(), mpi_version="3.1"))
    assert "| clause | MPI-4.1 | MPI-5.0 | level | checks | verdict |" in md
    rows = {
        line.split(" | ")[0].strip("| `"): line.split(" | ")
        for line in md.splitlines()
        if line.startswith("| `")
    }
    assert rows["user-op.noncommutative-order"][1:3] == ["6.9.5", "50.9.5"]
    assert rows["allreduce.values"][1:3] == ["6.9.6", "50.9.6"]
    assert (
        "<summary>Clauses checked (4). The library claims MPI 3.1 (MPI_Get_version);"
        " the clauses are cited from MPI-4.1 and MPI-5.0.</summary>" in md
    )
    assert rows["harness.job"][1:3] == ["-", "-"]
    # Only the clauses this run checked, folded away; the footer stays last.
    assert "scan.values" not in md
    assert (
        md.index("<details>")
        < md.index("| clause | MPI-4.1")
        < md.index("</details>")
        < md.index("<sub>")
    )


def test_the_markdown_summary_line_escapes_a_hostile_version():
    md = markdown.render(
        _report(sample_records(), mpi_version="<script>x</script> & `y`")
    )
    line = next(line for line in md.splitlines() if line.startswith("<details>"))
    assert "<script>" not in line and "&lt;script&gt;x&lt;/script&gt; &amp; `y`" in line


def test_a_report_without_a_claimed_version_or_without_mpi50_citations_says_so():
    old = {
        slug: {
            k: v
            for k, v in c.items()
            if k not in ("section_50", "title_50", "no_section_50")
        }
        for slug, c in CATALOGUE["clauses"].items()
    }
    report = _report([record(index=0)], clauses=old, mpi_version="unknown")
    report["spec"]["standard"] = "MPI-4.1"
    page, md = html.render(report), markdown.render(report)
    sentence = (
        "The MPI version the library claims (MPI_Get_version) was not recorded; "
        "the clauses are cited from MPI-4.1."
    )
    assert sentence in page
    assert sentence in md
    assert _row(page, "user-op.noncommutative-order")[1:3] == ["6.9.5", "not cited"]


def test_compare_view_shows_both_standards():
    a = _report(sample_records())
    page = html.render_compare([a, copy.deepcopy(a)], ["a", "b"])
    assert "<th>clause</th><th>MPI-4.1</th><th>MPI-5.0</th>" in page
    assert re.search(
        r"<code>user-op.noncommutative-order</code></td><td>6.9.5</td>"
        r"<td[^>]*>50.9.5</td>",
        page,
    )


def test_results_json_keeps_the_mpi50_citations(tmp_path):
    from conftest import write_run

    out = write_run(tmp_path / "r", [record(index=0)])
    report = results.build(out)
    c = report["spec"]["clauses"]["user-op.noncommutative-order"]
    assert (
        c["section_50"]
        == CATALOGUE["clauses"]["user-op.noncommutative-order"]["section_50"]
    )
    assert report["spec"]["standard"] == CATALOGUE["standard"]
    assert not results.schema_errors(report), results.schema_errors(report)
    shutil.rmtree(out)

"""The documentation: README.md as a front page, docs/ one page per topic.

The options tables are the argument parser's (tools/docs_options.py), every
link reaches its page and heading, and every repository path a page names
in backticks exists.
"""

import re
import shutil

from conftest import ROOT

import docs_options

FRONT_PAGE_LINES = 200
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")


def prose(text):
    """A page without its fenced code blocks."""
    return FENCE.sub("", text)


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page):
    """The anchors of a page's headings, numbered as GitHub numbers repeats."""
    seen, out = {}, set()
    for line in prose(page.read_text()).splitlines():
        m = re.match(r"^#+ (.*)$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            out.add(s if n == 0 else f"{s}-{n}")
            seen[s] = n + 1
    return out


def test_the_options_tables_are_the_parsers():
    """Every command's options table in docs/ is what the parser gives, and
    every command `ordo --help` lists has one."""
    assert docs_options.check() == []


def test_an_options_table_edited_by_hand_or_missing_fails_the_check(tmp_path):
    """The check can fail: a row changed by hand, and a table removed."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    running = tmp_path / "docs" / "running.md"
    text = running.read_text()
    row = next(x for x in text.splitlines() if x.startswith("| `--huge` |"))
    running.write_text(text.replace(row, "| `--huge` | runs the huge cases |"))
    problems = docs_options.check(root=tmp_path)
    assert problems == [
        "docs/running.md: the options of run differ from the parser "
        "(tools/docs_options.py --write)"
    ]
    docs_options.write(root=tmp_path)
    assert docs_options.check(root=tmp_path) == []
    gating = tmp_path / "docs" / "gating-and-ci.md"
    gating.write_text(
        docs_options.MARKER.sub("", gating.read_text()).replace("options:gate", "")
    )
    assert docs_options.check(root=tmp_path) == [
        "no page has the options of `ordo gate`"
    ]


def test_the_readme_is_a_front_page():
    """The README fits on a few screens and links into every page of docs/."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= FRONT_PAGE_LINES
    linked = {m.split("#")[0] for m in LINK.findall(readme)}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in linked, page.name


def test_every_link_reaches_its_page_and_heading():
    for page in PAGES:
        for target in LINK.findall(prose(page.read_text())):
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: {target}"
            assert dest.exists(), where
            if anchor:
                assert anchor in anchors(dest), where


def repo_paths(text):
    """The words of a page's code spans that name a path in this repository:
    they begin with one of its top-level folders or files (build/ and out/,
    made by runs, and placeholders such as <name> left out)."""
    top = {p.name for p in ROOT.iterdir()} - {"build", "out", ".git"}
    for span in CODE.findall(prose(text)):
        for word in span.split():
            word = word.rstrip(".,;:)").lstrip("(")
            if "/" not in word or re.search(r"[<>{}$\[\]]|\.\.\.", word):
                continue
            if word.split("/")[0] in top:
                yield word


def test_every_repository_path_a_page_names_exists():
    missing = []
    for page in PAGES:
        for path in repo_paths(page.read_text()):
            exists = any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()
            if not exists:
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert missing == []


def test_the_path_check_sees_a_stale_path():
    """The path check can fail: the README once cited tools/variants.py."""
    assert list(repo_paths("read from `tools/variants.py`, see `vendors/<name>/`")) == [
        "tools/variants.py"
    ]
    assert not (ROOT / "tools" / "variants.py").exists()


def test_the_front_pages_count_of_findings_is_the_reproducers_count():
    """README.md's "ordo has found N faults so far (M in MPICH ..., K in Open MPI
    ...)" counts the reproducers of vendors/*/findings/: a new finding updates it."""
    text = " ".join((ROOT / "README.md").read_text().split())
    m = re.search(
        r"ordo has found (\d+) faults so far \((\d+) in MPICH [^,]*, (\d+) in Open MPI",
        text,
    )
    assert m, "README.md no longer says how many faults ordo has found"

    def count(vendor):
        return sum(
            1
            for p in (ROOT / "vendors" / vendor / "findings").iterdir()
            if p.suffix in (".c", ".f90", ".F90", ".cpp")
        )

    mpich, openmpi = count("mpich"), count("openmpi")
    assert (int(m.group(2)), int(m.group(3))) == (mpich, openmpi)
    assert int(m.group(1)) == mpich + openmpi

"""The options tables of docs/*.md, generated from ordo's argument parser.

A page holds a command's table between two marker lines:

    <!-- options:run begin -->
    | option | meaning |
    ...
    <!-- options:run end -->

`--write` rewrites every table from the parser (tools/ordo_cli.py
build_parser); `--check` exits 1 and names each table that differs, and each
command that no page documents. tools/tests/test_docs.py runs the check.

    /usr/bin/python3 tools/docs_options.py --check
    /usr/bin/python3 tools/docs_options.py --write
"""

import argparse
import pathlib
import re
import sys

TOOLS = pathlib.Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))

MARKER = re.compile(
    r"^<!-- options:(?P<command>[a-z-]+) begin -->\n"
    r"(?P<table>.*?)"
    r"^<!-- options:(?P=command) end -->$",
    re.S | re.M,
)


def pages(root=ROOT):
    """The pages that may hold tables: README.md and docs/*.md."""
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def subcommands(parser):
    """{name: subparser} of the commands `ordo --help` lists (those with a help
    text; `job`, which CTest runs, has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {a.dest for a in action._choices_actions}
            return {n: p for n, p in action.choices.items() if n in listed}
    return {}


def cell(text):
    """Markdown table cell: pipes escaped, whitespace on one line."""
    return " ".join(str(text).split()).replace("|", "\\|")


def prose_cell(text):
    """A cell of help text: outside its code spans, the characters Markdown
    would read as emphasis or as an HTML tag (`<vendor>`) are escaped."""
    parts = cell(text).split("`")
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = (
            parts[i].replace("*", "\\*").replace("<", "&lt;").replace(">", "&gt;")
        )
    return "`".join(parts)


def spelling(action):
    """How the option is typed: `--ranks RANKS`, `--huge`, `OUT`, `{a,b}`."""
    if action.choices and not action.option_strings:
        return "|".join(action.choices)
    metavar = action.metavar
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    if not action.option_strings:
        name = metavar or action.dest
        return f"{name} ..." if action.nargs in ("*", "+") else name
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    if metavar is None:
        if action.choices:
            metavar = "|".join(action.choices)
        else:
            metavar = action.dest.upper()
    if action.nargs in ("*", "+"):
        metavar = f"{metavar} ..."
    return ", ".join(f"{o} {metavar}" for o in action.option_strings)


def meaning(action):
    """The help text, with the default added when the text does not give it."""
    text = action.help or ""
    if "%(" in text:
        text = text % {"default": action.default, "prog": "ordo"}
    default = action.default
    if (
        action.option_strings
        and action.nargs != 0
        and default not in (None, [], argparse.SUPPRESS)
        and "default" not in text
    ):
        text = f"{text} (default: {default})"
    if action.required and action.option_strings:
        text = f"{text} (required)"
    return text


def table(subparser):
    """The Markdown table of one command's options, in the parser's order."""
    rows = [
        a
        for a in subparser._actions
        if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS
    ]
    if not rows:
        return "It takes no options.\n"
    lines = ["| option | meaning |", "| --- | --- |"]
    for a in rows:
        lines.append(f"| `{cell(spelling(a))}` | {prose_cell(meaning(a))} |")
    return "\n".join(lines) + "\n"


def tables(parser=None):
    """{command: its table} for every listed command."""
    if parser is None:
        import ordo_cli

        parser = ordo_cli.build_parser()
    return {name: table(sub) for name, sub in subcommands(parser).items()}


def render(text, wanted):
    """text with every marked table replaced by the parser's; the commands it
    marks. An unknown command's markers are left alone (reported by check)."""
    seen = []

    def replace(m):
        seen.append(m.group("command"))
        if m.group("command") not in wanted:
            return m.group(0)
        return (
            f"<!-- options:{m.group('command')} begin -->\n"
            f"{wanted[m.group('command')]}"
            f"<!-- options:{m.group('command')} end -->"
        )

    return MARKER.sub(replace, text), seen


def check(root=ROOT, parser=None):
    """The problems, one line each: a table that differs from the parser, a
    marker of no command, a command no page documents."""
    wanted = tables(parser)
    problems, documented = [], set()
    for page in pages(root):
        text = page.read_text()
        new, seen = render(text, wanted)
        rel = page.relative_to(root)
        for command in seen:
            if command not in wanted:
                problems.append(f"{rel}: options:{command} is no command of ordo")
        documented.update(seen)
        if new != text:
            differing = [
                c for c in seen if c in wanted and render_one(text, c) != wanted[c]
            ]
            problems.append(
                f"{rel}: the options of {', '.join(differing)} differ from the "
                "parser (tools/docs_options.py --write)"
            )
    for command in sorted(set(wanted) - documented):
        problems.append(f"no page has the options of `ordo {command}`")
    return problems


def render_one(text, command):
    """The table a page holds for command (the first one)."""
    for m in MARKER.finditer(text):
        if m.group("command") == command:
            return m.group("table")
    return None


def write(root=ROOT, parser=None):
    """Rewrites the tables; the pages changed."""
    wanted = tables(parser)
    changed = []
    for page in pages(root):
        text = page.read_text()
        new, _ = render(text, wanted)
        if new != text:
            page.write_text(new)
            changed.append(page.relative_to(root))
    return changed


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="docs_options.py", description=__doc__.split("\n")[0]
    )
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="exit 1 if a table differs")
    g.add_argument("--write", action="store_true", help="rewrite the tables")
    args = p.parse_args(argv)
    if args.write:
        for page in write():
            print(f"wrote {page}")
        problems = [x for x in check() if "differ" not in x]
    else:
        problems = check()
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

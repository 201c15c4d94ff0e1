"""Writes every view of one report into a folder."""
import pathlib

from . import html, junit, markdown, results, tap

VIEW_FILES = {
    "html": "report.html",
    "markdown": "summary.md",
    "junit": "junit.xml",
    "tap": "report.tap",
}


def write_all(report, dest):
    """report.html, summary.md, junit.xml and report.tap in dest; returns their paths by
    kind."""
    dest = pathlib.Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    content = {
        "html": html.render(report),
        "markdown": markdown.render(report, VIEW_FILES["html"]),
        "junit": junit.render(report),
        "tap": tap.render(report),
    }
    paths = {}
    for kind, text in content.items():
        path = dest / VIEW_FILES[kind]
        try:
            path.write_text(text)
        except OSError as e:
            raise results.ReportError(f"cannot write {path}: {e.strerror}")
        paths[kind] = path
    return paths


def write_for_output_folder(out_dir):
    """results.json (built from run.json + journal.jsonl) and every view, in the output
    folder."""
    report, path = results.write(out_dir)
    paths = write_all(report, out_dir)
    return report, dict(results=path, **paths)

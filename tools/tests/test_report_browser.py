"""The HTML report in headless Chromium: it renders (a screenshot), logs no console
error (any blocked load or script error would be one), and its in-page links work.

Skipped when Chromium is absent (Debian: sudo apt-get install -y chromium).
By default the report is that of a synthetic run; ORDO_BROWSER_RUN=OUT (an output
folder or a results.json) tests a real one. ORDO_SCREENSHOT_DIR=DIR keeps the
screenshots.
"""
import html as htmlmod
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess

import pytest

from conftest import sample_records, write_run
from reports import html, matrix, results

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason=(
        "chromium is not installed, so the HTML report is not "
        "tested in a browser (Debian: sudo apt-get install -y chromium)"
    ),
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTH, HEIGHT = 1400, 2200

LINK_CHECK = """<script>
(function () {
  // Every link must have a target; one link per distinct target is followed (at most
  // 150: Chromium throttles a page that navigates hundreds of times in a few
  // seconds).
  const out = {links: 0, clicked: 0, missing: [], not_target: [], not_visible: []};
  const followed = new Set();
  for (const a of document.querySelectorAll('a[href^="#"]')) {
    out.links++;
    const id = decodeURIComponent(a.getAttribute('href').slice(1));
    const el = document.getElementById(id);
    if (!el) { out.missing.push(id); continue; }
    if (followed.has(id) || followed.size >= 150) continue;
    followed.add(id);
    out.clicked++;
    a.click();
    const target = document.querySelector(':target');
    if (!target || target.id !== id) out.not_target.push(id);
    const box = el.getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= window.innerHeight) out.not_visible.push(id);
  }
  const pre = document.createElement('pre');
  pre.id = 'ordo-link-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def chromium(tmp_path, *args):
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    return subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            f"--window-size={WIDTH},{HEIGHT}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


def console_messages(stderr):
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.fixture
def pages(tmp_path):
    """The report page, a comparison page and a release matrix, written to files."""
    source = os.environ.get("ORDO_BROWSER_RUN")
    report = (
        results.obtain(source)
        if source
        else results.build(write_run(tmp_path / "run", sample_records()))
    )
    other = results.build(
        write_run(
            tmp_path / "other", [dict(r, outcome="pass") for r in sample_records()]
        )
    )
    files = {"report": tmp_path / "report.html", "compare": tmp_path / "compare.html"}
    files["report"].write_text(html.render(report))
    files["compare"].write_text(html.render_compare([report, other], ["run", "other"]))
    files["matrix"] = tmp_path / "matrix.html"
    files["matrix"].write_text(
        html.render_matrix(matrix.build([report, other], ["run", "other"]))
    )
    return files


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("page", ["report", "compare", "matrix"])
def test_the_page_renders_without_console_errors(pages, tmp_path, page):
    shot = tmp_path / f"{page}.png"
    p = chromium(tmp_path, f"--screenshot={shot}", pages[page].as_uri())
    assert shot.is_file(), p.stderr[-2000:]
    assert not console_messages(p.stderr), console_messages(p.stderr)
    data = shot.read_bytes()
    assert png_size(data) == (WIDTH, HEIGHT)
    # A blank page compresses to a few kilobytes; a rendered report with tables and
    # colours does not.
    assert len(data) > 40000, f"the screenshot looks blank ({len(data)} bytes)"
    keep = os.environ.get("ORDO_SCREENSHOT_DIR")
    if keep:
        pathlib.Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy2(shot, pathlib.Path(keep) / shot.name)


@pytest.mark.parametrize("page", ["report", "compare", "matrix"])
def test_every_in_page_link_reaches_its_target(pages, tmp_path, page):
    text = pages[page].read_text()
    # A copy with the checker script; the report itself allows no script at all.
    assert "default-src 'none';" in text and "<script" not in text
    text = text.replace(
        "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';"
    )
    probe = tmp_path / f"{page}-links.html"
    probe.write_text(text.replace("</body>", LINK_CHECK + "\n</body>"))
    p = chromium(tmp_path, "--dump-dom", "--virtual-time-budget=5000", probe.as_uri())
    assert not console_messages(p.stderr), console_messages(p.stderr)
    m = re.search(r'<pre id="ordo-link-check">(.*?)</pre>', p.stdout, re.S)
    assert m, p.stdout[-2000:] + p.stderr[-2000:]
    out = json.loads(htmlmod.unescape(m.group(1)))
    assert out["links"] >= 5 and out["clicked"] >= 5
    assert (
        out["missing"] == [] and out["not_target"] == [] and out["not_visible"] == []
    ), out

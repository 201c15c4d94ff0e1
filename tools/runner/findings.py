"""`ordo findings`: the library faults ordo found, and the text of a bug report
for each.

A finding is a reproducer of vendors/<vendor>/findings/ (a C or Fortran
program); its ID is the file's stem. The waivers of vendors/<vendor>/waivers.json
name it by their "reproducer" path, and carry what ordo knows of it: reason,
upstream, library_versions, variant, test, case, outcome. Only those fields
are read, each may be absent, and outcome may be a word or a list.

`ordo findings` lists the findings: library, waivers, and whether they are
reported upstream (a waiver's "upstream" that begins with "not", "no" or
"none" says it is not). `ordo findings --report ID` writes the Markdown a
library developer wants in a bug report: title, library and release,
platform, the reproducer with how to build and launch it, expected against
observed (the reproducer's own header; with --run also what it did here), the
clause of the standard, and the algorithm or setting that triggers it.
"""
import fnmatch
import pathlib
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from . import ROOT, variants as variants_mod
from .adapters import build_dir_for, expand, launcher_prefix, load_adapter
from .errors import EXIT_OK, OrdoError
from .launch import job_command, outer_timeout

SOURCES = (".c", ".f90")
# An "upstream" text that begins so says the fault is not reported (yet).
NOT_REPORTED = re.compile(r"^\s*(not|no|none)\b", re.I)
# The checks' clauses (as tools/lint_clauses.py reads them).
TEST_RE = re.compile(
    r"^(?:TEST|TEST_F|RC_GTEST_PROP|RC_GTEST_FIXTURE_PROP)\s*\(\s*(\w+)\s*,\s*(\w+)",
    re.M,
)
CLAUSE_RE = re.compile(r'ORDO_CLAUSE\(\s*"([^"]+)"\s*,\s*(\w+)\s*\)')
# A section of the standard a reproducer's header cites: "MPI-4.1 Section 6.10.2",
# "MPI-4.1 6.11.2".
CITED_RE = re.compile(r"MPI-(\d\.\d),?\s+(?:Sections?\s+)?(\d+(?:\.\d+)+)")
TITLE_LIMIT = 140  # characters of the header's first sentence in the title
OUTPUT_LIMIT = 6000  # characters of a run's output kept in the report (its end)


def _read_json(path):
    import json

    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None


def vendor_waivers(vendor_dir):
    """The waivers of a vendor folder (its waivers.json: {"waivers": [...]} or a list);
    [] when none."""
    doc = _read_json(pathlib.Path(vendor_dir) / "waivers.json")
    items = doc.get("waivers") if isinstance(doc, dict) else doc
    return [w for w in items or [] if isinstance(w, dict)]


def outcomes(waiver):
    """A waiver's outcome as a list (a word, a list, or absent: any)."""
    o = waiver.get("outcome")
    if o is None:
        return []
    return [str(x) for x in o] if isinstance(o, list) else [str(o)]


def releases(waiver):
    """A waiver's library_versions as a list (a string, a list, or absent)."""
    v = waiver.get("library_versions")
    if not v:
        return []
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


def is_reported(upstream):
    """Whether a waiver's "upstream" text says the fault is reported: it names
    something and does not begin with not / no / none."""
    return bool(upstream and str(upstream).strip()) and not NOT_REPORTED.match(
        str(upstream)
    )


def find_all(root=ROOT):
    """Every finding: {"id", "vendor", "path" (relative to root), "waivers"}, by vendor
    then ID."""
    out = []
    for vendor_dir in sorted((root / "vendors").glob("*/")):
        folder = vendor_dir / "findings"
        if not folder.is_dir():
            continue
        waivers = vendor_waivers(vendor_dir)
        for src in sorted(p for p in folder.iterdir() if p.suffix in SOURCES):
            rel = src.relative_to(root).as_posix()
            mine = [
                w
                for w in waivers
                if str(w.get("reproducer") or "").strip().lstrip("./") == rel
            ]
            out.append(
                {
                    "id": src.stem,
                    "vendor": vendor_dir.name,
                    "path": rel,
                    "waivers": mine,
                }
            )
    return out


def status(finding):
    """reported, not reported, partly reported (some waivers name an upstream
    report, others not), or no waiver."""
    if not finding["waivers"]:
        return "no waiver"
    seen = {is_reported(w.get("upstream")) for w in finding["waivers"]}
    return (
        "reported"
        if seen == {True}
        else "not reported"
        if seen == {False}
        else "partly reported"
    )


def header(path):
    """The reproducer's leading comment as plain text: a C file's first /* */
    block, a Fortran file's leading ! lines."""
    text = pathlib.Path(path).read_text(errors="replace")
    lines = []
    if pathlib.Path(path).suffix == ".f90":
        for line in text.splitlines():
            if not line.lstrip().startswith("!"):
                break
            lines.append(re.sub(r"^\s*!\s?", "", line))
    else:
        m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
        for line in m.group(1).splitlines() if m else []:
            lines.append(re.sub(r"^\s*\*(?!/)\s?", "", line).rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines:
        lines[0] = lines[0].lstrip()
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def header_commands(text):
    """The reproducer's own build and launch lines (continuations joined):
    (compile lines, launch lines)."""
    logical, current = [], ""
    for line in text.splitlines():
        part = line.strip()
        if part.endswith("\\"):
            current += part[:-1].strip() + " "
            continue
        logical.append((current + part).strip())
        current = ""
    if current:
        logical.append(current.strip())
    compiles = [
        line
        for line in logical
        if re.search(r"\bmpi(cc|fort)\S*\s+\S+\.(c|f90)\b", line)
    ]
    launches = [
        line
        for line in logical
        if re.search(r"(mpiexec\S*\s.*|^|&&\s*)\./(repro|a\.out)\b", line)
    ]
    return compiles, launches


def launch_plan(text):
    """(ranks, program arguments, extra compiler flags) of the header's first
    launch and compile lines: -n N (1 when the line runs the program alone),
    the words after ./repro up to a comment, a note in brackets or a shell
    operator (optional words in [] are left out), and the compile line's own
    flags (-lpthread)."""
    compiles, launches = header_commands(text)
    ranks, args, flags = 2, [], []
    if launches:
        line = launches[0]
        at = re.search(r"\./(repro|a\.out)\b", line)
        assert at, line  # a launch line names the program (launches above)
        # What follows the program up to a gap of two spaces (the header's own remark)
        # are its arguments.
        before, after = line[: at.start()], re.split(r"\s{2,}", line[at.end() :])[0]
        n = re.findall(r"(?:^|\s)-(?:n|np)\s+(\d+)", before)
        ranks = int(n[-1]) if n else (2 if "mpiexec" in before else 1)
        for word in after.split():
            if word.startswith(("#", "(")) or word in ("&&", "||", ";", "|"):
                break
            if word.startswith("[") or "]" in word:
                continue
            args.append(word)
    if compiles:
        words = compiles[0].split("&&")[0].split()
        skip = False
        for word in words[2:]:
            if skip:
                skip = False
            elif word == "-o":
                skip = True
            elif word.startswith("-"):
                flags.append(word)
    return ranks, args, flags


# ---- the clause ---------------------------------------------------------------


def check_clauses(root=ROOT):
    """{GoogleTest name: clause slug} of every check of conformance/."""
    out = {}
    for path in sorted((root / "conformance").rglob("*.cpp")):
        if "harness" in path.parts:
            continue
        text = path.read_text(errors="replace")
        found = list(TEST_RE.finditer(text))
        for i, m in enumerate(found):
            body = text[
                m.end() : found[i + 1].start() if i + 1 < len(found) else len(text)
            ]
            c = CLAUSE_RE.search(body)
            if c:
                out[f"{m.group(1)}.{m.group(2)}"] = c.group(1)
    return out


def clauses_of(finding, head, root=ROOT):
    """The clause(s): [(how found, slug or None, section, title, paraphrase)].
    From the waivers' tests (their checks' ORDO_CLAUSE, spec/clauses.json);
    where no waiver names a test (test "*"), the sections the reproducer's
    header cites, with the clauses of clauses.json of that very section."""
    spec = (_read_json(root / "spec" / "clauses.json") or {}).get("clauses", {})
    by_test = check_clauses(root)
    rows, slugs = [], []
    for w in finding["waivers"]:
        test = str(w.get("test") or "*")
        if test == "*":
            continue
        for name, slug in sorted(by_test.items()):
            if fnmatch.fnmatchcase(name, test) and slug not in slugs:
                slugs.append(slug)
                c = spec.get(slug, {})
                rows.append(
                    (
                        f"the check {name} (waiver {w.get('id')})",
                        slug,
                        c.get("section", "?"),
                        c.get("title", ""),
                        c.get("paraphrase", ""),
                    )
                )
    if rows:
        return rows
    for version, section in dict.fromkeys(CITED_RE.findall(head)):
        exact = [
            (slug, c)
            for slug, c in sorted(spec.items())
            if [s.strip() for s in str(c.get("section", "")).split(",")] == [section]
        ]
        if exact and len(exact) <= 2:
            for slug, c in exact:
                rows.append(
                    (
                        f"cited by the reproducer (MPI-{version} {section})",
                        slug,
                        section,
                        c.get("title", ""),
                        c.get("paraphrase", ""),
                    )
                )
        else:
            # The section's title: the one most of the clauses of that section have.
            pool = [c for _, c in exact] or [
                c
                for c in spec.values()
                if section in [s.strip() for s in str(c.get("section", "")).split(",")]
            ]
            parts = [
                t.strip()
                for c in pool
                for t in str(c.get("title", "")).split(";")
                if t.strip()
            ]
            title = max(sorted(set(parts)), key=parts.count) if parts else ""
            rows.append(
                (
                    f"cited by the reproducer (MPI-{version} {section})",
                    None,
                    section,
                    title,
                    "",
                )
            )
    return rows


# ---- the library, the platform --------------------------------------------------


def _first_line(cmd, timeout=30):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (p.stdout or p.stderr).strip()
    return text.splitlines()[0] if text else None


def package_versions(packages):
    """{package: version} from dpkg-query (absent packages left out)."""
    out: dict = {}
    if not shutil.which("dpkg-query") or not packages:
        return out
    try:
        p = subprocess.run(
            [
                "dpkg-query",
                "-W",
                "-f",
                "${Package} ${Version} ${db:Status-Status}\n",
                *packages,
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return out
    for line in p.stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and words[2] == "installed":
            out[words[0]] = words[1]
    return out


def library_release(adapter):
    """The installed library's release, from the adapter's version command; None when it
    cannot tell."""
    v = adapter.get("version") or {}
    if not v.get("command") or not shutil.which(v["command"][0]):
        return None
    try:
        p = subprocess.run(v["command"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(v.get("pattern", r"(\S+)"), p.stdout + p.stderr)
    return m.group(1) if m else None


def os_release():
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            for line in pathlib.Path(path).read_text().splitlines():
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
        except OSError:
            continue
    return platform.system()


def wrapper_of(adapter, path):
    return adapter["compilers"].get(
        "fortran" if pathlib.Path(path).suffix == ".f90" else "c"
    )


def platform_facts(adapter, path):
    """The platform lines: OS, kernel, compiler, packages."""
    wrapper = wrapper_of(adapter, path)
    compiler = (
        _first_line([wrapper, "--version"])
        if wrapper and shutil.which(wrapper)
        else None
    )
    lang_pkgs = ["gfortran"] if pathlib.Path(path).suffix == ".f90" else ["gcc"]
    return {
        "os": os_release(),
        "kernel": f"Linux {platform.release()} {platform.machine()}",
        "compiler": f"{wrapper}: {compiler}"
        if compiler
        else f"{wrapper}: not installed",
        "packages": package_versions(list(adapter.get("packages", [])) + lang_pkgs),
    }


# ---- the variant ------------------------------------------------------------------


def variants_for(adapter, finding):
    """[(the waiver's variant pattern, [the adapter's variants it names])] of
    the finding's waivers that name one, and the note when the library's
    variants could not be listed (only the adapter's static ones then)."""
    patterns = list(
        dict.fromkeys(str(w["variant"]) for w in finding["waivers"] if w.get("variant"))
    )
    if not patterns:
        return [], None
    note = None
    try:
        known = variants_mod.discover(adapter)
    except variants_mod.VariantError as e:
        note = (
            f"the library's algorithms could not be listed ({e}); only the adapter's"
            " static variants are shown"
        )
        try:
            known = variants_mod.finish(adapter, [])
        except variants_mod.VariantError:
            known = []
    return [
        (p, [v for v in known if fnmatch.fnmatchcase(v["name"], p)]) for p in patterns
    ], note


def run_variant(finding, matched, chosen=None):
    """The variant a --run uses: `chosen` (a name, or "default"); else none
    when a waiver of the finding names no variant (the library's own choice
    shows it), else the first variant the first waiver's pattern names."""
    known = [v for _, vs in matched for v in vs]
    if chosen:
        if chosen == "default":
            return None
        for v in known:
            if v["name"] == chosen:
                return v
        raise OrdoError(
            f"--variant {chosen}: not a variant the finding's waivers name "
            f"({', '.join(v['name'] for v in known) or 'none'})"
        )
    if not matched or any(not w.get("variant") for w in finding["waivers"]):
        return None
    return matched[0][1][0] if matched[0][1] else None


# ---- building and running the reproducer --------------------------------------------


def _display(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def variant_env(adapter, variant):
    """The variant's variables, their templates ({root}: a tuning file of
    the checkout) expanded."""
    build = build_dir_for(adapter)
    return {k: expand(v, build) for k, v in ((variant or {}).get("env") or {}).items()}


def launch_words(adapter, variant, ranks, args):
    """The launch of ./repro under the adapter's launcher with its flags and
    the variant's variables, for a person to type (the command by name; the
    adapter's launch settings, ordo's own, are not applied: the report shows
    the library alone)."""
    env = variant_env(adapter, variant)
    prefix = launcher_prefix(adapter, build_dir_for(adapter), env)
    command = adapter["launcher"]["command"]
    prefix = [
        command if pathlib.Path(w).name == pathlib.Path(command).name else w
        for w in prefix
    ]
    return job_command(adapter, prefix, ranks, "./repro", timeout=None, flags=args)


def build_and_run(adapter, finding, variant, ranks, args, flags, timeout):
    """Compiles the reproducer with the adapter's wrapper and runs it under
    the adapter's launcher (flock when ORDO_MPI_LOCK is set, `timeout`):
    {"compile", "compile_rc", "compile_output", "command", "rc", "output", "timed_out"}.
    """
    src = ROOT / finding["path"]
    wrapper = wrapper_of(adapter, src)
    if not wrapper or not shutil.which(wrapper):
        raise OrdoError(
            f"{wrapper or 'a compiler wrapper'} not found: the"
            f" {adapter['name']} library is not installed (install it with: sudo"
            f" apt-get install -y {' '.join(adapter.get('packages', []))})"
        )
    if not shutil.which(adapter["launcher"]["command"]):
        raise OrdoError(
            f"{adapter['launcher']['command']} not found: the {adapter['name']} library"
            " is not installed"
        )
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"ordo-finding-{finding['id']}-"))
    try:
        exe = work / "repro"
        compile_cmd = [wrapper, str(src), "-o", str(exe)] + flags
        try:
            c = subprocess.run(
                compile_cmd, capture_output=True, text=True, timeout=300, cwd=work
            )
            compile_rc, compile_out = c.returncode, (c.stdout + c.stderr).strip()
        except subprocess.TimeoutExpired:
            compile_rc, compile_out = None, "the compiler did not finish in 300 s"
        result = {
            "compile": [wrapper, src.name, "-o", "repro"] + flags,
            "compile_rc": compile_rc,
            "compile_output": compile_out,
            "command": None,
            "rc": None,
            "output": "",
            "timed_out": False,
        }
        if compile_rc != 0:
            return result
        env = variant_env(adapter, variant)
        prefix = launcher_prefix(adapter, build_dir_for(adapter), env)
        cmd = job_command(adapter, prefix, ranks, exe, timeout=timeout, flags=args)
        result["command"] = launch_words(adapter, variant, ranks, args)
        try:
            p = subprocess.run(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
                errors="replace",
                cwd=work,
                timeout=outer_timeout(cmd, timeout + 30),
            )
            result["rc"], result["output"] = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            result["rc"], result["output"] = (
                None,
                (e.stdout or "") if isinstance(e.stdout, str) else "",
            )
        result["timed_out"] = result["rc"] in (124, 137) or result["rc"] is None
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- the report ------------------------------------------------------------------


def title_of(finding, head, adapter, release):
    """The report's title: the library, its release and the header's first
    sentence (without a leading "Finding:")."""
    text = re.sub(r"\s+", " ", head).strip()
    text = re.sub(
        r"^(Findings?|Reproducer)\b(\s*\([^()]*\))?\s*:\s*", "", text, flags=re.I
    )
    m = re.search(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.!?](\s|$)", text)
    # the first sentence, without asides
    first = re.sub(r"\s+\([^()]*\)", "", text[: m.start()] if m else text)
    if len(first) > TITLE_LIMIT:
        first = first[:TITLE_LIMIT].rsplit(" ", 1)[0].rstrip(",;:") + " ..."
    library = (
        (adapter.get("description") or adapter["name"])
        .split(" from ")[0]
        .split(",")[0]
        .strip()
    )
    if release and release not in first:
        library = f"{library} {release}"
    return (
        first
        if first.lower().startswith(library.split()[0].lower())
        else f"{library}: {first}"
    )


def _fence(text, lang=""):
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def report(finding, run=False, timeout=60, chosen_variant=None):
    """The Markdown of one finding's bug report."""
    adapter = load_adapter(finding["vendor"])
    src = ROOT / finding["path"]
    head = header(src)
    waivers = finding["waivers"]
    installed = library_release(adapter)
    named = list(dict.fromkeys(v for w in waivers for v in releases(w)))
    release = named[0] if len(named) == 1 else installed
    facts = platform_facts(adapter, src)
    matched, variant_note = variants_for(adapter, finding)
    variant = run_variant(finding, matched, chosen_variant)
    ranks, args, flags = launch_plan(head)
    lang = "fortran" if src.suffix == ".f90" else "c"
    wrapper = wrapper_of(adapter, src)
    lines = [f"# {title_of(finding, head, adapter, release)}", ""]
    lines += [
        (
            f"- **Library**: {adapter.get('description') or adapter['name']};"
            f" release{'s' if len(named) > 1 else ''} with the fault:"
            f" {', '.join(named) or 'not named by a waiver'}; installed here:"
            f" {installed or 'unknown (the version command gave nothing)'}"
        ),
        f"- **Platform**: {facts['os']}; {facts['kernel']}; {facts['compiler']}",
        "- **Packages**: "
        + (
            ", ".join(f"{k} {v}" for k, v in facts["packages"].items())
            or "none found by dpkg-query"
        ),
        f"- **Upstream**: {status(finding)}"
        + "".join(
            f"\n  - {u}"
            for u in dict.fromkeys(
                str(w.get("upstream")) for w in waivers if w.get("upstream")
            )
        ),
        (
            f"- **Found by**: ordo (finding `{finding['id']}`, reproducer"
            f" `{finding['path']}`)"
        ),
        "",
    ]
    reasons = list(dict.fromkeys(str(w["reason"]) for w in waivers if w.get("reason")))
    if reasons:
        lines += ["## Summary", ""] + [f"- {r}" for r in reasons] + [""]
    lines += [
        "## Reproducer",
        "",
        f"`{src.name}`:",
        "",
        _fence(src.read_text(errors="replace"), lang),
        "",
    ]
    lines += ["### Build and launch", ""]
    show = [_display([wrapper, src.name, "-o", "repro"] + flags)]
    show.append(_display(launch_words(adapter, variant, ranks, args)))
    lines += [_fence("\n".join(show), "sh"), ""]
    of_variant = (
        ", with the variables of the variant " + variant["name"] if variant else ""
    )
    lines.append(
        "(the library's own wrapper and"
        f" launcher{of_variant};"
        f" {ranks} process{'es' if ranks != 1 else ''} and the arguments of the"
        " reproducer's first launch line)"
    )
    compiles, launches = header_commands(head)
    if launches:
        lines += [
            "",
            "The reproducer's own lines (other process counts and arguments):",
            "",
            _fence("\n".join(compiles + launches), "sh"),
        ]
    lines += [
        "",
        "## Expected against observed",
        "",
        "The reproducer's own account (its header):",
        "",
    ]
    lines += ["> " + line if line.strip() else ">" for line in head.splitlines()] + [""]
    kinds = list(dict.fromkeys(o for w in waivers for o in outcomes(w)))
    if kinds:
        lines += [
            f"What ordo's checks recorded: {', '.join(kinds)} (the waivers' outcomes).",
            "",
        ]
    if run:
        r = build_and_run(adapter, finding, variant, ranks, args, flags, timeout)
        lines += ["### Observed here", ""]
        lines += [
            f"Built with `{_display(r['compile'])}`: "
            + (
                "ok"
                if r["compile_rc"] == 0
                else f"failed (exit status {r['compile_rc']})"
            )
        ]
        if r["compile_rc"] != 0:
            lines += ["", _fence(r["compile_output"][-OUTPUT_LIMIT:] or "(no output)")]
        else:
            if r["compile_output"]:
                lines += ["", _fence(r["compile_output"][-OUTPUT_LIMIT:])]
            how = (
                f"ended by the time limit ({timeout} s; exit status {r['rc']})"
                if r["timed_out"]
                else f"exit status {r['rc']}"
                + (
                    f" (killed by signal {r['rc'] - 128})"
                    if r["rc"] and r["rc"] > 128
                    else f" (signal {-r['rc']})"
                    if r["rc"] and r["rc"] < 0
                    else ""
                )
            )
            out = r["output"] or "(no output)"
            cut = len(out) > OUTPUT_LIMIT
            lines += [
                "",
                f"Ran `{_display(r['command'])}`: **{how}**. Its output"
                + (f" (the last {OUTPUT_LIMIT} characters)" if cut else "")
                + ":",
                "",
                _fence(out[-OUTPUT_LIMIT:]),
            ]
        lines.append("")
    lines += ["## The clause of the standard", ""]
    rows = clauses_of(finding, head)
    if rows:
        for how, slug, section, title, paraphrase in rows:
            lines.append(
                f"- MPI-4.1 §{section} {title}"
                + (f" (ordo clause `{slug}`)" if slug else "")
                + (f": {paraphrase}" if paraphrase else "")
                + f" — {how}"
            )
    else:
        lines.append(
            "- not found: no waiver names a check, and the reproducer cites no section"
        )
    lines += ["", "## What triggers it", ""]
    if matched:
        for pattern, found in matched:
            lines.append(
                f"- the algorithm variant{'s' if len(found) != 1 else ''} `{pattern}`:"
            )
            for v in found:
                env = " ".join(f"{k}={val}" for k, val in (v.get("env") or {}).items())
                lines.append(f"  - `{v['name']}`: `{env}` ({v.get('source', '')})")
            if not found:
                lines.append("  - (no variant of the installed library has that name)")
        if any(not w.get("variant") for w in waivers):
            lines.append(
                "- and the library's own choice of algorithm (a waiver names no"
                " variant)"
            )
        if variant_note:
            lines.append(f"- note: {variant_note}")
    else:
        lines.append(
            "- the library's own choice of algorithm (no waiver names an algorithm"
            " variant)"
        )
    cases = [
        w.get("case")
        for w in waivers
        if isinstance(w.get("case"), dict) and w.get("case")
    ]
    import json

    for case in list({json.dumps(c, sort_keys=True): c for c in cases}.values()):
        lines.append(
            f"- the calls the waivers match: `{json.dumps(case, sort_keys=True)}`"
        )
    lines += ["", "## ordo's waivers of it", ""]
    for w in waivers:
        parts = [
            f"outcome {'/'.join(outcomes(w)) or 'any'}",
            f"test `{w.get('test', '*')}`",
        ]
        if w.get("variant"):
            parts.append(f"variant `{w['variant']}`")
        if releases(w):
            parts.append(f"release {', '.join(releases(w))}")
        lines.append(f"- `{w.get('id', '?')}`: " + ", ".join(parts))
    if not waivers:
        lines.append("- none")
    return "\n".join(lines) + "\n"


def cmd_findings(args):
    """`ordo findings` without --recheck (ordo_cli dispatches --recheck to
    runner.recheck, which imports this module)."""
    found = find_all()
    if not args.report:
        if args.run or args.out or args.variant:
            raise OrdoError("--run, --variant and --out go with --report ID")
        width = max((len(f["id"]) for f in found), default=10)
        print(f"{'finding':{width}}  {'library':8}  {'upstream':16}  waivers")
        for f in found:
            ids = ", ".join(str(w.get("id", "?")) for w in f["waivers"]) or "-"
            print(f"{f['id']:{width}}  {f['vendor']:8}  {status(f):16}  {ids}")
        todo = sum(status(f) != "reported" for f in found)
        print(
            f"{len(found)} findings, {todo} not (or not wholly) reported upstream: "
            "`./ordo findings --report ID` writes the report"
        )
        return EXIT_OK
    match = [f for f in found if f["id"] == args.report]
    if not match:
        raise OrdoError(
            f"unknown finding '{args.report}': `./ordo findings` lists them"
        )
    if len(match) > 1:
        raise OrdoError(
            f"finding '{args.report}' is in several vendors"
            f" ({', '.join(f['vendor'] for f in match)})"
        )
    text = report(
        match[0], run=args.run, timeout=args.timeout, chosen_variant=args.variant
    )
    if args.out:
        try:
            pathlib.Path(args.out).write_text(text)
        except OSError as e:
            raise OrdoError(f"cannot write {args.out}: {e.strerror}")
        print(f"ordo: the report of {args.report} is in {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK

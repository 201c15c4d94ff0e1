"""The lint steps of `ordo test`: Debian's black, flake8, mypy and shellcheck over
the files git tracks, each a named step whose failure fails the test command (as
CTest's lint.clang_format does for the C and C++). .pre-commit-config.yaml runs the
same tools with the same settings (pyproject.toml, .flake8)."""

import os
import pathlib
import shutil
import subprocess
import time

from . import ROOT
from .errors import OrdoError

# The tools, each the Debian package of the same name (tools/install-deps.sh
# --with-test-tools installs them).
TOOLS = ("black", "flake8", "mypy", "shellcheck")
# mypy reads these (pyproject.toml [tool.mypy]); the rest of the Python is
# formatted and linted only.
MYPY_PATHS = ("reports", "tools/runner")
# Folders of a copy without git whose files are not the project's.
NOT_OURS = {
    "build",
    "out",
    "cache",
    ".git",
    ".mypy_cache",
    ".pytest_cache",
    "__pycache__",
}
SHELLS = ("sh", "bash", "dash")
# What to do about a step's failure, after the tool's own lines.
FIX = {
    "black": "run: black <file> (Debian's black 23, pyproject.toml)",
    "flake8": "fix the lines above (.flake8: black wraps code, not strings)",
    "mypy": "fix the errors above (pyproject.toml [tool.mypy])",
    "shellcheck": "fix the lines above (shellcheck's wiki explains each SC code)",
}


def tracked(root=ROOT):
    """The files git tracks in root, relative to it; every file outside the folders
    of NOT_OURS in a copy without git."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if out.returncode == 0 and out.stdout:
            return sorted(pathlib.Path(p) for p in out.stdout.split("\0") if p)
    except (OSError, subprocess.TimeoutExpired):
        pass
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_OURS]
        found += [pathlib.Path(folder, f).relative_to(root) for f in files]
    return sorted(found)


def python_files(root=ROOT):
    return [p for p in tracked(root) if p.suffix == ".py"]


def is_shell_script(path):
    """A .sh file, or one whose #! line runs sh, bash or dash."""
    if path.suffix == ".sh":
        return True
    try:
        with open(path, "rb") as f:
            first = f.readline(200).decode("ascii", errors="replace")
    except OSError:
        return False
    if not first.startswith("#!"):
        return False
    words = first[2:].split()
    if words and pathlib.PurePath(words[0]).name == "env":
        words = words[1:]
    return bool(words) and pathlib.PurePath(words[0]).name in SHELLS


def shell_scripts(root=ROOT):
    return [p for p in tracked(root) if is_shell_script(pathlib.Path(root) / p)]


def steps(root=ROOT, python=None, shell=None, typed=None):
    """[(name, command)] of the lint steps, run in root: by default over the files
    git tracks there (and mypy over MYPY_PATHS)."""
    python = [str(p) for p in (python_files(root) if python is None else python)]
    shell = [str(p) for p in (shell_scripts(root) if shell is None else shell)]
    typed = [str(p) for p in (MYPY_PATHS if typed is None else typed)]
    return [
        ("black", ["black", "--check", *python]),
        ("flake8", ["flake8", *python]),
        ("mypy", ["mypy", *typed]),
        ("shellcheck", ["shellcheck", *shell]),
    ]


def require_tools(which=shutil.which):
    """One clear line (exit 2) when a lint tool is not installed."""
    missing = [tool for tool in TOOLS if which(tool) is None]
    if missing:
        raise OrdoError(
            f"{', '.join(missing)} not found: the lint steps of `ordo test` need"
            f" Debian's {' '.join(TOOLS)} (install them with: sudo apt-get install -y"
            f" {' '.join(missing)}, or tools/install-deps.sh --with-test-tools)"
        )


def run_steps(root=ROOT, **files):
    """Runs every lint step in root; [(name, exit code, seconds)]."""
    results = []
    for name, cmd in steps(root, **files):
        t0 = time.time()
        print(f"ordo: lint {name}", flush=True)
        rc = subprocess.call(cmd, cwd=str(root))
        if rc != 0:
            print(f"  lint {name} failed (exit {rc}): {FIX[name]}", flush=True)
        results.append((f"lint {name}", rc, time.time() - t0))
    return results

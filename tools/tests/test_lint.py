"""The lint steps of `ordo test` (runner/lint.py): black, flake8, mypy and
shellcheck, each a step that passes on a clean file and fails on a bad one, run
by the test command, installed by install-deps.sh and mirrored by the pre-commit
configuration."""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from runner import lint, selftest  # noqa: E402

NAMES = ["black", "flake8", "mypy", "shellcheck"]

GOOD_PY = "x: int = 1\n"
GOOD_SH = '#!/bin/sh\necho "$1"\n'
# Each bad file breaks the rule of one tool (and may break others').
BAD = {
    "black": ("py", "x: int=1\n"),
    "flake8": ("py", 'x = "' + "a" * 90 + '"\n'),  # E501 at .flake8's 88 columns
    "mypy": ("py", 'x: int = "one"\n'),
    "shellcheck": ("sh", "#!/bin/sh\necho $1\n"),  # SC2086: unquoted
}


def need_tools():
    missing = [t for t in lint.TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (tools/install-deps.sh)")


def run(python, shell, typed):
    out = lint.run_steps(ROOT, python=python, shell=shell, typed=typed)
    return {name: rc for name, rc, _ in out}


def test_the_lint_steps_are_black_flake8_mypy_and_shellcheck_over_every_tracked_file():
    names = [name for name, _ in lint.steps()]
    assert names == NAMES
    cmds = dict(lint.steps())
    tracked = [str(p) for p in lint.tracked()]
    py = sorted(p for p in tracked if p.endswith(".py"))
    assert "tools/runner/lint.py" in py and "tools/runner/run.py" in py
    assert sorted(cmds["black"][2:]) == py and cmds["black"][:2] == ["black", "--check"]
    assert sorted(cmds["flake8"][1:]) == py
    assert cmds["mypy"] == ["mypy", "reports", "tools/runner"]
    shell = set(cmds["shellcheck"][1:])
    assert {
        "ordo",
        ".ci/run",
        "tools/install-deps.sh",
        "tools/slurm/cluster.sh",
        "vendors/launchers/virtual-node-agent.sh",
    } <= shell
    # Every tracked file whose #! line names a shell is among them, and no other.
    for p in tracked:
        first = (ROOT / p).read_bytes()[:100].split(b"\n")[0]
        names_shell = re.match(rb"#!\S*/(env )?(ba|da)?sh\b", first) is not None
        assert (p in shell) == (names_shell or p.endswith(".sh")), p


@pytest.mark.parametrize("tool", NAMES)
def test_each_lint_step_passes_a_clean_file_and_fails_a_bad_one(tool, tmp_path):
    need_tools()
    good_py, good_sh = tmp_path / "good.py", tmp_path / "good.sh"
    good_py.write_text(GOOD_PY)
    good_sh.write_text(GOOD_SH)
    clean = run([good_py], [good_sh], [good_py])
    assert clean == {f"lint {n}": 0 for n in NAMES}
    kind, text = BAD[tool]
    bad = tmp_path / f"bad.{kind}"
    bad.write_text(text)
    py = [bad] if kind == "py" else [good_py]
    sh = [bad] if kind == "sh" else [good_sh]
    found = run(py, sh, py)
    assert found[f"lint {tool}"] != 0, found


def test_a_bad_file_fails_the_test_command_and_its_table_names_the_step(
    tmp_path, monkeypatch, capsys
):
    need_tools()
    bad = tmp_path / "bad.py"
    bad.write_text(BAD["flake8"][1])
    monkeypatch.setattr(lint, "python_files", lambda root: [bad])
    monkeypatch.setattr(lint, "MYPY_PATHS", (str(bad),))
    args = argparse.Namespace(vendors=None, sanitize_only=False, lint_only=True)
    assert selftest.cmd_test(args) == selftest.EXIT_FAIL
    table = capsys.readouterr().out
    for name in NAMES:
        status = "FAIL" if name == "flake8" else "pass"
        assert re.search(rf"^lint {name} +{status} ", table, re.M), table


def test_a_missing_lint_tool_is_one_line_and_exit_2():
    p = subprocess.run(
        [
            "/usr/bin/python3",
            str(ROOT / "tools" / "ordo_cli.py"),
            "test",
            "--lint-only",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/nonexistent", "HOME": os.environ.get("HOME", "/tmp")},
    )
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ordo: "), p.stderr
    for tool in NAMES:
        assert tool in lines[0]


def test_install_deps_installs_the_lint_tools_with_the_test_tools():
    text = (ROOT / "tools" / "install-deps.sh").read_text()
    line = re.search(r"--with-test-tools\) packages\+=\(([^)]*)\)", text)
    assert line, "no --with-test-tools package list"
    assert set(NAMES) | {"clang-format"} <= set(line.group(1).split())


def test_the_pre_commit_hooks_run_the_same_tools_offline():
    yaml = pytest.importorskip("yaml", reason="python3-yaml not installed")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    repos = config["repos"]
    assert [r["repo"] for r in repos] == ["local"]
    hooks = {h["id"]: h for h in repos[0]["hooks"]}
    assert set(hooks) == set(NAMES) | {"clang-format"}
    assert all(h["language"] == "system" for h in hooks.values())
    steps = dict(lint.steps(python=[], shell=[]))
    for name in NAMES:
        assert hooks[name]["entry"].split() == steps[name], name
    assert hooks["clang-format"]["entry"].split() == [
        "clang-format",
        "--dry-run",
        "--Werror",
    ]
    assert hooks["mypy"]["pass_filenames"] is False

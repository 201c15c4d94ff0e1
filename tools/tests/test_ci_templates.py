"""The CI templates for vendors (.github/workflows/ordo-conformance.yml, a
reusable GitHub Actions workflow; ci/gitlab/ordo-conformance.yml, a GitLab CI
template with inputs): parsed with python3-yaml, checked against schemas of
the keys each format allows (ci/schema/, written for ordo from the formats'
documentation), every input they use declared, and every `./ordo` command
line in their scripts accepted by ordo's own argument parser, with the
inputs' defaults (or a sample value for a required input) in place of the
variables (no MPI needed)."""
import json
import pathlib
import re
import shlex

import jsonschema
import pytest

yaml = pytest.importorskip(
    "yaml", reason="python3-yaml is missing (tools/install-deps.sh --with-test-tools)"
)

import ordo_cli  # noqa: E402  (tools/ on sys.path: conftest.py)
from runner.arguments import parse_env, parse_ranks  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
GITHUB = ROOT / ".github" / "workflows" / "ordo-conformance.yml"
GITLAB = ROOT / "ci" / "gitlab" / "ordo-conformance.yml"
SCHEMAS = ROOT / "ci" / "schema"
# What a required input without a default stands for when a command line is checked.
SAMPLES = {
    "vendor-adapter": "ci/adapter.json",
    "vendor_adapter": "ci/adapter.json",
    "mpi-repository": "https://example.org/mpi.git",
    "mpi_repository": "https://example.org/mpi.git",
    "mpi-ref": "main",
    "mpi_ref": "main",
    "ordo-repository": "site/ordo",
    "ordo_repository": "site/ordo",
}


def validator(name, part=None):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    if part:
        schema = {
            "$schema": schema["$schema"],
            "$defs": schema["$defs"],
            "$ref": f"#/$defs/{part}",
        }
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def errors_of(v, document):
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in sorted(v.iter_errors(document), key=lambda e: list(e.absolute_path))
    ]


def github_workflow(text=None):
    doc = yaml.safe_load(GITHUB.read_text() if text is None else text)
    if True in doc:  # YAML 1.1 reads the key `on` as a boolean
        doc["on"] = doc.pop(True)
    return doc


def gitlab_template(text=None):
    docs = list(yaml.safe_load_all(GITLAB.read_text() if text is None else text))
    assert len(docs) == 2, "a header (spec:inputs), '---', then the configuration"
    return docs


def substitute(text, variables):
    def value(match):
        name = match.group(1) or match.group(2)
        return variables.get(name, f"/sample/{name.lower()}")

    return re.sub(
        r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", value, text
    )


def script_commands(script, variables):
    """The `./ordo ...` command lines of a shell script, each as its words,
    variables replaced by their values: the job's, and the script's own
    plain assignments (name="value" on a line of its own) as they come;
    unknown ones by a sample word."""
    commands = []
    variables = dict(variables)
    for line in script.replace("\\\n", " ").splitlines():
        line = line.strip()
        assignment = re.fullmatch(r'([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"', line)
        if assignment:
            variables[assignment.group(1)] = substitute(assignment.group(2), variables)
            continue
        m = re.search(r"(?:^|[;&|(]\s*|\bthen\s+|&&\s*)(\./ordo\s.*)$", line)
        if not m:
            continue
        command = re.split(r"\s(?:\|\||&&|;)\s|\s\|\s", m.group(1))[0]
        commands.append(shlex.split(substitute(command, variables)))
    return commands


def accepted(words):
    """The parsed arguments of `./ordo WORDS`, or the parser's one-line error."""
    assert words[0] == "./ordo"
    try:
        args = ordo_cli.build_parser().parse_args(words[1:])
    except SystemExit as e:
        pytest.fail(f"ordo's parser refused {shlex.join(words)} (exit {e.code})")
    if getattr(args, "ranks", None) is not None and args.command == "run":
        parse_ranks(args.ranks)
    if getattr(args, "env", None):
        parse_env(args.env)
    return args


def github_inputs(doc):
    return doc["on"]["workflow_call"]["inputs"]


def github_variables(doc):
    """The job's variables with each `${{ inputs.X }}` at the input's default (or its
    sample)."""
    inputs = github_inputs(doc)
    out = {}
    for job in doc["jobs"].values():
        for name, value in (job.get("env") or {}).items():
            m = re.fullmatch(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}", str(value))
            out[name] = (
                str(
                    inputs[m.group(1)].get("default", SAMPLES.get(m.group(1), "sample"))
                )
                if m
                else str(value)
            )
    return out


def gitlab_variables(header, config):
    inputs = header["spec"]["inputs"]
    out = {}
    for job in (v for k, v in config.items() if isinstance(v, dict) and "script" in v):
        for name, value in (job.get("variables") or {}).items():
            m = re.fullmatch(r"\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]", str(value))
            out[name] = (
                str(
                    (inputs[m.group(1)] or {}).get(
                        "default", SAMPLES.get(m.group(1), "sample")
                    )
                )
                if m
                else str(value)
            )
    return out


def gitlab_scripts(config):
    for job in (v for v in config.values() if isinstance(v, dict) and "script" in v):
        for key in ("before_script", "script", "after_script"):
            part = job.get(key) or []
            yield from ([part] if isinstance(part, str) else part)


def like_with_like(gate):
    """The gate of a template accepts (by default) only the change of library it is for:
    the library at the ref against the baseline of an earlier build; the baseline's rank
    counts and variants must be the run's.
    """
    assert (
        gate.accept_library_change
        and not gate.accept_ranks_change
        and not gate.accept_variants_change
    )
    assert gate.accept_waiver == []


# ---- GitHub Actions -------------------------------------------------------------


def test_the_github_workflow_follows_the_workflow_syntax():
    assert errors_of(validator("github-workflow"), github_workflow()) == []


def test_the_github_workflow_is_reusable_with_the_inputs_a_vendor_gives():
    doc = github_workflow()
    inputs = github_inputs(doc)
    for name in (
        "mpi-repository",
        "mpi-ref",
        "configure-flags",
        "vendor-adapter",
        "baseline",
    ):
        assert name in inputs, name
    assert inputs["mpi-repository"]["required"] and inputs["vendor-adapter"]["required"]
    assert inputs["baseline"].get("default") == ""  # no baseline: no gate
    # every input used anywhere is declared, and every declared one is used
    used = set(re.findall(r"\binputs\.([A-Za-z0-9_-]+)", GITHUB.read_text()))
    assert used == set(inputs), used ^ set(inputs)


def test_the_github_workflow_builds_runs_gates_and_publishes():
    doc = github_workflow()
    steps = doc["jobs"]["conformance"]["steps"]
    runs = [s.get("run", "") for s in steps]
    words = [w for run in runs for w in script_commands(run, github_variables(doc))]
    assert any("./configure" in run and "make install" in run for run in runs)
    commands = [accepted(w) for w in words]
    assert [a.command for a in commands] == ["run", "gate", "report"]
    run, gate = commands[0], commands[1]
    assert run.vendor and run.out and gate.baseline and gate.new == run.out
    like_with_like(gate)
    uploads = [
        s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")
    ]
    assert (
        uploads
        and uploads[0]["if"] == "${{ always() }}"
        and uploads[0]["with"]["path"] == "ordo-out/run"
    )


def test_every_ordo_line_of_the_github_workflow_is_accepted_by_ordos_parser():
    doc = github_workflow()
    lines = [
        w
        for s in doc["jobs"]["conformance"]["steps"]
        for w in script_commands(s.get("run", ""), github_variables(doc))
    ]
    assert len(lines) == 3
    for words in lines:
        accepted(words)


def test_the_checks_fail_on_a_broken_workflow():
    doc = github_workflow()
    broken = json.loads(json.dumps(doc))
    broken["jobs"]["conformance"]["steps"][0]["runs"] = "typo"
    assert any("runs" in e for e in errors_of(validator("github-workflow"), broken))
    broken = json.loads(json.dumps(doc))
    broken["on"]["workflow_call"]["inputs"]["ranks"]["type"] = "int"
    assert errors_of(validator("github-workflow"), broken)
    with pytest.raises(pytest.fail.Exception, match="refused"):
        accepted(["./ordo", "run", "--vendr", "x"])
    with pytest.raises(Exception, match="--ranks"):
        accepted(["./ordo", "run", "--ranks", "two"])


# ---- GitLab CI -------------------------------------------------------------------


def test_the_gitlab_template_follows_the_ci_syntax():
    header, config = gitlab_template()
    assert errors_of(validator("gitlab-ci", "header"), header) == []
    assert errors_of(validator("gitlab-ci", "config"), config) == []


def test_the_gitlab_template_takes_the_inputs_a_vendor_gives_and_uses_only_those():
    header, _ = gitlab_template()
    inputs = header["spec"]["inputs"]
    for name in (
        "mpi_repository",
        "mpi_ref",
        "configure_flags",
        "vendor_adapter",
        "baseline",
    ):
        assert name in inputs, name
    body = GITLAB.read_text().split("\n---\n", 1)[1]
    used = set(re.findall(r"\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]", body))
    assert used == set(inputs), used ^ set(inputs)


def test_the_gitlab_template_builds_runs_gates_and_publishes():
    header, config = gitlab_template()
    job = config["ordo-conformance"]
    scripts = list(gitlab_scripts(config))
    assert any("./configure" in s and "make install" in s for s in scripts)
    lines = [
        w for s in scripts for w in script_commands(s, gitlab_variables(header, config))
    ]
    commands = [accepted(w) for w in lines]
    assert [a.command for a in commands] == ["run", "gate", "report"]
    assert commands[0].vendor and commands[1].new == commands[0].out
    like_with_like(commands[1])
    artifacts = job["artifacts"]
    assert artifacts["when"] == "always" and artifacts["paths"] == ["ordo-out/run/"]
    assert artifacts["reports"]["junit"] == "ordo-out/run/junit.xml"


def test_the_gitlab_checks_fail_on_a_broken_template():
    header, config = gitlab_template()
    broken = json.loads(json.dumps(config))
    broken["ordo-conformance"]["artifact"] = broken["ordo-conformance"].pop("artifacts")
    assert any(
        "artifact" in e for e in errors_of(validator("gitlab-ci", "config"), broken)
    )
    broken = json.loads(json.dumps(header))
    broken["spec"]["inputs"]["ranks"]["defualt"] = "1-4"
    assert errors_of(validator("gitlab-ci", "header"), broken)


# ---- known crashes and hangs: the nightly run runs them (issue #38) ----------------


def _stub_ordo(folder):
    """An `ordo` that prints the words it was called with (the scripts' ./ordo)."""
    folder.mkdir(parents=True, exist_ok=True)
    stub = folder / "ordo"
    stub.write_text('#!/bin/sh\necho "ORDO $*"\n')
    stub.chmod(0o755)


def _run_step(script, cwd, env):
    import os
    import subprocess

    p = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
    )
    words = [
        line.split()[1:]
        for line in p.stdout.splitlines()
        if line.startswith("ORDO run ")
    ]
    return p.returncode, words, p.stdout + p.stderr


def _github_run_step(tmp_path, event, every, number):
    doc = github_workflow()
    step = next(s for s in doc["jobs"]["conformance"]["steps"] if s.get("id") == "run")
    _stub_ordo(tmp_path / "ordo")
    env = {
        **github_variables(doc),
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_RUN_NUMBER": str(number),
        "KNOWN_FATAL_EVERY": every,
    }
    return _run_step(step["run"], tmp_path / "ordo", env)


def _gitlab_run_step(tmp_path, source, every, number):
    header, config = gitlab_template()
    script = next(s for s in gitlab_scripts(config) if "./ordo run" in s)
    _stub_ordo(tmp_path / ".ordo")
    env = {
        **gitlab_variables(header, config),
        "CI_PROJECT_DIR": str(tmp_path),
        "CI_PIPELINE_SOURCE": source,
        "CI_PIPELINE_IID": str(number),
        "KNOWN_FATAL_EVERY": every,
    }
    return _run_step(script, tmp_path, env)


@pytest.mark.parametrize(
    "step, scheduled", [(_github_run_step, "schedule"), (_gitlab_run_step, "schedule")]
)
def test_a_scheduled_run_runs_the_known_crashes_and_hangs_and_one_run_in_n_does_too(
    tmp_path, step, scheduled
):
    """The templates' run step, executed by bash with a stub ./ordo: a scheduled
    (nightly) run gives --run-known-fatal, so that a waiver whose bug was fixed turns
              stale; a run on a push does not, unless
    the input known-fatal-every N > 0 and the run's number is a multiple of N; a bad N
    is one line, exit 2.
    """

    def flag_in(*args):
        rc, words, out = step(tmp_path, *args)
        assert rc == 0 and len(words) == 1, out
        accepted(["./ordo"] + words[0])  # the command line as run is one ordo accepts
        return "--run-known-fatal" in words[0]

    assert flag_in(scheduled, "0", 5)
    assert not flag_in("push", "0", 5)
    assert flag_in("push", "7", 14) and not flag_in("push", "7", 15)
    rc, words, out = step(tmp_path, "push", "seven", 14)
    assert rc == 2 and not words and "not a whole number" in out

"""The vendor adapters and launcher templates against vendors/adapter.schema.json (no
MPI needed)."""
import json
import pathlib
import re
import shutil
import subprocess

import jsonschema
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
VENDORS = ROOT / "vendors"
SCHEMA = json.loads((VENDORS / "adapter.schema.json").read_text())
ADAPTERS = sorted(VENDORS.glob("*/adapter.json"))
TEMPLATES = sorted((VENDORS / "launchers").glob("*.json"))
ROUTINES = {
    "reduce",
    "allreduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
}
# the placeholders the runner expands: {build}, {root}, {env:NAME}; {key} and {value}
# only in env_flag
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
EXPANDED = re.compile(r"^(build|root|env:[A-Za-z_][A-Za-z0-9_]*)$")


MINIMAL = {
    "schema": "ordo.adapter/1",
    "name": "site",
    "description": "Not tested here: x",
    "tested_here": False,
    "sources": ["https://example.org"],
    "compilers": {"cxx": "mpicxx"},
    "waivers": "waivers.json",
    "launcher": {"command": "mpiexec", "np_flag": "-n", "env_flag": []},
    "algorithm_variants": {},
}


def adapter_ids():
    return [p.parent.name for p in ADAPTERS]


def load(path):
    return json.loads(path.read_text())


def validator(subschema=None):
    """The adapter schema, or one of its $defs (with the document's $defs in scope)."""
    schema = SCHEMA
    if subschema is not None:
        schema = {
            "$schema": SCHEMA["$schema"],
            "$defs": SCHEMA["$defs"],
            "$ref": f"#/$defs/{subschema}",
        }
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_schema_is_a_valid_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_there_are_adapters_and_templates():
    names = set(adapter_ids())
    assert {
        "mpich",
        "openmpi",
        "intelmpi",
        "mvapich",
        "cray-mpich",
        "hpe-mpt",
        "hpcx",
    } <= names
    assert {"srun.json", "mpiexec-hostfile.json", "mpiexec-hydra-hostfile.json"} <= {
        p.name for p in TEMPLATES
    }


@pytest.mark.parametrize("path", ADAPTERS, ids=adapter_ids())
def test_adapter_validates_against_the_schema(path):
    errors = sorted(validator().iter_errors(load(path)), key=lambda e: list(e.path))
    assert not errors, "\n".join(
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors
    )


@pytest.mark.parametrize("path", TEMPLATES, ids=[p.name for p in TEMPLATES])
def test_launcher_template_validates_as_a_fragment(path):
    fragment = load(path)
    errors = list(validator("launcher_fragment").iter_errors(fragment))
    assert not errors, "\n".join(e.message for e in errors)
    # and it is a valid launcher inside an otherwise minimal adapter
    assert not list(
        validator().iter_errors({**MINIMAL, "launcher": fragment["launcher"]})
    )


@pytest.mark.parametrize(
    "change",
    [
        {"description": "an untested adapter that does not say so"},
        {"sources": []},
        {"tested_here": True, "description": "tested, but names no packages"},
        {"launcher": {"command": "mpiexec", "np_flag": "-n", "env_flag": ["-x"]}},
        {
            "algorithm_variants": {
                "static": [
                    {
                        "name": "v",
                        "env": {"A": "1"},
                        "source": "s",
                        "targets": [
                            {"routine": "bcast", "modes": ["blocking"], "comm": "intra"}
                        ],
                    }
                ]
            }
        },
        {
            "algorithm_variants": {
                "static": [
                    {
                        "name": "v",
                        "env": {"A": "1"},
                        "source": "s",
                        "targets": [
                            {"routine": "reduce", "modes": [], "comm": "intra"}
                        ],
                    }
                ]
            }
        },
        {"version": {"command": [], "pattern": "(x)"}},
        {"unknown_key": 1},
    ],
    ids=[
        "description",
        "sources",
        "packages",
        "env_flag",
        "routine",
        "modes",
        "version",
        "unknown-key",
    ],
)
def test_schema_rejects_broken_adapters(change):
    assert not list(validator().iter_errors(MINIMAL))
    assert list(validator().iter_errors({**MINIMAL, **change}))


def test_adapter_names_are_unique_and_match_their_directory():
    names = [load(p)["name"] for p in ADAPTERS]
    assert len(names) == len(set(names))
    for path in ADAPTERS:
        assert load(path)["name"] == path.parent.name


def test_variant_names_are_unique_across_all_adapters():
    seen = {}
    for path in ADAPTERS:
        for variant in load(path)["algorithm_variants"].get("static", []):
            assert (
                variant["name"] not in seen
            ), f"{variant['name']} in {path.parent.name} and {seen[variant['name']]}"
            seen[variant["name"]] = path.parent.name


@pytest.mark.parametrize("path", ADAPTERS, ids=adapter_ids())
def test_variants_have_valid_targets_and_no_duplicate_settings(path):
    settings = set()
    for variant in load(path)["algorithm_variants"].get("static", []):
        assert variant["targets"], variant["name"]
        for target in variant["targets"]:
            assert target["routine"] in ROUTINES
            assert target["modes"] and set(target["modes"]) <= {
                "blocking",
                "nonblocking",
                "persistent",
            }
            assert len(target["modes"]) == len(set(target["modes"]))
            assert target["comm"] in {"intra", "inter", "any"}
        assert variant["source"].strip(), variant["name"]
        key = tuple(sorted(variant["env"].items()))
        assert (
            key not in settings
        ), f"{variant['name']}: the same environment as another variant"
        settings.add(key)


@pytest.mark.parametrize("path", ADAPTERS, ids=adapter_ids())
def test_untested_adapters_say_so_and_cite_sources(path):
    adapter = load(path)
    if adapter["tested_here"]:
        assert adapter.get(
            "packages"
        ), "a tested adapter names the packages it installs"
    else:
        assert adapter["description"].startswith("Not tested here:")
        assert adapter.get("sources") and all(s.strip() for s in adapter["sources"])


@pytest.mark.parametrize("path", ADAPTERS, ids=adapter_ids())
def test_waivers_file_exists_and_is_a_waivers_document(path):
    adapter = load(path)
    waivers = json.loads((path.parent / adapter["waivers"]).read_text())
    assert waivers["schema"] == "ordo.waivers/1"
    assert isinstance(waivers["waivers"], list)
    assert waivers.get("vendor", adapter["name"]) == adapter["name"]


@pytest.mark.parametrize("path", ADAPTERS, ids=adapter_ids())
def test_version_pattern_compiles_with_a_group(path):
    version = load(path).get("version")
    assert version, "every adapter says how to read the library's version"
    assert re.compile(version["pattern"]).groups >= 1


def template_strings(adapter):
    launcher = adapter["launcher"]
    yield from (
        (s, False)
        for s in [launcher["command"], launcher["np_flag"]]
        + launcher.get("flags", [])
        + launcher.get("root_flags", [])
    )
    yield from ((s, True) for s in launcher["env_flag"])
    for env in [adapter.get("env", {})] + [
        s["env"] for s in adapter.get("launch_settings", [])
    ]:
        yield from ((s, False) for s in env.values())


@pytest.mark.parametrize(
    "path", ADAPTERS + TEMPLATES, ids=adapter_ids() + [p.name for p in TEMPLATES]
)
def test_only_known_placeholders(path):
    doc = load(path)
    for text, in_env_flag in template_strings(doc):
        for name in PLACEHOLDER.findall(text):
            ok = EXPANDED.match(name) or (in_env_flag and name in ("key", "value"))
            assert ok, f"unknown placeholder {{{name}}} in {text!r}"


@pytest.mark.parametrize(
    "path",
    [p for p in ADAPTERS if load(p)["tested_here"]],
    ids=[p.parent.name for p in ADAPTERS if load(p)["tested_here"]],
)
def test_version_command_of_an_installed_library_matches(path):
    version = load(path)["version"]
    if not shutil.which(version["command"][0]):
        pytest.skip(f"{version['command'][0]} is not installed")
    out = subprocess.run(version["command"], capture_output=True, text=True, timeout=60)
    match = re.search(version["pattern"], out.stdout + out.stderr)
    assert match and match.group(1), out.stdout[:200]

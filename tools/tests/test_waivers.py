"""The Python waiver matcher against the shared vectors (the C++ matcher runs
the same vectors in conformance/), and every waivers file against its schema."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from reports import waivers  # noqa: E402

VECTORS = json.loads(waivers.VECTORS_PATH.read_text())


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_the_python_matcher_gives_every_shared_vector_its_expected_result(vector):
    got = waivers.match(vector["waiver"], vector["record"], **vector["context"])
    assert got == vector["expect"], vector["name"]


@pytest.mark.parametrize(
    "item", VECTORS["library_version_strings"], ids=lambda s: s["text"][:30]
)
def test_the_library_release_is_parsed_from_the_version_string(item):
    assert waivers.parse_library_version(item["text"]) == item["version"]


def test_the_vectors_cover_every_verdict_and_every_condition():
    expects = {v["expect"] for v in VECTORS["vectors"]}
    assert expects == {"waived", "no-match", "expired", "version"}
    keys = set()
    for v in VECTORS["vectors"]:
        keys |= set(v["waiver"])
    assert {
        "outcome",
        "test",
        "variant",
        "message",
        "case",
        "ranks",
        "comm_size",
        "library_versions",
        "expires",
        "signature",
        "placement",
    } <= keys
    outcomes = {json.dumps(v["waiver"].get("outcome")) for v in VECTORS["vectors"]}
    assert any(o.startswith("[") for o in outcomes), "no vector names several outcomes"
    sig_keys = set()
    for v in VECTORS["vectors"]:
        sig_keys |= set(v["waiver"].get("signature") or {})
    assert sig_keys == {"text", "signal", "exit_code", "hang"}


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "vendors").glob("*/waivers.json")),
    ids=lambda p: p.parent.name,
)
def test_every_waivers_file_follows_the_schema(path):
    waivers.load(path)  # raises WaiverFileError with the first problem


def test_a_waivers_file_off_its_schema_is_one_clear_error(tmp_path):
    bad = tmp_path / "waivers.json"
    bad.write_text(
        json.dumps(
            {
                "schema": "ordo.waivers/1",
                "waivers": [
                    {
                        "id": "x",
                        "test": "*",
                        "reason": "r",
                        "upstream": "u",
                        "expires": "soon",
                        "library_versions": "4.0.2",
                    }
                ],
            }
        )
    )
    with pytest.raises(waivers.WaiverFileError) as e:
        waivers.load(bad)
    assert "waivers/0/expires" in str(e.value) and "\n" not in str(e.value)


def test_apply_waives_with_the_first_waiver_that_applies_and_says_why_others_did_not():
    record = {
        "test": "Reduce.x",
        "outcome": "fail",
        "message": "m",
        "case": {"count": 5},
    }
    ws = [
        {
            "id": "old",
            "test": "Reduce.*",
            "reason": "r0",
            "upstream": "u0",
            "expires": "2020-01-01",
        },
        {
            "id": "other-release",
            "test": "Reduce.*",
            "reason": "r1",
            "upstream": "u1",
            "expires": "2030-01-01",
            "library_versions": "4.1",
        },
        {
            "id": "good",
            "test": "Reduce.*",
            "reason": "r2",
            "upstream": "u2",
            "expires": "2030-01-01",
            "library_versions": ">=4.0 <4.1",
        },
        {
            "id": "later",
            "test": "*",
            "reason": "r3",
            "upstream": "u3",
            "expires": "2030-01-01",
        },
    ]
    waivers.apply(record, ws, today="2026-11-23", library_version="4.0.2")
    assert record["outcome"] == "waived" and record["waiver"] == "good"
    assert (
        record["message"]
        == "m | the waiver old expired on 2020-01-01 | the waiver other-release is for"
        " 4.1, not 4.0.2 | waived until 2030-01-01: r2 (u2)"
    )


def test_locate_finds_the_adapters_own_waivers_key(tmp_path):
    (tmp_path / "known.json").write_text('{"schema": "ordo.waivers/1", "waivers": []}')
    assert (
        waivers.locate({"_dir": str(tmp_path), "waivers": "known.json"})
        == (tmp_path / "known.json").resolve()
    )
    assert waivers.locate({"_dir": str(tmp_path)}) is None


def _one_waiver_file(tmp_path, **fields):
    w = {
        "id": "x",
        "test": "*",
        "reason": "r",
        "upstream": "u",
        "expires": "2027-01-01",
        "library_versions": "4.0.2",
    }
    w.update(fields)
    for k in [k for k, v in w.items() if v is None]:
        del w[k]
    path = tmp_path / "waivers.json"
    path.write_text(json.dumps({"schema": "ordo.waivers/1", "waivers": [w]}))
    return path


@pytest.mark.parametrize(
    "fields,where",
    [
        ({"library_versions": None}, "'library_versions' is a required property"),
        ({"outcome": "crash"}, "'signature' is a required property"),
        ({"outcome": ["fail", "timeout"]}, "'signature' is a required property"),
        ({"outcome": "crash", "signature": {"hang": True}}, "waivers/0/signature"),
        ({"outcome": "crash", "signature": {"stack": "*x*"}}, "waivers/0/signature"),
    ],
    ids=[
        "release-blind",
        "crash-without-signature",
        "timeout-without-signature",
        "crash-by-hang-alone",
        "unknown-signature-key",
    ],
)
def test_the_schema_requires_releases_and_a_signature_for_crashes_and_hangs(
    tmp_path, fields, where
):
    with pytest.raises(waivers.WaiverFileError) as e:
        waivers.load(_one_waiver_file(tmp_path, **fields))
    assert where in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    "fields",
    [
        {
            "outcome": ["fail", "crash", "timeout"],
            "signature": {"text": "*Message truncated*"},
        },
        {"outcome": "timeout", "signature": {"hang": True}},
        {
            "outcome": ["crash", "timeout"],
            "signature": {"hang": True, "signal": [6, 11]},
        },
        {
            "outcome": "crash",
            "signature": {"exit_code": 1, "text": ["*Internal error*"]},
        },
    ],
    ids=["three-outcomes", "hang", "hang-or-signal", "exit-code-and-text"],
)
def test_the_schema_accepts_the_signature_forms(tmp_path, fields):
    assert waivers.load(_one_waiver_file(tmp_path, **fields))


def test_a_merged_waiver_is_unwaived_to_the_outcome_its_message_tells():
    w = {"id": "w", "outcome": ["fail", "crash", "timeout"]}
    crash = {
        "outcome": "waived",
        "message": (
            "this case ended the job (exit code 6); last output: x | waived until d:"
            " r (u)"
        ),
    }
    hang = {
        "outcome": "waived",
        "message": (
            "this case did not finish within the case time limit (exit code 124); "
            "last output: x | waived until d: r (u)"
        ),
    }
    fail = {
        "outcome": "waived",
        "message": (
            "on rank 0: element 1: expected 2, observed 3 | waived until d: r (u)"
        ),
    }
    assert [waivers.unwaived(r, w)["outcome"] for r in (crash, hang, fail)] == [
        "crash",
        "timeout",
        "fail",
    ]
    assert (
        waivers.unwaived(crash, w)["message"]
        == "this case ended the job (exit code 6); last output: x"
    )

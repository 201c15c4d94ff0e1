"""Every waiver of a library tested here carries its examples: the records
it must cover (its reproducer's case) and neighbours that differ only in the
trigger, which it must not cover. The matcher is the shared one
(reports/waivers.py; the harness's C++ matcher passes the same vectors)."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from reports import waivers  # noqa: E402

TESTED_HERE = [
    p.parent.name
    for p in sorted((ROOT / "vendors").glob("*/adapter.json"))
    if json.loads(p.read_text()).get("tested_here")
]
ALL = [
    (v, w)
    for v in TESTED_HERE
    for w in waivers.load(ROOT / "vendors" / v / "waivers.json")
]


def _record(example, waiver):
    record = {k: v for k, v in example.items() if k != "why"}
    record.setdefault("outcome", waiver.get("outcome", "fail"))
    record.setdefault("variant", "default")
    record.setdefault("message", "")
    return record


def _judged(waiver, example, release):
    """An example judged as the waiver reads it. A damages_later waiver's
    examples are cases as they passed: judged as the harness's prediction
    (the crash the waiver names, no message yet, the trigger alone), the
    question that holds such a case back."""
    record = _record(example, waiver)
    if not waiver.get("damages_later"):
        return waivers.match(
            waiver, record, today="2000-01-01", library_version=release
        )
    outcomes = waivers.outcomes_of(waiver)
    record = dict(record, outcome=outcomes[0] if outcomes else "crash", message="")
    return waivers.match(
        waiver, record, today="2000-01-01", library_version=release, signature=False
    )


def _release(waiver):
    """A release the waiver was seen in (its first exact version)."""
    specs = waivers.versions_of(waiver)
    assert specs, f"{waiver['id']} names no library_versions"
    return specs[0]


@pytest.mark.parametrize(
    "vendor,waiver", ALL, ids=lambda x: x if isinstance(x, str) else x["id"]
)
def test_every_waiver_covers_its_examples_and_not_its_neighbours(vendor, waiver):
    examples = waiver.get("examples") or {}
    assert examples.get("covers"), f"{waiver['id']}: no example it must cover"
    assert examples.get(
        "excludes"
    ), f"{waiver['id']}: no neighbouring case it must not cover"
    for ex in examples["covers"]:
        got = _judged(waiver, ex, _release(waiver))
        assert got == "waived", f"{waiver['id']} does not cover {ex}"
    for ex in examples["excludes"]:
        got = _judged(waiver, ex, _release(waiver))
        assert (
            got == "no-match"
        ), f"{waiver['id']} covers its neighbour {ex} ({ex.get('why')})"


@pytest.mark.parametrize(
    "vendor,waiver", ALL, ids=lambda x: x if isinstance(x, str) else x["id"]
)
def test_every_waiver_is_bound_to_the_releases_it_was_seen_in(vendor, waiver):
    assert _judged(waiver, waiver["examples"]["covers"][0], "999.0") == "version"


@pytest.mark.parametrize(
    "vendor,waiver",
    [(v, w) for v, w in ALL if w.get("damages_later")],
    ids=lambda x: x if isinstance(x, str) else x["id"],
)
def test_a_damages_later_waiver_waives_no_crash_but_its_own_cases(vendor, waiver):
    # Its examples passed; a crash of a later case (another case, the same
    # message) is not its to waive: it holds its own cases back instead.
    ex = waiver["examples"]["covers"][0]
    release = _release(waiver)
    later = dict(
        _record(ex, waiver),
        outcome="crash",
        test="Later.case_after_the_damage",
        case=dict(ex.get("case") or {}, datatype="MPI_INT"),
        layout="contiguous",
        message="this case ended the job (exit code 6); last output: "
        "free(): invalid size / munmap_chunk(): invalid pointer / (signal 6)",
    )
    assert (
        waivers.match(waiver, later, today="2000-01-01", library_version=release)
        == "no-match"
    )


def test_every_waiver_id_is_unique():
    ids = [w["id"] for _, w in ALL]
    assert len(ids) == len(set(ids))

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
    day = "2000-01-01"
    for ex in examples["covers"]:
        got = waivers.match(
            waiver, _record(ex, waiver), today=day, library_version=_release(waiver)
        )
        assert got == "waived", f"{waiver['id']} does not cover {ex}"
    for ex in examples["excludes"]:
        got = waivers.match(
            waiver, _record(ex, waiver), today=day, library_version=_release(waiver)
        )
        assert (
            got == "no-match"
        ), f"{waiver['id']} covers its neighbour {ex} ({ex.get('why')})"


@pytest.mark.parametrize(
    "vendor,waiver", ALL, ids=lambda x: x if isinstance(x, str) else x["id"]
)
def test_every_waiver_is_bound_to_the_releases_it_was_seen_in(vendor, waiver):
    example = _record(waiver["examples"]["covers"][0], waiver)
    assert (
        waivers.match(waiver, example, today="2000-01-01", library_version="999.0")
        == "version"
    )


def test_every_waiver_id_is_unique():
    ids = [w["id"] for _, w in ALL]
    assert len(ids) == len(set(ids))

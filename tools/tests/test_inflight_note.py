"""The in-flight note's contract (<journal>.inflight.<rank>, the case a rank
had begun): reports/schema/inflight-1.schema.json holds every note the
harness writes (conformance/harness/tests/inflight_notes.json, which
inflight_note_test.cpp proves the C++ writer renders exactly), and the runner
validates each note it reads (runner/protocol.py, read_note): a note that
breaks the schema stops the run with one line, never charged to a case."""
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from reports import records  # noqa: E402
from runner import protocol  # noqa: E402
from runner.errors import EXIT_INFRA, OrdoError  # noqa: E402

NOTES = json.loads(
    (ROOT / "conformance" / "harness" / "tests" / "inflight_notes.json").read_text()
)["notes"]
GOOD = NOTES[0]["note"]


@pytest.mark.parametrize("name", [n["name"] for n in NOTES])
def test_every_note_the_harness_writes_follows_the_schema(name):
    note = next(n["note"] for n in NOTES if n["name"] == name)
    assert records.note_errors(note) == []


@pytest.mark.parametrize(
    "change, where",
    [
        (dict(seq="7"), "seq"),
        (dict(seq=0), "seq"),
        (dict(level="MAYBE"), "level"),
        (dict(case={"routine": "reduce"}), "case"),
        (
            dict(case_limit={"seconds": 1, "rule": "sometimes", "why": ""}),
            "case_limit/rule",
        ),
        (dict(comm_size=-1), "comm_size"),
        (dict(returned={"message": "no detect"}), "returned"),
        (dict(returned={"detect": "maybe", "message": ""}), "returned/detect"),
        (dict(unknown_field=1), "(note)"),
    ],
)
def test_a_malformed_note_is_rejected_naming_the_field(change, where):
    errors = records.note_errors({**GOOD, **change})
    assert errors and any(e.startswith(where + ":") for e in errors), errors


def test_a_note_without_what_the_dead_case_record_needs_is_rejected():
    for key in ("seq", "id", "test", "clause", "level", "case", "routine"):
        note = {k: v for k, v in GOOD.items() if k != key}
        assert any(
            f"'{key}' is a required property" in e for e in records.note_errors(note)
        )


def _journal(tmp_path, notes):
    j = tmp_path / "journal.jsonl"
    j.write_text("")
    for rank, text in notes.items():
        pathlib.Path(f"{j}{protocol.INFLIGHT}{rank}").write_text(text)
    return j


def test_the_runner_charges_a_well_formed_note_padded_with_blanks(tmp_path):
    j = _journal(tmp_path, {0: json.dumps(GOOD) + "\n" + " " * 40})
    case, recorded = protocol.charged_case(j, 0)
    assert case == GOOD and not recorded


def test_the_runner_stops_with_one_line_on_a_note_that_breaks_the_schema(tmp_path):
    j = _journal(tmp_path, {0: json.dumps(GOOD), 1: json.dumps({**GOOD, "seq": "8"})})
    with pytest.raises(OrdoError) as e:
        protocol.charged_case(j, 0)
    message = str(e.value)
    assert "\n" not in message and e.value.code == EXIT_INFRA
    assert f"{j}{protocol.INFLIGHT}1" in message and "inflight-1.schema.json" in message
    assert "seq: '8' is not of type 'integer'" in message
    with pytest.raises(OrdoError):
        protocol.ranks_in_case(j, GOOD["seq"])


def test_a_note_cut_short_by_a_dying_rank_is_no_note(tmp_path):
    j = _journal(tmp_path, {0: json.dumps(GOOD)[:30], 1: json.dumps(GOOD)})
    assert protocol.begun_cases(j) == [GOOD]
    assert protocol.ranks_in_case(j, GOOD["seq"]) == {1: GOOD}


def test_after_a_crash_a_note_that_breaks_the_schema_is_no_note_and_is_named(tmp_path):
    """A library that double-frees can garble what the harness writes (seen on
    Open MPI 5.0.7: rank 1's note held the case where its limit belongs, and
    another rank died by SIGSEGV in the harness's own code): after a crash the
    run goes on, the note is not used, and broken_notes names it."""
    garbled = {**GOOD, "case_limit": GOOD["case"]}
    j = _journal(tmp_path, {0: json.dumps(GOOD), 1: json.dumps(garbled)})
    case, recorded = protocol.charged_case(j, 0, crashed=True)
    assert case == GOOD and not recorded
    assert protocol.ranks_in_case(j, GOOD["seq"], crashed=True) == {0: GOOD}
    [(rank, error)] = protocol.broken_notes(j)
    assert rank == 1 and error.startswith("case_limit")
    # Without a crash (a timeout, or a clean exit) it is still ordo's defect.
    with pytest.raises(OrdoError):
        protocol.charged_case(j, 0)

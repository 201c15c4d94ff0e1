"""Two runs' records, check by check: the proof that a change of structure
kept every record (`ordo compare --records A B`).

A check is keyed by (variant, ranks, id). Everything a record holds is
compared except what differs from run to run by nature: its time, duration,
the case's wall time and the case limit derived from earlier cases' wall
times (case_seconds, case_limit: which cases ran before it in its job, and
how fast), its sequence number (and a property run's measured seconds), its log file and
the log's last lines that the record of a dead job quotes (which rank the
library reports first), any path inside the run's own output folder or its checkout (a
string holding either is compared with it replaced), the memory addresses a
library prints in its error stacks ("sendbuf=0x55d0..."), which address space
layout randomisation changes from one run of the same build to the next, and
the communicator handle such a stack names ("comm=0xc4000032" or
"MPI_COMM_WORLD"): the harness builds a shape afresh after a case that did
not pass (executor.cpp), so which handle a shape has depends on the cases
that ran before it in the same process.
"""
import gzip
import json
import pathlib
import re

from . import records

IGNORED = ("time", "duration_s", "seq", "log", "case_seconds", "case_limit")
IGNORED_PROPERTY = ("seconds",)  # in a property summary's "property"
# A dead job's record quotes its log: "...; last output: <lines> | <waiver notes>".
_LOG_TAIL = re.compile(
    r"(; last output: ).*?(?= \| waived until | \| the waiver |$)", re.S
)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_COMM_HANDLE = re.compile(r"\bcomm=0x<address>|\bMPI_COMM_WORLD\b(?=[,)])")
SHOWN = 20
ABSENT = "<absent>"


def key(record):
    return (record.get("variant") or "default", record.get("ranks"), record.get("id"))


def _strip(value, folder):
    """value with the output folder's path replaced by <out> wherever it occurs."""
    if isinstance(value, str):
        return value.replace(folder, "<out>") if folder else value
    if isinstance(value, list):
        return [_strip(v, folder) for v in value]
    if isinstance(value, dict):
        return {k: _strip(v, folder) for k, v in value.items()}
    return value


def comparable(record, folder=None, checkout=None):
    out = {
        k: _strip(_strip(v, folder), checkout)
        for k, v in record.items()
        if k not in IGNORED and not k.startswith("_")
    }
    if isinstance(out.get("message"), str):
        out["message"] = _COMM_HANDLE.sub(
            "comm=<communicator>",
            _ADDRESS.sub("0x<address>", _LOG_TAIL.sub(r"\1<log>", out["message"])),
        )
    if isinstance(out.get("property"), dict):
        out["property"] = {
            k: v for k, v in out["property"].items() if k not in IGNORED_PROPERTY
        }
    # a dead job's record: the log lines it quotes, as in its message
    if isinstance(out.get("job"), dict):
        out["job"] = {k: v for k, v in out["job"].items() if k != "tail"}
    return out


def _diff(a, b, where=""):
    """The paths at which a and b differ, with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _diff(
                a.get(k, ABSENT), b.get(k, ABSENT), f"{where}/{k}" if where else k
            )
        return out
    return [] if a == b else [(where, a, b)]


def compare_records(
    a, b, folder_a=None, folder_b=None, checkout_a=None, checkout_b=None, new_fields=()
):
    """{"count": (len a, len b), "missing": keys only in a, "extra": keys only
    in b, "duplicates": keys seen twice in one run, "differences": [(key,
    field, value in a, value in b)], "same": bool}."""

    def index(recs, folder, checkout):
        out, dup = {}, []
        for r in recs:
            k = key(r)
            if k in out:
                dup.append(k)
            out[k] = comparable(r, folder, checkout)
        return out, dup

    ia, da = index(a, folder_a, checkout_a)
    ib, db = index(b, folder_b, checkout_b)
    missing = sorted(set(ia) - set(ib), key=str)
    extra = sorted(set(ib) - set(ia), key=str)
    differences: list = []
    added: dict = {}
    for k in sorted(set(ia) & set(ib), key=str):
        for field, va, vb in _diff(ia[k], ib[k]):
            top = field.split("/")[0]
            if top in new_fields and top not in ia[k]:
                # a field the change adds on purpose: counted once per record
                added[top] = added.get(top, 0) + 1
                continue
            differences.append((k, field, va, vb))
    added = {
        f: sum(1 for k in set(ia) & set(ib) if f in ib[k] and f not in ia[k])
        for f in added
    }
    same = (
        len(a) == len(b)
        and not missing
        and not extra
        and not differences
        and sorted(da) == sorted(db)
    )
    return {
        "count": (len(a), len(b)),
        "missing": missing,
        "extra": extra,
        "duplicates": (da, db),
        "differences": differences,
        "same": same,
        "added": added,
    }


def compare_folders(a, b, new_fields=()):
    """The records of two output folders, or of the run/ folders of two packages (their
    journal.jsonl, or journal.jsonl.gz)."""
    a, b = pathlib.Path(a).resolve(), pathlib.Path(b).resolve()
    journals = []
    for d in (a, b):
        found = records.journal_file(d)
        if found is None:
            raise FileNotFoundError(
                f"{d} holds no journal.jsonl: not an output folder of `ordo run`"
            )
        journals.append(found)
    return compare_records(
        records.read_journal(journals[0]),
        records.read_journal(journals[1]),
        str(a),
        str(b),
        _checkout(a),
        _checkout(b),
        new_fields,
    )


def _checkout(folder):
    """The checkout a run was made from (its adapter is vendors/<name>/adapter.json
    there), if it says."""
    try:  # a package's run/ folder holds it gzip-compressed
        plain, packed = folder / "run.json", folder / "run.json.gz"
        text = (
            plain.read_bytes()
            if plain.is_file()
            else gzip.decompress(packed.read_bytes())
        )
        adapter = pathlib.Path(json.loads(text).get("adapter") or "")
    except (OSError, ValueError, AttributeError, EOFError):
        return None
    root = adapter.parent.parent.parent
    return (
        str(root)
        if adapter.name == "adapter.json" and (root / "vendors").is_dir()
        else None
    )


def _show(value):
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= 160 else text[:157] + "..."


def format_result(result, name_a="A", name_b="B"):
    na, nb = result["count"]
    lines = [
        f"records: {na} in {name_a}, {nb} in {name_b}"
        + (" (same count)" if na == nb else " (DIFFERENT count)")
    ]
    for label, keys in (
        ("missing from " + name_b, result["missing"]),
        ("extra in " + name_b, result["extra"]),
    ):
        if keys:
            lines.append(f"{len(keys)} {label}:")
            lines += [f"  {v} {n} ranks {i}" for v, n, i in keys[:SHOWN]]
    da, db = result["duplicates"]
    if sorted(da) != sorted(db):
        lines.append(f"keys seen twice: {len(da)} in {name_a}, {len(db)} in {name_b}")
    for field, n in sorted(result.get("added", {}).items()):
        lines.append(
            f"field '{field}' added on {n} records of {name_b} (allowed by --new-field)"
        )
    diffs = result["differences"]
    if diffs:
        lines.append(
            f"{len(diffs)} field(s) differ"
            + (f" (the first {SHOWN}):" if len(diffs) > SHOWN else ":")
        )
        for (v, n, i), field, va, vb in diffs[:SHOWN]:
            lines.append(f"  {v} {n} ranks {i}: {field}: {_show(va)} -> {_show(vb)}")
    lines.append(
        "identical records (ignoring "
        + ", ".join(IGNORED)
        + ", property seconds, quoted log lines, memory addresses and communicator"
        " handles in messages and the output folders' and checkouts' paths)"
        if result["same"]
        else "the records DIFFER"
    )
    return "\n".join(lines)

"""Writing a journal: one record a line, flushed to disk; byte offsets that
mark where a job's records start; a last line cut short set aside; once the
run has ended, the journal compressed (compress_journal). Records are made
and read by reports/records.py."""
import gzip
import json
import os
import pathlib
import shutil

from reports.records import COMPRESSED_JOURNAL, journal_file
from .errors import EXIT_INFRA, OrdoError


def journal_offset(path):
    return path.stat().st_size if path.exists() else 0


def append_record(path, record):
    append_line(path, json.dumps(record, sort_keys=True))


def append_line(path, line):
    """One line, flushed to disk; a failure (a full disk) ends the run with one
    line saying how to finish it: nothing written before is touched."""
    try:
        with open(path, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        raise OrdoError(
            (
                f"cannot write {path}: {e.strerror}; make room (or fix the folder),"
                f" then `./ordo run --resume {pathlib.Path(path).parent}` finishes"
                " the run"
            ),
            EXIT_INFRA,
        )


def summarize(records):
    """{outcome: count}."""
    counts: dict = {}
    for r in records:
        counts[r.get("outcome", "?")] = counts.get(r.get("outcome", "?"), 0) + 1
    return counts


def repair_journal(journal):
    """A journal whose last line was cut short (a write interrupted by a kill
    or a full disk): the cut bytes move to journal.jsonl.damaged, so that the
    records go on from a line boundary. Returns the number of bytes moved."""
    if not journal.exists() or journal.stat().st_size == 0:
        return 0
    with open(journal, "rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return 0
        cut = data.rfind(b"\n") + 1
        with open(str(journal) + ".damaged", "ab") as d:
            d.write(data[cut:] + b"\n")
        f.truncate(cut)
    return len(data) - cut


def probe_writable(path):
    """Creates the folder and writes a file in it; raises OSError if it cannot."""
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    probe = path / ".ordo-write-probe"
    probe.write_text("ok\n")
    probe.unlink()


def compress_journal(journal):
    """The journal of a run that has ended (run.json has its end, so it is never
    resumed): journal.jsonl becomes journal.jsonl.gz, every byte kept (`zcat`
    gives it back), streamed, synced and renamed into place before the plain
    one is removed; every reader reads either (reports/records.py). A failure
    (a full disk) keeps the plain journal, says so in one line and removes
    the part written. Returns the journal the folder then holds (None: none)."""
    journal = pathlib.Path(journal)
    packed = journal.with_name(COMPRESSED_JOURNAL)
    if not journal.is_file():
        return journal_file(journal.parent)
    tmp = packed.with_name(packed.name + ".tmp")
    try:
        with open(journal, "rb") as src, open(tmp, "wb") as raw:
            with gzip.GzipFile(
                filename=journal.name, mode="wb", fileobj=raw, compresslevel=9, mtime=0
            ) as z:
                shutil.copyfileobj(src, z, 1 << 20)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, packed)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        print(
            (
                f"ordo: the journal is kept uncompressed ({journal}): cannot write"
                f" {packed.name}: {e.strerror}"
            ),
            flush=True,
        )
        return journal
    journal.unlink()
    return packed

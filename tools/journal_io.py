"""Reading a journal and probing a folder: shared by the runner (ordo_cli.py)
and the property phase (properties.py)."""
import json
import pathlib


def read_journal(path, offset=0):
    """The records of a journal from a byte offset on (0: all of them). A
    line that is not JSON (a write cut short) is reported as corrupt."""
    records = []
    path = pathlib.Path(path)
    if path.exists():
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read().decode("utf-8", errors="replace")
        for line in data.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                records.append({"outcome": "corrupt", "message": line[:200]})
    return records


def probe_writable(path):
    """Creates the folder and writes a file in it; raises OSError if it cannot."""
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    probe = path / ".ordo-write-probe"
    probe.write_text("ok\n")
    probe.unlink()

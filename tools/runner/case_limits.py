"""Derived case limits (issue #17): what cases of each kind took on this
library in this run, handed to every launch of a check job
(--ordo-case-stats=FILE), from which the harness's watchdog derives each
case's limit (conformance/harness/case_limits.h has the rules). A library
that hangs in one family of cases then costs a short limit per further case
of that family, not the full --case-timeout; every hung case is still run
and recorded as `timeout`, with the limit that applied and why.

A case's kind: the MPI routine its record names (or the check's name for a
case-less check), at one rank count. Cases that finished count for every
variant; cases that hung count for their own variant only (another
algorithm may not hang there).

Cases that keep hanging (case_limits.h, hang_key and call_key): the cases
of one routine on intra- or intercommunicators of one size (count 0 and
erroneous calls apart), and those of one routine in any form with one count
and (for MPI_Reduce) one root on any communicator, under one variant, at any
rank count (the communicator decides, not the world), that hung twice in a
row are held back by the harness, each recorded as a skip that names the
hangs, and one in 1, 4, 16, ... of them still runs; a case of the key that
finishes ends the streak. A case of a key whose last case hung gets a
short limit (rule `again`, `probe` while it keeps hanging). The runner
hands on each key's streak (`hang_streaks`), unless `ordo run
--run-hung-kinds` asked for every case."""
import json
import os

from reports.records import HELD_BACK, read_journal

# How a timeout record of the runner begins (reports/records.py, case_died):
# that case hung; a job that died outside a case is not charged to a kind.
HUNG_MESSAGE = "this case did not finish within the case time limit"


def kind_of(record):
    """The case's kind (case_limits.h, case_kind): its routine, with a user op
    and on a derived datatype apart; a case-less check's test."""
    case = record.get("case")
    if not case:
        return record.get("test")
    kind = record.get("routine") or record.get("test")
    # every case has both
    op, datatype = str(case.get("op") or "MPI_"), str(case.get("datatype") or "MPI_")
    if not op.startswith("MPI_"):
        kind += " with a user op"
    if not datatype.startswith("MPI_"):
        kind += " on a derived datatype"
    return kind


def hang_key(record):
    """The case's hang key (case_limits.h, hang_key), None for a case-less check."""
    case = record.get("case")
    if (
        not isinstance(case, dict)
        or not record.get("routine")
        or not isinstance(record.get("comm_size"), int)
    ):
        return None
    inter = str(case.get("comm") or "").startswith("inter")
    return (
        f"{record['routine']} on"
        f" {'intercommunicators' if inter else 'communicators'} of"
        f" {record['comm_size']} processes"
        + (", count 0" if case.get("count") == 0 else "")
        + (", erroneous calls" if record.get("level") == "DETECT" else "")
    )


def call_key(record):
    """The case's call key (case_limits.h, call_key): its routine in any form (the
    blocking form's MPI name) with its count and, for MPI_Reduce, its root, on any
    communicator; None for a case-less check.
    """
    case = record.get("case")
    if (
        not isinstance(case, dict)
        or not record.get("routine")
        or not isinstance(case.get("count"), int)
    ):
        return None
    name = str(case.get("routine") or "")
    routine = (
        "MPIX_Reduce_locals"
        if name == "reduce_locals"
        else "MPI_" + name[:1].upper() + name[1:]
    )
    root = f" and root {case.get('root') or 0}" if name == "reduce" else ""
    return f"{routine} in any form with count {case['count']}{root}" + (
        ", erroneous calls" if record.get("level") == "DETECT" else ""
    )


def keys_of(record):
    """The keys whose streaks a case takes part in: its hang key and its call key."""
    return [k for k in (hang_key(record), call_key(record)) if k]


def held_back(record):
    return record.get("outcome") == "skip" and (record.get("message") or "").startswith(
        HELD_BACK
    )


def hung(record):
    message = record.get("message") or ""
    return record.get("outcome") in ("timeout", "waived") and message.startswith(
        HUNG_MESSAGE
    )


class CaseStats:
    """The journal's statistics per (rank count, kind), read incrementally."""

    def __init__(self, journal, hold_back=True):
        self.journal = journal
        self.hold_back = hold_back  # False: --run-hung-kinds, no streaks handed on
        self.offset = 0
        # (ranks, variant, kind) -> [slowest seconds, its work, count]
        self.finished = {}
        self.hung = {}  # (ranks, variant, kind) -> count
        # (ranks, variant, kind) -> the least work of its cases that hung (0: one's
        # work was not known, so the kind's short limit is for every case)
        self.hung_work = {}
        # (variant, hang key) -> {"hung", "skipped", "last"}: at any rank count
        self.streaks = {}

    def update(self):
        try:
            size = os.path.getsize(self.journal)
        except OSError:
            return
        if size <= self.offset:
            return
        for r in read_journal(self.journal, self.offset):
            self.add(r)
        self.offset = size

    def add(self, r):
        ranks, kind = r.get("ranks"), kind_of(r)
        if not isinstance(ranks, int) or not kind:
            return
        variant = r.get("variant") or "default"
        # its hang key and its call key, each with its own streak
        for hkey in keys_of(r):
            skey = (variant, hkey)
            if hung(r):
                streak = self.streaks.setdefault(
                    skey, {"hung": 0, "skipped": 0, "last": ""}
                )
                streak.update(
                    hung=streak["hung"] + 1,
                    skipped=0,
                    last=f"{r.get('id') or '?'} at {ranks} ranks",
                )
            elif held_back(r):
                # Held back by the streak of the key its message names (the harness
                # counted it there); a case of the threads check's phase not run because
                # another of the phase's cases was held back names that case's key.
                if skey in self.streaks and f"cases of {hkey} that ran" in (
                    r.get("message") or ""
                ):
                    self.streaks[skey]["skipped"] += 1
            elif r.get("outcome") != "skip":
                self.streaks.pop(skey, None)  # a case of the key ran to its verdict
        if hung(r):
            key = (ranks, r.get("variant") or "default", kind)
            self.hung[key] = self.hung.get(key, 0) + 1
            limit = r.get("case_limit") if isinstance(r.get("case_limit"), dict) else {}
            work = limit.get("work")
            work = float(work) if isinstance(work, (int, float)) and work > 0 else 0.0
            least = self.hung_work.get(key)
            self.hung_work[key] = (
                work
                if least is None
                else (0.0 if not (least and work) else min(least, work))
            )
        elif (
            isinstance(r.get("case_seconds"), (int, float))
            and r.get("outcome") != "skip"
        ):
            # [slowest seconds, that case's work (the harness's case_limit.work; 0: not
            # known), count]
            row = self.finished.setdefault(
                (ranks, r.get("variant") or "default", kind), [0.0, 0.0, 0]
            )
            if row[2] == 0 or float(r["case_seconds"]) > row[0]:
                limit = (
                    r.get("case_limit") if isinstance(r.get("case_limit"), dict) else {}
                )
                work = limit.get("work")
                row[0], row[1] = (
                    float(r["case_seconds"]),
                    float(work) if isinstance(work, (int, float)) else 0.0,
                )
            row[2] += 1

    def for_job(self, ranks, variant):
        """The harness's statistics file for a job at `ranks` under `variant`:
        the variant's own cases only. An algorithm a variant forces may take
        far longer than the library's own choice for the same case (MPICH
        4.0.2's tsp_tree Reduce_init with 256-byte chunks: 12 s for a 1 MiB
        case that the default variant finished in 0.22 s, whose limit, learnt
        from that, was the 10 s floor: a false timeout)."""
        kinds = {}
        for (n, v, kind), (slowest, work, count) in self.finished.items():
            if n == ranks and v == variant:
                kinds[kind] = {
                    "slowest_s": round(slowest, 6),
                    "slowest_work": work,
                    "finished": count,
                    "hung": 0,
                }
        for (n, v, kind), count in self.hung.items():
            if n == ranks and v == variant:
                row = kinds.setdefault(
                    kind, {"slowest_s": 0.0, "finished": 0, "hung": 0}
                )
                row["hung"] = count
                if self.hung_work.get((n, v, kind)):
                    row["hung_min_work"] = self.hung_work[(n, v, kind)]
        streaks = {
            key: dict(s)
            for (v, key), s in self.streaks.items()
            if self.hold_back and v == variant
        }
        doc = {
            "schema": "ordo.case-stats/1",
            "ranks": ranks,
            "variant": variant,
            "kinds": kinds,
            "hang_streaks": streaks,
        }
        # The slowest case at the most ranks below these that has one: the limit of a
        # rank count's first cases (rule "fewer"), before any of its own finished.
        own = {(n, k): row for (n, v, k), row in self.finished.items() if v == variant}
        fewer = [n for (n, _kind) in own if n < ranks]
        if fewer:
            m = max(fewer)
            kind, (slowest, work, _count) = max(
                ((k, row) for (n, k), row in own.items() if n == m),
                key=lambda kv: (kv[1][0], kv[0]),
            )
            doc["fewer"] = {
                "ranks": m,
                "kind": kind,
                "slowest_s": round(slowest, 6),
                "slowest_work": work,
                "finished": sum(row[2] for (n, _k), row in own.items() if n == m),
            }
        return doc

    def write(self, path, ranks, variant):
        """Brought up to date with the journal, then written for the next launch."""
        self.update()
        tmp = f"{path}.tmp"
        with open(tmp, "w") as f:
            json.dump(self.for_job(ranks, variant), f, sort_keys=True)
        os.replace(tmp, path)

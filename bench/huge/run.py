#!/usr/bin/python3
"""Huge counts: one call of each large-count (_c) binding moving more than
2^31 bytes, on MPICH and Open MPI at 2 processes: per routine the bytes of a
process's send buffer, the seconds of the call, the job's wall time, each
process's peak resident set size, and the outcome.

    /usr/bin/python3 bench/huge/run.py [--vendors mpich,openmpi] [--ranks 2]
        [--build-root build] [--out FILE]

Each (library, routine) is one job of the `huge` check executable
(conformance/huge/), launched as `ordo run --huge` launches it: the
adapter's launcher and launch settings, ORDO_HUGE=1, a journal, the
adapter and the waivers; --ordo-select picks the routine, so that each
process's peak RSS (measured by /usr/bin/time around every rank: the
harness's buffers with their guard bytes, the reference's ranges and the
library's own temporaries) belongs to that routine alone. A library without
the _c bindings (Open MPI 4.1) records each case as a skip with that
reason, and the row says so. The table is printed and written, with the
date, the host and the library versions, to bench/results/huge.json.
Builds in <build-root>/<vendor> must exist (`./ordo run --vendor V` or
`./ordo test` makes them). Every launch runs under
`flock /tmp/ordo-mpi.lock timeout 900`.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
# (as ./ordo uses them)
from runner.adapters import (  # noqa: E402
    launch_env,
    launcher_prefix,
    load_adapter,
)
from runner import build  # noqa: E402
from runner.launch import job_command, ordo_flags  # noqa: E402
from reports import waivers as waiver_files  # noqa: E402

ROUTINES = (
    "reduce",
    "allreduce",
    "reduce_scatter_block",
    "reduce_scatter",
    "scan",
    "exscan",
    "reduce_local",
)
COLUMNS = (
    "library",
    "ranks",
    "routine",
    "send bytes",
    "call s",
    "job s",
    "peak RSS GiB per process",
    "outcome",
)
ELEMENT_BYTES = 1 << 20  # contiguous(262144,MPI_INT)
RSS_MARK = "ordo-huge-peak-rss-kib"


def send_elements(case, ranks):
    """Elements of a process's send buffer (the case's count; the scattering
    routines' default recvcounts are count-1, count, count+1, ... per rank)."""
    n = case["count"]
    if case["routine"] == "reduce_scatter_block":
        return n * ranks
    if case["routine"] == "reduce_scatter":
        return sum(max(0, n + (i % 3) - 1) for i in range(ranks))
    return n


def measure(adapter, bdir, ranks, routine, tmp):
    env = launch_env(adapter, bdir, {"ORDO_HUGE": "1"}, False)
    prefix = launcher_prefix(adapter, bdir, env)
    exe = bdir / "conformance" / "huge" / "ordo_check_huge"
    if not exe.is_file():
        raise SystemExit(
            f"run.py: {exe} is not built (./ordo run --vendor"
            f" {adapter['name']} builds it)"
        )
    journal = tmp / f"{adapter['name']}-{routine}.jsonl"
    waivers = waiver_files.locate(adapter)
    flags = ordo_flags(
        journal=journal,
        vendor=adapter["name"],
        adapter=adapter["_path"],
        waivers=str(waivers) if waivers else None,
        case_timeout=800,
        select=f"{routine}:*:*",
    )
    # /usr/bin/time around each rank: its peak RSS, one line per process.
    timed = ["-f", f"{RSS_MARK} %M", str(exe)] + flags
    cmd = ["flock", "/tmp/ordo-mpi.lock"] + job_command(
        adapter, prefix, ranks, "/usr/bin/time", timeout=900, flags=timed
    )
    t0 = time.time()
    # the ranks' env: in the launcher's flags
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    rss = [int(m) for m in re.findall(RSS_MARK + r" (\d+)", proc.stderr + proc.stdout)]
    recs = (
        [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
        if journal.exists()
        else []
    )
    row = {
        "library": adapter["name"],
        "ranks": ranks,
        "routine": routine,
        "job_seconds": round(wall, 1),
        "peak_rss_kib": rss,
        "exit_code": proc.returncode,
    }
    if not recs:
        tail = " / ".join((proc.stdout + proc.stderr).splitlines()[-5:])
        row.update(
            {
                "outcome": "error",
                "message": f"no record; exit code {proc.returncode}: {tail}",
            }
        )
        return row
    r = recs[-1]
    row.update(
        {
            "mpi_routine": r.get("routine"),
            "outcome": r["outcome"],
            "message": r.get("message", ""),
            "call_seconds": r.get("duration_s"),
            "case": r.get("case"),
            "send_bytes": send_elements(
                r["case"], ranks if routine != "reduce_local" else 1
            )
            * ELEMENT_BYTES,
        }
    )
    return row


def library_version(adapter, bdir, env):
    """The first line of MPI_Get_library_version, from a job under the MPI lock."""
    text = (
        build.library_version(
            launcher_prefix(adapter, bdir, env),
            adapter,
            bdir,
            wrap=["flock", "/tmp/ordo-mpi.lock"],
        ).get("library")
        or "unknown"
    )
    return (text.splitlines() or ["unknown"])[0]


def table(rows):
    lines = ["%-8s %5s %-26s %12s %8s %7s %26s  %s" % COLUMNS]
    for r in rows:
        rss = " ".join("%.2f" % (k / 2**20) for k in r["peak_rss_kib"]) or "-"
        call = (
            "%.2f" % r["call_seconds"]
            if r.get("call_seconds") is not None and r["outcome"] != "skip"
            else "-"
        )
        outcome = r["outcome"] + (
            f": {r['message']}" if r["outcome"] != "pass" and r.get("message") else ""
        )
        lines.append(
            "%-8s %5d %-26s %12s %8s %7.1f %26s  %s"
            % (
                r["library"],
                r["ranks"],
                r.get("mpi_routine") or r["routine"],
                r.get("send_bytes", "-"),
                call,
                r["job_seconds"],
                rss,
                outcome[:160],
            )
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vendors", default="mpich,openmpi")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument(
        "--build-root", default=os.environ.get("ORDO_BUILD_ROOT", str(ROOT / "build"))
    )
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "huge.json"))
    args = ap.parse_args(argv)
    rows, versions = [], {}
    with tempfile.TemporaryDirectory(prefix="ordo-huge-bench-") as t:
        tmp = pathlib.Path(t)
        for vendor in args.vendors.split(","):
            adapter = load_adapter(vendor)
            bdir = pathlib.Path(args.build_root).resolve() / adapter["name"]
            versions[adapter["name"]] = library_version(
                adapter, bdir, launch_env(adapter, bdir, {}, False)
            )
            for routine in ROUTINES:
                row = measure(adapter, bdir, args.ranks, routine, tmp)
                rows.append(row)
                print(table([row]).splitlines()[-1], flush=True)
    text = table(rows)
    print("\n" + text)
    result = {
        "schema": "ordo.bench.huge/1",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "host": platform.node(),
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "memory_gib": round(
            os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1
        ),
        "libraries": versions,
        "ranks": args.ranks,
        "definitions": {
            "send bytes": (
                "the bytes of one process's send buffer in the call (the datatype "
                "contiguous(262144,MPI_INT), 1 MiB per element)"
            ),
            "call s": "the seconds of the call under test (the journal's duration_s)",
            "job s": (
                "the job's wall time: launch, filling the buffers from the reference a"
                " range at a time, the call, and the judgement of every byte against"
                " the reference"
            ),
            "peak RSS": (
                "each process's maximum resident set size (/usr/bin/time %M), whole job"
            ),
        },
        "columns": list(COLUMNS),
        "table": text.splitlines(),
        "rows": rows,
    }
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {out}")
    return (
        1
        if any(r["outcome"] in ("fail", "crash", "timeout", "error") for r in rows)
        else 0
    )


if __name__ == "__main__":
    sys.exit(main())

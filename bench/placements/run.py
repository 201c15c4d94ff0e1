#!/usr/bin/python3
"""The placement sweep: the checks whose results depend on where ranks sit
(the crossing, in-place, intercommunicator, non-commutative, MINLOC/MAXLOC,
buffer and determinism families), run by `ordo run --nodes N --placement P`
at 4 to 8 ranks on each library, over 2, 3 and 4 virtual nodes, even and
uneven. Prints the table (library x placement x ranks: checks, pass, fail,
crash, timeout, waived, skip) and writes it, with the node map each library
showed and the waivers that matched, to bench/results/placements.json.

    /usr/bin/python3 bench/placements/run.py [--vendors mpich,openmpi]
        [--configs 2:block,2:cyclic,...] [--ranks 4-8] [--out-root DIR]
    /usr/bin/python3 bench/placements/run.py --table-only --out-root DIR

Each configuration is one `./ordo run` into <out-root>/<vendor>-n<N>-<P>
(kept for `ordo report`, `ordo replay --record`), launched with
ORDO_MPI_LOCK=/tmp/ordo-mpi.lock so that every launch takes the machine's
MPI lock; a folder that already holds a report is read, not run
again. A failure is never summed away: the table names, per row, the tests
that failed, crashed or timed out, and the waivers that matched.
"""
import argparse
import collections
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
# (the one reader of results.json)
from reports.results import load as load_results  # noqa: E402

FAMILIES = (
    "crossing,in_place,intercomm,noncommutative,minloc_maxloc,buffers,determinism"
)
CONFIGS = "2:block,2:cyclic,2:first-alone,3:block,3:first-alone,4:block,4:cyclic"
OUTCOMES = ("pass", "fail", "crash", "timeout", "waived", "skip")


def has_report(out):
    """A finished run: its report (results.json.gz, or the version-1 results.json) is
    there."""
    return (out / "results.json.gz").exists() or (out / "results.json").exists()


def run_one(vendor, nodes, placement, ranks, out):
    cmd = [
        str(ROOT / "ordo"),
        "run",
        "--vendor",
        vendor,
        "--nodes",
        str(nodes),
        "--placement",
        placement,
        "--ranks",
        ranks,
        "--filter",
        FAMILIES,
        "--property-budget",
        "0",
        "--case-timeout",
        "30",
        "--out",
        str(out),
    ]
    env = dict(os.environ, ORDO_MPI_LOCK="/tmp/ordo-mpi.lock")
    with open(str(out) + ".log", "w") as log:
        return subprocess.run(
            ["timeout", "3600"] + cmd, stdout=log, stderr=subprocess.STDOUT, env=env
        ).returncode


def rows_of(vendor, nodes, placement, out):
    doc = load_results(out)
    run = doc["run"]
    by_ranks = collections.defaultdict(
        lambda: {
            "counts": collections.Counter(),
            "failed": collections.Counter(),
            "waivers": collections.Counter(),
        }
    )
    for r in doc["records"]:
        row = by_ranks[r.get("ranks")]
        row["counts"][r["outcome"]] += 1
        if r["outcome"] in ("fail", "crash", "timeout"):
            row["failed"][f"{r['outcome']} {r['test']}"] += 1
        if r["outcome"] == "waived":
            row["waivers"][r.get("waiver") or "?"] += 1
    maps = run.get("node_maps") or {}
    out_rows = []
    for n in sorted(by_ranks, key=lambda x: (x is None, x)):
        row = by_ranks[n]
        out_rows.append(
            {
                "vendor": vendor,
                "library_version": run.get("library_version"),
                "nodes": nodes,
                "placement": placement,
                "ranks": n,
                "node_map": (maps.get(str(n)) or {}).get("node_map"),
                "checks": sum(row["counts"].values()),
                **{o: row["counts"].get(o, 0) for o in OUTCOMES},
                "failed_tests": dict(row["failed"]),
                "waivers": dict(row["waivers"]),
                "run": str(out),
            }
        )
    return out_rows


def table(rows):
    head = (
        "| library | nodes | placement | ranks | node map | checks | "
        + " | ".join(OUTCOMES)
        + " |"
    )
    lines = [head, "|" + " --- |" * (6 + len(OUTCOMES))]
    for r in rows:
        lines.append(
            f"| {r['vendor']} | {r['nodes']} | {r['placement']} | {r['ranks']} | "
            f"`{json.dumps(r['node_map'], separators=(',', ':'))}` | {r['checks']} | "
            + " | ".join(str(r[o]) for o in OUTCOMES)
            + " |"
        )
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(
        description="the placement sweep (see the module's text)"
    )
    p.add_argument("--vendors", default="mpich,openmpi")
    p.add_argument(
        "--configs", default=CONFIGS, help="NODES:PLACEMENT,... (default %(default)s)"
    )
    p.add_argument("--ranks", default="4-8")
    p.add_argument("--out-root", default=str(ROOT / "out" / "placements"))
    p.add_argument(
        "--table-only",
        action="store_true",
        help="read the runs already in --out-root, run nothing",
    )
    p.add_argument(
        "--json", default=str(ROOT / "bench" / "results" / "placements.json")
    )
    args = p.parse_args()
    root = pathlib.Path(args.out_root)
    root.mkdir(parents=True, exist_ok=True)
    rows, missing = [], []
    for vendor in args.vendors.split(","):
        for cfg in args.configs.split(","):
            nodes, _, placement = cfg.partition(":")
            out = root / f"{vendor}-n{nodes}-{placement}"
            if not has_report(out):
                if args.table_only:
                    missing.append(out.name)
                    continue
                if out.exists():
                    sys.exit(
                        f"placements: {out} holds an unfinished run: `./ordo run"
                        f" --resume {out}` or remove it"
                    )
                print(
                    f"placements: {vendor} --nodes {nodes} --placement {placement} ...",
                    flush=True,
                )
                rc = run_one(vendor, int(nodes), placement, args.ranks, out)
                if not has_report(out):
                    sys.exit(
                        f"placements: {vendor} {cfg} ended {rc} without a report (log:"
                        f" {out}.log)"
                    )
            rows += rows_of(vendor, int(nodes), placement, out)
    print(table(rows))
    for r in rows:
        for what, n in sorted(r["failed_tests"].items()):
            print(
                f"  {r['vendor']} {r['nodes']}:{r['placement']} {r['ranks']} ranks:"
                f" {n} x {what}"
            )
    if missing:
        print("placements: not run yet: " + ", ".join(missing))
    doc = {
        "date": datetime.date.today().isoformat(),
        "host": platform.node(),
        "families": FAMILIES,
        "rows": rows,
        "not_run": missing,
    }
    pathlib.Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"placements: written {args.json}")


if __name__ == "__main__":
    main()

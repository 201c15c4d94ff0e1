#!/usr/bin/python3
"""Property throughput: generated cases per second at 2, 4 and 8 ranks on
MPICH and Open MPI, against the bare time of the calls those cases make.

    /usr/bin/python3 bench/property_throughput/run.py [--vendors mpich,openmpi]
        [--ranks 2,4,8] [--cases 100] [--seed 1] [--build-root build] [--out FILE]

Each (library, rank count) is one run of ordo_property_bench
(bench_main.cpp), launched as `ordo run` launches checks: the adapter's
launcher and launch settings (MPICH: the yield-when-idle preload), a
journal, the adapter and the waivers. In the same process it times the
call of every generated case that passed at level MUST again alone (median
of 3, slowest rank; an erroneous or failing call is not repeated: it may
leave a rank waiting), so

    bare us/case     = sum of the bare calls / timed cases
    harness us/case  = the timed cases' wall time in the property (plus an
                       equal share of generation and RapidCheck) / timed
                       cases - bare us/case
    overhead ratio   = harness us/case / bare us/case      (goal: <= 2)

and a second table splits rank 0's time per case by harness phase: the
in-flight note, the communicator (drawn shapes built), the reference,
buffers and datatypes, the call, the check, the verdict exchange (waiting
for the slowest rank included), the journal, and what is outside the cases
(generation, RapidCheck, GoogleTest).

Known library findings are waived for every test here (the vendor's waivers
with their test names widened), so that the figures measure throughput and
not shrinking, and the cases a crash or timeout waiver names are not run
(--ordo-avoid-known-fatal: a job that dies would end the RapidCheck run). The table is
printed and written, with the date, the host and the library versions, to
bench/results/property_throughput.json. Builds in <build-root>/<vendor> (./ordo's
layout; ORDO_BUILD_ROOT) must exist: build them with `./ordo test` or `cmake --build
<dir> --target ordo_property_bench`. Every launch runs under `flock /tmp/ordo-mpi.lock
timeout 300`.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
# (as ./ordo uses them)
from runner.adapters import (  # noqa: E402
    launch_env,
    launcher_prefix,
    load_adapter,
)
from runner import build  # noqa: E402
from runner.launch import job_command, ordo_flags  # noqa: E402
from reports import waivers as waiver_files  # noqa: E402

COLUMNS = (
    "library",
    "ranks",
    "cases",
    "cases/s",
    "bare us/case",
    "harness us/case",
    "overhead ratio",
)


def widened_waivers(adapter, dest):
    """The vendor's waivers that name a case, each applying to every test (the
    property's included); a waiver that names only a test stays as it is (made
    to apply everywhere it would waive, or skip, every case)."""
    path = waiver_files.locate(adapter)
    doc = waiver_files.load_document(path) if path else {"waivers": []}
    for w in doc.get("waivers", []):
        if not w.get("case"):
            continue
        w["test"] = "*"
        for key, value in list((w.get("case") or {}).items()):
            if value == "inter-*":
                w["case"][key] = "inter*"
    dest.write_text(json.dumps(doc))
    return dest


def measure(adapter, bdir, n, cases, seed, tmp):
    env = launch_env(adapter, bdir, {}, False)
    prefix = launcher_prefix(adapter, bdir, env)
    exe = bdir / "bench" / "property_throughput" / "ordo_property_bench"
    if not exe.is_file():
        raise SystemExit(
            f"run.py: {exe} is not built (cmake --build {bdir} --target"
            " ordo_property_bench)"
        )
    journal = tmp / f"{adapter['name']}-{n}.jsonl"
    flags = ordo_flags(
        journal=journal,
        vendor=adapter["name"],
        seed=seed,
        property_cases=cases,
        adapter=adapter["_path"],
        reproducers=tmp,
        waivers=widened_waivers(adapter, tmp / (adapter["name"] + "-waivers.json")),
    )
    cmd = ["flock", "/tmp/ordo-mpi.lock"] + job_command(
        adapter,
        prefix,
        n,
        exe,
        timeout=300,
        kill_after=None,
        flags=flags + ["--ordo-avoid-known-fatal"],
    )
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith('{"bench":"property_throughput"'):
            row = json.loads(line)
            break
    else:
        tail = " / ".join((proc.stdout + proc.stderr).splitlines()[-5:])
        return {
            "library": adapter["name"],
            "ranks": n,
            "error": f"exit code {proc.returncode}: {tail}",
        }
    k = max(1, row.get("timed_cases", row["cases"]))
    per_case = row.get("timed_wall_seconds", row["property_seconds"]) / k * 1e6
    bare = row["bare_seconds"] / k * 1e6
    harness = per_case - bare
    row["phase_us_per_case"] = {
        name: round(sec / max(1, row["cases"]) * 1e6, 1)
        for name, sec in row.get("rank0_phase_seconds", {}).items()
    }
    row.update(
        {
            "library": adapter["name"],
            "cases_per_s": round(row["cases"] / max(row["property_seconds"], 1e-9), 1),
            "bare_us_per_case": round(bare, 1),
            "harness_us_per_case": round(harness, 1),
            "overhead_ratio": round(harness / bare, 2) if bare > 0 else None,
            "journal_records": sum(1 for _ in open(journal)) if journal.exists() else 0,
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
    lines = ["%-8s %5s %6s %9s %13s %16s %15s %5s" % (COLUMNS + ("seed",))]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['library']:8} {r['ranks']:5} error: {r['error'][:200]}")
            continue
        lines.append(
            "%-8s %5d %6d %9.1f %13.1f %16.1f %15s %5s"
            % (
                r["library"],
                r["ranks"],
                r["cases"],
                r["cases_per_s"],
                r["bare_us_per_case"],
                r["harness_us_per_case"],
                r["overhead_ratio"],
                r.get("seed", ""),
            )
        )
    return "\n".join(lines)


def phase_table(rows):
    """Where rank 0's time per case goes (all generated cases), by harness phase."""
    names = []
    for r in rows:
        for name in r.get("phase_us_per_case", {}):
            if name not in names:
                names.append(name)
    lines = [
        "%-8s %5s " % ("library", "ranks")
        + " ".join("%14s" % n for n in names)
        + " %14s" % "outside cases"
    ]
    for r in rows:
        if "error" in r or not r.get("phase_us_per_case"):
            continue
        ph = r["phase_us_per_case"]
        outside = r["property_seconds"] / max(1, r["cases"]) * 1e6 - sum(ph.values())
        lines.append(
            "%-8s %5d " % (r["library"], r["ranks"])
            + " ".join("%14.1f" % ph.get(n, 0) for n in names)
            + " %14.1f" % outside
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vendors", default="mpich,openmpi")
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument(
        "--cases", type=int, default=100, help="generated cases per run (default 100)"
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--build-root", default=os.environ.get("ORDO_BUILD_ROOT", str(ROOT / "build"))
    )
    ap.add_argument(
        "--out", default=str(ROOT / "bench" / "results" / "property_throughput.json")
    )
    args = ap.parse_args(argv)
    rows, versions = [], {}
    with tempfile.TemporaryDirectory(prefix="ordo-property-bench-") as t:
        tmp = pathlib.Path(t)
        for vendor in args.vendors.split(","):
            adapter = load_adapter(vendor)
            bdir = pathlib.Path(args.build_root).resolve() / adapter["name"]
            env = launch_env(adapter, bdir, {}, False)
            versions[adapter["name"]] = library_version(adapter, bdir, env)
            for n in (int(x) for x in args.ranks.split(",")):
                # A case that brings the library down (a known crash finding)
                # ends the run: the next seed is tried, and the row says which ran.
                for seed in range(args.seed, args.seed + 4):
                    row = measure(adapter, bdir, n, args.cases, seed, tmp)
                    if "error" not in row:
                        break
                row["seed"] = seed
                rows.append(row)
                print(table([row]).splitlines()[-1], flush=True)
    text = table(rows)
    print("\n" + text)
    phases = phase_table(rows)
    print("\nrank 0, us per generated case, by harness phase:\n" + phases)
    result = {
        "schema": "ordo.bench.property_throughput/1",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "host": platform.node(),
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "libraries": versions,
        "seed": args.seed,
        "cases_per_run": args.cases,
        "goal": "harness us/case <= 2 x bare us/case",
        "definitions": {
            "timed cases": (
                "the generated cases that passed at level MUST (an erroneous or failing"
                " call is not repeated alone: it may leave a rank waiting)"
            ),
            "bare_us_per_case": (
                "sum over the timed cases of the slowest rank's median time in the call"
                " alone, per timed case"
            ),
            "harness_us_per_case": (
                "the timed cases' wall time in the property (plus an equal share of "
                "the time outside the cases: generation, RapidCheck), per timed case, "
                "minus bare_us_per_case"
            ),
            "phase_table": (
                "rank 0's time per generated case in each harness phase "
                "(ordo::harness::Phase; verdict includes waiting for the slowest rank)"
            ),
            "overhead_ratio": "harness_us_per_case / bare_us_per_case",
        },
        "columns": list(COLUMNS) + ["seed"],
        "table": text.splitlines(),
        "phase_table": phases.splitlines(),
        "rows": rows,
    }
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {out}")
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

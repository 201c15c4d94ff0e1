#!/usr/bin/python3
"""Property throughput: generated cases per second at 2, 4 and 8 ranks on
MPICH and Open MPI, against the bare time of the calls those cases make.

    /usr/bin/python3 bench/property_throughput/run.py [--vendors mpich,openmpi]
        [--ranks 2,4,8] [--cases 100] [--seed 1] [--build-root build] [--out FILE]

Each (library, rank count) is one run of ordo_property_bench
(bench_main.cpp), launched as `ordo run` launches checks: the adapter's
launcher and launch settings (MPICH: the yield-when-idle preload), a
journal, the adapter and the waivers. In the same process it times every
generated case's call again alone (median of 3, slowest rank), so

    bare us/case     = sum of the bare calls / cases
    harness us/case  = property wall time / cases - bare us/case
                       (generation, the reference, buffers and guards, the
                       verdict exchange, the journal, communicator set-up)
    overhead ratio   = harness us/case / bare us/case      (goal: <= 2)

Known library findings are waived for every test here (the vendor's waivers
with their test names widened), so that the figures measure throughput and
not shrinking. The table is printed and written, with the date, the host and
the library versions, to bench/results/property_throughput.json. Builds in
<build-root>/<vendor> (./ordo's layout; ORDO_BUILD_ROOT) must exist: build
them with `./ordo test` or `cmake --build <dir> --target ordo_property_bench`.
Every launch runs under `flock /tmp/ordo-mpi.lock timeout 300`.
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
import ordo_cli  # noqa: E402  (adapters and launchers, as ./ordo uses them)

COLUMNS = ("library", "ranks", "cases", "cases/s", "bare us/case", "harness us/case", "overhead ratio")


def widened_waivers(adapter, dest):
    """The vendor's waivers, each applying to every test (the property's included)."""
    path = pathlib.Path(adapter["_dir"]) / adapter.get("waivers", "waivers.json")
    doc = json.loads(path.read_text()) if path.is_file() else {"waivers": []}
    for w in doc.get("waivers", []):
        w["test"] = "*"
        for key, value in list((w.get("case") or {}).items()):
            if value == "inter-*":
                w["case"][key] = "inter*"
    dest.write_text(json.dumps(doc))
    return dest


def measure(adapter, bdir, n, cases, seed, tmp):
    env = ordo_cli.launch_env(adapter, bdir, {}, False)
    prefix = ordo_cli.launcher_prefix(adapter, bdir, env)
    exe = bdir / "bench" / "property_throughput" / "ordo_property_bench"
    if not exe.is_file():
        raise SystemExit(f"run.py: {exe} is not built (cmake --build {bdir} --target ordo_property_bench)")
    journal = tmp / f"{adapter['name']}-{n}.jsonl"
    cmd = (["flock", "/tmp/ordo-mpi.lock", "timeout", "300"] + prefix +
           [adapter["launcher"]["np_flag"], str(n), str(exe), f"--ordo-journal={journal}",
            f"--ordo-vendor={adapter['name']}", f"--ordo-seed={seed}", f"--ordo-property-cases={cases}",
            f"--ordo-adapter={adapter['_path']}", f"--ordo-reproducers={tmp}",
            f"--ordo-waivers={widened_waivers(adapter, tmp / (adapter['name'] + '-waivers.json'))}"])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith('{"bench":"property_throughput"'):
            row = json.loads(line)
            break
    else:
        tail = " / ".join((proc.stdout + proc.stderr).splitlines()[-5:])
        return {"library": adapter["name"], "ranks": n, "error": f"exit code {proc.returncode}: {tail}"}
    k = max(1, row["cases"])
    per_case = row["property_seconds"] / k * 1e6
    bare = row["bare_seconds"] / k * 1e6
    harness = per_case - bare
    row.update({"library": adapter["name"], "cases_per_s": round(row["cases"] / max(row["property_seconds"], 1e-9), 1),
                "bare_us_per_case": round(bare, 1), "harness_us_per_case": round(harness, 1),
                "overhead_ratio": round(harness / bare, 2) if bare > 0 else None,
                "journal_records": sum(1 for _ in open(journal)) if journal.exists() else 0})
    return row


def library_version(adapter, bdir, env):
    """The first line of MPI_Get_library_version (ordo_replay), under the MPI lock."""
    cmd = (["flock", "/tmp/ordo-mpi.lock", "timeout", "60"] + ordo_cli.launcher_prefix(adapter, bdir, env) +
           [adapter["launcher"]["np_flag"], "1", str(bdir / "conformance" / "ordo_replay"), "--ordo-library-version"])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            try:
                return json.loads(line).get("library", "unknown").strip("\x00 \n").splitlines()[0]
            except (ValueError, IndexError):
                break
    return "unknown"


def table(rows):
    lines = ["%-8s %5s %6s %9s %13s %16s %15s %5s" % (COLUMNS + ("seed",))]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['library']:8} {r['ranks']:5} error: {r['error'][:200]}")
            continue
        lines.append("%-8s %5d %6d %9.1f %13.1f %16.1f %15s %5s" % (
            r["library"], r["ranks"], r["cases"], r["cases_per_s"], r["bare_us_per_case"],
            r["harness_us_per_case"], r["overhead_ratio"], r.get("seed", "")))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vendors", default="mpich,openmpi")
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument("--cases", type=int, default=100, help="generated cases per run (default 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build-root", default=os.environ.get("ORDO_BUILD_ROOT", str(ROOT / "build")))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "property_throughput.json"))
    args = ap.parse_args(argv)
    rows, versions = [], {}
    with tempfile.TemporaryDirectory(prefix="ordo-property-bench-") as t:
        tmp = pathlib.Path(t)
        for vendor in args.vendors.split(","):
            adapter = ordo_cli.load_adapter(vendor)
            bdir = pathlib.Path(args.build_root).resolve() / adapter["name"]
            env = ordo_cli.launch_env(adapter, bdir, {}, False)
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
    result = {
        "schema": "ordo.bench.property_throughput/1",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "platform": platform.platform(), "cores": os.cpu_count(),
        "libraries": versions, "seed": args.seed, "cases_per_run": args.cases,
        "goal": "harness us/case <= 2 x bare us/case",
        "definitions": {"bare_us_per_case": "sum over cases of the slowest rank's median time in the call alone",
                        "harness_us_per_case": "property wall time per case minus bare_us_per_case",
                        "overhead_ratio": "harness_us_per_case / bare_us_per_case"},
        "columns": list(COLUMNS) + ["seed"], "table": text.splitlines(), "rows": rows,
    }
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {out}")
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

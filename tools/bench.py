"""`ordo bench`: the suite's own benchmarks in one table, kept as JSON.

    the reference fold's throughput      (runs build/<vendor>/reference/ordo_fold_bench)
    property cases per second            (bench/results/property_throughput.json, written by
                                          bench/property_throughput/run.py)
    the default run's wall time          (run.json of `ordo run` output folders, per rank count)
    the mutant vendor's detection times  (mutants.json of an `ordo mutants` output folder)

Nothing here is timed by a test: the figures are measurements, printed and
written to bench/results/suite.json (or --json PATH).
"""
import datetime
import glob
import json
import os
import pathlib
import platform
import subprocess

from runner import ROOT
from runner.adapters import build_dir_for, load_adapter
from runner.build import build, git_state
from runner.errors import EXIT_INFRA, EXIT_OK, OrdoError
SCHEMA = "ordo.bench/1"


def add_arguments(p):
    p.add_argument("--runs", nargs="*", default=[], metavar="OUT",
                   help="output folders of default `ordo run`s (one per library) for the wall-time rows")
    p.add_argument("--mutants", metavar="OUT",
                   help="output folder of `ordo mutants` (default: the newest out/mutants-*)")
    p.add_argument("--vendor", default="mpich", help="the build whose fold benchmark runs (default: mpich)")
    p.add_argument("--json", metavar="PATH", help="where to keep the table (default: bench/results/suite.json)")


def fold_rows(vendor):
    adapter = load_adapter(vendor)
    bdir = build_dir_for(adapter)
    exe = bdir / "reference" / "ordo_fold_bench"
    if not exe.exists():
        if not (bdir / "CMakeCache.txt").exists():
            build(adapter, reference_tests=False, quiet=True)
        if subprocess.call(["cmake", "--build", str(bdir), "--target", "ordo_fold_bench"],
                           stdout=subprocess.DEVNULL) != 0:
            raise OrdoError(f"the fold benchmark did not build in {bdir}", EXIT_INFRA)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise OrdoError(f"{exe} failed: {out.stderr.strip()[:200]}", EXIT_INFRA)
    rows = []
    for line in out.stdout.splitlines()[1:]:
        f = line.split()
        if len(f) == 5:
            rows.append({"op": f[0], "datatype": f[1], "p": int(f[2]), "count": int(f[3]),
                         "combines_per_s": float(f[4])})
    return rows


def read_json(path, what):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise OrdoError(f"{path} ({what}) is unreadable or corrupt: {e}")


def run_rows(runs):
    rows = []
    for d in runs:
        run = read_json(pathlib.Path(d) / "run.json", "a run file")
        if run is None:
            raise OrdoError(f"{d} holds no run.json: give output folders of `ordo run`")
        if not run.get("end"):
            raise OrdoError(f"the run in {d} is not finished: its wall times would be partial")
        for row in run.get("per_rank_count", []):
            if row.get("variant", "default") != "default":
                continue
            rows.append({"library": run.get("vendor"), "ranks": row["ranks"], "seconds": row["seconds"],
                         "checks": sum(row.get("outcomes", {}).values()),
                         "property_budget": (run.get("settings") or {}).get("property_budget"), "run": str(d)})
    return rows


def mutant_rows(folder):
    if folder is None:
        found = sorted(glob.glob(str(ROOT / "out" / "mutants-*" / "mutants.json")), key=os.path.getmtime)
        if not found:
            return None, []
        path = pathlib.Path(found[-1])
    else:
        path = pathlib.Path(folder) / "mutants.json"
    doc = read_json(path, "the mutants report")
    if doc is None:
        raise OrdoError(f"{path} not found: give the output folder of `ordo mutants`")
    return str(path), [{"mutant": m["name"], "detected": m["detected"],
                        "seconds": m.get("seconds"), "by": (m.get("caught_by") or {}).get("check", "")[:80]}
                       for m in doc.get("mutants", [])]


def run(args):
    table = {"schema": SCHEMA, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "host": platform.node(), "cores": os.cpu_count(), "git": git_state()}
    table["fold"] = fold_rows(args.vendor)
    prop = read_json(ROOT / "bench" / "results" / "property_throughput.json", "the property benchmark")
    table["properties"] = prop
    table["runs"] = run_rows(args.runs)
    table["mutants_source"], table["mutants"] = mutant_rows(args.mutants)

    print("reference fold (element-combines per second, best of several)")
    for r in table["fold"]:
        print(f"  {r['op']:10} {r['datatype']:14} p={r['p']:<3} count={r['count']:<9} {r['combines_per_s']:12.3e}")
    print("property cases per second against the bare collectives")
    if prop is None:
        print("  not measured here: /usr/bin/python3 bench/property_throughput/run.py writes bench/results/property_throughput.json")
    else:
        print(f"  {'library':9} {'ranks':>5} {'cases':>6} {'cases/s':>9} {'bare us/case':>13} "
              f"{'harness us/case':>16} {'ratio':>7}")
        for r in prop.get("rows", prop.get("table", [])):
            print(f"  {r.get('library', '?'):9} {r.get('ranks', 0):>5} {r.get('cases', 0):>6} "
                  f"{r.get('cases_per_s', 0):>9.1f} {r.get('bare_us_per_case', 0):>13.1f} "
                  f"{r.get('harness_us_per_case', 0):>16.1f} {r.get('overhead_ratio') or 0:>7.2f}")
    print("default run, wall time per rank count")
    if not table["runs"]:
        print("  no runs given (--runs OUT ...)")
    for r in table["runs"]:
        print(f"  {r['library']:10} {r['ranks']:>2} ranks {r['seconds']:8.1f} s  {r['checks']:6d} checks")
    for lib in sorted({r["library"] for r in table["runs"]}):
        total = sum(r["seconds"] for r in table["runs"] if r["library"] == lib)
        print(f"  {lib:10} all      {total:8.1f} s")
    print("mutant vendor, time to detection" + (f" ({table['mutants_source']})" if table["mutants_source"] else ""))
    if not table["mutants"]:
        print("  no `ordo mutants` output found")
    for r in table["mutants"]:
        print(f"  {r['mutant']:32} {'detected' if r['detected'] else 'MISSED':9} {r['seconds'] or 0:7.2f} s  {r['by']}")
    dest = pathlib.Path(args.json) if args.json else ROOT / "bench" / "results" / "suite.json"
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".tmp")
        tmp.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, dest)
    except OSError as e:
        raise OrdoError(f"cannot write {dest}: {e.strerror}")
    print(f"table: {dest}")
    return EXIT_OK

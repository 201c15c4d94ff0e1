"""Collective latency on this machine: microseconds per call of MPI_Allreduce,
MPI_Reduce, MPI_Scan and MPI_Reduce_scatter_block on 1 and 1024 MPI_INT, at
each rank count, per library and launch.

    /usr/bin/python3 bench/collective_latency/run.py [--ranks 2-8]
        [--configs mpich:plain,mpich:settings,openmpi:settings]
        [--slow-iters N] [--fast-iters 1000]

A configuration is LIBRARY:LAUNCH. LIBRARY is an adapter (vendors/<name>);
LAUNCH is "plain" (the adapter's launcher alone, as `ordo run --plain-launch`)
or "settings" (with the adapter's launch_settings, as `ordo run`: for MPICH,
the yield-when-idle preload that the build makes from
vendors/mpich/yield_when_idle.c). The program is compiled with the adapter's
C compiler into <build-root>/<vendor>/bench/collective_latency/, and launched
through runner.launch (the launch line of every ordo job), each under
`flock /tmp/ordo-mpi.lock` and a 120 s timeout. The build of the library
(<build-root>/<vendor>: ./ordo run or ./ordo test makes it) must exist when a
configuration needs its preload library.

Plain MPICH runs --slow-iters iterations (default: the program's own, 40):
without the preload its waits busy-poll through whole scheduler ticks when
there are more ranks than cores.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from runner.adapters import launch_env, launcher_prefix, load_adapter  # noqa: E402
from runner.arguments import parse_ranks  # noqa: E402
from runner.errors import OrdoError  # noqa: E402
from runner.launch import job_command  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parent / "collective_latency.c"
COLUMNS = [
    ("MPI_Allreduce", 1, "allred1"),
    ("MPI_Allreduce", 1024, "allred1k"),
    ("MPI_Reduce", 1, "reduce1"),
    ("MPI_Reduce", 1024, "reduce1k"),
    ("MPI_Scan", 1, "scan1"),
    ("MPI_Scan", 1024, "scan1k"),
    ("MPI_Reduce_scatter_block", 1, "redscat1"),
    ("MPI_Reduce_scatter_block", 1024, "redscat1k"),
]
LINE = re.compile(r"^(\S+) count=(\d+) ranks=\d+ iters=\d+ us_per_call=([0-9.]+)")


def compile_program(adapter, bdir):
    cc = shutil.which(adapter["compilers"]["c"]) or adapter["compilers"]["c"]
    dest = bdir / "bench" / "collective_latency"
    dest.mkdir(parents=True, exist_ok=True)
    exe = dest / "collective_latency"
    if subprocess.call([cc, "-O2", "-o", str(exe), str(SOURCE)]) != 0:
        raise OrdoError(f"{cc} could not compile {SOURCE}")
    return exe


def check_preloads(env):
    """A preload library the launch settings name must have been built."""
    for lib in env.get("LD_PRELOAD", "").split(":"):
        if lib and not pathlib.Path(lib).is_file():
            raise OrdoError(
                f"{lib} is not built: build the library's tree first (./ordo run or "
                f"cmake --build {pathlib.Path(lib).parents[2]})"
            )


def measure(adapter, bdir, exe, launch, ranks, iters):
    env = launch_env(adapter, bdir, {}, plain_launch=(launch == "plain"))
    check_preloads(env)
    cmd = ["flock", "/tmp/ordo-mpi.lock"] + job_command(
        adapter,
        launcher_prefix(adapter, bdir, env),
        ranks,
        exe,
        timeout=120,
        kill_after=None,
        flags=[str(iters)] if iters else [],
    )
    proc = subprocess.run(cmd, capture_output=True, text=True)
    found = {}
    for line in proc.stdout.splitlines():
        m = LINE.match(line)
        if m:
            found[(m.group(1), int(m.group(2)))] = m.group(3)
    missing = "timeout" if proc.returncode == 124 else "fail"
    return [found.get((routine, count), missing) for routine, count, _ in COLUMNS]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", default="2-8", help="rank counts (default: 2-8)")
    ap.add_argument(
        "--configs",
        default="mpich:plain,mpich:settings,openmpi:settings",
        help="LIBRARY:plain|settings, comma-separated",
    )
    ap.add_argument(
        "--slow-iters",
        type=int,
        help="iterations of plain MPICH (default: the program's, 40)",
    )
    ap.add_argument(
        "--fast-iters",
        type=int,
        default=1000,
        help="iterations of the others (default: 1000)",
    )
    ap.add_argument(
        "--build-root", default=os.environ.get("ORDO_BUILD_ROOT", str(ROOT / "build"))
    )
    args = ap.parse_args(argv)
    try:
        ranks = parse_ranks(args.ranks)
        configs = [c.split(":", 1) for c in args.configs.split(",")]
        if any(len(c) != 2 or c[1] not in ("plain", "settings") for c in configs):
            raise OrdoError(
                f"--configs '{args.configs}': each is LIBRARY:plain or LIBRARY:settings"
            )
        print(
            "# microseconds per call (max over ranks);"
            " Allreduce/Reduce/Scan/Reduce_scatter_block on 1 and 1024 MPI_INT"
        )
        print(
            f"{'library':8} {'launch':8} {'ranks':>5} "
            + " ".join(f"{name:>10}" for _, _, name in COLUMNS)
        )
        built = {}
        for vendor, launch in configs:
            adapter = load_adapter(vendor)
            bdir = pathlib.Path(args.build_root).resolve() / adapter["name"]
            if vendor not in built:
                built[vendor] = compile_program(adapter, bdir)
            slow = launch == "plain" and adapter["name"] == "mpich"
            for n in ranks:
                row = measure(
                    adapter,
                    bdir,
                    built[vendor],
                    launch,
                    n,
                    args.slow_iters if slow else args.fast_iters,
                )
                print(
                    f"{adapter['name']:8} {launch:8} {n:>5} "
                    + " ".join(f"{v:>10}" for v in row),
                    flush=True,
                )
    except OrdoError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

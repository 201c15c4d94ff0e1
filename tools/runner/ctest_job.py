"""`ordo job`: one check executable at one rank count, as CTest runs it (a
hidden command: cmake/ registers it for every check executable)."""
import pathlib

from reports.records import is_bad, read_journal
from .adapters import launch_env, launcher_prefix, load_adapter
from .build import library_version
from .errors import EXIT_FAIL, EXIT_OK
from .job import run_job
from .journal import summarize
from .launch import job_command, ordo_flags
from .waivers import JobWaivers, library_release


def cmd_job(args):
    """One check executable at one rank count, as CTest runs it: resumed after
    crashes and timeouts, waivers applied; exit 0 when nothing failed."""
    adapter = load_adapter(args.vendor)
    build = pathlib.Path(args.build_dir).resolve()
    env = launch_env(adapter, build, {}, False)
    prefix = launcher_prefix(adapter, build, env)
    out = pathlib.Path(args.out).resolve()
    (out / "logs").mkdir(parents=True, exist_ok=True)
    (out / "gtest").mkdir(exist_ok=True)
    journal = out / "journal.jsonl"
    journal.write_text("")
    name = pathlib.Path(args.executable).name
    # The library's release is asked only when a job died and a waiver names releases.
    waivers = JobWaivers(
        adapter,
        lambda: library_release(library_version(prefix, adapter, build)["library"]),
    )
    base = job_command(
        adapter,
        prefix,
        args.ranks,
        args.executable,
        timeout=args.timeout,
        flags=ordo_flags(
            journal=journal,
            vendor=adapter["name"],
            adapter=adapter["_path"],
            case_timeout=args.case_timeout,
            waivers=waivers.flag(),
        )
        # A case that a crash or timeout waiver names for this release is a skip
        # with that reason here: a known hang would cost the case time limit in
        # every build (`ordo run --run-known-fatal` runs it).
        + ["--ordo-avoid-known-fatal"],
    )
    run_job(base, name, args.ranks, out, journal, adapter, 50, waivers=waivers)
    records = read_journal(journal)
    bad = [r for r in records if is_bad(r)]
    counts = summarize(records)
    print(
        f"{name} at {args.ranks} ranks: {len(records)} checks: "
        + ", ".join(f"{v} {o}" for o, v in sorted(counts.items()))
    )
    for r in bad[:20]:
        print(
            f"  {r.get('outcome')}: {r.get('id')} [{r.get('clause')}, {r.get('level')}]"
            f" {(r.get('message') or '')[:400]}"
        )
    return EXIT_FAIL if bad else EXIT_OK

"""`ordo replay`: one case again, from its JSON or from a journal record."""
import json
import pathlib
import shutil
import subprocess
import tempfile

from reports.records import read_journal
from . import abi
from . import placement as placement_mod
from . import protocol
from . import variants as variants_mod
from .adapters import (
    env_notices,
    launch_env,
    launcher_prefix,
    notice_line,
    require_launcher,
    with_launcher,
)
from .arguments import parse_env, parse_ranks
from .build import build
from .errors import EXIT_FAIL, EXIT_INFRA, EXIT_OK, OrdoError
from .launch import job_command, ordo_flags


def pick_records(records, rid, path, variant, ranks):
    """The records of one id that a replay may take. A journal holds a record of an
    id per variant and rank count, and the same id names another case at another
    rank count (each rank count's crossing array is its own): --variant and --ranks
    choose; without --ranks, an id that ran at several rank counts is refused."""
    where = f" under variant {variant}" if variant else ""
    if variant:
        records = [r for r in records if (r.get("variant") or "default") == variant]
    if ranks is not None:
        records = [r for r in records if r.get("ranks", ranks) == ranks]
        where += f" at {ranks} ranks"
    records = [r for r in records if r.get("case")]
    if not records:
        raise OrdoError(f"no record with a case and id '{rid}'{where} in {path}")
    counts = sorted({r["ranks"] for r in records if isinstance(r.get("ranks"), int)})
    if len(counts) > 1:
        raise OrdoError(
            f"the id '{rid}' names a case at each of {len(counts)} rank counts"
            f" ({', '.join(map(str, counts))}) in {path}: say which with --ranks"
        )
    return records


def cmd_replay(args):
    # --abi: through the MPI-5.0 standard ABI's build, as the run was (runner/abi.py)
    adapter = abi.adapter_for(
        {
            "vendor": args.vendor,
            "abi": getattr(args, "abi", False),
            "abi_library": getattr(args, "abi_library", None),
        }
    )
    # --ranks given or not: a journal's id names a case at each rank count it ran
    asked_ranks = args.ranks is not None
    ranks = parse_ranks(args.ranks if asked_ranks else "2")
    if len(ranks) != 1:
        raise OrdoError("--ranks takes one rank count for replay")
    clause = args.clause or "replay"
    level = getattr(args, "level", None)
    nodes, where = getattr(args, "nodes", None), getattr(args, "placement", None)
    variant = getattr(args, "variant", None)
    if args.record:
        path, _, rid = args.record.rpartition(":")
        journal = pathlib.Path(path)
        if not journal.exists() and journal.with_name(journal.name + ".gz").is_file():
            # a finished run's journal.jsonl, now compressed
            journal = journal.with_name(journal.name + ".gz")
        records = pick_records(
            [r for r in read_journal(journal) if r.get("id") == rid],
            rid,
            path,
            variant,
            ranks[0] if asked_ranks else None,
        )
        variant = variant or records[0].get("variant")
        case_json = json.dumps(records[0]["case"])
        clause = records[0].get("clause", clause)
        level = level or records[0].get("level")
        ranks = [records[0].get("ranks", ranks[0])]
        # the record's virtual nodes, unless told otherwise
        if nodes is None and records[0].get("nodes"):
            nodes, where = records[0]["nodes"], records[0].get("placement")
    elif args.case:
        case_json = args.case
    else:
        raise OrdoError("replay needs --case '<json>' or --record JOURNAL:ID")
    try:
        if not isinstance(json.loads(case_json), dict):
            raise ValueError("not an object")
    except ValueError as e:
        raise OrdoError(f"--case is not a JSON object: {e}")
    user_env = parse_env(args.env)
    # what the user's --env may replace besides the adapter's own (env_notices)
    variant_layers = []
    # the variant's settings, as `ordo run` sets them (run.py)
    if variant and variant != "default":
        try:
            chosen = variants_mod.select(
                adapter, variant, variants_mod.discover(adapter)
            )[0]
        except variants_mod.VariantError as e:
            raise OrdoError(str(e))
        variant_layers = [
            (
                f"variant {chosen['name']}",
                variants_mod.launch_settings(adapter, chosen, {}),
            )
        ]
        user_env = variants_mod.launch_settings(adapter, chosen, user_env)
        print(
            f"ordo: replay under variant {variant}: "
            + " ".join(f"{k}={v}" for k, v in sorted(user_env.items())),
            flush=True,
        )
    launcher = getattr(args, "launcher", None)
    if launcher and nodes is not None:
        raise OrdoError(
            f"--nodes with --launcher {launcher}: the virtual nodes are made through"
            " the adapter's own launcher; replay --nodes without --launcher"
        )
    launched = with_launcher(adapter, launcher) if launcher else adapter
    if launcher:
        require_launcher(launched)
    bdir, prefix = build(
        adapter,
        reference_tests=False,
        user_env=user_env,
        plain_launch=args.plain_launch,
        quiet=True,
        sanitize=getattr(args, "sanitize", False),
    )
    for notice in env_notices(
        launched, bdir, parse_env(args.env), args.plain_launch, variant_layers
    ):
        print(notice_line(notice), flush=True)
    nodes, where = placement_mod.from_settings({"nodes": nodes, "placement": where})
    placed = adapter
    # the build keeps the adapter's launcher; the replay starts through the template
    if launcher:
        placed = launched
        prefix = launcher_prefix(
            placed,
            bdir,
            launch_env(
                placed,
                bdir,
                user_env,
                args.plain_launch,
                getattr(args, "sanitize", False),
            ),
        )
    if nodes is not None:
        plan = placement_mod.plan(adapter, where, nodes, ranks)[ranks[0]]
        placed, placed_env = placement_mod.apply(
            adapter,
            plan["method"],
            plan["node_of"],
            bdir / "virtual-nodes" / f"hostfile-{ranks[0]}ranks",
            bdir,
        )
        env = launch_env(
            placed,
            bdir,
            {**placed_env, **user_env},
            args.plain_launch,
            getattr(args, "sanitize", False),
        )
        prefix = launcher_prefix(placed, bdir, env)
        found, tail = placement_mod.probe(placed, prefix, ranks[0], bdir)
        placement_mod.verify(
            found,
            plan["groups"],
            vendor=adapter["name"],
            nodes=nodes,
            placement=where,
            ranks=ranks[0],
            where="ordo_replay --ordo-node-map" + ("" if found else f"; {tail}"),
        )
    # A journal of its own, in the build folder (seen by every node), for the
    # markers by which the job's end is judged: each rank's MPI_Finalize.
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="replay-", dir=bdir))
    try:
        journal = scratch / "journal.jsonl"
        cmd = job_command(
            placed,
            prefix,
            ranks[0],
            bdir / "conformance" / "ordo_replay",
            timeout=args.timeout,
            flags=ordo_flags(
                case=case_json,
                clause=clause,
                level=level,
                vendor=adapter["name"],
                journal=journal,
            )
            + placement_mod.flags(nodes, where),
        )
        rc = subprocess.call(cmd)
        return replay_status(rc, journal, ranks[0])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def replay_status(rc, journal, size):
    """The replay's exit status: the case's (0 pass, 1 fail, 3 the job died),
    except that a job that ran its case to the end but in which a rank's
    MPI_Finalize did not return died after the case (a library that damaged
    its memory in the case, say): that is said in one line, and the replay
    fails, whatever the launcher's exit status (a launcher may exit 0 after an
    abort in MPI_Finalize)."""
    unreturned = protocol.finalize_not_returned(journal) if rc in (0, 1) else []
    if unreturned:
        outcome = "pass" if rc == 0 else "fail"
        print(
            f"ordo replay: the job died after the case ({outcome}):"
            f" MPI_Finalize did not return on rank(s)"
            f" {', '.join(map(str, unreturned))} of {size} (launcher exit status"
            f" {rc}); the library's output above says how",
            flush=True,
        )
        return EXIT_FAIL
    return EXIT_OK if rc == 0 else (EXIT_FAIL if rc == 1 else EXIT_INFRA)

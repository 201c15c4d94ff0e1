"""The property phase of `ordo run`: the RapidCheck properties of
property_tests/ (build/<vendor>/property_tests/ordo_properties) at each rank
count, with a budget and a fixed seed.

    --property-budget N    N generated cases per rank count (repeatable: the
                           cases depend only on the seed, the rank count and N)
    --property-budget Ns   N seconds in all, shared over the rank counts; each
                           rank count runs in slices sized from the measured
                           rate (the number of cases then depends on the
                           machine's speed: for repeatable CI runs use cases)
    --property-budget 0    no property phase

Each run goes through runner.job.run_job, so a crash or a timeout is recorded
against its case and the run resumes after it, as for every check. The
property writes one record per case and one summary record per run (clause
property.reduce-family, level INFO: seed, cases, distribution, and on failure
the shrunk case, its replay command and reproducer); a run that ended without
its summary gets one written here.
"""
import json
import pathlib
import re
import time

from reports import records as records_mod, waivers as waiver_files
from reports.records import BAD, read_journal
from .journal import probe_writable
from .launch import job_command, ordo_flags


PROPERTY_TEST = "Properties.reduce_family_agrees_with_the_reference"
SUMMARY_CLAUSE = "property.reduce-family"
EXECUTABLE = pathlib.Path("property_tests") / "ordo_properties"
# A rank count of 1 has no process to combine with: every routine copies its
# input (or leaves the buffer alone), there is no rank order to get wrong and
# no intercommunicator to draw; the curated checks cover 1 rank.
ONE_RANK_REASON = (
    "skipped: at 1 rank no two processes combine (no rank order to check, "
    "no sub- or intercommunicator to draw); the curated checks cover 1 rank"
)
FIRST_SLICE_CASES = 10  # seconds budget: the slice that measures the rate
MAX_SLICES = 6  # seconds budget: slices per rank count at most


class ReproducerDirError(OSError):
    """The reproducer folder cannot be created or written (one-line message)."""


def parse_budget(text):
    """("off", 0), ("cases", N) or ("seconds", S) from "0", "N" or "Ns"."""
    t = str(text).strip().lower()
    m = re.fullmatch(r"(\d+)", t) or re.fullmatch(r"(\d+(?:\.\d+)?)\s*s", t)
    if not m:
        raise ValueError(
            f"--property-budget '{text}' is not a number of cases per rank count (e.g."
            " 20) or of seconds in all (e.g. 90s); 0 turns the property phase off"
        )
    value = float(m.group(1)) if t.endswith("s") else int(m.group(1))
    if value == 0:
        return ("off", 0)
    if t.endswith("s"):
        return ("seconds", value)
    if value > 10_000_000:
        raise ValueError(
            f"--property-budget '{text}' is too many cases (at most 10000000 per rank"
            " count)"
        )
    return ("cases", value)


def slice_seed(seed, ranks, index):
    """RapidCheck's seed for slice `index` at `ranks`: the run's seed for the
    first slice (so that `--seed S` names what runs), a fixed mix of it after."""
    if index == 0:
        return seed
    return (seed * 6364136223846793005 + ranks * 1442695040888963407 + index) % (
        2**63
    )


def reproducer_dir(out):
    """out/reproducers, created and checked writable; ReproducerDirError otherwise."""
    d = pathlib.Path(out) / "reproducers"
    try:
        probe_writable(d)
    except OSError as e:
        raise ReproducerDirError(
            e.errno, f"cannot write the reproducer folder {d}: {e.strerror or e}"
        ) from None
    return d


def _size(journal):
    journal = pathlib.Path(journal)
    return journal.stat().st_size if journal.exists() else 0


def _fallback_summary(journal, adapter, variant, n, seed, cases, records, seconds):
    """The summary of a property run whose process never wrote one."""
    bad = [r for r in records if r.get("outcome") in BAD]
    record = records_mod.property_summary(
        test=PROPERTY_TEST,
        clause=SUMMARY_CLAUSE,
        ranks=n,
        vendor=adapter["name"],
        variant=variant,
        seed=seed,
        cases=cases,
        bad=len(bad),
        seconds=seconds,
        written_by="tools/properties.py",
    )
    with open(journal, "a") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
    return record


def run_phase(
    *,
    adapter,
    bdir,
    prefix,
    out,
    journal,
    ranks,
    budget,
    seed,
    case_timeout,
    job_timeout,
    run_job,
    variant="default",
    extra_args=(),
):
    """Runs the properties at each rank count of `ranks` that is >= 2.

    Returns {"cases": total, "seconds": s, "per_ranks": [...], "failures": k}
    where k counts the property runs that did not pass (a failed property, a
    crash or a timeout). Raises ValueError for a malformed budget,
    FileNotFoundError when the property executable was not built, and
    ReproducerDirError (an OSError) when out/reproducers cannot be written.
    """
    kind, amount = parse_budget(budget)
    result = {
        "cases": 0,
        "seconds": 0.0,
        "per_ranks": [],
        "failures": 0,
        "budget": budget,
        "seed": seed,
    }
    if kind == "off":
        return result
    exe = pathlib.Path(bdir) / EXECUTABLE
    if not exe.is_file():
        raise FileNotFoundError(f"the property executable {exe} was not built")
    out = pathlib.Path(out)
    journal = pathlib.Path(journal)
    repro = reproducer_dir(out)
    waivers = waiver_files.locate(adapter)
    counts = [n for n in ranks if n >= 2]
    for n in ranks:
        if n < 2:
            result["per_ranks"].append(
                {"ranks": n, "cases": 0, "seconds": 0.0, "skipped": ONE_RANK_REASON}
            )
    t_phase = time.time()

    def one_run(n, cases, index):
        rc_seed = slice_seed(seed, n, index)
        flags = ordo_flags(
            journal=journal,
            vendor=adapter["name"],
            variant=variant,
            seed=rc_seed,
            property_cases=cases,
            property_case_timeout=case_timeout,
            adapter=adapter["_path"],
            reproducers=repro,
            waivers=waivers,
        )
        base = job_command(
            adapter, prefix, n, exe, timeout=job_timeout, flags=flags + list(extra_args)
        )
        name = exe.name if index == 0 else f"{exe.name}.slice{index + 1}"
        offset = _size(journal)
        t0 = time.time()
        run_job(base, name, n, out, journal, adapter, 20)
        dt = time.time() - t0
        records = read_journal(journal, offset)
        summaries = [
            r
            for r in records
            if r.get("clause") == SUMMARY_CLAUSE and isinstance(r.get("property"), dict)
        ]
        case_records = [
            r for r in records if r.get("test") == PROPERTY_TEST and r.get("seq")
        ]
        if summaries:
            ran = max(int(s["property"].get("cases") or 0) for s in summaries)
            inner = sum(float(s["property"].get("seconds") or 0) for s in summaries)
        else:
            ran = len(case_records)
            inner = dt
            summaries = [
                _fallback_summary(
                    journal, adapter, variant, n, rc_seed, ran, records, dt
                )
            ]
        failed = any(r.get("outcome") in BAD for r in records) or not all(
            s["property"].get("passed") for s in summaries
        )
        return {
            "seed": rc_seed,
            "cases": ran,
            "seconds": dt,
            "property_seconds": inner,
            "failed": failed,
        }

    for i, n in enumerate(counts):
        t_n = time.time()
        runs = []
        if kind == "cases":
            runs.append(one_run(n, int(amount), 0))
        else:
            share = (amount - (time.time() - t_phase)) / (len(counts) - i)
            if share > 0:
                runs.append(one_run(n, FIRST_SLICE_CASES, 0))
            while runs and len(runs) < MAX_SLICES:
                left = share - (time.time() - t_n)
                cases = sum(r["cases"] for r in runs)
                per_case = max(
                    1e-4, sum(r["property_seconds"] for r in runs) / max(1, cases)
                )
                startup = max(
                    0.0,
                    sum(r["seconds"] - r["property_seconds"] for r in runs) / len(runs),
                )
                more = int((left - startup) / per_case * 0.9)
                if more < 1 or runs[-1]["failed"]:
                    break
                runs.append(one_run(n, more, len(runs)))
        row = {
            "ranks": n,
            "cases": sum(r["cases"] for r in runs),
            "seconds": round(time.time() - t_n, 2),
            "slices": len(runs),
            "seeds": [r["seed"] for r in runs],
            "failures": sum(1 for r in runs if r["failed"]),
        }
        result["per_ranks"].append(row)
        result["cases"] += row["cases"]
        result["failures"] += row["failures"]
    result["per_ranks"].sort(key=lambda r: r["ranks"])
    result["seconds"] = round(time.time() - t_phase, 2)
    return result

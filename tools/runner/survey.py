"""Which cases an executable has (its survey), and which of them a variant's
targets select: a variant sweep launches only the executables that have
cases its algorithm is used for."""
import pathlib
import subprocess

from .launch import die_with_parent, job_command, ordo_flags


def case_kind(case):
    return "inter" if str(case.get("comm", "")).startswith("inter") else "intra"


def target_matches(t, routine, mode, kind):
    return (
        (t.get("routine", "*") in ("*", routine))
        and (t.get("comm", "any") in ("*", "any", kind))
        and (not t.get("modes") or "*" in t["modes"] or mode in t["modes"])
    )


def select_flag(variant):
    if not variant.get("targets"):
        return []
    parts = [
        f"{t.get('routine', '*')}:{'+'.join(t.get('modes') or ['*'])}:"
        f"{t.get('comm', 'any')}"
        for t in variant["targets"]
    ]
    return ["--ordo-select=" + ";".join(parts)]


def survey_cases(prefix, adapter, n, exe, out, settings):
    """Which cases (routine, mode, comm kind) a check executable has at n
    ranks, without running any: a variant sweep launches only the
    executables that have cases its algorithm is used for. None if the
    survey did not finish (then the executable is run)."""
    path = out / "logs" / f"survey-{pathlib.Path(exe).name}-{n}ranks.txt"
    path.unlink(missing_ok=True)
    cmd = job_command(
        adapter,
        prefix,
        n,
        exe,
        timeout=300,
        flags=ordo_flags(
            survey=path,
            vendor=adapter["name"],
            seed=settings["seed"],
            adapter=adapter["_path"],
        )
        + ([f"--gtest_filter={settings['only']}"] if settings.get("only") else []),
    )
    rc = subprocess.call(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    if rc not in (0, 1):
        return None
    try:
        lines = path.read_text().splitlines() if path.exists() else []
    except OSError:
        return None
    return sorted({tuple(line.split()) for line in lines if len(line.split()) == 3})

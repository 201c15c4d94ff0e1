"""Algorithm variants of an MPI library: what `ordo run --variants` sweeps.

A variant is one internal algorithm of the library, forced through the
environment of every rank, and the cases it concerns:

    {"name": "mpich.reduce.intra.binomial",
     "env": {"MPIR_CVAR_REDUCE_INTRA_ALGORITHM": "binomial", ...},
     "targets": [{"routine": "reduce", "modes": ["blocking"], "comm": "intra"}],
     "source": "mpivars: MPIR_CVAR_REDUCE_INTRA_ALGORITHM",
     "fallback": {"env": {...}, "pattern": "regex"} or None}

`discover(adapter)` generates the variants from what the installed library
reports about itself (the adapter's "algorithm_variants"."discover" names
how) and adds the adapter's "static" entries; `select(adapter, spec,
discovered)` picks the variants of `--variants default|all|a,b,c`.

"env" holds everything the choice needs, the adapter's "common_env"
included (an entry of the variant itself wins over common_env). "fallback",
when not None, says how the library reports that it did not run the forced
algorithm: run the job with fallback["env"] added and look for
fallback["pattern"] (a Python regex) in its output.

MPICH (discover "mpich-mpivars"): one variant per value of the
MPIR_CVAR_[I]<COLL>_{INTRA,INTER}_ALGORITHM control variables of the reduce
family, read from `mpivars` (MPI_T: the enum values are the words before
" - " in each variable's description, which MPI_T returns with its line
breaks removed, so the words are split apart here and, when the tool can run,
checked by setting each value and reading back its index through `mpivars`).

Open MPI (discover "openmpi-ompi_info"): one variant per algorithm number
> 0 of coll_tuned_<coll>_algorithm and coll_libnbc_i<coll>_algorithm (the
enumerators of `ompi_info --parsable --all --level 9`), and of
coll_adapt_reduce_algorithm (from its help text, which is its only list).

Python standard library only: the CLI imports this module.
"""
import fnmatch
import os
import re
import shutil
import subprocess


ROUTINES = (
    "reduce",
    "allreduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
)
MODES = ("blocking", "nonblocking", "persistent")
COMMS = ("intra", "inter", "any")
NAME_RE = re.compile(r"^[a-z0-9._-]+$")


DEFAULT = {
    "name": "default",
    "env": {},
    "targets": None,
    "source": "the library's own selection",
    "fallback": None,
}


class VariantError(ValueError):
    """A problem with a variant specification or with discovery (one line)."""


# ---- MPICH ---------------------------------------------------------------

# The reduce family's algorithm variables, longest collective name first so that
# REDUCE_SCATTER_BLOCK is not read as REDUCE_SCATTER.
_MPICH_COLLS = (
    "REDUCE_SCATTER_BLOCK",
    "REDUCE_SCATTER",
    "ALLREDUCE",
    "REDUCE",
    "EXSCAN",
    "SCAN",
)
_MPICH_ALGO_RE = re.compile(
    r"^\s*(MPIR_CVAR_(I?)(%s)_(INTRA|INTER)_ALGORITHM)\s*=([^\t]*)\t(.*)$"
    % "|".join(_MPICH_COLLS),
    re.S,
)
# Values that are not an algorithm: the library's own choice. ("sched_auto" of
# the nonblocking variables is not even a case of the generated switch in
# MPICH 4.0.2: src/mpi/coll/mpir_coll.c comes from maint/gen_coll.py, whose
# cases are the algorithms of src/mpi/coll/coll_algorithms.txt plus auto.)
_MPICH_SKIP = {"auto", "sched_auto"}
# The ch4 POSIX shared-memory algorithms
# (MPIR_CVAR_{REDUCE,ALLREDUCE}_POSIX_INTRA_ALGORITHM) are not swept: MPI_T lists them
# whatever the build, and Debian's ch4:ucx build does not contain that path (a forced
# release_gather with a non-commutative op prints no fallback message, and the message
# text is absent from libmpich.so.12).
_NB_PREFIXES = ("sched_", "tsp_")


def _mpich_items(desc, known, vocabulary):
    """The enum values listed in an MPICH control variable's description.

    MPICH writes them one a line, "name<spaces>- what it does"; MPI_T hands
    the description over with the line breaks removed, so each name is glued
    to the last word of the line before ("algorithmsmp"). Returns, per item,
    the candidate names, most plausible first."""
    items = []
    for m in re.finditer(r"([A-Za-z0-9_]+)( +)- (?=\S)", desc):
        token = m.group(1)
        cands = []
        # a line of its own (MPICH 4.2): the name itself
        if m.start() > 0 and desc[m.start() - 1] == "\n":
            cands.append(token)
        for prefix in _NB_PREFIXES:  # nonblocking algorithms are sched_* or tsp_*
            i = token.find(prefix)
            if i >= 0:
                cands.append(token[i:])
        cands.sort(key=lambda c: -len(c))
        # names the sibling variable lists
        for stem in sorted(known, key=lambda s: (-len(s), s)):
            if token.endswith(stem):
                cands.append(stem)
        # the longest known word in front of the name
        for i in range(len(token) - 1, 0, -1):
            if token[:i].lower() in vocabulary and re.match(
                r"[a-z][a-z0-9_]*$", token[i:]
            ):
                cands.append(token[i:])
                break
        cands += [
            token[i:]
            for i in range(len(token) - 1)
            if re.match(r"[a-z][a-z0-9_]*$", token[i:])
        ]
        cands.append(token)
        seen = []
        for c in cands:
            if c not in seen and re.match(r"[a-z][a-z0-9_]*$", c):
                seen.append(c)
        items.append(seen)
    return items


def _mpivars_entries(text):
    """mpivars' lines, each variable's description whole: MPICH 4.0 hands it over on the
    variable's line with its line breaks removed; MPICH 4.2 keeps them, and its enum
    values follow on lines of their own (joined here with their line breaks)."""
    entries: list = []
    for line in text.splitlines():
        if (
            entries
            and line.strip()
            and not line.startswith("\t")
            and not re.match(r"^\d+ MPI ", line)
            and entries[-1].lstrip().startswith("MPIR_CVAR_")
        ):
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    return entries


def parse_mpivars(text):
    """[(cvar, [candidate names per item])] for the reduce family's
    algorithm variables, in the order mpivars lists them."""
    rows = []
    for line in _mpivars_entries(text):
        m = _MPICH_ALGO_RE.match(line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3), m.group(4), m.group(6)))
    vocabulary = {
        w.lower()
        for w in re.findall(r"(?<![A-Za-z0-9_])[A-Za-z]{3,}(?![A-Za-z0-9_])", text)
    }
    by_cvar = {r[0]: r for r in rows}
    out = []
    for cvar, nb, coll, kind, desc in rows:
        # the sibling (blocking <-> nonblocking) variable's names, without sched_/tsp_
        sibling = by_cvar.get(f"MPIR_CVAR_{'' if nb else 'I'}{coll}_{kind}_ALGORITHM")
        known = {"auto", "nb"}
        if sibling:
            for m in re.finditer(r"(?:sched|tsp)_([a-z0-9_]+)( +)- ", sibling[4]):
                known.add(m.group(1))
        out.append((cvar, _mpich_items(desc, known, vocabulary)))
    return out


def _run_tool(cmd, environ, timeout=60):
    exe = shutil.which(
        cmd[0], path=(environ or {}).get("PATH") or os.environ.get("PATH")
    )
    if exe is None:
        return None
    try:
        p = subprocess.run(
            [exe] + cmd[1:],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environ,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise VariantError(f"{cmd[0]} did not answer ({e})")
    return p


def _check_mpich_values(parsed, command, environ):
    """Pick, per item, the candidate the library accepts with the item's
    index: `mpivars` with the variable set prints the value it parsed (the
    enum index), and rejects an unknown value at MPI_T initialisation
    ("Invalid <cvar> value (<v>)"). Rounds set one item of every variable."""
    chosen = {cvar: [c[0] if c else None for c in items] for cvar, items in parsed}
    pending = {
        (cvar, i): list(items[i]) for cvar, items in parsed for i in range(len(items))
    }
    for _ in range(200):
        todo = {}
        for (cvar, i), cands in sorted(pending.items()):
            if cvar not in todo and cands:
                todo[cvar] = (i, cands[0])
        if not todo:
            break
        env = dict(environ)
        env.update({cvar: val for cvar, (i, val) in todo.items()})
        p = _run_tool(command, env)
        if p is None:
            return chosen
        bad = re.search(r"Invalid (MPIR_CVAR_\w+) value \((.*?)\)", p.stdout + p.stderr)
        if bad and bad.group(1) in todo:
            i, val = todo[bad.group(1)]
            pending[(bad.group(1), i)].pop(0)
            if not pending[(bad.group(1), i)]:
                raise VariantError(
                    f"{command[0]}: no name of item {i} of {bad.group(1)} is accepted"
                )
            continue
        if p.returncode != 0 and not p.stdout:
            raise VariantError(
                f"{command[0]} failed (exit code {p.returncode}): "
                f"{(p.stderr.strip().splitlines() or ['no output'])[-1]}"
            )
        values = {}
        for line in p.stdout.splitlines():
            m = re.match(r"^\s*(MPIR_CVAR_\w+?)\s*=(-?\d+)\t", line)
            if m:
                values[m.group(1)] = int(m.group(2))
        for cvar, (i, val) in todo.items():
            if values.get(cvar) == i:
                chosen[cvar][i] = val
                del pending[(cvar, i)]
            else:
                pending[(cvar, i)].pop(0)
                if not pending[(cvar, i)]:
                    raise VariantError(
                        f"{command[0]}: no name of item {i} of {cvar} gives index {i}"
                    )
    return chosen


def mpich_variants(text, checked=None):
    """The variants of an `mpivars` output (checked: the names _check_mpich_values
    chose)."""
    parsed = parse_mpivars(text)
    names = checked or {cvar: [c[0] for c in items if c] for cvar, items in parsed}
    out = []
    for cvar, _items in parsed:
        m = re.match(r"MPIR_CVAR_(I?)(\w+?)_(INTRA|INTER)_ALGORITHM$", cvar)
        assert m, cvar  # parse_mpivars lists only such variables
        nb, coll, kind = m.group(1), m.group(2), m.group(3)
        routine = coll.lower()
        comm = kind.lower()
        # the persistent MPI_<Coll>_init builds the nonblocking schedule, so it
        # follows the I-variable (maint/gen_coll.py: MPIR_<Coll>_init_impl calls
        # MPIR_I<coll>_sched_impl)
        modes = ["nonblocking", "persistent"] if nb else ["blocking"]
        for alg in names[cvar]:
            if alg in _MPICH_SKIP:
                continue
            out.append(
                {
                    "name": f"mpich.{nb.lower()}{routine}.{comm}.{alg}",
                    "env": {cvar: alg},
                    "targets": [{"routine": routine, "modes": modes, "comm": comm}],
                    "source": f"mpivars: {cvar}",
                    "fallback": None,
                }
            )
    return out


# ---- Open MPI ------------------------------------------------------------

# ompi/mca/coll/tuned/coll_tuned_module.c: the forced algorithm of a
# collective is read only when coll_tuned_use_dynamic_rules is true.
OPENMPI_TUNED_ENV = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1"}
# ompi/mca/coll/adapt/coll_adapt_module.c: adapt's priority is 0 by default,
# below tuned (30) and libnbc (10); it must outrank them to be used.
OPENMPI_ADAPT_ENV = {"OMPI_MCA_coll_adapt_priority": "100"}


def parse_ompi_info(text):
    """{param: {"enum": {number: name}, "help": str[, "value": str]}} from
    `ompi_info --parsable` (value: the setting's current value, its default
    unless the environment or a file sets it)."""
    params: dict = {}
    for line in text.splitlines():
        m = re.match(r"^mca:coll:(\w+):param:(\w+):value:(.*)$", line)
        if m:
            params.setdefault(m.group(2), {"enum": {}, "help": ""})["value"] = m.group(
                3
            ).strip()
            continue
        m = re.match(
            r"^mca:coll:(\w+):param:(\w+):enumerator:value:(-?\d+):(.*)$", line
        )
        if m:
            params.setdefault(m.group(2), {"enum": {}, "help": ""})["enum"][
                int(m.group(3))
            ] = m.group(4).strip()
            continue
        m = re.match(r"^mca:coll:(\w+):param:(\w+):help:(.*)$", line)
        if m:
            params.setdefault(m.group(2), {"enum": {}, "help": ""})["help"] = m.group(3)
    return params


def _slug(text):
    return re.sub(r"[^a-z0-9._-]+", "_", text.lower()).strip("_") or "x"


def _chunk_defaults(params, *names):
    """{OMPI_MCA_<name>: bytes} of the segment-size settings among `names` that
    ompi_info reports with a positive value: the segment an algorithm cuts a
    buffer into when its variant forces none (element_bytes reads it)."""
    out = {}
    for name in names:
        value = str((params.get(name) or {}).get("value", "")).strip()
        if value.isdigit() and int(value) > 0:
            out[f"OMPI_MCA_{name}"] = value
    return out


def openmpi_variants(text):
    params = parse_ompi_info(text)
    out = []
    for routine in ROUTINES:
        p = params.get(f"coll_tuned_{routine}_algorithm")
        for num, label in sorted((p or {}).get("enum", {}).items()):
            if num > 0:
                var = f"coll_tuned_{routine}_algorithm"
                out.append(
                    {
                        "name": f"openmpi.tuned.{routine}.{_slug(label)}",
                        "env": dict(OPENMPI_TUNED_ENV, **{f"OMPI_MCA_{var}": str(num)}),
                        "targets": [
                            {"routine": routine, "modes": ["blocking"], "comm": "intra"}
                        ],
                        "source": f"ompi_info: {var} {num} ({label})",
                        "fallback": None,
                    }
                )
    for routine in ROUTINES:
        var = f"coll_libnbc_i{routine}_algorithm"
        for num, label in sorted((params.get(var) or {}).get("enum", {}).items()):
            if num > 0:
                # ompi/mca/coll/libnbc/nbc_i<coll>.c: the same init function
                # builds the nonblocking and the persistent schedule
                out.append(
                    {
                        "name": f"openmpi.libnbc.i{routine}.{_slug(label)}",
                        "env": {f"OMPI_MCA_{var}": str(num)},
                        "targets": [
                            {
                                "routine": routine,
                                "modes": ["nonblocking", "persistent"],
                                "comm": "intra",
                            }
                        ],
                        "source": f"ompi_info: {var} {num} ({label})",
                        "fallback": None,
                    }
                )
    adapt = params.get("coll_adapt_reduce_algorithm")
    if adapt:
        listed = adapt["enum"] or {
            int(n): lab
            for n, lab in re.findall(r"(\d+)\s*:\s*([A-Za-z][\w-]*)", adapt["help"])
        }
        for num, label in sorted(listed.items()):
            if num > 0:
                out.append(
                    {
                        "name": f"openmpi.adapt.reduce.{_slug(label)}",
                        "env": dict(
                            OPENMPI_ADAPT_ENV,
                            OMPI_MCA_coll_adapt_reduce_algorithm=str(num),
                        ),
                        "targets": [
                            {
                                "routine": "reduce",
                                "modes": ["blocking", "nonblocking"],
                                "comm": "intra",
                            }
                        ],
                        "source": (
                            f"ompi_info: coll_adapt_reduce_algorithm {num} ({label})"
                        ),
                        "fallback": None,
                        "chunk_defaults": _chunk_defaults(
                            params, "coll_adapt_reduce_segment_size"
                        ),
                    }
                )
    out += _han_variants(params)
    return out


# ompi/mca/coll/han: han (priority 0) serves reduce and allreduce only on a
# communicator that spans nodes (`ordo run --nodes`); each goes up (between
# node leaders) and low (inside a node) through other components, chosen by
# coll_han_<coll>_{up,low}_module, or takes han's "simple" composition.
OPENMPI_HAN_ENV = {"OMPI_MCA_coll_han_priority": "100"}
# On one node han declines the communicator and says so at this verbosity
# (coll_han_module.c): the run then counts the variant as "fell back".
OPENMPI_HAN_FALLBACK = {
    "env": {"OMPI_MCA_coll_base_verbose": "10"},
    "pattern": (
        r"coll:han:comm_query \([^)]*\): comm has only local processes; disqualifying"
        r" myself"
    ),
}


def _han_variants(params):
    """One variant per non-default up and low module of han's reduce and
    allreduce (their help text is their only list: "0 libnbc, 1 adapt"), and
    one per "simple" composition."""
    out = []
    for routine in ("reduce", "allreduce"):
        target = [{"routine": routine, "modes": ["blocking"], "comm": "intra"}]
        for level in ("up", "low"):
            var = f"coll_han_{routine}_{level}_module"
            p = params.get(var)
            if not p:
                continue
            listed = p["enum"] or {
                int(n): lab
                for n, lab in re.findall(r"(\d+)\s+([A-Za-z][\w-]*)", p["help"])
            }
            for num, label in sorted(listed.items()):
                if num > 0:
                    out.append(
                        {
                            "name": f"openmpi.han.{routine}.{level}.{_slug(label)}",
                            "env": dict(
                                OPENMPI_HAN_ENV, **{f"OMPI_MCA_{var}": str(num)}
                            ),
                            "targets": target,
                            "source": f"ompi_info: {var} {num} ({label})",
                            "fallback": dict(OPENMPI_HAN_FALLBACK),
                            "chunk_defaults": _chunk_defaults(
                                params, f"coll_han_{routine}_segsize"
                            ),
                        }
                    )
        var = f"coll_han_use_simple_{routine}"
        if var in params:
            out.append(
                {
                    "name": f"openmpi.han.{routine}.simple",
                    "env": dict(OPENMPI_HAN_ENV, **{f"OMPI_MCA_{var}": "1"}),
                    "targets": target,
                    "source": f"ompi_info: {var} (true)",
                    "fallback": dict(OPENMPI_HAN_FALLBACK),
                    "chunk_defaults": _chunk_defaults(
                        params, f"coll_han_{routine}_segsize"
                    ),
                }
            )
    return out


# ---- the adapter's section ---------------------------------------------------


DISCOVERERS = {
    "mpich-mpivars": ["mpivars"],
    "openmpi-ompi_info": ["ompi_info", "--parsable", "--all", "--level", "9"],
}


def _check_targets(targets, where):
    if targets is None:
        return None
    if not isinstance(targets, list) or not targets:
        raise VariantError(f"{where}: 'targets' must be a non-empty list or null")
    out = []
    for t in targets:
        if not isinstance(t, dict) or t.get("routine") not in ROUTINES:
            raise VariantError(
                f"{where}: a target's routine must be one of {', '.join(ROUTINES)}"
            )
        modes = t.get("modes") or list(MODES)
        if any(m not in MODES for m in modes):
            raise VariantError(
                f"{where}: a target's modes must be among {', '.join(MODES)}"
            )
        comm = t.get("comm", "any")
        if comm not in COMMS:
            raise VariantError(
                f"{where}: a target's comm must be one of {', '.join(COMMS)}"
            )
        out.append({"routine": t["routine"], "modes": list(modes), "comm": comm})
    return out


def _section(adapter):
    section = adapter.get("algorithm_variants") or {}
    if not isinstance(section, dict):
        raise VariantError(
            f"adapter {adapter.get('name', '?')}: 'algorithm_variants' must be an"
            " object"
        )
    return section


def _fallback(value, where):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise VariantError(
            f"{where}: 'fallback' must be an object with 'env' and 'pattern', or null"
        )
    pattern = value.get("pattern")
    if pattern is None:
        return None  # the library cannot tell: nothing to look for
    try:
        re.compile(pattern)
    except re.error as e:
        raise VariantError(f"{where}: fallback pattern is not a regex ({e})")
    return {
        "env": {str(k): str(v) for k, v in (value.get("env") or {}).items()},
        "pattern": pattern,
    }


def discover(adapter, environ=None):
    """Every non-default variant of the adapter's library: generated from what
    the installed library reports (the section's "discover"), then the
    section's "static" entries. Deterministic order; names are unique."""
    section = _section(adapter)
    vendor = adapter.get("name", "?")
    environ = dict(os.environ if environ is None else environ)
    kind = section.get("discover")
    found = []
    if kind:
        if kind not in DISCOVERERS:
            raise VariantError(
                f"adapter {vendor}: unknown algorithm_variants.discover '{kind}' "
                f"(known: {', '.join(sorted(DISCOVERERS))})"
            )
        command = list(section.get("discover_command") or DISCOVERERS[kind])
        p = _run_tool(command, environ)
        if p is None:
            raise VariantError(
                f"{command[0]} not found: cannot list the algorithms of {vendor} "
                f"(install {' '.join(adapter.get('packages', [])) or 'the library'})"
            )
        text = p.stdout
        if kind == "mpich-mpivars":
            if p.returncode != 0 or "MPI Control Variables" not in text:
                raise VariantError(
                    f"{command[0]} failed (exit code {p.returncode}): "
                    f"{(p.stderr.strip().splitlines() or ['no output'])[-1]}"
                )
            found = mpich_variants(
                text, _check_mpich_values(parse_mpivars(text), command, environ)
            )
        else:
            if p.returncode != 0 or "mca:coll:" not in text:
                raise VariantError(
                    f"{command[0]} failed (exit code {p.returncode}): "
                    f"{(p.stderr.strip().splitlines() or ['no output'])[-1]}"
                )
            found = openmpi_variants(text)
    return finish(adapter, found)


def finish(adapter, found):
    """Discovered variants plus the static ones, common_env and the fallback
    applied, every entry checked."""
    section = _section(adapter)
    vendor = adapter.get("name", "?")
    common = {str(k): str(v) for k, v in (section.get("common_env") or {}).items()}
    default_fallback = _fallback(section.get("fallback"), f"adapter {vendor}")
    out, names = [], set()
    for i, entry in enumerate(list(found) + list(section.get("static") or [])):
        where = (
            f"adapter {vendor}: variant"
            f" {entry.get('name', f'#{i}') if isinstance(entry, dict) else f'#{i}'}"
        )
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise VariantError(f"{where}: a variant needs a 'name'")
        name = entry["name"]
        if not NAME_RE.match(name) or name == "default":
            raise VariantError(
                f"{where}: a name is made of a-z 0-9 . _ - and is not 'default'"
            )
        if name in names:
            raise VariantError(f"{where}: the name is used twice")
        names.add(name)
        if not isinstance(entry.get("env") or {}, dict):
            raise VariantError(f"{where}: 'env' must be an object")
        env = dict(common)
        env.update({str(k): str(v) for k, v in (entry.get("env") or {}).items()})
        # the entry's own fallback ({"pattern": null}: the library cannot tell), else
        # the section's
        fallback = (
            _fallback(entry["fallback"], where)
            if entry.get("fallback") is not None
            else default_fallback
        )
        out.append(
            {
                "name": name,
                "env": env,
                "targets": _check_targets(entry.get("targets"), where),
                "source": str(entry.get("source") or f"adapter {vendor}: static"),
                "fallback": fallback,
            }
        )
        # the library's own chunk or segment sizes (discovery's), for element_bytes
        defaults = entry.get("chunk_defaults")
        if isinstance(defaults, dict) and defaults:
            out[-1]["chunk_defaults"] = {str(k): str(v) for k, v in defaults.items()}
    return out


def launch_settings(adapter, variant, user_env):
    """The environment a variant's jobs are launched with: the section's
    common settings, the fallback's, the variant's own, then the user's
    --env; the default variant's is the user's only."""
    if variant["name"] == "default":
        return dict(user_env)
    common = (adapter.get("algorithm_variants") or {}).get("common_env", {})
    return {
        **common,
        **((variant.get("fallback") or {}).get("env") or {}),
        **variant["env"],
        **user_env,
    }


# The settings of a library's pipeline chunk or segment size in bytes:
# MPICH's MPIR_CVAR_<COLL>_..._CHUNK_SIZE, Open MPI's
# coll_tuned_<coll>_algorithm_segmentsize, coll_adapt_<coll>_segment_size
# and coll_han_<coll>_segsize (OMPI_MCA_...).
CHUNK_SETTING_RE = re.compile(
    r"(CHUNK_SIZE|SEGMENTSIZE|SEGMENT_SIZE|SEGSIZE)$", re.IGNORECASE
)


def element_bytes(env, defaults=None):
    """The element size of the large-element datatype class for a job launched
    with `env` (the variant's settings and the user's --env): the smallest
    multiple of 16 bytes (whole cells of four 4-byte integers) above the
    largest chunk or segment size the settings force, so that no chunk holds
    a whole element. `defaults` are the library's own sizes for the settings
    the variant's algorithm reads (a discovered variant's "chunk_defaults",
    from ompi_info): each counts where `env` does not set it. None when
    neither gives a size (the harness then takes its default of several KiB,
    ordo::ref::crossing::kDefaultElementBytes)."""
    sizes = []
    merged = {**(defaults or {}), **(env or {})}
    for name, value in merged.items():
        if CHUNK_SETTING_RE.search(str(name)):
            try:
                sizes.append(int(str(value).strip()))
            except ValueError:
                continue
    sizes = [b for b in sizes if b > 0]
    if not sizes:
        return None
    return (max(sizes) // 16 + 1) * 16


def select(adapter, spec, discovered):
    """The variants of `--variants SPEC`: "default", "all" (default first),
    or a comma-separated list of names and glob patterns, in the given order
    ("default" allowed); each variant once."""
    spec = (spec or "default").strip()
    vendor = adapter.get("name", "?")
    if spec == "default":
        return [dict(DEFAULT)]
    if spec == "all":
        return [dict(DEFAULT)] + list(discovered)
    by_name = {v["name"]: v for v in discovered}
    chosen, taken = [], set()
    for word in (w.strip() for w in spec.split(",")):
        if not word:
            continue
        if word == "default":
            matches = [dict(DEFAULT)]
        elif any(ch in word for ch in "*?["):
            matches = [v for v in discovered if fnmatch.fnmatchcase(v["name"], word)]
        else:
            matches = [by_name[word]] if word in by_name else []
        if not matches:
            raise VariantError(
                f"unknown variant '{word}' for {vendor}: "
                f"`./ordo list variants --vendor {vendor}` lists them"
            )
        for v in matches:
            if v["name"] not in taken:
                taken.add(v["name"])
                chosen.append(v)
    if not chosen:
        raise VariantError(
            f"--variants '{spec}' names no variant: `./ordo list variants --vendor"
            f" {vendor}` lists them"
        )
    return chosen

"""Adapters: what ordo knows of an MPI library (vendors/<name>/adapter.json or a
site's own file): its compilers and packages, its launcher and the
environment every rank gets. The adapter's templates ({build}, {root},
{env:NAME}) are expanded here."""
import json
import os
import pathlib
import re
import shutil

from . import ROOT
from .errors import OrdoError


def known_vendors():
    return sorted(p.parent.name for p in (ROOT / "vendors").glob("*/adapter.json"))


def load_adapter(name_or_path):
    """A vendor by name (vendors/<name>/adapter.json) or a site's own adapter file."""
    path = ROOT / "vendors" / name_or_path / "adapter.json"
    if not path.is_file():
        candidate = pathlib.Path(name_or_path)
        if candidate.suffix == ".json" or os.sep in name_or_path:
            path = candidate
        else:
            raise OrdoError(
                f"unknown vendor '{name_or_path}': choose one of"
                f" {', '.join(known_vendors())}, or give an adapter file (--vendor"
                " path/to/adapter.json)"
            )
    try:
        adapter = json.loads(path.read_text())
    except OSError as e:
        raise OrdoError(f"cannot read the adapter file {path}: {e.strerror}")
    except ValueError as e:
        raise OrdoError(f"malformed adapter file {path}: {e}")
    problems = []
    for key in ("name", "compilers", "launcher"):
        if key not in adapter:
            problems.append(f"no '{key}'")
    launcher = adapter.get("launcher", {})
    for key in ("command", "np_flag", "env_flag"):
        if key not in launcher:
            problems.append(f"no 'launcher.{key}'")
    if not isinstance(adapter.get("compilers", {}), dict) or "cxx" not in adapter.get(
        "compilers", {}
    ):
        problems.append("no 'compilers.cxx'")
    if problems:
        raise OrdoError(f"malformed adapter file {path}: {', '.join(problems)}")
    adapter["_dir"] = str(path.parent.resolve())
    adapter["_path"] = str(path.resolve())
    return adapter


def require_tools(adapter):
    """The wrappers and launcher must exist: one clear line otherwise."""
    needed = [
        adapter["compilers"].get("c"),
        adapter["compilers"]["cxx"],
        adapter["launcher"]["command"],
    ]
    for tool in needed:
        if tool and shutil.which(tool) is None:
            packages = (
                " ".join(adapter.get("packages", []))
                or "the MPI library's development package"
            )
            raise OrdoError(
                f"{tool} not found: the {adapter['name']} library is not installed "
                f"(install it with: sudo apt-get install -y {packages})"
            )


def build_dir_for(adapter, sanitize=False):
    # ORDO_BUILD_ROOT moves the build directories (default: build/ in the checkout).
    # The sanitizer build of a library (ORDO_SANITIZE, `ordo run --sanitize`) has its
    # own: <vendor>-sanitize.
    # An ABI build (runner/abi.py) is one folder for every library it runs against.
    name = (adapter.get("_build_name") or adapter["name"]) + (
        "-sanitize" if sanitize else ""
    )
    return (
        pathlib.Path(os.environ.get("ORDO_BUILD_ROOT", ROOT / "build")).resolve() / name
    )


SANITIZER_SUPPRESSIONS = ROOT / "tools" / "sanitizers"


def is_sanitize_build(build):
    """Whether the build folder was configured with ORDO_SANITIZE=ON
    (cmake/OrdoSanitize.cmake)."""
    try:
        return "ORDO_SANITIZE:BOOL=ON" in (
            pathlib.Path(build) / "CMakeCache.txt"
        ).read_text(errors="replace")
    except OSError:
        return False


def asan_runtime():
    """The AddressSanitizer runtime the compiler links (libasan.so.N), for
    LD_PRELOAD."""
    import subprocess

    try:
        out = subprocess.run(
            ["g++", "-print-file-name=libasan.so"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        path = pathlib.Path(out.stdout.strip())
        return str(path.resolve()) if path.is_absolute() and path.exists() else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def sanitize_env(env):
    """The runtime options of every rank of a sanitizer build (ORDO_SANITIZE):
    - ASAN_OPTIONS detect_leaks=0: the MPI libraries leak by design (their
      own allocations live until exit and are not ordo's); abort_on_error=1:
      a report ends the rank with SIGABRT, recorded as a crash of its case;
      suppressions: findings inside the MPI library itself (never ordo's
      code), each named in tools/sanitizers/asan.supp with its function.
    - UBSAN_OPTIONS print_stacktrace=1: where ordo's code went wrong;
      halt_on_error=1 with abort_on_error=1: the first report ends the rank
      (the build has -fno-sanitize-recover=undefined as well).
    - LD_PRELOAD: the ASan runtime must come first in the initial library
      list, before an instrumented preload (the reference MPI,
      libordo_refmpi.so, or a vendor's preload of vendors/<name>/), else the
      process stops at start-up."""
    env = dict(env)
    env["ASAN_OPTIONS"] = ":".join(
        filter(
            None,
            [
                "detect_leaks=0",
                "abort_on_error=1",
                f"suppressions={SANITIZER_SUPPRESSIONS / 'asan.supp'}",
                env.get("ASAN_OPTIONS", ""),
            ],
        )
    )
    env["UBSAN_OPTIONS"] = ":".join(
        filter(
            None,
            [
                "print_stacktrace=1",
                "halt_on_error=1",
                "abort_on_error=1",
                f"suppressions={SANITIZER_SUPPRESSIONS / 'ubsan.supp'}",
                env.get("UBSAN_OPTIONS", ""),
            ],
        )
    )
    if env.get("LD_PRELOAD"):
        runtime = asan_runtime()
        if runtime and runtime not in env["LD_PRELOAD"].split():
            env["LD_PRELOAD"] = runtime + " " + env["LD_PRELOAD"]
    return env


def expand(value, build):
    """An adapter's template: {build}, {root} and {env:NAME} (a variable of the
    user's environment, e.g. a site's hostfile)."""
    value = value.replace("{build}", str(build)).replace("{root}", str(ROOT))
    for name in re.findall(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}", value):
        if name not in os.environ:
            raise OrdoError(
                f"the adapter needs the environment variable {name} (see"
                f" vendors/README.md): set it, e.g. export {name}=..."
            )
        value = value.replace("{env:" + name + "}", os.environ[name])
    return value


# The variables whose value is a list: the adapter's entries and the user's
# (--env) are joined, never replaced. Per variable: the separators the reader
# accepts (ld.so takes LD_PRELOAD's entries separated by spaces or colons, and
# LD_LIBRARY_PATH's by colons or semicolons) and the one written. The joined
# list holds the adapter's entries first, in their order (an adapter's preload
# keeps its place: the reference library before the yield-when-idle shim,
# and with a sanitizer build the ASan runtime before all), then the user's
# that are not already there; each entry once.
LIST_VARIABLES = {
    "LD_PRELOAD": (" :", " "),
    "LD_LIBRARY_PATH": (":;", ":"),
    "PATH": (":", ":"),
}


def list_entries(name, value):
    """The entries of a list-valued variable's value, in order. Empty entries
    of LD_PRELOAD mean nothing to ld.so and are dropped; a path list keeps
    them (an empty entry of PATH is the current directory)."""
    accepted, _ = LIST_VARIABLES[name]
    entries = re.split("[" + re.escape(accepted) + "]", value)
    return [e for e in entries if e] if name == "LD_PRELOAD" else entries


def join_list(name, first, then):
    """first's entries, then then's that first lacks: one value, each entry once."""
    joined = []
    for entry in list_entries(name, first) + list_entries(name, then):
        if entry not in joined:
            joined.append(entry)
    return LIST_VARIABLES[name][1].join(joined)


def join_env(base, overlay):
    """base with overlay laid over it: a list-valued variable (LIST_VARIABLES)
    set in both joins base's entries and overlay's; any other takes overlay's
    value. Returns (the environment, the variables whose base value overlay
    replaced: [(name, base's value, overlay's)])."""
    env, replaced = dict(base), []
    for key, value in overlay.items():
        if key in env and key in LIST_VARIABLES:
            env[key] = join_list(key, env[key], value)
        else:
            if key in env and env[key] != value:
                replaced.append((key, env[key], value))
            env[key] = value
    return env, replaced


def adapter_layers(adapter, plain_launch):
    """The adapter's own environment as (where it comes from, its variables):
    its "env", then each launch setting that applies."""
    layers = [("its env", adapter.get("env", {}))]
    if not plain_launch:
        for setting in adapter.get("launch_settings", []):
            if setting_applies(adapter, setting):
                layers.append(
                    (f"launch setting {setting['name']}", setting.get("env", {}))
                )
    return layers


def launch_env(adapter, build, user_env, plain_launch, sanitize=None):
    """Every rank's environment: the adapter's (adapter_layers), then
    user_env (the user's --env, with a variant's or a placement's settings),
    joined by join_env: a list-valued variable gets the adapter's entries and
    the user's. sanitize: a sanitizer build (its runtime options added,
    sanitize_env); None: whatever the build folder was configured as."""
    env: dict = {}
    for _, layer in adapter_layers(adapter, plain_launch) + [("", user_env)]:
        env, _ = join_env(env, {k: expand(v, build) for k, v in layer.items()})
    if sanitize is None:
        sanitize = is_sanitize_build(build)
    return sanitize_env(env) if sanitize else env


def env_notices(adapter, build, user_env, plain_launch, layers=()):
    """What the user's --env (user_env) replaces of the adapter's values: one
    {"variable", "value" (the user's), "replaced" (the adapter's), "from"}
    per variable that is not list-valued and that the adapter (its env, its
    launch settings, or the extra layers: [(where, variables)], a variant's
    or a placement's settings) sets to another value."""
    seen = {}
    for where, layer in adapter_layers(adapter, plain_launch) + list(layers):
        for key, value in layer.items():
            seen[key] = (expand(value, build), where)
    notices = []
    for key, value in user_env.items():
        if key in seen and key not in LIST_VARIABLES:
            old, where = seen[key]
            value = expand(value, build)
            if value != old:
                notices.append(
                    {"variable": key, "value": value, "replaced": old, "from": where}
                )
    return notices


def notice_line(notice):
    """The one line that tells of a notice of env_notices."""
    return (
        f"ordo: --env {notice['variable']}={notice['value']} replaces the adapter's "
        f"{notice['variable']}={notice['replaced']} ({notice['from']})"
    )


def env_report_names(env):
    """The variables each rank reports back (--ordo-env-names: the harness
    writes their values beside the journal, protocol.ENV): those of the
    launch environment and the list-valued ones; never the whole environ."""
    return sorted(set(env) | set(LIST_VARIABLES))


def setting_applies(adapter, setting):
    """A launch setting applies unless it names a preparation or a probe
    (`prepare`, `unchanged`): such a setting applies only once
    build.probe_launch_settings has prepared it and seen the library report
    the same thing with and without it, in this ordo process. A setting of
    this machine (`this_machine`: a file that describes it) does not apply
    under a launcher template (--launcher), which may start processes on
    other machines."""
    if setting.get("this_machine") and adapter.get("_launcher_template"):
        return False
    if "unchanged" not in setting and "prepare" not in setting:
        return True
    return bool((adapter.get("_probed") or {}).get(setting["name"], {}).get("applied"))


def launcher_prefix(adapter, build, env):
    """The launcher and its flags, up to (not including) the rank count."""
    la = adapter["launcher"]
    cmd = [shutil.which(la["command"]) or la["command"]] + [
        expand(f, build) for f in la.get("flags", [])
    ]
    if os.geteuid() == 0:
        cmd += la.get("root_flags", [])
    if not la["env_flag"]:
        # A launcher that hands its own environment to every rank (srun's
        # default): the variables are set for the launcher itself.
        return (
            (["env"] + [f"{key}={value}" for key, value in env.items()] + cmd)
            if env
            else cmd
        )
    for key, value in env.items():
        cmd += [
            part.replace("{key}", key).replace("{value}", value)
            for part in la["env_flag"]
        ]
    return cmd


def known_launchers():
    return sorted(p.stem for p in (ROOT / "vendors" / "launchers").glob("*.json"))


def with_launcher(adapter, name_or_path):
    """The adapter with its launcher replaced by a launcher template
    (`ordo run --launcher NAME|FILE`): a file of vendors/launchers/ by its
    name (srun, srun-mpi, mpiexec-hostfile, ...) or a site's own file of the
    same form, checked against the schema's launcher_fragment. The build keeps
    the adapter's own launcher (its CTest entries); every job of the run is
    started by the template's."""
    path = ROOT / "vendors" / "launchers" / f"{name_or_path}.json"
    if not path.is_file():
        candidate = pathlib.Path(name_or_path)
        if candidate.suffix == ".json" or os.sep in name_or_path:
            path = candidate
        else:
            raise OrdoError(
                f"unknown launcher '{name_or_path}': choose one of"
                f" {', '.join(known_launchers())} (vendors/launchers/), or give a"
                " launcher file (--launcher path/to/launcher.json)"
            )
    try:
        fragment = json.loads(path.read_text())
    except OSError as e:
        raise OrdoError(f"cannot read the launcher file {path}: {e.strerror}")
    except ValueError as e:
        raise OrdoError(f"malformed launcher file {path}: {e}")
    import jsonschema  # python3-jsonschema, one of the packages of every run

    schema = json.loads((ROOT / "vendors" / "adapter.schema.json").read_text())
    fragment_schema = {
        "$schema": schema["$schema"],
        "$defs": schema["$defs"],
        "$ref": "#/$defs/launcher_fragment",
    }
    errors = sorted(
        jsonschema.validators.validator_for(fragment_schema)(
            fragment_schema
        ).iter_errors(fragment),
        key=lambda e: list(e.path),
    )
    if errors:
        where = "/".join(map(str, errors[0].path)) or "the file"
        raise OrdoError(
            f"malformed launcher file {path}: {where}: {errors[0].message} "
            '(see vendors/README.md, "Launcher templates")'
        )
    replaced = dict(adapter)
    replaced["launcher"] = fragment["launcher"]
    replaced["_launcher_template"] = str(path.resolve())
    return replaced


def template_variables(launcher):
    """The {env:NAME} variables a launcher's flags use."""
    return [
        name
        for flag in launcher.get("flags", []) + launcher.get("root_flags", [])
        for name in re.findall(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}", flag)
    ]


def require_launcher(adapter):
    """The launcher of a template (--launcher) must exist: one clear line otherwise."""
    command = adapter["launcher"]["command"]
    if shutil.which(command) is None:
        hint = (
            " (Debian: sudo apt-get install -y slurm-client; a cluster's srun comes"
            " with its Slurm)"
            if pathlib.Path(command).name == "srun"
            else ""
        )
        raise OrdoError(
            f"the launcher {command} of"
            f" {adapter.get('_launcher_template', 'the adapter')} is not found on"
            f" PATH{hint}"
        )

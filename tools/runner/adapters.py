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
            raise OrdoError(f"unknown vendor '{name_or_path}': choose one of "
                            f"{', '.join(known_vendors())}, or give an adapter file (--vendor path/to/adapter.json)")
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
    if not isinstance(adapter.get("compilers", {}), dict) or "cxx" not in adapter.get("compilers", {}):
        problems.append("no 'compilers.cxx'")
    if problems:
        raise OrdoError(f"malformed adapter file {path}: {', '.join(problems)}")
    adapter["_dir"] = str(path.parent.resolve())
    adapter["_path"] = str(path.resolve())
    return adapter


def require_tools(adapter):
    """The wrappers and launcher must exist: one clear line otherwise."""
    needed = [adapter["compilers"].get("c"), adapter["compilers"]["cxx"], adapter["launcher"]["command"]]
    for tool in needed:
        if tool and shutil.which(tool) is None:
            packages = " ".join(adapter.get("packages", [])) or "the MPI library's development package"
            raise OrdoError(f"{tool} not found: the {adapter['name']} library is not installed "
                            f"(install it with: sudo apt-get install -y {packages})")


def build_dir_for(adapter):
    # ORDO_BUILD_ROOT moves the build directories (default: build/ in the checkout).
    return pathlib.Path(os.environ.get("ORDO_BUILD_ROOT", ROOT / "build")).resolve() / adapter["name"]


def expand(value, build):
    """An adapter's template: {build}, {root} and {env:NAME} (a variable of the
    user's environment, e.g. a site's hostfile)."""
    value = value.replace("{build}", str(build)).replace("{root}", str(ROOT))
    for name in re.findall(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}", value):
        if name not in os.environ:
            raise OrdoError(f"the adapter needs the environment variable {name} (see vendors/README.md): "
                            f"set it, e.g. export {name}=...")
        value = value.replace("{env:" + name + "}", os.environ[name])
    return value


def launch_env(adapter, build, user_env, plain_launch):
    env = dict(adapter.get("env", {}))
    if not plain_launch:
        for setting in adapter.get("launch_settings", []):
            env.update(setting.get("env", {}))
    env.update(user_env)
    return {k: expand(v, build) for k, v in env.items()}


def launcher_prefix(adapter, build, env):
    """The launcher and its flags, up to (not including) the rank count."""
    la = adapter["launcher"]
    cmd = [shutil.which(la["command"]) or la["command"]] + [expand(f, build) for f in la.get("flags", [])]
    if os.geteuid() == 0:
        cmd += la.get("root_flags", [])
    if not la["env_flag"]:
        # A launcher that hands its own environment to every rank (srun's
        # default): the variables are set for the launcher itself.
        return (["env"] + [f"{key}={value}" for key, value in env.items()] + cmd) if env else cmd
    for key, value in env.items():
        cmd += [part.replace("{key}", key).replace("{value}", value) for part in la["env_flag"]]
    return cmd

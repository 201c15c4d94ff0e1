"""Building the suite against an adapter (cmake configure and build, logged in
the build folder), and what a run records of where it ran: the library's
version string and the suite's git state."""
import json
import pathlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from . import ROOT, abi
from .adapters import build_dir_for, expand, launch_env, launcher_prefix, require_tools
from .errors import EXIT_INFRA, OrdoError
from .launch import job_command, outer_timeout


def run_logged(cmd, log, cwd=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd)


def build(
    adapter,
    reference_tests,
    user_env=None,
    plain_launch=False,
    quiet=False,
    sanitize=False,
    extras=None,
    targets=None,
):
    """Configures and builds build/<vendor>/ (sanitize: build/<vendor>-sanitize/,
    ordo's own code with ASan and UBSan, cmake/OrdoSanitize.cmake). extras:
    the benchmark programs and the reference MPI's own tests (ORDO_EXTRAS);
    None keeps the build's setting (on in a new build). targets: the CMake
    targets to build (a filtered run's, runner/run.py run_targets), else
    build_targets()'s."""
    require_tools(adapter)
    bdir = build_dir_for(adapter, sanitize)
    bdir.mkdir(parents=True, exist_ok=True)
    log = bdir / "ordo-build.log"
    user_env = user_env or {}
    # the last probes' outcome, so that a build that probes the same configures once
    if not plain_launch:
        adapter["_probed"] = {**read_probes(bdir), **(adapter.get("_probed") or {})}

    def configure(env):
        prefix = launcher_prefix(adapter, bdir, env)
        cmd = ["cmake", "-S", str(ROOT), "-B", str(bdir)]
        if adapter.get("_abi"):
            # Through the standard ABI (runner/abi.py): the standard header and
            # libmpi_abi, no wrapper, and no launcher of one library (the same
            # configuration whatever library runs, so nothing is built again).
            abi.prepare(adapter, bdir)
            cmd += abi.cmake_args(adapter, bdir)
        else:
            cmd += library_args(prefix)
        cmd.append(f"-DORDO_SANITIZE={'ON' if sanitize else 'OFF'}")
        # `ordo run` keeps a test build's setting
        if reference_tests or not (bdir / "CMakeCache.txt").exists():
            cmd.append(f"-DORDO_REFERENCE_TESTS={'ON' if reference_tests else 'OFF'}")
        if extras is not None:
            cmd.append(f"-DORDO_EXTRAS={'ON' if extras else 'OFF'}")
        return prefix, configure_once(cmd, bdir, log)

    def library_args(prefix):
        return [
            f"-DMPI_C_COMPILER={shutil.which(adapter['compilers'].get('c', '')) or ''}",
            f"-DMPI_CXX_COMPILER={shutil.which(adapter['compilers']['cxx'])}",
            # The Fortran layer (conformance/harness/fortran/) is built with the
            # library's own wrapper, if any.
            "-DORDO_FORTRAN_WRAPPER="
            + (shutil.which(adapter["compilers"].get("fortran", "")) or ""),
            f"-DMPIEXEC_EXECUTABLE={prefix[0]}",
            f"-DMPIEXEC_NUMPROC_FLAG={adapter['launcher']['np_flag']}",
            f"-DORDO_MPIEXEC_PREFLAGS={';'.join(prefix[1:])}",
            f"-DORDO_VENDOR={adapter['name']}",
        ]

    def failed():
        tail = log.read_text().splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        return OrdoError(
            f"the build against {adapter['name']} failed (log: {log})", EXIT_INFRA
        )

    if not quiet:
        print(
            (
                "ordo: building "
                + (
                    "through the MPI-5.0 standard ABI"
                    if adapter.get("_abi")
                    else f"against {adapter['name']}"
                )
                + " in"
                f" {bdir.relative_to(ROOT) if bdir.is_relative_to(ROOT) else bdir}"
            ),
            flush=True,
        )
    t0 = time.time()
    env = launch_env(adapter, bdir, user_env, plain_launch, sanitize)
    prefix, ok = configure(env)
    if (
        not ok
        or run_logged(
            ["cmake", "--build", str(bdir), "-j", build_jobs()]
            + (["--target", *targets] if targets else build_targets()),
            log,
        )
        != 0
    ):
        raise failed()
    if not plain_launch and probe_launch_settings(
        adapter, bdir, user_env, sanitize, quiet
    ):
        # A probe's outcome changed the launch (CTest's entries name it): configured
        # again, nothing rebuilt.
        env = launch_env(adapter, bdir, user_env, plain_launch, sanitize)
        prefix, ok = configure(env)
        if not ok:
            raise failed()
    if not quiet:
        print(f"ordo: built in {time.time() - t0:.0f} s", flush=True)
    return bdir, prefix


CONFIGURED_FILE = "ordo-configured.json"


def configure_once(cmd, bdir, log):
    """Runs the configure command unless the build folder was configured by the
    same command last (CONFIGURED_FILE): CMake itself configures again, at the
    build, when a file it read changed (CMakeLists.txt, the files and folders
    of its globs and adapter files: CMAKE_CONFIGURE_DEPENDS), so a run of an
    unchanged build skips the seconds of a configure that changes nothing.
    Whether it succeeded."""
    stamp = pathlib.Path(bdir) / CONFIGURED_FILE
    configured = [cmd, shutil.which("cmake")]
    try:
        same = json.loads(stamp.read_text()) == configured
    except (OSError, ValueError):
        same = False
    if (
        same
        and (pathlib.Path(bdir) / "CMakeCache.txt").is_file()
        and (pathlib.Path(bdir) / "Makefile").is_file()
    ):
        with open(log, "a") as f:
            f.write(f"# configured by the same command before ({stamp.name})\n")
        return True
    stamp.unlink(missing_ok=True)
    ok = run_logged(cmd, log) == 0
    if ok:
        stamp.write_text(json.dumps(configured))
    return ok


def build_jobs():
    """cmake --build's -j: ORDO_BUILD_JOBS (e.g. 1 on a machine shared with a long
    run), else the number of cores."""
    jobs = os.environ.get("ORDO_BUILD_JOBS", "")
    return jobs if jobs.isdigit() and int(jobs) > 0 else str(os.cpu_count() or 2)


def build_targets():
    """cmake --build's targets: ORDO_BUILD_TARGETS (space-separated, e.g.
    "ordo_replay ordo_check_minloc_maxloc" for a --filter'ed run on a busy
    machine), else all. A run launches the check executables the build holds."""
    targets = os.environ.get("ORDO_BUILD_TARGETS", "").split()
    return ["--target", *targets] if targets else []


PROBES_FILE = "launch-probes.json"


def read_probes(bdir):
    try:
        probes = json.loads((pathlib.Path(bdir) / PROBES_FILE).read_text())
        return probes if isinstance(probes, dict) else {}
    except (OSError, ValueError):
        return {}


def probe_launch_settings(adapter, bdir, user_env, sanitize, quiet=False):
    """Probes the adapter's launch settings that name a preparation or probes
    (`prepare`, `unchanged`, see vendors/adapter.schema.json). A preparation
    is a command run first (it writes a file the setting names); if it fails,
    the setting does not apply. A probe is a one-process launch with the
    probe's variables, or the probe's own command, once without the setting
    and once with it; the setting applies only if every probe prints a match
    of its pattern and the same first group both times (it changes nothing
    the library, or the command, reports). The outcome is kept in
    adapter["_probed"] (launch_env reads it) and in the build folder.
    Returns whether any setting's outcome differs from what it was before."""
    before = dict(adapter.get("_probed") or {})
    names = {setting["name"] for setting in adapter.get("launch_settings", [])}
    probed = {
        k: v for k, v in before.items() if k in names
    }  # a setting the adapter no longer has: forgotten
    exe = pathlib.Path(bdir) / "conformance" / "ordo_replay"
    for setting in adapter.get("launch_settings", []):
        if "unchanged" not in setting and "prepare" not in setting:
            continue
        name = setting["name"]
        if "prepare" in setting:
            failed = prepare_setting(setting["prepare"], bdir)
            if failed:
                probed[name] = {
                    "applied": False,
                    "prepared": False,
                    "why": f"{setting['prepare']['why']}: {failed}",
                }
                if not quiet:
                    print(
                        (
                            f"ordo: launch setting {name} not applied: its preparation"
                            f" failed ({failed})"
                        ),
                        flush=True,
                    )
                continue
        probes = setting.get("unchanged") or []
        probes = [probes] if isinstance(probes, dict) else probes
        results = []
        for probe in probes:
            seen = []
            for applied in (False, True):
                adapter["_probed"] = {**probed, name: {"applied": applied}}
                seen.append(
                    probe_once(
                        adapter, bdir, user_env, sanitize, setting, probe, applied, exe
                    )
                )
            results.append({"without": seen[0], "with": seen[1], "why": probe["why"]})
        ok = all(
            r["without"] is not None and r["without"] == r["with"] for r in results
        )
        entry: dict[str, object] = {"applied": ok}
        if results:
            entry.update(results[0])  # the first probe's, where one is all there is
        if len(results) > 1:
            entry["probes"] = results
        if "prepare" in setting:
            entry["prepared"] = True
        probed[name] = entry
        if not ok and not quiet:
            bad = next(
                r for r in results if r["without"] is None or r["without"] != r["with"]
            )
            print(
                (
                    f"ordo: launch setting {name} not applied: its probe saw"
                    f" {short(bad['without'])!r} without it and"
                    f" {short(bad['with'])!r} with it ({bad['why']})"
                ),
                flush=True,
            )
    adapter["_probed"] = probed
    try:
        (pathlib.Path(bdir) / PROBES_FILE).write_text(
            json.dumps(probed, indent=1) + "\n"
        )
    except OSError:
        pass
    return any(
        bool(v.get("applied")) != bool((before.get(k) or {}).get("applied"))
        for k, v in probed.items()
    )


def short(text, limit=200):
    """A probe's match as a line of a message (an exported topology is pages long)."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text)} characters)"


def prepare_setting(prepare, bdir):
    """Runs a setting's preparation; None when it succeeded, else why not."""
    cmd = [expand(part, bdir) for part in prepare["command"]]
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, errors="replace", timeout=120
        )
    except OSError as e:
        return f"{cmd[0]}: {e.strerror or e}"
    except subprocess.TimeoutExpired:
        return f"{cmd[0]} did not finish in 120 s"
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or [""]
        return f"{' '.join(cmd)} exited with {out.returncode} {tail[0]}".strip()
    return None


def probe_once(adapter, bdir, user_env, sanitize, setting, probe, applied, exe):
    """What one probe shows (its pattern's first group, or the whole match),
    None when it shows nothing. A probe with a command runs it here, in the
    user's environment with the probe's variables and, when applied, the
    setting's; the others are a one-process launch of the library."""
    if "command" in probe:
        env = {**os.environ, **user_env, **probe["env"]}
        if applied:
            env.update({k: expand(v, bdir) for k, v in setting["env"].items()})
        cmd = [expand(part, bdir) for part in probe["command"]]
        timeout = 90
    else:
        env = None
        launch = {
            **launch_env(adapter, bdir, user_env, False, sanitize),
            **probe["env"],
        }
        cmd = job_command(
            adapter,
            launcher_prefix(adapter, bdir, launch),
            1,
            exe,
            timeout=60,
            kill_after=None,
            flags=["--ordo-library-version"],
        )
        timeout = outer_timeout(cmd, 90)
    try:
        out = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=env,
        )
        m = re.search(probe["pattern"], out.stdout + out.stderr)
    except (OSError, subprocess.TimeoutExpired):
        m = None
    return (m.group(1) if m.groups() else m.group(0)) if m else None


def library_version(prefix, adapter, bdir, wrap=()):
    """MPI_Get_library_version and the MPI version, from a one-process job
    (wrap: a command to run it under, such as the benches' MPI lock)."""
    exe = bdir / "conformance" / "ordo_replay"
    try:
        cmd = [
            *wrap,
            *job_command(
                adapter,
                prefix,
                1,
                exe,
                timeout=60,
                kill_after=None,
                flags=["--ordo-library-version"],
            ),
        ]
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=outer_timeout(cmd, 90)
        )
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                version = json.loads(line)
                # Some libraries pad the string with NULs (Open MPI): keep the text.
                return {
                    k: v.replace("\x00", "").strip() if isinstance(v, str) else v
                    for k, v in version.items()
                }
    except (subprocess.TimeoutExpired, ValueError):
        pass
    return {"library": "unknown", "mpi_version": "unknown"}


def git_state():
    def git(*args):
        try:
            return subprocess.run(
                ["git", "-C", str(ROOT)] + list(args),
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""

    return {
        "commit": git("rev-parse", "HEAD") or "unknown",
        "dirty": bool(git("status", "--porcelain")),
    }


def check_executables(bdir):
    """The check executables of a build: conformance/<concern>/ordo_check_<concern>
    for every concern folder this checkout has (a build directory made from an
    older checkout may still hold executables of folders since moved)."""
    found = []
    for exe in sorted((pathlib.Path(bdir) / "conformance").glob("*/ordo_check_*")):
        concern = exe.parent.name
        if (
            exe.name == f"ordo_check_{concern}"
            and (ROOT / "conformance" / concern / "CMakeLists.txt").is_file()
        ):
            found.append(str(exe))
    return found


def build_identity(bdir, executables):
    """The build's identity in run.json: a SHA-256 of each executable the run
    launches (by its path in the build folder) and one of them all, so two runs
    can be shown to have used identical binaries (`ordo compare`)."""
    import hashlib

    files = {}
    for exe in sorted(set(executables)):
        digest = hashlib.sha256()
        try:
            with open(exe, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        except OSError:
            continue
        files[os.path.relpath(exe, bdir)] = digest.hexdigest()
    whole = hashlib.sha256(
        "".join(f"{name}\t{h}\n" for name, h in sorted(files.items())).encode()
    ).hexdigest()
    return {"sha256": whole, "executables": files}

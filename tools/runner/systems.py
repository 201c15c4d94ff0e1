"""Systems (#36): ordo's whole build and run inside a root of another Debian
release. `ordo systems [list|make NAME|remove NAME]` keeps the roots; `ordo run
--system NAME` (and `ordo replay --system NAME`) runs ordo again inside one,
under bubblewrap.

A root is made by Debian's mmdebstrap (--variant=apt) from the mirror the host
uses, with ordo's build dependencies (tools/install-deps.sh) and the packages
of every adapter tested here (vendors/*/adapter.json: MPICH and Open MPI). It
lives in a cache folder (--systems-dir, else ORDO_SYSTEMS_DIR, else
/var/cache/ordo/systems as root or ~/.cache/ordo/systems), or where a site
names it (--system-root PATH); beside it NAME.json records what it holds (its
os-release and the versions of the MPI libraries, the compilers and cmake).

Inside the root (bwrap: the root as /, /proc, /dev with a tmpfs /dev/shm,
/sys read-only, the checkout, its git folder and the output folder at the same
paths, the ORDO_MPI_LOCK file) ordo builds in build/<system>/<vendor>
(ORDO_BUILD_ROOT) and installs nothing (ORDO_NO_INSTALL=1: the root already
holds the packages, and a missing one is one line). Every run records its
system (describe_current): the name (host outside a root), os-release, and
the Debian versions of the library's, the compilers' and the launcher's
packages."""
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

from . import ROOT
from .errors import EXIT_INFRA, EXIT_USAGE, OrdoError

# The systems ordo knows: name -> Debian suite. debian-12 is the host's own release on
# Debian 12 (a root of it measures what running in a root costs).
SYSTEMS = {"debian-12": "bookworm", "debian-13": "trixie", "debian-unstable": "sid"}
# Suites whose mirror's Release file may be past its Valid-Until date: apt is told not
# to check, in that root alone.
NO_VALID_UNTIL = ("sid",)
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# Set inside a root: the system's name (the harness adds --system NAME to replay
# commands).
INSIDE = "ORDO_SYSTEM"
SCHEMA = "ordo.system/1"
# Packages a root holds besides ordo's build dependencies and the adapters' packages:
# git (the run records the suite's commit), the root is entered with bash (./ordo).
EXTRA_PACKAGES = ("git", "bash", "ca-certificates")
# The installed packages recorded of a system: the MPI libraries and what they are built
# on, the compilers, cmake.
RECORDED = re.compile(
    r"^(mpich|libmpich[0-9a-z.-]*|openmpi-[a-z-]+|libopenmpi[0-9a-z.-]*|"
    r"libpmix[0-9a-z.-]*|libprrte[0-9a-z.-]*|prrte-bin|libucx[0-9a-z.-]*|"
    r"libfabric[0-9a-z.-]*|libhwloc[0-9a-z.-]*|hwloc-nox|gcc|gcc-[0-9]+|g\+\+|"
    r"g\+\+-[0-9]+|gfortran|gfortran-[0-9]+|cmake|libc6)$"
)
# dpkg in the making of a root: no fsync (a root that was cut short is made again), and
# no documentation, manual pages or translations (a root only builds and runs ordo; the
# copyright files stay).
SPEED = (
    "--dpkgopt=force-unsafe-io",
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
)
# Variables of the host that are not passed into a root: they name the host's own files.
NOT_PASSED = (
    "PATH",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "PYTHONPATH",
    "PYTHONHOME",
    "VIRTUAL_ENV",
    "CMAKE_PREFIX_PATH",
    "PKG_CONFIG_PATH",
    "MANPATH",
    "CPATH",
    "LIBRARY_PATH",
)
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def systems_dir(option=None):
    if option:
        return pathlib.Path(option).expanduser().resolve()
    if os.environ.get("ORDO_SYSTEMS_DIR"):
        return pathlib.Path(os.environ["ORDO_SYSTEMS_DIR"]).expanduser().resolve()
    if os.geteuid() == 0:
        return pathlib.Path("/var/cache/ordo/systems")
    return (
        pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
        / "ordo"
        / "systems"
    )


def check_name(name):
    if name not in SYSTEMS:
        raise OrdoError(
            f"unknown system {name!r}: ordo knows {', '.join(sorted(SYSTEMS))}",
            EXIT_USAGE,
        )
    return name


def root_of(name, systems_dir_option=None, system_root=None):
    """The root folder of a system: a site's own (--system-root) or NAME in the cache
    folder."""
    if system_root:
        return pathlib.Path(system_root).expanduser().resolve()
    return systems_dir(systems_dir_option) / name


def record_of(root):
    """The JSON beside a root that says what it holds."""
    root = pathlib.Path(root)
    return root.with_name(root.name + ".json")


def read_record(root):
    try:
        doc = json.loads(record_of(root).read_text())
        return doc if isinstance(doc, dict) and doc.get("schema") == SCHEMA else None
    except (OSError, ValueError):
        return None


def host_mirror(sources=None):
    """The Debian archive the host's apt uses (its sources.list files; the main archive,
    not the security one)."""
    files = sources
    if files is None:
        files = [pathlib.Path("/etc/apt/sources.list")] + sorted(
            pathlib.Path("/etc/apt/sources.list.d").glob("*")
        )
    for path in files:
        try:
            text = pathlib.Path(path).read_text(errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            urls = []
            if line.startswith("URIs:"):
                urls = line.split()[1:]
            elif line.startswith("deb "):
                urls = [w for w in line.split()[1:] if "://" in w][:1]
            for url in urls:
                url = url.rstrip("/")
                if re.search(r"/debian$", url):
                    return url
    return DEFAULT_MIRROR


def adapter_packages():
    """The packages of every adapter tested here (as tools/install-deps.sh reads
    them)."""
    seen = []
    for path in sorted((ROOT / "vendors").glob("*/adapter.json")):
        try:
            adapter = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if adapter.get("tested_here"):
            seen += [p for p in adapter.get("packages", []) if p not in seen]
    return seen


def build_packages():
    """ordo's build dependencies, read from tools/install-deps.sh's list (one place says
    what ordo needs)."""
    text = (ROOT / "tools" / "install-deps.sh").read_text()
    m = re.search(r"^packages=\(\n(.*?)\n\)", text, re.S | re.M)
    if not m:
        raise OrdoError(
            "tools/install-deps.sh has no packages=( ... ) list to read", EXIT_INFRA
        )
    return m.group(1).split()


def root_packages():
    out = []
    for p in build_packages() + adapter_packages() + list(EXTRA_PACKAGES):
        if p not in out:
            out.append(p)
    return out


def require(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            package = {"bwrap": "bubblewrap"}.get(tool, tool)
            raise OrdoError(
                (
                    f"{tool} not found: systems need it (install it with: sudo apt-get"
                    f" install -y {package})"
                ),
                EXIT_USAGE,
            )


def check_reachable(mirror, suite, timeout=20):
    url = f"{mirror}/dists/{suite}/InRelease"
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, method="HEAD"), timeout=timeout
        ):
            return
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise OrdoError(
            f"the repository {mirror} ({suite}) is unreachable: {url}: {reason}",
            EXIT_USAGE,
        )


def mmdebstrap_command(name, target, mirror):
    suite = SYSTEMS[name]
    cmd = [
        "mmdebstrap",
        "--variant=apt",
        "--include=" + ",".join(root_packages()),
    ] + list(SPEED)
    if suite in NO_VALID_UNTIL:  # in the root's own apt configuration: that root alone
        cmd.append('--aptopt=Acquire::Check-Valid-Until "false"')
    return cmd + [suite, str(target), mirror]


def make(name, root, mirror=None, quiet=False):
    """Makes the root (into ROOT.partial, renamed when whole) and its record; returns
    the record."""
    check_name(name)
    require("mmdebstrap", "bwrap")
    root = pathlib.Path(root)
    if root.exists():
        raise OrdoError(
            (
                f"{root} already exists: `ordo systems remove {name}` first, or use it"
                " as it is"
            ),
            EXIT_USAGE,
        )
    mirror = mirror or host_mirror()
    check_reachable(mirror, SYSTEMS[name])
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OrdoError(
            (
                f"cannot make the folder {root.parent}: {e.strerror}; choose another"
                " --systems-dir or --system-root"
            ),
            EXIT_USAGE,
        )
    partial = root.with_name(root.name + ".partial")
    log = root.with_name(root.name + ".log")
    if partial.exists():
        shutil.rmtree(partial)
    cmd = mmdebstrap_command(name, partial, mirror)
    if not quiet:
        print(
            (
                f"ordo: making {name} ({SYSTEMS[name]} from {mirror}) in {root}; log:"
                f" {log}"
            ),
            flush=True,
        )
    t0 = time.time()
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        rc = subprocess.call(
            cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    seconds = round(time.time() - t0, 1)
    if rc != 0:
        shutil.rmtree(partial, ignore_errors=True)
        text = log.read_text(errors="replace")
        unreachable = re.search(
            r"(Could not resolve|Failed to fetch|Temporary failure resolving|"
            r"Unable to connect|Connection failed)[^\n]*",
            text,
        )
        if unreachable:
            raise OrdoError(
                (
                    f"the repository {mirror} ({SYSTEMS[name]}) is unreachable:"
                    f" {unreachable.group(0)[:200]} (log: {log})"
                ),
                EXIT_USAGE,
            )
        last = [ln for ln in text.splitlines() if ln.startswith("E:")][
            -1:
        ] or text.splitlines()[-1:]
        raise OrdoError(
            (
                f"mmdebstrap could not make {name} (exit {rc}):"
                f" {(last or [''])[0][:200]} (log: {log})"
            ),
            EXIT_INFRA,
        )
    os.rename(partial, root)
    doc = {
        "schema": SCHEMA,
        "name": name,
        "suite": SYSTEMS[name],
        "mirror": mirror,
        "root": str(root),
        "made": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "seconds": seconds,
        "packages_asked": root_packages(),
        **describe_root(root),
    }
    tmp = record_of(root).with_name(record_of(root).name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, record_of(root))
    if not quiet:
        print(f"ordo: made {name} in {seconds:.0f} s: {summary(doc)}", flush=True)
    return doc


def os_release(path):
    out: dict = {}
    try:
        text = pathlib.Path(path).read_text(errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.startswith("#"):
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out[key.strip()] = value
    return out


def installed(admindir=None, names=None):
    """{package: version} of the installed packages (all, or those named) of a dpkg
    database."""
    cmd = (
        ["dpkg-query"]
        + ([f"--admindir={admindir}"] if admindir else [])
        + ["-W", "-f", "${Package}\t${Version}\t${db:Status-Status}\n"]
        + list(names or [])
    )
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[2] == "installed":
            found[parts[0].split(":")[0]] = parts[1]
    return found


def recorded_packages(packages):
    return {k: v for k, v in sorted(packages.items()) if RECORDED.match(k)}


def describe_root(root):
    """What a root holds, read from outside it."""
    root = pathlib.Path(root)
    return {
        "os_release": os_release(root / "etc" / "os-release"),
        "packages": recorded_packages(
            installed(admindir=root / "var" / "lib" / "dpkg")
        ),
    }


def owner(path):
    """The Debian package that holds a file (merged /usr: tried as /bin/... too), or
    None."""
    return owners([path]).get(path)


def owners(paths):
    """{path: the Debian package that holds it} of the files that one is found for,
    in one dpkg-query (each file as its real path, then merged /usr's /bin/...,
    then as given)."""
    candidates = {
        path: list(
            dict.fromkeys(
                [
                    os.path.realpath(path),
                    re.sub(r"^/usr/", "/", os.path.realpath(path)),
                    path,
                ]
            )
        )
        for path in paths
    }
    asked = list(dict.fromkeys(c for cs in candidates.values() for c in cs))
    if not asked:
        return {}
    try:
        out = subprocess.run(
            ["dpkg-query", "-S", *asked], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    held: dict = {}
    for line in out.stdout.splitlines():
        # "pkg[, pkg...]: /path" (a diversion's lines name no package first)
        if line.startswith(("diversion by ", "local diversion")) or ": " not in line:
            continue
        packages, file = line.split(": ", 1)
        held.setdefault(file.strip(), packages.split(",")[0].split(":")[0].strip())
    found = {}
    for path, cs in candidates.items():
        for c in cs:
            if c in held:
                found[path] = held[c]
                break
    return found


def describe_current(adapter):
    """The system this ordo runs on, for run.json: its name (ORDO_SYSTEM inside a root,
    else host), os-release, and the Debian versions of the adapter's packages, of the
    packages that hold its compilers and launcher, and of the MPI libraries, compilers
    and cmake installed (empty where dpkg is not)."""
    tools = {}
    found = {}
    for role, command in list((adapter.get("compilers") or {}).items()) + [
        ("launcher", (adapter.get("launcher") or {}).get("command", "")),
        ("c++", "g++"),
        ("fortran compiler", "gfortran"),
    ]:
        path = shutil.which(command) if command else None
        if path:
            found[role] = (command, path)
    held = owners([path for _, path in found.values()])
    for role, (command, path) in found.items():
        tools[role] = {
            "command": command,
            "path": os.path.realpath(path),
            "package": held.get(path),
        }
    everything = installed()
    packages = recorded_packages(everything)
    for name in list(adapter.get("packages") or []) + [
        t["package"] for t in tools.values() if t.get("package")
    ]:
        if name in everything:
            packages[name] = everything[name]
    for t in tools.values():
        if t.get("package"):
            t["version"] = everything.get(t["package"])
    return {
        "name": os.environ.get(INSIDE) or "host",
        "os_release": {
            k: v
            for k, v in os_release("/etc/os-release").items()
            if k
            in (
                "PRETTY_NAME",
                "NAME",
                "ID",
                "VERSION_ID",
                "VERSION_CODENAME",
                "VERSION",
            )
        },
        "tools": tools,
        "packages": dict(sorted(packages.items())),
    }


def summary(doc):
    """One line of a system's record: its release and MPI libraries."""
    rel = (doc.get("os_release") or {}).get("PRETTY_NAME") or "?"
    pk = doc.get("packages") or {}
    libs = ", ".join(
        f"{p} {pk[p]}"
        for p in ("libmpich-dev", "libopenmpi-dev", "g++", "cmake")
        if p in pk
    )
    return f"{rel}; {libs}"


# ---- running inside a root
# ----------------------------------------------------------------------------------------


def git_dirs():
    """The checkout's git folders (a worktree's .git is a file naming its folder
    elsewhere), to bind read-only."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "rev-parse",
                "--path-format=absolute",
                "--git-dir",
                "--git-common-dir",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    dirs: list = []
    for d in out.stdout.split():
        p = pathlib.Path(d)
        if (
            p.is_dir()
            and not p.is_relative_to(ROOT)
            and not any(p.is_relative_to(q) for q in dirs)
        ):
            dirs.append(p)
    return dirs


def bwrap_command(name, root, inner, binds=(), ro_binds=(), cwd=None, env=None):
    """bwrap's command line that runs `inner` inside the root (see the module's
    notes)."""
    cmd = [
        "bwrap",
        "--bind",
        str(root),
        "/",
        "--proc",
        "/proc",
        "--dev-bind",
        "/dev",
        "/dev",
        "--tmpfs",
        "/dev/shm",
        "--ro-bind",
        "/sys",
        "/sys",
        "--tmpfs",
        "/tmp",
        "--ro-bind-try",
        "/etc/resolv.conf",
        "/etc/resolv.conf",
        # The host's names: a root made by mmdebstrap has no /etc/hosts, and without it
        # the launcher's lookups of this machine's names go to DNS (every other MPICH
        # launch took 5 s longer).
        "--ro-bind-try",
        "/etc/hosts",
        "/etc/hosts",
    ]
    for b in binds:
        cmd += ["--bind", str(b), str(b)]
    for b in ro_binds:
        cmd += ["--ro-bind", str(b), str(b)]
    cmd += ["--die-with-parent", "--chdir", str(cwd or ROOT), "--clearenv"]
    for k, v in sorted((env or {}).items()):
        cmd += ["--setenv", k, v]
    return cmd + list(inner)


def inner_env(name):
    env = {k: v for k, v in os.environ.items() if k not in NOT_PASSED}
    env.update(
        {
            "PATH": ROOT_PATH,
            INSIDE: name,
            "ORDO_NO_INSTALL": "1",
            "ORDO_BUILD_ROOT": str(ROOT / "build" / name),
        }
    )
    return env


def run_inside(name, root, argv, out_dirs=(), read_only=()):
    """Runs `./ordo ARGV` inside the system's root; returns its exit code."""
    check_name(name)
    require("bwrap")
    root = pathlib.Path(root)
    if not (root / "usr" / "bin" / "python3").exists():
        raise OrdoError(
            f"the system {name} has no root at {root}: make it with `./ordo systems"
            f" make {name}`"
            + (
                f" --system-root {root}"
                if read_record(root) is None and root.name != name
                else ""
            ),
            EXIT_USAGE,
        )
    binds = [ROOT]
    for d in out_dirs:
        d = pathlib.Path(d).resolve()
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OrdoError(
                (
                    f"cannot make the output folder {d}: {e.strerror}; choose another"
                    " --out"
                ),
                EXIT_USAGE,
            )
        if not d.is_relative_to(ROOT):
            binds.append(d)
    lock = os.environ.get("ORDO_MPI_LOCK")
    # The same file (inode) inside: its flock still serialises the machine's MPI runs.
    if lock:
        lock_file = pathlib.Path(lock).resolve()
        lock_file.touch(exist_ok=True)
        binds.append(lock_file)
    cwd = pathlib.Path.cwd()
    if not any(cwd.is_relative_to(b) for b in binds):
        cwd = ROOT
    # The build folder of the system: build/<system>/<vendor>, apart from the host's
    # build/<vendor>.
    (ROOT / "build" / name).mkdir(parents=True, exist_ok=True)
    cmd = bwrap_command(
        name,
        root,
        ["/bin/bash", str(ROOT / "ordo")] + list(argv),
        binds=binds,
        ro_binds=git_dirs()
        + [
            pathlib.Path(d)
            for d in dict.fromkeys(read_only)
            if not pathlib.Path(d).is_relative_to(ROOT)
        ],
        cwd=cwd,
        env=inner_env(name),
    )
    return subprocess.call(cmd)


def strip_system_options(argv):
    """argv without --system-root/--systems-dir (host paths; --system itself stays:
    run.json's command names it)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--system-root", "--systems-dir"):
            skip = True
            continue
        if a.startswith("--system-root=") or a.startswith("--systems-dir="):
            continue
        out.append(a)
    return out


def absolute_paths(
    argv, options=("--out", "--resume", "--record", "--vendor", "--launcher")
):
    """argv with the paths of these options made absolute (the run inside starts in the
    checkout)."""
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in options and i + 1 < len(argv):
            out += [a, absolute(a, argv[i + 1])]
            i += 2
            continue
        key, sep, value = a.partition("=")
        out.append(f"{key}={absolute(key, value)}" if sep and key in options else a)
        i += 1
    return out


def absolute(option, value):
    if option == "--record":  # JOURNAL:ID
        path, sep, rid = value.rpartition(":")
        return f"{os.path.abspath(path)}:{rid}" if sep else value
    if option in (
        "--vendor",
        "--launcher",
    ):  # a name of vendors/ stays; a site's file gets its absolute path
        return os.path.abspath(value) if os.path.isfile(value) else value
    return os.path.abspath(value)


def maybe_run_inside(args, argv):
    """For `ordo run/replay/mutants --system NAME` on the host: runs the command
    inside the root and returns its exit code; inside the root (or without
    --system), None: the command runs here."""
    name = getattr(args, "system", None)
    if not name:
        return None
    check_name(name)
    if os.environ.get(INSIDE):
        if os.environ[INSIDE] != name:
            raise OrdoError(
                f"--system {name} inside the root of {os.environ[INSIDE]}", EXIT_USAGE
            )
        return None
    root = root_of(
        name, getattr(args, "systems_dir", None), getattr(args, "system_root", None)
    )
    argv = absolute_paths(strip_system_options(argv))
    out_dirs = []
    if args.command == "mutants" and getattr(args, "out", None):
        out_dirs.append(os.path.abspath(args.out))
    if args.command == "run":
        if getattr(args, "resume", None):
            out_dirs.append(os.path.abspath(args.resume))
        elif getattr(args, "out", None):
            out_dirs.append(os.path.abspath(args.out))
    elif args.command == "replay" and getattr(args, "record", None):
        out_dirs.append(
            os.path.dirname(os.path.abspath(args.record.rpartition(":")[0]))
        )
    # A site's adapter or launcher file (and its folder: its waivers) outside the
    # checkout, read-only.
    files = [
        os.path.dirname(os.path.abspath(f))
        for f in (getattr(args, "vendor", None), getattr(args, "launcher", None))
        if f and os.path.isfile(f)
    ]
    return run_inside(name, root, argv, out_dirs, read_only=files)


# ---- `ordo systems`
# -----------------------------------------------------------------------------------------------


def cmd_systems(args):
    action = args.action or "list"
    if action == "list":
        if args.name:
            raise OrdoError("`ordo systems list` takes no name", EXIT_USAGE)
        base = systems_dir(args.systems_dir)
        print(f"systems folder: {base}")
        for name in sorted(SYSTEMS):
            root = base / name
            doc = read_record(root)
            if doc:
                print(
                    f"  {name:16} made {doc.get('made')} in {doc.get('seconds')} s:"
                    f" {summary(doc)}"
                )
            elif root.exists():
                print(
                    f"  {name:16} {root} exists without its record"
                    f" {record_of(root).name} (incomplete: remove it)"
                )
            else:
                print(
                    f"  {name:16} not made ({SYSTEMS[name]}; `./ordo systems make"
                    f" {name}`)"
                )
        if args.system_root:
            doc = read_record(args.system_root)
            print(
                f"  {args.system_root}: "
                + (f"{doc.get('name')}, {summary(doc)}" if doc else "no root made here")
            )
        return 0
    if not args.name:
        raise OrdoError(
            (
                f"`ordo systems {action}` needs a system's name:"
                f" {', '.join(sorted(SYSTEMS))}"
            ),
            EXIT_USAGE,
        )
    name = check_name(args.name)
    root = root_of(name, args.systems_dir, args.system_root)
    if action == "make":
        make(name, root, mirror=args.mirror)
        return 0
    if action == "remove":
        if not root.exists() and not record_of(root).exists():
            raise OrdoError(
                f"{name} has no root at {root}: nothing to remove", EXIT_USAGE
            )
        if root.exists() and read_record(root) is None and not (root / "usr").is_dir():
            raise OrdoError(
                (
                    f"{root} does not look like a root of ordo's (no"
                    f" {record_of(root).name}, no usr/): not removed"
                ),
                EXIT_USAGE,
            )
        shutil.rmtree(root, ignore_errors=False) if root.exists() else None
        for extra in (record_of(root), root.with_name(root.name + ".log")):
            if extra.exists():
                extra.unlink()
        print(f"ordo: removed {name} ({root})")
        return 0
    raise OrdoError(f"unknown action {action!r}: list, make or remove", EXIT_USAGE)


def add_options(p, run_like=True):
    """--system (run, replay), --system-root, --systems-dir."""
    if run_like:
        p.add_argument(
            "--system",
            metavar="NAME",
            help=(
                "build and run inside a root of another Debian release"
                f" ({', '.join(sorted(SYSTEMS))}); see `ordo systems`"
            ),
        )
    p.add_argument(
        "--system-root",
        metavar="PATH",
        help=(
            "the system's root folder: a site's own "
            "(default: NAME in the systems folder)"
        ),
    )
    p.add_argument(
        "--systems-dir",
        metavar="DIR",
        help=(
            "the systems folder (default: $ORDO_SYSTEMS_DIR, else"
            " /var/cache/ordo/systems as root, else ~/.cache/ordo/systems)"
        ),
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run it as `./ordo systems`")

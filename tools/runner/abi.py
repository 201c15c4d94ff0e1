"""Runs through the MPI-5.0 standard ABI (#37): `ordo run --abi` builds ordo's C
and C++ checks once against the standard mpi.h, linked to libmpi_abi.so.1, in
one build folder (build/<system>/mpi-abi), and runs those same executables
against the ABI library of the library chosen at launch (--abi-library).

- The build: no library's compiler wrapper (FindMPI is told the standard header
  and a libmpi_abi.so of the build's own folder, MPI_SKIP_COMPILER_WRAPPER);
  ORDO_ABI_BUILD=1 is defined for every source. The header is the first
  library's of ABI_LIBRARIES that has one, whatever library runs, so that every
  run of the folder uses the same build.
- The launch: the chosen library's own adapter (its launcher, launch settings,
  variants and waivers), and every rank's LD_LIBRARY_PATH names a private
  folder of the build, abi/run-<name>/, whose only file is a libmpi_abi.so.1
  link to the chosen library's file. The root's own libmpi_abi.so.1 (an
  alternatives link) is never touched.
- The record (run.json "abi"): the library file, its Debian package and
  version, the ABI version the library reports (MPI_Abi_get_version, asked by
  ordo_replay --ordo-library-version), the header; with "build_identity"
  (build.build_identity, in every run) two runs can be shown to have used
  identical executables.
- What the ABI leaves out is a skip with its reason: the Fortran bindings are
  not part of the C ABI (cmake/OrdoFortran.cmake), so the fortran checks and
  the crossing's f08/f90 rows are skips saying so.

--abi-library NAME (mpich, openmpi) runs the library of that adapter, launched
by that adapter; --abi-library PATH runs that file, launched by --vendor's
adapter; without --abi-library, --vendor's library."""
import copy
import glob
import hashlib
import os
import pathlib

from .adapters import load_adapter
from .errors import EXIT_USAGE, OrdoError

# The libraries ordo knows the ABI of: adapter name -> the ABI library's file name
# (without its version suffix) and its standard mpi.h's folder, under the multiarch
# library folder (Debian: libmpich12's libmpi_abi_mpich.so.1.0.0 and libmpich-dev's
# mpi_abi_mpich/include; libopenmpi40's libmpi_abi_openmpi.so.1.0.0 and
# libopenmpi-dev's openmpi/include/standard_abi). The build's header is the first
# that is installed.
ABI_LIBRARIES = {
    "mpich": {"file": "libmpi_abi_mpich.so", "header": "mpi_abi_mpich/include"},
    "openmpi": {
        "file": "libmpi_abi_openmpi.so",
        "header": "openmpi/include/standard_abi",
    },
}
# The soname every ABI library has (MPI-5.0: the standard ABI's library).
SONAME = "libmpi_abi.so.1"
BUILD_NAME = "mpi-abi"
LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
)


def lib_dirs():
    return [d for d in LIB_DIRS if os.path.isdir(d)]


def library_file(name):
    """The installed ABI library of adapter NAME (its real file), or None."""
    for d in lib_dirs():
        for path in sorted(
            glob.glob(os.path.join(d, ABI_LIBRARIES[name]["file"] + ".1*"))
        ):
            if os.path.isfile(path):
                return os.path.realpath(path)
    return None


def header_dir():
    """The standard mpi.h the ABI build compiles against: (folder, whose), or None."""
    for name, known in ABI_LIBRARIES.items():
        for d in lib_dirs():
            folder = os.path.join(d, known["header"])
            if os.path.isfile(os.path.join(folder, "mpi.h")):
                return folder, name
    return None


def no_abi_here(what):
    return OrdoError(
        f"--abi: {what} on this system; MPI-5.0's standard ABI comes with MPICH 5"
        " and Open MPI 6 (e.g. `./ordo run --system debian-unstable --abi`)",
        EXIT_USAGE,
    )


def resolve(settings):
    """The run's vendor (whose adapter launches) and the ABI library file, from --abi,
    --abi-library and --vendor; one line (exit 2) where they cannot run."""
    wanted = settings.get("abi_library")
    if wanted and not settings.get("abi"):
        raise OrdoError("--abi-library without --abi: add --abi", EXIT_USAGE)
    vendor = settings["vendor"]
    if wanted in ABI_LIBRARIES:
        if vendor not in ("mpich", wanted):  # mpich: --vendor's default
            raise OrdoError(
                f"--vendor {vendor} with --abi-library {wanted}: the library {wanted}"
                " is launched by its own adapter; drop --vendor, or give"
                " --abi-library PATH to launch a file with --vendor's launcher",
                EXIT_USAGE,
            )
        vendor, name = wanted, wanted
    elif wanted:
        path = pathlib.Path(wanted)
        if not path.is_file():
            raise OrdoError(
                f"--abi-library {wanted}: no such file (give mpich, openmpi or the"
                f" path of a {SONAME} library)",
                EXIT_USAGE,
            )
        return vendor, os.path.realpath(path), "file"
    else:
        if vendor not in ABI_LIBRARIES:
            raise OrdoError(
                f"--abi with --vendor {vendor}: ordo knows the ABI library of"
                f" {', '.join(ABI_LIBRARIES)}; give --abi-library PATH",
                EXIT_USAGE,
            )
        name = vendor
    path = library_file(name)
    if path is None:
        raise no_abi_here(
            f"{name} has no ABI library ({ABI_LIBRARIES[name]['file']}.1*)"
        )
    return vendor, path, name


def run_folder(name, path):
    """The private folder of the library's libmpi_abi.so.1 link (in the build)."""
    if name == "file":
        name = "file-" + hashlib.sha256(path.encode()).hexdigest()[:12]
    return f"abi/run-{name}"


def abi_adapter(settings):
    """The adapter of an ABI run: the launching vendor's, built as mpi-abi (plain
    gcc and g++ with the standard header) and with LD_LIBRARY_PATH naming the
    chosen library's private folder."""
    vendor, path, name = resolve(settings)
    header = header_dir()
    if header is None:
        raise no_abi_here(
            "no standard mpi.h is installed ("
            + ", ".join(f"{k}: {v['header']}" for k, v in ABI_LIBRARIES.items())
            + ")"
        )
    adapter = copy.deepcopy(load_adapter(vendor))
    folder = run_folder(name, path)
    adapter["compilers"] = {"c": "gcc", "cxx": "g++"}
    adapter["env"] = {
        **adapter.get("env", {}),
        "LD_LIBRARY_PATH": "{build}/" + folder,
    }
    adapter["_build_name"] = BUILD_NAME
    adapter["_abi"] = {
        "library": path,
        "library_name": name,
        "run_folder": folder,
        "header": header[0],
        "header_of": header[1],
        # the link-time libmpi_abi.so: the header's library (the same in every run)
        "link_library": library_file(header[1]) or path,
        "vendors": sorted(ABI_LIBRARIES),
    }
    return adapter


# Set for the ranks of an ABI run: the harness writes `--abi --abi-library VALUE` into
# every replay command (conformance/harness/case_record.cpp, replay_command).
REPLAY_VARIABLE = "ORDO_ABI_LIBRARY"


def adapter_for(settings):
    """The adapter of a run or a replay: through the ABI (abi_adapter, and the
    ranks' replay commands say so) or the vendor's own."""
    if settings.get("abi") or settings.get("abi_library"):
        adapter = abi_adapter(settings)
        a = adapter["_abi"]
        os.environ[REPLAY_VARIABLE] = (
            a["library"] if a["library_name"] == "file" else a["library_name"]
        )
        return adapter
    os.environ.pop(REPLAY_VARIABLE, None)
    return load_adapter(settings["vendor"])


def prepare(adapter, bdir):
    """The build's link folder (abi/link/libmpi_abi.so) and the run's private folder
    (abi/run-<name>/libmpi_abi.so.1): links to the libraries' files. The link folder
    holds no libmpi_abi.so.1, so the executables' run path (CMake's, of the build
    tree) never finds a library there: the one of LD_LIBRARY_PATH is loaded."""
    abi = adapter["_abi"]
    for folder, name, target in (
        ("abi/link", "libmpi_abi.so", abi["link_library"]),
        (abi["run_folder"], SONAME, abi["library"]),
    ):
        d = pathlib.Path(bdir) / folder
        d.mkdir(parents=True, exist_ok=True)
        link = d / name
        if not (link.is_symlink() and os.readlink(link) == target):
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(target)


def cmake_args(adapter, bdir):
    """The configure options of the ABI build (in place of the wrappers')."""
    abi = adapter["_abi"]
    link = pathlib.Path(bdir) / "abi" / "link" / "libmpi_abi.so"
    return [
        "-DORDO_ABI_BUILD=ON",
        f"-DORDO_ABI_VENDORS={';'.join(abi['vendors'])}",
        "-DMPI_SKIP_COMPILER_WRAPPER=ON",
        "-DMPI_CXX_SKIP_MPICXX=ON",
        f"-DMPI_C_HEADER_DIR={abi['header']}",
        f"-DMPI_CXX_HEADER_DIR={abi['header']}",
        "-DMPI_C_LIB_NAMES=mpi_abi",
        "-DMPI_CXX_LIB_NAMES=mpi_abi",
        f"-DMPI_mpi_abi_LIBRARY={link}",
        "-DORDO_FORTRAN_WRAPPER=",
        f"-DORDO_VENDOR={BUILD_NAME}",
    ]


def record(adapter, version, owner, installed):
    """run.json's "abi": the library file, its package and version, the ABI version
    the library reports, the header the build used."""
    abi = adapter["_abi"]
    package = owner(abi["library"])
    header_package = owner(os.path.join(abi["header"], "mpi.h"))
    versions = installed(names=[p for p in (package, header_package) if p])
    return {
        "library": abi["library"],
        "library_name": abi["library_name"],
        "package": package,
        "package_version": versions.get(package) if package else None,
        "abi_version": version.get("abi_version"),
        "header": os.path.join(abi["header"], "mpi.h"),
        "header_package": header_package,
        "header_package_version": (
            versions.get(header_package) if header_package else None
        ),
        "launched_by": adapter["name"],
        "ld_library_path": abi["run_folder"],
    }

"""The property tests' reproducer writer (property_tests/reproducer*.cpp,
through its command ordo_reproducer): a case of the f08 or f90 binding gets a
standalone Fortran program that compiles with mpifort.mpich, runs clean
against MPICH, and exits non-zero when its expected bytes are corrupted or
the library has a fault of the Fortran path (the mutant
fortran-in-place-ignored); a case of the C binding still gets the C program."""
import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import BUILD

WRITER = BUILD / "mpich" / "property_tests" / "ordo_reproducer"
MUTANT_LIB = BUILD / "mutants" / "vendors" / "mutants" / "libordo_mutmpi.so"
LOCK = "/tmp/ordo-mpi.lock"
RANKS = 3

# Predefined ops: routines, forms, shapes, in place, large counts, pair types.
PREDEFINED = [
    {
        "routine": "allreduce",
        "datatype": "MPI_INT",
        "op": "MPI_SUM",
        "count": 5,
        "binding": "f08",
    },
    {
        "routine": "allreduce",
        "datatype": "MPI_INT",
        "op": "MPI_SUM",
        "count": 5,
        "binding": "f90",
    },
    {
        "routine": "reduce_scatter",
        "datatype": "MPI_DOUBLE",
        "op": "MPI_MAX",
        "count": 2,
        "recvcounts": [1, 0, 3],
        "comm": "dup",
        "binding": "f08",
        "mode": "nonblocking",
        "concurrency": "test",
    },
    {
        "routine": "reduce_scatter_block",
        "datatype": "MPI_UNSIGNED_LONG",
        "op": "MPI_BXOR",
        "count": 3,
        "binding": "f08",
        "large_count": True,
        "mode": "persistent",
    },
    {
        "routine": "allreduce",
        "datatype": "MPI_2INT",
        "op": "MPI_MINLOC",
        "count": 7,
        "comm": "reversed",
        "binding": "f90",
        "in_place": True,
    },
    {
        "routine": "reduce",
        "datatype": "MPI_C_DOUBLE_COMPLEX",
        "op": "MPI_PROD",
        "count": 4,
        "root": 2,
        "binding": "f90",
        "mode": "persistent",
    },
]
# Witness user ops on derived datatypes: the user function in Fortran.
WITNESS = [
    {
        "routine": "reduce",
        "datatype": "resized(-8,24,contiguous(4,MPI_INT))",
        "op": "witness.tracer",
        "count": 3,
        "root": 1,
        "comm": "reversed",
        "binding": "f90",
    },
    {
        "routine": "scan",
        "datatype": "struct([4,4],[-32,8],[MPI_INT,MPI_INT])",
        "op": "witness.matrix",
        "count": 4,
        "binding": "f08",
        "mode": "persistent",
    },
    {
        "routine": "exscan",
        "datatype": "vector(2,4,6,MPI_INT)",
        "op": "witness.multiset",
        "count": 2,
        "binding": "f90",
        "mode": "nonblocking",
        "concurrency": "freed",
        "in_place": True,
    },
    {
        "routine": "allreduce",
        "datatype": "indexed([4,4],[8,0],MPI_INT)",
        "op": "witness.sum-declared-noncommutative",
        "count": 3,
        "binding": "f08",
        "mode": "nonblocking",
    },
    {
        "routine": "reduce_scatter_block",
        "datatype": "hvector(2,4,-24,MPI_INT)",
        "op": "witness.tracer",
        "count": 2,
        "binding": "f08",
        "large_count": True,
    },
    # The crossing's interleaved class: an extent (16) below the true extent (48).
    {
        "routine": "allreduce",
        "datatype": "resized(0,16,indexed([2,2],[0,10],MPI_INT))",
        "op": "witness.tracer",
        "count": 5,
        "binding": "f08",
        "in_place": True,
    },
    # The crossing's large-element class at a 256-byte chunk: 272-byte elements.
    {
        "routine": "reduce",
        "datatype": "contiguous(68,MPI_INT)",
        "op": "witness.multiset",
        "count": 3,
        "root": 2,
        "binding": "f90",
    },
]


def needs_tools():
    if not WRITER.is_file():
        pytest.skip(f"no {WRITER}: `./ordo test` builds it")
    for tool in ("mpifort.mpich", "mpicc.mpich", "mpiexec.mpich"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def write(case, tmp_path):
    full = {"comm": "world", **case}
    p = subprocess.run(
        [str(WRITER), f"--ranks={RANKS}", f"--dir={tmp_path}", json.dumps(full)],
        capture_output=True,
        text=True,
        check=True,
    )
    return tmp_path / os.path.basename(p.stdout.strip())


def build(src, tmp_path, name="repro"):
    exe = tmp_path / name
    compiler = "mpifort.mpich" if src.suffix == ".f90" else "mpicc.mpich"
    # In the source's folder: gfortran writes the witness module's .mod file there.
    subprocess.run(
        [compiler, str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
        check=True,
        cwd=src.parent,
    )
    return exe


def launch(exe, mutant=None):
    env = (
        ["-genv", "LD_PRELOAD", str(MUTANT_LIB), "-genv", "ORDO_MUTANT", mutant]
        if mutant
        else []
    )
    return subprocess.run(
        [
            "flock",
            LOCK,
            "timeout",
            "120",
            "mpiexec.mpich",
            *env,
            "-n",
            str(RANKS),
            str(exe),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def corrupt_expected(src):
    """Every expected byte b becomes 255 - b (the data bytes all differ)."""
    text = src.read_text()
    if src.suffix == ".f90":

        def flip(m):
            return (
                m.group(1)
                + "".join("%x" % (15 - int(d, 16)) for d in m.group(2))
                + "')"
            )

        new = re.sub(r"(call fill\(expect, \d+, ')([0-9a-f]*)'\)", flip, text)
    else:

        def flip(m):
            return (
                m.group(1)
                + ",".join(str(255 - int(v)) for v in m.group(2).split(","))
                + "}"
            )

        new = re.sub(r"(r\d+_expect\[\d+\] = \{)([\d,\s]*)\}", flip, text)
    assert new != text
    out = src.with_name("corrupted" + src.suffix)
    out.write_text(new)
    return out


def clean_then_corrupted(case, tmp_path, language):
    src = write(case, tmp_path)
    assert src.suffix == (".f90" if language == "fortran" else ".c")
    if language == "fortran":
        module = "mpi_f08" if case["binding"] == "f08" else "mpi"
        assert f"\n  use {module}\n" in src.read_text()
    clean = launch(build(src, tmp_path))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert clean.stdout.count(": ok") == RANKS
    bad = launch(build(corrupt_expected(src), tmp_path, "corrupted"))
    assert bad.returncode != 0, bad.stdout + bad.stderr
    assert "result differs at byte" in bad.stdout
    return src


@pytest.mark.parametrize(
    "case", PREDEFINED, ids=lambda c: f"{c['binding']}-{c['routine']}-{c['op']}"
)
def test_a_fortran_reproducer_of_a_predefined_op_runs_clean_and_fails_when_corrupted(
    case, tmp_path
):
    needs_tools()
    clean_then_corrupted(case, tmp_path, "fortran")


@pytest.mark.parametrize(
    "case", WITNESS, ids=lambda c: f"{c['binding']}-{c['routine']}-{c['op']}"
)
def test_a_fortran_reproducer_of_a_witness_op_has_a_fortran_user_op_and_fails_corrupted(
    case, tmp_path
):
    needs_tools()
    src = clean_then_corrupted(case, tmp_path, "fortran")
    text = src.read_text()
    assert "subroutine user_fn(invec, inoutvec, len, datatype)" in text
    assert "call MPI_Op_create(user_fn, " in text
    assert "MPI_Type_commit(dt, ierr)" in text


def test_a_case_of_the_c_binding_still_gets_the_c_reproducer(tmp_path):
    needs_tools()
    src = clean_then_corrupted(
        {
            "routine": "reduce",
            "datatype": "resized(-8,24,contiguous(4,MPI_INT))",
            "op": "witness.tracer",
            "count": 3,
            "root": 1,
            "comm": "reversed",
            "mode": "nonblocking",
        },
        tmp_path,
        "c",
    )
    assert "#include <mpi.h>" in src.read_text()


def test_what_fortran_cannot_express_is_the_c_program_with_a_header_saying_why(
    tmp_path,
):
    needs_tools()
    case = {
        "routine": "allreduce",
        "datatype": "contiguous(4,MPI_INT)",
        "op": "witness.tracer-c",
        "count": 3,
        "binding": "f08",
    }
    src = clean_then_corrupted(case, tmp_path, "c")
    header = src.read_text().split("*/")[0]
    assert "binding is f08 (use mpi_f08)" in header and "MPI_Op_create_c" in header


@pytest.mark.parametrize("binding", ["f08", "f90"])
def test_a_fortran_reproducer_fails_with_a_fault_of_the_fortran_path_and_only_with_it(
    binding, tmp_path_factory
):
    """The mutant fortran-in-place-ignored (MPI_IN_PLACE from the library's
    Fortran binding taken as zeros): the Fortran program fails with it and
    passes without it; the C program of the same case passes with it."""
    needs_tools()
    if not MUTANT_LIB.is_file():
        pytest.skip(f"no {MUTANT_LIB}: `./ordo test` builds it")
    case = {
        "routine": "allreduce",
        "datatype": "MPI_INT",
        "op": "MPI_SUM",
        "count": 3,
        "in_place": True,
        "binding": binding,
    }
    # The folders' names say "fortran" on purpose: the mutant takes a caller
    # in a shared library named so (libmpichfort) for the library's Fortran
    # binding, never a program by its folder.
    f_dir, c_dir = tmp_path_factory.mktemp("fortran"), tmp_path_factory.mktemp(
        "c-fortran"
    )
    fortran = build(write(case, f_dir), f_dir)
    c = build(write(dict(case, binding="c"), c_dir), c_dir)
    with_fault = launch(fortran, "fortran-in-place-ignored")
    assert (
        with_fault.returncode != 0 and "result differs at byte 0" in with_fault.stdout
    ), with_fault.stdout
    without = launch(fortran)
    assert without.returncode == 0, without.stdout + without.stderr
    c_with_fault = launch(c, "fortran-in-place-ignored")
    assert c_with_fault.returncode == 0, c_with_fault.stdout + c_with_fault.stderr

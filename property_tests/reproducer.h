// Standalone reproducers of a failing case: a program that needs only the
// MPI library and its language's runtime, builds the same inputs (the
// reference's bytes, embedded), makes the same call through the case's
// binding, compares with the reference's expected bytes and exits non-zero
// when they differ. A case of the C binding gets a C program (<mpi.h>); one
// of the f08 or f90 binding a free-form Fortran program (`use mpi_f08` or
// `use mpi`) with the witness ops' user functions written in Fortran, or,
// for what Fortran cannot express here, the C program with a header saying why.
#pragma once

#include <string>

#include "ordo/reference/case.h"

namespace ordo::props {

struct Reproducer {
  std::string source;     // empty: no reproducer (the reason in *why)
  std::string language;   // "c" or "fortran"
  std::string extension;  // ".c" or ".f90"
  std::string compiler;   // the wrapper that builds it: "mpicc" or "mpifort"
};

// The reproducer of the case at `world_size` ranks. Supported: Reduce,
// Allreduce, Scan, Exscan, Reduce_scatter_block, Reduce_scatter in blocking,
// nonblocking and persistent form, on the shapes world, dup and reversed,
// with predefined datatypes (basic, or the pairs of MPI_Type_get_value_index)
// and predefined ops or derived datatypes and witness ops. Returns an empty
// source and sets *why otherwise.
Reproducer make_reproducer(const ref::Case& c, int world_size, std::string* why);

// make_reproducer(...).source.
std::string reproducer_source(const ref::Case& c, int world_size, std::string* why);

// Writes <dir>/ordo-repro-<hash>-<N>ranks.c (or .f90); returns its path, or
// empty (and *why).
std::string write_reproducer(const ref::Case& c, int world_size, const std::string& dir,
                             std::string* why);

}  // namespace ordo::props

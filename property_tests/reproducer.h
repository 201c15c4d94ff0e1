// Standalone C reproducers of a failing case: a program that needs only
// <mpi.h> and the C library, builds the same inputs (the reference's bytes,
// embedded), makes the same call, compares with the reference's expected
// bytes and exits non-zero when they differ.
#pragma once

#include <string>

#include "ordo/reference/case.h"

namespace ordo::props {

// The C source for the case at `world_size` ranks. Supported: Reduce,
// Allreduce, Scan, Exscan, Reduce_scatter_block, Reduce_scatter in blocking,
// nonblocking and persistent form, on the shapes world, dup and reversed,
// with predefined datatypes (basic, or the pairs of MPI_Type_get_value_index)
// and predefined ops or derived datatypes and witness ops. Returns an empty
// string and sets *why otherwise.
std::string reproducer_source(const ref::Case& c, int world_size, std::string* why);

// Writes <dir>/ordo-repro-<hash>.c; returns its path, or empty (and *why).
std::string write_reproducer(const ref::Case& c, int world_size, const std::string& dir,
                             std::string* why);

}  // namespace ordo::props

// What the C and the Fortran reproducer writers share (reproducer.cpp,
// reproducer_fortran.cpp): which cases they cover, each rank's bytes from
// the reference, the datatype's constructor steps, the routine's names and
// the header's text. The writers only spell these in their language.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "ordo/reference/case.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/oracle.h"

namespace ordo::props::repro {

// Why neither writer covers the case; empty when both do.
std::string unsupported(const ref::Case& c);

// One rank's part of the call, from ordo::ref::plan on the case's
// (intra)communicator: the bytes of its buffers and which bytes to compare.
struct RankData {
  int send_mode = 0;  // 0: not significant (C NULL), 1: a buffer, 2: MPI_IN_PLACE
  std::vector<std::byte> send;
  long send_origin = 0;  // the buffer address: storage + origin (negative lower bounds)
  bool has_recv = false;
  std::vector<std::byte> recv;
  long recv_origin = 0;
  bool check = false;  // the result is defined here: compare with expect
  std::vector<std::byte> expect;
  long expect_origin = 0;
  std::vector<ref::ByteRange> ranges;  // the data bytes of the result, from the buffer address
};
std::vector<RankData> rank_data(const ref::Case& c, int world_size);

// The case's reduce_scatter recvcounts at this size.
std::vector<int> recvcounts(const ref::Case& c, int world_size);

// One constructor call that builds a derived datatype: its result `var`
// from `kids` (variables or basic names) and the constructor's arguments.
struct TypeStep {
  ref::Datatype::Kind kind;
  std::string var;
  std::vector<std::string> kids;
  std::vector<int> ints;
  std::vector<std::ptrdiff_t> addrs;
};
// Appends the steps that build d, children first; returns the variable of
// d, or the name of a basic type (no step).
std::string type_steps(const ref::Datatype& d, std::vector<TypeStep>& steps);

// "Reduce", "Allreduce", "Scan", "Exscan", "Reduce_scatter_block", "Reduce_scatter".
std::string routine_stem(ref::Routine r);
// The nonblocking name of a stem: "Ireduce", "Iallreduce", "Ireduce_scatter".
std::string nonblocking_name(const std::string& stem);
// The MPI name of the case's call: MPI_Ireduce_scatter_c, MPI_Allreduce_init ...
std::string call_name(const ref::Case& c);

// The witness ops' combining kernels (ordo/reference/witness.h) a
// reproducer writes in its own language.
enum class Kernel { tracer, matrix, sum };
Kernel witness_kernel(const std::string& op);

// The header's lines (without comment markers): the case, its JSON, how to
// build and run it, what the exit status means, and `notes`.
std::vector<std::string> header_lines(const ref::Case& c, int world_size, const std::string& build,
                                      const std::vector<std::string>& notes);

template <class V>
std::string join(const V& v, std::size_t from, std::size_t to, const char* sep = ",") {
  std::ostringstream s;
  for (std::size_t i = from; i < to; ++i) s << (i > from ? sep : "") << v[i];
  return s.str();
}

// The Fortran program of a case whose binding is f08 or f90; empty, with
// *why, for what it cannot express (the caller then writes C).
std::string fortran_source(const ref::Case& c, int world_size, std::string* why);

}  // namespace ordo::props::repro

// Checks whose MPI calls a Fortran program makes (seeds_examples_f08.F90,
// sections_f08.F90): run on every rank, judged on rank 0 against the
// reference's fold of the inputs the programs used, gathered over the
// harness's own point-to-point communicator.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "catalogue.h"
#include "mpi_types.h"
#include "ordo/reference/semantics.h"

namespace ordo::catalogue::fortran_programs {

namespace ref = ordo::ref;
using harness::LocalVerdict;

template <class T>
inline std::string bytes_of(const T* p, std::size_t n) {
  return std::string(reinterpret_cast<const char*>(p), n * sizeof(T));
}

// The reference's result of routine (reduce, allreduce, scan) at `rank`
// (reduce: the root) over every rank's input (gathered at rank 0).
inline ref::Buffer reference_result(const std::vector<std::string>& inputs, const ref::Datatype& dt,
                                    int count, ref::PredefinedOp op, ref::Routine routine,
                                    int rank) {
  std::vector<ref::Buffer> send, recv;
  for (const std::string& in : inputs) {
    send.emplace_back(dt, count);
    std::memcpy(send.back().data(), in.data(), std::min(in.size(), send.back().storage().size()));
    recv.emplace_back(dt, count);
  }
  if (routine == ref::Routine::reduce) ref::reduce(send, ref::Op::predefined(op), rank, recv);
  if (routine == ref::Routine::allreduce) ref::allreduce(send, ref::Op::predefined(op), recv);
  if (routine == ref::Routine::scan) ref::scan(send, ref::Op::predefined(op), recv);
  return recv[static_cast<std::size_t>(rank)];
}

// The reference's MPI_Reduce of every rank's input (gathered at rank 0) to root.
inline ref::Buffer reference_reduce(const std::vector<std::string>& inputs, const ref::Datatype& dt,
                                    int count, ref::PredefinedOp op, int root) {
  return reference_result(inputs, dt, count, op, ref::Routine::reduce, root);
}

inline std::string ierror(int rc) {
  return rc == MPI_SUCCESS
             ? ""
             : "the Fortran program's MPI calls returned " + ordo::harness::error_string(rc);
}

// The example's call as a case of the f08 binding (the record's parameters).
inline Case example_case(const std::string& op, const std::string& type, int count, int root) {
  Case c = make(Routine::reduce, op, type, count);
  c.root = root;
  c.binding = "f08";
  return c;
}

// Runs an example on every rank: call() fills this rank's input and what the
// root read out, and returns what went wrong on this rank ("" if nothing); judge() (rank 0)
// compares the root's reading with the reference's fold of all inputs.
template <class Call, class Judge>
void run_example(const Case& c, Call call, Judge judge) {
  if (!ordo::harness::begin_case(&c)) return;
  if (auto why = ordo::harness::missing_feature(c)) {
    ordo::harness::record(c, {LocalVerdict::Status::skip, *why, ""}, 0, 0);
    return;
  }
  const int p = ordo::harness::world_size();
  // Its communicator is the world: the record of a case that hangs or
  // crashes names its size, and a case whose routine keeps hanging on
  // communicators of that size is held back as run_case's are.
  ordo::harness::note_case_comm("world", p);
  if (std::string why = ordo::harness::held_back(c, p); !why.empty()) {
    ordo::harness::record(c, {LocalVerdict::Status::skip, why, ""}, 0, p);
    return;
  }
  std::string in, out;
  const double t0 = MPI_Wtime();
  const std::string error = call(&in, &out);
  const double seconds = MPI_Wtime() - t0;
  LocalVerdict mine;
  if (!error.empty()) mine = {LocalVerdict::Status::fail, error, ""};
  const auto inputs = ordo::harness::gather_to_rank0(in);
  const auto outputs = ordo::harness::gather_to_rank0(out);
  if (ordo::harness::world_rank() == 0 && mine.status == LocalVerdict::Status::pass) {
    const std::string why = judge(inputs, outputs);
    if (!why.empty()) mine = {LocalVerdict::Status::fail, why + " (" + c.describe() + ")", ""};
  }
  ordo::harness::record(c, mine, seconds, p);
}

}  // namespace ordo::catalogue::fortran_programs

// Shared vocabulary of the catalogue: the routines, the valid op x type
// pairs (from the reference's table, never restated here), case builders.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "comm_zoo.h"
#include "executor.h"
#include "mpi_types.h"
#include "ordo/reference/basic_types.h"
#include "ordo/reference/case.h"
#include "ordo/reference/op.h"

namespace ordo::catalogue {

using ref::Case;
using ref::Mode;
using ref::Routine;

// The collective routines (Reduce_local and Reduce_locals are local).
inline const std::vector<Routine>& collectives() {
  static const std::vector<Routine> v = {Routine::reduce,         Routine::allreduce,
                                         Routine::reduce_scatter, Routine::reduce_scatter_block,
                                         Routine::scan,           Routine::exscan};
  return v;
}
inline const std::vector<Routine>& collectives_and_local() {
  static const std::vector<Routine> v = {
      Routine::reduce, Routine::allreduce, Routine::reduce_scatter, Routine::reduce_scatter_block,
      Routine::scan,   Routine::exscan,    Routine::reduce_local};
  return v;
}
inline const std::vector<Mode>& modes() {
  static const std::vector<Mode> v = {Mode::blocking, Mode::nonblocking, Mode::persistent};
  return v;
}

// Every (op, type) pair the MPI-4.1 table allows, in table order.
inline std::vector<std::pair<ref::PredefinedOp, ref::Basic>> valid_pairs() {
  std::vector<std::pair<ref::PredefinedOp, ref::Basic>> v;
  for (int o = 0; o < ref::kPredefinedOpCount; ++o)
    for (int b = 0; b < ref::kBasicCount; ++b)
      if (ref::validity(static_cast<ref::PredefinedOp>(o), static_cast<ref::Basic>(b)).valid)
        v.push_back({static_cast<ref::PredefinedOp>(o), static_cast<ref::Basic>(b)});
  return v;
}

// Every (op, type) pair the table forbids, restricted to the given groups.
inline std::vector<std::pair<ref::PredefinedOp, ref::Basic>> invalid_pairs(
    const std::vector<ref::TypeGroup>& groups, const std::vector<ref::PredefinedOp>& ops) {
  std::vector<std::pair<ref::PredefinedOp, ref::Basic>> v;
  for (ref::PredefinedOp o : ops)
    for (int b = 0; b < ref::kBasicCount; ++b) {
      const auto t = static_cast<ref::Basic>(b);
      bool in_group = false;
      for (auto g : groups) in_group = in_group || ref::info(t).group == g;
      if (in_group && !ref::validity(o, t).valid) v.push_back({o, t});
    }
  return v;
}

inline Case make(Routine r, const std::string& op, const std::string& type, int count,
                 const std::string& comm = "world") {
  Case c;
  c.routine = r;
  c.op = op;
  c.datatype = type;
  c.count = count;
  c.comm = comm;
  c.seed = harness::settings().seed;
  return c;
}

inline std::string name(ref::Basic b) { return std::string(ref::info(b).mpi_name); }
inline std::string name(ref::PredefinedOp o) { return std::string(ref::op_name(o)); }

// Runs a case at every root of its shape when it is a Reduce, once otherwise.
inline void run_at_every_root(Case c, const harness::CaseOptions& options = {}) {
  if (c.routine != Routine::reduce) {
    harness::run_case(c, options);
    return;
  }
  const bool inter = harness::zoo(c.comm).topology.inter;
  for (bool high : inter ? std::vector<bool>{false, true} : std::vector<bool>{false})
    for (int root = 0; root < harness::root_count(c.comm, high); ++root) {
      c.root = root;
      c.root_in_high_group = high;
      harness::run_case(c, options);
    }
}

// The last rank as root: a root other than 0 for the value checks.
inline Case at_last_root(Case c) {
  if (c.routine == Routine::reduce) c.root = std::max(0, harness::root_count(c.comm) - 1);
  return c;
}

inline std::vector<std::string> all_shapes() {
  std::vector<std::string> v = harness::intra_shapes();
  for (const auto& s : harness::inter_shapes()) v.push_back(s);
  return v;
}

// Intercommunicators take neither Scan nor Exscan nor MPI_IN_PLACE.
inline bool routine_allowed_on(Routine r, const std::string& shape) {
  const bool inter = harness::zoo(shape).topology.inter;
  return !(inter && (r == Routine::scan || r == Routine::exscan || r == Routine::reduce_local));
}

// An MPI_Reduce case of a witness op on whole cells (MPI_UINT32_T cells for
// the matrix, MPI_INT for the others), root 0 on world; callers set the rest.
inline Case reduce_witness_case(const std::string& op, int count) {
  Case c;
  c.routine = Routine::reduce;
  c.op = op;
  c.datatype = op == "witness.matrix" ? "contiguous(4,MPI_UINT32_T)" : "contiguous(4,MPI_INT)";
  c.count = count;
  c.seed = harness::settings().seed;
  return c;
}

// The user-function contract (MPI-4.1 6.9.5), for the witness.recorder op:
// every call of the user function received the handle of the datatype
// passed to the call (a Fortran function: its Fortran handle, which
// converts to it) and 0 <= len <= the elements sent.
inline harness::LocalVerdict every_call_saw_the_callers_datatype(const harness::CaseContext& k) {
  using harness::LocalVerdict;
  const std::string fn =
      k.c.binding == "c" ? "the user function" : "the " + k.c.binding + " user function (Fortran)";
  std::string why;
  const MPI_Datatype passed = harness::mpi_datatype(ref::Datatype::parse(k.plan.datatype), &why);
  for (const auto& call : harness::recorded_calls()) {
    if (call.datatype != passed)
      return {LocalVerdict::Status::fail, "a call of " + fn + " received another datatype handle",
              ""};
    if (call.len < 0 || call.len > std::max(k.plan.send_count, k.plan.recv_count))
      return {LocalVerdict::Status::fail,
              "a call of " + fn + " received len = " + std::to_string(call.len) + " for " +
                  std::to_string(k.plan.send_count) + " elements",
              ""};
  }
  return {};
}

}  // namespace ordo::catalogue

// The user-function contract (MPI-4.1 6.9.5): the function receives the
// datatype passed to the call, and len elements of it. (The tracer's exact
// results show that every element is combined exactly once per operand and
// never with itself.)
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "catalogue.h"
#include "mpi_types.h"

using namespace ordo::catalogue;
using ordo::harness::CaseContext;
using ordo::harness::LocalVerdict;

TEST(User_op, the_function_receives_the_datatype_passed_to_the_call_and_len_elements_of_it) {
  ORDO_CLAUSE("user-op.datatype-argument", MUST);
  ordo::harness::CaseOptions check;
  check.extra = every_call_saw_the_callers_datatype;
  for (Routine r : collectives_and_local())
    for (const char* type :
         {"contiguous(4,MPI_INT)", "vector(2,2,3,MPI_INT)", "dup(contiguous(4,MPI_INT))"})
      for (int count : {1, 5, 1000})
        ordo::harness::run_case(at_last_root(make(r, "witness.recorder", type, count)), check);
}

// The values and the order of a user op are required at every count: the
// counts whose chunking is recorded below (INFO) are judged here (MUST),
// with non-commutative ops that make a wrong order visible, in every routine.
TEST(User_op, values_and_order_at_large_counts_are_those_of_the_reference) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  for (Routine r : collectives_and_local())
    for (const char* op : {"witness.recorder", "witness.tracer", "witness.matrix"})
      for (int count : {4096, 65536})
        ordo::harness::run_case(
            at_last_root(make(r, op,
                              std::string(op) == "witness.matrix" ? "contiguous(4,MPI_UINT32_T)"
                                                                  : "contiguous(4,MPI_INT)",
                              count)));
  // The nonblocking and persistent forms too.
  for (Mode m : {Mode::nonblocking, Mode::persistent})
    for (Routine r : collectives()) {
      Case c = at_last_root(make(r, "witness.tracer", "contiguous(4,MPI_INT)", 4096));
      c.mode = m;
      ordo::harness::run_case(c);
    }
}

// An op declared commutative (commute = 1) frees the library to combine in
// any order, and libraries take other algorithms for it. witness.multiset
// is exactly commutative and associative, and its result identifies the
// multiset of contributions: whatever the order, every process's input must
// be in the result exactly once (a message names a dropped, doubled or
// misplaced contribution). Every routine and form, counts from 0 to 65536,
// datatypes with holes, every communicator shape, every root.
TEST(User_op, a_commutative_op_combines_every_contribution_exactly_once) {
  ORDO_CLAUSE("user-op.commutative-contributions", MUST);
  for (Routine r : collectives_and_local())
    for (const std::string& shape : all_shapes()) {
      if (!routine_allowed_on(r, shape) || (r == Routine::reduce_local && shape != "world"))
        continue;
      for (const char* type : {"contiguous(4,MPI_INT)", "resized(-8,40,vector(2,2,3,MPI_INT))"})
        for (int count : {0, 1, 7, 1000}) {
          Case c = make(r, "witness.multiset", type, count, shape);
          // Buffers that are not significant are real buffers the call must
          // leave alone (NULL there is the intercomm checks' concern).
          c.null_insignificant = false;
          run_at_every_root(c);
        }
    }
  for (Routine r : collectives_and_local())
    for (int count : {4096, 65536})
      ordo::harness::run_case(
          at_last_root(make(r, "witness.multiset", "contiguous(4,MPI_INT)", count)));
  for (Mode m : {Mode::nonblocking, Mode::persistent})
    for (Routine r : collectives())
      for (const std::string& shape : {std::string("world"), std::string("reversed")})
        for (int count : {1, 1000, 65536}) {
          Case c = at_last_root(make(r, "witness.multiset", "contiguous(4,MPI_INT)", count, shape));
          c.mode = m;
          ordo::harness::run_case(c);
        }
}

TEST(User_op, how_the_library_splits_a_combine_into_calls_is_recorded) {
  ORDO_CLAUSE("user-op.chunking", INFO);
  ordo::harness::CaseOptions note;
  note.extra = [](const CaseContext&) {
    std::map<int, int> lens;
    for (const auto& call : ordo::harness::recorded_calls()) ++lens[call.len];
    std::ostringstream o;
    o << "rank 0's calls by len:";
    for (const auto& [len, n] : lens) o << " " << n << "x" << len;
    return LocalVerdict{LocalVerdict::Status::pass, o.str(), ""};
  };
  for (Routine r : collectives())
    for (int count : {1, 4096, 65536})
      ordo::harness::run_case(
          at_last_root(make(r, "witness.recorder", "contiguous(4,MPI_INT)", count)), note);
}

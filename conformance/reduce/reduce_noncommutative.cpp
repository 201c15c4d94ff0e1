// MPI_Reduce with non-commutative user ops: the result is the ascending-rank
// fold at every root, on intra- and intercommunicators.
#include <gtest/gtest.h>

#include "comm_zoo.h"
#include "executor.h"

using ordo::harness::run_case;
using ordo::ref::Case;
using ordo::ref::Routine;

namespace {

Case witness_case(const std::string& op, int count) {
  Case c;
  c.routine = Routine::reduce;
  c.op = op;
  c.datatype = op == "witness.matrix" ? "contiguous(4,MPI_UINT32_T)" : "contiguous(4,MPI_INT)";
  c.count = count;
  c.seed = ordo::harness::settings().seed;
  return c;
}

}  // namespace

TEST(Reduce, noncommutative_op_is_applied_in_rank_order_at_every_root) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  for (const char* op : {"witness.tracer", "witness.matrix"})
    for (int count : {1, 5})
      for (const std::string& shape : ordo::harness::intra_shapes())
        for (int root = 0; root < ordo::harness::root_count(shape); ++root) {
          Case c = witness_case(op, count);
          c.comm = shape;
          c.root = root;
          run_case(c);
        }
}

TEST(Reduce, intercommunicator_root_gets_the_other_groups_reduction_in_its_rank_order) {
  ORDO_CLAUSE("reduce.intercomm-root", MUST);
  for (const char* op : {"witness.tracer", "witness.matrix"})
    for (const std::string& shape : ordo::harness::inter_shapes())
      for (bool high : {false, true})
        for (int root = 0; root < ordo::harness::root_count(shape, high); ++root) {
          Case c = witness_case(op, 3);
          c.comm = shape;
          c.root = root;
          c.root_in_high_group = high;
          // Valid buffers everywhere, so that this check is about the order
          // only; NULL where not significant is the next check.
          c.null_insignificant = false;
          run_case(c);
        }
}

TEST(Reduce, intercommunicator_root_group_may_pass_null_send_buffers) {
  ORDO_CLAUSE("reduce.intercomm-root", MUST);
  for (const std::string& shape : ordo::harness::inter_shapes())
    for (bool high : {false, true})
      for (int root = 0; root < ordo::harness::root_count(shape, high); ++root) {
        Case c = witness_case("witness.tracer", 2);
        c.comm = shape;
        c.root = root;
        c.root_in_high_group = high;
        c.null_insignificant = true;
        run_case(c);
      }
}

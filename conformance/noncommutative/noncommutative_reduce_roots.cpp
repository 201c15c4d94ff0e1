// MPI_Reduce with non-commutative user ops: the result is the ascending-rank
// fold at every root of every intracommunicator shape.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

TEST(Reduce, noncommutative_op_is_applied_in_rank_order_at_every_root) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  for (const char* op : {"witness.tracer", "witness.matrix"})
    for (int count : {1, 5})
      for (const std::string& shape : ordo::harness::intra_shapes())
        for (int root = 0; root < ordo::harness::root_count(shape); ++root) {
          Case c = reduce_witness_case(op, count);
          c.comm = shape;
          c.root = root;
          ordo::harness::run_case(c);
        }
}

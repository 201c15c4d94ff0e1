// MPI_Reduce on intercommunicators: the root gets the other group's
// reduction in that group's rank order, at every root of either group,
// and the root's group may pass NULL send buffers.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

TEST(Reduce, intercommunicator_root_gets_the_other_groups_reduction_in_its_rank_order) {
  ORDO_CLAUSE("reduce.intercomm-root", MUST);
  for (const char* op : {"witness.tracer", "witness.matrix"})
    for (const std::string& shape : ordo::harness::inter_shapes())
      for (bool high : {false, true})
        for (int root = 0; root < ordo::harness::root_count(shape, high); ++root) {
          Case c = reduce_witness_case(op, 3);
          c.comm = shape;
          c.root = root;
          c.root_in_high_group = high;
          // Valid buffers everywhere, so that this check is about the order
          // only; NULL where not significant is the next check.
          c.null_insignificant = false;
          ordo::harness::run_case(c);
        }
}

TEST(Reduce, intercommunicator_root_group_may_pass_null_send_buffers) {
  ORDO_CLAUSE("reduce.intercomm-root", MUST);
  for (const std::string& shape : ordo::harness::inter_shapes())
    for (bool high : {false, true})
      for (int root = 0; root < ordo::harness::root_count(shape, high); ++root) {
        Case c = reduce_witness_case("witness.tracer", 2);
        c.comm = shape;
        c.root = root;
        c.root_in_high_group = high;
        c.null_insignificant = true;
        ordo::harness::run_case(c);
      }
}

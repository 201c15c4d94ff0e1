// Intercommunicators (MPI-4.1 6.2.2): each group receives the reduction of
// the other group's data, in that group's rank order.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

TEST(Intercomm, allreduce_gives_each_group_the_reduction_of_the_other_group) {
  ORDO_CLAUSE("allreduce.values", MUST);
  for (const std::string& shape : ordo::harness::inter_shapes())
    for (int count : {0, 1, 5}) {
      ordo::harness::run_case(
          make(Routine::allreduce, "witness.tracer", "contiguous(4,MPI_INT)", count, shape));
      ordo::harness::run_case(make(Routine::allreduce, "MPI_SUM", "MPI_INT", count, shape));
      ordo::harness::run_case(
          make(Routine::allreduce, "MPI_MAXLOC", "MPI_DOUBLE_INT", count, shape));
    }
}

TEST(Intercomm, reduce_scatter_scatters_the_other_groups_reduction_by_the_receiving_groups_counts) {
  ORDO_CLAUSE("reduce-scatter.intercomm", MUST);
  for (const std::string& shape : ordo::harness::inter_shapes())
    for (Routine r : {Routine::reduce_scatter, Routine::reduce_scatter_block})
      for (int count : {0, 1, 3}) {
        ordo::harness::run_case(make(r, "witness.tracer", "contiguous(4,MPI_INT)", count, shape));
        ordo::harness::run_case(make(r, "MPI_SUM", "MPI_DOUBLE", count, shape));
      }
}

TEST(Intercomm, nonblocking_and_persistent_forms_reduce_across_the_groups) {
  ORDO_CLAUSE("collective.nonblocking-persistent", MUST);
  for (Mode m : {Mode::nonblocking, Mode::persistent})
    for (const std::string& shape : ordo::harness::inter_shapes())
      for (Routine r : {Routine::reduce, Routine::allreduce, Routine::reduce_scatter,
                        Routine::reduce_scatter_block}) {
        Case c = make(r, "witness.matrix", "contiguous(4,MPI_UINT32_T)", 2, shape);
        c.mode = m;
        c.null_insignificant =
            false;  // NULL buffers: see the Reduce root checks and their findings
        run_at_every_root(c);
      }
}

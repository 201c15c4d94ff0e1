// MPI_Allreduce with MPI_SUM on MPI_INT: every rank gets the exact sum.
#include <gtest/gtest.h>

#include "comm_zoo.h"
#include "executor.h"

using ordo::harness::run_case;
using ordo::ref::Case;
using ordo::ref::Routine;

TEST(Allreduce, sum_of_int_is_exact_and_identical_on_every_rank) {
  ORDO_CLAUSE("allreduce.values", MUST);
  std::vector<std::string> shapes = ordo::harness::intra_shapes();
  for (const auto& s : ordo::harness::inter_shapes()) shapes.push_back(s);
  for (const std::string& shape : shapes)
    for (int count : {0, 1, 17, 1000}) {
      Case c;
      c.routine = Routine::allreduce;
      c.op = "MPI_SUM";
      c.datatype = "MPI_INT";
      c.count = count;
      c.comm = shape;
      c.seed = ordo::harness::settings().seed;
      run_case(c);
    }
}

// Every valid predefined op x datatype pair of the MPI-4.1 table, in every
// routine, against the reference. Inputs come from the oracle: extremes of
// each type, signed/unsigned edges, wraparound for unsigned arithmetic.
#include <gtest/gtest.h>

#include "catalogue.h"

namespace {

using namespace ordo::catalogue;

// Reduce runs at the last rank as root; every root is the business of the
// order and root checks.
void every_valid_pair(Routine r) {
  for (const auto& [op, type] : valid_pairs())
    for (int count : {1, 7})
      ordo::harness::run_case(at_last_root(make(r, name(op), name(type), count)));
}

}  // namespace

TEST(Reduce, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("reduce.values", MUST);
  every_valid_pair(Routine::reduce);
}

TEST(Allreduce, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("allreduce.values", MUST);
  every_valid_pair(Routine::allreduce);
}

TEST(Reduce_scatter, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("reduce-scatter.values", MUST);
  every_valid_pair(Routine::reduce_scatter);
}

TEST(Reduce_scatter_block, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("reduce-scatter-block.values", MUST);
  every_valid_pair(Routine::reduce_scatter_block);
}

TEST(Scan, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("scan.values", MUST);
  every_valid_pair(Routine::scan);
}

TEST(Exscan, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("exscan.values", MUST);
  every_valid_pair(Routine::exscan);
}

TEST(Reduce_local, every_valid_predefined_op_and_datatype_gives_the_reference_result) {
  ORDO_CLAUSE("reduce-local.values", MUST);
  every_valid_pair(Routine::reduce_local);
}

// Non-commutative user ops (MPI-4.1 6.9.5): every routine applies them in
// ascending rank order, invec being the lower-ranked operand. The witness
// ops make any reordering or operand swap visible; the tracer names the
// first wrong combine.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

namespace {

std::string cells_of(const std::string& op) {
  return op == "witness.matrix" ? "contiguous(4,MPI_UINT32_T)" : "contiguous(4,MPI_INT)";
}

}  // namespace

TEST(Noncommutative, every_routine_applies_the_op_in_ascending_rank_order_at_every_root) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  for (Routine r : collectives())
    for (const char* op : {"witness.tracer", "witness.matrix"})
      for (const std::string& shape : ordo::harness::intra_shapes())
        for (int count : {0, 1, 4}) run_at_every_root(make(r, op, cells_of(op), count, shape));
}

TEST(Noncommutative, reduce_scatter_keeps_the_order_with_uneven_and_zero_recvcounts) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  const int p = ordo::harness::world_size();
  std::vector<std::vector<int>> patterns = {std::vector<int>(p, 0), std::vector<int>(p, 0)};
  patterns[0][static_cast<std::size_t>(p - 1)] = 3;  // everything to the last rank
  for (int i = 0; i < p; ++i) patterns[1][static_cast<std::size_t>(i)] = (i * 7) % 4;
  for (const auto& counts : patterns)
    for (const char* op : {"witness.tracer", "witness.matrix"}) {
      Case c = make(Routine::reduce_scatter, op, cells_of(op), 0, "world");
      c.recvcounts = counts;
      ordo::harness::run_case(c);
    }
}

TEST(Noncommutative, a_commutative_op_declared_noncommutative_is_applied_in_rank_order) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  for (Routine r : collectives_and_local())
    for (const char* shape : {"world", "reversed"})
      for (int count : {1, 6})
        run_at_every_root(
            make(r, "witness.sum-declared-noncommutative", "contiguous(4,MPI_INT)", count, shape));
}

TEST(Noncommutative,
     derived_datatypes_with_holes_padding_negative_bounds_and_interleaving_keep_the_order) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  const char* types[] = {
      "vector(2,2,3,MPI_INT)",                          // a hole between the blocks
      "resized(0,24,contiguous(4,MPI_INT))",            // padding: extent > true extent
      "hindexed([2,2],[-8,8],MPI_INT)",                 // data below the buffer address
      "resized(-16,40,contiguous(4,MPI_INT))",          // a negative lower bound
      "resized(0,8,hindexed([2,2],[0,4096],MPI_INT))",  // interleaved: true extent > extent
      "struct([1,1,1,1],[0,8,16,24],[MPI_INT,MPI_INT,MPI_INT,MPI_INT])",
      "indexed_block(2,[3,0],MPI_INT32_T)",  // blocks out of address order
  };
  for (const char* type : types)
    for (Routine r : collectives_and_local())
      for (const char* op : {"witness.tracer", "witness.matrix"})
        for (int count : {1, 3}) run_at_every_root(make(r, op, type, count, "world"));
}

TEST(Noncommutative, nonblocking_and_persistent_forms_keep_the_rank_order) {
  ORDO_CLAUSE("user-op.noncommutative-order", MUST);
  for (Mode m : {Mode::nonblocking, Mode::persistent})
    for (Routine r : collectives())
      for (const char* op : {"witness.tracer", "witness.matrix"})
        for (const char* shape : {"world", "reversed"}) {
          Case c = make(r, op, cells_of(op), 3, shape);
          c.mode = m;
          run_at_every_root(c);
        }
}

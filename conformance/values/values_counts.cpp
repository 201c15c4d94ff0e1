// Counts: 0, 1, a small odd count, counts just below, at and above each
// message-size threshold of the library under test (read from the library
// through MPI_T where it can, see vendors/<name>/adapter.json), and an
// 8 MiB buffer, in every routine.
#include <gtest/gtest.h>

#include "catalogue.h"
#include "thresholds.h"

namespace {

using namespace ordo::catalogue;
constexpr int kLargeBytes = 8 << 20;

}  // namespace

TEST(Counts, every_routine_is_exact_at_counts_around_the_library_thresholds_and_at_8_MiB) {
  ORDO_CLAUSE("collective.counts", MUST);
  struct Pair {
    ordo::ref::PredefinedOp op;
    ordo::ref::Basic type;
    bool large;
  };
  const Pair pairs[] = {{ordo::ref::PredefinedOp::SUM, ordo::ref::Basic::INT, true},
                        {ordo::ref::PredefinedOp::SUM, ordo::ref::Basic::DOUBLE, true},
                        {ordo::ref::PredefinedOp::SUM, ordo::ref::Basic::UINT8_T, false},
                        {ordo::ref::PredefinedOp::MAX, ordo::ref::Basic::INT64_T, false}};
  for (Routine r : collectives_and_local())
    for (const Pair& p : pairs) {
      const std::size_t size = ordo::ref::info(p.type).size;
      std::vector<int> counts = ordo::harness::boundary_counts(size, {0, 1, 7}, 1 << 20);
      if (p.large) {
        // 8 MiB of send buffer: the Reduce_scatter forms send one block per
        // process, so their block is 8 MiB / p.
        const bool blocks = r == Routine::reduce_scatter || r == Routine::reduce_scatter_block;
        counts.push_back(kLargeBytes / static_cast<int>(size) /
                         (blocks ? ordo::harness::world_size() : 1));
      }
      for (int count : counts)
        ordo::harness::run_case(at_last_root(make(r, name(p.op), name(p.type), count)));
    }
}

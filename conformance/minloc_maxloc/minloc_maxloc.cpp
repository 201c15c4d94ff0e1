// MPI_MINLOC and MPI_MAXLOC on every pair type available from C: the
// smaller (larger) value wins and equal values resolve to the smaller
// index. The oracle's inputs draw values from a small set so that ties are
// common, with indices that do not grow with the rank.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

TEST(Minloc_maxloc, ties_resolve_to_the_smaller_index_for_every_pair_type_in_every_routine) {
  ORDO_CLAUSE("op.minloc-maxloc-pair-types", MUST);
  for (const auto& [op, type] : valid_pairs()) {
    if (ordo::ref::info(type).group != ordo::ref::TypeGroup::pair) continue;
    for (Routine r : collectives_and_local())
      for (const char* shape : {"world", "reversed", "odd-even"})
        for (int count : {1, 9})
          ordo::harness::run_case(at_last_root(make(r, name(op), name(type), count, shape)));
  }
}

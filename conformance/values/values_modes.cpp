// The nonblocking and persistent forms, and the large-count bindings, give
// the results of the blocking form: one op x type pair per type group.
#include <gtest/gtest.h>

#include "catalogue.h"

namespace {

using namespace ordo::catalogue;
using ordo::ref::Basic;
using ordo::ref::PredefinedOp;

const std::vector<std::pair<PredefinedOp, Basic>>& one_per_group() {
  static const std::vector<std::pair<PredefinedOp, Basic>> v = {
      {PredefinedOp::SUM, Basic::INT},
      {PredefinedOp::PROD, Basic::DOUBLE},
      {PredefinedOp::LXOR, Basic::C_BOOL},
      {PredefinedOp::BOR, Basic::UINT16_T},
      {PredefinedOp::SUM, Basic::C_DOUBLE_COMPLEX},
      {PredefinedOp::MAXLOC, Basic::DOUBLE_INT},
      {PredefinedOp::MIN, Basic::INTEGER},
      {PredefinedOp::BXOR, Basic::AINT},
      {PredefinedOp::BAND, Basic::BYTE},
      {PredefinedOp::MAX, Basic::SIGNED_CHAR}};
  return v;
}

}  // namespace

TEST(Nonblocking_and_persistent, every_routine_gives_the_result_of_its_blocking_form) {
  ORDO_CLAUSE("collective.nonblocking-persistent", MUST);
  for (Mode m : {Mode::nonblocking, Mode::persistent})
    for (Routine r : collectives())
      for (const auto& [op, type] : one_per_group())
        for (int count : {0, 1, 7}) {
          Case c = at_last_root(make(r, name(op), name(type), count));
          c.mode = m;
          ordo::harness::run_case(c);
        }
}

TEST(Large_count, the_c_bindings_give_the_results_of_the_int_bindings) {
  ORDO_CLAUSE("collective.large-count", MUST);
  for (Mode m : {Mode::blocking, Mode::nonblocking})
    for (Routine r : collectives_and_local())
      for (const auto& [op, type] : one_per_group())
        for (int count : {0, 7}) {
          if (m == Mode::nonblocking && r == Routine::reduce_local) continue;
          Case c = at_last_root(make(r, name(op), name(type), count));
          c.mode = m;
          c.large_count = true;
          ordo::harness::run_case(c);
        }
}

TEST(Fortran, fortran_datatypes_used_from_c_reduce_by_the_rules_of_their_groups) {
  ORDO_CLAUSE("datatypes.fortran-from-c", MUST);
  for (const auto& [op, type] : valid_pairs()) {
    if (!ordo::ref::info(type).fortran) continue;
    for (Routine r : {Routine::allreduce, Routine::reduce, Routine::scan})
      ordo::harness::run_case(at_last_root(make(r, name(op), name(type), 5, "reversed")));
  }
}

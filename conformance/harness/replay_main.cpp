// The replay executable: runs the one case given with --ordo-case=JSON (as
// printed in a failure message or a journal record) under the clause given
// with --ordo-clause, and reports it like any check.
#include <gtest/gtest.h>

#include "executor.h"
#include "ordo/reference/case.h"

TEST(Replay, the_given_case_matches_the_reference) {
  const auto& s = ordo::harness::settings();
  ASSERT_FALSE(s.replay_case.empty()) << "pass the case with --ordo-case='<json>'";
  ordo::harness::declare_check(s.replay_clause.empty() ? "replay" : s.replay_clause.c_str(),
                               ordo::harness::Level::MUST);
  const ordo::ref::Case c = ordo::ref::Case::from_json(s.replay_case);
  const auto outcome = ordo::harness::run_case(c);
  if (ordo::harness::world_rank() == 0)
    std::printf("ordo replay: %s -> %s\n", c.describe().c_str(),
                ordo::harness::outcome_name(outcome));
}

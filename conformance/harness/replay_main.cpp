// The replay executable: runs the one case given with --ordo-case=JSON (as
// printed in a failure message or a journal record) under the clause given
// with --ordo-clause, and reports it like any check.
#include <gtest/gtest.h>

#include "executor.h"
#include "ordo/reference/case.h"

TEST(Replay, the_given_case_matches_the_reference) {
  const auto& s = ordo::harness::settings();
  ASSERT_FALSE(s.replay_case.empty()) << "pass the case with --ordo-case='<json>'";
  // The level of the record replayed (`ordo replay --level`, or the
  // record's own): an erroneous call (DETECT) is judged as one, reported or
  // accepted, not as a valid call that "is not valid".
  using ordo::harness::Level;
  Level level = Level::MUST;
  for (Level l : {Level::MUST, Level::SHOULD, Level::DETECT, Level::INFO})
    if (s.replay_level == ordo::harness::level_name(l)) level = l;
  ASSERT_TRUE(s.replay_level.empty() || s.replay_level == ordo::harness::level_name(level))
      << "--ordo-level takes MUST, SHOULD, DETECT or INFO, not '" << s.replay_level << "'";
  ordo::harness::declare_check(s.replay_clause.empty() ? "replay" : s.replay_clause.c_str(), level);
  const ordo::ref::Case c = ordo::ref::Case::from_json(s.replay_case);
  const auto outcome = ordo::harness::run_case(c);
  if (ordo::harness::world_rank() == 0)
    std::printf("ordo replay: %s -> %s\n", c.describe().c_str(),
                ordo::harness::outcome_name(outcome));
}

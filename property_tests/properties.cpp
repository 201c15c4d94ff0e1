// Property: every generated reduce-family case gives, on the library under
// test, the reference's result (ordo::harness::run_case judges the call and
// combines the verdict across ranks, so every rank asserts the same thing
// and shrinks along the same path).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <optional>
#include <sstream>

#include "executor.h"
#include "generators/case.h"
#include "harness.h"
#include "lockstep.h"
#include "reproducer.h"

namespace {

using ordo::harness::Outcome;

std::optional<ordo::ref::Case> g_last_failing;  // the last failing case: after shrinking, the minimal one
std::string g_last_message;

// Runs the case; the harness's gtest failures (one per shrink step) are
// captured here, and the property fails through RC_ASSERT instead.
Outcome run_quietly(const ordo::ref::Case& c) {
  ::testing::TestPartResultArray captured;
  Outcome o;
  {
    ::testing::ScopedFakeTestPartResultReporter quiet(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &captured);
    o = ordo::harness::run_case(c);
  }
  if (captured.size() > 0) g_last_message = captured.GetTestPartResult(captured.size() - 1).message();
  return o;
}

// The clause of the values a routine delivers (spec/clauses.json).
const char* clause_of(const ordo::ref::Case& c) {
  using R = ordo::ref::Routine;
  switch (c.routine) {
    case R::reduce: return "reduce.values";
    case R::allreduce: return "allreduce.values";
    case R::reduce_scatter: return "reduce-scatter.values";
    case R::reduce_scatter_block: return "reduce-scatter-block.values";
    case R::scan: return "scan.values";
    case R::exscan: return "exscan.values";
    default: return "reduce-local.values";
  }
}

void property(const ordo::ref::Case& c) {
  RC_TAG(ordo::props::routine_label(c));
  ordo::harness::declare_check(clause_of(c), ordo::harness::Level::MUST);
  RC_CLASSIFY(c.op.rfind("witness.", 0) == 0, "witness op");
  const Outcome o = run_quietly(c);
  if (o == Outcome::fail || o == Outcome::crash || o == Outcome::timeout) g_last_failing = c;
  RC_ASSERT(o != Outcome::fail);
}

}  // namespace

TEST(Properties, reduce_family_agrees_with_the_reference) {
  rc::detail::TestMetadata meta;
  meta.id = "Properties/reduce_family_agrees_with_the_reference";
  meta.description = "reduce_family_agrees_with_the_reference";
  const auto result = rc::detail::checkTestable(
      [](void) { property(*ordo::props::gen_case()); }, meta);
  const bool root = ordo::harness::world_rank() == 0;
  if (result.template is<rc::detail::SuccessResult>()) {
    if (root) {
      rc::detail::printResultMessage(result, std::cout);
      std::cout << std::endl;
    }
    return;
  }
  std::ostringstream msg;
  rc::detail::printResultMessage(result, msg);
  if (!g_last_failing) {
    FAIL() << msg.str();
    return;
  }
  const ordo::ref::Case& c = *g_last_failing;
  // Every rank prints the shrunk case it ended on: the lockstep shows in the output.
  std::printf("ordo properties: world rank %d: shrunk case: %s\n", ordo::harness::world_rank(), c.to_json().c_str());
  std::fflush(stdout);
  std::string path, why;
  if (root) path = ordo::props::write_reproducer(c, ordo::harness::world_size(), ordo::props::g_reproducer_dir, &why);
  // Once more, so that the journal's last record of this property is the
  // shrunk case and points at its reproducer.
  ordo::harness::set_next_reproducer(path);
  run_quietly(c);
  ordo::harness::set_next_reproducer("");
  FAIL() << msg.str() << "\nshrunk case: " << c.describe() << "\n  json: " << c.to_json()
         << "\n  " << g_last_message << "\n  replay: " << ordo::harness::replay_command(c)
         << "\n  reproducer: " << (path.empty() ? "none (" + why + ")" : path + "  (mpicc " + path +
                                       " -o repro && mpiexec -n " + std::to_string(ordo::harness::world_size()) + " ./repro)");
}

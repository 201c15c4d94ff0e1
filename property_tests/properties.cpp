// Property: every generated reduce-family case gives, on the library under
// test, the reference's result (ordo::harness::run_case judges the call and
// combines the verdict across ranks, so every rank asserts the same thing
// and shrinks along the same path). Erroneous cases (MPI_CHAR / MPI_WCHAR)
// are run at level DETECT: reported or accepted, never a failure.
//
// A run ends with one summary record in the journal (clause
// property.reduce-family, level INFO: the verdicts are the cases' own
// records): RC_PARAMS and the seed, the number of cases, their distribution
// (RapidCheck's RC_TAG / RC_CLASSIFY combinations and ordo's own counts per
// label), and on failure the shrunk case, its replay command and reproducer.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "comm_zoo.h"
#include "executor.h"
#include "generators/case.h"
#include "harness.h"
#include "lockstep.h"
#include "record.h"
#include "reproducer.h"

namespace {

using ordo::harness::Level;
using ordo::harness::Outcome;

std::optional<ordo::ref::Case>
    g_last_failing;  // the last failing case: after shrinking, the minimal one
std::string g_last_message;
bool g_shrinking = false;  // a case failed: the calls that follow are shrink steps
std::map<std::string, std::map<std::string, long long>> g_labels;  // dimension -> label -> cases

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
  if (captured.size() > 0)
    g_last_message = captured.GetTestPartResult(captured.size() - 1).message();
  return o;
}

// The clause (spec/clauses.json) and level a generated case is judged under.
std::pair<const char*, Level> clause_of(const ordo::ref::Case& c) {
  using R = ordo::ref::Routine;
  using K = ordo::props::Kind;
  switch (ordo::props::kind_of(c)) {
    case K::char_detect:
      return {"op.char-types-excluded", Level::DETECT};
    case K::char_integer:
      return {"op.char-types-integer", Level::MUST};
    case K::pair:
      return {"op.minloc-maxloc-pair-types", Level::MUST};
    default:
      break;
  }
  const bool inter = c.comm.rfind("inter", 0) == 0;
  switch (c.routine) {
    case R::reduce:
      return {inter ? "reduce.intercomm-root" : "reduce.values", Level::MUST};
    case R::allreduce:
      return {"allreduce.values", Level::MUST};
    case R::reduce_scatter:
      return {"reduce-scatter.values", Level::MUST};
    case R::reduce_scatter_block:
      return {"reduce-scatter-block.values", Level::MUST};
    case R::scan:
      return {"scan.values", Level::MUST};
    case R::exscan:
      return {"exscan.values", Level::MUST};
    default:
      return {"reduce-local.values", Level::MUST};
  }
}

std::string count_label(int n) {
  if (n <= 2) return std::to_string(n);
  return n <= 8 ? "3-8" : (n <= 1024 ? "9-1024" : "over 1024");
}

void property(const ordo::ref::Case& c) {
  const auto [clause, level] = clause_of(c);
  RC_TAG(ordo::props::routine_label(c));
  RC_CLASSIFY(ordo::props::kind_of(c) != ordo::props::Kind::predefined, ordo::props::op_label(c));
  RC_CLASSIFY(c.binding != "c", ordo::props::binding_label(c));
  const std::vector<std::string> layouts = ordo::props::datatype_labels(c);
  for (const std::string& l : layouts) RC_CLASSIFY(true, l);
  RC_CLASSIFY(c.comm.rfind("split:", 0) == 0 || c.comm.rfind("inter:", 0) == 0,
              ordo::props::shape_label(c));
  RC_CLASSIFY(c.routine == ordo::ref::Routine::reduce && c.comm.rfind("inter", 0) == 0,
              c.root_in_high_group ? "root in the high group" : "root in the low group");
  if (!g_shrinking) {
    ++ordo::props::g_stats.cases;
    g_labels["routine"][ordo::props::routine_label(c)]++;
    g_labels["op"][ordo::props::op_label(c)]++;
    g_labels["shape"][ordo::props::shape_label(c)]++;
    g_labels["binding"][c.binding]++;
    g_labels["level"][ordo::harness::level_name(level)]++;
    g_labels["count"][count_label(c.count)]++;
    if (ordo::props::kind_of(c) == ordo::props::Kind::witness)
      g_labels["datatype"][layouts.empty() ? "elements apart, within the chunk" : layouts[0]]++;
    for (std::size_t i = 1; i < layouts.size(); ++i) g_labels["datatype"][layouts[i]]++;
    g_labels["concurrency"][c.concurrency.empty() ? "single" : c.concurrency]++;
    if (ordo::props::g_stats.generated) ordo::props::g_stats.generated->push_back(c);
  } else {
    ++ordo::props::g_stats.shrinks;
  }
  ordo::harness::declare_check(clause, level);
  const double t0 = MPI_Wtime();
  const Outcome o = run_quietly(c);
  if (!g_shrinking && ordo::props::g_stats.timings)
    ordo::props::g_stats.timings->push_back(
        {MPI_Wtime() - t0, o == Outcome::pass && level == Level::MUST});
  if (o != Outcome::pass && o != Outcome::skip) ordo::harness::retire_drawn_shape();
  if (o == Outcome::fail || o == Outcome::crash || o == Outcome::timeout) {
    g_last_failing = c;
    g_shrinking = true;
  }
  RC_ASSERT(o != Outcome::fail);
}

// The seed RapidCheck ran with (RC_PARAMS' seed=), or empty.
std::string rc_seed() {
  const std::string& p = ordo::props::g_rc_params;
  const auto at = p.find("seed=");
  return at == std::string::npos ? std::string()
                                 : p.substr(at + 5, p.find_first_of(" \t", at) - at - 5);
}

// The summary record of this run (rank 0), appended to the journal.
void write_summary(const rc::detail::TestResult& result, const std::string& test,
                   const std::string& message, const std::string& reproducer) {
  using ordo::harness::Json;
  const auto& s = ordo::harness::settings();
  if (ordo::harness::world_rank() != 0 || s.journal.empty()) return;
  const auto& st = ordo::props::g_stats;
  Json distribution = Json::array();
  if (result.template is<rc::detail::SuccessResult>())
    for (const auto& [tags, n] : result.template get<rc::detail::SuccessResult>().distribution)
      distribution.push_back(Json{{"tags", tags}, {"cases", n}});
  Json labels = Json::object();
  for (const auto& [dim, m] : g_labels) {
    Json counts = Json::object();
    for (const auto& [label, n] : m) counts[label] = n;
    labels[dim] = std::move(counts);
  }
  ordo::harness::Record r;
  r.property = {{"rc_params", ordo::props::g_rc_params},
                {"seed", rc_seed().empty() ? Json(nullptr) : Json(rc_seed())},
                {"cases", st.cases},
                {"shrink_steps", st.shrinks},
                {"passed", st.passed},
                {"seconds", st.seconds},
                {"distribution", std::move(distribution)},
                {"labels", std::move(labels)}};
  r.id = test + "#summary";
  r.test = test;
  r.clause = "property.reduce-family";
  r.level = "INFO";
  r.case_json = g_last_failing ? Json::parse(g_last_failing->to_json()) : Json(nullptr);
  r.ranks = r.comm_size = ordo::harness::world_size();
  r.vendor = s.vendor;
  r.variant = s.variant;
  ordo::harness::set_placement(r);
  r.outcome = "pass";
  r.message = message;
  r.duration_s = st.seconds;
  if (!reproducer.empty()) r.reproducer = reproducer;
  if (g_last_failing) r.replay = ordo::harness::replay_command(*g_last_failing);
  r.time = ordo::harness::now_iso();
  std::ofstream f(s.journal, std::ios::app);
  f << ordo::harness::to_line(r) << '\n';
  f.flush();
  if (!f) std::fprintf(stderr, "ordo: cannot write the journal %s\n", s.journal.c_str());
}

}  // namespace

TEST(Properties, reduce_family_agrees_with_the_reference) {
  const std::string test = "Properties.reduce_family_agrees_with_the_reference";
  rc::detail::TestMetadata meta;
  meta.id = "Properties/reduce_family_agrees_with_the_reference";
  meta.description = "reduce_family_agrees_with_the_reference";
  auto& st = ordo::props::g_stats;
  st = ordo::props::PropertyStats{0, 0, 0, true, st.generated, st.timings};
  g_labels.clear();
  g_shrinking = false;
  g_last_failing.reset();
  const double t0 = MPI_Wtime();
  const auto result = rc::detail::checkTestable(
      [](void) {
        std::optional<ordo::harness::PhaseTimer> generating(std::in_place,
                                                            ordo::harness::Phase::generation);
        const ordo::ref::Case c = *ordo::props::gen_case();
        generating.reset();
        property(c);
      },
      meta);
  st.seconds = MPI_Wtime() - t0;
  const bool root = ordo::harness::world_rank() == 0;
  std::ostringstream msg;
  rc::detail::printResultMessage(result, msg);
  if (result.template is<rc::detail::SuccessResult>()) {
    if (root) std::cout << msg.str() << std::endl;
    write_summary(result, test,
                  "property passed: " + std::to_string(st.cases) +
                      " generated cases agreed with the reference (" + ordo::props::g_rc_params +
                      ")",
                  "");
    return;
  }
  st.passed = false;
  if (!g_last_failing) {
    write_summary(result, test, "property did not pass: " + msg.str(), "");
    FAIL() << msg.str();
    return;
  }
  const ordo::ref::Case& c = *g_last_failing;
  // Every rank prints the shrunk case it ended on: the lockstep shows in the output.
  std::printf("ordo properties: world rank %d: shrunk case: %s\n", ordo::harness::world_rank(),
              c.to_json().c_str());
  std::fflush(stdout);
  std::string path, why;
  if (root) {
    try {  // only rank 0 writes it: it must not throw past the lockstep
      path = ordo::props::write_reproducer(c, ordo::harness::world_size(),
                                           ordo::props::g_reproducer_dir, &why);
    } catch (const std::exception& e) {
      path.clear();
      why = e.what();
    }
  }
  // Once more, so that the journal's last case record of this property is
  // the shrunk case and points at its reproducer.
  ordo::harness::declare_check(clause_of(c).first, clause_of(c).second);
  ordo::harness::set_next_reproducer(path);
  run_quietly(c);
  ordo::harness::set_next_reproducer("");
  write_summary(result, test,
                "property failed after " + std::to_string(st.cases) + " generated cases (" +
                    ordo::props::g_rc_params + "); shrunk in " + std::to_string(st.shrinks) +
                    " steps to: " + c.describe() + "; " + g_last_message +
                    (path.empty() ? "; no reproducer (" + why + ")" : ""),
                path);
  FAIL() << msg.str() << "\nshrunk case: " << c.describe() << "\n  json: " << c.to_json() << "\n  "
         << g_last_message << "\n  replay: " << ordo::harness::replay_command(c)
         << "\n  reproducer: "
         << (path.empty() ? "none (" + why + ")"
                          : path + "  (" +
                                (path.size() > 4 && path.compare(path.size() - 4, 4, ".f90") == 0
                                     ? "mpifort "
                                     : "mpicc ") +
                                path + " -o repro && mpiexec -n " +
                                std::to_string(ordo::harness::world_size()) + " ./repro)");
}

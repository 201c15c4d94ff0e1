#include "check_main.h"

#include <fnmatch.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "comm_zoo.h"
#include "expect_cache.h"
#include "harness.h"
#include "job_protocol.h"
#include "mpi_types.h"
#include "ordo/reference/json.h"
#include "shared_folds.h"
#include "thresholds.h"

namespace ordo::harness {

namespace {
using Clock = std::chrono::steady_clock;
const Clock::time_point g_process_start = Clock::now();  // static initialisation: before main
Clock::time_point g_mpi_initialized = g_process_start, g_checks_started = g_process_start;
// The start-up's end (a standby launch then waits for its go).
Clock::time_point g_ready = g_process_start;
double between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

void mpi_initialized() { g_mpi_initialized = Clock::now(); }

namespace {
double phases_sum() {
  double s = 0;
  for (int k = 0; k < kPhases; ++k) s += phase_seconds(static_cast<Phase>(k));
  return s;
}

// Each test's seconds outside its cases' phases (its own set-up, the cases
// it generates that the job does not select, GoogleTest), for the phases line.
class OutsideCases : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo&) override {
    t0_ = Clock::now();
    p0_ = phases_sum();
  }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    const double outside = between(t0_, Clock::now()) - (phases_sum() - p0_);
    by_test_[std::string(t.test_suite_name()) + "." + t.name()] += outside;
  }
  // The tests with the most such seconds, as JSON members "<test>":<seconds>.
  std::string top(std::size_t n) const {
    std::vector<std::pair<double, std::string>> v;
    for (const auto& [name, s] : by_test_) v.emplace_back(s, name);
    std::sort(v.rbegin(), v.rend());
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < n && v[i].first >= 0.0005; ++i) {
      char b[32];
      std::snprintf(b, sizeof b, "%.4f", v[i].first);
      out += (out.empty() ? "\"" : ",\"") + v[i].second + "\":" + b;
    }
    return out;
  }

 private:
  Clock::time_point t0_;
  double p0_ = 0;
  std::map<std::string, double> by_test_;
};
OutsideCases* g_outside = nullptr;
}  // namespace

void start_checks() {
  if (world_rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    ::testing::GTEST_FLAG(output) = "";
  }
  const auto mismatches = verify_basic_types();
  if (!mismatches.empty()) {
    if (world_rank() == 0)
      for (const auto& m : mismatches)
        std::fprintf(stderr,
                     "ordo: the reference's datatype model does not match this library: %s\n",
                     m.c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  // The library's thresholds are read now (MPI_T: about 0.2 s in Open MPI),
  // not inside the first case that asks for them.
  thresholds();
  build_zoo();
  g_ready = Clock::now();
  if (!await_go()) {  // a standby launch the runner no longer needs
    free_zoo();
    finalize();
    MPI_Finalize();
    std::exit(0);
  }
  if (world_rank() == 0) {
    g_outside = new OutsideCases;  // owned by GoogleTest's listeners
    ::testing::UnitTest::GetInstance()->listeners().Append(g_outside);
  }
  g_checks_started = Clock::now();
}

namespace {
// GoogleTest's filter syntax: POSITIVE[-NEGATIVE], each ':'-separated globs
// of '*' and '?' over "Suite.Test" (fnmatch, as the waiver matcher's globs);
// an empty positive part is "*".
bool any_glob(const std::string& patterns, const std::string& name) {
  std::size_t at = 0;
  while (true) {
    const std::size_t end = patterns.find(':', at);
    if (fnmatch(patterns.substr(at, end - at).c_str(), name.c_str(), 0) == 0) return true;
    if (end == std::string::npos) return false;
    at = end + 1;
  }
}
bool filter_selects(const std::string& filter, const std::string& name) {
  const std::size_t dash = filter.find('-');
  std::string positive = filter.substr(0, dash);
  if (positive.empty()) positive = "*";
  if (!any_glob(positive, name)) return false;
  return dash == std::string::npos || !any_glob(filter.substr(dash + 1), name);
}
// The family of a test: the folder of conformance/ its source is in.
std::string family_of(const char* file) {
  const std::string f = file ? file : "";
  const std::size_t slash = f.rfind('/');
  if (slash == std::string::npos || slash == 0) return "";
  const std::size_t before = f.rfind('/', slash - 1);
  return f.substr(before == std::string::npos ? 0 : before + 1,
                  slash - (before == std::string::npos ? 0 : before + 1));
}
}  // namespace

void select_families() {
  const auto& wanted = settings().families;
  if (wanted.empty()) return;
  const std::string filter = ::testing::GTEST_FLAG(filter);
  std::string names;
  // Each family's tests, for the runner to tell the families' records apart
  // (what each family ran at this rank count: run.py's `seen`).
  std::map<std::string, std::vector<std::string>> tests_of;
  const ::testing::UnitTest& all = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < all.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *all.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const ::testing::TestInfo& t = *suite.GetTestInfo(j);
      const std::string name = std::string(t.test_suite_name()) + "." + t.name();
      const std::string family = family_of(t.file());
      if (std::find(wanted.begin(), wanted.end(), family) == wanted.end()) continue;
      if (!filter_selects(filter, name)) continue;
      names += (names.empty() ? "" : ":") + name;
      tests_of[family].push_back(name);
    }
  }
  if (world_rank() == 0) {
    std::string line;
    for (const auto& [family, tests] : tests_of) {
      line += (line.empty() ? "" : ",") + std::string("\"") + json::escape(family) + "\":[";
      for (std::size_t k = 0; k < tests.size(); ++k)
        line += (k ? ",\"" : "\"") + json::escape(tests[k]) + "\"";
      line += "]";
    }
    std::printf("ordo family-tests: {%s}\n", line.c_str());
    std::fflush(stdout);
  }
  // No test of these families: a filter that matches nothing ("-*" would be
  // every test but none).
  ::testing::GTEST_FLAG(filter) =
      names.empty() ? std::string("ordo.no-test-of-these-families") : names;
}

int finish_checks(int rc) {
  const Clock::time_point tests_end = Clock::now();
  // Tells the runner that the executable ran to its end (an MPI_Abort inside
  // the library can also end a job with exit code 1), and that every rank
  // will say when its MPI_Finalize returned: a launcher may exit 0 although a
  // rank aborted in it (job_protocol.h).
  const std::string journal = settings().journal;
  const int rank = world_rank();
  if (rank == 0 && !journal.empty()) mark_done(journal, rc, world_size());
  free_zoo();
  finalize();
  MPI_Finalize();
  if (!journal.empty()) mark_finalized(journal, rank);
  if (world_rank() == 0 && !settings().journal.empty()) {
    const Clock::time_point end = Clock::now();
    std::string cases;
    for (int k = 0; k < kPhases; ++k) {
      char b[96];
      std::snprintf(b, sizeof b, "%s\"%s\":%.4f", k ? "," : "", phase_name(static_cast<Phase>(k)),
                    phase_seconds(static_cast<Phase>(k)));
      cases += b;
    }
    // Rank 0's use of the expected-result cache (expect_cache.h).
    const expect_cache::Counts ec = expect_cache::counts();
    // And of the node's store of the reference's folds (shared_folds.h).
    const shared_folds::Counts sf = shared_folds::counts();
    std::printf(
        "ordo phases: {\"wall_s\":%.4f,\"mpi_init_s\":%.4f,\"startup_s\":%.4f,\"standby_s\":%.4f,"
        "\"tests_s\":%.4f,\"finalize_s\":%.4f,\"cases\":{%s},\"outside_cases_by_test\":{%s},"
        "\"expect_cache\":{\"hits\":%lld,\"mismatches\":%lld,\"kept\":%lld},"
        "\"shared_folds\":{\"on\":%s,\"cases\":%lld,\"ranges_made\":%lld,\"ranges_read\":%lld,"
        "\"ranges_alone\":%lld,\"not_held\":%lld}}\n",
        between(g_process_start, end), between(g_process_start, g_mpi_initialized),
        between(g_mpi_initialized, g_ready), between(g_ready, g_checks_started),
        between(g_checks_started, tests_end), between(tests_end, end), cases.c_str(),
        g_outside ? g_outside->top(8).c_str() : "", ec.hits, ec.mismatches, ec.kept,
        shared_folds::enabled() ? "true" : "false", sf.cases, sf.ranges_made, sf.ranges_read,
        sf.ranges_alone, sf.not_held);
    std::fflush(stdout);
  }
  return rc;
}

}  // namespace ordo::harness

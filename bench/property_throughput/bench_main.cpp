// Property throughput: runs the reduce-family property (property_tests/) as
// `ordo run` does (journal, adapter, waivers), keeps every generated case,
// then, in the same process, makes each case's call again alone
// (ordo::harness::time_bare_call: the same buffers, datatype and op, no
// oracle, no verdict exchange, no journal) and times it. Rank 0 prints one
// JSON line:
//   {"bench":"property_throughput","ranks":P,"cases":N,"property_seconds":S,
//    "timed_cases":T,"timed_wall_seconds":W,"bare_seconds":B,"repetitions":R,
//    "passed":true,...,"rank0_phase_seconds":{...}}
// where B sums, over the cases that passed at level MUST (T of them, whose
// harness wall time is W), the slowest rank's median time in the call, and
// rank0_phase_seconds splits rank 0's time in the cases by phase
// (ordo::harness::Phase).
//
// Flags: the property flags (property_tests/lockstep.h), plus
//   --ordo-bench-repetitions=R   bare calls per case (default 3, the median counts)
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "check_main.h"
#include "executor.h"
#include "generators/case.h"
#include "harness.h"
#include "lockstep.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int repetitions = 3;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--ordo-bench-repetitions=", 25) == 0) {
      repetitions = std::max(1, std::atoi(argv[i] + 25));
      continue;
    }
    rest.push_back(argv[i]);
  }
  ordo::props::start_lockstep(static_cast<int>(rest.size()), rest.data());
  std::vector<ordo::ref::Case> cases;
  std::vector<std::pair<double, bool>> timings;
  ordo::props::g_stats.generated = &cases;
  ordo::props::g_stats.timings = &timings;
  const int rc = RUN_ALL_TESTS();
  const auto stats = ordo::props::g_stats;
  double phases[ordo::harness::kPhases];
  for (int k = 0; k < ordo::harness::kPhases; ++k)
    phases[k] = ordo::harness::phase_seconds(static_cast<ordo::harness::Phase>(k));

  // The bare calls of the cases that passed at level MUST: this rank's
  // median per case, then the slowest rank's. Their harness time is their
  // own wall time in the property plus an equal share of the time spent
  // outside the cases (generation, RapidCheck, GoogleTest).
  double in_cases = 0, timed_wall = 0;
  long long timed = 0;
  for (const auto& [seconds, ok] : timings) in_cases += seconds;
  const double outside_share =
      timings.empty() ? 0 : (stats.seconds - in_cases) / static_cast<double>(timings.size());
  std::vector<double> mine;
  const double t0 = MPI_Wtime();
  for (std::size_t i = 0; i < cases.size() && i < timings.size(); ++i) {
    if (!timings[i].second) continue;
    const auto& c = cases[i];
    ++timed;
    timed_wall += timings[i].first + outside_share;
    ordo::harness::declare_check("property.reduce-family", ordo::harness::Level::MUST);
    std::vector<double> t;
    for (int k = 0; k < repetitions; ++k) t.push_back(ordo::harness::time_bare_call(c));
    std::sort(t.begin(), t.end());
    mine.push_back(t[t.size() / 2]);
  }
  const double replay_seconds = MPI_Wtime() - t0;
  std::ostringstream bytes;
  bytes.precision(17);
  for (double x : mine) bytes << x << ' ';
  const auto all = ordo::harness::gather_to_rank0(bytes.str());
  if (ordo::harness::world_rank() == 0) {
    std::vector<double> slowest(mine.size(), 0.0);
    for (const auto& s : all) {
      std::istringstream in(s);
      double x = 0;
      for (std::size_t i = 0; i < slowest.size() && in >> x; ++i)
        slowest[i] = std::max(slowest[i], x);
    }
    double bare = 0;
    for (double x : slowest) bare += x;
    std::ostringstream ph;
    ph.precision(9);
    for (int k = 0; k < ordo::harness::kPhases; ++k)
      ph << (k ? "," : "") << "\""
         << ordo::harness::phase_name(static_cast<ordo::harness::Phase>(k)) << "\":" << std::fixed
         << phases[k];
    std::printf(
        "{\"bench\":\"property_throughput\",\"ranks\":%d,\"cases\":%lld,\"shrink_steps\":%lld,"
        "\"property_seconds\":%.6f,\"timed_cases\":%lld,\"timed_wall_seconds\":%.6f,"
        "\"bare_seconds\":%.6f,\"repetitions\":%d,\"replay_seconds\":%.3f,"
        "\"passed\":%s,\"rc_params\":\"%s\",\"rank0_phase_seconds\":{%s}}\n",
        ordo::harness::world_size(), stats.cases, stats.shrinks, stats.seconds, timed, timed_wall,
        bare, repetitions, replay_seconds, stats.passed ? "true" : "false",
        ordo::props::g_rc_params.c_str(), ph.str().c_str());
    std::fflush(stdout);
  }
  return ordo::harness::finish_checks(rc);
}

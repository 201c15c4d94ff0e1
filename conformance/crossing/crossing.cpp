// The dimensions of the case space crossed: a covering array
// (ordo::ref::crossing) of routine x form x op kind x datatype class x count
// x root x in-place x communicator shape, so that every valid pair of values
// (ORDO_CROSSING_DEPTH=3: every valid triple) runs in at least one case at
// this number of processes. Each case is judged in full, as every case is:
// values and order against the reference, send buffer unchanged, holes
// untouched, MPI_SUCCESS. Rank 0 prints the coverage figure to the job log.
// Under a selection (--ordo-select: an algorithm variant's routines, modes
// and communicator kind) the array is built over that part of the space
// alone: every valid pair of its calls in a case of the variant.
#include "ordo/reference/crossing.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "catalogue.h"
#include "executor.h"
#include "harness.h"
#include "record.h"

using namespace ordo::catalogue;
namespace x = ordo::ref::crossing;
using ordo::harness::Json;

namespace {

int depth() {
  const char* d = std::getenv("ORDO_CROSSING_DEPTH");
  const int n = d ? std::atoi(d) : 2;
  return n >= 1 && n <= 3 ? n : 2;
}

// The topology of a shape, the same on every process: odd-even is two
// communicators of different sizes when the world size is odd, taken as the
// smaller one (its roots exist in both).
std::optional<ordo::ref::Topology> shape_topology(const std::string& shape) {
  const auto& z = ordo::harness::zoo(shape);
  // A shape the library cannot build (no sessions) still stands for valid
  // calls: they are listed as unavailable with the reason (missing_feature).
  if (!z.available && !z.lacks.empty())
    return ordo::ref::Topology{false, ordo::harness::world_size(), 0};
  if (!z.available) return std::nullopt;
  if (shape == "odd-even") return ordo::ref::Topology{false, ordo::harness::world_size() / 2, 0};
  return z.topology;
}

// The runner's survey (--ordo-survey) asks which routines, modes and
// communicator kinds this check has cases of, to launch it for the variants
// that select them; a variant runs its own array over those. The whole
// space's array may hold no row of a kind that has valid calls (at 2
// processes, no blocking Allreduce on an intercommunicator): one row of
// each such kind is added for the survey (which runs no case).
void survey_every_kind(std::vector<int>* flat, std::uint64_t seed) {
  const auto& dims = x::dimensions();
  const std::size_t width = dims.size();
  auto kind_of = [&](const int* row) {
    std::string form = dims[1].values[static_cast<std::size_t>(row[1])];
    if (form.size() > 2 && form.compare(form.size() - 2, 2, "_c") == 0)
      form.resize(form.size() - 2);
    return dims[0].values[static_cast<std::size_t>(row[0])] + ":" + form + ":" +
           (dims[7].values[static_cast<std::size_t>(row[7])].rfind("inter", 0) == 0 ? "inter"
                                                                                    : "intra");
  };
  std::set<std::string> held;
  for (std::size_t i = 0; i + width <= flat->size(); i += width) held.insert(kind_of(&(*flat)[i]));
  for (const std::string& routine : dims[0].values)
    for (const char* mode : {"blocking", "nonblocking", "persistent"})
      for (const char* kind : {"intra", "inter"}) {
        if (held.count(routine + ":" + mode + ":" + kind)) continue;
        const x::Coverage one =
            x::covering_array(1, shape_topology, seed, false, &ordo::harness::missing_feature,
                              {{routine, {mode}, kind}});
        if (!one.rows.empty())
          flat->insert(flat->end(), one.rows.front().begin(), one.rows.front().end());
      }
}

}  // namespace

TEST(Crossing, every_valid_pair_of_values_of_the_case_dimensions_is_checked) {
  ORDO_CLAUSE("crossing.reduce-family", MUST);
  const int strength = depth();
  // The array covers the calls this library can run; the valid tuples that
  // only calls of routines it lacks hold are listed apart, with its reason.
  const std::uint64_t seed = ordo::harness::settings().seed;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The array is deterministic (every process would compute the same rows):
  // rank 0 computes it, or reads it from the run's cache when an earlier job
  // of this run computed it from the same inputs (the same build, library,
  // strength, seed and shapes: a variant sweep launches this check once per
  // variant), and sends its rows to the others (the shapes it reads were
  // built at start-up; looking them up is local).
  // The part of the space this job's selection runs (a variant's algorithm):
  // empty, the whole space.
  x::Scope scope;
  for (const auto& t : ordo::harness::settings().select)
    scope.push_back({t.routine, t.modes, t.comm});
  Json summary;
  if (rank == 0) {
    std::string inputs = "crossing/3|strength=" + std::to_string(strength) +
                         "|scope=" + x::describe(scope) + "|seed=" + std::to_string(seed) +
                         "|processes=" + std::to_string(ordo::harness::world_size()) +
                         "|element_bytes=" + std::to_string(x::element_bytes());
    for (const x::Dimension& d : x::dimensions())
      if (d.name == "comm")
        for (const std::string& shape : d.values) {
          const auto t = shape_topology(shape);
          inputs += "|" + shape + "=" +
                    (t ? std::to_string(t->inter) + "," + std::to_string(t->size_low) + "," +
                             std::to_string(t->size_high)
                       : std::string("none"));
        }
    if (const auto hit = ordo::harness::cache_get("crossing", inputs)) {
      summary = Json::parse(*hit, nullptr, false);
      if (!summary.is_object() || !summary.contains("rows")) summary = Json();
    }
    if (summary.is_null()) {
      const x::Coverage cov =
          x::covering_array(strength, shape_topology, seed,
                            /*with_invalid=*/strength == 2, &ordo::harness::missing_feature, scope);
      // The report's coverage matrix is of pairs: the invalid and unavailable
      // pairs with their reasons (an array of triples holds every pair too).
      const x::Coverage pairs = strength == 2
                                    ? cov
                                    : x::covering_array(2, shape_topology, seed, true,
                                                        &ordo::harness::missing_feature, scope);
      summary = Json{{"rows", cov.rows},
                     {"valid_rows", cov.valid_rows},
                     {"valid_tuples", cov.valid_tuples},
                     {"covered_tuples", cov.covered_tuples},
                     {"percent", cov.percent()},
                     {"unavailable", cov.unavailable.size()},
                     {"unavailable_rows", cov.unavailable_rows},
                     {"space", x::to_json(pairs, ordo::harness::world_size())}};
      if (!cov.unavailable.empty())
        summary["unavailable_first"] = {cov.unavailable.front().first.describe(),
                                        cov.unavailable.front().second};
      ordo::harness::cache_put("crossing", inputs, summary.dump());
    }
  }
  std::vector<int> flat;
  if (rank == 0)
    for (const auto& row : summary["rows"])
      for (const auto& v : row) flat.push_back(v.get<int>());
  if (rank == 0 && !ordo::harness::settings().survey.empty()) survey_every_kind(&flat, seed);
  flat = ordo::harness::from_rank0(flat);
  std::vector<x::Row> rows;
  const std::size_t width = x::dimensions().size();
  for (std::size_t i = 0; i + width <= flat.size(); i += width)
    rows.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i),
                      flat.begin() + static_cast<std::ptrdiff_t>(i + width));
  const char* what = strength == 2 ? "pairs" : strength == 3 ? "triples" : "values";
  const long long valid_tuples = rank == 0 ? summary["valid_tuples"].get<long long>() : 0;
  if (rank == 0) {
    // The scope, when there is one, ends the line: its figures are of it.
    const std::string in_scope =
        scope.empty() ? std::string() : ", in the selection " + x::describe(scope);
    std::printf(
        "ordo crossing: strength %d at %d processes: %zu cases hold %lld of %lld valid %s "
        "(%.1f%%) that this library can run, from %lld valid calls%s\n",
        strength, ordo::harness::world_size(), rows.size(),
        summary["covered_tuples"].get<long long>(), valid_tuples, what,
        summary["percent"].get<double>(), summary["valid_rows"].get<long long>(), in_scope.c_str());
    if (summary.contains("unavailable_first"))
      std::printf(
          "ordo crossing: %zu more valid %s need what the library lacks (%lld calls), e.g. %s: "
          "%s\n",
          summary["unavailable"].get<std::size_t>(), what,
          summary["unavailable_rows"].get<long long>(),
          summary["unavailable_first"][0].get<std::string>().c_str(),
          summary["unavailable_first"][1].get<std::string>().c_str());
    std::printf(
        "ordo crossing: the large-element datatype class's element is %zu bytes "
        "(--ordo-element-bytes)\n",
        x::element_bytes());
    std::printf("ordo crossing-space: %s\n", summary["space"].get<std::string>().c_str());
    std::fflush(stdout);
  }
  std::string why;
  std::vector<x::Row> ran;  // the rows whose case the library did not skip
  for (const x::Row& row : rows) {
    const auto c = x::realize(row, shape_topology, seed, &why);
    ASSERT_TRUE(c) << "ordo: a row of the covering array is no valid call: " << why;
    ordo::ref::Case k = *c;
    // Buffers that are not significant are real buffers the call must leave
    // alone (NULL there is the intercomm checks' concern, and a known MPICH bug).
    k.null_insignificant = false;
    ordo::harness::set_next_dimensions(x::values_of(row));
    if (ordo::harness::run_case(k) != ordo::harness::Outcome::skip) ran.push_back(row);
  }
  if (rank == 0) {
    const long long held = x::tuples_held(ran, strength);
    std::printf(
        "ordo crossing: of them, %lld (%.1f%%) in the %zu cases that ran (the others were "
        "skipped; their records say why)\n",
        held,
        valid_tuples ? 100.0 * static_cast<double>(held) / static_cast<double>(valid_tuples)
                     : 100.0,
        ran.size());
    std::fflush(stdout);
  }
}

// The harness's start and its settings (harness.h): the --ordo-* arguments
// read into the job's state (harness_state.h), the harness's communicator,
// the waivers, the node map and the watchdog set up by init(); the check
// context (declare_check), the case selection (--ordo-select), the names of
// levels and outcomes, and the time per phase. The case in flight is
// case_flight.cpp's, its record case_record.cpp's, the files beside the
// journal journal_files.cpp's and job_protocol.cpp's, the run's disk cache
// run_cache.cpp's, the watchdog watchdog.cpp's.
#include "harness.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "harness_state.h"
#include "job_protocol.h"
#include "node_map.h"
#include "ordo/reference/errors.h"
#include "shared_folds.h"
#include "waivers.h"

namespace ordo::harness {

HarnessState& state() {
  static HarnessState s;
  return s;
}

const char* phase_name(Phase p) {
  static const char* names[kPhases] = {"in-flight note", "communicator", "reference",
                                       "buffers",        "call",         "check",
                                       "verdict",        "journal",      "generation"};
  return names[static_cast<int>(p)];
}
void add_phase_time(Phase p, double seconds) {
  state().phase_seconds[static_cast<int>(p)] += seconds;
}
double phase_seconds(Phase p) { return state().phase_seconds[static_cast<int>(p)]; }

const char* level_name(Level l) {
  switch (l) {
    case Level::MUST:
      return "MUST";
    case Level::SHOULD:
      return "SHOULD";
    case Level::DETECT:
      return "DETECT";
    case Level::INFO:
      return "INFO";
  }
  return "?";
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::pass:
      return "pass";
    case Outcome::fail:
      return "fail";
    case Outcome::crash:
      return "crash";
    case Outcome::timeout:
      return "timeout";
    case Outcome::skip:
      return "skip";
    case Outcome::waived:
      return "waived";
  }
  return "?";
}

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

void parse_select(Settings& settings, const std::string& text) {
  for (const std::string& t : split(text, ';')) {
    if (t.empty()) continue;
    const std::vector<std::string> f = split(t, ':');
    if (f.size() != 3) {
      std::fprintf(stderr, "ordo: --ordo-select target '%s' is not ROUTINE:MODE+MODE:COMM\n",
                   t.c_str());
      std::exit(2);
    }
    settings.select.push_back({f[0], f[2], split(f[1], '+')});
  }
}

void load_waivers(const std::string& path) {
  try {
    state().job.waivers = waivers::load(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ordo: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// Reads and removes the --ordo-* arguments (harness.h, init) into the job's
// settings; returns the names of --ordo-env-names.
std::vector<std::string> parse_arguments(int* argc, char** argv) {
  Settings& settings = state().job.settings;
  int out = 1;
  std::vector<std::string> env_names;  // --ordo-env-names=A,B,...
  for (int i = 1; i < *argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* key) -> const char* {
      const std::size_t n = std::strlen(key);
      return a.compare(0, n, key) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = val("--ordo-journal=")) {
      settings.journal = v;
    } else if (a == "--ordo-fresh-journal") {
      settings.fresh_journal = true;
    } else if (const char* v2 = val("--ordo-vendor=")) {
      settings.vendor = v2;
    } else if (const char* v3 = val("--ordo-variant=")) {
      settings.variant = v3;
    } else if (const char* ad = val("--ordo-adapter=")) {
      settings.adapter = ad;
    } else if (const char* w = val("--ordo-waivers=")) {
      if (*w) load_waivers(w);
    } else if (const char* rc = val("--ordo-case=")) {
      settings.replay_case = rc;
    } else if (const char* cl = val("--ordo-clause=")) {
      settings.replay_clause = cl;
    } else if (const char* lv = val("--ordo-level=")) {
      settings.replay_level = lv;
    } else if (const char* sk = val("--ordo-skip=")) {
      settings.skip = std::atoll(sk);
    } else if (const char* sb = val("--ordo-standby=")) {
      settings.standby = sb;
    } else if (const char* ct = val("--ordo-case-timeout=")) {
      settings.case_timeout = std::atof(ct);
    } else if (const char* cs = val("--ordo-case-stats=")) {
      settings.case_stats = cs;
    } else if (const char* cf = val("--ordo-case-floor=")) {
      settings.case_floor = std::atof(cf);
    } else if (const char* hf = val("--ordo-hung-case-floor=")) {
      settings.hung_case_floor = std::atof(hf);
    } else if (const char* sv = val("--ordo-survey=")) {
      settings.survey = sv;
    } else if (const char* se = val("--ordo-select=")) {
      parse_select(settings, se);
    } else if (a == "--ordo-avoid-known-fatal") {
      settings.avoid_known_fatal = true;
    } else if (a == "--ordo-no-expect-cache") {
      settings.no_expect_cache = true;
    } else if (const char* nn = val("--ordo-nodes=")) {
      settings.nodes = std::atoi(nn);
    } else if (const char* pl = val("--ordo-placement=")) {
      settings.placement = pl;
    } else if (const char* fa = val("--ordo-families=")) {
      for (const std::string& f : split(fa, ','))
        if (!f.empty()) settings.families.push_back(f);
    } else if (const char* cd = val("--ordo-cache-dir=")) {
      settings.cache_dir = cd;
    } else if (const char* la = val("--ordo-launcher=")) {
      settings.launcher = la;
    } else if (const char* v4 = val("--ordo-seed=")) {
      settings.seed = std::strtoull(v4, nullptr, 10);
    } else if (const char* eb = val("--ordo-element-bytes=")) {
      char* end = nullptr;
      const unsigned long long b = std::strtoull(eb, &end, 10);
      try {
        if (end == eb || *end || *eb == '-')
          throw ref::UsageError(std::string("not a number: ") + eb);
        ref::crossing::set_element_bytes(static_cast<std::size_t>(b));
      } catch (const ref::UsageError& e) {
        std::fprintf(stderr, "ordo: --ordo-element-bytes: %s\n", e.what());
        std::exit(2);
      }
      settings.element_bytes = static_cast<std::size_t>(b);
    } else if (const char* en = val("--ordo-env-names=")) {
      env_names = split(en, ',');
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return env_names;
}

// The node map this job's library uses, in its log for the runner to verify
// (`ordo run --nodes`) and in every record when nodes were asked.
void read_node_map() {
  HarnessState::Job& job = state().job;
  const std::string map = node_map_json(job.comm);
  if (job.rank == 0) {
    std::printf("ordo node-map: %s\n", map.c_str());
    std::fflush(stdout);
    const std::size_t a = map.find('['), b = map.find("],\"processor_names\"");
    if (a != std::string::npos && b != std::string::npos)
      job.settings.node_map = map.substr(a, b + 1 - a);
  }
}

// Rank 0: the journal's folder, and the journal emptied when asked.
void prepare_journal(const Settings& settings) {
  const std::string dir = settings.journal.substr(0, settings.journal.find_last_of('/'));
  if (dir != settings.journal) {
    std::string cmd = "mkdir -p '" + dir + "'";
    if (std::system(cmd.c_str()) != 0) {
    }
  }
  if (settings.fresh_journal) std::ofstream(settings.journal, std::ios::trunc);
}
}  // namespace

void init(int* argc, char** argv) {
  HarnessState& s = state();
  HarnessState::Job& job = s.job;
  // The large cases allocate and free buffers of many MiB per case: keep them
  // in the heap (no mmap / munmap and fresh page faults for each).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  MPI_Comm_dup(MPI_COMM_WORLD, &job.comm);
  MPI_Comm_rank(job.comm, &job.rank);
  MPI_Comm_size(job.comm, &job.size);
  shared_folds::open(job.comm);
  {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(lib, &n);
    job.library_version =
        waivers::parse_library_version(std::string(lib, static_cast<std::size_t>(n)));
  }
  const std::vector<std::string> env_names = parse_arguments(argc, argv);
  const Settings& settings = job.settings;
  s.files.open(settings.journal, job.rank);
  if (!settings.journal.empty() && !env_names.empty())
    write_rank_env(settings.journal, job.rank, env_names);
  if (!settings.case_stats.empty()) {
    // Written by the runner before each launch; a file it could not write
    // (or none yet) leaves this process's own observations.
    std::ifstream f(settings.case_stats);
    if (f) s.case_stats.load(Json::parse(f, nullptr, false));
  }
  read_node_map();
  if (job.rank == 0 && !settings.journal.empty()) prepare_journal(settings);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  s.watchdog.start(settings.journal, job.rank);
}

void finalize() {
  MPI_Comm& comm = state().job.comm;
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

const Settings& settings() { return state().job.settings; }

bool caseless_checks_recorded() {
  const Settings& settings = state().job.settings;
  return settings.select.empty() && settings.survey.empty();
}

bool selected(const ref::Case* c) {
  const Settings& settings = state().job.settings;
  if (settings.select.empty()) return true;
  if (c == nullptr) return false;
  const std::string routine(ref::routine_name(c->routine)), mode(ref::mode_name(c->mode));
  const std::string kind = c->comm.rfind("inter", 0) == 0 ? "inter" : "intra";
  for (const Settings::Target& t : settings.select) {
    if (t.routine != "*" && t.routine != routine) continue;
    if (t.comm != "*" && t.comm != "any" && t.comm != kind) continue;
    for (const std::string& m : t.modes)
      if (m == "*" || m == mode) return true;
  }
  return false;
}

void declare_check(const char* clause, Level level) {
  HarnessState::Check& check = state().check;
  check.clause = clause;
  check.level = level;
  check.case_index = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  check.test = info ? std::string(info->test_suite_name()) + "." + info->name() : "unknown";
  ::testing::Test::RecordProperty("clause", clause);
  ::testing::Test::RecordProperty("level", level_name(level));
}

Level current_level() { return state().check.level; }

void set_next_reproducer(const std::string& path) { state().flight.next_reproducer = path; }

void set_next_dimensions(const std::vector<std::pair<std::string, std::string>>& values) {
  Json& dimensions = state().flight.next_dimensions;
  dimensions = Json::object();
  for (const auto& [name, value] : values) dimensions[name] = value;
}

}  // namespace ordo::harness

#include "harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "build_id.h"
#include "case_limits.h"
#include "comm_zoo.h"
#include "job_protocol.h"
#include "node_map.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/json.h"
#include "record.h"
#include "shared_folds.h"
#include "waivers.h"

namespace ordo::harness {
namespace {

Settings g_settings;
MPI_Comm g_comm = MPI_COMM_NULL;
int g_rank = 0, g_size = 1;
std::string g_clause = "unset";
Level g_level = Level::MUST;
int g_case_index = 0;
long long g_seq = 0;                // cases begun in this process, across tests
std::atomic<double> g_deadline{0};  // MPI_Wtime() by which the case in flight must end
std::atomic<double> g_limit_s{0};   // the limit of the case in flight (for the watchdog's line)
CaseStats g_case_stats;             // --ordo-case-stats: what cases of each kind took
CaseLimit g_case_limit;             // the limit of the case in flight and why
std::string g_case_kind;            // its kind (case_limits.h)
std::string g_case_hang_key;        // its hang key (case_limits.h, hang_key)
std::string g_case_call_key;        // its call key (case_limits.h, call_key)
double g_case_t0 = 0;               // when it began (MPI_Wtime)

std::string g_test;
std::string g_next_reproducer;  // set_next_reproducer
Json g_next_dimensions;         // set_next_dimensions

std::vector<Json> g_waivers;    // vendors/<name>/waivers.json, in file order
std::string g_library_version;  // the release MPI_Get_library_version names (library_versions)

constexpr int kTagVerdict = 31001;
constexpr int kTagOutcome = 31002;
constexpr int kTagPlace = 31003;
constexpr int kTagShare = 31011;            // and 31012
constexpr double kDetectCaseSeconds = 6.0;  // the watchdog's limit for a DETECT case (begin_case)
constexpr int kRestartFlag =
    0x100;  // with the outcome: every rank ends the job (restart_job waiver)

// A waiver with "restart_job": true names a library fault that corrupts the
// process's memory (a heap overrun that glibc notices cases later): after
// such a case every rank ends the job, and the runner starts it again after
// that case (rank 0 wrote <journal>.restart with its seq), so that the next
// cases run in a clean process and a later crash is not charged to them.
[[noreturn]] void end_job_for_restart() {
  std::fflush(nullptr);
  std::_Exit(kRestartExitCode);
}

std::string json_escape(const std::string& s) { return json::escape(s); }

void load_waivers(const std::string& path) {
  try {
    g_waivers = waivers::load(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ordo: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// The journal stays open (O_APPEND): each record is one write(2), in the
// kernel before the other ranks go on, so a crash right after loses nothing.
int g_journal_fd = -1;

void append_journal(const std::string& line) {
  if (g_settings.journal.empty()) return;
  PhaseTimer timer(Phase::journal);
  if (g_journal_fd < 0)
    g_journal_fd =
        ::open(g_settings.journal.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  const std::string text = line + '\n';
  std::size_t done = 0;
  while (g_journal_fd >= 0 && done < text.size()) {
    const ssize_t n = ::write(g_journal_fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done != text.size()) {
    std::fprintf(stderr, "ordo: cannot write the journal %s: %s\n", g_settings.journal.c_str(),
                 std::strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

// The in-flight note (see begin_case): one file per rank, kept open and
// rewritten in place with pwrite(2); a shorter note is padded with blanks
// (JSON allows trailing white space), so no truncation and no reopening.
int g_inflight_fd = -1;
std::size_t g_inflight_len = 0;
std::string g_inflight_body;  // the note of the case in flight, without its closing brace

void write_inflight(std::string note) {
  PhaseTimer timer(Phase::inflight);
  if (g_inflight_fd < 0) {
    const std::string path = g_settings.journal + kInflightSuffix + std::to_string(g_rank);
    g_inflight_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (g_inflight_fd < 0) {
      std::fprintf(stderr, "ordo: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  const std::size_t len = note.size();
  if (len < g_inflight_len) note.append(g_inflight_len - len, ' ');
  g_inflight_len = std::max(g_inflight_len, len);
  if (::pwrite(g_inflight_fd, note.data(), note.size(), 0) != static_cast<ssize_t>(note.size())) {
    std::fprintf(stderr, "ordo: cannot write the in-flight note of %s: %s\n",
                 g_settings.journal.c_str(), std::strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

double g_phase_seconds[kPhases] = {};

}  // namespace

const char* phase_name(Phase p) {
  static const char* names[kPhases] = {"in-flight note", "communicator", "reference",
                                       "buffers",        "call",         "check",
                                       "verdict",        "journal",      "generation"};
  return names[static_cast<int>(p)];
}
void add_phase_time(Phase p, double seconds) { g_phase_seconds[static_cast<int>(p)] += seconds; }
double phase_seconds(Phase p) { return g_phase_seconds[static_cast<int>(p)]; }

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

void parse_select(const std::string& text) {
  for (const std::string& t : split(text, ';')) {
    if (t.empty()) continue;
    const std::vector<std::string> f = split(t, ':');
    if (f.size() != 3) {
      std::fprintf(stderr, "ordo: --ordo-select target '%s' is not ROUTINE:MODE+MODE:COMM\n",
                   t.c_str());
      std::exit(2);
    }
    g_settings.select.push_back({f[0], f[2], split(f[1], '+')});
  }
}
}  // namespace

bool await_go() {
  if (g_settings.standby.empty()) return true;
  // Ready: the runner tells only a ready standby to go (a quit it may say at
  // any time; it is read here once the start-up is done).
  if (g_rank == 0) std::ofstream(g_settings.standby + ".ready") << "ready\n";
  long long skip = -1;
  while (true) {
    std::ifstream f(g_settings.standby);
    std::string word;
    if (f >> word) {
      if (word == "quit") return false;
      if (word == "skip" && (f >> skip) && skip >= 0) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  g_settings.skip = skip;
  if (!g_settings.case_stats.empty()) {
    std::ifstream f(g_settings.case_stats);
    g_case_stats = CaseStats();
    if (f) g_case_stats.load(Json::parse(f, nullptr, false));
  }
  return true;
}

bool caseless_checks_recorded() { return g_settings.select.empty() && g_settings.survey.empty(); }

bool selected(const ref::Case* c) {
  if (g_settings.select.empty()) return true;
  if (c == nullptr) return false;
  const std::string routine(ref::routine_name(c->routine)), mode(ref::mode_name(c->mode));
  const std::string kind = c->comm.rfind("inter", 0) == 0 ? "inter" : "intra";
  for (const Settings::Target& t : g_settings.select) {
    if (t.routine != "*" && t.routine != routine) continue;
    if (t.comm != "*" && t.comm != "any" && t.comm != kind) continue;
    for (const std::string& m : t.modes)
      if (m == "*" || m == mode) return true;
  }
  return false;
}

namespace {
// The build (build_id.h: the reference's and the harness's sources, the
// compiler and the configuration) and the library: every check executable of
// one build shares an entry (the crossing's covering array is computed once
// per run and process count, by the first executable that needs it).
std::string cache_key(const std::string& inputs) {
  static const std::string build = [] {
    const std::string id = build_id();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(lib, &n);
    return "|build=" + id + "|library=" + std::string(lib, static_cast<std::size_t>(n));
  }();
  return inputs + build;
}

std::string cache_path(const std::string& what, const std::string& key) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a: a file name, not a check (the key is)
  for (const unsigned char ch : key) h = (h ^ ch) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return g_settings.cache_dir + "/" + what + "-" + hex + ".json";
}
}  // namespace

std::optional<std::string> cache_get(const std::string& what, const std::string& inputs) {
  if (g_settings.cache_dir.empty()) return std::nullopt;
  const std::string key = cache_key(inputs);
  std::ifstream f(cache_path(what, key));
  if (!f) return std::nullopt;
  const Json j = Json::parse(f, nullptr, false);
  if (!j.is_object() || !j.contains("key") || !j["key"].is_string() || j["key"] != key ||
      !j.contains("body") || !j["body"].is_string())
    return std::nullopt;  // another build's entry under the same name, or cut short: computed again
  return j["body"].get<std::string>();
}

void cache_put(const std::string& what, const std::string& inputs, const std::string& body) {
  if (g_settings.cache_dir.empty()) return;
  const std::string key = cache_key(inputs);
  const std::string path = cache_path(what, key);
  mkdir(g_settings.cache_dir.c_str(), 0777);  // one level: the runner made the run's folder
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp);
    f << Json{{"key", key}, {"body", body}}.dump() << "\n";
    if (!f) {
      std::remove(tmp.c_str());
      return;  // a cache that cannot be written costs time, never a verdict
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

namespace {
// <journal>.env.<world rank> (job_protocol.h): this rank's values of the
// variables the runner names (those the adapter or the user set, and the
// list-valued ones), as the launcher handed them over; null: not set. Only
// the named variables, never the whole environment.
void write_rank_env(const std::vector<std::string>& names) {
  Json env = Json::object();
  for (const std::string& name : names) {
    if (name.empty()) continue;
    const char* value = std::getenv(name.c_str());
    env[name] = value ? Json(std::string(value)) : Json(nullptr);
  }
  const std::string path = g_settings.journal + kEnvSuffix + std::to_string(g_rank);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << env.dump() << "\n";
    if (!f) {
      std::remove(tmp.c_str());
      return;  // the runner then records no environment for this rank, never a verdict
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}
}  // namespace

void init(int* argc, char** argv) {
  // The large cases allocate and free buffers of many MiB per case: keep them
  // in the heap (no mmap / munmap and fresh page faults for each).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_rank(g_comm, &g_rank);
  MPI_Comm_size(g_comm, &g_size);
  shared_folds::open(g_comm);
  {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(lib, &n);
    g_library_version =
        waivers::parse_library_version(std::string(lib, static_cast<std::size_t>(n)));
  }
  int out = 1;
  std::vector<std::string> env_names;  // --ordo-env-names=A,B,...
  for (int i = 1; i < *argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* key) -> const char* {
      const std::size_t n = std::strlen(key);
      return a.compare(0, n, key) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = val("--ordo-journal=")) {
      g_settings.journal = v;
    } else if (a == "--ordo-fresh-journal") {
      g_settings.fresh_journal = true;
    } else if (const char* v2 = val("--ordo-vendor=")) {
      g_settings.vendor = v2;
    } else if (const char* v3 = val("--ordo-variant=")) {
      g_settings.variant = v3;
    } else if (const char* ad = val("--ordo-adapter=")) {
      g_settings.adapter = ad;
    } else if (const char* w = val("--ordo-waivers=")) {
      if (*w) load_waivers(w);
    } else if (const char* rc = val("--ordo-case=")) {
      g_settings.replay_case = rc;
    } else if (const char* cl = val("--ordo-clause=")) {
      g_settings.replay_clause = cl;
    } else if (const char* lv = val("--ordo-level=")) {
      g_settings.replay_level = lv;
    } else if (const char* sk = val("--ordo-skip=")) {
      g_settings.skip = std::atoll(sk);
    } else if (const char* sb = val("--ordo-standby=")) {
      g_settings.standby = sb;
    } else if (const char* ct = val("--ordo-case-timeout=")) {
      g_settings.case_timeout = std::atof(ct);
    } else if (const char* cs = val("--ordo-case-stats=")) {
      g_settings.case_stats = cs;
    } else if (const char* cf = val("--ordo-case-floor=")) {
      g_settings.case_floor = std::atof(cf);
    } else if (const char* hf = val("--ordo-hung-case-floor=")) {
      g_settings.hung_case_floor = std::atof(hf);
    } else if (const char* sv = val("--ordo-survey=")) {
      g_settings.survey = sv;
    } else if (const char* se = val("--ordo-select=")) {
      parse_select(se);
    } else if (a == "--ordo-avoid-known-fatal") {
      g_settings.avoid_known_fatal = true;
    } else if (a == "--ordo-no-expect-cache") {
      g_settings.no_expect_cache = true;
    } else if (const char* nn = val("--ordo-nodes=")) {
      g_settings.nodes = std::atoi(nn);
    } else if (const char* pl = val("--ordo-placement=")) {
      g_settings.placement = pl;
    } else if (const char* fa = val("--ordo-families=")) {
      for (const std::string& f : split(fa, ','))
        if (!f.empty()) g_settings.families.push_back(f);
    } else if (const char* cd = val("--ordo-cache-dir=")) {
      g_settings.cache_dir = cd;
    } else if (const char* la = val("--ordo-launcher=")) {
      g_settings.launcher = la;
    } else if (const char* v4 = val("--ordo-seed=")) {
      g_settings.seed = std::strtoull(v4, nullptr, 10);
    } else if (const char* en = val("--ordo-env-names=")) {
      env_names = split(en, ',');
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  if (!g_settings.journal.empty() && !env_names.empty()) write_rank_env(env_names);
  if (!g_settings.case_stats.empty()) {
    // Written by the runner before each launch; a file it could not write
    // (or none yet) leaves this process's own observations.
    std::ifstream f(g_settings.case_stats);
    if (f) g_case_stats.load(Json::parse(f, nullptr, false));
  }
  {
    // The node map this job's library uses, in its log for the runner to
    // verify (`ordo run --nodes`) and in every record when nodes were asked.
    const std::string map = node_map_json(g_comm);
    if (g_rank == 0) {
      std::printf("ordo node-map: %s\n", map.c_str());
      std::fflush(stdout);
      const std::size_t a = map.find('['), b = map.find("],\"processor_names\"");
      if (a != std::string::npos && b != std::string::npos)
        g_settings.node_map = map.substr(a, b + 1 - a);
    }
  }
  if (g_rank == 0 && !g_settings.journal.empty()) {
    const std::string dir = g_settings.journal.substr(0, g_settings.journal.find_last_of('/'));
    if (dir != g_settings.journal) {
      std::string cmd = "mkdir -p '" + dir + "'";
      if (std::system(cmd.c_str()) != 0) {
      }
    }
    if (g_settings.fresh_journal) std::ofstream(g_settings.journal, std::ios::trunc);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  // The watchdog: a case still in flight after its time limit ends the job
  // (exit code 124); the runner records it as a timeout and resumes after it.
  // It looks every 10 ms: a case that hangs costs its limit, not up to a tenth
  // of a second more per relaunch.
  std::thread([] {
    const auto t0 = std::chrono::steady_clock::now();
    const double w0 = MPI_Wtime();
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const double deadline = g_deadline.load();
      const double now =
          w0 + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (deadline > 0 && now > deadline) {
        std::fprintf(stderr, "ordo: world rank %d: case %lld exceeded %.2f s; ending the job\n",
                     g_rank, g_seq, g_limit_s.load());
        if (!g_settings.journal.empty())
          std::ofstream(g_settings.journal + kTimeoutSuffix) << g_seq << " " << g_rank << "\n";
        std::fflush(nullptr);
        std::_Exit(124);
      }
    }
  }).detach();
}

void finalize() {
  if (g_comm != MPI_COMM_NULL) MPI_Comm_free(&g_comm);
}

const Settings& settings() { return g_settings; }
int world_rank() { return g_rank; }
int world_size() { return g_size; }

namespace {
// Waits for a receive from rank 0 without taking the processor from it: a
// process of the harness that waits for rank 0's word (its verdict, the
// rows it computed) tests the request, and after a few tests sleeps between
// them. With more processes than cores, a library that polls while it waits
// (MPICH 4.0.2 does) would otherwise share the cores with rank 0's work
// among every waiting process. Only ordo's own traffic waits so; the
// library's calls under test are never changed.
void wait_for_rank0(MPI_Request* request) {
  int done = 0;
  for (int tests = 0;; ++tests) {
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (tests >= 64)
      std::this_thread::sleep_for(std::chrono::microseconds(tests < 1024 ? 20 : 200));
  }
}

// Rank 0's wait for another process's verdict, the same way: the others may
// still be judging their results when rank 0 is done with its own.
void probe_politely(int source, int tag, MPI_Status* status) {
  int found = 0;
  for (int tests = 0;; ++tests) {
    MPI_Iprobe(source, tag, g_comm, &found, status);
    if (found) return;
    if (tests >= 64)
      std::this_thread::sleep_for(std::chrono::microseconds(tests < 1024 ? 20 : 200));
  }
}

void recv_from_rank0(void* buf, int n, MPI_Datatype type, int tag) {
  MPI_Request request;
  MPI_Irecv(buf, n, type, 0, tag, g_comm, &request);
  wait_for_rank0(&request);
}
}  // namespace

std::vector<int> from_rank0(const std::vector<int>& mine) {
  if (g_rank == 0) {
    int n = static_cast<int>(mine.size());
    for (int r = 1; r < g_size; ++r) {
      MPI_Send(&n, 1, MPI_INT, r, kTagShare, g_comm);
      MPI_Send(mine.data(), n, MPI_INT, r, kTagShare + 1, g_comm);
    }
    return mine;
  }
  int n = 0;
  recv_from_rank0(&n, 1, MPI_INT, kTagShare);
  std::vector<int> v(static_cast<std::size_t>(n));
  recv_from_rank0(v.data(), n, MPI_INT, kTagShare + 1);
  return v;
}
MPI_Comm harness_comm() { return g_comm; }

void declare_check(const char* clause, Level level) {
  g_clause = clause;
  g_level = level;
  g_case_index = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  g_test = info ? std::string(info->test_suite_name()) + "." + info->name() : "unknown";
  ::testing::Test::RecordProperty("clause", clause);
  ::testing::Test::RecordProperty("level", level_name(level));
}

Level current_level() { return g_level; }

std::vector<std::string> gather_to_rank0(const std::string& bytes) {
  constexpr int kTagGather = 31003;
  std::vector<std::string> all;
  if (g_rank != 0) {
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kTagGather, g_comm);
    return all;
  }
  all.resize(static_cast<std::size_t>(g_size));
  all[0] = bytes;
  for (int r = 1; r < g_size; ++r) {
    MPI_Status st;
    MPI_Probe(r, kTagGather, g_comm, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    all[static_cast<std::size_t>(r)].resize(static_cast<std::size_t>(n));
    MPI_Recv(all[static_cast<std::size_t>(r)].data(), n, MPI_BYTE, r, kTagGather, g_comm,
             MPI_STATUS_IGNORE);
  }
  return all;
}

std::string replay_command(const ref::Case& c) {
  std::string j = c.to_json();
  // Inside the root of `ordo run --system NAME` (tools/runner/systems.py sets ORDO_SYSTEM): the
  // replay runs in the same root.
  const char* system = std::getenv("ORDO_SYSTEM");
  return "./ordo replay" +
         (system && *system ? std::string(" --system ") + system : std::string()) + " --vendor " +
         (g_settings.vendor.empty() ? std::string("mpich") : g_settings.vendor) +
         (g_settings.launcher.empty() ? std::string() : " --launcher " + g_settings.launcher) +
         " --ranks " + std::to_string(g_size) +
         (g_settings.variant.empty() || g_settings.variant == "default"
              ? std::string()
              : " --variant " + g_settings.variant) +
         (g_settings.nodes > 0 ? " --nodes " + std::to_string(g_settings.nodes) + " --placement " +
                                     g_settings.placement
                               : std::string()) +
         (g_level == Level::DETECT ? " --level DETECT" : "") + " --case '" + j + "'";
}

void set_placement(Record& r) {
  if (g_settings.nodes <= 0) return;
  r.nodes = g_settings.nodes;
  r.placement = g_settings.placement;
  if (!g_settings.node_map.empty()) r.node_map = Json::parse(g_settings.node_map, nullptr, false);
}

bool library_has_reduce_locals() {
  static const bool has = dlsym(RTLD_DEFAULT, "MPIX_Reduce_locals") != nullptr;
  return has;
}

namespace {
// The routine a case's record names: Reduce_locals without the library's own
// MPIX_Reduce_locals ran ordo's code.
std::string record_routine(const ref::Case& c) {
  if (c.routine == ref::Routine::reduce_locals && !library_has_reduce_locals())
    return kPortableReduceLocals;
  return std::string(ref::mpi_routine_name(c.routine, c.mode));
}

Outcome record_impl(const ref::Case* cp, const std::string& subject, const LocalVerdict& mine,
                    double seconds, int comm_size);
}  // namespace

void set_next_reproducer(const std::string& path) { g_next_reproducer = path; }

void set_next_dimensions(const std::vector<std::pair<std::string, std::string>>& values) {
  g_next_dimensions = Json::object();
  for (const auto& [name, value] : values) g_next_dimensions[name] = value;
}

namespace {
// The case's count times the size of its datatype (the reference's model of
// MPI_Type_size), which waivers' bytes condition reads; none for a type the
// reference does not model (a value-index pair).
std::optional<long long> case_bytes(const ref::Case& c) {
  try {
    return static_cast<long long>(ref::Datatype::parse(c.datatype).size()) * c.count;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}
}  // namespace

namespace {
// The node map of each group of a communicator shape (comm_node_maps.h), as
// JSON text, on every rank; "" without the world's map. Under virtual nodes
// every record carries it; without them the in-flight note does (a crash
// record, and a crash or hang waiver's node conditions: one machine is one
// node, MPICH's ch4 composition_alpha crashes there too when the root is not
// the first rank of the communicator on its node). A shape's communicators
// never change within a job, so each is computed once: on the first case of
// that shape, which every rank runs (collective over the job's communicator).
std::map<std::string, std::string> g_shape_node_maps;

const std::string& shape_node_maps(const std::string& shape) {
  if (const auto it = g_shape_node_maps.find(shape); it != g_shape_node_maps.end())
    return it->second;
  const ZooComm& z = zoo(shape);
  CommPlace place;
  if (z.available && z.member && z.comm != MPI_COMM_NULL)
    place = CommPlace{1, z.color, z.role.group, z.role.rank};
  std::vector<CommPlace> places(static_cast<std::size_t>(g_rank == 0 ? g_size : 1));
  MPI_Gather(&place, 4, MPI_INT, places.data(), 4, MPI_INT, 0, g_comm);
  std::string text;
  if (g_rank == 0 && !g_settings.node_map.empty()) {
    const Json world = Json::parse(g_settings.node_map, nullptr, false);
    if (world.is_array()) text = comm_node_maps(world, places).dump();
  }
  int n = static_cast<int>(text.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, g_comm);
  text.resize(static_cast<std::size_t>(n));
  MPI_Bcast(text.data(), n, MPI_CHAR, 0, g_comm);
  return g_shape_node_maps.emplace(shape, std::move(text)).first->second;
}
}  // namespace

std::string known_fatal_waiver(const ref::Case& c, int comm_size) {
  if (!g_settings.avoid_known_fatal) return "";
  // The record this case would get if the job died in it (the runner's
  // record of a dead case carries the bytes and the communicator's size of the
  // harness's in-flight note).
  Json record = {{"test", g_test},
                 {"variant", g_settings.variant},
                 {"message", ""},
                 {"ranks", g_size},
                 {"case", Json::parse(c.to_json())}};
  record["comm_size"] = comm_size;
  const bool local =
      c.routine == ref::Routine::reduce_local || c.routine == ref::Routine::reduce_locals;
  if (const std::string& maps = shape_node_maps(local ? "self" : c.comm); !maps.empty())
    record["comm_node_maps"] = Json::parse(maps, nullptr, false);
  if (const auto bytes = case_bytes(c)) record["bytes"] = *bytes;
  const std::string date = today();
  for (const Json& w : g_waivers) {
    for (const char* fatal : {"crash", "timeout"}) {
      record["outcome"] = fatal;
      // No message yet: the waiver's trigger alone (its signature is for the record).
      if (waivers::match(w, record, date, g_library_version, false) == waivers::Match::waived)
        return w.value("id", std::string());
    }
  }
  return "";
}

namespace {
LimitSettings limit_settings();
}  // namespace

namespace {
std::string call_key_of(const ref::Case& c) {
  return call_key(std::string(ref::mpi_routine_name(c.routine, ref::Mode::blocking)), c.count,
                  c.root, c.routine == ref::Routine::reduce, g_level == Level::DETECT);
}
}  // namespace

std::string held_back(const ref::Case& c, int comm_size) {
  // The case's hang key and call key: a case of either that runs to its
  // verdict ends that key's streak (record_impl).
  g_case_hang_key =
      hang_key(record_routine(c), c.comm, comm_size, c.count, g_level == Level::DETECT);
  g_case_call_key = call_key_of(c);
  if (g_settings.case_stats.empty()) return "";
  for (const std::string* key : {&g_case_hang_key, &g_case_call_key})
    if (std::string why = g_case_stats.hold_back(*key); !why.empty()) return why;
  // It runs while a key of it keeps hanging, or after the last case of a key
  // hung: the short limit of rule "probe" or "again" (case_limits.h), the
  // shorter of its keys', for the watchdog and for the record the runner
  // writes from the in-flight note if it hangs.
  CaseLimit probe = g_case_limit;
  for (const std::string* key : {&g_case_hang_key, &g_case_call_key}) {
    const HangStreak* streak = g_case_stats.streak(*key);
    if (streak == nullptr) continue;
    const CaseLimit l = probe_limit(
        g_case_limit, *key, *streak, g_case_kind, g_size, g_case_stats.of(g_case_kind),
        g_case_stats.any(), limit_settings(), g_case_stats.fewer(), g_case_stats.fewer_ranks());
    if (l.seconds < probe.seconds) probe = l;
  }
  if (probe.rule != "probe" && probe.rule != "again") return "";
  const std::string was = "\"case_limit\":" + g_case_limit.to_json().dump();
  g_case_limit = probe;
  g_limit_s.store(probe.seconds);
  g_deadline.store(g_case_t0 + probe.seconds);
  if (const auto at = g_inflight_body.find(was); at != std::string::npos) {
    g_inflight_body.replace(at, was.size(), "\"case_limit\":" + probe.to_json().dump());
    write_inflight(g_inflight_body + "}\n");
  }
  return "";
}

std::string held_back_together(const ref::Case& c, int comm_size) {
  if (g_settings.case_stats.empty()) return "";
  std::string why = g_case_stats.hold_back(
      hang_key(record_routine(c), c.comm, comm_size, c.count, g_level == Level::DETECT));
  return why.empty() ? g_case_stats.hold_back(call_key_of(c)) : why;
}

std::string known_fatal_skip(const std::string& id) {
  return "not run (--ordo-avoid-known-fatal): the waiver " + id +
         " names a crash or hang of this library here";
}

void note_case_comm(const std::string& shape, int comm_size) {
  const std::string& maps = shape_node_maps(shape);  // collective on a shape's first case
  if (g_settings.journal.empty() || g_inflight_body.empty()) return;
  g_inflight_body += ",\"comm_size\":" + std::to_string(comm_size);
  if (!maps.empty()) g_inflight_body += ",\"comm_node_maps\":" + maps;
  write_inflight(g_inflight_body + "}\n");
}

Outcome record(const ref::Case& c, const LocalVerdict& mine, double seconds, int comm_size) {
  return record_impl(&c, record_routine(c), mine, seconds, comm_size);
}

Outcome record_check(const std::string& subject, const LocalVerdict& mine) {
  if (!begin_case(nullptr)) return Outcome::skip;
  return record_impl(nullptr, subject, mine, 0, g_size);
}

namespace {
// The case's work for the derived limits (case_limits.h): the world's size
// stands for the group's (an upper bound), a type the reference does not
// model (a value-index pair) for 16 bytes an element.
double work_of(const ref::Case& c) {
  double size = 16;
  try {
    size = static_cast<double>(ref::Datatype::parse(c.datatype).size());
  } catch (const std::exception&) {
  }
  const bool scattering =
      c.routine == ref::Routine::reduce_scatter || c.routine == ref::Routine::reduce_scatter_block;
  return case_work(c.count, size, scattering, g_size, c.concurrency == "outstanding" ? 3 : 1);
}

LimitSettings limit_settings() {
  LimitSettings ls;
  ls.case_timeout = g_settings.case_timeout;
  ls.floor_s = g_settings.case_floor;
  ls.hung_floor_s = g_settings.hung_case_floor;
  return ls;
}
}  // namespace

bool begin_case(const ref::Case* c) {
  ++g_seq;
  g_case_index++;
  // A case that does not run takes with it what was set for it (its reproducer,
  // its crossing dimensions): they must not land in the record of a later case.
  const auto not_run = [] {
    g_next_reproducer.clear();
    g_next_dimensions = Json();
    return false;
  };
  if (g_seq <= g_settings.skip) return not_run();
  if (!g_settings.survey.empty()) {  // which cases there are, for the runner's variant sweeps
    if (g_rank == 0 && c != nullptr) {
      std::ofstream f(g_settings.survey, std::ios::app);
      f << ref::routine_name(c->routine) << ' ' << ref::mode_name(c->mode) << ' '
        << (c->comm.rfind("inter", 0) == 0 ? "inter" : "intra") << '\n';
    }
    return not_run();
  }
  if (!selected(c)) return not_run();
  // An erroneous call (DETECT) that only some ranks report can leave the
  // others waiting in the collective: such a case gets a shorter limit
  // (its calls move a few elements: an answer takes milliseconds, also at 8
  // processes on 2 cores and under the sanitizers).
  g_case_kind = c ? case_kind(record_routine(*c), c->op, c->datatype) : g_test;
  g_case_hang_key.clear();  // known once the case's communicator is (held_back)
  g_case_call_key.clear();
  if (g_settings.case_stats.empty()) {
    g_case_limit = {g_settings.case_timeout, "fixed", "the case timeout"};
  } else {
    g_case_limit = case_limit(g_case_kind, g_size, g_case_stats.of(g_case_kind), g_case_stats.any(),
                              limit_settings(), c ? work_of(*c) : 0, g_case_stats.fewer(),
                              g_case_stats.fewer_ranks());
  }
  if (g_level == Level::DETECT && g_case_limit.seconds > kDetectCaseSeconds) {
    g_case_limit.seconds = kDetectCaseSeconds;
    g_case_limit.why += "; a DETECT case: at most 6 s";
  }
  if (!g_settings.journal.empty()) {
    // What is in flight, for the runner to record if the job dies here. Every
    // rank writes its own: a rank may already be in the next case while rank 0
    // is still recording the last one.
    std::ostringstream f;
    f << "{\"seq\":" << g_seq << ",\"id\":\"" << json_escape(g_test) << "#" << (g_case_index - 1)
      << "\",\"test\":\"" << json_escape(g_test) << "\",\"clause\":\"" << json_escape(g_clause)
      << "\",\"level\":\"" << level_name(g_level) << "\",\"case\":" << (c ? c->to_json() : "null")
      << ",\"routine\":\"" << (c ? record_routine(*c) : std::string()) << "\"";
    if (const auto bytes = c ? case_bytes(*c) : std::nullopt) f << ",\"bytes\":" << *bytes;
    if (c && c->routine == ref::Routine::reduce_locals)
      f << ",\"credited_to\":\"" << (library_has_reduce_locals() ? "library" : "ordo") << "\"";
    if (!g_next_dimensions.is_null()) f << ",\"dimensions\":" << g_next_dimensions.dump();
    if (!g_settings.case_stats.empty()) f << ",\"case_limit\":" << g_case_limit.to_json().dump();
    g_inflight_body = f.str();
    write_inflight(g_inflight_body + "}\n");
  }
  g_limit_s.store(g_case_limit.seconds);
  g_case_t0 = MPI_Wtime();
  g_deadline.store(g_case_t0 + g_case_limit.seconds);
  return true;
}

namespace {
Outcome record_impl(const ref::Case* cp, const std::string& subject, const LocalVerdict& mine,
                    double seconds, int comm_size) {
  using S = LocalVerdict::Status;
  const int index = g_case_index - 1;
  Outcome outcome = Outcome::pass;
  struct Disarm {
    ~Disarm() { g_deadline.store(0); }
  } disarm;
  // The verdict phase: this function's time less the journal write in it.
  struct VerdictTimer {
    double t0 = MPI_Wtime(), j0 = phase_seconds(Phase::journal);
    ~VerdictTimer() {
      add_phase_time(Phase::verdict, MPI_Wtime() - t0 - (phase_seconds(Phase::journal) - j0));
    }
  } verdict_timer;
  // The case's whole wall time, for the limits of the next cases of its kind
  // (every rank keeps its own statistics; the limits differ by little).
  struct Finished {
    ~Finished() {
      if (!g_settings.case_stats.empty() && *outcome != Outcome::skip) {
        g_case_stats.finished(g_case_kind, MPI_Wtime() - g_case_t0, g_case_limit.work);
        if (!g_case_hang_key.empty()) g_case_stats.ran(g_case_hang_key);
        if (!g_case_call_key.empty()) g_case_stats.ran(g_case_call_key);
      }
    }
    const Outcome* outcome;
  } finished{&outcome};
  // Under virtual nodes, each rank's place in the case's communicator: rank 0
  // records the node map of each of its groups (waivers read it). Every rank
  // decides alike (only rank 0 holds the world's node map).
  const bool placed = cp && g_settings.nodes > 0;
  CommPlace place;
  if (placed) {
    const ZooComm& z = zoo(cp->comm);
    if (z.available && z.member && z.comm != MPI_COMM_NULL)
      place = CommPlace{1, z.color, z.role.group, z.role.rank};
  }
  // DETECT: this rank's call returned; its note says how. If another rank
  // never returns (it waits in the collective for a process that returned the
  // error), the runner's record of the timeout still knows who reported it.
  // A rank outside the case's communicator returns with no detect at all.
  // Once this rank's call returned the error, the others get a short limit
  // (case_limits.h, reported_limit): a process that waits
  // in the collective for this one does not cost the rest of the case's
  // limit. The note carries the limit, for the runner's record.
  if (g_level == Level::DETECT && !g_settings.journal.empty() && !g_inflight_body.empty()) {
    const std::string first = mine.message.substr(0, mine.message.find('\n')).substr(0, 300);
    std::string limit;
    if (mine.detect == "reported") {
      const CaseLimit r = reported_limit(g_case_limit, MPI_Wtime() - g_case_t0, g_case_kind, g_size,
                                         g_case_stats.of(g_case_kind));
      if (r.rule == "reported") {
        g_limit_s.store(r.seconds);
        g_deadline.store(g_case_t0 + r.seconds);
        limit = ",\"case_limit\":" + r.to_json().dump();
      }
    }
    write_inflight(g_inflight_body + ",\"returned\":{\"detect\":\"" + json_escape(mine.detect) +
                   "\",\"message\":\"" + json_escape(first) + "\"" + limit + "}}\n");
  }
  if (g_rank != 0) {
    if (placed) MPI_Send(&place, 4, MPI_INT, 0, kTagPlace, g_comm);
    std::string msg = std::to_string(static_cast<int>(mine.status)) + "|" + mine.detect + "|" +
                      std::to_string(mine.tracer.size()) + "|" + mine.tracer + mine.message;
    MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kTagVerdict, g_comm);
    int o = 0;
    recv_from_rank0(&o, 1, MPI_INT, kTagOutcome);
    if (o & kRestartFlag) end_job_for_restart();
    outcome = static_cast<Outcome>(o);
    if (outcome == Outcome::fail) ADD_FAILURE() << "see rank 0";
    return outcome;
  }
  std::vector<CommPlace> places(static_cast<std::size_t>(placed ? g_size : 0));
  if (placed) {
    places[0] = place;
    for (int r = 1; r < g_size; ++r)
      MPI_Recv(&places[static_cast<std::size_t>(r)], 4, MPI_INT, r, kTagPlace, g_comm,
               MPI_STATUS_IGNORE);
  }
  std::vector<LocalVerdict> all(g_size);
  all[0] = mine;
  for (int r = 1; r < g_size; ++r) {
    MPI_Status st;
    probe_politely(r, kTagVerdict, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string buf(static_cast<std::size_t>(n), '\0');
    MPI_Recv(buf.data(), n, MPI_CHAR, r, kTagVerdict, g_comm, MPI_STATUS_IGNORE);
    // status|detect|<tracer length>|<tracer><message>
    const auto bar = buf.find('|');
    const auto bar2 = buf.find('|', bar + 1);
    const auto bar3 = buf.find('|', bar2 + 1);
    const std::size_t tracer_len = std::strtoull(buf.c_str() + bar2 + 1, nullptr, 10);
    all[r].status = static_cast<S>(std::atoi(buf.substr(0, bar).c_str()));
    all[r].detect = buf.substr(bar + 1, bar2 - bar - 1);
    all[r].tracer = buf.substr(bar3 + 1, tracer_len);
    all[r].message = buf.substr(bar3 + 1 + tracer_len);
  }
  bool any_fail = false, any_pass = false, any_skip = false;
  std::string message;
  std::vector<int> failing;
  std::vector<int> skipped;  // the ranks that skipped the case, and why
  std::string skip_reasons;
  Json tracer = Json::array();
  for (int r = 0; r < g_size; ++r) {
    switch (all[r].status) {
      case S::fail:
        any_fail = true;
        failing.push_back(r);
        if (failing.size() <= 3) {
          message += (message.empty() ? "" : " | ") + std::string("on rank ") + std::to_string(r) +
                     ": " + all[r].message;
          if (!all[r].tracer.empty()) {  // the tracer's explanation in this rank's message, as data
            Json item = Json::parse(all[r].tracer);
            item["on_rank"] = r;
            tracer.push_back(std::move(item));
          }
        }
        break;
      case S::pass:
        any_pass = true;
        break;
      case S::skip:
        any_skip = true;
        skipped.push_back(r);
        if (skipped.size() <= 3)
          skip_reasons += (skip_reasons.empty() ? "" : "; ") + std::string("rank ") +
                          std::to_string(r) + ": " +
                          (all[r].message.empty() ? "no reason given" : all[r].message);
        break;
      case S::absent:
        break;
    }
  }
  if (failing.size() > 3) message += " | and " + std::to_string(failing.size() - 3) + " more ranks";
  // DETECT: which ranks had the error reported, and the first report.
  std::string detect;
  if (g_level == Level::DETECT && !any_fail) {
    std::vector<int> reported, accepted;
    std::string first_report;
    for (int r = 0; r < g_size; ++r) {
      if (all[r].detect == "reported") {
        reported.push_back(r);
        if (first_report.empty()) first_report = all[r].message;
      } else if (all[r].detect == "accepted") {
        accepted.push_back(r);
      }
    }
    if (!reported.empty() && accepted.empty()) {
      detect = "reported";
      message = "reported on every participating rank: " + first_report;
    } else if (reported.empty() && !accepted.empty()) {
      detect = "accepted";
      message = "accepted: no error code came back";
    } else if (!reported.empty()) {
      detect = "reported";
      message = "reported on " + std::to_string(reported.size()) + " of " +
                std::to_string(reported.size() + accepted.size()) + " ranks: " + first_report;
    }
  }
  const std::size_t failing_before_skip_rule = failing.size();
  outcome = any_fail ? Outcome::fail : (any_pass || !any_skip ? Outcome::pass : Outcome::skip);
  if (g_level == Level::INFO) {
    // Implementation-defined behaviour: recorded, never judged.
    if (outcome == Outcome::fail)
      message = "differs from the reference (not judged): " + message;
    else if (outcome == Outcome::pass)
      message = all[0].status == S::skip ? std::string() : all[0].message;
    if (outcome == Outcome::fail) outcome = Outcome::pass;
    any_fail = false;
  }
  // A case that some ranks skipped while others ran is not a pass (not even
  // at INFO: it was not run as the case says): the skipping ranks did not
  // take part in the call the others judged.
  if (any_skip && (any_pass || failing_before_skip_rule > 0)) {
    std::string names;
    for (std::size_t i = 0; i < skipped.size(); ++i)
      names += (i ? "," : "") + std::to_string(skipped[i]);
    if (skipped.size() > 3) skip_reasons += "; and " + std::to_string(skipped.size() - 3) + " more";
    message = "skipped on rank" + std::string(skipped.size() > 1 ? "s " : " ") + names +
              " while the others ran it (" + skip_reasons + ")" +
              (message.empty() ? std::string() : " | " + message);
    for (int r : skipped)
      if (std::find(failing.begin(), failing.end(), r) == failing.end()) failing.push_back(r);
    std::sort(failing.begin(), failing.end());
    detect.clear();
    outcome = Outcome::fail;
    any_fail = true;
  }
  // Every skip says why: a skip without a reason hides what was not tested.
  if (outcome == Outcome::skip) {
    for (int r : skipped)
      if (message.empty()) message = all[r].message;
    if (message.empty()) {
      message = "ordo: every rank skipped the case without giving a reason (a harness defect)";
      outcome = Outcome::fail;
      any_fail = true;
    }
  }
  Record rec;
  rec.seq = g_seq;
  rec.id = g_test + "#" + std::to_string(index);
  rec.test = g_test;
  rec.clause = g_clause;
  rec.level = level_name(g_level);
  rec.routine = subject;
  if (cp && cp->routine == ref::Routine::reduce_locals)
    rec.credited_to = library_has_reduce_locals() ? "library" : "ordo";
  rec.case_json = cp ? Json::parse(cp->to_json()) : Json(nullptr);
  rec.dimensions = g_next_dimensions;
  rec.ranks = g_size;
  rec.comm_size = comm_size;
  if (cp) rec.bytes = case_bytes(*cp);
  rec.vendor = g_settings.vendor;
  rec.variant = g_settings.variant;
  set_placement(rec);
  if (placed && rec.node_map.is_array()) rec.comm_node_maps = comm_node_maps(rec.node_map, places);
  rec.outcome = outcome_name(outcome);
  rec.message = message;
  rec.failing_ranks = failing;
  if (!detect.empty()) rec.detect = detect;
  rec.tracer = std::move(tracer);  // the failing ranks' tracer explanations (none: omitted)
  rec.duration_s = seconds;
  if (!g_settings.case_stats.empty()) {
    rec.case_limit = g_case_limit.to_json();
    rec.case_seconds = std::round((MPI_Wtime() - g_case_t0) * 1e6) / 1e6;  // microseconds
  }
  if (!g_next_reproducer.empty()) rec.reproducer = g_next_reproducer;
  rec.replay = cp ? replay_command(*cp) : std::string();
  rec.time = now_iso();
  bool restart = false;
  if (outcome == Outcome::fail && !g_waivers.empty()) {
    Json j = to_json(rec);
    if (const Json* w = waivers::apply(j, g_waivers, today(), g_library_version)) {
      outcome = Outcome::waived;
      rec.waiver = j["waiver"].is_string() ? j["waiver"].get<std::string>() : std::string();
      const auto rj = w->find("restart_job");
      restart =
          rj != w->end() && rj->is_boolean() && rj->get<bool>() && !g_settings.journal.empty();
    }
    rec.outcome = outcome_name(outcome);
    rec.message = message = j["message"].get<std::string>();
  }
  // Recorded before the other ranks go on: a rank in the next case means this
  // one is in the journal (what the runner relies on after a crash).
  append_journal(to_line(rec));
  if (restart) std::ofstream(g_settings.journal + kRestartSuffix) << g_seq << "\n";
  for (int r = 1; r < g_size; ++r) {
    int o = static_cast<int>(outcome) | (restart ? kRestartFlag : 0);
    MPI_Send(&o, 1, MPI_INT, r, kTagOutcome, g_comm);
  }
  if (restart) end_job_for_restart();
  g_next_reproducer.clear();
  g_next_dimensions = Json();
  if (outcome == Outcome::fail)
    ADD_FAILURE() << "[" << g_clause << ", " << level_name(g_level) << "] "
                  << (cp ? cp->describe() : subject) << "\n  " << message
                  << (cp ? "\n  replay: " + replay_command(*cp) : std::string());
  return outcome;
}
}  // namespace

}  // namespace ordo::harness

#include "harness.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

namespace ordo::harness {
namespace {

Settings g_settings;
MPI_Comm g_comm = MPI_COMM_NULL;
int g_rank = 0, g_size = 1;
std::string g_clause = "unset";
Level g_level = Level::MUST;
int g_case_index = 0;
std::string g_test;

constexpr int kTagVerdict = 31001;
constexpr int kTagOutcome = 31002;

std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (ch < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", ch);
          o += b;
        } else {
          o += static_cast<char>(ch);
        }
    }
  }
  return o;
}

std::string now_iso() {
  char b[32];
  std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

void append_journal(const std::string& line) {
  if (g_settings.journal.empty()) return;
  std::ofstream f(g_settings.journal, std::ios::app);
  f << line << '\n';
  f.flush();
  if (!f) {
    std::fprintf(stderr, "ordo: cannot write the journal %s\n", g_settings.journal.c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

}  // namespace

const char* level_name(Level l) {
  switch (l) {
    case Level::MUST: return "MUST";
    case Level::SHOULD: return "SHOULD";
    case Level::DETECT: return "DETECT";
    case Level::INFO: return "INFO";
  }
  return "?";
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::pass: return "pass";
    case Outcome::fail: return "fail";
    case Outcome::crash: return "crash";
    case Outcome::timeout: return "timeout";
    case Outcome::skip: return "skip";
    case Outcome::waived: return "waived";
  }
  return "?";
}

void init(int* argc, char** argv) {
  MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
  MPI_Comm_rank(g_comm, &g_rank);
  MPI_Comm_size(g_comm, &g_size);
  int out = 1;
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
    } else if (const char* v4 = val("--ordo-seed=")) {
      g_settings.seed = std::strtoull(v4, nullptr, 10);
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  if (g_rank == 0 && !g_settings.journal.empty()) {
    const std::string dir = g_settings.journal.substr(0, g_settings.journal.find_last_of('/'));
    if (dir != g_settings.journal) {
      std::string cmd = "mkdir -p '" + dir + "'";
      if (std::system(cmd.c_str()) != 0) {}
    }
    if (g_settings.fresh_journal) std::ofstream(g_settings.journal, std::ios::trunc);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

void finalize() {
  if (g_comm != MPI_COMM_NULL) MPI_Comm_free(&g_comm);
}

const Settings& settings() { return g_settings; }
int world_rank() { return g_rank; }
int world_size() { return g_size; }
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

std::string replay_command(const ref::Case& c) {
  std::string j = c.to_json();
  return "./ordo replay --vendor " + (g_settings.vendor.empty() ? std::string("mpich") : g_settings.vendor) +
         " --ranks " + std::to_string(g_size) + " --case '" + j + "'";
}

Outcome record(const ref::Case& c, const LocalVerdict& mine, double seconds, int comm_size) {
  using S = LocalVerdict::Status;
  const int index = g_case_index++;
  Outcome outcome = Outcome::pass;
  if (g_rank != 0) {
    std::string msg = std::to_string(static_cast<int>(mine.status)) + "|" + mine.message;
    MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kTagVerdict, g_comm);
    int o = 0;
    MPI_Recv(&o, 1, MPI_INT, 0, kTagOutcome, g_comm, MPI_STATUS_IGNORE);
    outcome = static_cast<Outcome>(o);
    if (outcome == Outcome::fail) ADD_FAILURE() << "see rank 0";
    return outcome;
  }
  std::vector<LocalVerdict> all(g_size);
  all[0] = mine;
  for (int r = 1; r < g_size; ++r) {
    MPI_Status st;
    MPI_Probe(r, kTagVerdict, g_comm, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string buf(static_cast<std::size_t>(n), '\0');
    MPI_Recv(buf.data(), n, MPI_CHAR, r, kTagVerdict, g_comm, MPI_STATUS_IGNORE);
    const auto bar = buf.find('|');
    all[r].status = static_cast<S>(std::atoi(buf.substr(0, bar).c_str()));
    all[r].message = buf.substr(bar + 1);
  }
  bool any_fail = false, any_pass = false, any_skip = false;
  std::string message;
  std::vector<int> failing;
  for (int r = 0; r < g_size; ++r) {
    switch (all[r].status) {
      case S::fail:
        any_fail = true;
        failing.push_back(r);
        if (failing.size() <= 3) message += (message.empty() ? "" : " | ") + std::string("on rank ") + std::to_string(r) + ": " + all[r].message;
        break;
      case S::pass: any_pass = true; break;
      case S::skip:
        any_skip = true;
        if (message.empty()) message = all[r].message;
        break;
      case S::absent: break;
    }
  }
  if (failing.size() > 3) message += " | and " + std::to_string(failing.size() - 3) + " more ranks";
  outcome = any_fail ? Outcome::fail : (any_pass || !any_skip ? Outcome::pass : Outcome::skip);
  for (int r = 1; r < g_size; ++r) {
    int o = static_cast<int>(outcome);
    MPI_Send(&o, 1, MPI_INT, r, kTagOutcome, g_comm);
  }
  std::ostringstream j;
  j << "{\"schema\":\"ordo.check/1\",\"id\":\"" << json_escape(g_test) << "#" << index
    << "\",\"test\":\"" << json_escape(g_test) << "\",\"clause\":\"" << json_escape(g_clause)
    << "\",\"level\":\"" << level_name(g_level) << "\",\"routine\":\""
    << ref::mpi_routine_name(c.routine, c.mode) << "\",\"case\":" << c.to_json()
    << ",\"ranks\":" << g_size << ",\"comm_size\":" << comm_size << ",\"vendor\":\""
    << json_escape(g_settings.vendor) << "\",\"variant\":\"" << json_escape(g_settings.variant)
    << "\",\"outcome\":\"" << outcome_name(outcome) << "\",\"message\":\"" << json_escape(message)
    << "\",\"failing_ranks\":[";
  for (std::size_t i = 0; i < failing.size(); ++i) j << (i ? "," : "") << failing[i];
  j << "],\"duration_s\":" << seconds << ",\"reproducer\":null,\"replay\":\""
    << json_escape(replay_command(c)) << "\",\"time\":\"" << now_iso() << "\"}";
  append_journal(j.str());
  if (outcome == Outcome::fail)
    ADD_FAILURE() << "[" << g_clause << ", " << level_name(g_level) << "] " << c.describe()
                  << "\n  " << message << "\n  replay: " << replay_command(c);
  return outcome;
}

}  // namespace ordo::harness

// The job protocol's files (job_protocol.h) other than the journal and the
// in-flight note: a standby launch's wait for its go, each rank's
// environment, the job's end (.done, each rank's .finalized) and the end of a
// job for a restart.
#include "job_protocol.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "harness_state.h"

namespace ordo::harness {

bool await_go() {
  HarnessState& s = state();
  Settings& settings = s.job.settings;
  if (settings.standby.empty()) return true;
  // Ready: the runner tells only a ready standby to go (a quit it may say at
  // any time; it is read here once the start-up is done).
  if (s.job.rank == 0) std::ofstream(settings.standby + ".ready") << "ready\n";
  long long skip = -1;
  while (true) {
    std::ifstream f(settings.standby);
    std::string word;
    if (f >> word) {
      if (word == "quit") return false;
      if (word == "skip" && (f >> skip) && skip >= 0) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  settings.skip = skip;
  if (!settings.case_stats.empty()) {
    std::ifstream f(settings.case_stats);
    s.case_stats = CaseStats();
    if (f) s.case_stats.load(Json::parse(f, nullptr, false));
  }
  return true;
}

// The variables the runner names (those the adapter or the user set, and the
// list-valued ones), as the launcher handed them over; null: not set. Only
// the named variables, never the whole environment.
void write_rank_env(const std::string& journal, int rank, const std::vector<std::string>& names) {
  Json env = Json::object();
  for (const std::string& name : names) {
    if (name.empty()) continue;
    const char* value = std::getenv(name.c_str());
    env[name] = value ? Json(std::string(value)) : Json(nullptr);
  }
  const std::string path = journal + kEnvSuffix + std::to_string(rank);
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

void mark_done(const std::string& journal, int rc, int size) {
  std::ofstream(journal + kDoneSuffix) << rc << "\n" << kFinalizedPromise << " " << size << "\n";
}

void mark_finalized(const std::string& journal, int rank) {
  const std::string path = journal + kFinalizedSuffix + std::to_string(rank);
  std::ofstream f(path, std::ios::trunc);
  f << "returned\n";
  f.close();
  if (!f) {
    std::fprintf(stderr, "ordo: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    std::fflush(nullptr);
    std::exit(3);
  }
}

void mark_restart(const std::string& journal, long long seq) {
  std::ofstream(journal + kRestartSuffix) << seq << "\n";
}

// A waiver with "restart_job": true names a library fault that corrupts the
// process's memory (a heap overrun that glibc notices cases later): after
// such a case every rank ends the job, and the runner starts it again after
// that case (rank 0 wrote <journal>.restart with its seq), so that the next
// cases run in a clean process and a later crash is not charged to them.
void end_job_for_restart() {
  std::fflush(nullptr);
  std::_Exit(kRestartExitCode);
}

}  // namespace ordo::harness

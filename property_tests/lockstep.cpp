// The lockstep of DESIGN.md: after MPI_Init, rank 0 decides RC_PARAMS (the
// user's seed= / reproduce=, else --ordo-seed=N, else a fresh seed) and sends
// it to every rank over the harness communicator; every rank sets it before
// RapidCheck reads its configuration (once, at its first property) and
// prints it.
#include "lockstep.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "check_main.h"
#include "harness.h"

namespace ordo::props {

std::string g_reproducer_dir;
std::string g_rc_params;
PropertyStats g_stats;

int start_lockstep(int argc, char** argv) {
  std::string seed_flag, case_timeout = "20", cases_flag;
  static std::vector<char*> args;  // GoogleTest and the harness keep pointers into these
  static std::vector<std::string> storage;
  storage.reserve(4);
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--ordo-reproducers=", 0) == 0) {
      g_reproducer_dir = a.substr(19);
      continue;
    }
    if (a.rfind("--ordo-property-case-timeout=", 0) == 0) {
      case_timeout = a.substr(29);
      continue;
    }
    if (a.rfind("--ordo-property-cases=", 0) == 0) {
      cases_flag = a.substr(22);
      continue;
    }
    if (a.rfind("--ordo-seed=", 0) == 0) seed_flag = a.substr(12);
    args.push_back(argv[i]);
  }
  // A small per-case limit: a case that hangs ends the job (the runner
  // records it as a timeout and resumes after it) instead of stalling shrinking.
  storage.push_back("--ordo-case-timeout=" + case_timeout);
  args.push_back(storage.back().data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  ordo::harness::init(&n, args.data());
  const int rank = ordo::harness::world_rank(), size = ordo::harness::world_size();
  if (g_reproducer_dir.empty()) {
    const std::string& j = ordo::harness::settings().journal;
    g_reproducer_dir = j.find('/') == std::string::npos ? "." : j.substr(0, j.find_last_of('/'));
  }

  // Rank 0 decides RC_PARAMS; point-to-point on the harness communicator.
  std::string params;
  if (rank == 0) {
    const char* user = std::getenv("RC_PARAMS");
    params = user ? user : "";
    if (params.find("seed=") == std::string::npos &&
        params.find("reproduce=") == std::string::npos) {
      unsigned long long seed = 0;
      if (!seed_flag.empty()) {
        seed = std::strtoull(seed_flag.c_str(), nullptr, 10);
      } else {
        std::random_device rd;
        seed = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
      }
      params += (params.empty() ? "" : " ") + std::string("seed=") + std::to_string(seed);
    }
    if (!cases_flag.empty()) {  // the runner's budget wins over a max_success of the environment
      params = std::regex_replace(params, std::regex("\\s*max_success=\\S*"), "");
      params += " max_success=" + std::to_string(std::strtoll(cases_flag.c_str(), nullptr, 10));
    }
    for (int r = 1; r < size; ++r)
      MPI_Send(params.data(), static_cast<int>(params.size()), MPI_CHAR, r, 31101,
               ordo::harness::harness_comm());
  } else {
    MPI_Status st;
    MPI_Probe(0, 31101, ordo::harness::harness_comm(), &st);
    int len = 0;
    MPI_Get_count(&st, MPI_CHAR, &len);
    params.resize(static_cast<std::size_t>(len));
    MPI_Recv(params.data(), len, MPI_CHAR, 0, 31101, ordo::harness::harness_comm(),
             MPI_STATUS_IGNORE);
  }
  setenv("RC_PARAMS", params.c_str(), 1);
  g_rc_params = params;
  std::printf("ordo properties: world rank %d of %d: RC_PARAMS=\"%s\"\n", rank, size,
              params.c_str());
  std::fflush(stdout);

  ::testing::InitGoogleTest(&n, args.data());
  ordo::harness::start_checks();
  return n;
}

}  // namespace ordo::props

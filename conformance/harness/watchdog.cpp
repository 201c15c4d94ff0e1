// The watchdog (watchdog.h): a case still in flight after its time limit
// ends the job (exit code 124); the runner records it as a timeout and
// resumes after it.
#include "watchdog.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "job_protocol.h"

namespace ordo::harness {

void Watchdog::start(const std::string& journal, int rank) {
  // It looks every 10 ms: a case that hangs costs its limit, not up to a tenth
  // of a second more per relaunch.
  std::thread([this, journal, rank] {
    const auto t0 = std::chrono::steady_clock::now();
    const double w0 = MPI_Wtime();
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const double deadline = deadline_.load();
      const double now =
          w0 + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (deadline > 0 && now > deadline) {
        std::fprintf(stderr, "ordo: world rank %d: case %lld exceeded %.2f s; ending the job\n",
                     rank, seq_.load(), limit_s_.load());
        if (!journal.empty())
          std::ofstream(journal + kTimeoutSuffix) << seq_.load() << " " << rank << "\n";
        std::fflush(nullptr);
        std::_Exit(124);
      }
    }
  }).detach();
}

void Watchdog::arm(long long seq, double t0, double seconds) {
  seq_.store(seq);
  set_limit(t0, seconds);
}

void Watchdog::set_limit(double t0, double seconds) {
  limit_s_.store(seconds);
  deadline_.store(t0 + seconds);
}

}  // namespace ordo::harness

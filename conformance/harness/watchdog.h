// The watchdog: a thread that ends the job (exit code 124, after writing
// <journal>.timeout, job_protocol.h) when the case in flight outlives its
// limit. The harness arms it when a case begins, moves its deadline when the
// case's limit changes, and disarms it once the case is recorded.
#pragma once

#include <atomic>
#include <string>

namespace ordo::harness {

class Watchdog {
 public:
  // Starts the thread (once, in init). journal: --ordo-journal ("" none);
  // rank: this process's world rank, named in its line and in the marker.
  void start(const std::string& journal, int rank);
  // The case `seq`, begun at t0 (MPI_Wtime), must end within `seconds`.
  void arm(long long seq, double t0, double seconds);
  // The case in flight (begun at t0) now has `seconds` from t0.
  void set_limit(double t0, double seconds);
  void disarm() { deadline_.store(0); }

 private:
  std::atomic<double> deadline_{0};  // MPI_Wtime() by which the case in flight must end; 0: none
  std::atomic<double> limit_s_{0};   // that case's limit (for the watchdog's line)
  std::atomic<long long> seq_{0};    // that case's seq (for its line and the marker)
};

}  // namespace ordo::harness

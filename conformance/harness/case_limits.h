// The watchdog's limit for one case, derived from what cases of the same kind
// took on this library in this run (`ordo run`: issue #17, a library that
// hangs in one family of cases must not cost the full --case-timeout per
// case). Plain C++ over JSON, no MPI: its test runs without mpiexec.
//
// A case's kind is the MPI routine its record names (MPI_Reduce,
// MPI_Ireduce, MPI_Reduce_init, ...), or the check's subject for a case-less
// check, at the job's rank count. The rules, first that applies:
//   hung     cases of this kind already timed out at this rank count (in
//            this run and variant): max(hung floor, 3 x the slowest case of
//            the kind that finished)
//   kind     cases of this kind finished at this rank count:
//            max(floor, 10 x the slowest of them)
//   any      no case of this kind finished yet, others did:
//            max(floor, 10 x the slowest of those)
//   default  no case finished yet at this rank count: the --case-timeout
// Never longer than the --case-timeout (the user's bound).
#pragma once

#include <map>
#include <string>

#include "record.h"

namespace ordo::harness {

struct KindStats {
  double slowest_s = 0;      // the slowest case of the kind that finished (its whole wall time)
  long long finished = 0;    // cases of the kind that finished (any outcome the harness recorded)
  long long hung = 0;        // cases of the kind that timed out
  std::string slowest_kind;  // for the "any" statistics: the kind of the slowest case
};

struct CaseLimit {
  double seconds = 0;
  std::string rule;  // hung | kind | any | default
  std::string why;   // one sentence with the figures
  Json to_json() const { return Json{{"seconds", seconds}, {"rule", rule}, {"why", why}}; }
};

struct LimitSettings {
  double case_timeout = 60;  // --ordo-case-timeout: the upper bound
  double floor_s = 10;       // --ordo-case-floor
  double hung_floor_s = 2;   // --ordo-hung-case-floor
  static constexpr double kFactor = 10;
  static constexpr double kHungFactor = 3;
};

// The limit of a case of `kind` at `ranks` processes, given the statistics
// of its kind and of every kind at this rank count.
CaseLimit case_limit(const std::string& kind, int ranks, const KindStats& of_kind,
                     const KindStats& any, const LimitSettings& settings);

// The statistics the runner hands a job (--ordo-case-stats=FILE, written by
// tools/runner/case_limits.py) joined with what this process saw itself.
class CaseStats {
 public:
  // {"kinds": {"MPI_Reduce": {"slowest_s": .., "finished": .., "hung": ..}, ...}}
  void load(const Json& doc);
  void finished(const std::string& kind, double seconds);
  const KindStats& of(const std::string& kind) const;
  const KindStats& any() const { return any_; }

 private:
  std::map<std::string, KindStats> kinds_;
  KindStats any_;
};

}  // namespace ordo::harness

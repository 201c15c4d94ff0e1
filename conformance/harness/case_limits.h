// The watchdog's limit for one case, derived from what cases of the same kind
// took on this library in this run (`ordo run`: issue #17, a library that
// hangs in one family of cases must not cost the full --case-timeout per
// case). Plain C++ over JSON, no MPI: its test runs without mpiexec.
//
// A case's kind is the MPI routine its record names (MPI_Reduce,
// MPI_Ireduce, MPI_Reduce_init, ...), with "with a user op" when its op is
// a user function and "on a derived datatype" when its datatype is derived
// (case_kind; a library calls a user function and packs a derived datatype
// per pipeline chunk, so such a case can take tens of times longer per byte
// than a predefined op on a basic type: MPICH 4.0.2's forced tsp_tree
// Reduce_init with 256-byte chunks took 12 s for a 1 MiB witness.multiset
// case alone, 0.57 s for 512 KiB of MPI_SUM on MPI_DOUBLE), or the check's
// subject for a case-less check, at the job's rank count. The rules, first that applies:
//   hung     cases of this kind already timed out at this rank count (in
//            this run and variant): max(hung floor, 3 x the slowest case of
//            the kind that finished x S)
//   kind     cases of this kind finished at this rank count:
//            max(floor, 10 x the slowest of them x S)
//   any      no case of this kind finished yet, others did:
//            max(floor, 10 x the slowest of those x S)
//   fewer    no case finished yet at this rank count, cases did at m fewer
//            ranks (the most that did): max(floor, 10 x the slowest of those
//            x S x ranks / m); the first case of a rank count that hangs
//            does not cost the whole --case-timeout
//   default  no case finished yet in this run: the --case-timeout
// (and probe_limit: rules probe and again, for a case whose hang key or call
// key keeps hanging or whose key's last case hung)
// S scales for a case larger than the one the limit derives from: its work
// (case_work: the bytes a process sends, at least kMinWork) over that slowest
// case's work, or 1 when it is not larger; under rules kind, any and fewer
// the square of that ratio (a library's time may grow as the square of the
// data, see kFarWork), under rule hung the ratio itself. Under rules any and
// fewer, the work of a case with a user op or a derived datatype that case
// had not counts kUnlikeFactor (20) times. A limit scaled from less than
// 1/kFarWork (1/16) of the work is at least 3 x the floor. A kind spans count 0 to 65536 x
// three calls, and its first heavy case must not be judged by a limit learnt
// from light ones (a 10 s limit after a 0.5 s case timed out a case that
// takes 9-13 s under load, and a timeout charged to the library that way is a
// false verdict).
// Never longer than the --case-timeout (the user's bound).
#pragma once

#include <map>
#include <string>

#include "record.h"

namespace ordo::harness {

struct KindStats {
  double slowest_s = 0;      // the slowest case of the kind that finished (its whole wall time)
  double slowest_work = 0;   // that case's work (case_work; 0: not known, as kMinWork)
  long long finished = 0;    // cases of the kind that finished (any outcome the harness recorded)
  long long hung = 0;        // cases of the kind that timed out
  double hung_min_work = 0;  // the least work of those (0: not known, as every case's)
  std::string slowest_kind;  // for the "any" statistics: the kind of the slowest case
};

struct CaseLimit {
  double seconds = 0;
  std::string rule;  // hung | kind | any | fewer | default
  std::string why;   // one sentence with the figures
  double work = 0;   // the case's work (case_work), which later limits scale by
  Json to_json() const {
    Json j{{"seconds", seconds}, {"rule", rule}, {"why", why}};
    if (work > 0) j["work"] = work;
    return j;
  }
};

struct LimitSettings {
  double case_timeout = 60;  // --ordo-case-timeout: the upper bound
  double floor_s = 10;       // --ordo-case-floor
  double hung_floor_s = 1;   // --ordo-hung-case-floor
  static constexpr double kFactor = 10;
  static constexpr double kHungFactor = 3;
  // Rule "reported": the floor of the others' wait once a process's call
  // returned the error. What they do then changes no verdict (the case is
  // reported), only which ranks the record names as not returned; 3 x the
  // kind's slowest case still covers a machine that is slow to schedule them.
  static constexpr double kReportedFloor = 0.5;
  // Below this many bytes a case's time is the call's fixed cost, not its data.
  static constexpr double kMinWork = 4096;
  // Rules any and fewer: a case with a user op or a derived datatype that the
  // case its limit derives from had not counts its work this many times (a
  // library calls the function and packs the type per pipeline chunk: 10.7 x
  // per byte measured, 12.2 s for 1 MiB of witness.multiset on
  // contiguous(4,MPI_INT) against 0.57 s for 512 KiB of MPI_SUM on
  // MPI_DOUBLE, MPICH 4.0.2's forced tsp_tree Reduce_init with 256-byte
  // chunks at 8 ranks; twice that). A light case stays at the floor.
  static constexpr double kUnlikeFactor = 20;
  // A limit scaled over more than kFarWork times the work of the case it
  // derives from is at least kFarFloorFactor x the floor. A library's time
  // need not grow in proportion to the data: MPICH 4.0.2's forced tsp_tree
  // pipelines with 256-byte chunks at 8 ranks took 5.5 ms for 16 KB of
  // witness.multiset and 5-12 s for 1 MiB (64 x the work, 900-2200 x the
  // time), 39 ms for 64 KiB of Allreduce_init and 12 s for 1 MiB (16 x the
  // work, 300 x the time): about the square of the chunk count. Hence the
  // square of the work's ratio under rules kind, any and fewer.
  static constexpr double kFarWork = 16;
  static constexpr double kFarFloorFactor = 3;
};

// A case's work for the limits: the bytes of data one process sends in it
// (count x the datatype's size; x the group size for the scattering routines,
// whose count is one block; x 3 for three calls outstanding at once), at
// least LimitSettings::kMinWork. An estimate for scaling, not a cost model.
double case_work(long long count, double type_size, bool scattering, int group_size, int calls);

// The kind of a case of `routine` (the record's routine name) with `op` and
// `datatype` (the case's own texts): predefined ops and basic datatypes are
// the ones named MPI_*. tools/runner/case_limits.py kind_of gives the same.
std::string case_kind(const std::string& routine, const std::string& op,
                      const std::string& datatype);

// The limit of a case of `kind` at `ranks` processes, given the statistics
// of its kind and of every kind at this rank count.
// `fewer`: the slowest case that finished at `fewer_ranks` (< ranks; 0: none).
CaseLimit case_limit(const std::string& kind, int ranks, const KindStats& of_kind,
                     const KindStats& any, const LimitSettings& settings, double work = 0,
                     const KindStats& fewer = {}, int fewer_ranks = 0);

// A DETECT case in which this process's call returned the error `elapsed`
// seconds after the case began: the other processes either return soon (the
// library passes the error on, or their own arguments were valid) or wait in
// the collective for processes that will not come (after an error the
// library need not complete the others' calls). They get max(0.5 s
// (kReportedFloor), 3 x the slowest case of the kind that finished x S) from
// that moment, not the rest of `current` (rule "reported"); `current` when it
// ends sooner. The verdict does not
// change with it: the case is reported whatever the others do; the record
// names the ranks that had not returned by then.
CaseLimit reported_limit(const CaseLimit& current, double elapsed, const std::string& kind,
                         int ranks, const KindStats& of_kind);

// Cases that keep hanging (issue #17: a run against a library that hangs in
// a family of cases within twice its clean time). Every hang costs a limit
// and a relaunch of the job: a family of thousands of hanging cases cannot be
// run one by one in that time. So the cases of one hang key (the record's
// routine, whichever language binding, on an intra- or intercommunicator of
// one size, count 0 and erroneous calls apart, under one variant, at any rank
// count: a library
// chooses its algorithm by these, not by the world's size) that hung kHoldBackAfter times one after
// the other, none of the key finishing between, are held back: not run, each
// recorded as a skip that names the hangs (CaseStats::hold_back). One further
// case is still run after 1, 4, 16, 64, ... held back: if it finishes, the key runs again as
// before; if it hangs too, it is recorded as `timeout` like every case that
// hung. `ordo run --run-hung-kinds` runs every case (the runner then hands on
// no streaks).
// erroneous: a DETECT check's case (an erroneous call takes the library's
// argument checks, not its algorithm).
std::string hang_key(const std::string& routine, const std::string& comm, int comm_size,
                     long long count, bool erroneous = false);

// A case's call key (issue #38): its routine in any form (blocking,
// nonblocking, persistent, large-count, any language binding: MPI_Reduce for
// MPI_Ireduce_c) with its count and, for MPI_Reduce, its root, on any
// communicator, erroneous calls apart, under one variant, at any rank count
// ("MPI_Reduce in any form with count 1 and root 0"). A library that hangs at
// one combination of count and root hangs there on every communicator, while
// the routine's other cases on those communicators finish between its hangs
// and end every hang key's streak: such a family was run case by case, each
// hang paying a limit and a relaunch, the first of each kind at each rank
// count the 10 s floor (the default mutant run at ranks 2-4 over MPICH 4.0.2,
// issue #38: 133 hangs at 2 ranks alone, 207 s of limits). A case has both
// keys, each with its own streak (a case of the key that finishes ends it);
// either holds the case back (CaseStats::hold_back) or shortens its limit
// (probe_limit). `routine`: the routine's blocking form (its MPI name).
std::string call_key(const std::string& routine, long long count, int root, bool rooted,
                     bool erroneous = false);

struct HangStreak {
  long long hung = 0;     // cases of the key that hung one after the other, none finished between
  long long skipped = 0;  // cases of the key held back since the last one that hung
  std::string last;       // the last one that hung: its id and rank count ("R.x#3 at 4 ranks")
};

constexpr long long kHoldBackAfter = 2;

// The number of cases held back before the next one of the key runs, after
// `hung` hangs in a row: 0 below kHoldBackAfter, then 1, 4, 16, ... (at most 2^40).
long long hold_back_count(long long hung);

// A case of `key` that still runs while the key keeps hanging (its last
// streak.hung >= kHoldBackAfter cases hung one after the other, none finished
// between: the 1 in 1, 4, 16, ... that CaseStats::hold_back lets run to see
// whether the key still hangs), or after the last case of the key hung
// (streak.hung == 1: rule "again"; issue #38: the second case of a call key
// that hung, or of a hang key at another rank count, had the 10 s of a first
// case of its kind there). Its limit is that of a further case of a kind
// that hung (rule "probe" or "again", like rule "hung"): max(hung floor, 3 x the slowest
// case that finished x S, S the work's ratio itself), from the slowest case of
// its kind at this rank count, else of any kind (a user op or derived
// datatype that case had not counting kUnlikeFactor times), else at the most
// ranks below (x ranks / m); `current` (the limit begin_case gave) when that
// is not longer, or when no case finished yet. Before, a probe of a kind that
// had not hung itself (MPI_Reduce with a user op on a derived datatype, after
// 4 hangs of MPI_Reduce on communicators of 4 processes) had the 10-30 s of a
// first case of its kind: 50 of the 127 s that the hangs of the default
// mutant run at ranks 2-5 cost (0c43c21).
CaseLimit probe_limit(const CaseLimit& current, const std::string& key, const HangStreak& streak,
                      const std::string& kind, int ranks, const KindStats& of_kind,
                      const KindStats& any, const LimitSettings& settings,
                      const KindStats& fewer = {}, int fewer_ranks = 0);

// The statistics the runner hands a job (--ordo-case-stats=FILE, written by
// tools/runner/case_limits.py) joined with what this process saw itself.
class CaseStats {
 public:
  // {"kinds": {"MPI_Reduce": {"slowest_s": .., "slowest_work": .., "finished": .., "hung": ..},
  // ...}, "hang_streaks": {"MPI_Reduce on world": {"hung": .., "skipped": .., "last": ..}, ...}}
  void load(const Json& doc);
  void finished(const std::string& kind, double seconds, double work = 0);
  const KindStats& of(const std::string& kind) const;
  const KindStats& any() const { return any_; }
  // The slowest case that finished at the most ranks below this job's (the
  // runner's "fewer"), and that rank count (0: none).
  const KindStats& fewer() const { return fewer_; }
  int fewer_ranks() const { return fewer_ranks_; }

  // A case of `key`: "" to run it, else it is held back (counted as such)
  // and this is its skip's message.
  std::string hold_back(const std::string& key);
  // A case of `key` ran to its verdict (any outcome but a skip): the key's
  // streak of hangs ends.
  void ran(const std::string& key) { streaks_.erase(key); }
  const HangStreak* streak(const std::string& key) const;

 private:
  std::map<std::string, KindStats> kinds_;
  std::map<std::string, HangStreak> streaks_;
  KindStats any_;
  KindStats fewer_;
  int fewer_ranks_ = 0;
};

// How the message of a held-back case begins (tools/runner/case_limits.py reads it).
constexpr const char* kHeldBack = "not run (it keeps hanging)";

}  // namespace ordo::harness

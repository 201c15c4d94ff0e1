// The MPI test harness, what a check sees of it: one GoogleTest main for
// every rank, the check context (clause and level), verdicts combined on
// rank 0 over the harness's own communicator with point-to-point only (never
// the collective under test, harness_comm.h), and the results journal (one
// JSON line per check, record.h). Its parts: harness.cpp (start, settings),
// case_flight.cpp (begin_case and the in-flight note), case_record.cpp
// (record), journal_files.cpp, job_protocol.cpp, watchdog.cpp, run_cache.cpp;
// what they share, harness_state.h.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness_comm.h"
#include "ordo/reference/case.h"
#include "ordo/reference/crossing.h"

namespace ordo::harness {

enum class Level { MUST, SHOULD, DETECT, INFO };
enum class Outcome { pass, fail, crash, timeout, skip, waived };

const char* level_name(Level l);
const char* outcome_name(Outcome o);

struct Settings {
  std::string journal;  // empty: no journal
  bool fresh_journal = false;
  std::string vendor;
  std::string variant = "default";
  unsigned long long seed = 1;
  std::string adapter;        // --ordo-adapter=FILE: the vendor adapter (thresholds)
  std::string replay_case;    // --ordo-case=JSON (the replay executable)
  std::string replay_clause;  // --ordo-clause=SLUG
  std::string replay_level;   // --ordo-level=MUST|SHOULD|DETECT|INFO (the replay executable)
  long long skip = 0;         // --ordo-skip=N: do not run the first N cases (resuming a job)
  // --ordo-standby=FILE: a launch started ahead of need (await_go).
  std::string standby;
  std::string survey;  // --ordo-survey=FILE: list each case's routine, mode and comm kind; run none
  double case_timeout = 120;  // --ordo-case-timeout=S: the watchdog's limit per case
  // --ordo-case-stats=FILE: derive each case's limit from what cases of its
  // kind took (case_limits.h): the runner's statistics of this run in FILE,
  // joined with this process's own. Empty: every case gets case_timeout.
  std::string case_stats;
  double case_floor = 10;      // --ordo-case-floor=S: the derived limit's floor
  double hung_case_floor = 1;  // --ordo-hung-case-floor=S: the floor once a kind hung
  // --ordo-select=ROUTINE:MODE+MODE:COMM;... : run only the cases one of
  // these targets matches (an algorithm variant of one routine); '*' matches
  // anything, COMM is intra, inter or *. Empty: every case.
  struct Target {
    std::string routine, comm;
    std::vector<std::string> modes;
  };
  std::vector<Target> select;
  // --ordo-avoid-known-fatal: a case that a crash or timeout waiver names is
  // recorded as skipped, not run (the throughput benchmark: a job that dies
  // ends a RapidCheck run). `ordo run` never sets it.
  bool avoid_known_fatal = false;
  // --ordo-nodes=N --ordo-placement=NAME: the virtual nodes the runner asked
  // the library to see (`ordo run --nodes`); 0 / empty: not asked. Every
  // record then carries them and the node map this job's library showed.
  int nodes = 0;
  std::string placement;
  std::string node_map;  // the JSON array of node_map_json(), read at init
  // --ordo-launcher=NAME|FILE: the launcher template the runner started this
  // job through (`ordo run --launcher`); the replay command carries it.
  std::string launcher;
  // --ordo-cache-dir=DIR: where a job keeps what it computed that later jobs
  // of the same run may read instead of computing it again (the crossing
  // check's covering array, the thresholds, the digests of expected results:
  // expect_cache.h); each entry names everything it was computed from, the
  // build's identity (build_id.h) included. Empty: nothing is kept.
  std::string cache_dir;
  // --ordo-no-expect-cache: every case planned in full (expect_cache.h).
  bool no_expect_cache = false;
  // --ordo-families=a,b,...: in ordo_sweep_checks (every family's checks in
  // one executable), run only the tests of these families (the folder of
  // conformance/ that holds a test's source). Empty: every test.
  std::vector<std::string> families;
  // --ordo-element-bytes=N: the element size of the large-element datatype
  // class (the crossing's and the property tests'), a positive multiple of
  // 16: larger than the library's pipeline chunk or segment, which the
  // runner derives from the variant's settings (tools/runner/variants.py,
  // element_bytes). The cases carry the datatype it makes.
  std::size_t element_bytes = ref::crossing::kDefaultElementBytes;
};

// Whether --ordo-select lets this case run (a case-less check runs only
// when nothing is selected).
bool selected(const ref::Case* c);

// Whether this job records case-less checks at all: not in a variant job
// (--ordo-select) nor in the runner's survey. A case-less check whose body
// costs time (the library's tools interface, say) returns at once when not:
// its record would not be kept. Every rank answers alike.
bool caseless_checks_recorded();

// Called by the main; reads and removes --ordo-* arguments:
//   --ordo-journal=PATH     append one JSON line per check (rank 0)
//   --ordo-fresh-journal    truncate the journal first
//   --ordo-vendor=NAME --ordo-variant=NAME   recorded in every line
//   --ordo-waivers=PATH     known failures of this library (vendors/<name>/waivers.json)
//   --ordo-adapter=PATH     the vendor adapter (message-size thresholds)
//   --ordo-seed=N           base seed of the cases' inputs
//   --ordo-element-bytes=N  the large element's size (a positive multiple of 16)
//   --ordo-case=JSON --ordo-clause=SLUG   the case the replay executable runs
//   --ordo-skip=N           resume: skip the first N cases of this executable
//   --ordo-case-timeout=S   the watchdog's limit per case (default 120 s)
//   --ordo-case-stats=FILE  derived limits per kind of case (case_limits.h), with
//   --ordo-case-floor=S --ordo-hung-case-floor=S
//   --ordo-select=TARGETS   only the cases of these routine:modes:comm targets
//   --ordo-launcher=NAME    the launcher template of the run (replay commands carry it)
//   --ordo-survey=FILE      run no case; rank 0 writes "routine mode kind" of each to FILE
//   --ordo-avoid-known-fatal  skip the cases a crash / timeout waiver names
//   --ordo-standby=FILE     a standby launch: see await_go
void init(int* argc, char** argv);

// A standby launch (--ordo-standby=FILE; tools/runner/job.py starts one while
// a job that already died once runs again, so that its next resumption does
// not wait for the launcher, MPI_Init and the start-up): after its start-up
// every rank waits here (rank 0 first writes FILE.ready), sleeping between
// looks at FILE and calling no MPI function, until the runner writes it
// whole: "skip N" (go on as if started with --ordo-skip=N; the case
// statistics are read again, the runner has just brought them up to date)
// or "quit" (returns false: the caller ends the process without running a
// test). Without --ordo-standby: true at once.
bool await_go();
void finalize();

const Settings& settings();

// world_rank, world_size, harness_comm, from_rank0, gather_to_rank0: harness_comm.h.

// The run's cache (--ordo-cache-dir): what one job computed that a later job
// of the same run may read instead of computing again. An entry is named
// by `what` and keyed by `inputs` (every value it was computed from) joined
// with this executable's build (its size and modification time) and the
// library's version string: an entry of another build or library is never
// read. Rank 0's calls only; no cache dir: get finds nothing, put keeps nothing.
std::optional<std::string> cache_get(const std::string& what, const std::string& inputs);
void cache_put(const std::string& what, const std::string& inputs, const std::string& body);

// Declares the clause (a slug from spec/clauses.json) and level of the
// running test; every case the test runs is recorded under them.
void declare_check(const char* clause, Level level);
#define ORDO_CLAUSE(slug, level) ::ordo::harness::declare_check(slug, ::ordo::harness::Level::level)

// What one rank saw.
struct LocalVerdict {
  enum class Status { pass, fail, skip, absent };
  LocalVerdict(Status s = Status::pass, std::string m = {}, std::string d = {})
      : status(s), message(std::move(m)), detect(std::move(d)) {}
  Status status = Status::pass;
  std::string message;
  // DETECT checks: "reported" (an error code came back) or "accepted".
  std::string detect;
  // A witness.tracer failure: the explanation in the message as a JSON
  // object (the record's "tracer" items), else empty.
  std::string tracer;
};

// Starts a case: counts it, skips it when resuming past it (returns false:
// neither run nor record it), notes it as in flight and arms the watchdog.
// together: the number of threads whose calls this case's watchdog covers at
// once (the threaded phase of conformance/threads); its limit is that many
// times one case's, for the threads contend for the same cores.
bool begin_case(const ref::Case* c, int together = 1);

// Combines the ranks' verdicts on rank 0, writes the journal record and
// returns the outcome on every rank. On failure every rank adds a gtest
// failure; only rank 0's output is shown, with the rank each message came from.
Outcome record(const ref::Case& c, const LocalVerdict& mine, double seconds, int comm_size);

// The level of the running check (declared by ORDO_CLAUSE).
Level current_level();

// Whether the library provides MPIX_Reduce_locals itself. Without it the
// Reduce_locals cases run ordo's portable implementation
// (ordo_portable_reduce_locals over the library's MPI_Reduce_local), and
// their records say so: routine kPortableReduceLocals, credited_to "ordo".
bool library_has_reduce_locals();
inline constexpr const char* kPortableReduceLocals =
    "ordo_portable_reduce_locals over MPI_Reduce_local";

// A check that is not a call of a reduction (MPI_Op_commutative, ...):
// begins, combines and records it under `subject`.
Outcome record_check(const std::string& subject, const LocalVerdict& mine);

// The next record written points at this reproducer file (its "reproducer"
// field); cleared once written. Used by the property tests.
void set_next_reproducer(const std::string& path);

// The next case recorded carries these dimension values (its "dimensions"
// field: name -> value, ordo::ref::crossing::values_of); cleared once written.
void set_next_dimensions(const std::vector<std::pair<std::string, std::string>>& values);

// With --ordo-avoid-known-fatal: the id of a crash or timeout waiver that
// names this case, on a communicator of any of comm_sizes processes (the
// sizes of the shape's communicators, the same on every process), in the
// running test, else empty.
std::string known_fatal_waiver(const ref::Case& c, const std::vector<int>& comm_sizes);
// The skip's message of a case not run because the waiver `id` names it.
std::string known_fatal_skip(const std::string& id);
// A case of a hang key (case_limits.h) whose cases keep hanging in this run
// and variant: its skip's message, "" to run it (every rank decides alike).
// comm_size: the size of the case's communicator (both groups of an
// intercommunicator). A case that runs while its key keeps hanging (the 1
// in 1, 4, 16, ... that still runs) gets the short limit of rule "probe".
std::string held_back(const ref::Case& c, int comm_size);
// The same for a case that runs at once with others under the watchdog of
// the first (the threads check's phase): it does not become the case in
// flight, and its limit is the first case's.
std::string held_back_together(const ref::Case& c, int comm_size);
// Adds the size of the case's communicator and, under virtual nodes, the node
// map of each of its groups (comm_node_maps) to the in-flight note of the case
// begun (once the communicator is known), so that the runner's record of a
// case that crashed or hung carries them, as waivers' comm_size and
// comm_node_map conditions read. Collective over the job's communicator on
// the first case of a shape under --nodes (every rank runs every case).
// comm_sizes: every size of the shape's communicators where they differ
// (odd-even at an odd world size), so that the record of a case that died
// in the smaller one still meets a waiver of that size. The sizes are
// written before the node maps' first (collective) query of a shape: no rank
// passes it before every rank has noted them.
void note_case_comm(const std::string& shape, int comm_size,
                    const std::vector<int>& comm_sizes = {});
// The size alone, before the case's communicator exists (a drawn shape that
// run_case builds): should the job die while it is built, the record still
// names it. Not collective.
void note_case_comm_size(int comm_size, const std::vector<int>& comm_sizes = {});
// The one-line command that replays a case.
std::string replay_command(const ref::Case& c);

// Fills a record's nodes, placement and node map from the settings (when
// `ordo run --nodes` asked for virtual nodes).
struct Record;
void set_placement(Record& r);

// Where a case's time goes, summed per phase in this process (the property
// throughput benchmark prints it): writing the in-flight note, building or
// renewing the communicator, the reference (parsing and planning the case),
// buffers and datatype set-up, the call under test, checking the result,
// combining the verdicts across ranks (waiting for the slowest rank
// included), writing the journal record, and (property tests) generating
// the case.
enum class Phase { inflight, shape, reference, buffers, call, check, verdict, journal, generation };
constexpr int kPhases = 9;
const char* phase_name(Phase p);
void add_phase_time(Phase p, double seconds);
double phase_seconds(Phase p);
struct PhaseTimer {  // adds the time from construction to destruction to a phase
  explicit PhaseTimer(Phase p) : phase(p), t0(MPI_Wtime()) {}
  ~PhaseTimer() { add_phase_time(phase, MPI_Wtime() - t0); }
  Phase phase;
  double t0;
};

}  // namespace ordo::harness

// The case in flight (harness.h, begin_case to record): beginning a case,
// its time limit (derived, held back, shortened for a probe), its in-flight
// note (an InflightNote, record.h) and what the note learns once the case's
// communicator is known, and the cases --ordo-avoid-known-fatal skips.
#include "case_flight.h"

#include <dlfcn.h>

#include <fstream>
#include <map>

#include "comm_node_maps.h"
#include "comm_zoo.h"
#include "harness_state.h"
#include "node_map.h"
#include "ordo/reference/datatype.h"
#include "waivers.h"

namespace ordo::harness {
namespace {

constexpr double kDetectCaseSeconds = 6.0;  // the watchdog's limit for a DETECT case (begin_case)

bool detect_level() { return state().check.level == Level::DETECT; }

std::string call_key_of(const ref::Case& c) {
  return call_key(std::string(ref::mpi_routine_name(c.routine, ref::Mode::blocking)), c.count,
                  c.root, c.routine == ref::Routine::reduce, detect_level());
}

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
  return case_work(c.count, size, scattering, state().job.size,
                   c.concurrency == "outstanding" ? 3 : 1);
}

LimitSettings limit_settings() {
  const Settings& settings = state().job.settings;
  LimitSettings ls;
  ls.case_timeout = settings.case_timeout;
  ls.floor_s = settings.case_floor;
  ls.hung_floor_s = settings.hung_case_floor;
  return ls;
}

// Whether this case runs at all: counted either way; one skipped on resuming,
// surveyed, or not selected takes with it what was set for it (its
// reproducer, its crossing dimensions): they must not land in the record of
// a later case.
bool runs(const ref::Case* c) {
  HarnessState& s = state();
  const Settings& settings = s.job.settings;
  bool run = s.flight.seq > settings.skip;
  if (run && !settings.survey.empty()) {  // which cases there are, for the runner's variant sweeps
    if (s.job.rank == 0 && c != nullptr) {
      std::ofstream f(settings.survey, std::ios::app);
      f << ref::routine_name(c->routine) << ' ' << ref::mode_name(c->mode) << ' '
        << (c->comm.rfind("inter", 0) == 0 ? "inter" : "intra") << '\n';
    }
    run = false;
  }
  if (run && !selected(c)) run = false;
  if (!run) {
    s.flight.next_reproducer.clear();
    s.flight.next_dimensions = Json();
  }
  return run;
}

// The limit of a case about to begin. An erroneous call (DETECT) that only
// some ranks report can leave the others waiting in the collective: such a
// case gets a shorter limit (its calls move a few elements: an answer takes
// milliseconds, also at 8 processes on 2 cores and under the sanitizers).
CaseLimit limit_of(const ref::Case* c) {
  HarnessState& s = state();
  const Settings& settings = s.job.settings;
  CaseLimit limit;
  if (settings.case_stats.empty()) {
    limit = {settings.case_timeout, "fixed", "the case timeout"};
  } else {
    limit = case_limit(s.flight.kind, s.job.size, s.case_stats.of(s.flight.kind),
                       s.case_stats.any(), limit_settings(), c ? work_of(*c) : 0,
                       s.case_stats.fewer(), s.case_stats.fewer_ranks());
  }
  if (detect_level() && limit.seconds > kDetectCaseSeconds) {
    limit.seconds = kDetectCaseSeconds;
    limit.why += "; a DETECT case: at most 6 s";
  }
  return limit;
}

// What is in flight, for the runner to record if the job dies here.
InflightNote note_of(const ref::Case* c) {
  const HarnessState& s = state();
  InflightNote note;
  note.seq = s.flight.seq;
  note.id = s.check.test + "#" + std::to_string(s.check.case_index - 1);
  note.test = s.check.test;
  note.clause = s.check.clause;
  note.level = level_name(s.check.level);
  note.case_json = c ? Json::parse(c->to_json()) : Json(nullptr);
  note.routine = c ? record_routine(*c) : std::string();
  if (c) note.bytes = case_bytes(*c);
  if (c) note.layout = case_layout(*c);
  if (c) note.credited_to = credited_to(*c);
  note.dimensions = s.flight.next_dimensions;
  if (!s.job.settings.case_stats.empty()) note.case_limit = s.flight.limit.to_json();
  return note;
}

}  // namespace

bool library_has_reduce_locals() {
  static const bool has = dlsym(RTLD_DEFAULT, "MPIX_Reduce_locals") != nullptr;
  return has;
}

std::string record_routine(const ref::Case& c) {
  if (c.routine == ref::Routine::reduce_locals && !library_has_reduce_locals())
    return kPortableReduceLocals;
  return std::string(ref::mpi_routine_name(c.routine, c.mode));
}

std::optional<long long> case_bytes(const ref::Case& c) {
  try {
    return static_cast<long long>(ref::Datatype::parse(c.datatype).size()) * c.count;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> case_layout(const ref::Case& c) {
  try {
    return std::string(ref::Datatype::parse(c.datatype).element_layout());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> credited_to(const ref::Case& c) {
  if (c.routine != ref::Routine::reduce_locals) return std::nullopt;
  return std::string(library_has_reduce_locals() ? "library" : "ordo");
}

// Under virtual nodes every record carries it; without them the in-flight
// note does (a crash record, and a crash or hang waiver's node conditions:
// one machine is one node, MPICH's ch4 composition_alpha crashes there too
// when the root is not the first rank of the communicator on its node). A
// shape's communicators never change within a job, so each is computed
// once: on the first case of that shape, which every rank runs.
const std::string& shape_node_maps(const std::string& shape) {
  HarnessState& s = state();
  if (const auto it = s.shape_node_maps.find(shape); it != s.shape_node_maps.end())
    return it->second;
  const ZooComm& z = zoo(shape);
  CommPlace place;
  if (z.available && z.member && z.comm != MPI_COMM_NULL)
    place = CommPlace{1, z.color, z.role.group, z.role.rank};
  std::vector<CommPlace> places(static_cast<std::size_t>(s.job.rank == 0 ? s.job.size : 1));
  MPI_Gather(&place, 4, MPI_INT, places.data(), 4, MPI_INT, 0, s.job.comm);
  std::string text;
  if (s.job.rank == 0 && !s.job.settings.node_map.empty()) {
    const Json world = Json::parse(s.job.settings.node_map, nullptr, false);
    if (world.is_array()) text = comm_node_maps(world, places).dump();
  }
  int n = static_cast<int>(text.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, s.job.comm);
  text.resize(static_cast<std::size_t>(n));
  MPI_Bcast(text.data(), n, MPI_CHAR, 0, s.job.comm);
  return s.shape_node_maps.emplace(shape, std::move(text)).first->second;
}

bool begin_case(const ref::Case* c, int together) {
  HarnessState& s = state();
  ++s.flight.seq;
  s.check.case_index++;
  if (!runs(c)) return false;
  s.flight.kind = c ? case_kind(record_routine(*c), c->op, c->datatype) : s.check.test;
  s.flight.hang_key.clear();  // known once the case's communicator is (held_back)
  s.flight.call_key.clear();
  s.flight.limit = limit_of(c);
  // Only a limit derived from cases that finished: the case timeout (rules
  // fixed, default) already bounds the whole phase, and a kind that hung keeps
  // its short limit.
  const std::string& rule = s.flight.limit.rule;
  if (together > 1 && (rule == "kind" || rule == "any" || rule == "fewer")) {
    s.flight.limit.seconds *= together;
    s.flight.limit.why += "; x " + std::to_string(together) + " threads calling at once";
  }
  if (s.files.enabled()) {
    // Every rank writes its own: a rank may already be in the next case while
    // rank 0 is still recording the last one.
    s.flight.note = note_of(c);
    s.flight.noted = true;
    s.files.write_note(s.flight.note);
  }
  s.flight.t0 = MPI_Wtime();
  s.watchdog.arm(s.flight.seq, s.flight.t0, s.flight.limit.seconds);
  return true;
}

std::string held_back(const ref::Case& c, int comm_size) {
  HarnessState& s = state();
  HarnessState::Flight& f = s.flight;
  // The case's hang key and call key: a case of either that runs to its
  // verdict ends that key's streak (case_record.cpp).
  f.hang_key = hang_key(record_routine(c), c.comm, comm_size, c.count, detect_level());
  f.call_key = call_key_of(c);
  if (s.job.settings.case_stats.empty()) return "";
  for (const std::string* key : {&f.hang_key, &f.call_key})
    if (std::string why = s.case_stats.hold_back(*key); !why.empty()) return why;
  // It runs while a key of it keeps hanging, or after the last case of a key
  // hung: the short limit of rule "probe" or "again" (case_limits.h), the
  // shorter of its keys', for the watchdog and for the record the runner
  // writes from the in-flight note if it hangs.
  CaseLimit probe = f.limit;
  for (const std::string* key : {&f.hang_key, &f.call_key}) {
    const HangStreak* streak = s.case_stats.streak(*key);
    if (streak == nullptr) continue;
    const CaseLimit l = probe_limit(f.limit, *key, *streak, f.kind, s.job.size,
                                    s.case_stats.of(f.kind), s.case_stats.any(), limit_settings(),
                                    s.case_stats.fewer(), s.case_stats.fewer_ranks());
    if (l.seconds < probe.seconds) probe = l;
  }
  if (probe.rule != "probe" && probe.rule != "again") return "";
  f.limit = probe;
  s.watchdog.set_limit(f.t0, probe.seconds);
  if (f.noted && !f.note.case_limit.is_null()) {
    f.note.case_limit = probe.to_json();
    s.files.write_note(f.note);
  }
  return "";
}

std::string held_back_together(const ref::Case& c, int comm_size) {
  HarnessState& s = state();
  if (s.job.settings.case_stats.empty()) return "";
  std::string why = s.case_stats.hold_back(
      hang_key(record_routine(c), c.comm, comm_size, c.count, detect_level()));
  return why.empty() ? s.case_stats.hold_back(call_key_of(c)) : why;
}

void note_case_comm_size(int comm_size, const std::vector<int>& comm_sizes) {
  HarnessState& s = state();
  if (!s.files.enabled() || !s.flight.noted) return;
  s.flight.note.comm_size = comm_size;
  s.flight.note.comm_sizes.clear();
  if (comm_sizes.size() > 1) s.flight.note.comm_sizes = comm_sizes;
  s.files.write_note(s.flight.note);
}

void note_case_comm(const std::string& shape, int comm_size, const std::vector<int>& comm_sizes) {
  HarnessState& s = state();
  const bool noting = s.files.enabled() && s.flight.noted;
  // The sizes first: the node maps' first query of a shape is collective,
  // and a case that dies or hangs there still has its communicator's size.
  note_case_comm_size(comm_size, comm_sizes);
  const std::string& maps = shape_node_maps(shape);  // collective on a shape's first case
  if (!noting || maps.empty()) return;
  s.flight.note.comm_node_maps = Json::parse(maps, nullptr, false);
  s.files.write_note(s.flight.note);
}

std::string known_fatal_waiver(const ref::Case& c, const std::vector<int>& comm_sizes) {
  const HarnessState& s = state();
  if (!s.job.settings.avoid_known_fatal) return "";
  // The record this case would get if the job died in it (the runner's
  // record of a dead case carries the bytes and the communicator's size of the
  // harness's in-flight note).
  Json record = {{"test", s.check.test},
                 {"variant", s.job.settings.variant},
                 {"message", ""},
                 {"ranks", s.job.size},
                 {"case", Json::parse(c.to_json())}};
  const bool local =
      c.routine == ref::Routine::reduce_local || c.routine == ref::Routine::reduce_locals;
  if (const std::string& maps = shape_node_maps(local ? "self" : c.comm); !maps.empty())
    record["comm_node_maps"] = Json::parse(maps, nullptr, false);
  if (const auto bytes = case_bytes(c)) record["bytes"] = *bytes;
  if (const auto layout = case_layout(c)) record["layout"] = *layout;
  const std::string date = today();
  // Each communicator of the shape may be where the library dies: a waiver
  // whose trigger is a size holds the case back when any of them has it.
  for (const Json& w : s.job.waivers) {
    for (const int comm_size : comm_sizes) {
      record["comm_size"] = comm_size;
      for (const char* fatal : {"crash", "timeout"}) {
        record["outcome"] = fatal;
        // No message yet: the waiver's trigger alone (its signature is for the record).
        if (waivers::match(w, record, date, s.job.library_version, false) == waivers::Match::waived)
          return w.value("id", std::string());
      }
    }
  }
  return "";
}

std::string known_fatal_skip(const std::string& id) {
  // A waiver marked damages_later names a case that may pass but leaves the
  // process's memory damaged: the crash it predicts comes in a later case or
  // in MPI_Finalize, and the skip says so.
  for (const Json& w : state().job.waivers) {
    const auto later = w.find("damages_later");
    if (w.value("id", std::string()) == id && later != w.end() && later->is_boolean() &&
        later->get<bool>())
      return "not run (--ordo-avoid-known-fatal): the waiver " + id +
             " names damage this library does here to the process's memory, which ends the"
             " job in a later case or in MPI_Finalize";
  }
  return "not run (--ordo-avoid-known-fatal): the waiver " + id +
         " names a crash or hang of this library here";
}

}  // namespace ordo::harness

// The record of a case (harness.h, record and record_check): every rank's
// verdict combined on rank 0 into one outcome and message, the record
// assembled (record.h) and waived where a waiver says so, written to the
// journal, and the outcome handed back to every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "case_flight.h"
#include "comm_node_maps.h"
#include "comm_zoo.h"
#include "harness_comm.h"
#include "harness_state.h"
#include "job_protocol.h"
#include "node_map.h"
#include "waivers.h"

namespace ordo::harness {
namespace {

using S = LocalVerdict::Status;

constexpr int kTagVerdict = 31001;
constexpr int kTagOutcome = 31002;
constexpr int kTagPlace = 31003;
constexpr int kRestartFlag = 0x100;  // with the outcome: every rank ends the job (restart_job)

// What ends with the record on every rank, however the rank leaves: the
// watchdog is disarmed, the verdict phase timed (less the journal write in
// it), the case's whole wall time added to the statistics of its kind and
// keys (every rank keeps its own; the limits differ by little), and what was
// set for this case (reproducer, dimensions) cleared.
class CaseEnd {
 public:
  explicit CaseEnd(const Outcome& outcome) : outcome_(outcome) {}
  ~CaseEnd() {
    HarnessState& s = state();
    if (!s.job.settings.case_stats.empty() && outcome_ != Outcome::skip) {
      s.case_stats.finished(s.flight.kind, MPI_Wtime() - s.flight.t0, s.flight.limit.work);
      if (!s.flight.hang_key.empty()) s.case_stats.ran(s.flight.hang_key);
      if (!s.flight.call_key.empty()) s.case_stats.ran(s.flight.call_key);
    }
    add_phase_time(Phase::verdict, MPI_Wtime() - t0_ - (phase_seconds(Phase::journal) - j0_));
    s.flight.next_reproducer.clear();
    s.flight.next_dimensions = Json();
    s.watchdog.disarm();
  }
  CaseEnd(const CaseEnd&) = delete;
  CaseEnd& operator=(const CaseEnd&) = delete;

 private:
  const Outcome& outcome_;
  double t0_ = MPI_Wtime(), j0_ = phase_seconds(Phase::journal);
};

// DETECT: this rank's call returned; its note says how. If another rank
// never returns (it waits in the collective for a process that returned the
// error), the runner's record of the timeout still knows who reported it.
// A rank outside the case's communicator returns with no detect at all.
// Once this rank's call returned the error, the others get a short limit
// (case_limits.h, reported_limit): a process that waits in the collective
// for this one does not cost the rest of the case's limit. The note carries
// the limit, for the runner's record.
void note_returned(const LocalVerdict& mine) {
  HarnessState& s = state();
  HarnessState::Flight& f = s.flight;
  if (s.check.level != Level::DETECT || !s.files.enabled() || !f.noted) return;
  InflightNote::Returned returned;
  returned.detect = mine.detect;
  returned.message = mine.message.substr(0, mine.message.find('\n')).substr(0, 300);
  if (mine.detect == "reported") {
    const CaseLimit r =
        reported_limit(f.limit, MPI_Wtime() - f.t0, f.kind, s.job.size, s.case_stats.of(f.kind));
    if (r.rule == "reported") {
      s.watchdog.set_limit(f.t0, r.seconds);
      returned.case_limit = r.to_json();
    }
  }
  InflightNote note = f.note;
  note.returned = std::move(returned);
  s.files.write_note(note);
}

// Under virtual nodes, this rank's place in the case's communicator: rank 0
// records the node map of each of its groups (waivers read it). Every rank
// decides alike (only rank 0 holds the world's node map).
bool placed(const ref::Case* cp) { return cp && state().job.settings.nodes > 0; }

CommPlace place_in(const ref::Case& c) {
  const ZooComm& z = zoo(c.comm);
  if (z.available && z.member && z.comm != MPI_COMM_NULL)
    return CommPlace{1, z.color, z.role.group, z.role.rank};
  return CommPlace{};
}

// A rank other than 0: its place and verdict to rank 0, the outcome back.
Outcome send_verdict(const ref::Case* cp, const LocalVerdict& mine) {
  const HarnessState::Job& job = state().job;
  if (placed(cp)) {
    CommPlace place = place_in(*cp);
    MPI_Send(&place, 4, MPI_INT, 0, kTagPlace, job.comm);
  }
  // status|detect|<tracer length>|<tracer><message>
  std::string msg = std::to_string(static_cast<int>(mine.status)) + "|" + mine.detect + "|" +
                    std::to_string(mine.tracer.size()) + "|" + mine.tracer + mine.message;
  MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kTagVerdict, job.comm);
  int o = 0;
  recv_from_rank0(&o, 1, MPI_INT, kTagOutcome);
  if (o & kRestartFlag) end_job_for_restart();
  return static_cast<Outcome>(o);
}

// Rank 0: every rank's place in the case's communicator (index: world rank).
std::vector<CommPlace> gather_places(const ref::Case& c) {
  const HarnessState::Job& job = state().job;
  std::vector<CommPlace> places(static_cast<std::size_t>(job.size));
  places[0] = place_in(c);
  for (int r = 1; r < job.size; ++r)
    MPI_Recv(&places[static_cast<std::size_t>(r)], 4, MPI_INT, r, kTagPlace, job.comm,
             MPI_STATUS_IGNORE);
  return places;
}

// Rank 0: every rank's verdict (index: world rank).
std::vector<LocalVerdict> gather_verdicts(const LocalVerdict& mine) {
  const HarnessState::Job& job = state().job;
  std::vector<LocalVerdict> all(static_cast<std::size_t>(job.size));
  all[0] = mine;
  for (int r = 1; r < job.size; ++r) {
    MPI_Status st;
    probe_politely(r, kTagVerdict, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string buf(static_cast<std::size_t>(n), '\0');
    MPI_Recv(buf.data(), n, MPI_CHAR, r, kTagVerdict, job.comm, MPI_STATUS_IGNORE);
    const auto bar = buf.find('|');
    const auto bar2 = buf.find('|', bar + 1);
    const auto bar3 = buf.find('|', bar2 + 1);
    const std::size_t tracer_len = std::strtoull(buf.c_str() + bar2 + 1, nullptr, 10);
    LocalVerdict& v = all[static_cast<std::size_t>(r)];
    v.status = static_cast<S>(std::atoi(buf.substr(0, bar).c_str()));
    v.detect = buf.substr(bar + 1, bar2 - bar - 1);
    v.tracer = buf.substr(bar3 + 1, tracer_len);
    v.message = buf.substr(bar3 + 1 + tracer_len);
  }
  return all;
}

// The ranks' verdicts combined: the outcome, the message and who failed.
struct Combined {
  Outcome outcome = Outcome::pass;
  std::string message;
  std::vector<int> failing;
  std::string detect;  // DETECT: "reported" | "accepted" | "" (neither: no rank said)
  Json tracer = Json::array();
  bool any_fail = false, any_pass = false, any_skip = false;
  std::vector<int> skipped;  // the ranks that skipped the case, and why
  std::string skip_reasons;
};

// Who passed, failed and skipped; the first three failing ranks' messages
// (and their tracer explanations as data) and skipping ranks' reasons.
Combined tally(const std::vector<LocalVerdict>& all) {
  Combined k;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    const LocalVerdict& v = all[static_cast<std::size_t>(r)];
    switch (v.status) {
      case S::fail:
        k.any_fail = true;
        k.failing.push_back(r);
        if (k.failing.size() <= 3) {
          k.message += (k.message.empty() ? "" : " | ") + std::string("on rank ") +
                       std::to_string(r) + ": " + v.message;
          if (!v.tracer.empty()) {
            Json item = Json::parse(v.tracer);
            item["on_rank"] = r;
            k.tracer.push_back(std::move(item));
          }
        }
        break;
      case S::pass:
        k.any_pass = true;
        break;
      case S::skip:
        k.any_skip = true;
        k.skipped.push_back(r);
        if (k.skipped.size() <= 3)
          k.skip_reasons += (k.skip_reasons.empty() ? "" : "; ") + std::string("rank ") +
                            std::to_string(r) + ": " +
                            (v.message.empty() ? "no reason given" : v.message);
        break;
      case S::absent:
        break;
    }
  }
  if (k.failing.size() > 3)
    k.message += " | and " + std::to_string(k.failing.size() - 3) + " more ranks";
  return k;
}

// DETECT, nothing failed: which ranks had the error reported, and the first report.
void summarize_detect(const std::vector<LocalVerdict>& all, Combined& k) {
  std::vector<int> reported, accepted;
  std::string first_report;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    const LocalVerdict& v = all[static_cast<std::size_t>(r)];
    if (v.detect == "reported") {
      reported.push_back(r);
      if (first_report.empty()) first_report = v.message;
    } else if (v.detect == "accepted") {
      accepted.push_back(r);
    }
  }
  if (!reported.empty() && accepted.empty()) {
    k.detect = "reported";
    k.message = "reported on every participating rank: " + first_report;
  } else if (reported.empty() && !accepted.empty()) {
    k.detect = "accepted";
    k.message = "accepted: no error code came back";
  } else if (!reported.empty()) {
    k.detect = "reported";
    k.message = "reported on " + std::to_string(reported.size()) + " of " +
                std::to_string(reported.size() + accepted.size()) + " ranks: " + first_report;
  }
}

// INFO: implementation-defined behaviour, recorded, never judged.
void unjudge_info(const LocalVerdict& rank0, Combined& k) {
  if (k.outcome == Outcome::fail)
    k.message = "differs from the reference (not judged): " + k.message;
  else if (k.outcome == Outcome::pass)
    k.message = rank0.status == S::skip ? std::string() : rank0.message;
  if (k.outcome == Outcome::fail) k.outcome = Outcome::pass;
  k.any_fail = false;
}

// A case that some ranks skipped while others ran is not a pass (not even
// at INFO: it was not run as the case says): the skipping ranks did not
// take part in the call the others judged.
void fail_partial_skip(Combined& k) {
  std::string names;
  for (std::size_t i = 0; i < k.skipped.size(); ++i)
    names += (i ? "," : "") + std::to_string(k.skipped[i]);
  if (k.skipped.size() > 3)
    k.skip_reasons += "; and " + std::to_string(k.skipped.size() - 3) + " more";
  k.message = "skipped on rank" + std::string(k.skipped.size() > 1 ? "s " : " ") + names +
              " while the others ran it (" + k.skip_reasons + ")" +
              (k.message.empty() ? std::string() : " | " + k.message);
  for (int r : k.skipped)
    if (std::find(k.failing.begin(), k.failing.end(), r) == k.failing.end()) k.failing.push_back(r);
  std::sort(k.failing.begin(), k.failing.end());
  k.detect.clear();
  k.outcome = Outcome::fail;
  k.any_fail = true;
}

// Every skip says why: a skip without a reason hides what was not tested.
void require_skip_reason(const std::vector<LocalVerdict>& all, Combined& k) {
  for (int r : k.skipped)
    if (k.message.empty()) k.message = all[static_cast<std::size_t>(r)].message;
  if (k.message.empty()) {
    k.message = "ordo: every rank skipped the case without giving a reason (a harness defect)";
    k.outcome = Outcome::fail;
    k.any_fail = true;
  }
}

Combined combine(const std::vector<LocalVerdict>& all) {
  const Level level = state().check.level;
  Combined k = tally(all);
  if (level == Level::DETECT && !k.any_fail) summarize_detect(all, k);
  const std::size_t failing_before_skip_rule = k.failing.size();
  k.outcome =
      k.any_fail ? Outcome::fail : (k.any_pass || !k.any_skip ? Outcome::pass : Outcome::skip);
  if (level == Level::INFO) unjudge_info(all[0], k);
  if (k.any_skip && (k.any_pass || failing_before_skip_rule > 0)) fail_partial_skip(k);
  if (k.outcome == Outcome::skip) require_skip_reason(all, k);
  return k;
}

// A failed case on a shape whose communicators differ in size: the size of
// each failing rank's communicator (comm_zoo.h, group_size_of_world_rank),
// once each, ascending; empty on any other shape.
std::vector<int> failing_comm_sizes(const ref::Case& c, const std::vector<int>& failing) {
  if (c.routine == ref::Routine::reduce_local || c.routine == ref::Routine::reduce_locals)
    return {};
  std::vector<int> sizes;
  for (const int r : failing)
    if (const int n = group_size_of_world_rank(c.comm, r); n > 0) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// The record of the case (or case-less check: cp null) as combined.
Record assemble(const ref::Case* cp, const std::string& subject, const Combined& k, double seconds,
                int comm_size, const std::vector<CommPlace>& places) {
  const HarnessState& s = state();
  Record rec;
  rec.seq = s.flight.seq;
  rec.id = s.check.test + "#" + std::to_string(s.check.case_index - 1);
  rec.test = s.check.test;
  rec.clause = s.check.clause;
  rec.level = level_name(s.check.level);
  rec.routine = subject;
  if (cp) rec.credited_to = credited_to(*cp);
  rec.case_json = cp ? Json::parse(cp->to_json()) : Json(nullptr);
  rec.dimensions = s.flight.next_dimensions;
  rec.ranks = s.job.size;
  rec.comm_size = comm_size;
  if (cp) rec.bytes = case_bytes(*cp);
  if (cp) rec.layout = case_layout(*cp);
  rec.vendor = s.job.settings.vendor;
  rec.variant = s.job.settings.variant;
  set_placement(rec);
  if (!places.empty() && rec.node_map.is_array())
    rec.comm_node_maps = comm_node_maps(rec.node_map, places);
  rec.outcome = outcome_name(k.outcome);
  rec.message = k.message;
  rec.failing_ranks = k.failing;
  if (!k.detect.empty()) rec.detect = k.detect;
  rec.tracer = k.tracer;  // the failing ranks' tracer explanations (none: omitted)
  rec.duration_s = seconds;
  if (!s.job.settings.case_stats.empty()) {
    rec.case_limit = s.flight.limit.to_json();
    rec.case_seconds = std::round((MPI_Wtime() - s.flight.t0) * 1e6) / 1e6;  // microseconds
  }
  if (!s.flight.next_reproducer.empty()) rec.reproducer = s.flight.next_reproducer;
  rec.replay = cp ? replay_command(*cp) : std::string();
  rec.time = now_iso();
  return rec;
}

// A failure a waiver names becomes waived (its id and its words in the
// record). Returns whether that waiver ends the job for a restart.
bool waive(Record& rec, Outcome& outcome, std::string& message) {
  const HarnessState::Job& job = state().job;
  if (outcome != Outcome::fail || job.waivers.empty()) return false;
  bool restart = false;
  Json j = to_json(rec);
  if (const Json* w = waivers::apply(j, job.waivers, today(), job.library_version)) {
    outcome = Outcome::waived;
    rec.waiver = j["waiver"].is_string() ? j["waiver"].get<std::string>() : std::string();
    const auto rj = w->find("restart_job");
    restart = rj != w->end() && rj->is_boolean() && rj->get<bool>() && state().files.enabled();
  }
  rec.outcome = outcome_name(outcome);
  rec.message = message = j["message"].get<std::string>();
  return restart;
}

// Recorded before the other ranks go on: a rank in the next case means this
// one is in the journal (what the runner relies on after a crash).
void publish(const Record& rec, Outcome outcome, bool restart) {
  HarnessState& s = state();
  s.files.append(to_line(rec));
  if (restart) mark_restart(s.files.journal(), s.flight.seq);
  for (int r = 1; r < s.job.size; ++r) {
    int o = static_cast<int>(outcome) | (restart ? kRestartFlag : 0);
    MPI_Send(&o, 1, MPI_INT, r, kTagOutcome, s.job.comm);
  }
  if (restart) end_job_for_restart();
}

Outcome record_case(const ref::Case* cp, const std::string& subject, const LocalVerdict& mine,
                    double seconds, int comm_size) {
  Outcome outcome = Outcome::pass;
  const CaseEnd end(outcome);
  note_returned(mine);
  if (state().job.rank != 0) {
    outcome = send_verdict(cp, mine);
    if (outcome == Outcome::fail) ADD_FAILURE() << "see rank 0";
    return outcome;
  }
  const std::vector<CommPlace> places = placed(cp) ? gather_places(*cp) : std::vector<CommPlace>();
  const std::vector<LocalVerdict> all = gather_verdicts(mine);
  Combined k = combine(all);
  outcome = k.outcome;
  Record rec = assemble(cp, subject, k, seconds, comm_size, places);
  if (cp && outcome == Outcome::fail) rec.failing_comm_sizes = failing_comm_sizes(*cp, k.failing);
  const bool restart = waive(rec, outcome, k.message);
  publish(rec, outcome, restart);
  if (outcome == Outcome::fail) {
    const HarnessState::Check& check = state().check;
    ADD_FAILURE() << "[" << check.clause << ", " << level_name(check.level) << "] "
                  << (cp ? cp->describe() : subject) << "\n  " << k.message
                  << (cp ? "\n  replay: " + replay_command(*cp) : std::string());
  }
  return outcome;
}

}  // namespace

Outcome record(const ref::Case& c, const LocalVerdict& mine, double seconds, int comm_size) {
  return record_case(&c, record_routine(c), mine, seconds, comm_size);
}

Outcome record_check(const std::string& subject, const LocalVerdict& mine) {
  if (!begin_case(nullptr)) return Outcome::skip;
  return record_case(nullptr, subject, mine, 0, state().job.size);
}

std::string replay_command(const ref::Case& c) {
  const HarnessState& s = state();
  const Settings& settings = s.job.settings;
  std::string j = c.to_json();
  // Inside the root of `ordo run --system NAME` (tools/runner/systems.py sets ORDO_SYSTEM): the
  // replay runs in the same root.
  const char* system = std::getenv("ORDO_SYSTEM");
  // A run through the MPI-5.0 standard ABI (`ordo run --abi`, tools/runner/abi.py sets
  // ORDO_ABI_LIBRARY): the replay goes through the same build and library.
  const char* abi = std::getenv("ORDO_ABI_LIBRARY");
  return "./ordo replay" +
         (system && *system ? std::string(" --system ") + system : std::string()) + " --vendor " +
         (settings.vendor.empty() ? std::string("mpich") : settings.vendor) +
         (abi && *abi ? std::string(" --abi --abi-library ") + abi : std::string()) +
         (settings.launcher.empty() ? std::string() : " --launcher " + settings.launcher) +
         " --ranks " + std::to_string(s.job.size) +
         (settings.variant.empty() || settings.variant == "default"
              ? std::string()
              : " --variant " + settings.variant) +
         (settings.nodes > 0
              ? " --nodes " + std::to_string(settings.nodes) + " --placement " + settings.placement
              : std::string()) +
         (s.check.level == Level::DETECT ? " --level DETECT" : "") + " --case '" + j + "'";
}

void set_placement(Record& r) {
  const Settings& settings = state().job.settings;
  if (settings.nodes <= 0) return;
  r.nodes = settings.nodes;
  r.placement = settings.placement;
  if (!settings.node_map.empty()) r.node_map = Json::parse(settings.node_map, nullptr, false);
}

}  // namespace ordo::harness

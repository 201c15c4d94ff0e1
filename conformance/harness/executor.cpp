// Runs one case on the MPI library under test (executor.h): the case's
// communicator, the skips decided before any call (a shape or feature the
// library lacks, a known fatal waiver, a held-back case), the call on every
// rank of the communicator (run_on_rank.h), the check across ranks that an
// inexact Allreduce gave every rank the same bits, and the record.
#include "executor.h"

#include <map>

#include "messages.h"
#include "run_on_rank.h"

namespace ordo::harness {

using ref::Routine;
using S = LocalVerdict::Status;

int root_count(const std::string& shape, bool high_group) {
  const ZooComm& z = zoo(shape);
  if (!z.available) return 0;
  const int p = world_size();
  if (z.topology.inter) return high_group ? z.topology.size_high : z.topology.size_low;
  if (shape == "odd-even") return p / 2;
  if (shape == "self") return 1;
  return p;
}

double time_bare_call(const ref::Case& c) {
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  const ZooComm& z = zoo(local ? "self" : c.comm);
  if (!z.available || missing_feature(c)) return 0;
  gather_to_rank0("");  // every rank has arrived ...
  for (int r = 1; r < world_size() && world_rank() == 0; ++r)
    MPI_Send(nullptr, 0, MPI_BYTE, r, 31004, harness_comm());
  if (world_rank() != 0)
    MPI_Recv(nullptr, 0, MPI_BYTE, 0, 31004, harness_comm(),
             MPI_STATUS_IGNORE);  // ... and knows it
  CaseOptions bare;
  bare.bare_call = true;
  return z.member ? run_on_rank(c, bare, z).seconds : 0.0;
}

Outcome run_case(const ref::Case& c, const CaseOptions& options) {
  if (!begin_case(&c)) return Outcome::skip;
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  // A drawn shape is built by the zoo() below, on its first case: a job that
  // dies there still leaves the communicator's size in the in-flight note.
  if (const int drawn = local ? 0 : unbuilt_drawn_shape_size(c.comm); drawn > 0)
    note_case_comm_size(drawn);
  std::optional<PhaseTimer> shape_phase(std::in_place, Phase::shape);
  const ZooComm& z = zoo(local ? "self" : c.comm);
  shape_phase.reset();
  if (!z.available && !z.failure.empty())
    return record(
        c, {S::fail, "the communicator shape " + c.comm + " could not be built: " + z.failure, ""},
        0, 0);
  if (!z.available && !z.lacks.empty()) return record(c, {S::skip, z.lacks, ""}, 0, 0);
  if (!z.available)
    return record(c, {S::skip, "communicator shape " + c.comm + " needs more ranks", ""}, 0, 0);
  if (auto why = missing_feature(c)) return record(c, {S::skip, *why, ""}, 0, 0);
  // The communicator's size as the record gives it: world rank 0's, the same
  // on every process (odd-even at an odd world size has two sizes), so that
  // every process keys, holds back and notes the case alike.
  const int comm_size =
      z.group_sizes.empty() ? z.topology.size_low + z.topology.size_high : z.group_sizes.front();
  note_case_comm(local ? "self" : c.comm, comm_size, local ? std::vector<int>{} : z.group_sizes);
  if (const std::string id = known_fatal_waiver(
          c, z.group_sizes.empty() ? std::vector<int>{comm_size} : z.group_sizes);
      !id.empty())
    return record(c, {S::skip, known_fatal_skip(id), ""}, 0, 0);
  if (std::string why = held_back(c, comm_size); !why.empty())
    return record(c, {S::skip, why, ""}, 0, comm_size);
  RankResult mine;
  if (z.member)
    mine = run_on_rank(c, options, z);
  else
    mine.verdict = {S::absent, "", ""};

  // Allreduce with inexact inputs: every rank of a communicator must hold
  // bit-identical results (MPI-4.1 6.9.6), whatever order the library chose.
  if (c.routine == Routine::allreduce && !c.exact && current_level() != Level::DETECT) {
    PhaseTimer timer(Phase::verdict);
    const std::string payload = std::to_string(z.color) + ":" + mine.observed;
    const auto all = gather_to_rank0(mine.verdict.status == S::pass ? payload : std::string());
    if (world_rank() == 0) {
      std::map<std::string, std::pair<std::size_t, std::string>> first;  // color -> (rank, result)
      for (std::size_t r = 0; r < all.size() && mine.verdict.status != S::fail; ++r) {
        if (all[r].empty()) continue;
        const std::string color = all[r].substr(0, all[r].find(':'));
        auto it = first.find(color);
        if (it == first.end()) {
          first[color] = {r, all[r]};
        } else if (it->second.second != all[r]) {
          mine.verdict = fail("world rank " + std::to_string(r) +
                              " received a result that is not bit-identical to world rank " +
                              std::to_string(it->second.first) + "'s, in the same communicator");
        }
      }
    }
  }
  const Outcome outcome = record(c, mine.verdict, mine.seconds, comm_size);
  // A collective that failed, or returned an error, on some processes only
  // may leave messages behind in its communicator that a later case would
  // receive: the shape is built afresh after any case that did not pass, and
  // after every erroneous (DETECT) case. Every rank knows the outcome.
  if (!local && (outcome != Outcome::pass || current_level() == Level::DETECT)) {
    PhaseTimer timer(Phase::shape);
    renew_shape(c.comm);
  }
  return outcome;
}

}  // namespace ordo::harness

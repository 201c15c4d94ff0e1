// Concurrent reductions from several threads of each process under
// MPI_THREAD_MULTIPLE, each thread on its own communicator (MPI-4.1 11.6:
// calls from concurrent threads behave as if executed in some order;
// collective calls on distinct communicators need no ordering by the user).
// Each thread runs one routine many times, with new inputs each time, and
// every result is judged against the reference; a process that gets less
// than MPI_THREAD_MULTIPLE records a skip with the level it got.
#include <gtest/gtest.h>
#include <mpi.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "case_limits.h"
#include "catalogue.h"
#include "comm_zoo.h"
#include "guarded_buffer.h"
#include "harness.h"
#include "mpi_types.h"
#include "ordo/reference/oracle.h"

// The thread level this executable asks MPI_Init_thread for (read by the
// harness's main).
extern "C" const int ordo_thread_level = MPI_THREAD_MULTIPLE;

using ordo::harness::GuardedBuffer;
using ordo::harness::LocalVerdict;
using ordo::ref::Case;
using ordo::ref::Mode;
using ordo::ref::Routine;
using S = LocalVerdict::Status;

namespace {

constexpr int kIterations = 25;

// One thread's work: its routine and form, the op and datatype of every call.
Case thread_case(int t, int p) {
  Case c;
  static const Routine kRoutines[] = {Routine::allreduce, Routine::reduce, Routine::scan,
                                      Routine::reduce_scatter_block};
  c.routine = kRoutines[t % 4];
  c.mode = t % 2 == 0 ? Mode::blocking : Mode::nonblocking;
  c.op = "witness.tracer";  // non-commutative: a wrong order or a stranger's input shows
  c.datatype = "contiguous(4,MPI_INT)";
  c.count = 64;
  c.root = c.routine == Routine::reduce ? p - 1 : 0;
  c.comm = "dup";  // each thread has a duplicate of MPI_COMM_WORLD of its own
  return c;
}

int call(const Case& c, const void* sb, void* rb, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  MPI_Request req = MPI_REQUEST_NULL;
  const bool nb = c.mode == Mode::nonblocking;
  int rc = MPI_ERR_OTHER;
  switch (c.routine) {
    case Routine::allreduce:
      rc = nb ? MPI_Iallreduce(sb, rb, c.count, dt, op, comm, &req)
              : MPI_Allreduce(sb, rb, c.count, dt, op, comm);
      break;
    case Routine::reduce:
      rc = nb ? MPI_Ireduce(sb, rb, c.count, dt, op, c.root, comm, &req)
              : MPI_Reduce(sb, rb, c.count, dt, op, c.root, comm);
      break;
    case Routine::scan:
      rc = nb ? MPI_Iscan(sb, rb, c.count, dt, op, comm, &req)
              : MPI_Scan(sb, rb, c.count, dt, op, comm);
      break;
    default:
      rc = nb ? MPI_Ireduce_scatter_block(sb, rb, c.count, dt, op, comm, &req)
              : MPI_Reduce_scatter_block(sb, rb, c.count, dt, op, comm);
      break;
  }
  if (rc == MPI_SUCCESS && nb) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  return rc;
}

// Runs in thread t: kIterations calls of its case, each with the inputs of
// its own seed, judged against the reference; the first failure is kept.
LocalVerdict thread_body(const Case& base, int t, MPI_Comm comm, MPI_Datatype dt, MPI_Op op,
                         int rank, int p) {
  for (int it = 0; it < kIterations; ++it) {
    Case c = base;
    c.seed = 1 + static_cast<std::uint64_t>(1000 * t + it);
    const ordo::ref::RankPlan plan =
        ordo::ref::plan(c, ordo::ref::Topology{false, p, 0}, ordo::ref::Role{0, rank});
    std::optional<GuardedBuffer> send, recv;
    if (plan.send) send.emplace(*plan.send);
    if (plan.recv_initial) recv.emplace(*plan.recv_initial);
    const std::string where = "thread " + std::to_string(t) + ", call " + std::to_string(it + 1) +
                              " of " + std::to_string(kIterations) + " (seed " +
                              std::to_string(c.seed) + "), comm rank " + std::to_string(rank);
    const int rc =
        call(c, send ? send->ptr() : nullptr, recv ? recv->ptr() : nullptr, dt, op, comm);
    if (rc != MPI_SUCCESS)
      return {S::fail,
              std::string(ordo::ref::mpi_routine_name(c.routine, c.mode)) + " returned " +
                  ordo::harness::error_string(rc) + " (" + where + ")",
              ""};
    if (recv && !recv->guards_intact())
      return {S::fail, "bytes outside the receive buffer were written (" + where + ")", ""};
    if (recv && plan.recv_significant && plan.result_defined && plan.recv_expected) {
      const ordo::ref::Buffer observed = recv->contents(*plan.recv_expected);
      const ordo::ref::Difference d = ordo::ref::first_difference(*plan.recv_expected, observed);
      if (d.any)
        return {
            S::fail,
            (d.in_hole ? std::string("a hole of the receive buffer was written")
                       : "element " + std::to_string(d.element) + " differs from the reference") +
                " (" + where + ")",
            ""};
    }
  }
  return {};
}

}  // namespace

TEST(Threads, concurrent_reductions_on_distinct_communicators_from_several_threads) {
  ORDO_CLAUSE("collective.threads", MUST);
  int provided = MPI_THREAD_SINGLE, rank = 0, p = 1;
  MPI_Query_thread(&provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int threads = 4;
  std::vector<Case> cases;
  for (int t = 0; t < threads; ++t) cases.push_back(thread_case(t, p));
  if (provided < MPI_THREAD_MULTIPLE) {
    for (const Case& c : cases) {
      if (!ordo::harness::begin_case(&c)) continue;
      ordo::harness::record(
          c,
          {S::skip,
           "the library provides thread level " + std::to_string(provided) +
               ", not MPI_THREAD_MULTIPLE (" + std::to_string(MPI_THREAD_MULTIPLE) + ")",
           ""},
          0, p);
    }
    return;
  }
  // Made by the main thread, before the threads start: the communicators,
  // the datatype and the op (the harness's caches are not for threads), and
  // one call on each communicator so that everything a library (or the
  // reference MPI) sets up at a communicator's first collective is there.
  std::string why;
  const MPI_Datatype dt =
      ordo::harness::mpi_datatype(ordo::ref::Datatype::parse(cases[0].datatype), &why);
  const MPI_Op op = ordo::harness::mpi_op(cases[0].op);
  ASSERT_NE(dt, MPI_DATATYPE_NULL) << why;
  std::vector<MPI_Comm> comms(threads, MPI_COMM_NULL);
  for (MPI_Comm& c : comms) {
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
  }
  // The watchdog of the first case that runs here covers the threaded phase (a
  // hang is recorded against it); the others are recorded after it with their
  // own verdicts. The phase runs only under that watchdog: not when no case is
  // selected (a variant of another routine), nor when the job was resumed
  // after that case (it hung or crashed: its record says so), when the
  // others are skips that say why.
  std::size_t first = 0;
  while (first < cases.size() && !ordo::harness::selected(&cases[first])) ++first;
  std::vector<char> began(cases.size(), 0);
  for (std::size_t t = 0; t <= first && t < cases.size(); ++t)
    began[t] = ordo::harness::begin_case(&cases[t], t == first ? threads : 1) ? 1 : 0;
  const bool watched = first < cases.size() && began[first];
  // The phase's communicators are duplicates of the world: the record of a
  // phase that crashes or hangs names their size, as run_case's does (every
  // rank decides `watched` alike; the first query of a shape is collective).
  if (watched) ordo::harness::note_case_comm("world", p);
  // A case of the phase that a crash or hang waiver names for this release
  // (--ordo-avoid-known-fatal, as run_case does): the phase runs its cases
  // together, so it does not run; that case's record names the waiver, and
  // the others say why they did not run. Every rank decides alike (the same
  // selection and waivers; the first query of a shape is collective).
  std::string fatal_id;
  std::size_t fatal_case = cases.size();
  for (std::size_t t = first; watched && t < cases.size() && fatal_id.empty(); ++t) {
    if (!ordo::harness::selected(&cases[t])) continue;
    fatal_id = ordo::harness::known_fatal_waiver(cases[t], {p});
    if (!fatal_id.empty()) fatal_case = t;
  }
  // A case of the phase whose routine keeps hanging on communicators of the
  // world's size (case_limits.h, hang_key) is held back as run_case's are:
  // the phase runs its cases together, so it does not run; that case's
  // record says why, the others (held back too, by its key) that it was. Every rank decides
  // alike (the runner's streaks and the same selection).
  std::string held_why;
  std::size_t held_case = cases.size();
  for (std::size_t t = first; watched && fatal_id.empty() && t < cases.size() && held_why.empty();
       ++t) {
    if (!ordo::harness::selected(&cases[t])) continue;
    held_why = ordo::harness::held_back_together(cases[t], p);
    if (!held_why.empty()) held_case = t;
  }
  std::vector<LocalVerdict> verdicts(threads);
  const double t0 = MPI_Wtime();
  if (watched && fatal_id.empty() && held_why.empty()) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        verdicts[static_cast<std::size_t>(t)] =
            thread_body(cases[static_cast<std::size_t>(t)], t, comms[static_cast<std::size_t>(t)],
                        dt, op, rank, p);
      });
    for (std::thread& th : pool) th.join();
  }
  const double seconds = MPI_Wtime() - t0;
  for (std::size_t t = 0; t < cases.size(); ++t) {
    const Case& c = cases[t];
    if (t > first) began[t] = ordo::harness::begin_case(&c) ? 1 : 0;
    if (!began[t]) continue;
    LocalVerdict v = verdicts[t];
    if (!watched)
      v = {S::skip,
           "not run: the threaded phase of these " + std::to_string(threads) +
               " cases is recorded by the first of them that runs, and this job was resumed "
               "after it",
           ""};
    else if (!fatal_id.empty())
      v = {S::skip,
           t == fatal_case ? ordo::harness::known_fatal_skip(fatal_id)
                           : "not run: the threaded phase runs these " + std::to_string(threads) +
                                 " cases together, and the waiver " + fatal_id +
                                 " names a crash or hang of this library in thread " +
                                 std::to_string(fatal_case) + "'s case (--ordo-avoid-known-fatal)",
           ""};
    else if (!held_why.empty())
      v = {S::skip,
           t == held_case
               ? held_why
               : std::string(ordo::harness::kHeldBack) + ": the threaded phase runs these " +
                     std::to_string(threads) + " cases together, and thread " +
                     std::to_string(held_case) + "'s case (" +
                     std::string(ordo::ref::mpi_routine_name(cases[held_case].routine,
                                                             cases[held_case].mode)) +
                     ") was held back" +
                     held_why.substr(std::string(ordo::harness::kHeldBack).size()),
           ""};
    else if (v.status == S::pass)
      v.message = std::to_string(kIterations) + " calls in thread " + std::to_string(t) + " of " +
                  std::to_string(threads) + ", concurrent with the other threads' reductions";
    ordo::harness::record(c, v, seconds, p);
  }
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
}

// Last in this executable: on a library with the fault it lowers the thread
// level of the whole process.
TEST(Threads, the_tools_interface_initialized_at_a_lower_level_leaves_the_mpi_thread_level) {
  ORDO_CLAUSE("threads.level-pinned", MUST);
  // A variant job keeps no case-less record: the tools interface's start
  // (about 0.1 s a launch under Open MPI 4.1.4) is not paid for nothing.
  if (!ordo::harness::caseless_checks_recorded()) return;
  int before = MPI_THREAD_SINGLE, tools = -1, after = -1;
  MPI_Query_thread(&before);
  if (before == MPI_THREAD_SINGLE) {
    ordo::harness::record_check(
        "MPI_Query_thread after MPI_T_init_thread(MPI_THREAD_SINGLE)",
        {S::skip, "the process runs at MPI_THREAD_SINGLE: no lower level to ask for", ""});
    return;
  }
  // The harness opened the tools interface (the library's thresholds): it
  // is closed first, so that this is the interface's first initialization,
  // as in a program whose first MPI_T call comes after MPI_Init_thread.
  for (int i = 0; i < 16 && MPI_T_finalize() == MPI_SUCCESS; ++i) {
  }
  const int rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &tools);
  MPI_Query_thread(&after);
  if (rc == MPI_SUCCESS) MPI_T_finalize();
  LocalVerdict v;
  if (rc != MPI_SUCCESS)
    v = {S::fail,
         "MPI_T_init_thread(MPI_THREAD_SINGLE) returned " + ordo::harness::error_string(rc), ""};
  else if (after != before)
    v = {S::fail,
         "MPI_Query_thread reported " + std::to_string(before) +
             " (the level MPI_Init_thread gave) before MPI_T_init_thread(MPI_THREAD_SINGLE) and " +
             std::to_string(after) + " after it: the tools interface changed the MPI thread level",
         ""};
  ordo::harness::record_check("MPI_Query_thread after MPI_T_init_thread(MPI_THREAD_SINGLE)", v);
}

// Huge cases, planned a range of elements at a time (by_ranges.h).
#include "by_ranges.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "guarded_buffer.h"
#include "messages.h"
#include "mpi_dispatch.h"
#include "mpi_types.h"

namespace ordo::harness {
namespace {

constexpr std::size_t kWholePlanBytes = std::size_t{1} << 30;
constexpr std::size_t kRangeBytes = std::size_t{16} << 20;

// Calls f(first, n) over [0, count) in ranges of about kRangeBytes; stops
// at the first range for which f returns false.
template <class F>
void for_each_range(int count, std::ptrdiff_t extent, F f) {
  const int step = static_cast<int>(std::max<std::ptrdiff_t>(
      1, static_cast<std::ptrdiff_t>(kRangeBytes) / std::max<std::ptrdiff_t>(1, extent)));
  for (int first = 0; first < count; first += step)
    if (!f(first, std::min(step, count - first))) return;
}

}  // namespace

bool planned_by_ranges(const ref::Case& c, const CaseOptions& options, const ZooComm& z) {
  if (current_level() == Level::DETECT || !c.exact || options.repeat || options.extra) return false;
  try {
    const ref::Datatype dt = ref::Datatype::parse(c.datatype);
    const int per_rank =
        c.routine == ref::Routine::reduce_scatter || c.routine == ref::Routine::reduce_scatter_block
            ? world_size()
            : 1;
    if (static_cast<std::size_t>(std::abs(dt.extent())) * static_cast<std::size_t>(c.count) *
            static_cast<std::size_t>(per_rank) <=
        kWholePlanBytes)
      return false;
    ref::check_plannable_by_ranges(c, z.topology);
    return true;
  } catch (const std::exception&) {
    return false;  // judged (or failed as not valid) by the whole plan
  }
}

RankResult call_by_ranges(const ref::Case& c, const CaseOptions& options, const ZooComm& z) {
  RankResult out;
  ref::RankPlan plan;
  ref::Datatype dt = ref::Datatype::basic(ref::Basic::INT);
  try {
    dt = ref::Datatype::parse(c.datatype);
    plan = ref::plan_without_buffers(c, z.topology, z.role);
  } catch (const std::exception& e) {
    out.verdict = fail(std::string("ordo: the case is not valid: ") + e.what());
    return out;
  }
  const std::ptrdiff_t extent = dt.extent();
  const auto bytes = [&](int elements) {
    return static_cast<std::size_t>(elements) * static_cast<std::size_t>(extent);
  };
  CallHandles h;
  if (auto bad = make_handles(c, dt, z, &h)) {
    out.verdict = std::move(*bad);
    return out;
  }
  std::optional<GuardedBuffer> send, recv;
  send.emplace(bytes(plan.send_count), 0);
  for_each_range(plan.send_count, extent, [&](int first, int n) {
    send->write_at(bytes(first), ref::input_range(c, z.role, first, n));
    return true;
  });
  if (plan.recv_significant || !c.null_insignificant) {
    recv.emplace(bytes(plan.recv_count), 0);
    for_each_range(plan.recv_count, extent, [&](int first, int n) {
      recv->write_at(bytes(first), ref::recv_initial_range(c, z.role, first, n));
      return true;
    });
  }
  reset_unknown_datatype_calls();
  reset_recorded_calls();
  complete_by_test(false);
  const double t0 = MPI_Wtime();
  const int rc =
      invoke(Args{c, z, plan, h.dt, h.op, send->ptr(), recv ? recv->ptr() : nullptr, nullptr});
  out.seconds = MPI_Wtime() - t0;
  if (options.bare_call) return out;
  add_phase_time(Phase::call, out.seconds);
  PhaseTimer timer(Phase::check);
  const std::string routine =
      std::string(ref::mpi_routine_name(c.routine, c.mode)) + (c.large_count ? "_c" : "");
  if (rc != MPI_SUCCESS) {
    out.verdict = fail(returned(routine, rc, z));
    return out;
  }
  if (unknown_datatype_calls() > 0) {
    out.verdict = fail(other_datatype_handle(routine, z));
    return out;
  }
  // The send buffer: byte for byte the reference's input, guards intact.
  std::optional<LocalVerdict> bad;
  if (!send->guards_intact())
    bad =
        fail("bytes outside the send buffer were written (guard bytes changed, " + where(z) + ")");
  for_each_range(plan.send_count, extent, [&](int first, int n) {
    if (bad) return false;
    const ref::Buffer want = ref::input_range(c, z.role, first, n);
    const ref::Buffer seen = send->read_at(bytes(first), want);
    if (seen.storage() == want.storage()) return true;
    std::size_t i = 0;
    while (seen.storage()[i] == want.storage()[i]) ++i;
    bad = fail(send_buffer_modified(static_cast<std::ptrdiff_t>(bytes(first) + i), z));
    return false;
  });
  if (!bad && recv && !recv->guards_intact()) bad = fail(recv_guards_written(z));
  // The receive buffer: the reference's result, a range at a time.
  if (!bad && recv && plan.recv_significant && plan.result_defined)
    for_each_range(plan.recv_compare_elements, extent, [&](int first, int n) {
      const ref::Buffer want = ref::expected_range(c, z.topology, z.role, first, n);
      const ref::Difference d = ref::first_difference(want, recv->read_at(bytes(first), want));
      if (!d.any) return true;
      bad = fail(describe_values(d, first, static_cast<std::ptrdiff_t>(bytes(first))) + " (" +
                 where(z) + ")");
      return false;
    });
  if (bad) out.verdict = std::move(*bad);
  return out;
}

}  // namespace ordo::harness

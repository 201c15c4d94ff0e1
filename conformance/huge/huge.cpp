// Huge counts: one call of each large-count (_c) binding whose buffers hold
// more than 2^31 bytes, through a large datatype (elements of 1 MiB), so
// that a library that counts a call's bytes in an int overflows. Opt-in
// (`./ordo run --huge`, which sets ORDO_HUGE=1 for the ranks): the cases
// need GiB of memory per process, and without the option each is recorded
// as a skip that says so and how much. Each case is judged in full, as
// every case is (values against the reference, the send buffer unchanged,
// guard bytes intact); the harness plans it a range of elements at a time
// (conformance/harness/by_ranges.h), so that no process ever holds the other
// processes' inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "catalogue.h"

using namespace ordo::catalogue;
using S = ordo::harness::LocalVerdict::Status;

namespace {

// 2^18 ints: an element of 1 MiB, 2^16 cells of the witness ops.
const char* const kHugeType = "contiguous(262144,MPI_INT)";
constexpr long long kElementBytes = 1LL << 20;
// Elements one call moves: 2^31 bytes and one element more.
constexpr int kHugeElements = 2049;

bool opted_in() {
  const char* v = std::getenv("ORDO_HUGE");
  return v != nullptr && std::string(v) == "1";
}

// The count of a case whose call moves at least kHugeElements elements:
// the scattering routines' send buffer holds every process's block (the
// default recvcounts of Reduce_scatter are count-1, count, count+1, ...).
int huge_count(Routine r, int p) {
  if (r == Routine::reduce_scatter_block || r == Routine::reduce_scatter)
    return (kHugeElements + p - 1) / p + (r == Routine::reduce_scatter ? 1 : 0);
  return kHugeElements;
}

// About how many bytes one process needs for a case: its send and receive
// buffers and, for the library's temporaries, two buffers of the call's size
// (a partial result and a received operand); the harness's ranges of
// elements (16 MiB each) are small beside them. Measured peaks are in
// bench/results/huge.json: a library may need more for a moment.
long long bytes_needed(Routine r, int p) {
  const long long count = huge_count(r, p);
  long long send = count, recv = count;
  if (r == Routine::reduce_scatter_block || r == Routine::reduce_scatter) send = count * p;
  return (send + recv + 2 * std::max(send, recv)) * kElementBytes;
}

std::string gib(long long bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1LL << 30));
  return buf;
}

long long available_bytes() {  // MemAvailable of this node, -1 if unknown
  std::ifstream f("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (f >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return -1;
}

// The processes of the job on rank 0's node (they share its memory).
int processes_on_node() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

// Why the case is not run, or "": decided by rank 0 and sent to every rank
// (point-to-point on the harness's communicator), so that all agree.
std::string reason_not_to_run(Routine r, int on_node) {
  const int p = ordo::harness::world_size();
  std::string why;
  if (ordo::harness::world_rank() == 0) {
    const long long need = bytes_needed(r, p);
    const long long avail = available_bytes();
    if (!opted_in())
      why = "opt-in: ./ordo run --huge (needs about " + gib(need) + " GiB per process)";
    else if (avail >= 0 && need * on_node > avail * 9 / 10)
      why = "needs about " + gib(need) + " GiB per process, " + gib(need * on_node) +
            " GiB for the " + std::to_string(on_node) + " processes on this node, which has " +
            gib(avail) + " GiB available";
    for (int q = 1; q < p; ++q)
      MPI_Send(why.data(), static_cast<int>(why.size()), MPI_CHAR, q, 31014,
               ordo::harness::harness_comm());
  } else {
    MPI_Status st;
    MPI_Probe(0, 31014, ordo::harness::harness_comm(), &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    why.resize(static_cast<std::size_t>(n));
    MPI_Recv(why.data(), n, MPI_CHAR, 0, 31014, ordo::harness::harness_comm(), MPI_STATUS_IGNORE);
  }
  return why;
}

}  // namespace

TEST(Huge, large_count_bindings_reduce_more_than_2_31_bytes_in_one_call_through_a_large_datatype) {
  ORDO_CLAUSE("collective.huge-counts", MUST);
  const int p = ordo::harness::world_size();
  const int on_node = processes_on_node();
  for (Routine r : collectives_and_local()) {
    // witness.multiset: commutative (the library's large-message algorithms
    // may reorder it), with hashed cells that name a dropped, doubled or
    // misplaced contribution.
    Case c = at_last_root(make(r, "witness.multiset", kHugeType, huge_count(r, p)));
    c.large_count = true;
    // A library without the _c bindings: the harness's skip names them.
    const std::string why = ordo::harness::missing_feature(c) ? "" : reason_not_to_run(r, on_node);
    if (why.empty()) {
      ordo::harness::run_case(c);
      continue;
    }
    if (!ordo::harness::begin_case(&c)) continue;
    ordo::harness::record(c, {S::skip, why, ""}, 0, r == Routine::reduce_local ? 1 : p);
  }
}

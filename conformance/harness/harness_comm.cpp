// The harness's communicator and ordo's own point-to-point traffic on it
// (harness_comm.h): sharing rank 0's results, gathering to rank 0, and the
// polite waits that leave the cores to the rank still working.
#include "harness_comm.h"

#include <chrono>
#include <thread>

#include "harness_state.h"

namespace ordo::harness {
namespace {

constexpr int kTagShare = 31011;  // and 31012
constexpr int kTagGather = 31003;

// Waits for a receive from rank 0 without taking the processor from it: a
// process of the harness that waits for rank 0's word (its verdict, the
// rows it computed) tests the request, and after a few tests sleeps between
// them. With more processes than cores, a library that polls while it waits
// (MPICH 4.0.2 does) would otherwise share the cores with rank 0's work
// among every waiting process. Only ordo's own traffic waits so; the
// library's calls under test are never changed.
void wait_for_rank0(MPI_Request* request) {
  int done = 0;
  for (int tests = 0;; ++tests) {
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (tests >= 64)
      std::this_thread::sleep_for(std::chrono::microseconds(tests < 1024 ? 20 : 200));
  }
}

}  // namespace

int world_rank() { return state().job.rank; }
int world_size() { return state().job.size; }
MPI_Comm harness_comm() { return state().job.comm; }

// Rank 0's wait for another process's verdict, the same way: the others may
// still be judging their results when rank 0 is done with its own.
void probe_politely(int source, int tag, MPI_Status* status) {
  int found = 0;
  for (int tests = 0;; ++tests) {
    MPI_Iprobe(source, tag, state().job.comm, &found, status);
    if (found) return;
    if (tests >= 64)
      std::this_thread::sleep_for(std::chrono::microseconds(tests < 1024 ? 20 : 200));
  }
}

void recv_from_rank0(void* buf, int n, MPI_Datatype type, int tag) {
  MPI_Request request;
  MPI_Irecv(buf, n, type, 0, tag, state().job.comm, &request);
  wait_for_rank0(&request);
}

std::vector<int> from_rank0(const std::vector<int>& mine) {
  const HarnessState::Job& job = state().job;
  if (job.rank == 0) {
    int n = static_cast<int>(mine.size());
    for (int r = 1; r < job.size; ++r) {
      MPI_Send(&n, 1, MPI_INT, r, kTagShare, job.comm);
      MPI_Send(mine.data(), n, MPI_INT, r, kTagShare + 1, job.comm);
    }
    return mine;
  }
  int n = 0;
  recv_from_rank0(&n, 1, MPI_INT, kTagShare);
  std::vector<int> v(static_cast<std::size_t>(n));
  recv_from_rank0(v.data(), n, MPI_INT, kTagShare + 1);
  return v;
}

std::vector<std::string> gather_to_rank0(const std::string& bytes) {
  const HarnessState::Job& job = state().job;
  std::vector<std::string> all;
  if (job.rank != 0) {
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kTagGather, job.comm);
    return all;
  }
  all.resize(static_cast<std::size_t>(job.size));
  all[0] = bytes;
  for (int r = 1; r < job.size; ++r) {
    MPI_Status st;
    MPI_Probe(r, kTagGather, job.comm, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    all[static_cast<std::size_t>(r)].resize(static_cast<std::size_t>(n));
    MPI_Recv(all[static_cast<std::size_t>(r)].data(), n, MPI_BYTE, r, kTagGather, job.comm,
             MPI_STATUS_IGNORE);
  }
  return all;
}

}  // namespace ordo::harness

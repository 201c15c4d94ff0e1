// The C entry points the library interposes (everything else goes straight
// to the MPI library underneath). Nonblocking forms run to completion inside
// the call and return a request that is already complete; persistent forms
// return an inactive persistent request of the library's own (a receive from
// MPI_PROC_NULL) and run the operation when MPI_Start activates it.
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ordo/mpix_reduce_locals.h"
#include "refmpi.h"

#define ORDO_API extern "C" __attribute__((visibility("default")))

namespace ordo::refmpi {
namespace {

// The fortran-in-place-ignored mutant's trigger: while an entry point runs,
// whether its caller (the return address) lies in the library's Fortran
// binding (libmpichfort; Open MPI's libmpi_mpifh, libmpi_usempif08). Only
// with that mutant on; the reference never looks.
class FortranCaller {
 public:
  explicit FortranCaller(const void* return_address) {
    if (!mutant(Mutant::fortran_in_place_ignored)) return;
    Dl_info info{};
    const char* path = dladdr(return_address, &info) && info.dli_fname ? info.dli_fname : "";
    // The shared library's own name, not its folder's nor a program's.
    const char* slash = std::strrchr(path, '/');
    const char* f = slash ? slash + 1 : path;
    g_called_from_fortran =
        std::strncmp(f, "lib", 3) == 0 &&
        (std::strstr(f, "fort") || std::strstr(f, "mpifh") || std::strstr(f, "usempi"));
  }
  ~FortranCaller() { g_called_from_fortran = false; }
  FortranCaller(const FortranCaller&) = delete;
  FortranCaller& operator=(const FortranCaller&) = delete;
};
#define ORDO_FORTRAN_CALLER \
  const ::ordo::refmpi::FortranCaller fortran_caller(__builtin_return_address(0))

template <class F>
int eager(F run, MPI_Request* request) {
  g_in_nonblocking = true;
  const int rc = run();
  g_in_nonblocking = false;
  if (rc != MPI_SUCCESS) {
    *request = MPI_REQUEST_NULL;
    return rc;
  }
  return PMPI_Irecv(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request);
}

// MPI_Iallreduce requests not yet completed by MPI_Wait or MPI_Test, with
// their receive buffer's span: the outstanding-results-swapped mutant's
// bookkeeping (kept only when that mutant is on).
struct PendingAllreduce {
  MPI_Request request;
  MPI_Comm comm;
  char* lo;
  std::size_t bytes;
};
std::vector<PendingAllreduce>& pending_allreduces() {
  static std::vector<PendingAllreduce> v;
  return v;
}

void forget_request(MPI_Request r) {
  auto& v = pending_allreduces();
  for (auto it = v.begin(); it != v.end();) it = it->request == r ? v.erase(it) : it + 1;
}

// An MPI_Iallreduce(_c): run to completion in the call (eager). Fault
// (outstanding-results-swapped): started while another one on the same
// communicator is pending, the two calls exchange their results (the bytes
// their receive buffers span).
template <class F>
int eager_allreduce(F run, void* recvbuf, MPI_Count count, MPI_Datatype dt, MPI_Comm comm,
                    MPI_Request* request) {
  const int rc = eager(run, request);
  if (rc != MPI_SUCCESS || !mutant(Mutant::outstanding_results_swapped) || count <= 0) return rc;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_get_extent(dt, &lb, &extent);
  PMPI_Type_get_true_extent(dt, &true_lb, &true_extent);
  const PendingAllreduce mine{*request, comm, static_cast<char*>(recvbuf) + true_lb,
                              static_cast<std::size_t>((count - 1) * extent + true_extent)};
  for (PendingAllreduce& p : pending_allreduces())
    if (p.comm == comm && p.bytes == mine.bytes) {
      std::swap_ranges(p.lo, p.lo + p.bytes, mine.lo);
      break;
    }
  pending_allreduces().push_back(mine);
  return rc;
}

struct Persistent {
  MPI_Request request;
  std::function<int()> run;
  int starts = 0;  // how often MPI_Start activated it
};
std::vector<Persistent>& persistents() {
  static std::vector<Persistent> v;
  return v;
}

[[maybe_unused]] int persistent(std::function<int()> run, MPI_Request* request) {
  const int rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request);
  if (rc == MPI_SUCCESS) persistents().push_back({*request, std::move(run)});
  return rc;
}

int start(MPI_Request* request) {
  for (Persistent& p : persistents())
    if (p.request == *request) {
      if (mutant(Mutant::persistent_start_no_op)) break;  // Fault: nothing runs.
      // Fault: a restart leaves the first start's result (state not reset).
      if (p.starts++ > 0 && mutant(Mutant::persistent_restart_stale)) break;
      const int rc = p.run();
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
  return PMPI_Start(request);
}

}  // namespace
}  // namespace ordo::refmpi

namespace r = ordo::refmpi;

#ifdef ORDO_REFMPI_MUTANTS
// An unknown ORDO_MUTANT stops the process as soon as the library loads.
__attribute__((constructor)) static void ordo_check_mutant_name() { r::active_mutant(); }
#endif

// ---- blocking ------------------------------------------------------------------------

ORDO_API int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm) {
  ORDO_FORTRAN_CALLER;
  return r::reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

ORDO_API int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
  ORDO_FORTRAN_CALLER;
  return r::allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

ORDO_API int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ORDO_FORTRAN_CALLER;
  return r::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

ORDO_API int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ORDO_FORTRAN_CALLER;
  return r::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

ORDO_API int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm) {
  ORDO_FORTRAN_CALLER;
  return r::scan(sendbuf, recvbuf, count, datatype, op, comm);
}

ORDO_API int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  ORDO_FORTRAN_CALLER;
  return r::exscan(sendbuf, recvbuf, count, datatype, op, comm);
}

// ---- nonblocking ------------------------------------------------------------------------

ORDO_API int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  ORDO_FORTRAN_CALLER;
  return r::eager([&] { return r::reduce(sendbuf, recvbuf, count, datatype, op, root, comm); },
                  request);
}

ORDO_API int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ORDO_FORTRAN_CALLER;
  return r::eager_allreduce(
      [&] { return r::allreduce(sendbuf, recvbuf, count, datatype, op, comm); }, recvbuf, count,
      datatype, comm, request);
}

ORDO_API int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  ORDO_FORTRAN_CALLER;
  return r::eager(
      [&] { return r::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); }, request);
}

ORDO_API int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                       MPI_Request* request) {
  ORDO_FORTRAN_CALLER;
  return r::eager(
      [&] { return r::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); },
      request);
}

ORDO_API int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ORDO_FORTRAN_CALLER;
  return r::eager([&] { return r::scan(sendbuf, recvbuf, count, datatype, op, comm); }, request);
}

ORDO_API int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ORDO_FORTRAN_CALLER;
  return r::eager([&] { return r::exscan(sendbuf, recvbuf, count, datatype, op, comm); }, request);
}

// ---- persistent (MPI-4.0), where the library's mpi.h declares them -----------------------

#ifdef ORDO_REFMPI_PERSISTENT
ORDO_API int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return r::persistent([=] { return r::reduce(sendbuf, recvbuf, count, datatype, op, root, comm); },
                       request);
}

ORDO_API int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                MPI_Request* request) {
  return r::persistent([=] { return r::allreduce(sendbuf, recvbuf, count, datatype, op, comm); },
                       request);
}

ORDO_API int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                     MPI_Request* request) {
  int size = 0;  // of the local group, on an intercommunicator too
  PMPI_Comm_size(comm, &size);
  const std::vector<int> counts(recvcounts, recvcounts + size);
  return r::persistent(
      [=] { return r::reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, comm); },
      request);
}

ORDO_API int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                           MPI_Info, MPI_Request* request) {
  return r::persistent(
      [=] { return r::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); },
      request);
}

ORDO_API int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return r::persistent([=] { return r::scan(sendbuf, recvbuf, count, datatype, op, comm); },
                       request);
}

ORDO_API int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return r::persistent([=] { return r::exscan(sendbuf, recvbuf, count, datatype, op, comm); },
                       request);
}
#endif

// ---- large-count bindings (MPI-4.0), where the library's mpi.h declares them -------------
// The reference folds counts that fit an int; larger ones are refused.

#ifdef ORDO_REFMPI_LARGE_COUNT
namespace ordo::refmpi {
namespace {
bool narrow(MPI_Count n, int* out) {
  if (n < 0 || n > INT_MAX) return false;
  *out = static_cast<int>(n);
  return true;
}
bool narrow_all(const MPI_Count counts[], MPI_Comm comm, std::vector<int>* out) {
  int size = 0;
  if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return false;
  out->resize(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i)
    if (!narrow(counts[i], &(*out)[i])) return false;
  return true;
}
int too_large(MPI_Comm comm) {
  PMPI_Comm_call_errhandler(comm, MPI_ERR_COUNT);
  return MPI_ERR_COUNT;
}
}  // namespace
}  // namespace ordo::refmpi

#define ORDO_NARROW(n, comm) \
  int n##_int;               \
  if (!r::narrow(n, &n##_int)) return r::too_large(comm)
#define ORDO_NARROW_ALL(counts, comm) \
  std::vector<int> counts##_int;      \
  if (!r::narrow_all(counts, comm, &counts##_int)) return r::too_large(comm)

ORDO_API int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  ORDO_NARROW(count, comm);
  return r::reduce(sendbuf, recvbuf, count_int, datatype, op, root, comm);
}
ORDO_API int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ORDO_NARROW(count, comm);
  return r::allreduce(sendbuf, recvbuf, count_int, datatype, op, comm);
}
ORDO_API int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ORDO_NARROW_ALL(recvcounts, comm);
  return r::reduce_scatter(sendbuf, recvbuf, recvcounts_int.data(), datatype, op, comm);
}
ORDO_API int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ORDO_NARROW(recvcount, comm);
  return r::reduce_scatter_block(sendbuf, recvbuf, recvcount_int, datatype, op, comm);
}
ORDO_API int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  ORDO_NARROW(count, comm);
  return r::scan(sendbuf, recvbuf, count_int, datatype, op, comm);
}
ORDO_API int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  ORDO_NARROW(count, comm);
  return r::exscan(sendbuf, recvbuf, count_int, datatype, op, comm);
}
ORDO_API int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op) {
  ORDO_NARROW(count, MPI_COMM_SELF);
  return r::reduce_local(inbuf, inoutbuf, count_int, datatype, op);
}
ORDO_API int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                           MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return r::eager([&] { return r::reduce(sendbuf, recvbuf, count_int, datatype, op, root, comm); },
                  request);
}
ORDO_API int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return r::eager_allreduce(
      [&] { return r::allreduce(sendbuf, recvbuf, count_int, datatype, op, comm); }, recvbuf,
      count_int, datatype, comm, request);
}
ORDO_API int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Request* request) {
  ORDO_NARROW_ALL(recvcounts, comm);
  return r::eager(
      [&] {
        return r::reduce_scatter(sendbuf, recvbuf, recvcounts_int.data(), datatype, op, comm);
      },
      request);
}
ORDO_API int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                         MPI_Request* request) {
  ORDO_NARROW(recvcount, comm);
  return r::eager(
      [&] { return r::reduce_scatter_block(sendbuf, recvbuf, recvcount_int, datatype, op, comm); },
      request);
}
ORDO_API int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return r::eager([&] { return r::scan(sendbuf, recvbuf, count_int, datatype, op, comm); },
                  request);
}
ORDO_API int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return r::eager([&] { return r::exscan(sendbuf, recvbuf, count_int, datatype, op, comm); },
                  request);
}
#ifdef ORDO_REFMPI_PERSISTENT
ORDO_API int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return MPI_Reduce_init(sendbuf, recvbuf, count_int, datatype, op, root, comm, info, request);
}
ORDO_API int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return MPI_Allreduce_init(sendbuf, recvbuf, count_int, datatype, op, comm, info, request);
}
ORDO_API int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf,
                                       const MPI_Count recvcounts[], MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm, MPI_Info info,
                                       MPI_Request* request) {
  ORDO_NARROW_ALL(recvcounts, comm);
  return MPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts_int.data(), datatype, op, comm, info,
                                 request);
}
ORDO_API int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  ORDO_NARROW(recvcount, comm);
  return MPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount_int, datatype, op, comm, info,
                                       request);
}
ORDO_API int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return MPI_Scan_init(sendbuf, recvbuf, count_int, datatype, op, comm, info, request);
}
ORDO_API int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  ORDO_NARROW(count, comm);
  return MPI_Exscan_init(sendbuf, recvbuf, count_int, datatype, op, comm, info, request);
}
#endif
#endif

ORDO_API int MPI_Start(MPI_Request* request) { return r::start(request); }

ORDO_API int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (!r::pending_allreduces().empty()) r::forget_request(*request);
  return PMPI_Wait(request, status);
}

ORDO_API int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const MPI_Request handle = *request;
  const int rc = PMPI_Test(request, flag, status);
  if (rc == MPI_SUCCESS && *flag && !r::pending_allreduces().empty()) r::forget_request(handle);
  return rc;
}

ORDO_API int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  for (int i = 0; i < count; ++i) {
    const int rc = r::start(&array_of_requests[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

ORDO_API int MPI_Request_free(MPI_Request* request) {
  auto& v = r::persistents();
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it->request == *request) {
      v.erase(it);
      break;
    }
  return PMPI_Request_free(request);
}

// ---- local reductions and ops -----------------------------------------------------------

ORDO_API int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                              MPI_Op op) {
  return r::reduce_local(inbuf, inoutbuf, count, datatype, op);
}

ORDO_API int MPIX_Reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op) {
  return r::reduce_locals(inbuf, argbuf, inoutbuf, count, datatype, op);
}

// MPICH's mpi_f08 binding creates a Fortran user op with PMPI_Op_create,
// past MPI_Op_create: the reference takes that entry too (the library's own
// from the next object in the lookup order), so that every user op the
// program makes, in C or in Fortran, is applied by the reference's fold.
ORDO_API int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  using Create = int (*)(MPI_User_function*, int, MPI_Op*);
  static const Create library = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "PMPI_Op_create"));
  const int rc = library ? library(user_fn, commute, op) : MPI_ERR_INTERN;
  if (rc == MPI_SUCCESS) r::register_user_op(*op, user_fn, nullptr, commute != 0);
  return rc;
}

ORDO_API int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return PMPI_Op_create(user_fn, commute, op);
}

#ifdef ORDO_REFMPI_LARGE_COUNT
ORDO_API int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  const int rc = PMPI_Op_create_c(user_fn, commute, op);
  if (rc == MPI_SUCCESS) r::register_user_op(*op, nullptr, user_fn, commute != 0);
  return rc;
}
#endif

ORDO_API int MPI_Op_free(MPI_Op* op) {
  const MPI_Op handle = *op;
  const int rc = PMPI_Op_free(op);
  if (rc == MPI_SUCCESS) r::forget_user_op(handle);
  return rc;
}

// The type constructors of C: each new handle is noted as made and not yet
// committed, so that a reduction given it fails with MPI_ERR_TYPE on every
// process alike (Section 5.1.9: a datatype is committed before it is used in
// a communication) instead of leaving the check to the library beneath,
// whose point-to-point reports it on some processes only while the others
// wait. MPI_Type_dup is not noted (its result shares its old type's state),
// nor a handle the library's own Fortran bindings make past these entry
// points (Open MPI's call PMPI_* directly): only a handle seen made here and
// never seen committed is rejected.
#define ORDO_MADE(call)                                      \
  do {                                                       \
    const int rc_ = (call);                                  \
    if (rc_ == MPI_SUCCESS) r::note_made_datatype(*newtype); \
    return rc_;                                              \
  } while (0)

ORDO_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_contiguous(count, oldtype, newtype));
}
ORDO_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_vector(count, blocklength, stride, oldtype, newtype));
}
ORDO_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype));
}
ORDO_API int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_indexed(count, blocklengths, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_hindexed(int count, const int blocklengths[],
                                      const MPI_Aint displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_indexed_block(count, blocklength, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_hindexed_block(int count, int blocklength,
                                            const MPI_Aint displacements[], MPI_Datatype oldtype,
                                            MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_hindexed_block(count, blocklength, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_struct(int count, const int blocklengths[],
                                    const MPI_Aint displacements[], const MPI_Datatype types[],
                                    MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype));
}
ORDO_API int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                                      const int starts[], int order, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, oldtype, newtype));
}
ORDO_API int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                                    const int distribs[], const int dargs[], const int psizes[],
                                    int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                                    oldtype, newtype));
}
ORDO_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                     MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_resized(oldtype, lb, extent, newtype));
}

#ifdef ORDO_REFMPI_LARGE_COUNT
ORDO_API int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_contiguous_c(count, oldtype, newtype));
}
ORDO_API int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_vector_c(count, blocklength, stride, oldtype, newtype));
}
ORDO_API int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_hvector_c(count, blocklength, stride, oldtype, newtype));
}
ORDO_API int MPI_Type_indexed_c(MPI_Count count, const MPI_Count blocklengths[],
                                const MPI_Count displacements[], MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_indexed_c(count, blocklengths, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[],
                                        const MPI_Count displacements[], MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_hindexed_c(count, blocklengths, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                             const MPI_Count displacements[], MPI_Datatype oldtype,
                                             MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_indexed_block_c(count, blocklength, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                              const MPI_Count displacements[], MPI_Datatype oldtype,
                                              MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_hindexed_block_c(count, blocklength, displacements, oldtype, newtype));
}
ORDO_API int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count blocklengths[],
                                      const MPI_Count displacements[], const MPI_Datatype types[],
                                      MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_struct_c(count, blocklengths, displacements, types, newtype));
}
ORDO_API int MPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[],
                                        const MPI_Count subsizes[], const MPI_Count starts[],
                                        int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_subarray_c(ndims, sizes, subsizes, starts, order, oldtype, newtype));
}
ORDO_API int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[],
                                      const int distribs[], const int dargs[], const int psizes[],
                                      int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_darray_c(size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                                      oldtype, newtype));
}
ORDO_API int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                       MPI_Datatype* newtype) {
  ORDO_MADE(PMPI_Type_create_resized_c(oldtype, lb, extent, newtype));
}
#endif
#undef ORDO_MADE

ORDO_API int MPI_Type_commit(MPI_Datatype* datatype) {
  const int rc = PMPI_Type_commit(datatype);
  if (rc == MPI_SUCCESS) r::note_committed_datatype(*datatype);
  return rc;
}

ORDO_API int MPI_Type_free(MPI_Datatype* datatype) {
  const MPI_Datatype handle = *datatype;
  const int rc = PMPI_Type_free(datatype);
  if (rc == MPI_SUCCESS) r::forget_datatype(handle);
  return rc;
}

ORDO_API int MPI_Op_commutative(MPI_Op op, int* commute) {
  if (const auto c = r::commutative(op)) {
    *commute = *c ? 1 : 0;
    return MPI_SUCCESS;
  }
  return PMPI_Op_commutative(op, commute);
}

// The library says what it is: the reference (or a mutant) over the library.
ORDO_API int MPI_Get_library_version(char* version, int* resultlen) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  const int rc = PMPI_Get_library_version(lib, &n);
  if (rc != MPI_SUCCESS) return rc;
#ifdef ORDO_REFMPI_MUTANTS
  std::string s = std::string("ordo mutant MPI (mutant ") + r::mutant_name(r::active_mutant()) +
                  ", rank-ordered, over PMPI) on: ";
#else
  std::string s = "ordo reference MPI (rank-ordered, over PMPI) on: ";
#endif
  // Open MPI 4.1 counts the terminating NUL in resultlen: printable characters only.
  s.append(lib, strnlen(lib, static_cast<std::size_t>(n)));
  if (s.size() > MPI_MAX_LIBRARY_VERSION_STRING - 1) s.resize(MPI_MAX_LIBRARY_VERSION_STRING - 1);
  std::memcpy(version, s.c_str(), s.size() + 1);
  *resultlen = static_cast<int>(s.size());
  return MPI_SUCCESS;
}

// The call of a case to the library under test: its routine in its form
// (blocking, nonblocking, persistent; the int or the large-count `_c`
// binding; C, or the f08 or f90 binding through ordo's Fortran layer), with
// the arguments the case names, and the completion of its request.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

#include "comm_zoo.h"
#include "harness.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::harness {

// What one call is handed.
struct Args {
  const ref::Case& c;
  const ZooComm& z;
  const ref::RankPlan& plan;
  MPI_Datatype dt;
  MPI_Op op;
  const void* send;
  void* recv;
  const void* arg;
  // A persistent request is not freed after its first start but handed
  // here, for the next starts (run_on_rank); null: freed at once.
  MPI_Request* keep = nullptr;
  // A nonblocking call's request is handed here instead of being completed
  // (the outstanding and freed concurrency); null: completed at once.
  MPI_Request* pending = nullptr;
  // Where the call's arrays (Reduce_scatter's recvcounts) are held while a
  // request the call leaves behind (keep, pending) may read them: until it
  // completes, and a persistent one until it is freed (MPI-4.1 and MPI-5.0
  // 6.12: arrays of counts are not modified until the operation completes).
  // Null: the call completes in invoke() and its arrays go with it.
  std::shared_ptr<const void>* hold = nullptr;
};

// The datatype and op handles a case's call is passed (mpi_types.h), and
// what was said making them.
struct CallHandles {
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  std::string why;
  bool constructor_failed = false;
  std::string op_error;
};

// Makes them; the verdict when they cannot be made: a basic type the
// library lacks is a skip; a constructor that returned an error, or an op
// that could not be made, is the library's failure, with its error string.
std::optional<LocalVerdict> make_handles(const ref::Case& c, const ref::Datatype& dt,
                                         const ZooComm& z, CallHandles* h);

// Issues the call in the case's form. Returns the MPI error code.
int invoke(const Args& k);

// How the running case's requests are completed: MPI_Wait, or with the
// "test" concurrency a loop of MPI_Test (the case watchdog bounds a library
// whose tests never complete it). Set before each call.
void complete_by_test(bool by_test);
int complete(MPI_Request* req);

}  // namespace ordo::harness

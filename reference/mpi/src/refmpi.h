// The reference MPI: the reduce family over MPI point-to-point, in strict
// rank order, interposed through PMPI on top of a real MPI library.
//
// Every collective is the standard's naive sequential algorithm (MPI-4.1
// Section 6.9.1, advice to implementors): the inputs travel to one process,
// which receives them in ascending rank order and folds them one combine at
// a time, x0 o x1 o ... o x(p-1), with invec the lower-ranked partial result
// (Section 6.9.5); the results travel back. Predefined ops are computed by
// ordo's MPI-free reference (reference/src/op.cpp), so the arithmetic and the
// op x type table are those the checks judge against; user ops are called
// through the function registered with MPI_Op_create.
//
// Internal traffic runs on a private communicator per user communicator (a
// dup, or for an intercommunicator the merged intracommunicator), cached as
// an attribute, so it never matches user messages.
#pragma once

#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "mutants.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/op.h"

namespace ordo::refmpi {

// ---- datatypes ----------------------------------------------------------------

struct Layout {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  int size = 0;
};
// MPI_SUCCESS or the error of an invalid datatype handle (a freed one
// included: see forget_datatype).
int layout_of(MPI_Datatype dt, Layout* out);
// MPI_Type_free notes the handle it frees, MPI_Type_commit the handle it
// commits (a library may hand a freed handle's value to a new type): a
// reduction given a freed handle fails with MPI_ERR_TYPE instead of asking
// the library about a datatype that no longer exists (Section 2.5.1).
void forget_datatype(MPI_Datatype dt);
void note_committed_datatype(MPI_Datatype dt);
// A type constructor of C made this handle: until MPI_Type_commit notes it,
// a reduction given it fails with MPI_ERR_TYPE (see bindings.cpp).
void note_made_datatype(MPI_Datatype dt);

// The reference's model of an MPI datatype (decoded with
// MPI_Type_get_envelope / get_contents); nullopt when it uses a constructor
// or basic type the reference does not model.
std::optional<ref::Datatype> reference_datatype(MPI_Datatype dt);

// Scratch memory for `count` elements of a datatype, laid out as MPI lays
// them out (so the same datatype addresses it), zero-filled.
class Temp {
 public:
  Temp() = default;
  Temp(int count, const Layout& l);
  void* ptr() { return mem_.data() + shift_; }
  const void* ptr() const { return mem_.data() + shift_; }

 private:
  std::vector<std::byte> mem_;
  std::ptrdiff_t shift_ = 0;
};

// Copies the data of `count` elements (never the holes) from src to dst.
int copy_typed(const void* src, void* dst, int count, MPI_Datatype dt);
// Sends `count` elements of a user or scratch buffer; receives them into scratch.
int isend_typed(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request* req);
int send_typed(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int recv_typed(Temp& into, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm);

// The single path by which results reach a user's receive buffer: writes the
// data of `count` elements of `result` (scratch) into recvbuf, never a hole.
int deliver(const void* result, void* recvbuf, int count, MPI_Datatype dt, const Layout& l);

// ---- ops -------------------------------------------------------------------------

// User functions, recorded by the MPI_Op_create(_c) / MPI_Op_free wrappers.
#ifdef ORDO_REFMPI_LARGE_COUNT
using UserFunctionC = MPI_User_function_c;
#else
using UserFunctionC = void(void*, void*, MPI_Count*, MPI_Datatype*);
#endif
void register_user_op(MPI_Op op, MPI_User_function* fn, UserFunctionC* fn_c, bool commute);
void forget_user_op(MPI_Op op);
// MPI_Op_commutative as the reference answers it: true for every predefined
// op (MPI-4.1 Section 6.9.2), the declared flag of a user op; nullopt for an
// op it does not know.
std::optional<bool> commutative(MPI_Op op);

// An op resolved against a datatype, ready to combine.
struct Combiner {
  enum class Kind { user, reference, library } kind = Kind::library;
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_User_function* fn = nullptr;
  UserFunctionC* fn_c = nullptr;
  std::optional<ref::Op> ref_op;
  std::optional<ref::Datatype> ref_dt;
};
// MPI_SUCCESS, or MPI_ERR_OP when the op may not be used with the datatype
// in a reduction (MPI-4.1 Sections 6.9.2 to 6.9.4, as the reference tables them).
int resolve(MPI_Op op, MPI_Datatype dt, Combiner* out);
// inoutvec := invec o inoutvec, `count` elements, one call.
int combine(const Combiner& c, const void* invec, void* inoutvec, int count);

// ---- communicators ----------------------------------------------------------------

struct Private {
  MPI_Comm comm = MPI_COMM_NULL;  // the private intracommunicator
  bool inter = false;
  int rank = 0;             // this process in the user communicator (its group)
  int me = 0;               // this process in `comm`
  int size = 0;             // size of the user communicator (its local group)
  std::vector<int> local;   // rank in `comm` of each rank of the local group
  std::vector<int> remote;  // intercommunicators: of each rank of the remote group
  // The order in which a collector receives and folds the remote group's
  // inputs: `remote` (rank order), except under the mutant
  // intercomm-remote-in-world-order.
  std::vector<int> remote_fold;
};
// The private communicator of a user communicator, created at first use
// (collective: every process of `comm` reaches its first reduce-family call
// in the same order). Returns an MPI error code.
int private_of(MPI_Comm comm, const Private** out);

// ---- the routines (blocking; the nonblocking and persistent forms call them) --------

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
           MPI_Comm comm);
int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm);
int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm);
int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op,
           MPI_Comm comm);
int reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype dt, MPI_Op op);
int reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count, MPI_Datatype dt,
                  MPI_Op op);

// Set while a nonblocking form runs its blocking core (a mutant hook).
extern thread_local bool g_in_nonblocking;
// The running collective was called by the library's Fortran binding (set
// by the entry points only while the fortran-in-place-ignored mutant is on).
extern thread_local bool g_called_from_fortran;

}  // namespace ordo::refmpi

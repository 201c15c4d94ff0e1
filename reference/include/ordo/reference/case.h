// A case: one call of one routine, as plain data. The same type is read by
// the oracle, the MPI harness, the property generators, the reproducer
// writer and the reports (serialised as one JSON object).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::ref {

enum class Routine {
  reduce,
  allreduce,
  reduce_scatter,
  reduce_scatter_block,
  scan,
  exscan,
  reduce_local,
  reduce_locals
};
enum class Mode { blocking, nonblocking, persistent };

std::string_view routine_name(Routine r);  // "reduce", ...
std::optional<Routine> routine_from_name(std::string_view s);
std::string_view mpi_routine_name(Routine r, Mode m);  // "MPI_Ireduce", ...
std::string_view mode_name(Mode m);
std::optional<Mode> mode_from_name(std::string_view s);

struct Case {
  Routine routine = Routine::reduce;
  std::string op = "MPI_SUM";        // an MPI_ predefined op name or a witness name
  std::string datatype = "MPI_INT";  // text form of ordo::ref::Datatype
  // MPI_Reduce only: the datatype the root passes (same type signature). The
  // other ranks' send datatype may then overlap itself, which is allowed in a
  // send buffer and erroneous in the root's receive buffer (MPI-4.1 6.9.1).
  std::string root_datatype;
  int count = 1;  // elements per send buffer (reduce_scatter: derived)
  // reduce_scatter: per rank (low group's, then high group's); empty: an
  // uneven pattern with zeros (see ordo::ref::effective_recvcounts).
  // reduce_scatter_block on an intercommunicator: {low group's, high group's}.
  std::vector<int> recvcounts;
  int root = 0;                     // reduce: rank of the root in its group
  std::string comm = "world";       // communicator shape, see conformance/harness/comm_zoo.h
  bool root_in_high_group = false;  // intercommunicator reduce: which group holds the root
  bool in_place = false;
  // Buffers that are not significant for a rank (the send buffer at an
  // intercommunicator root, the receive buffer at a non-root) are passed as
  // NULL when true, as valid buffers the call must leave alone when false.
  bool null_insignificant = true;
  Mode mode = Mode::blocking;
  // reduce_locals: which arguments are MPI_IN_PLACE or the same buffer.
  bool locals_in_is_in_place = false;
  bool locals_arg_is_in_place = false;
  bool locals_arg_is_in = false;
  // Large-count (MPI-4 "_c") bindings with MPI_Count arguments.
  bool large_count = false;
  // The language binding the call is made through (MPI-4.1 Chapter 19): "c",
  // "f08" (the mpi_f08 module) or "f90" (the mpi module), the latter two
  // through ordo's Fortran layer (conformance/harness/fortran/), whose
  // witness user functions are then Fortran procedures too. Only the call
  // changes: the oracle and the verdicts do not read it.
  std::string binding = "c";
  // false: floating-point inputs drawn over a wide range, so that the order
  // of evaluation changes the rounding (judged within an error bound and for
  // identical results on all ranks, never bit for bit against the reference).
  bool exact = true;
  // Erroneous on purpose (DETECT checks): sendbuf == recvbuf.
  bool alias_send_recv = false;
  // Erroneous on purpose (DETECT checks): which argument of the call is
  // erroneous, empty for a valid case (and then absent from the JSON).
  //   op_null, datatype_null: MPI_OP_NULL / MPI_DATATYPE_NULL is passed
  //     instead of op / datatype (which still lay out the buffers);
  //   uncommitted_type: a derived datatype with datatype's typemap
  //     (MPI_Type_contiguous(1, datatype)) that was never committed;
  //   freed_type: the same datatype, committed, then freed before the call;
  //   freed_op: a user op made by MPI_Op_create and freed before the call;
  //   root_out_of_range: root (reduce) is not a rank of the root's group;
  //   root_is_mpi_root: every process passes MPI_ROOT on an intracommunicator;
  //   negative_count: count (reduce_scatter: recvcounts[0], reduce_scatter_block:
  //     recvcount) is passed negated (-max(1, n)), int bindings only;
  //   in_place_on_intercomm: in_place on an intercommunicator shape (every
  //     process passes MPI_IN_PLACE as sendbuf);
  //   aliased: alias_send_recv (sendbuf == recvbuf).
  std::string erroneous;
  // How the call meets other activity (the crossing's concurrency
  // dimension); empty: one call, completed by MPI_Wait (and then absent from
  // the JSON). valid_concurrency() says which forms take which.
  //   test: the request completed by a loop of MPI_Test (progress driven by
  //     the tests), in the nonblocking and persistent forms;
  //   outstanding: three calls of the case (the inputs of three seeds, each
  //     its own buffers) outstanding at once on the communicator, completed
  //     in reverse order (nonblocking form);
  //   freed: the call's user op and derived datatype are handles made for it
  //     and freed while its request is pending, which MPI-4.1 allows
  //     (MPI_Op_free, MPI_Type_free: the object goes when the pending
  //     operations that use it complete) (nonblocking form).
  std::string concurrency;
  std::uint64_t seed = 1;

  std::string to_json() const;
  static Case from_json(std::string_view json);  // throws UsageError
  std::string describe() const;                  // one line, for messages
};

// Why the case cannot be run with its concurrency (an unknown value, a form
// or routine that does not take it), or "" when it can. Not a semantic
// error of MPI: the harness's own reach.
std::string concurrency_conflict(const Case& c);

}  // namespace ordo::ref

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
  // false: floating-point inputs drawn over a wide range, so that the order
  // of evaluation changes the rounding (judged within an error bound and for
  // identical results on all ranks, never bit for bit against the reference).
  bool exact = true;
  // Erroneous on purpose (DETECT checks): sendbuf == recvbuf.
  bool alias_send_recv = false;
  std::uint64_t seed = 1;

  std::string to_json() const;
  static Case from_json(std::string_view json);  // throws UsageError
  std::string describe() const;                  // one line, for messages
};

}  // namespace ordo::ref

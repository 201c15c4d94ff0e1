#include "ordo/reference/erroneous.h"

#include "ordo/reference/errors.h"

namespace ordo::ref {

const std::vector<std::string>& erroneous_kinds() {
  static const std::vector<std::string> v = {
      "op_null",          "datatype_null",  "uncommitted_type",
      "freed_type",       "freed_op",       "root_out_of_range",
      "root_is_mpi_root", "negative_count", "in_place_on_intercomm",
      "aliased"};
  return v;
}

void check_erroneous(const Case& c, const Topology& t) {
  const std::string& k = c.erroneous;
  if (k.empty()) return;
  const std::string call(mpi_routine_name(c.routine, c.mode));
  auto refuse = [&](const std::string& why) {
    throw UsageError("case declares the erroneous argument '" + k + "' but " + why);
  };
  const bool collective = c.routine != Routine::reduce_local && c.routine != Routine::reduce_locals;
  // A null handle is an erroneous IN argument unless the routine says
  // otherwise (MPI-4.1 2.5.1); none of the reduction routines does.
  if (k == "op_null") throw SemanticsError("op.null-handle", call + " with MPI_OP_NULL as its op");
  if (k == "datatype_null")
    throw SemanticsError("datatype.null-handle", call + " with MPI_DATATYPE_NULL as its datatype");
  if (k == "uncommitted_type")
    throw SemanticsError("datatype.commit-before-use",
                         call + " with a derived datatype that was never committed");
  if (k == "freed_type")
    throw SemanticsError("datatype.freed-handle",
                         call + " with a datatype freed by MPI_Type_free before the call");
  if (k == "freed_op")
    throw SemanticsError("op.freed-handle",
                         call + " with a user op freed by MPI_Op_free before the call");
  if (k == "root_out_of_range") {
    if (c.routine != Routine::reduce) refuse("only MPI_Reduce takes a root");
    const int n = t.inter ? (c.root_in_high_group ? t.size_high : t.size_low) : t.size_low;
    if (c.root >= 0 && c.root < n)
      refuse("root " + std::to_string(c.root) + " is a rank of the root's group");
    throw SemanticsError("reduce.root-valid", call + " with root " + std::to_string(c.root) +
                                                  ", not a rank of a group of " +
                                                  std::to_string(n));
  }
  if (k == "root_is_mpi_root") {
    if (c.routine != Routine::reduce) refuse("only MPI_Reduce takes a root");
    if (t.inter) refuse("MPI_ROOT is the root's own value on an intercommunicator");
    throw SemanticsError("reduce.root-valid",
                         call + " with MPI_ROOT as root on an intracommunicator");
  }
  if (k == "negative_count") {
    if (c.routine == Routine::reduce_locals) refuse("ordo does not run MPIX_Reduce_locals with it");
    if (c.large_count) refuse("ordo passes a negative count through the int bindings only");
    const char* what = c.routine == Routine::reduce_scatter         ? "a negative recvcounts entry"
                       : c.routine == Routine::reduce_scatter_block ? "a negative recvcount"
                                                                    : "a negative count";
    throw SemanticsError("collective.count-non-negative", call + " with " + what);
  }
  if (k == "in_place_on_intercomm") {
    if (!t.inter || !c.in_place || !collective || c.routine == Routine::scan ||
        c.routine == Routine::exscan)
      refuse(
          "it needs in_place on an intercommunicator, in a routine that has an intercommunicator "
          "form");
    throw SemanticsError("collective.in-place-intracomm-only",
                         call + " with MPI_IN_PLACE on an intercommunicator");
  }
  if (k == "aliased") {
    if (!c.alias_send_recv || c.routine == Routine::reduce_locals)
      refuse("it needs alias_send_recv, in a routine other than MPIX_Reduce_locals");
    throw SemanticsError(
        "buffers.send-recv-aliasing",
        call + " with the same memory as send and receive buffer (sendbuf == recvbuf)");
  }
  refuse("ordo knows no such kind");
}

}  // namespace ordo::ref

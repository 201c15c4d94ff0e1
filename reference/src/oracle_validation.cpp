// The oracle's validation: which cases are well formed and not erroneous
// (validate_case: SemanticsError for a call the standard makes erroneous,
// UsageError for a malformed case), the op a case names, the recvcounts of
// the scattering routines on a topology, and which cases can be planned a
// range of elements at a time. The rest of the oracle: oracle_inputs.cpp
// (the buffers' contents) and oracle_planning.cpp (each rank's plan).
#include <algorithm>
#include <numeric>
#include <string>

#include "ordo/reference/erroneous.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/oracle.h"
#include "ordo/reference/semantics.h"
#include "ordo/reference/witness.h"

namespace ordo::ref {
namespace {

bool allows_in_place(Routine r) {
  return r != Routine::reduce_local && r != Routine::reduce_locals;
}

}  // namespace

Op op_for_case(const Case& c) {
  if (witness::is_witness(c.op)) return witness::make(c.op);
  auto p = op_from_name(c.op);
  if (!p) throw UsageError("unknown op '" + c.op + "'");
  return Op::predefined(*p);
}

std::vector<int> effective_recvcounts(const Case& c, const Topology& t) {
  if (!c.recvcounts.empty()) return c.recvcounts;
  if (c.routine == Routine::reduce_scatter_block) {
    if (!t.inter) return {};
    // low * size_low == high * size_high: each group scatters count * other size... elements.
    return {c.count * t.size_high, c.count * t.size_low};
  }
  auto pattern = [&](int n) {
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back(std::max(0, c.count + (i % 3) - 1));
    return v;
  };
  std::vector<int> v = pattern(t.size_low);
  if (!t.inter) return v;
  const int total = std::accumulate(v.begin(), v.end(), 0);
  std::vector<int> high(static_cast<std::size_t>(t.size_high), total / t.size_high);
  high.back() += total % t.size_high;
  v.insert(v.end(), high.begin(), high.end());
  return v;
}

void validate_case(const Case& c, const Topology& t) {
  const Datatype dt = Datatype::parse(c.datatype);
  check_erroneous(c, t);  // a case that names an erroneous argument (DETECT)
  const Op op = op_for_case(c);
  op.check_usable_with(dt);
  if (witness::is_witness(c.op)) witness::check_datatype(dt);
  if (c.count < 0) throw UsageError("negative count");
  // Predefined ops take the predefined datatypes only (MPI-4.1 6.9.1: "work
  // only with the MPI types listed"); derived datatypes need a user op.
  // (One-sided accumulate differs: there a derived type of one basic type is allowed.)
  if (op.is_predefined()) {
    for (const std::string* text : {&c.datatype, &c.root_datatype})
      if (!text->empty() && !Datatype::parse(*text).predefined())
        throw SemanticsError("op.predefined-on-predefined-types",
                             std::string(op_name(op.predefined_op())) +
                                 " on the derived datatype " + *text +
                                 ": predefined ops take predefined datatypes only");
  }
  if (c.root_datatype.empty() && dt.overlaps_itself(std::max(1, c.count)))
    throw SemanticsError(
        "buffers.recv-overlap",
        "datatype " + dt.text() + " overlaps itself and lays out a receive buffer");
  // A user function combines in the datatype's layout (MPI-4.1 6.9.5), so
  // the datatype cannot overlap itself over the elements a process reduces,
  // unless the root lays out its buffers by a datatype of its own.
  if (!op.is_predefined() && c.root_datatype.empty() && c.routine != Routine::reduce_locals) {
    int span = c.count;
    if (c.routine == Routine::reduce_scatter_block)
      span = c.count * std::max(t.size_low, t.size_high) * 2;
    if (c.routine == Routine::reduce_scatter) {
      span = 0;
      for (int x : effective_recvcounts(c, t)) span += x;
    }
    if (dt.overlaps_itself(std::max(1, span)))
      throw UsageError("datatype " + dt.text() + " overlaps itself over the " +
                       std::to_string(span) + " elements a user function combines");
  }
  if (!c.root_datatype.empty()) {
    if (c.routine != Routine::reduce) throw UsageError("root_datatype applies to MPI_Reduce only");
    const Datatype rdt = Datatype::parse(c.root_datatype);
    op.check_usable_with(rdt);
    convert(Buffer(dt, 1), rdt);  // throws unless the type signatures match
    if (rdt.overlaps_itself(c.count))
      throw SemanticsError(
          "buffers.recv-overlap",
          "the root's datatype " + rdt.text() + " overlaps itself; it lays out a receive buffer");
  }
  if (c.routine == Routine::reduce_locals && c.in_place)
    throw SemanticsError(
        "reduce-locals.inout-not-in-place",
        "MPI_IN_PLACE is not allowed for the inoutbuf argument of MPI_Reduce_locals");
  if (c.routine == Routine::reduce_locals && c.alias_send_recv)
    throw SemanticsError("reduce-locals.distinct-from-inout",
                         "inbuf and argbuf must be distinct from inoutbuf in MPI_Reduce_locals");
  if (c.alias_send_recv)
    throw SemanticsError("buffers.send-recv-aliasing",
                         "the send and receive buffers of a collective may not be the same memory "
                         "(use MPI_IN_PLACE)");
  if (c.in_place && !allows_in_place(c.routine))
    throw SemanticsError(c.routine == Routine::reduce_local ? "reduce-local.no-in-place"
                                                            : "reduce-locals.inout-not-in-place",
                         std::string(mpi_routine_name(c.routine, c.mode)) +
                             " does not take MPI_IN_PLACE as its output");
  if (c.in_place && t.inter)
    throw SemanticsError("collective.in-place-intracomm-only",
                         "MPI_IN_PLACE is not allowed on an intercommunicator");
  if (t.inter && (c.routine == Routine::scan || c.routine == Routine::exscan)) scan_intercomm();
  const int p = t.size_low;
  if (c.routine == Routine::reduce) {
    const int n = t.inter ? (c.root_in_high_group ? t.size_high : t.size_low) : p;
    if (c.root < 0 || c.root >= n)
      throw UsageError("root " + std::to_string(c.root) + " out of range");
  }
  if (c.routine == Routine::reduce_scatter) {
    const std::size_t need = static_cast<std::size_t>(t.inter ? t.size_low + t.size_high : p);
    const std::vector<int> rc = effective_recvcounts(c, t);
    if (rc.size() != need)
      throw UsageError("reduce_scatter needs " + std::to_string(need) + " recvcounts");
    for (int x : rc)
      if (x < 0) throw UsageError("negative recvcount");
    if (t.inter) {
      const int a = std::accumulate(rc.begin(), rc.begin() + t.size_low, 0);
      const int b = std::accumulate(rc.begin() + t.size_low, rc.end(), 0);
      if (a != b)
        throw UsageError(
            "reduce_scatter on an intercommunicator: both groups must reduce the same number of "
            "elements");
    }
  }
  if (c.routine == Routine::reduce_scatter_block && t.inter) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    if (rc.size() != 2 || rc[0] * t.size_low != rc[1] * t.size_high)
      throw UsageError(
          "reduce_scatter_block on an intercommunicator needs recvcounts [low, high] "
          "with low*size_low == high*size_high");
  }
}

void check_plannable_by_ranges(const Case& c, const Topology& t) {
  auto refuse = [&](const char* why) {
    throw UsageError(std::string("a case planned a range of elements at a time must be ") + why +
                     ": " + c.describe());
  };
  if (t.inter) refuse("on an intracommunicator");
  if (c.in_place) refuse("not in place");
  if (!c.root_datatype.empty()) refuse("without a root datatype");
  if (c.mode != Mode::blocking || !c.concurrency.empty()) refuse("one blocking call");
  if (c.routine == Routine::reduce_locals || !c.erroneous.empty() || c.alias_send_recv)
    refuse("a valid call of one of the six collectives or MPI_Reduce_local");
  const Datatype dt = Datatype::parse(c.datatype);
  // Element k's bytes are then exactly [k * extent, (k + 1) * extent), so a
  // range of elements is a range of bytes of the whole buffer.
  if (dt.lb() != 0 || dt.true_lb() != 0 || dt.true_ub() != dt.extent())
    refuse("of a datatype whose elements tile their extent from lower bound 0");
}

}  // namespace ordo::ref

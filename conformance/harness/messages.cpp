// The words of a case's verdict on this rank (messages.h).
#include "messages.h"

#include <sstream>

#include "mpi_types.h"
#include "ordo/reference/oracle.h"
#include "ordo/reference/witness.h"
#include "record.h"

namespace ordo::harness {
namespace {

// The tracer's explanation as the record's data: what the cell says, the
// element, and where this rank sits (as where() writes it).
std::string tracer_item(const ref::witness::Trace& t, int element, const ZooComm& z) {
  Json item;
  item["kind"] = ref::witness::trace_kind_name(t.kind);
  const bool combine = t.kind != ref::witness::Trace::Kind::in_order &&
                       t.kind != ref::witness::Trace::Kind::wrong_cover;
  if (combine) {
    item["invec"] = {t.invec[0], t.invec[1]};
    item["inoutvec"] = {t.inoutvec[0], t.inoutvec[1]};
    item["why"] = ref::witness::trace_why(t.kind);
  } else {
    item["covers"] = {t.covers[0], t.covers[1]};
  }
  item["expected"] = {t.expected[0], t.expected[1]};
  item["element"] = element;
  item["group"] = z.topology.inter ? Json(z.role.group == 0 ? "low" : "high") : Json(nullptr);
  item["rank"] = z.role.rank;
  item["size"] = z.topology.inter && z.role.group != 0 ? z.topology.size_high : z.topology.size_low;
  return item.dump();
}

}  // namespace

LocalVerdict fail(std::string m) { return {LocalVerdict::Status::fail, std::move(m), ""}; }

std::string where(const ZooComm& z) {
  std::ostringstream o;
  if (z.topology.inter)
    o << (z.role.group == 0 ? "low" : "high") << " group rank " << z.role.rank << " of "
      << (z.role.group == 0 ? z.topology.size_low : z.topology.size_high);
  else
    o << "comm rank " << z.role.rank << " of " << z.topology.size_low;
  return o.str();
}

std::string describe_values(const ref::Difference& d, int first_element,
                            std::ptrdiff_t first_byte) {
  std::ostringstream o;
  if (d.in_hole)
    o << "a hole of the receive datatype was written at byte " << first_byte + d.byte
      << ": expected untouched " << d.expected << ", observed " << d.observed;
  else
    o << "element " << first_element + d.element << " (leaf " << d.leaf << ", byte "
      << first_byte + d.byte << "): expected " << d.expected << ", observed " << d.observed;
  return o.str();
}

std::string describe_difference(const ref::Case& c, const ref::Difference& d,
                                const ref::Buffer& expected, const ref::Buffer& observed,
                                const ZooComm& z, std::string* tracer) {
  std::ostringstream o;
  o << describe_values(d);
  if (d.in_hole) return o.str();
  if (ref::witness::is_tracer(c.op)) {
    const auto cells = ref::witness::read_cells(observed.element(d.element), observed.type());
    const auto want = ref::witness::read_cells(expected.element(d.element), expected.type());
    const std::size_t cell = static_cast<std::size_t>(d.leaf) / 4;
    if (cell < cells.size()) {
      const ref::witness::Trace t =
          ref::witness::trace(cells[cell], want[cell].v[0], want[cell].v[1]);
      o << "; tracer: " << ref::witness::explain(t);
      *tracer = tracer_item(t, static_cast<int>(d.element), z);
    }
  }
  if (c.op == "witness.multiset") {
    const auto cells = ref::witness::read_cells(observed.element(d.element), observed.type());
    const auto want = ref::witness::read_cells(expected.element(d.element), expected.type());
    const std::size_t cell = static_cast<std::size_t>(d.leaf) / 4;
    if (cell < cells.size()) {
      const std::string why = ref::witness::explain_multiset(
          cells[cell], want[cell],
          ref::send_element_of(c, z.topology, z.role, static_cast<int>(d.element)),
          static_cast<int>(cell), ref::multiset_contributions(c, z.topology, z.role));
      if (!why.empty()) o << "; multiset: " << why;
    }
  }
  return o.str();
}

std::string describe_outside_bound(const ref::BoundViolation& bad) {
  std::ostringstream m;
  m.precision(21);
  m << "element " << bad.element << " (leaf " << bad.slot.leaf;
  if (bad.slot.component != 0) m << ", part " << bad.slot.component;
  m << "): observed " << static_cast<double>(bad.observed) << " is farther than the error bound "
    << static_cast<double>(bad.bound) << " from the reference's "
    << static_cast<double>(bad.expected);
  return m.str();
}

std::string returned(const std::string& routine, int rc, const ZooComm& z) {
  return routine + " returned " + error_string(rc) + " (" + where(z) + ")";
}

std::string other_datatype_handle(const std::string& routine, const ZooComm& z) {
  return "the user function was called with a datatype handle other than the one passed to " +
         routine + " (" + std::to_string(unknown_datatype_calls()) + " calls, " + where(z) + ")";
}

std::string send_buffer_modified(std::ptrdiff_t byte, const ZooComm& z) {
  return "the send buffer was modified at byte " + std::to_string(byte) +
         " relative to its address (" + where(z) + ")";
}

std::string recv_guards_written(const ZooComm& z) {
  return "bytes outside the receive buffer were written (guard bytes changed, " + where(z) + ")";
}

}  // namespace ordo::harness

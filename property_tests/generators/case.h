// gen_case: reduce-family cases the reference accepts (ordo::ref::validate_case
// on every communicator of the shape), built from the named generators of
// basics.h and datatype.h. Shrinks towards world, Allreduce, blocking,
// MPI_SUM on MPI_INT or the tracer, count 0/1, root 0, not in place.
#pragma once

#include <rapidcheck.h>

#include <numeric>
#include <ostream>
#include <string>

#include "basics.h"
#include "datatype.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::ref {
// RapidCheck prints a counterexample with this: the one-line description and the JSON.
inline void showValue(const Case& c, std::ostream& os) { os << c.describe() << "\n    " << c.to_json(); }
}  // namespace ordo::ref

namespace ordo::props {

// Whether the reference accepts the case on every communicator of its shape.
inline bool valid_everywhere(const ref::Case& c) {
  try {
    for (const ref::Topology& t : shape_topologies(c.comm, harness::world_size())) ref::validate_case(c, t);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

inline rc::Gen<ref::Case> gen_case() {
  auto raw = rc::gen::exec([] {
    ref::Case c;
    c.comm = *gen_shape();
    const int p = harness::world_size();
    const auto tops = shape_topologies(c.comm, p);
    const bool inter = tops[0].inter;
    c.routine = *gen_routine();
    if (inter && (c.routine == Routine::scan || c.routine == Routine::exscan)) c.routine = Routine::allreduce;
    std::size_t element = 4;
    if (*pick<bool>({{3, false}, {2, true}})) {
      c.op = *gen_witness_op();
      c.datatype = *gen_derived_datatype(3);
      element = static_cast<std::size_t>(std::max<std::ptrdiff_t>(4, ref::Datatype::parse(c.datatype).extent()));
    } else {
      const OpAndType ot = *gen_predefined_op_and_type();
      c.op = ot.op;
      c.datatype = ot.type;
      element = ref::info(*ref::basic_from_name(ot.type)).extent;
    }
    c.count = *gen_count(element, std::min<int>(1 << 15, static_cast<int>((1u << 20) / element)));
    if (c.routine == Routine::reduce) {
      c.root_in_high_group = inter && *pick<bool>({{1, false}, {1, true}});
      c.root = *gen_root(c.comm, c.root_in_high_group);
    }
    c.in_place = *gen_in_place(c.routine, inter);
    c.mode = *gen_mode();
    if (c.routine == Routine::reduce_scatter_block && inter) {
      const int lo = tops[0].size_low, hi = tops[0].size_high, g = std::gcd(lo, hi);
      const int k = std::max(0, c.count);
      c.recvcounts = {k * hi / g, k * lo / g};
    }
    if (c.routine == Routine::reduce_scatter && !inter && tops.size() == 1 && *pick<bool>({{2, false}, {1, true}})) {
      c.recvcounts.clear();
      for (int r = 0; r < tops[0].size_low; ++r) c.recvcounts.push_back(*rc::gen::inRange(0, 4));
    }
    c.seed = static_cast<std::uint64_t>(*shrinking_to_zero(rc::gen::inRange(0, 1000)) + 1);
    return c;
  });
  return rc::gen::suchThat(raw, valid_everywhere).as("case");
}

// RC_TAG / RC_CLASSIFY labels of a case: by routine, op kind and shape.
inline std::string routine_label(const ref::Case& c) { return std::string(ref::mpi_routine_name(c.routine, c.mode)); }
inline std::string op_label(const ref::Case& c) {
  return c.op.rfind("witness.", 0) == 0 ? "witness op, derived datatype" : "predefined op";
}

}  // namespace ordo::props

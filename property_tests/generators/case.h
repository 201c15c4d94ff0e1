// gen_case: reduce-family cases the reference accepts (ordo::ref::validate_case
// on every communicator of the shape), built from the named generators of
// basics.h and datatype.h. Shrinks towards world, Allreduce, blocking,
// MPI_SUM on MPI_INT or the tracer, count 0/1, root 0, not in place, the C
// binding.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <numeric>
#include <ostream>
#include <string>

#include "basics.h"
#include "datatype.h"
#include "executor.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::ref {
// RapidCheck prints a counterexample with this: the one-line description and the JSON.
inline void showValue(const Case& c, std::ostream& os) {
  os << c.describe() << "\n    " << c.to_json();
}
}  // namespace ordo::ref

namespace ordo::props {

// The kinds of (op, datatype) a case draws, simplest first.
enum class Kind {
  predefined,    // a predefined op on a basic type of its group (ordo::ref::validity)
  witness,       // a witness user op on a derived datatype of 4-int cells
  pair,          // MPI_MINLOC / MPI_MAXLOC on a C value-index pair type (named or value_index)
  char_integer,  // signed / unsigned char, int8 / uint8 (their edges: the reference's inputs)
  char_detect,   // MPI_CHAR / MPI_WCHAR in a reduction: erroneous, DETECT
};

inline const std::vector<std::string>& c_pair_types() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (ref::Basic b : {ref::Basic::TWO_INT, ref::Basic::FLOAT_INT, ref::Basic::DOUBLE_INT,
                         ref::Basic::LONG_INT, ref::Basic::SHORT_INT, ref::Basic::LONG_DOUBLE_INT})
      out.emplace_back(ref::info(b).mpi_name);
    return out;
  }();
  return v;
}

// The same pairs as MPI_Type_get_value_index returns them (MPI-4.1 6.9.4):
// value_index(MPI_DOUBLE,MPI_INT) ... (skipped where the library lacks it).
inline const std::vector<std::string>& value_index_pair_types() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (ref::Basic value : {ref::Basic::INT, ref::Basic::FLOAT, ref::Basic::DOUBLE,
                             ref::Basic::LONG, ref::Basic::SHORT, ref::Basic::LONG_DOUBLE})
      out.push_back(ref::Datatype::value_index(value, ref::Basic::INT).text());
    return out;
  }();
  return v;
}

inline bool is_pair_type(const std::string& t) {
  for (const auto* list : {&c_pair_types(), &value_index_pair_types()})
    if (std::find(list->begin(), list->end(), t) != list->end()) return true;
  return false;
}

inline bool is_char_integer_type(const std::string& t) {
  return t == "MPI_SIGNED_CHAR" || t == "MPI_UNSIGNED_CHAR" || t == "MPI_INT8_T" ||
         t == "MPI_UINT8_T";
}

inline Kind kind_of(const ref::Case& c) {
  if (c.op.rfind("witness.", 0) == 0) return Kind::witness;
  if (c.datatype == "MPI_CHAR" || c.datatype == "MPI_WCHAR") return Kind::char_detect;
  if (is_char_integer_type(c.datatype)) return Kind::char_integer;
  if (is_pair_type(c.datatype)) return Kind::pair;
  return Kind::predefined;
}

inline const char* kind_label(Kind k) {
  switch (k) {
    case Kind::predefined:
      return "predefined op";
    case Kind::witness:
      return "witness op, derived datatype";
    case Kind::pair:
      return "MINLOC/MAXLOC, C pair type";
    case Kind::char_integer:
      return "8-bit integer type";
    case Kind::char_detect:
      return "MPI_CHAR/MPI_WCHAR (DETECT)";
  }
  return "?";
}

// Whether the reference accepts the case on every communicator of its shape.
// A DETECT case (MPI_CHAR / MPI_WCHAR) must be valid but for its datatype.
inline bool valid_everywhere(const ref::Case& c0) {
  ref::Case c = c0;
  if (kind_of(c) == Kind::char_detect) c.datatype = "MPI_SIGNED_CHAR";
  try {
    for (const ref::Topology& t : shape_topologies(c.comm, harness::world_size()))
      ref::validate_case(c, t);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// The language binding the call is made through (MPI-4.1 Chapter 19): C, or
// the mpi_f08 (f08) / mpi (f90) module through the harness's Fortran layer.
// Only bindings that can make this call here are drawn: a Fortran binding
// that lacks it (no large counts in the mpi module, no Fortran binding of
// MPI_Reduce_locals or of an MPI_Op_create_c user function, a module without
// persistent or large-count forms, no Fortran layer built) is left out, so
// that a case skips only for what the library lacks in every binding
// (harness::missing_feature, the same reason in C). Shrinks towards C.
inline std::string draw_binding(const ref::Case& c0) {
  ref::Case c = c0;
  c.binding = "c";
  const std::optional<std::string> in_c = harness::missing_feature(c);
  std::vector<std::pair<int, std::string>> items{{4, "c"}};
  for (const char* b : {"f08", "f90"}) {
    c.binding = b;
    if (harness::missing_feature(c) == in_c) items.push_back({1, b});
  }
  return *pick(items);
}

// An erroneous call (DETECT) of MPI_CHAR / MPI_WCHAR: MPI_Allreduce on an
// intracommunicator (every rank checks the same arguments, so no rank is
// left waiting) or MPI_Reduce_local.
inline ref::Case draw_char_detect_case() {
  ref::Case c;
  c.routine = *pick<Routine>({{3, Routine::allreduce}, {1, Routine::reduce_local}});
  c.datatype = *pick<std::string>({{1, "MPI_CHAR"}, {1, "MPI_WCHAR"}});
  c.op = *pick<std::string>({{2, "MPI_SUM"},
                             {1, "MPI_MAX"},
                             {1, "MPI_MIN"},
                             {1, "MPI_PROD"},
                             {1, "MPI_LAND"},
                             {1, "MPI_LOR"},
                             {1, "MPI_LXOR"},
                             {1, "MPI_BAND"},
                             {1, "MPI_BOR"},
                             {1, "MPI_BXOR"}});
  c.count = *rc::gen::inRange(1, 4);
  if (c.routine == Routine::reduce_local) {
    c.comm = "self";
  } else {
    c.comm = *pick<std::string>({{3, "world"}, {1, "dup"}, {1, "reversed"}});
    if (harness::world_size() >= 2 && *pick<bool>({{3, false}, {1, true}}))
      c.comm = *gen_split_shape();
    c.mode = *gen_mode();
  }
  c.binding = draw_binding(c);
  c.seed = static_cast<std::uint64_t>(*shrinking_to_zero(rc::gen::inRange(0, 1000)) + 1);
  return c;
}

inline rc::Gen<ref::Case> gen_case() {
  auto raw = rc::gen::exec([] {
    const Kind kind = *pick<Kind>({{8, Kind::predefined},
                                   {6, Kind::witness},
                                   {2, Kind::pair},
                                   {2, Kind::char_integer},
                                   {1, Kind::char_detect}});
    if (kind == Kind::char_detect) return draw_char_detect_case();
    ref::Case c;
    c.comm = *gen_shape();
    const int p = harness::world_size();
    const auto tops = shape_topologies(c.comm, p);
    const bool inter = tops[0].inter;
    c.routine = *gen_routine();
    if (inter && (c.routine == Routine::scan || c.routine == Routine::exscan))
      c.routine = Routine::allreduce;
    // A local reduction takes no communicator (its cases name world, as the
    // crossing's do) and has only the blocking form.
    const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
    if (local) c.comm = "world";
    std::size_t element = 4;
    if (kind == Kind::witness) {
      c.op = *gen_witness_op();
      c.datatype = *gen_derived_datatype(3);
      element = static_cast<std::size_t>(
          std::max<std::ptrdiff_t>(4, ref::Datatype::parse(c.datatype).extent()));
    } else {
      OpAndType ot;
      if (kind == Kind::pair) {
        ot.op = *pick<std::string>({{1, "MPI_MINLOC"}, {1, "MPI_MAXLOC"}});
        std::vector<std::pair<int, std::string>> types;
        for (const auto& t : c_pair_types()) types.push_back({2, t});
        for (const auto& t : value_index_pair_types()) types.push_back({1, t});
        ot.type = *pick(types);
      } else if (kind == Kind::char_integer) {
        static const rc::Gen<OpAndType> char_integer_pairs = [] {
          std::vector<std::pair<int, OpAndType>> items;
          for (const auto& x : valid_predefined_pairs())
            if (is_char_integer_type(x.type)) items.push_back({1, x});
          return pick(items);
        }();
        ot = *char_integer_pairs;
      } else {
        ot = *gen_predefined_op_and_type();
      }
      c.op = ot.op;
      c.datatype = ot.type;
      element = static_cast<std::size_t>(ref::Datatype::parse(ot.type).extent());
    }
    c.count = *gen_count(element, std::min<int>(1 << 15, static_cast<int>((1u << 20) / element)));
    if (c.routine == Routine::reduce) {
      c.root_in_high_group = inter && *pick<bool>({{1, false}, {1, true}});
      c.root = *gen_root(c.comm, c.root_in_high_group);
    }
    c.in_place = *gen_in_place(c.routine, inter);
    // Buffers that are not significant (an intercommunicator root's send
    // buffer, a non-root's receive buffer): NULL, or valid ones left alone.
    c.null_insignificant = *pick<bool>({{1, true}, {1, false}});
    c.mode = local ? Mode::blocking : *gen_mode();
    // The large-count (_c) binding; the Reduce_locals proposal defines none.
    c.large_count = c.routine != Routine::reduce_locals && *pick<bool>({{3, false}, {1, true}});
    // The concurrency dimension (ordo/reference/case.h), where the form takes it;
    // shrinks towards one call.
    c.concurrency = *pick<std::string>({{8, ""}, {1, "test"}, {1, "outstanding"}, {1, "freed"}});
    if (!ref::concurrency_conflict(c).empty()) c.concurrency.clear();
    if (c.routine == Routine::reduce_scatter_block && inter) {
      const int lo = tops[0].size_low, hi = tops[0].size_high, g = std::gcd(lo, hi);
      const int k = std::max(0, c.count);
      c.recvcounts = {k * hi / g, k * lo / g};
    }
    if (c.routine == Routine::reduce_scatter && !inter && tops.size() == 1 &&
        *pick<bool>({{2, false}, {1, true}})) {
      c.recvcounts.clear();
      for (int r = 0; r < tops[0].size_low; ++r) c.recvcounts.push_back(*rc::gen::inRange(0, 4));
    }
    c.binding = draw_binding(c);
    c.seed = static_cast<std::uint64_t>(*shrinking_to_zero(rc::gen::inRange(0, 1000)) + 1);
    return c;
  });
  return rc::gen::suchThat(raw, valid_everywhere).as("case");
}

// RC_TAG / RC_CLASSIFY labels of a case: by routine, op kind, binding and shape.
inline std::string routine_label(const ref::Case& c) {
  return std::string(ref::mpi_routine_name(c.routine, c.mode));
}
inline std::string op_label(const ref::Case& c) { return kind_label(kind_of(c)); }
inline std::string binding_label(const ref::Case& c) {
  return c.binding == "c" ? "C binding" : c.binding == "f08" ? "mpi_f08 binding" : "mpi binding";
}
// The datatype's layout classes of a witness case (none for a predefined
// type): elements that interleave (an extent below the true extent), and
// elements over the large element's size (the library's chunk or segment).
inline std::vector<std::string> datatype_labels(const ref::Case& c) {
  std::vector<std::string> out;
  if (kind_of(c) != Kind::witness) return out;
  const ref::Datatype dt = ref::Datatype::parse(c.datatype);
  if (dt.extent() < dt.true_extent()) out.emplace_back("interleaved elements");
  if (static_cast<std::size_t>(dt.true_extent()) > ref::crossing::element_bytes())
    out.emplace_back("element over " + std::to_string(ref::crossing::element_bytes()) + " bytes");
  return out;
}
inline std::string shape_label(const ref::Case& c) {
  if (c.comm.rfind("split:", 0) == 0) return "random sub-communicator";
  if (c.comm.rfind("inter:", 0) == 0) return "random intercommunicator";
  if (c.comm.rfind("inter-", 0) == 0) return "zoo intercommunicator";
  return "zoo intracommunicator";
}

}  // namespace ordo::props

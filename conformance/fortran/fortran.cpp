// The Fortran bindings (MPI-4.1 Chapter 19): the same cases, called through
// the mpi_f08 module (binding "f08") and the mpi module ("f90") by ordo's
// Fortran layer (conformance/harness/fortran/), with the witness ops' user
// functions written in Fortran and created by MPI_Op_create from Fortran.
// Expected values come from the reference, as for the C binding: only the
// call changes. Where the library has no Fortran wrapper, or the binding
// lacks a form (persistent, large count), the case is a skip that says so.
#include <gtest/gtest.h>

#include "catalogue.h"
#include "mpi_types.h"

using namespace ordo::catalogue;
using ordo::harness::CaseContext;
using ordo::harness::LocalVerdict;

namespace {

const std::vector<std::string>& fortran_bindings() {
  static const std::vector<std::string> v = {"f08", "f90"};
  return v;
}

Case in_binding(Case c, const std::string& binding) {
  c.binding = binding;
  return c;
}

std::string cells_of(const std::string& op) {
  return op == "witness.matrix" ? "contiguous(4,MPI_UINT32_T)" : "contiguous(4,MPI_INTEGER)";
}

}  // namespace

TEST(Fortran,
     every_routine_and_form_of_each_binding_applies_the_fortran_user_function_in_rank_order) {
  ORDO_CLAUSE("fortran.bindings", MUST);
  for (const std::string& binding : fortran_bindings())
    for (Routine r : collectives_and_local())
      for (Mode m : modes()) {
        if (r == Routine::reduce_local && m != Mode::blocking) continue;
        for (bool large : {false, true})
          for (const char* op : {"witness.tracer", "witness.matrix"})
            for (const char* shape : {"world", "reversed"})
              for (int count : {0, 3}) {
                Case c = in_binding(make(r, op, cells_of(op), count, shape), binding);
                c.mode = m;
                c.large_count = large;
                run_at_every_root(c);
              }
      }
}

TEST(Fortran, the_fortran_mpi_in_place_takes_the_input_from_the_receive_buffer_in_every_form) {
  ORDO_CLAUSE("fortran.bindings", MUST);
  for (const std::string& binding : fortran_bindings())
    for (Routine r : collectives())
      for (Mode m : modes())
        for (const char* shape : {"world", "reversed", "odd-even"}) {
          if (!ordo::harness::zoo(shape).available) continue;
          for (int count : {1, 7}) {
            Case sum = in_binding(make(r, "MPI_SUM", "MPI_INTEGER", count, shape), binding);
            sum.in_place = true;
            sum.mode = m;
            run_at_every_root(sum);
            Case order = in_binding(
                make(r, "witness.tracer", "contiguous(4,MPI_INTEGER)", count, shape), binding);
            order.in_place = true;
            order.mode = m;
            run_at_every_root(order);
          }
        }
}

TEST(Fortran, the_fortran_user_function_receives_len_and_the_datatype_handle_of_the_call) {
  ORDO_CLAUSE("fortran.bindings", MUST);
  ordo::harness::CaseOptions check;
  check.extra = every_call_saw_the_callers_datatype;
  for (const std::string& binding : fortran_bindings())
    for (Routine r : collectives_and_local())
      for (const char* type :
           {"contiguous(4,MPI_INTEGER)", "vector(2,2,3,MPI_INTEGER)", "dup(contiguous(4,MPI_INT))"})
        for (int count : {1, 5, 1000})
          ordo::harness::run_case(
              at_last_root(in_binding(make(r, "witness.recorder", type, count), binding)), check);
}

TEST(Fortran, a_commutative_fortran_user_function_combines_every_contribution_exactly_once) {
  ORDO_CLAUSE("fortran.bindings", MUST);
  for (const std::string& binding : fortran_bindings())
    for (Routine r : collectives_and_local())
      for (Mode m : modes()) {
        if (r == Routine::reduce_local && m != Mode::blocking) continue;
        for (int count : {1, 7, 1000}) {
          Case c = in_binding(
              at_last_root(make(r, "witness.multiset", "contiguous(4,MPI_INTEGER)", count)),
              binding);
          c.mode = m;
          c.null_insignificant = false;
          ordo::harness::run_case(c);
        }
      }
}

TEST(Fortran, every_fortran_type_reduces_by_the_rules_of_its_group_in_its_own_binding) {
  ORDO_CLAUSE("fortran.types", MUST);
  for (const std::string& binding : fortran_bindings())
    for (const auto& [op, type] : valid_pairs()) {
      if (!ordo::ref::info(type).fortran) continue;
      // 7 elements: the oracle's inputs put the edges of the type among them.
      for (Routine r : collectives_and_local())
        ordo::harness::run_case(
            at_last_root(in_binding(make(r, name(op), name(type), 7), binding)));
    }
}

TEST(Fortran, minloc_and_maxloc_ties_on_the_fortran_pair_types_resolve_to_the_smaller_index) {
  ORDO_CLAUSE("fortran.types", MUST);
  for (const std::string& binding : fortran_bindings())
    for (const auto& [op, type] : valid_pairs()) {
      if (!ordo::ref::info(type).fortran ||
          ordo::ref::info(type).group != ordo::ref::TypeGroup::pair)
        continue;
      for (Routine r : collectives_and_local())
        for (Mode m : modes()) {
          if (r == Routine::reduce_local && m != Mode::blocking) continue;
          for (const char* shape : {"world", "reversed"}) {
            Case c = in_binding(make(r, name(op), name(type), 9, shape), binding);
            c.mode = m;
            ordo::harness::run_case(at_last_root(c));
          }
        }
    }
}

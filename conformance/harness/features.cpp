// Whether the library provides what a case's call needs (executor.h,
// missing_feature): the MPI-4 routines (persistent collectives, large-count
// bindings and user functions, MPI_Type_get_value_index, sessions), and the
// case's Fortran binding with the forms its module has.
#include <unordered_map>

#include "comm_zoo.h"
#include "executor.h"
#include "mpi_types.h"
#include "ordo/reference/errors.h"

namespace ordo::harness {
namespace {

using ref::Routine;

// Why the case's binding cannot make its call here (a skip), if it cannot.
std::optional<std::string> binding_lacks(const ref::Case& c) {
  if (c.binding == "c") return std::nullopt;
  const std::string module = c.binding == "f08" ? "mpi_f08" : "mpi";
  const std::string routine = std::string(ref::mpi_routine_name(c.routine, c.mode));
  bool have = false, persistent = false, large = false;
#ifdef ORDO_HAVE_FORTRAN_F08
  if (c.binding == "f08") have = true;
#endif
#ifdef ORDO_FORTRAN_F08_PERSISTENT
  if (c.binding == "f08") persistent = true;
#endif
#ifdef ORDO_FORTRAN_F08_LARGE_COUNT
  if (c.binding == "f08") large = true;
#endif
#ifdef ORDO_HAVE_FORTRAN_F90
  if (c.binding == "f90") have = true;
#endif
#ifdef ORDO_FORTRAN_F90_PERSISTENT
  if (c.binding == "f90") persistent = true;
#endif
  if (!have) {
    const std::string lacks = ORDO_FORTRAN_LACKS;
    return "the " + c.binding + " binding (use " + module + ") is not built: " +
           (lacks.empty() ? "the library's Fortran wrapper does not compile `use " + module + "`"
                          : lacks);
  }
  if (c.routine == Routine::reduce_locals)
    return std::string("the MPI_Reduce_locals proposal defines no Fortran binding");
  if (c.op == "witness.tracer-c" && c.binding == "f90")
    return std::string(
        "the mpi module has no MPI_Op_create_c (large-count user functions are mpi_f08's)");
#ifdef ORDO_FORTRAN_F08_OP_CREATE_C
  if (c.op == "witness.tracer-c")
    return std::string("ordo has no f08 user function for MPI_Op_create_c (MPI_User_function_c)");
#else
  if (c.op == "witness.tracer-c")
    return std::string("MPI_Op_create_c is not provided by this library's mpi_f08 module");
#endif
  const bool local = c.routine == Routine::reduce_local;
  if (c.mode == ref::Mode::persistent && !local && !persistent)
    return routine + " is not provided by this library's " + module + " module";
  if (c.large_count && c.binding == "f90")
    return std::string(
        "the mpi module has no large-count forms (the standard gives them to mpi_f08 only)");
  if (c.large_count && !large)
    return routine + " with an INTEGER(MPI_COUNT_KIND) count is not provided by this library's " +
           module + " module";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> missing_feature(const ref::Case& c) {
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
#ifndef ORDO_HAVE_PERSISTENT_COLLECTIVES
  if (c.mode == ref::Mode::persistent && !local)
    return std::string(ref::mpi_routine_name(c.routine, c.mode)) +
           " is not provided by this library (MPI-4 persistent collectives)";
#endif
#ifndef ORDO_HAVE_LARGE_COUNT
  if (c.large_count)
    return std::string(ref::mpi_routine_name(c.routine, c.mode)) +
           "_c is not provided by this library (MPI-4 large-count bindings)";
#endif
#ifndef ORDO_HAVE_LARGE_COUNT
  if (c.op == "witness.tracer-c")
    return std::string(
        "MPI_Op_create_c is not provided by this library (MPI-4 large-count user functions)");
#endif
  if (const std::string lacks = value_index_lacks(); !lacks.empty()) {
    // Whether a datatype's text uses the routine, parsed once per text (the
    // crossing check asks for each of a million valid calls).
    thread_local std::unordered_map<std::string, bool> uses;
    for (const std::string* text : {&c.datatype, &c.root_datatype}) {
      if (text->empty()) continue;
      auto it = uses.find(*text);
      if (it == uses.end()) {
        bool used = false;
        try {
          used = ref::Datatype::parse(*text).uses_value_index();
        } catch (const ref::UsageError&) {
          // a malformed datatype is the case's own failure, reported when it runs
        }
        it = uses.emplace(*text, used).first;
      }
      if (it->second) return lacks;
    }
  }
  if (auto why = binding_lacks(c)) return why;
  if (c.comm == "session") {
    const std::string lacks = session_lacks();
    if (!lacks.empty()) return lacks;
  }
  if (c.large_count && c.routine == Routine::reduce_locals)
    return std::string("the MPI_Reduce_locals proposal defines no large-count (_c) binding");
  (void)local;
  return std::nullopt;
}

}  // namespace ordo::harness

// What a program built through the MPI-5.0 standard ABI (`ordo run --abi`:
// the standard mpi.h, libmpi_abi.so.1) sees of the library it runs on: the
// ABI version it reports, the handles a user function receives and the
// handles the library creates, the error classes it maps, and what crosses
// the boundary in reductions: MPI_IN_PLACE, MPI_ROOT and MPI_PROC_NULL, the
// null handles, the pair types, large-count user functions. The expected
// handles and classes are the standard header's (the ABI fixes them at
// compile time), the expected results the reference's (run_case); in a build
// through a library's own mpi.h each check is a skip that says so.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "catalogue.h"
#include "mpi_types.h"

using namespace ordo::catalogue;
using ordo::harness::LocalVerdict;
using S = LocalVerdict::Status;

namespace {

#ifndef ORDO_ABI_BUILD
const char* const kNotAbi =
    "the build is not through the MPI-5.0 standard ABI (its checks run in `ordo run --abi`)";
#endif

// A reduction case through the ABI: judged against the reference (run_case)
// in an ABI build, recorded as a skip that says why in any other.
void through_the_abi(const Case& c, const ordo::harness::CaseOptions& options = {}) {
#ifdef ORDO_ABI_BUILD
  ordo::harness::run_case(c, options);
#else
  (void)options;
  if (ordo::harness::begin_case(&c)) ordo::harness::record(c, {S::skip, kNotAbi, ""}, 0, 0);
#endif
}

#ifdef ORDO_ABI_BUILD
// The datatype handles a user function was called with, and its len (an int
// or, for MPI_Op_create_c's function, an MPI_Count).
std::vector<MPI_Datatype>& seen() {
  static std::vector<MPI_Datatype> s;
  return s;
}
std::vector<MPI_Count>& lens() {
  static std::vector<MPI_Count> s;
  return s;
}
void clear_seen() {
  seen().clear();
  lens().clear();
}

void capture(void*, void*, int* len, MPI_Datatype* dt) {
  seen().push_back(*dt);
  lens().push_back(*len);
}
void capture_c(void*, void*, MPI_Count* len, MPI_Datatype* dt) {
  seen().push_back(*dt);
  lens().push_back(*len);
}

std::string hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%#jx",
                static_cast<std::uintmax_t>(reinterpret_cast<std::uintptr_t>(p)));
  return text;
}

// MPI-5.0 21.3.3: the integers 0 to 4095 are never a handle the library creates
// (0 is never valid, 1 to 4095 are the predefined constants').
LocalVerdict outside_reserved(const void* handle, const std::string& what) {
  if (reinterpret_cast<std::uintptr_t>(handle) <= 4095)
    return {S::fail,
            what + " is " + hex(handle) +
                ", in the range the ABI reserves for predefined handle constants (0 to 4095)",
            ""};
  return {};
}

// Every call of the user function saw `expected` (and there was at least one
// when `at_least_one`).
LocalVerdict every_call_saw(MPI_Datatype expected, const std::string& name, const std::string& call,
                            bool at_least_one) {
  if (at_least_one && seen().empty())
    return {S::fail, call + " never called the user function", ""};
  for (std::size_t i = 0; i < seen().size(); ++i)
    if (seen()[i] != expected)
      return {S::fail,
              call + ": call " + std::to_string(i + 1) +
                  " of the user function received datatype " + hex(seen()[i]) + ", not " + name +
                  " (" + hex(expected) + ")",
              ""};
  return {};
}

// Every len the user function received is in 0..count and, when `total`,
// they add up to count (each element combined exactly once, MPI_Reduce_local).
LocalVerdict every_len_within(MPI_Count count, const std::string& call, bool total) {
  MPI_Count sum = 0;
  for (std::size_t i = 0; i < lens().size(); ++i) {
    if (lens()[i] < 0 || lens()[i] > count)
      return {S::fail,
              call + ": call " + std::to_string(i + 1) + " of the user function received len " +
                  std::to_string(static_cast<long long>(lens()[i])) + " for a count of " +
                  std::to_string(static_cast<long long>(count)),
              ""};
    sum += lens()[i];
  }
  if (total && sum != count)
    return {S::fail,
            call + ": the lens the user function received add up to " +
                std::to_string(static_cast<long long>(sum)) + ", not the count " +
                std::to_string(static_cast<long long>(count)),
            ""};
  return {};
}

LocalVerdict returned(const std::string& call, int rc) {
  return {S::fail, call + " returned " + ordo::harness::error_string(rc), ""};
}
#endif

}  // namespace

TEST(Abi, the_library_reports_the_abi_version_of_the_standard_header) {
  ORDO_CLAUSE("abi.version", MUST);
#ifndef ORDO_ABI_BUILD
  ordo::harness::record_check("MPI_Abi_get_version", {S::skip, kNotAbi, ""});
#else
  int major = -1, minor = -1;
  const int rc = MPI_Abi_get_version(&major, &minor);
  LocalVerdict v;
  if (rc != MPI_SUCCESS)
    v = {S::fail, "MPI_Abi_get_version returned " + ordo::harness::error_string(rc), ""};
  else if (major != MPI_ABI_VERSION || minor != MPI_ABI_SUBVERSION)
    v = {S::fail,
         "MPI_Abi_get_version reported " + std::to_string(major) + "." + std::to_string(minor) +
             ", the header MPI_ABI_VERSION.MPI_ABI_SUBVERSION " + std::to_string(MPI_ABI_VERSION) +
             "." + std::to_string(MPI_ABI_SUBVERSION),
         ""};
  ordo::harness::record_check("MPI_Abi_get_version", v);
#endif
}

TEST(Abi, a_user_function_receives_the_abis_predefined_datatype_handle) {
  ORDO_CLAUSE("abi.handle-constants", MUST);
#ifndef ORDO_ABI_BUILD
  for (const char* subject :
       {"MPI_Reduce_local(MPI_INT, user op)", "MPI_Allreduce(MPI_INT, user op)"})
    ordo::harness::record_check(subject, {S::skip, kNotAbi, ""});
#else
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(capture, 1, &op);
  int in[4] = {1, 2, 3, 4}, inout[4] = {5, 6, 7, 8}, out[4] = {};
  clear_seen();
  int rc = MPI_Reduce_local(in, inout, 4, MPI_INT, op);
  ordo::harness::record_check(
      "MPI_Reduce_local(MPI_INT, user op)",
      rc != MPI_SUCCESS
          ? LocalVerdict{S::fail, "MPI_Reduce_local returned " + ordo::harness::error_string(rc),
                         ""}
          : every_call_saw(MPI_INT, "MPI_INT", "MPI_Reduce_local", true));
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  clear_seen();
  rc = MPI_Allreduce(in, out, 4, MPI_INT, op, comm);
  // One process combines nothing: no call of the function is required there.
  ordo::harness::record_check(
      "MPI_Allreduce(MPI_INT, user op)",
      rc != MPI_SUCCESS
          ? LocalVerdict{S::fail, "MPI_Allreduce returned " + ordo::harness::error_string(rc), ""}
          : every_call_saw(MPI_INT, "MPI_INT", "MPI_Allreduce", false));
  MPI_Comm_free(&comm);
  MPI_Op_free(&op);
#endif
}

TEST(Abi, the_handles_the_library_creates_are_outside_the_reserved_range) {
  ORDO_CLAUSE("abi.handle-constants", MUST);
#ifndef ORDO_ABI_BUILD
  for (const char* subject :
       {"MPI_Type_contiguous handle", "MPI_Op_create handle", "MPI_Comm_dup handle"})
    ordo::harness::record_check(subject, {S::skip, kNotAbi, ""});
#else
  MPI_Datatype t = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(capture, 1, &op);
  LocalVerdict v = outside_reserved(t, "the datatype MPI_Type_contiguous made");
  if (v.status == S::pass) {
    // and a user function receives that very handle
    int in[4] = {1, 2, 3, 4}, inout[4] = {5, 6, 7, 8};
    clear_seen();
    const int rc = MPI_Reduce_local(in, inout, 2, t, op);
    v = rc != MPI_SUCCESS
            ? LocalVerdict{S::fail, "MPI_Reduce_local returned " + ordo::harness::error_string(rc),
                           ""}
            : every_call_saw(t, "the contiguous datatype", "MPI_Reduce_local", true);
  }
  ordo::harness::record_check("MPI_Type_contiguous handle", v);
  ordo::harness::record_check("MPI_Op_create handle",
                              outside_reserved(op, "the op MPI_Op_create made"));
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  ordo::harness::record_check("MPI_Comm_dup handle",
                              outside_reserved(comm, "the communicator MPI_Comm_dup made"));
  MPI_Comm_free(&comm);
  MPI_Op_free(&op);
  MPI_Type_free(&t);
#endif
}

TEST(Abi, every_error_class_a_reduction_can_return_maps_onto_itself) {
  ORDO_CLAUSE("abi.error-classes", MUST);
  struct Named {
    int value;
    const char* name;
  };
  const Named classes[] = {{MPI_SUCCESS, "MPI_SUCCESS"},     {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
                           {MPI_ERR_COUNT, "MPI_ERR_COUNT"}, {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
                           {MPI_ERR_COMM, "MPI_ERR_COMM"},   {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
                           {MPI_ERR_OP, "MPI_ERR_OP"},       {MPI_ERR_ARG, "MPI_ERR_ARG"},
                           {MPI_ERR_OTHER, "MPI_ERR_OTHER"}, {MPI_ERR_INTERN, "MPI_ERR_INTERN"}};
  for (const Named& c : classes) {
    const std::string subject = std::string("MPI_Error_class(") + c.name + ")";
#ifndef ORDO_ABI_BUILD
    ordo::harness::record_check(subject, {S::skip, kNotAbi, ""});
#else
    int cls = -1;
    const int rc = MPI_Error_class(c.value, &cls);
    LocalVerdict v;
    if (rc != MPI_SUCCESS)
      v = {S::fail, "MPI_Error_class returned " + std::to_string(rc), ""};
    else if (cls != c.value)
      v = {S::fail,
           std::string("the class of ") + c.name + " (" + std::to_string(c.value) +
               " in the standard header) came back as " + std::to_string(cls),
           ""};
    ordo::harness::record_check(subject, v);
#endif
  }
}

TEST(Abi, mpi_in_place_crosses_the_boundary_in_allreduce_and_at_every_reduce_root) {
  ORDO_CLAUSE("abi.in-place", MUST);
  const std::pair<const char*, const char*> kinds[] = {{"MPI_SUM", "MPI_INT"},
                                                       {"witness.tracer", "contiguous(4,MPI_INT)"}};
  for (Routine r : {Routine::allreduce, Routine::reduce})
    for (const auto& [op, type] : kinds)
      for (int count : {1, 7}) {
        Case c = make(r, op, type, count);
        c.in_place = true;
        const int roots = r == Routine::reduce ? ordo::harness::root_count("world") : 1;
        for (int root = 0; root < roots; ++root) {
          c.root = root;
          through_the_abi(c);
        }
      }
}

// The root passes MPI_ROOT, the other processes of its group MPI_PROC_NULL
// (from 3 processes on, a root group of 2): the root's result is the
// reference's. At 1 process (2 for inter-n-1) the shape does not exist: the
// harness records the skip and its reason.
TEST(Abi, mpi_root_and_mpi_proc_null_cross_the_boundary_in_an_intercommunicator_reduce) {
  ORDO_CLAUSE("abi.intercomm-root-constants", MUST);
  for (const char* shape : {"inter-1-n", "inter-n-1"})
    for (bool high : {false, true}) {
      const int roots = std::max(1, ordo::harness::root_count(shape, high));
      for (int root = 0; root < roots; ++root)
        for (bool null_insignificant : {false, true}) {
          Case c = reduce_witness_case("witness.tracer", 3);
          c.comm = shape;
          c.root = root;
          c.root_in_high_group = high;
          c.null_insignificant = null_insignificant;
          through_the_abi(c);
        }
    }
}

// Erroneous cases (Case::erroneous) as the detect checks run them, under
// MPI_ERRORS_RETURN, recorded as reported / accepted; an error code of
// another class than the header's is a failure (through the ABI the classes
// are fixed, abi.error-classes). In the int and the large-count (_c) bindings.
TEST(Abi, mpi_op_null_and_mpi_datatype_null_are_reported_with_the_headers_error_classes) {
  ORDO_CLAUSE("abi.null-handles", DETECT);
  const std::pair<const char*, int> kinds[] = {{"op_null", MPI_ERR_OP},
                                               {"datatype_null", MPI_ERR_TYPE}};
  for (bool large_count : {false, true})
    for (Routine r : {Routine::reduce_local, Routine::allreduce})
      for (const auto& [kind, cls] : kinds) {
        Case c = make(r, "MPI_SUM", "MPI_INT", 3);
        c.erroneous = kind;
        c.large_count = large_count;
        ordo::harness::CaseOptions options;
        options.detect_class = cls;
        through_the_abi(c, options);
      }
}

TEST(Abi, minloc_and_maxloc_reduce_the_pair_types_and_a_user_function_receives_mpi_double_int) {
  ORDO_CLAUSE("abi.pair-types", MUST);
  for (const auto& [op, type] : valid_pairs()) {
    if (ordo::ref::info(type).group != ordo::ref::TypeGroup::pair) continue;
    for (Routine r : {Routine::reduce_local, Routine::allreduce, Routine::reduce})
      for (int count : {1, 9}) through_the_abi(at_last_root(make(r, name(op), name(type), count)));
  }
#ifndef ORDO_ABI_BUILD
  for (const char* subject :
       {"MPI_Reduce_local(MPI_DOUBLE_INT, user op)", "MPI_Allreduce(MPI_DOUBLE_INT, user op)"})
    ordo::harness::record_check(subject, {S::skip, kNotAbi, ""});
#else
  struct DoubleInt {
    double value;
    int index;
  };
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(capture, 1, &op);
  DoubleInt in[4] = {{1, 0}, {2, 1}, {3, 2}, {4, 3}}, inout[4] = {}, out[4] = {};
  clear_seen();
  int rc = MPI_Reduce_local(in, inout, 4, MPI_DOUBLE_INT, op);
  LocalVerdict v = rc != MPI_SUCCESS
                       ? returned("MPI_Reduce_local", rc)
                       : every_call_saw(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", "MPI_Reduce_local", true);
  if (v.status == S::pass) v = every_len_within(4, "MPI_Reduce_local", true);
  ordo::harness::record_check("MPI_Reduce_local(MPI_DOUBLE_INT, user op)", v);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  clear_seen();
  rc = MPI_Allreduce(in, out, 4, MPI_DOUBLE_INT, op, comm);
  // One process combines nothing: no call of the function is required there.
  v = rc != MPI_SUCCESS ? returned("MPI_Allreduce", rc)
                        : every_call_saw(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", "MPI_Allreduce", false);
  if (v.status == S::pass) v = every_len_within(4, "MPI_Allreduce", false);
  ordo::harness::record_check("MPI_Allreduce(MPI_DOUBLE_INT, user op)", v);
  MPI_Comm_free(&comm);
  MPI_Op_free(&op);
#endif
}

TEST(Abi, a_large_count_user_function_receives_an_mpi_count_len_and_the_headers_datatype) {
  ORDO_CLAUSE("abi.large-count-user-function", MUST);
  // The results: witness.tracer-c (the non-commutative tracer made by
  // MPI_Op_create_c) through the _c bindings, against the reference.
  for (Routine r : {Routine::reduce_local, Routine::allreduce})
    for (int count : {1, 7}) {
      Case c = make(r, "witness.tracer-c", "contiguous(4,MPI_INT)", count);
      c.large_count = true;
      through_the_abi(c);
    }
#ifndef ORDO_ABI_BUILD
  for (const char* subject : {"MPI_Reduce_local_c(MPI_INT, MPI_Op_create_c op)",
                              "MPI_Allreduce_c(MPI_INT, MPI_Op_create_c op)"})
    ordo::harness::record_check(subject, {S::skip, kNotAbi, ""});
#else
  // What the function receives: len, read as the MPI_Count it must be (an
  // int passed in its place would not read as 0..count), and MPI_INT.
  constexpr MPI_Count kCount = 5;
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create_c(capture_c, 1, &op);
  int in[kCount] = {1, 2, 3, 4, 5}, inout[kCount] = {6, 7, 8, 9, 10}, out[kCount] = {};
  clear_seen();
  int rc = MPI_Reduce_local_c(in, inout, kCount, MPI_INT, op);
  LocalVerdict v = rc != MPI_SUCCESS
                       ? returned("MPI_Reduce_local_c", rc)
                       : every_call_saw(MPI_INT, "MPI_INT", "MPI_Reduce_local_c", true);
  if (v.status == S::pass) v = every_len_within(kCount, "MPI_Reduce_local_c", true);
  ordo::harness::record_check("MPI_Reduce_local_c(MPI_INT, MPI_Op_create_c op)", v);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  clear_seen();
  rc = MPI_Allreduce_c(in, out, kCount, MPI_INT, op, comm);
  v = rc != MPI_SUCCESS ? returned("MPI_Allreduce_c", rc)
                        : every_call_saw(MPI_INT, "MPI_INT", "MPI_Allreduce_c", false);
  if (v.status == S::pass) v = every_len_within(kCount, "MPI_Allreduce_c", false);
  ordo::harness::record_check("MPI_Allreduce_c(MPI_INT, MPI_Op_create_c op)", v);
  MPI_Comm_free(&comm);
  MPI_Op_free(&op);
#endif
}

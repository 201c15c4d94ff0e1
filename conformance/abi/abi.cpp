// What a program built through the MPI-5.0 standard ABI (`ordo run --abi`:
// the standard mpi.h, libmpi_abi.so.1) sees of the library it runs on: the
// ABI version it reports, the handles a user function receives and the
// handles the library creates, the error classes it maps. The expected
// values are the standard header's (the ABI fixes them at compile time); in a
// build through a library's own mpi.h each check is a skip that says so.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "catalogue.h"
#include "mpi_types.h"

using ordo::harness::LocalVerdict;
using S = LocalVerdict::Status;

namespace {

#ifndef ORDO_ABI_BUILD
const char* const kNotAbi =
    "the build is not through the MPI-5.0 standard ABI (its checks run in `ordo run --abi`)";
#else
// The datatype handles a user function was called with.
std::vector<MPI_Datatype>& seen() {
  static std::vector<MPI_Datatype> s;
  return s;
}

void capture(void*, void*, int*, MPI_Datatype* dt) { seen().push_back(*dt); }

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
  seen().clear();
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
  seen().clear();
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
    seen().clear();
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

// MPI_Op_create, MPI_Op_free and MPI_Op_commutative.
#include <gtest/gtest.h>
#include <mpi.h>

#include "catalogue.h"
#include "mpi_types.h"

using ordo::harness::LocalVerdict;

namespace {

void noop(void*, void*, int*, MPI_Datatype*) {}

LocalVerdict expect_commutative(MPI_Op op, int expected, const std::string& what) {
  int commute = -1;
  const int rc = MPI_Op_commutative(op, &commute);
  if (rc != MPI_SUCCESS)
    return {LocalVerdict::Status::fail,
            "MPI_Op_commutative(" + what + ") returned " + ordo::harness::error_string(rc), ""};
  if ((commute != 0) != (expected != 0))
    return {LocalVerdict::Status::fail,
            "MPI_Op_commutative(" + what + ") reported " + std::to_string(commute) + ", expected " +
                (expected ? "true" : "false"),
            ""};
  return {};
}

}  // namespace

TEST(Op, every_predefined_reduction_op_reports_itself_commutative) {
  ORDO_CLAUSE("op.commutative-query", MUST);
  // The twelve reduction ops; MPI_REPLACE and MPI_NO_OP belong to one-sided
  // accumulate and are not commutative functions (see the INFO check below).
  for (int o = 0; o <= static_cast<int>(ordo::ref::PredefinedOp::MINLOC); ++o) {
    const auto op = static_cast<ordo::ref::PredefinedOp>(o);
    const std::string name(ordo::ref::op_name(op));
    // What MPI_Op_commutative must report comes from the reference.
    ordo::harness::record_check(
        "MPI_Op_commutative(" + name + ")",
        expect_commutative(ordo::harness::mpi_op(name),
                           ordo::ref::Op::predefined(op).commutative() ? 1 : 0, name));
  }
}

TEST(Op, what_op_commutative_reports_for_replace_and_no_op_is_recorded) {
  ORDO_CLAUSE("op.commutative-query", INFO);
  for (const char* name : {"MPI_REPLACE", "MPI_NO_OP"}) {
    int commute = -1;
    const int rc = MPI_Op_commutative(ordo::harness::mpi_op(name), &commute);
    ordo::harness::record_check(
        std::string("MPI_Op_commutative(") + name + ")",
        {LocalVerdict::Status::pass,
         rc == MPI_SUCCESS ? "reports " + std::to_string(commute) : "returned an error", ""});
  }
}

TEST(Op, a_user_op_reports_the_commute_flag_it_was_created_with) {
  ORDO_CLAUSE("op.commutative-query", MUST);
  for (int flag : {0, 1}) {
    const std::string subject = "MPI_Op_commutative(user op, commute=" + std::to_string(flag) + ")";
    MPI_Op op = MPI_OP_NULL;
    const int rc = MPI_Op_create(noop, flag, &op);
    if (rc != MPI_SUCCESS) {
      ordo::harness::record_check(
          subject, {LocalVerdict::Status::fail,
                    "MPI_Op_create returned " + ordo::harness::error_string(rc), ""});
      continue;
    }
    // What MPI_Op_commutative must report comes from the reference's model of the op.
    const ordo::ref::Op model = ordo::ref::Op::user("user op", nullptr, flag != 0);
    ordo::harness::record_check(
        subject, expect_commutative(op, model.commutative() ? 1 : 0,
                                    "user op created with commute=" + std::to_string(flag)));
    MPI_Op_free(&op);
  }
}

TEST(Op, op_free_sets_the_handle_to_op_null) {
  ORDO_CLAUSE("op.free", MUST);
  MPI_Op op = MPI_OP_NULL;
  const int created = MPI_Op_create(noop, 0, &op);
  if (created != MPI_SUCCESS) {
    ordo::harness::record_check(
        "MPI_Op_free", {LocalVerdict::Status::fail,
                        "MPI_Op_create returned " + ordo::harness::error_string(created), ""});
    return;
  }
  const int rc = MPI_Op_free(&op);
  LocalVerdict v;
  if (rc != MPI_SUCCESS)
    v = {LocalVerdict::Status::fail, "MPI_Op_free returned " + ordo::harness::error_string(rc), ""};
  else if (op != MPI_OP_NULL)
    v = {LocalVerdict::Status::fail, "MPI_Op_free left the handle different from MPI_OP_NULL", ""};
  ordo::harness::record_check("MPI_Op_free", v);
}

// Erroneous arguments of the reduction routines (DETECT): null and freed
// handles, an uncommitted datatype, an invalid root, a negative count,
// MPI_IN_PLACE on an intercommunicator, sendbuf == recvbuf. Each case names
// the erroneous argument (Case::erroneous) and the reference says by which
// clause the call is erroneous; the harness runs it under MPI_ERRORS_RETURN
// and records reported / accepted (a crash or a hang: the runner's crash /
// timeout). Every routine in every form the library has: blocking,
// nonblocking, persistent, and the large-count bindings.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

namespace {

struct Form {
  Mode mode;
  bool large_count;
};

// The forms of a routine. A form the library lacks is recorded as a skip
// with the reason (MPI-4 persistent collectives, large-count bindings).
std::vector<Form> forms(Routine r, bool int_binding_only = false) {
  std::vector<Form> v;
  const std::vector<Mode> ms =
      r == Routine::reduce_local ? std::vector<Mode>{Mode::blocking} : modes();
  for (Mode m : ms) v.push_back({m, false});
  if (!int_binding_only)
    for (Mode m : ms)
      if (m != Mode::persistent) v.push_back({m, true});
  return v;
}

Case erroneous(Case c, const std::string& kind, Form f) {
  c.erroneous = kind;
  c.mode = f.mode;
  c.large_count = f.large_count;
  return c;
}

// The routines with an intercommunicator form (Scan and Exscan have none).
const std::vector<Routine>& intercomm_routines() {
  static const std::vector<Routine> v = {Routine::reduce, Routine::allreduce,
                                         Routine::reduce_scatter, Routine::reduce_scatter_block};
  return v;
}

// The intercommunicator: one process in the low group, the others in the
// high group (available from 2 processes on).
const char* const kInter = "inter-1-n";

// A negative root that is neither MPI_ROOT nor MPI_PROC_NULL in either library.
constexpr int kNegativeRoot = -7;

// A user op on a derived datatype: the handle cases replace one of them, and
// the call is erroneous for that reason alone.
Case user_op_case(Routine r, int count) {
  return make(r, "witness.sum-declared-noncommutative", "contiguous(4,MPI_INT)", count);
}

}  // namespace

TEST(Detect, mpi_op_null_as_the_op_is_reported_in_every_routine) {
  ORDO_CLAUSE("op.null-handle", DETECT);
  for (Routine r : collectives_and_local())
    for (Form f : forms(r))
      ordo::harness::run_case(erroneous(make(r, "MPI_SUM", "MPI_INT", 3), "op_null", f));
}

TEST(Detect, mpi_datatype_null_as_the_datatype_is_reported_in_every_routine) {
  ORDO_CLAUSE("datatype.null-handle", DETECT);
  for (Routine r : collectives_and_local())
    for (Form f : forms(r))
      ordo::harness::run_case(erroneous(make(r, "MPI_SUM", "MPI_INT", 3), "datatype_null", f));
}

TEST(Detect, a_derived_datatype_that_was_never_committed_is_reported_in_every_routine) {
  ORDO_CLAUSE("datatype.commit-before-use", DETECT);
  for (Routine r : collectives_and_local())
    for (Form f : forms(r))
      ordo::harness::run_case(erroneous(user_op_case(r, 2), "uncommitted_type", f));
}

TEST(Detect, a_reduce_root_that_is_not_a_rank_of_the_group_is_reported_in_every_form) {
  ORDO_CLAUSE("reduce.root-valid", DETECT);
  for (Form f : forms(Routine::reduce)) {
    // Intracommunicator: root == size and a negative root.
    for (int root : {ordo::harness::root_count("world"), kNegativeRoot}) {
      Case c = make(Routine::reduce, "MPI_SUM", "MPI_INT", 3);
      c.root = root;
      ordo::harness::run_case(erroneous(c, "root_out_of_range", f));
    }
    // Intercommunicator: the other group names a root that is not in the
    // root's group; the root's group has no MPI_ROOT and passes MPI_PROC_NULL.
    for (bool high : {false, true})
      for (int root : {ordo::harness::root_count(kInter, high), kNegativeRoot}) {
        Case c = make(Routine::reduce, "MPI_SUM", "MPI_INT", 3, kInter);
        c.root = root;
        c.root_in_high_group = high;
        ordo::harness::run_case(erroneous(c, "root_out_of_range", f));
      }
  }
}

TEST(Detect, mpi_root_as_the_root_on_an_intracommunicator_is_reported_in_every_form) {
  ORDO_CLAUSE("reduce.root-valid", DETECT);
  for (Form f : forms(Routine::reduce))
    ordo::harness::run_case(
        erroneous(make(Routine::reduce, "MPI_SUM", "MPI_INT", 3), "root_is_mpi_root", f));
}

TEST(Detect, a_negative_count_is_reported_in_every_routine) {
  ORDO_CLAUSE("collective.count-non-negative", DETECT);
  for (Routine r :
       {Routine::reduce, Routine::allreduce, Routine::scan, Routine::exscan, Routine::reduce_local})
    for (Form f : forms(r, /*int_binding_only=*/true))
      ordo::harness::run_case(erroneous(make(r, "MPI_SUM", "MPI_INT", 3), "negative_count", f));
}

TEST(Detect, a_negative_recvcount_is_reported_in_reduce_scatter_and_reduce_scatter_block) {
  ORDO_CLAUSE("collective.count-non-negative", DETECT);
  for (Routine r : {Routine::reduce_scatter, Routine::reduce_scatter_block})
    for (Form f : forms(r, /*int_binding_only=*/true))
      ordo::harness::run_case(erroneous(make(r, "MPI_SUM", "MPI_INT", 3), "negative_count", f));
}

TEST(Detect, mpi_in_place_on_an_intercommunicator_is_reported_in_every_routine_that_has_one) {
  ORDO_CLAUSE("collective.in-place-intracomm-only", DETECT);
  for (Routine r : intercomm_routines())
    for (Form f : forms(r))
      for (bool high :
           r == Routine::reduce ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
        Case c = make(r, "MPI_SUM", "MPI_INT", 3, kInter);
        c.in_place = true;
        c.root_in_high_group = high;
        c.null_insignificant = false;  // every process has a receive buffer holding its input
        ordo::harness::run_case(erroneous(c, "in_place_on_intercomm", f));
      }
}

TEST(Detect, the_send_buffer_is_the_receive_buffer_in_every_routine) {
  ORDO_CLAUSE("buffers.send-recv-aliasing", DETECT);
  for (Routine r : collectives_and_local())
    for (Form f : forms(r)) {
      // The receive buffer holds what the library reads as input (p * count
      // elements for Reduce_scatter_block); at a Reduce's non-roots as well.
      Case c = make(r, "MPI_SUM", "MPI_INT", 3);
      c.alias_send_recv = true;
      c.null_insignificant = false;
      ordo::harness::run_case(erroneous(c, "aliased", f));
    }
}

// Freed handles last: a library that does not detect them may use freed
// memory, so these are the last and smallest cases of the executable's file.
TEST(Detect, a_datatype_freed_before_the_call_is_reported_in_every_routine) {
  ORDO_CLAUSE("datatype.freed-handle", DETECT);
  for (Routine r : collectives_and_local())
    for (Form f : forms(r)) ordo::harness::run_case(erroneous(user_op_case(r, 1), "freed_type", f));
}

TEST(Detect, a_user_op_freed_before_the_call_is_reported_in_every_routine) {
  ORDO_CLAUSE("op.freed-handle", DETECT);
  for (Routine r : collectives_and_local())
    for (Form f : forms(r)) ordo::harness::run_case(erroneous(user_op_case(r, 1), "freed_op", f));
}

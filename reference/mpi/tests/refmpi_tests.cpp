// Tests of the reference MPI itself: what the conformance checks do not
// reach -- that it is the library answering, that its traffic stays off the
// user's communicators, that requests and private communicators behave,
// and MPIX_Reduce_locals in each of its forms. Linked against the library
// directly, so its MPI_* definitions come before the MPI library's. Each
// verdict is combined over every rank with PMPI_Allreduce (not the library
// under test).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "ordo/mpix_reduce_locals.h"

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// True on every rank iff `ok` on every rank.
bool everywhere(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

// A non-commutative op on int: a o b = 10 a + b.
void tens(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = 10 * a[i] + b[i];
}

MPI_Op tens_op() {
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(tens, 0, &o);
    return o;
  }();
  return op;
}

// The even and the odd world ranks as the two groups of an intercommunicator
// (freed at the end of the scope); group: this process's, 0 or 1.
struct EvenOddIntercomm {
  int group = rank() % 2;
  int local_rank = 0;
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  explicit EvenOddIntercomm(int tag) {
    MPI_Comm_split(MPI_COMM_WORLD, group, rank(), &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - group, tag, &inter);
    MPI_Comm_rank(local, &local_rank);
  }
  ~EvenOddIntercomm() {
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
  }
};

TEST(Interposition, the_mpi_symbols_resolve_to_the_reference_library) {
  Dl_info info{};
  void* sym = dlsym(RTLD_DEFAULT, "MPI_Reduce");
  ASSERT_NE(sym, nullptr);
  ASSERT_NE(dladdr(sym, &info), 0);
  EXPECT_NE(std::string(info.dli_fname).find("libordo_refmpi"), std::string::npos)
      << info.dli_fname;
}

TEST(Interposition, the_library_version_names_the_reference_and_the_library_underneath) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  ASSERT_EQ(MPI_Get_library_version(v, &n), MPI_SUCCESS);
  const std::string s(v, static_cast<std::size_t>(n));
  EXPECT_EQ(s.rfind("ordo reference MPI", 0), 0u) << s;
  EXPECT_GT(s.size(), std::strlen("ordo reference MPI (rank-ordered, over PMPI) on: ")) << s;
  EXPECT_EQ(std::strlen(v), static_cast<std::size_t>(n));
}

TEST(PrivateTraffic, a_pending_wildcard_receive_of_the_user_does_not_match_reduction_traffic) {
  int box = -1;
  MPI_Request pending;
  MPI_Irecv(&box, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pending);
  int x = rank() + 1, sum = 0;
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&x, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Scan(&x, &sum, 1, MPI_INT, tens_op(), MPI_COMM_WORLD);
  int done = 0;
  MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
  const bool untouched = !done && box == -1;
  const int mark = 4242 + rank();
  MPI_Send(&mark, 1, MPI_INT, rank(), 9, MPI_COMM_WORLD);
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  EXPECT_TRUE(everywhere(untouched && box == mark));
}

TEST(Nonblocking, requests_are_complete_when_the_call_returns_and_the_result_is_there) {
  int x = rank() + 1, sum = 0, done = 0;
  MPI_Request req;
  ASSERT_EQ(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), MPI_SUCCESS);
  MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  EXPECT_TRUE(everywhere(done && req == MPI_REQUEST_NULL && sum == size() * (size() + 1) / 2));
}

TEST(Nonblocking, scan_with_a_noncommutative_op_folds_in_rank_order) {
  // Rank r: ((1 o 2) o 3) ... with a o b = 10a + b: the decimal digits 1..r+1.
  int x = rank() + 1, got = 0, want = 0;
  for (int i = 1; i <= rank() + 1; ++i) want = 10 * want + i;
  MPI_Request req;
  MPI_Iscan(&x, &got, 1, MPI_INT, tens_op(), MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  EXPECT_TRUE(everywhere(got == want)) << "rank " << rank() << " got " << got << ", want " << want;
}

#ifdef ORDO_REFMPI_HAVE_PERSISTENT
TEST(Persistent, each_start_reads_the_send_buffer_as_it_is_then) {
  int x = 0, got = -1;
  MPI_Request req;
  ASSERT_EQ(MPI_Allreduce_init(&x, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
            MPI_SUCCESS);
  bool ok = got == -1;  // nothing runs before MPI_Start
  for (int round = 1; round <= 3; ++round) {
    x = round;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = ok && got == round * size() && req != MPI_REQUEST_NULL;
  }
  MPI_Request_free(&req);
  EXPECT_TRUE(everywhere(ok && req == MPI_REQUEST_NULL));
}
#endif

TEST(ReduceLocals, each_form_of_the_proposal_computes_x_o_y) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const MPI_Op op = tens_op();
  int x = 2, y = 3, a = 5;
  EXPECT_EQ(MPIX_Reduce_locals(&x, &y, &a, 1, MPI_INT, op), MPI_SUCCESS);
  EXPECT_EQ(a, 23);  // A = X o Y
  a = 5;
  EXPECT_EQ(MPIX_Reduce_locals(MPI_IN_PLACE, &y, &a, 1, MPI_INT, op), MPI_SUCCESS);
  EXPECT_EQ(a, 53);  // A = A o Y
  a = 5;
  EXPECT_EQ(MPIX_Reduce_locals(&x, MPI_IN_PLACE, &a, 1, MPI_INT, op), MPI_SUCCESS);
  EXPECT_EQ(a, 25);  // A = X o A
  a = 5;
  EXPECT_EQ(MPIX_Reduce_locals(&x, &x, &a, 1, MPI_INT, op), MPI_SUCCESS);
  EXPECT_EQ(a, 22);  // A = X o X
  a = 5;
  EXPECT_EQ(MPIX_Reduce_locals(MPI_IN_PLACE, MPI_IN_PLACE, &a, 1, MPI_INT, op), MPI_SUCCESS);
  EXPECT_EQ(a, 55);  // A = A o A
  EXPECT_EQ(x, 2);
  EXPECT_EQ(y, 3);
}

TEST(ReduceLocals, inoutbuf_may_be_neither_in_place_nor_an_input) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int x = 2, a = 5;
  EXPECT_EQ(error_class(MPIX_Reduce_locals(&x, &x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM)),
            MPI_ERR_BUFFER);
  EXPECT_EQ(error_class(MPIX_Reduce_locals(&a, &x, &a, 1, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  EXPECT_EQ(error_class(MPIX_Reduce_locals(&x, &a, &a, 1, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  EXPECT_EQ(a, 5);
}

TEST(ReduceLocal, in_place_is_refused) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int a = 5;
  EXPECT_EQ(error_class(MPI_Reduce_local(MPI_IN_PLACE, &a, 1, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
}

TEST(Errors, an_op_the_type_does_not_allow_fails_on_every_rank_without_hanging) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  float x = 1, y = 0;
  const int rc = MPI_Allreduce(&x, &y, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD);
  EXPECT_TRUE(everywhere(error_class(rc) == MPI_ERR_OP));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

TEST(Errors, a_freed_user_op_is_refused_and_nothing_is_written) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Op op, copy;
  MPI_Op_create(tens, 0, &op);
  copy = op;
  MPI_Op_free(&op);
  int x = 1, y = 2;
  EXPECT_EQ(error_class(MPI_Reduce_local(&x, &y, 1, MPI_INT, copy)), MPI_ERR_OP);
  EXPECT_EQ(y, 2);
}

TEST(Errors, a_freed_datatype_is_refused_and_a_handle_committed_again_is_usable) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Datatype t, copy;
  MPI_Type_contiguous(1, MPI_INT, &t);
  MPI_Type_commit(&t);
  copy = t;
  MPI_Type_free(&t);
  int x = 1, y = 2;
  EXPECT_EQ(error_class(MPI_Reduce_local(&x, &y, 1, copy, MPI_SUM)), MPI_ERR_TYPE);
  EXPECT_EQ(y, 2);
  MPI_Datatype again;  // the library may give the freed handle's value to a new type
  MPI_Type_contiguous(1, MPI_INT, &again);
  MPI_Type_commit(&again);
  EXPECT_EQ(MPI_Reduce_local(&x, &y, 1, again, MPI_SUM), MPI_SUCCESS);
  EXPECT_EQ(y, 3);
  MPI_Type_free(&again);
}

TEST(Errors, in_place_on_an_intercommunicator_reduce_fails_at_every_process_without_hanging) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  int rc = MPI_SUCCESS;
  {
    EvenOddIntercomm ic(6);
    MPI_Comm_set_errhandler(ic.inter, MPI_ERRORS_RETURN);
    // Group 0's first process is the root; group 1 contributes.
    const int root = ic.group == 0 ? (ic.local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int buf = 1;
    rc = MPI_Reduce(MPI_IN_PLACE, &buf, 1, MPI_INT, MPI_SUM, root, ic.inter);
  }
  EXPECT_TRUE(everywhere(error_class(rc) == MPI_ERR_BUFFER)) << "rank " << rank() << ": " << rc;
}

TEST(Communicators, freeing_a_communicator_frees_its_private_communicator) {
  // More dup/free rounds than MPICH has context ids (2048): a leaked private
  // communicator per round would exhaust them.
  bool ok = true;
  for (int i = 0; i < 2100 && ok; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int one = 1, n = 0;
    ok = MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS && n == size();
    MPI_Comm_free(&c);
  }
  EXPECT_TRUE(everywhere(ok));
}

TEST(Intercommunicators, each_group_of_an_allreduce_gets_the_other_groups_reduction_in_its_order) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  int got = 0, want = 0;
  {
    EvenOddIntercomm ic(5);
    int remote = 0;
    MPI_Comm_remote_size(ic.inter, &remote);
    int x = ic.local_rank + 1 + 5 * ic.group;
    for (int r = 0; r < remote; ++r) want = 10 * want + (r + 1 + 5 * (1 - ic.group));
    MPI_Allreduce(&x, &got, 1, MPI_INT, tens_op(), ic.inter);
  }
  EXPECT_TRUE(everywhere(got == want)) << "rank " << rank() << " got " << got << ", want " << want;
}

TEST(Datatypes, holes_of_the_receive_buffer_are_never_written) {
  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> send = {1, -1, 2, -1, 3}, recv = {0, -7, 0, -7, 0, -7};
  MPI_Allreduce(send.data(), recv.data(), 1, every_other, MPI_SUM, MPI_COMM_WORLD);
  MPI_Type_free(&every_other);
  const int p = size();
  EXPECT_TRUE(everywhere(recv == std::vector<int>({p, -7, 2 * p, -7, 3 * p, -7})));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    ::testing::GTEST_FLAG(output) = "";
  }
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}

// plan_buffers() (the harness's expected-result cache plans from it) gives
// every field of plan() but recv_expected, byte for byte, from this rank's
// own buffers alone: checked here for every role of the valid cases of the
// crossed case space at 1 to 5 processes (every routine, form, op kind,
// datatype class, count, root, in-place, communicator shape), and for the
// arguments the crossing does not vary (a root datatype, the three
// MPI_Reduce_locals aliasings, explicit recvcounts).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ordo/reference/crossing.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/oracle.h"
#include "zoo_shapes.h"

using namespace ordo::ref;
namespace x = ordo::ref::crossing;
using ordo::ref::test::zoo_at;

namespace {

void expect_same_buffer(const std::optional<Buffer>& got, const std::optional<Buffer>& want,
                        const char* what) {
  ASSERT_EQ(got.has_value(), want.has_value()) << what;
  if (!want) return;
  EXPECT_EQ(got->type().text(), want->type().text()) << what;
  EXPECT_EQ(got->count(), want->count()) << what;
  EXPECT_EQ(got->origin(), want->origin()) << what;
  EXPECT_TRUE(got->storage() == want->storage()) << what << ": different bytes";
}

// Every role of the topology: plan_buffers() against plan(). Returns how
// many roles were compared.
int expect_same_plan(const Case& c, const Topology& t) {
  int roles = 0;
  for (int g = 0; g < (t.inter ? 2 : 1); ++g)
    for (int r = 0; r < (g == 0 ? t.size_low : t.size_high); ++r) {
      const Role me{g, r};
      SCOPED_TRACE(c.describe() + " group " + std::to_string(g) + " rank " + std::to_string(r));
      const RankPlan whole = plan(c, t, me);
      const RankPlan own = plan_buffers(c, t, me);
      EXPECT_FALSE(own.recv_expected.has_value());
      EXPECT_EQ(own.datatype, whole.datatype);
      EXPECT_EQ(own.send_count, whole.send_count);
      EXPECT_EQ(own.recv_count, whole.recv_count);
      EXPECT_EQ(own.send_significant, whole.send_significant);
      EXPECT_EQ(own.recv_significant, whole.recv_significant);
      EXPECT_EQ(own.result_defined, whole.result_defined);
      EXPECT_EQ(own.recv_compare_elements, whole.recv_compare_elements);
      EXPECT_EQ(own.mpi_root, whole.mpi_root);
      EXPECT_EQ(own.root_role, whole.root_role);
      expect_same_buffer(own.send, whole.send, "send");
      expect_same_buffer(own.arg, whole.arg, "arg");
      expect_same_buffer(own.recv_initial, whole.recv_initial, "recv_initial");
      // The expected result, when there is one, has the receive buffer's
      // layout (the cache digests it and fills it from the library's).
      if (whole.recv_expected && whole.recv_initial) {
        EXPECT_EQ(whole.recv_expected->type().text(), whole.recv_initial->type().text());
        EXPECT_EQ(whole.recv_expected->storage().size(), whole.recv_initial->storage().size());
        EXPECT_EQ(whole.recv_expected->origin(), whole.recv_initial->origin());
      }
      ++roles;
    }
  return roles;
}

}  // namespace

TEST(PlanBuffers, every_role_of_every_case_of_the_crossed_space_has_the_plans_buffers) {
  int roles = 0, cases = 0;
  std::mt19937 random(17);
  const auto& dims = x::dimensions();
  for (int p = 1; p <= 5; ++p) {
    const x::ShapeTopology shapes = zoo_at(p);
    // Rows drawn at random (a value of every dimension), the valid ones kept.
    for (int draw = 0; draw < 20000; ++draw) {
      x::Row row;
      for (const x::Dimension& d : dims)
        row.push_back(static_cast<int>(random() % d.values.size()));
      std::string why;
      const auto c = x::realize(row, shapes, 7 + static_cast<std::uint64_t>(draw), &why);
      // The large counts of the space (MiB per buffer) take the same paths.
      if (!c || c->count > 4096) continue;
      for (bool null_insignificant : {true, false}) {
        Case k = *c;
        k.null_insignificant = null_insignificant;
        const bool local =
            k.routine == Routine::reduce_local || k.routine == Routine::reduce_locals;
        roles += expect_same_plan(k, local ? Topology{false, 1, 0} : *shapes(k.comm));
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 2500);
  EXPECT_GT(roles, 7500);
}

TEST(PlanBuffers, a_root_datatype_reduce_locals_aliasing_and_recvcounts_keep_the_plans_buffers) {
  for (int p : {1, 2, 4})
    for (int root = 0; root < p; ++root)
      for (bool in_place : {false, true}) {
        Case c;
        c.routine = Routine::reduce;
        c.op = "witness.matrix";
        c.datatype = "indexed([1,1,1,1],[0,2,0,1],MPI_UINT32_T)";  // overlaps itself
        c.root_datatype = "contiguous(4,MPI_UINT32_T)";
        c.count = 5;
        c.root = root;
        c.in_place = in_place;
        c.seed = 3;
        expect_same_plan(c, Topology{false, p, 0});
      }
  for (bool in_is_in_place : {false, true})
    for (bool arg_is_in_place : {false, true})
      for (bool arg_is_in : {false, true})
        for (bool in_place : {false, true}) {
          Case c;
          c.routine = Routine::reduce_locals;
          c.op = "witness.matrix";
          c.datatype = "contiguous(4,MPI_UINT32_T)";
          c.count = 6;
          c.locals_in_is_in_place = in_is_in_place;
          c.locals_arg_is_in_place = arg_is_in_place;
          c.locals_arg_is_in = arg_is_in;
          c.in_place = in_place;
          try {
            validate_case(c, Topology{false, 1, 0});
          } catch (const std::exception&) {
            EXPECT_THROW(plan_buffers(c, Topology{false, 1, 0}, Role{0, 0}), std::exception);
            continue;
          }
          expect_same_plan(c, Topology{false, 1, 0});
        }
  for (bool in_place : {false, true}) {
    Case c;
    c.routine = Routine::reduce_scatter;
    c.op = "MPI_SUM";
    c.datatype = "MPI_DOUBLE";
    c.recvcounts = {3, 0, 5, 1};
    c.in_place = in_place;
    c.exact = false;
    c.seed = 11;
    expect_same_plan(c, Topology{false, 4, 0});
    Case block = c;
    block.routine = Routine::reduce_scatter_block;
    block.recvcounts.clear();
    block.count = 3;
    expect_same_plan(block, Topology{false, 4, 0});
  }
  Case inter;
  inter.routine = Routine::reduce_scatter;
  inter.op = "witness.multiset";
  inter.datatype = "contiguous(4,MPI_INT)";
  inter.recvcounts = {2, 3, 1, 3, 1};  // both groups reduce 5 elements
  inter.comm = "inter-halves";
  expect_same_plan(inter, Topology{true, 2, 3});
}

TEST(PlanBuffers, an_invalid_case_is_refused_as_plan_refuses_it) {
  Case c;
  c.routine = Routine::reduce;
  c.root = 4;  // no such rank at 4 processes
  EXPECT_THROW(plan(c, Topology{false, 4, 0}, Role{0, 0}), UsageError);
  EXPECT_THROW(plan_buffers(c, Topology{false, 4, 0}, Role{0, 0}), UsageError);
}

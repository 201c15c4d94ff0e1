// The erroneous arguments a case may name (Case::erroneous): the reference
// says by which clause each makes the call erroneous, and refuses a case
// whose named argument would not make it so.
#include "ordo/reference/erroneous.h"

#include <gtest/gtest.h>

#include "ordo/reference/errors.h"

using namespace ordo::ref;

namespace {

std::string clause_of(const Case& c, const Topology& t) {
  try {
    validate_case(c, t);
  } catch (const SemanticsError& e) {
    return e.clause();
  }
  return "";
}

Case named(Routine r, const std::string& kind) {
  Case c;
  c.routine = r;
  c.erroneous = kind;
  return c;
}

const Topology kIntra{false, 4, 0};
const Topology kInter{true, 2, 2};

}  // namespace

TEST(Erroneous, each_handle_kind_names_its_clause_in_every_routine) {
  for (Routine r :
       {Routine::reduce, Routine::allreduce, Routine::reduce_scatter, Routine::reduce_scatter_block,
        Routine::scan, Routine::exscan, Routine::reduce_local}) {
    EXPECT_EQ(clause_of(named(r, "op_null"), kIntra), "op.null-handle");
    EXPECT_EQ(clause_of(named(r, "datatype_null"), kIntra), "datatype.null-handle");
    EXPECT_EQ(clause_of(named(r, "uncommitted_type"), kIntra), "datatype.commit-before-use");
    EXPECT_EQ(clause_of(named(r, "freed_type"), kIntra), "datatype.freed-handle");
    EXPECT_EQ(clause_of(named(r, "freed_op"), kIntra), "op.freed-handle");
    EXPECT_EQ(clause_of(named(r, "negative_count"), kIntra), "collective.count-non-negative");
  }
}

TEST(Erroneous, a_root_is_erroneous_only_outside_the_roots_group) {
  Case c = named(Routine::reduce, "root_out_of_range");
  for (int root : {4, -7}) {
    c.root = root;
    EXPECT_EQ(clause_of(c, kIntra), "reduce.root-valid");
  }
  c.root = 3;
  EXPECT_THROW(validate_case(c, kIntra), UsageError);
  c.root = 2;
  EXPECT_EQ(clause_of(c, kInter), "reduce.root-valid");
  c.root = 1;
  EXPECT_THROW(validate_case(c, kInter), UsageError);
  EXPECT_THROW(validate_case(named(Routine::allreduce, "root_out_of_range"), kIntra), UsageError);
  EXPECT_EQ(clause_of(named(Routine::reduce, "root_is_mpi_root"), kIntra), "reduce.root-valid");
  EXPECT_THROW(validate_case(named(Routine::reduce, "root_is_mpi_root"), kInter), UsageError);
}

TEST(Erroneous, in_place_and_aliasing_need_the_fields_that_make_them) {
  Case c = named(Routine::allreduce, "in_place_on_intercomm");
  EXPECT_THROW(validate_case(c, kInter), UsageError);  // in_place not set
  c.in_place = true;
  EXPECT_EQ(clause_of(c, kInter), "collective.in-place-intracomm-only");
  EXPECT_THROW(validate_case(c, kIntra), UsageError);
  c.routine = Routine::scan;
  EXPECT_THROW(validate_case(c, kInter), UsageError);
  Case a = named(Routine::reduce_scatter_block, "aliased");
  EXPECT_THROW(validate_case(a, kIntra), UsageError);
  a.alias_send_recv = true;
  EXPECT_EQ(clause_of(a, kIntra), "buffers.send-recv-aliasing");
  Case n = named(Routine::allreduce, "negative_count");
  n.large_count = true;
  EXPECT_THROW(validate_case(n, kIntra), UsageError);
  EXPECT_THROW(validate_case(named(Routine::allreduce, "no_such_kind"), kIntra), UsageError);
}

TEST(Erroneous, the_field_is_in_the_json_only_when_set) {
  Case c;
  EXPECT_EQ(c.to_json().find("erroneous"), std::string::npos);
  c.erroneous = "freed_op";
  EXPECT_NE(c.to_json().find("\"erroneous\":\"freed_op\""), std::string::npos);
  EXPECT_EQ(Case::from_json(c.to_json()).erroneous, "freed_op");
  EXPECT_EQ(Case::from_json(c.to_json()).to_json(), c.to_json());
  for (const std::string& k : erroneous_kinds()) EXPECT_FALSE(k.empty());
}

TEST(Erroneous, an_aliased_reduce_scatter_block_gets_a_receive_buffer_as_large_as_its_input) {
  Case c;
  c.routine = Routine::reduce_scatter_block;
  c.count = 3;
  c.alias_send_recv = true;
  c.erroneous = "aliased";
  for (int r = 0; r < 6; ++r) {
    const RankPlan p = plan(c, Topology{false, 6, 0}, Role{0, r}, /*erroneous=*/true);
    EXPECT_EQ(p.recv_initial->count(), 18);  // p * count: what the library reads from recvbuf
  }
}

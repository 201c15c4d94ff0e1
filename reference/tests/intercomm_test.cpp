// The intercommunicator forms (MPI-4.1 Section 6.2.2, 6.9.1, 6.10): each
// group receives the other group's inputs folded in that group's rank order;
// Scan and Exscan do not exist on intercommunicators. The op is decimal
// concatenation, so a result spells the order of the fold (123 = x0 o x1 o x2).
#include <gtest/gtest.h>

#include <vector>

#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
using test::concat_op;
using test::leaves_of;
using test::ll;
using test::rank_buffers;
using test::recv_buffers;

namespace {

using V = std::vector<long long>;
constexpr std::byte kFill{0xEE};

}  // namespace

TEST(Intercomm, reduce_gives_the_root_in_a_the_fold_of_b_in_bs_rank_order) {
  const auto send_b = rank_buffers(ll(), 2, {{1, 4}, {2, 5}, {3, 6}});
  Buffer root(ll(), 2, kFill);
  reduce_intercomm(send_b, concat_op(), root);
  EXPECT_EQ(leaves_of<long long>(root), (V{123, 456}));
}

TEST(Intercomm, reduce_from_a_group_of_one_copies_its_input) {
  const auto send_b = rank_buffers(ll(), 1, {{7}});
  Buffer root(ll(), 1, kFill);
  reduce_intercomm(send_b, concat_op(), root);
  EXPECT_EQ(leaves_of<long long>(root), (V{7}));
}

TEST(Intercomm, reduce_leaves_the_holes_of_the_roots_buffer_untouched) {
  const Datatype dt = Datatype::resized(0, 16, ll());
  const auto send_b = rank_buffers(dt, 2, {{1, 4}, {2, 5}});
  Buffer root(dt, 2, kFill);
  reduce_intercomm(send_b, concat_op(), root);
  EXPECT_EQ(leaves_of<long long>(root), (V{12, 45}));
  EXPECT_TRUE(test::holes_hold(root, kFill));
}

TEST(Intercomm, allreduce_gives_each_group_the_fold_of_the_other_group) {
  const auto send_a = rank_buffers(ll(), 1, {{1}, {2}});
  const auto send_b = rank_buffers(ll(), 1, {{3}, {4}, {5}});
  auto recv_a = recv_buffers(ll(), 2, 1), recv_b = recv_buffers(ll(), 3, 1);
  allreduce_intercomm(send_a, send_b, concat_op(), recv_a, recv_b);
  for (const Buffer& b : recv_a) EXPECT_EQ(leaves_of<long long>(b), (V{345}));
  for (const Buffer& b : recv_b) EXPECT_EQ(leaves_of<long long>(b), (V{12}));
}

TEST(Intercomm, allreduce_with_a_group_of_one) {
  const auto send_a = rank_buffers(ll(), 2, {{9, 8}});
  const auto send_b = rank_buffers(ll(), 2, {{1, 4}, {2, 5}, {3, 6}});
  auto recv_a = recv_buffers(ll(), 1, 2), recv_b = recv_buffers(ll(), 3, 2);
  allreduce_intercomm(send_a, send_b, concat_op(), recv_a, recv_b);
  EXPECT_EQ(leaves_of<long long>(recv_a[0]), (V{123, 456}));
  for (const Buffer& b : recv_b) EXPECT_EQ(leaves_of<long long>(b), (V{9, 8}));
}

TEST(Intercomm, reduce_scatter_scatters_each_groups_fold_over_the_other_group_by_its_recvcounts) {
  // A: 2 ranks, recvcounts {2, 4}; B: 3 ranks, recvcounts {1, 0, 5}; 6 elements each.
  const auto send_a = rank_buffers(ll(), 6, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 1, 2, 3}});
  const auto send_b =
      rank_buffers(ll(), 6, {{1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}, {3, 4, 5, 6, 7, 8}});
  std::vector<Buffer> recv_a = {Buffer(ll(), 2, kFill), Buffer(ll(), 4, kFill)};
  std::vector<Buffer> recv_b = {Buffer(ll(), 1, kFill), Buffer(ll(), 0, kFill),
                                Buffer(ll(), 5, kFill)};
  reduce_scatter_intercomm(send_a, send_b, {2, 4}, {1, 0, 5}, concat_op(), recv_a, recv_b);
  // B's fold, 123 124 125 126 127 128, scattered over A.
  EXPECT_EQ(leaves_of<long long>(recv_a[0]), (V{123, 124}));
  EXPECT_EQ(leaves_of<long long>(recv_a[1]), (V{125, 126, 127, 128}));
  // A's fold, 17 28 39 41 52 63, scattered over B.
  EXPECT_EQ(leaves_of<long long>(recv_b[0]), (V{17}));
  EXPECT_TRUE(leaves_of<long long>(recv_b[1]).empty());
  EXPECT_EQ(leaves_of<long long>(recv_b[2]), (V{28, 39, 41, 52, 63}));
}

TEST(Intercomm, reduce_scatter_with_a_group_of_one) {
  // A: 1 rank receiving all 3 elements; B: 3 ranks, one element each.
  const auto send_a = rank_buffers(ll(), 3, {{7, 8, 9}});
  const auto send_b = rank_buffers(ll(), 3, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  std::vector<Buffer> recv_a = {Buffer(ll(), 3, kFill)};
  auto recv_b = recv_buffers(ll(), 3, 1);
  reduce_scatter_intercomm(send_a, send_b, {3}, {1, 1, 1}, concat_op(), recv_a, recv_b);
  EXPECT_EQ(leaves_of<long long>(recv_a[0]), (V{147, 258, 369}));
  EXPECT_EQ(leaves_of<long long>(recv_b[0]), (V{7}));
  EXPECT_EQ(leaves_of<long long>(recv_b[1]), (V{8}));
  EXPECT_EQ(leaves_of<long long>(recv_b[2]), (V{9}));
}

TEST(Intercomm, reduce_scatter_refuses_groups_that_reduce_different_numbers_of_elements) {
  const auto send_a = rank_buffers(ll(), 3, {{1, 2, 3}});
  const auto send_b = rank_buffers(ll(), 3, {{1, 2, 3}, {4, 5, 6}});
  std::vector<Buffer> recv_a = {Buffer(ll(), 3)};
  auto recv_b = recv_buffers(ll(), 2, 1);
  EXPECT_THROW(reduce_scatter_intercomm(send_a, send_b, {3}, {1, 1}, concat_op(), recv_a, recv_b),
               UsageError);
  EXPECT_THROW(reduce_scatter_intercomm(send_a, send_b, {3}, {1}, concat_op(), recv_a, recv_b),
               UsageError);
}

TEST(Intercomm, reduce_scatter_block_with_groups_of_unequal_size) {
  // A: 1 rank x 4 elements; B: 2 ranks x 2 elements; 4 elements reduced by each group.
  const auto send_a = rank_buffers(ll(), 4, {{1, 2, 3, 4}});
  const auto send_b = rank_buffers(ll(), 4, {{5, 6, 7, 8}, {9, 1, 2, 3}});
  std::vector<Buffer> recv_a = {Buffer(ll(), 4, kFill)};
  auto recv_b = recv_buffers(ll(), 2, 2);
  reduce_scatter_block_intercomm(send_a, send_b, 4, 2, concat_op(), recv_a, recv_b);
  EXPECT_EQ(leaves_of<long long>(recv_a[0]), (V{59, 61, 72, 83}));
  EXPECT_EQ(leaves_of<long long>(recv_b[0]), (V{1, 2}));
  EXPECT_EQ(leaves_of<long long>(recv_b[1]), (V{3, 4}));
}

TEST(Intercomm, reduce_scatter_block_with_groups_of_two_and_three) {
  // A: 2 ranks x 3 elements, B: 3 ranks x 2 elements; 6 elements each way.
  const auto send_a = rank_buffers(ll(), 6, {{1, 1, 1, 1, 1, 1}, {2, 3, 4, 5, 6, 7}});
  const auto send_b =
      rank_buffers(ll(), 6, {{1, 2, 3, 4, 5, 6}, {1, 1, 1, 1, 1, 1}, {9, 9, 9, 9, 9, 9}});
  auto recv_a = recv_buffers(ll(), 2, 3), recv_b = recv_buffers(ll(), 3, 2);
  reduce_scatter_block_intercomm(send_a, send_b, 3, 2, concat_op(), recv_a, recv_b);
  EXPECT_EQ(leaves_of<long long>(recv_a[0]), (V{119, 219, 319}));
  EXPECT_EQ(leaves_of<long long>(recv_a[1]), (V{419, 519, 619}));
  EXPECT_EQ(leaves_of<long long>(recv_b[0]), (V{12, 13}));
  EXPECT_EQ(leaves_of<long long>(recv_b[1]), (V{14, 15}));
  EXPECT_EQ(leaves_of<long long>(recv_b[2]), (V{16, 17}));
}

TEST(Intercomm, scan_and_exscan_are_not_defined_on_intercommunicators) {
  EXPECT_EQ(test::clause_of([] { scan_intercomm(); }), "scan.intracomm-only");
}

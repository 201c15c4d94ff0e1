// The rank-ordered fold behind every intracommunicator routine (MPI-4.1
// Sections 6.9.1, 6.9.5, 6.10, 6.11): order and orientation with a
// non-commutative op, every root, the in-place forms, count 0, holes of
// receive datatypes, and overlapping send and receive datatypes.
//
// The op is decimal concatenation (test_util.h): the result spells the order
// in which the ranks' inputs were combined, so 1234 reads "x0 o x1 o x2 o x3".
#include "ordo/reference/semantics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ordo/reference/errors.h"
#include "test_util.h"

using namespace ordo::ref;
using test::concat_op;
using test::holes_hold;
using test::leaves_of;
using test::ll;
using test::rank_buffers;
using test::recv_buffers;

namespace {

using V = std::vector<long long>;
constexpr std::byte kFill{0xEE};

// Four ranks, two elements: rank r holds {r+1, 5+r}.
std::vector<Buffer> four_ranks() { return rank_buffers(ll(), 2, {{1, 5}, {2, 6}, {3, 7}, {4, 8}}); }

bool untouched(const Buffer& b, std::byte fill = kFill) {
  for (std::byte x : b.storage())
    if (x != fill) return false;
  return true;
}

}  // namespace

TEST(Fold, combines_inputs_strictly_left_to_right) {
  const auto in = four_ranks();
  const Buffer r = fold({&in[0], &in[1], &in[2], &in[3]}, concat_op());
  EXPECT_EQ(leaves_of<long long>(r), (V{1234, 5678}));
}

TEST(Fold, of_one_input_is_that_input) {
  const auto in = four_ranks();
  EXPECT_EQ(leaves_of<long long>(fold({&in[2]}, concat_op())), (V{3, 7}));
}

TEST(Fold, passes_the_partial_result_as_invec_and_the_next_input_as_inoutvec) {
  std::vector<std::pair<long long, long long>> calls;
  const Op op = Op::user(
      "recording",
      [&](const std::byte* in, std::byte* inout, int len, const Datatype& dt) {
        calls.push_back({test::load<long long>(in), test::load<long long>(inout)});
        test::concat_function(in, inout, len, dt);
      },
      false);
  const auto in = rank_buffers(ll(), 1, {{1}, {2}, {3}});
  fold({&in[0], &in[1], &in[2]}, op);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], std::make_pair(1LL, 2LL));
  EXPECT_EQ(calls[1], std::make_pair(12LL, 3LL));
}

TEST(Fold, gives_the_user_function_the_datatype_and_count_of_the_call) {
  const Datatype dt = Datatype::vector(2, 1, 2, ll());
  std::vector<std::string> seen;
  std::vector<int> lens;
  const Op op = Op::user(
      "recording",
      [&](const std::byte* in, std::byte* inout, int len, const Datatype& t) {
        seen.push_back(t.text());
        lens.push_back(len);
        test::concat_function(in, inout, len, t);
      },
      false);
  const auto in = rank_buffers(dt, 3, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 1, 2, 3}});
  const Buffer r = fold({&in[0], &in[1]}, op);
  EXPECT_EQ(seen, (std::vector<std::string>{"vector(2,1,2,MPI_LONG_LONG)"}));
  EXPECT_EQ(lens, (std::vector<int>{3}));
  EXPECT_EQ(leaves_of<long long>(r), (V{17, 28, 39, 41, 52, 63}));
}

TEST(Fold, never_writes_its_inputs) {
  const auto in = rank_buffers(Datatype::vector(2, 1, 2, ll()), 2,
                               {{1, 5, 2, 6}, {2, 6, 3, 7}, {3, 7, 4, 8}, {4, 8, 5, 9}});
  const auto before = in;
  fold({&in[0], &in[1], &in[2], &in[3]}, concat_op());
  fold({&in[0], &in[1], &in[2], &in[3]}, Op::predefined(PredefinedOp::SUM));
  for (std::size_t r = 0; r < in.size(); ++r) EXPECT_EQ(in[r].storage(), before[r].storage());
}

TEST(Fold, refuses_no_inputs_and_inputs_of_different_shapes) {
  EXPECT_THROW(fold({}, concat_op()), UsageError);
  Buffer a(ll(), 2), b(ll(), 3), c(Datatype::basic(Basic::INT), 2);
  EXPECT_THROW(fold({&a, &b}, concat_op()), UsageError);
  EXPECT_THROW(fold({&a, &c}, concat_op()), UsageError);
}

TEST(Combine, writes_left_o_right_into_right_for_every_element) {
  const auto in = rank_buffers(ll(), 3, {{1, 2, 3}, {4, 5, 6}});
  Buffer right = in[1];
  combine(concat_op(), ll(), 3, in[0].data(), right.data());
  EXPECT_EQ(leaves_of<long long>(right), (V{14, 25, 36}));
  combine(concat_op(), ll(), 0, in[0].data(), right.data());  // count 0: nothing
  EXPECT_EQ(leaves_of<long long>(right), (V{14, 25, 36}));
}

TEST(Reduce, noncommutative_op_is_applied_in_rank_order_for_every_root) {
  const auto send = four_ranks();
  for (int root = 0; root < 4; ++root) {
    auto recv = recv_buffers(ll(), 4, 2);
    reduce(send, concat_op(), root, recv);
    EXPECT_EQ(leaves_of<long long>(recv[root]), (V{1234, 5678})) << "root " << root;
    for (int r = 0; r < 4; ++r) {
      if (r == root) continue;
      EXPECT_TRUE(untouched(recv[r])) << "non-root " << r << " written";
    }
  }
}

TEST(Reduce, in_place_takes_the_roots_input_from_its_receive_buffer) {
  const auto send = four_ranks();
  for (int root = 0; root < 4; ++root) {
    auto recv = recv_buffers(ll(), 4, 2);
    recv[root] = send[root];
    auto garbage = send;
    garbage[root] = rank_buffers(ll(), 2, {{9, 9}})[0];  // the root's sendbuf is ignored
    reduce(garbage, concat_op(), root, recv, true);
    EXPECT_EQ(leaves_of<long long>(recv[root]), (V{1234, 5678})) << "root " << root;
  }
}

TEST(Reduce, with_one_rank_copies_the_input) {
  const auto send = rank_buffers(ll(), 2, {{4, 2}});
  auto recv = recv_buffers(ll(), 1, 2);
  reduce(send, concat_op(), 0, recv);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{4, 2}));
}

TEST(Reduce, refuses_a_root_out_of_range_and_mismatched_rank_counts) {
  const auto send = four_ranks();
  auto recv = recv_buffers(ll(), 4, 2);
  EXPECT_THROW(reduce(send, concat_op(), 4, recv), UsageError);
  EXPECT_THROW(reduce(send, concat_op(), -1, recv), UsageError);
  auto three = recv_buffers(ll(), 3, 2);
  EXPECT_THROW(reduce(send, concat_op(), 0, three), UsageError);
}

TEST(Allreduce, every_rank_gets_the_rank_ordered_fold) {
  const auto send = four_ranks();
  auto recv = recv_buffers(ll(), 4, 2);
  allreduce(send, concat_op(), recv);
  for (const Buffer& b : recv) EXPECT_EQ(leaves_of<long long>(b), (V{1234, 5678}));
}

TEST(Allreduce, in_place_takes_every_input_from_the_receive_buffers) {
  auto recv = four_ranks();
  const auto ignored = rank_buffers(ll(), 2, {{9, 9}, {9, 9}, {9, 9}, {9, 9}});
  allreduce(ignored, concat_op(), recv, true);
  for (const Buffer& b : recv) EXPECT_EQ(leaves_of<long long>(b), (V{1234, 5678}));
}

TEST(ReduceScatter, scatters_the_fold_by_uneven_recvcounts_including_zero) {
  // Six elements per rank; element k of rank r is the digit (r + k) % 9 + 1.
  std::vector<V> vals;
  for (int r = 0; r < 4; ++r) {
    V v;
    for (int k = 0; k < 6; ++k) v.push_back((r + k) % 9 + 1);
    vals.push_back(v);
  }
  const auto send = rank_buffers(ll(), 6, vals);
  const std::vector<int> counts = {2, 0, 3, 1};
  std::vector<Buffer> recv;
  for (int c : counts) recv.emplace_back(ll(), c, kFill);
  reduce_scatter(send, counts, concat_op(), recv);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{1234, 2345}));
  EXPECT_TRUE(leaves_of<long long>(recv[1]).empty());
  EXPECT_EQ(leaves_of<long long>(recv[2]), (V{3456, 4567, 5678}));
  EXPECT_EQ(leaves_of<long long>(recv[3]), (V{6789}));
}

TEST(ReduceScatter, in_place_reads_the_whole_input_from_recvbuf_and_writes_its_block_first) {
  const auto ignored = rank_buffers(ll(), 3, {{9, 9, 9}, {9, 9, 9}});
  auto recv = rank_buffers(ll(), 3, {{1, 3, 5}, {2, 4, 6}});
  reduce_scatter(ignored, {1, 2}, concat_op(), recv, true);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{12, 3, 5}));   // 1 result, the rest untouched
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{34, 56, 6}));  // 2 results
}

TEST(ReduceScatter, refuses_inconsistent_recvcounts) {
  const auto send = four_ranks();
  auto recv = recv_buffers(ll(), 4, 1);
  EXPECT_THROW(reduce_scatter(send, {1, 1, 1}, concat_op(), recv), UsageError);
  EXPECT_THROW(reduce_scatter(send, {1, 1, 1, 1}, concat_op(), recv), UsageError);  // 4 != 2
  EXPECT_THROW(reduce_scatter(send, {3, -1, 0, 0}, concat_op(), recv), UsageError);
}

TEST(ReduceScatterBlock, gives_each_rank_its_block_of_the_fold) {
  const auto send = rank_buffers(ll(), 4, {{1, 2, 3, 4}, {5, 6, 7, 8}});
  auto recv = recv_buffers(ll(), 2, 2);
  reduce_scatter_block(send, 2, concat_op(), recv);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{15, 26}));
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{37, 48}));
}

TEST(ReduceScatterBlock, in_place_takes_the_input_from_recvbuf) {
  const auto ignored = rank_buffers(ll(), 4, {{9, 9, 9, 9}, {9, 9, 9, 9}});
  auto recv = rank_buffers(ll(), 4, {{1, 2, 3, 4}, {5, 6, 7, 8}});
  reduce_scatter_block(ignored, 2, concat_op(), recv, true);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{15, 26, 3, 4}));
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{37, 48, 7, 8}));
}

TEST(Scan, rank_i_gets_the_fold_of_ranks_0_to_i) {
  const auto send = four_ranks();
  auto recv = recv_buffers(ll(), 4, 2);
  scan(send, concat_op(), recv);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{1, 5}));
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{12, 56}));
  EXPECT_EQ(leaves_of<long long>(recv[2]), (V{123, 567}));
  EXPECT_EQ(leaves_of<long long>(recv[3]), (V{1234, 5678}));
}

TEST(Scan, in_place_takes_the_inputs_from_the_receive_buffers) {
  auto recv = four_ranks();
  scan(rank_buffers(ll(), 2, {{9, 9}, {9, 9}, {9, 9}, {9, 9}}), concat_op(), recv, true);
  EXPECT_EQ(leaves_of<long long>(recv[3]), (V{1234, 5678}));
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{12, 56}));
}

TEST(Exscan, rank_i_gets_the_fold_of_ranks_0_to_i_minus_1_and_rank_0_is_undefined_and_untouched) {
  const auto send = four_ranks();
  auto recv = recv_buffers(ll(), 4, 2);
  const std::vector<bool> defined = exscan(send, concat_op(), recv);
  EXPECT_EQ(defined, (std::vector<bool>{false, true, true, true}));
  EXPECT_TRUE(untouched(recv[0]));
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{1, 5}));
  EXPECT_EQ(leaves_of<long long>(recv[2]), (V{12, 56}));
  EXPECT_EQ(leaves_of<long long>(recv[3]), (V{123, 567}));
}

TEST(Exscan, in_place_leaves_rank_0s_input_in_place) {
  auto recv = four_ranks();
  const auto ignored = rank_buffers(ll(), 2, {{9, 9}, {9, 9}, {9, 9}, {9, 9}});
  const auto defined = exscan(ignored, concat_op(), recv, true);
  EXPECT_FALSE(defined[0]);
  EXPECT_EQ(leaves_of<long long>(recv[0]), (V{1, 5}));
  EXPECT_EQ(leaves_of<long long>(recv[1]), (V{1, 5}));
  EXPECT_EQ(leaves_of<long long>(recv[3]), (V{123, 567}));
}

TEST(Exscan, with_one_rank_defines_nothing) {
  const auto send = rank_buffers(ll(), 1, {{7}});
  auto recv = recv_buffers(ll(), 1, 1);
  EXPECT_EQ(exscan(send, concat_op(), recv), (std::vector<bool>{false}));
  EXPECT_TRUE(untouched(recv[0]));
}

TEST(CountZero, every_routine_accepts_count_0_and_writes_nothing) {
  const auto send = rank_buffers(ll(), 0, {{}, {}, {}});
  const Op op = concat_op();
  auto fresh = [] { return recv_buffers(ll(), 3, 0); };
  auto none_written = [](const std::vector<Buffer>& v) {
    for (const Buffer& b : v)
      if (!b.storage().empty()) return false;
    return true;
  };
  {
    auto recv = fresh();
    for (int root = 0; root < 3; ++root) EXPECT_NO_THROW(reduce(send, op, root, recv));
    EXPECT_NO_THROW(reduce(send, op, 1, recv, true));
    EXPECT_TRUE(none_written(recv));
  }
  {
    auto recv = fresh();
    EXPECT_NO_THROW(allreduce(send, op, recv));
    EXPECT_NO_THROW(allreduce(send, op, recv, true));
    EXPECT_NO_THROW(reduce_scatter(send, {0, 0, 0}, op, recv));
    EXPECT_NO_THROW(reduce_scatter_block(send, 0, op, recv));
    EXPECT_NO_THROW(scan(send, op, recv));
    EXPECT_NO_THROW(exscan(send, op, recv));
    EXPECT_TRUE(none_written(recv));
  }
  Buffer inout(ll(), 0);
  EXPECT_NO_THROW(reduce_local(send[0], inout, op));
  EXPECT_NO_THROW(reduce_locals(&send[0], &send[1], &inout, op));
  Buffer root(ll(), 0);
  EXPECT_NO_THROW(reduce_intercomm(send, op, root));
  auto ra = recv_buffers(ll(), 3, 0), rb = recv_buffers(ll(), 2, 0);
  const auto send_b = rank_buffers(ll(), 0, {{}, {}});
  EXPECT_NO_THROW(allreduce_intercomm(send, send_b, op, ra, rb));
  EXPECT_NO_THROW(reduce_scatter_intercomm(send, send_b, {0, 0, 0}, {0, 0}, op, ra, rb));
  EXPECT_NO_THROW(reduce_scatter_block_intercomm(send, send_b, 0, 0, op, ra, rb));
  // And with a predefined op, whose kernels take another path.
  auto recv = fresh();
  EXPECT_NO_THROW(allreduce(send, Op::predefined(PredefinedOp::SUM), recv));
}

TEST(Holes, are_left_untouched_in_vector_receive_buffers_by_every_routine) {
  const Datatype dt = Datatype::vector(2, 1, 2, ll());  // a hole of 8 bytes between leaves
  const auto send = rank_buffers(dt, 2, {{1, 5, 2, 6}, {2, 6, 3, 7}, {3, 7, 4, 8}});
  const Op op = concat_op();
  {
    auto recv = recv_buffers(dt, 3, 2);
    reduce(send, op, 2, recv);
    EXPECT_TRUE(holes_hold(recv[2], kFill));
    EXPECT_EQ(leaves_of<long long>(recv[2]), (V{123, 567, 234, 678}));
  }
  {
    auto recv = recv_buffers(dt, 3, 2);
    allreduce(send, op, recv);
    for (const Buffer& b : recv) EXPECT_TRUE(holes_hold(b, kFill));
    scan(send, op, recv);
    for (const Buffer& b : recv) EXPECT_TRUE(holes_hold(b, kFill));
    exscan(send, op, recv);
    for (const Buffer& b : recv) EXPECT_TRUE(holes_hold(b, kFill));
    EXPECT_EQ(leaves_of<long long>(recv[2]), (V{12, 56, 23, 67}));
  }
  {
    std::vector<Buffer> recv = {Buffer(dt, 1, kFill), Buffer(dt, 0, kFill), Buffer(dt, 1, kFill)};
    reduce_scatter(send, {1, 0, 1}, op, recv);
    for (const Buffer& b : recv) EXPECT_TRUE(holes_hold(b, kFill));
    EXPECT_EQ(leaves_of<long long>(recv[2]), (V{234, 678}));
  }
  {
    Buffer inout = test::leaves_buffer<long long>(dt, 2, {2, 6, 3, 7}, kFill);
    reduce_local(send[0], inout, op);
    EXPECT_TRUE(holes_hold(inout, kFill));
    EXPECT_EQ(leaves_of<long long>(inout), (V{12, 56, 23, 67}));
  }
}

TEST(Holes, are_left_untouched_in_resized_receive_buffers_including_a_negative_lb) {
  for (const Datatype& dt : {Datatype::resized(0, 16, ll()), Datatype::resized(-8, 24, ll())}) {
    SCOPED_TRACE(dt.text());
    const auto send = rank_buffers(dt, 3, {{1, 2, 3}, {4, 5, 6}});
    auto recv = recv_buffers(dt, 2, 3);
    allreduce(send, concat_op(), recv);
    for (const Buffer& b : recv) {
      EXPECT_TRUE(holes_hold(b, kFill));
      EXPECT_EQ(leaves_of<long long>(b), (V{14, 25, 36}));
    }
    recv = recv_buffers(dt, 2, 3);
    allreduce(send, Op::predefined(PredefinedOp::SUM), recv);
    EXPECT_TRUE(holes_hold(recv[0], kFill));
    EXPECT_EQ(leaves_of<long long>(recv[0]), (V{5, 7, 9}));
  }
}

TEST(Holes, of_a_struct_with_mixed_leaves_are_left_untouched_by_a_predefined_op) {
  // struct { int at 0; double at 8; short at 24 } with holes 4..8 and 16..24.
  const Datatype dt = Datatype::struct_(
      {1, 1, 1}, {0, 8, 24},
      {Datatype::basic(Basic::INT), Datatype::basic(Basic::DOUBLE), Datatype::basic(Basic::SHORT)});
  std::vector<Buffer> send;
  for (int r = 0; r < 3; ++r) {
    send.emplace_back(dt, 2, std::byte{0x77});
    for (int k = 0; k < 2; ++k) {
      test::store<int>(send.back().element(k), 10 * r + k);
      test::store<double>(send.back().element(k) + 8, 0.5 * r);
      test::store<short>(send.back().element(k) + 24, static_cast<short>(-r));
    }
  }
  auto recv = recv_buffers(dt, 3, 2);
  reduce(send, Op::predefined(PredefinedOp::SUM), 0, recv);
  EXPECT_TRUE(holes_hold(recv[0], kFill));
  EXPECT_EQ(test::load<int>(recv[0].element(1)), 1 + 11 + 21);
  EXPECT_EQ(test::load<double>(recv[0].element(1) + 8), 1.5);
  EXPECT_EQ(test::load<short>(recv[0].element(1) + 24), -3);
}

TEST(Overlap, a_send_datatype_that_overlaps_itself_reads_the_same_bytes_for_every_element) {
  // hvector(3, 1, 0, MPI_INT): three ints at the same address. Overlapping
  // send buffers are allowed (Section 6.9.1); each of the three values is the
  // rank's one int, so each combined value is the sum of the ranks' ints.
  const Datatype dt = Datatype::hvector(3, 1, 0, Datatype::basic(Basic::INT));
  std::vector<Buffer> in;
  for (int v : {1, 10, 100}) {
    in.emplace_back(dt, 1);
    test::store<int>(in.back().data(), v);
  }
  const auto before = in;
  const Buffer r = fold({&in[0], &in[1], &in[2]}, Op::predefined(PredefinedOp::SUM));
  EXPECT_EQ(leaves_of<int>(r), (std::vector<int>{111, 111, 111}));
  const Buffer m = fold({&in[0], &in[1], &in[2]}, Op::predefined(PredefinedOp::MAX));
  EXPECT_EQ(leaves_of<int>(m), (std::vector<int>{100, 100, 100}));
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(in[i].storage(), before[i].storage());
}

TEST(Overlap, a_receive_datatype_that_overlaps_itself_is_refused_by_every_routine) {
  const Datatype dt = Datatype::hvector(2, 1, 0, ll());
  const auto send = rank_buffers(dt, 1, {{1, 1}, {2, 2}});
  const Op op = concat_op();
  const std::string slug = "buffers.recv-overlap";
  auto recv = recv_buffers(dt, 2, 1);
  using test::clause_of;
  EXPECT_EQ(clause_of([&] { reduce(send, op, 1, recv); }), slug);
  EXPECT_EQ(clause_of([&] { allreduce(send, op, recv); }), slug);
  EXPECT_EQ(clause_of([&] { reduce_scatter(send, {1, 0}, op, recv); }), slug);
  EXPECT_EQ(clause_of([&] { reduce_scatter_block(send, 1, op, recv); }), slug);
  EXPECT_EQ(clause_of([&] { scan(send, op, recv); }), slug);
  EXPECT_EQ(clause_of([&] { exscan(send, op, recv); }), slug);
  EXPECT_EQ(clause_of([&] { reduce_local(send[0], recv[0], op); }), slug);
  EXPECT_EQ(clause_of([&] { reduce_locals(&send[0], &send[1], &recv[0], op); }), slug);
  EXPECT_EQ(clause_of([&] { reduce_intercomm(send, op, recv[0]); }), slug);
  auto other = recv_buffers(dt, 2, 1);
  EXPECT_EQ(clause_of([&] { allreduce_intercomm(send, send, op, recv, other); }), slug);
  EXPECT_TRUE(untouched(recv[0]));
  EXPECT_TRUE(untouched(recv[1]));
}

TEST(Overlap, a_resized_receive_type_shorter_than_its_data_is_refused_at_count_2_only) {
  const Datatype dt = Datatype::resized(0, 4, ll());  // 8 bytes of data every 4 bytes
  const auto one = rank_buffers(dt, 1, {{1}, {2}});
  auto recv1 = recv_buffers(dt, 2, 1);
  EXPECT_NO_THROW(allreduce(one, concat_op(), recv1));
  EXPECT_EQ(leaves_of<long long>(recv1[0]), (V{12}));
  std::vector<Buffer> two = {Buffer(dt, 2), Buffer(dt, 2)};
  auto recv2 = recv_buffers(dt, 2, 2);
  EXPECT_EQ(test::clause_of([&] { allreduce(two, concat_op(), recv2); }), "buffers.recv-overlap");
}

TEST(ReduceLocal, computes_inout_equals_in_o_inout) {
  const auto in = rank_buffers(ll(), 2, {{12, 5}});
  Buffer inout = rank_buffers(ll(), 2, {{34, 67}})[0];
  reduce_local(in[0], inout, concat_op());
  EXPECT_EQ(leaves_of<long long>(inout), (V{1234, 567}));
  EXPECT_EQ(leaves_of<long long>(in[0]), (V{12, 5}));
}

TEST(ReduceLocal, refuses_mpi_in_place) {
  const auto in = rank_buffers(ll(), 1, {{1}});
  Buffer inout = rank_buffers(ll(), 1, {{2}})[0];
  EXPECT_EQ(test::clause_of([&] { reduce_local(in[0], inout, concat_op(), true); }),
            "reduce-local.no-in-place");
  EXPECT_EQ(leaves_of<long long>(inout), (V{2}));
}

TEST(ReduceLocal, refuses_a_predefined_op_on_a_type_it_does_not_allow) {
  const Datatype d = Datatype::basic(Basic::DOUBLE);
  Buffer a(d, 1), b(d, 1);
  EXPECT_EQ(test::clause_of([&] { reduce_local(a, b, Op::predefined(PredefinedOp::BAND)); }),
            "op.type-groups");
}

// `only`: one process of a job plans its own result. It must be exactly what
// the call for every rank gives that rank, and leave every other receive
// buffer as it was (placeholders of no elements when they are not inputs).
TEST(OnlyOneRank, gets_what_the_call_for_every_rank_gives_it_and_touches_no_other_buffer) {
  const auto send = four_ranks();
  const std::vector<int> counts = {1, 0, 2, 1};  // reduce_scatter of 4 elements
  const auto send4 =
      rank_buffers(ll(), 4, {{1, 5, 1, 5}, {2, 6, 2, 6}, {3, 7, 3, 7}, {4, 8, 4, 8}});
  for (const bool in_place : {false, true}) {
    for (int r = 0; r < 4; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r) + (in_place ? " in place" : ""));
      // Every rank's buffers as the call for every rank leaves them.
      auto all_ar = in_place ? four_ranks() : recv_buffers(ll(), 4, 2);
      allreduce(send, concat_op(), all_ar, in_place);
      auto all_sc = in_place ? four_ranks() : recv_buffers(ll(), 4, 2);
      scan(send, concat_op(), all_sc, in_place);
      auto all_ex = in_place ? four_ranks() : recv_buffers(ll(), 4, 2);
      const auto def_all = exscan(send, concat_op(), all_ex, in_place);
      std::vector<Buffer> all_rs;
      for (int q = 0; q < 4; ++q)
        all_rs.push_back(in_place ? send4[q] : Buffer(ll(), counts[q], kFill));
      reduce_scatter(send4, counts, concat_op(), all_rs, in_place);
      // Only rank r's.
      auto mine = [&](int count) {
        std::vector<Buffer> v;
        for (int q = 0; q < 4; ++q)
          v.push_back(in_place ? four_ranks()[q] : Buffer(ll(), q == r ? count : 0, kFill));
        return v;
      };
      auto one_ar = mine(2);
      allreduce(send, concat_op(), one_ar, in_place, r);
      auto one_sc = mine(2);
      scan(send, concat_op(), one_sc, in_place, r);
      auto one_ex = mine(2);
      EXPECT_EQ(exscan(send, concat_op(), one_ex, in_place, r), def_all);
      std::vector<Buffer> one_rs;
      for (int q = 0; q < 4; ++q)
        one_rs.push_back(in_place ? send4[q] : Buffer(ll(), q == r ? counts[q] : 0, kFill));
      reduce_scatter(send4, counts, concat_op(), one_rs, in_place, r);
      EXPECT_EQ(one_ar[r].storage(), all_ar[r].storage());
      EXPECT_EQ(one_sc[r].storage(), all_sc[r].storage());
      EXPECT_EQ(one_ex[r].storage(), all_ex[r].storage());
      EXPECT_EQ(one_rs[r].storage(), all_rs[r].storage());
      for (int q = 0; q < 4; ++q) {
        if (q == r) continue;
        const auto before = in_place ? four_ranks()[q] : Buffer(ll(), 0, kFill);
        EXPECT_EQ(one_ar[q].storage(), before.storage());
        EXPECT_EQ(one_sc[q].storage(), before.storage());
        EXPECT_EQ(one_ex[q].storage(), before.storage());
        EXPECT_EQ(one_rs[q].storage(), (in_place ? send4[q] : Buffer(ll(), 0, kFill)).storage());
      }
    }
  }
  auto recv = recv_buffers(ll(), 4, 2);
  EXPECT_THROW(allreduce(send, concat_op(), recv, false, 4), UsageError);
}

TEST(Exscan, in_place_reads_each_input_before_writing_that_rank_s_result) {
  auto recv = four_ranks();
  exscan(rank_buffers(ll(), 2, {{9, 9}, {9, 9}, {9, 9}, {9, 9}}), concat_op(), recv, true);
  EXPECT_EQ(leaves_of<long long>(recv[2]), (V{12, 56}));
  EXPECT_EQ(leaves_of<long long>(recv[3]), (V{123, 567}));
}

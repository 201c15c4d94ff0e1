// The datatype model (MPI-4.1 Chapter 5): lb, ub, extent, true lb, true
// extent and size for every constructor, the basic and pair types' layouts,
// self-overlap, and the text form's round trip and errors.
#include "ordo/reference/datatype.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ordo/reference/buffer.h"
#include "ordo/reference/errors.h"

using namespace ordo::ref;

namespace {

struct Bounds {
  std::ptrdiff_t lb, ub, extent, true_lb, true_extent;
  std::size_t size;
};

::testing::AssertionResult has_bounds(const Datatype& t, Bounds e) {
  const Bounds o{t.lb(), t.ub(), t.extent(), t.true_lb(), t.true_extent(), t.size()};
  if (o.lb == e.lb && o.ub == e.ub && o.extent == e.extent && o.true_lb == e.true_lb &&
      o.true_extent == e.true_extent && o.size == e.size)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << t.text() << ": {lb, ub, extent, true_lb, true_extent, size} = {" << o.lb << ", " << o.ub
         << ", " << o.extent << ", " << o.true_lb << ", " << o.true_extent << ", " << o.size
         << "}, expected {" << e.lb << ", " << e.ub << ", " << e.extent << ", " << e.true_lb << ", "
         << e.true_extent << ", " << e.size << "}";
}

std::vector<std::ptrdiff_t> disps(const Datatype& t) {
  std::vector<std::ptrdiff_t> v;
  for (const Leaf& l : t.typemap()) v.push_back(l.disp);
  return v;
}

using D = std::vector<std::ptrdiff_t>;

const Datatype kInt = Datatype::basic(Basic::INT);
const Datatype kShort = Datatype::basic(Basic::SHORT);
const Datatype kChar = Datatype::basic(Basic::CHAR);
const Datatype kDouble = Datatype::basic(Basic::DOUBLE);

}  // namespace

TEST(Datatype, basic_types_have_the_sizes_of_this_lp64_platform) {
  struct Row {
    Basic b;
    std::size_t size;
  };
  // x86-64 / LP64 with gfortran defaults: INTEGER, REAL, LOGICAL 4 bytes.
  const Row rows[] = {
      {Basic::SIGNED_CHAR, 1},
      {Basic::UNSIGNED_CHAR, 1},
      {Basic::SHORT, 2},
      {Basic::UNSIGNED_SHORT, 2},
      {Basic::INT, 4},
      {Basic::UNSIGNED, 4},
      {Basic::LONG, 8},
      {Basic::UNSIGNED_LONG, 8},
      {Basic::LONG_LONG, 8},
      {Basic::UNSIGNED_LONG_LONG, 8},
      {Basic::INT8_T, 1},
      {Basic::INT16_T, 2},
      {Basic::INT32_T, 4},
      {Basic::INT64_T, 8},
      {Basic::UINT8_T, 1},
      {Basic::UINT16_T, 2},
      {Basic::UINT32_T, 4},
      {Basic::UINT64_T, 8},
      {Basic::INTEGER, 4},
      {Basic::INTEGER1, 1},
      {Basic::INTEGER2, 2},
      {Basic::INTEGER4, 4},
      {Basic::INTEGER8, 8},
      {Basic::FLOAT, 4},
      {Basic::DOUBLE, 8},
      {Basic::LONG_DOUBLE, 16},
      {Basic::REAL, 4},
      {Basic::DOUBLE_PRECISION, 8},
      {Basic::REAL4, 4},
      {Basic::REAL8, 8},
      {Basic::C_BOOL, 1},
      {Basic::CXX_BOOL, 1},
      {Basic::LOGICAL, 4},
      {Basic::C_COMPLEX, 8},
      {Basic::C_FLOAT_COMPLEX, 8},
      {Basic::C_DOUBLE_COMPLEX, 16},
      {Basic::C_LONG_DOUBLE_COMPLEX, 32},
      {Basic::CXX_FLOAT_COMPLEX, 8},
      {Basic::CXX_DOUBLE_COMPLEX, 16},
      {Basic::CXX_LONG_DOUBLE_COMPLEX, 32},
      {Basic::COMPLEX, 8},
      {Basic::DOUBLE_COMPLEX, 16},
      {Basic::COMPLEX8, 8},
      {Basic::COMPLEX16, 16},
      {Basic::BYTE, 1},
      {Basic::AINT, 8},
      {Basic::OFFSET, 8},
      {Basic::COUNT, 8},
      {Basic::CHAR, 1},
      {Basic::WCHAR, 4},
      {Basic::CHARACTER, 1},
  };
  for (const Row& r : rows) {
    const auto s = static_cast<std::ptrdiff_t>(r.size);
    EXPECT_TRUE(has_bounds(Datatype::basic(r.b), {0, s, s, 0, s, r.size}));
  }
}

TEST(Datatype, pair_types_have_the_c_struct_layouts_with_padding_in_the_extent_only) {
  // {lb, ub, extent, true_lb, true_extent, size}: true extent ends after the index.
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::DOUBLE_INT), {0, 16, 16, 0, 12, 12}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::SHORT_INT), {0, 8, 8, 0, 8, 6}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::LONG_DOUBLE_INT), {0, 32, 32, 0, 20, 20}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::FLOAT_INT), {0, 8, 8, 0, 8, 8}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::LONG_INT), {0, 16, 16, 0, 12, 12}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::TWO_INT), {0, 8, 8, 0, 8, 8}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::TWO_INTEGER), {0, 8, 8, 0, 8, 8}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::TWO_REAL), {0, 8, 8, 0, 8, 8}));
  EXPECT_TRUE(has_bounds(Datatype::basic(Basic::TWO_DOUBLE_PRECISION), {0, 16, 16, 0, 16, 16}));
  EXPECT_EQ(info(Basic::SHORT_INT).index_offset, 4u);
  EXPECT_EQ(info(Basic::LONG_DOUBLE_INT).index_offset, 16u);
  EXPECT_EQ(Datatype::basic(Basic::DOUBLE_INT).typemap().size(),
            1u);  // one leaf, combined as a unit
}

TEST(Datatype, a_pair_leaf_has_two_data_ranges_and_its_padding_is_a_hole) {
  const auto r = leaf_ranges(Basic::DOUBLE_INT);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].begin, 0);
  EXPECT_EQ(r[0].end, 8);
  EXPECT_EQ(r[1].begin, 8);
  EXPECT_EQ(r[1].end, 12);
  const auto s = leaf_ranges(Basic::SHORT_INT);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].end, 2);
  EXPECT_EQ(s[1].begin, 4);
}

TEST(Datatype, layout_names_how_one_element_lies_in_memory) {
  EXPECT_STREQ(Datatype::parse("MPI_INT").element_layout(), "contiguous");
  EXPECT_STREQ(Datatype::parse("contiguous(4,MPI_INT)").element_layout(), "contiguous");
  EXPECT_STREQ(Datatype::parse("MPI_2INT").element_layout(), "contiguous");
  // vector(2,2,3): ints 0,1 and 3,4: a hole at int 2, extent = true extent 20
  EXPECT_STREQ(Datatype::parse("vector(2,2,3,MPI_INT)").element_layout(), "holes");
  // a resize to the true extent keeps it
  EXPECT_STREQ(Datatype::parse("resized(0,20,vector(2,2,3,MPI_INT))").element_layout(), "holes");
  EXPECT_STREQ(Datatype::parse("resized(0,24,contiguous(4,MPI_INT))").element_layout(), "padded");
  EXPECT_STREQ(Datatype::parse("resized(-8,40,vector(2,2,3,MPI_INT))").element_layout(), "padded");
  // double + int: 12 bytes of data, extent 16
  EXPECT_STREQ(Datatype::parse("MPI_DOUBLE_INT").element_layout(), "padded");
  // ints 0 and 10 of an element, extent one int: elements interleave
  EXPECT_STREQ(Datatype::parse("resized(0,4,hindexed([1,1],[0,40],MPI_INT))").element_layout(),
               "interleaved");
  EXPECT_STREQ(
      Datatype::parse("contiguous(2,resized(0,24,contiguous(4,MPI_INT)))").element_layout(),
      "padded");
}

TEST(Datatype, contiguous_repeats_the_old_type_at_its_extent) {
  const Datatype t = Datatype::contiguous(3, kInt);
  EXPECT_TRUE(has_bounds(t, {0, 12, 12, 0, 12, 12}));
  EXPECT_EQ(disps(t), (D{0, 4, 8}));
  EXPECT_EQ(t.text(), "contiguous(3,MPI_INT)");
  EXPECT_TRUE(has_bounds(Datatype::contiguous(0, kInt), {0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(Datatype::contiguous(0, kInt).typemap().empty());
  // Of a type with holes: the holes repeat too.
  const Datatype v = Datatype::contiguous(2, Datatype::vector(2, 1, 3, kInt));
  EXPECT_TRUE(has_bounds(v, {0, 32, 32, 0, 32, 16}));
  EXPECT_EQ(disps(v), (D{0, 12, 16, 28}));
}

TEST(Datatype, vector_places_blocks_at_a_stride_of_elements) {
  const Datatype t = Datatype::vector(2, 1, 3, kInt);
  EXPECT_TRUE(has_bounds(t, {0, 16, 16, 0, 16, 8}));
  EXPECT_EQ(disps(t), (D{0, 12}));
  const Datatype u = Datatype::vector(3, 2, 4, kShort);
  EXPECT_TRUE(has_bounds(u, {0, 20, 20, 0, 20, 12}));
  EXPECT_EQ(disps(u), (D{0, 2, 8, 10, 16, 18}));
}

TEST(Datatype, vector_with_a_negative_stride_extends_below_zero) {
  const Datatype t = Datatype::vector(3, 2, -4, kInt);  // blocks at 0, -16, -32 bytes
  EXPECT_EQ(disps(t), (D{0, 4, -16, -12, -32, -28}));
  EXPECT_TRUE(has_bounds(t, {-32, 8, 40, -32, 40, 24}));
  EXPECT_FALSE(t.overlaps_itself(1));
  // Three elements follow each other at the extent, 40 bytes apart: no overlap.
  EXPECT_FALSE(t.overlaps_itself(3));
}

TEST(Datatype, hvector_places_blocks_at_a_stride_of_bytes) {
  EXPECT_TRUE(has_bounds(Datatype::hvector(2, 1, 24, kInt), {0, 28, 28, 0, 28, 8}));
  const Datatype n = Datatype::hvector(2, 2, -10, kShort);
  EXPECT_EQ(disps(n), (D{0, 2, -10, -8}));
  EXPECT_TRUE(has_bounds(n, {-10, 4, 14, -10, 14, 8}));
  EXPECT_EQ(Datatype::hvector(2, 1, 24, kInt).text(), "hvector(2,1,24,MPI_INT)");
}

TEST(Datatype, hvector_with_stride_zero_overlaps_itself) {
  const Datatype t = Datatype::hvector(3, 1, 0, kInt);
  EXPECT_EQ(disps(t), (D{0, 0, 0}));
  EXPECT_TRUE(has_bounds(t, {0, 4, 4, 0, 4, 12}));
  EXPECT_TRUE(t.overlaps_itself(1));
}

TEST(Datatype, indexed_places_blocks_at_element_displacements) {
  const Datatype t = Datatype::indexed({1, 2}, {0, 4}, kInt);
  EXPECT_EQ(disps(t), (D{0, 16, 20}));
  EXPECT_TRUE(has_bounds(t, {0, 24, 24, 0, 24, 12}));
  EXPECT_EQ(t.text(), "indexed([1,2],[0,4],MPI_INT)");
  // lb is the lowest displacement, not 0.
  EXPECT_TRUE(has_bounds(Datatype::indexed({2}, {3}, kInt), {12, 20, 8, 12, 8, 8}));
  // Zero-length blocks contribute nothing, not even to the bounds.
  const Datatype z = Datatype::indexed({1, 0, 1}, {5, 100, -1}, kInt);
  EXPECT_EQ(disps(z), (D{20, -4}));
  EXPECT_TRUE(has_bounds(z, {-4, 24, 28, -4, 28, 8}));
}

TEST(Datatype, indexed_with_a_repeated_displacement_overlaps_itself) {
  const Datatype t = Datatype::indexed({1, 1}, {2, 2}, kInt);
  EXPECT_EQ(disps(t), (D{8, 8}));
  EXPECT_TRUE(has_bounds(t, {8, 12, 4, 8, 4, 8}));
  EXPECT_TRUE(t.overlaps_itself(1));
  EXPECT_TRUE(Datatype::indexed({2, 1}, {0, 1}, kInt).overlaps_itself(1));
  EXPECT_FALSE(Datatype::indexed({1, 1}, {1, 0}, kInt).overlaps_itself(1));
}

TEST(Datatype, hindexed_places_blocks_at_byte_displacements) {
  const Datatype t = Datatype::hindexed({1, 2}, {0, 16}, kInt);
  EXPECT_EQ(disps(t), (D{0, 16, 20}));
  EXPECT_TRUE(has_bounds(t, {0, 24, 24, 0, 24, 12}));
  EXPECT_TRUE(has_bounds(Datatype::hindexed({1}, {-8}, kDouble), {-8, 0, 8, -8, 8, 8}));
  EXPECT_EQ(t.text(), "hindexed([1,2],[0,16],MPI_INT)");
}

TEST(Datatype, indexed_block_uses_one_blocklength_for_every_block) {
  const Datatype t = Datatype::indexed_block(2, {0, 5}, kInt);
  EXPECT_EQ(disps(t), (D{0, 4, 20, 24}));
  EXPECT_TRUE(has_bounds(t, {0, 28, 28, 0, 28, 16}));
  EXPECT_EQ(t.text(), "indexed_block(2,[0,5],MPI_INT)");
}

TEST(Datatype, struct_of_char_and_double_is_padded_to_the_alignment_of_double) {
  const Datatype t = Datatype::struct_({1, 1}, {0, 8}, {kChar, kDouble});
  EXPECT_TRUE(has_bounds(t, {0, 16, 16, 0, 16, 9}));
  EXPECT_EQ(t.alignment(), 8u);
  EXPECT_EQ(t.text(), "struct([1,1],[0,8],[MPI_CHAR,MPI_DOUBLE])");
  // struct { double; char; }: data ends at 9, the extent rounds up to 16.
  EXPECT_TRUE(
      has_bounds(Datatype::struct_({1, 1}, {0, 8}, {kDouble, kChar}), {0, 16, 16, 0, 9, 9}));
  // struct { int; char; }: to 8.
  EXPECT_TRUE(has_bounds(Datatype::struct_({1, 1}, {0, 4}, {kInt, kChar}), {0, 8, 8, 0, 5, 5}));
  // Already aligned: no padding.
  EXPECT_TRUE(
      has_bounds(Datatype::struct_({2, 1}, {0, 8}, {kInt, kDouble}), {0, 16, 16, 0, 16, 16}));
}

TEST(Datatype, struct_is_not_padded_when_a_member_carries_explicit_bounds) {
  // MPI-4.1 Section 5.1.6: the epsilon rounding applies only to typemaps
  // without lb/ub markers, and markers set by resized propagate through
  // every constructor that contains them.
  const Datatype r = Datatype::resized(0, 12, kDouble);
  EXPECT_TRUE(has_bounds(Datatype::struct_({1}, {0}, {r}), {0, 12, 12, 0, 8, 8}));
  EXPECT_TRUE(
      has_bounds(Datatype::struct_({1}, {0}, {Datatype::contiguous(1, r)}), {0, 12, 12, 0, 8, 8}));
  EXPECT_TRUE(has_bounds(Datatype::struct_({1}, {0}, {Datatype::dup(r)}), {0, 12, 12, 0, 8, 8}));
  // Where some members carry markers and others do not, lb and ub are the
  // markers' alone (the char at 0 lies below lb), as MPICH computes them too.
  EXPECT_TRUE(has_bounds(Datatype::struct_({1, 1}, {0, 8}, {kChar, r}), {8, 20, 12, 0, 16, 9}));
  EXPECT_TRUE(
      has_bounds(Datatype::struct_({1, 1}, {0, 8}, {kChar, Datatype::struct_({1}, {0}, {r})}),
                 {8, 20, 12, 0, 16, 9}));
}

TEST(Datatype, resized_sets_lb_and_extent_and_keeps_the_true_bounds) {
  const Datatype t = Datatype::resized(-8, 32, kInt);
  EXPECT_TRUE(has_bounds(t, {-8, 24, 32, 0, 4, 4}));
  EXPECT_EQ(t.text(), "resized(-8,32,MPI_INT)");
  const Datatype c = Datatype::contiguous(2, t);
  EXPECT_EQ(disps(c), (D{0, 32}));
  EXPECT_TRUE(has_bounds(c, {-8, 56, 64, 0, 36, 8}));
  const Datatype v = Datatype::vector(2, 1, 2, Datatype::resized(0, 8, kInt));
  EXPECT_EQ(disps(v), (D{0, 16}));
  EXPECT_TRUE(has_bounds(v, {0, 24, 24, 0, 20, 8}));
}

TEST(Datatype, resized_smaller_than_its_true_extent_overlaps_at_count_2_but_not_1) {
  const Datatype t = Datatype::resized(0, 2, kInt);
  EXPECT_TRUE(has_bounds(t, {0, 2, 2, 0, 4, 4}));
  EXPECT_FALSE(t.overlaps_itself(1));
  EXPECT_TRUE(t.overlaps_itself(2));
  EXPECT_FALSE(Datatype::resized(0, 4, kInt).overlaps_itself(5));
}

// The crossing's interleaved class (reference/src/crossing.cpp): two blocks
// of two ints 40 bytes apart in an extent of 16. Element k's second block
// lies between the first blocks of elements k+2 and k+3; the blocks hold
// bytes 0-7 and 8-15 modulo the extent, so no count makes them collide.
TEST(Datatype, an_interleaved_type_has_an_extent_below_its_true_extent_and_never_overlaps) {
  const Datatype t = Datatype::parse("resized(0,16,indexed([2,2],[0,10],MPI_INT))");
  EXPECT_EQ(disps(t), (D{0, 4, 40, 44}));
  EXPECT_TRUE(has_bounds(t, {0, 16, 16, 0, 48, 16}));
  // Three elements: 0 at 0,4,40,44; 1 at 16,20,56,60; 2 at 32,36,72,76.
  std::vector<std::ptrdiff_t> begins;
  for (const ByteRange& r : t.data_ranges(3)) begins.push_back(r.begin);
  EXPECT_EQ(begins, (D{0, 4, 16, 20, 32, 36, 40, 44, 56, 60, 72, 76}));
  EXPECT_EQ(t.span(3).begin, 0);
  EXPECT_EQ(t.span(3).end, 80);
  // The crossing's counts, and the property tests' range.
  for (int n : {0, 1, 2, 3, 4, 7, 1000, 65536}) EXPECT_FALSE(t.overlaps_itself(n)) << n;
  // The same blocks 32 bytes apart share residues modulo 16: element 0's
  // second block is element 2's first.
  const Datatype same = Datatype::parse("resized(0,16,indexed([2,2],[0,8],MPI_INT))");
  EXPECT_FALSE(same.overlaps_itself(2));
  EXPECT_TRUE(same.overlaps_itself(3));
}

// overlaps_itself decides from one element's ranges and the extent; here
// against the count's own sorted ranges, for layouts that interleave,
// collide after a few elements, or have negative or zero extents.
TEST(Datatype, self_overlap_agrees_with_the_sorted_ranges_of_every_count) {
  auto sorted_overlap = [](const Datatype& t, int n) {
    const auto r = t.data_ranges(n);
    for (std::size_t i = 1; i < r.size(); ++i)
      if (r[i].begin < r[i - 1].end) return true;
    return false;
  };
  for (const char* text :
       {"resized(0,16,indexed([2,2],[0,10],MPI_INT))", "resized(0,16,indexed([2,2],[0,8],MPI_INT))",
        "resized(0,12,indexed([1,1],[0,9],MPI_INT))", "resized(0,12,indexed([1,1],[0,10],MPI_INT))",
        "resized(-8,-16,indexed([2,2],[0,10],MPI_INT))", "resized(0,0,MPI_INT)",
        "resized(4,24,hindexed([1,1,1],[0,28,56],MPI_DOUBLE_INT))", "resized(0,2,MPI_INT)",
        "vector(3,2,-4,MPI_INT)", "resized(0,20,hvector(2,1,44,MPI_INT))"}) {
    const Datatype t = Datatype::parse(text);
    for (int n = 0; n <= 12; ++n)
      EXPECT_EQ(t.overlaps_itself(n), sorted_overlap(t, n)) << text << " x" << n;
  }
}

// The crossing's large-element class: contiguous ints of the element size,
// whole cells of four ints.
TEST(Datatype, a_large_element_is_one_dense_run_of_its_bytes) {
  const Datatype t = Datatype::parse("contiguous(68,MPI_INT)");
  EXPECT_TRUE(has_bounds(t, {0, 272, 272, 0, 272, 272}));
  EXPECT_EQ(t.typemap().size(), 68u);
  EXPECT_EQ(t.typemap().back().disp, 268);
  EXPECT_FALSE(t.overlaps_itself(1000));
  EXPECT_EQ(t.span(1000).end, 272000);
}

TEST(Datatype, dup_has_the_same_layout_and_its_own_text) {
  const Datatype v = Datatype::vector(2, 1, 3, kInt);
  const Datatype d = Datatype::dup(v);
  EXPECT_TRUE(has_bounds(d, {0, 16, 16, 0, 16, 8}));
  EXPECT_EQ(disps(d), disps(v));
  EXPECT_EQ(d.kind(), Datatype::Kind::dup);
  EXPECT_EQ(d.text(), "dup(vector(2,1,3,MPI_INT))");
  EXPECT_TRUE(has_bounds(Datatype::dup(Datatype::resized(-8, 32, kInt)), {-8, 24, 32, 0, 4, 4}));
}

TEST(Datatype, a_type_without_self_overlap_does_not_overlap_at_any_count) {
  for (const Datatype& t : {Datatype::vector(2, 1, 3, kInt), Datatype::contiguous(0, kInt),
                            Datatype::basic(Basic::DOUBLE_INT), Datatype::resized(-8, 32, kInt),
                            Datatype::struct_({1, 1}, {0, 8}, {kChar, kDouble})})
    for (int n : {0, 1, 2, 7}) EXPECT_FALSE(t.overlaps_itself(n)) << t.text() << " x" << n;
}

TEST(Datatype, span_covers_the_data_of_every_element_and_a_buffer_reaches_below_its_address) {
  const Datatype t = Datatype::resized(-8, 32, kInt);
  EXPECT_EQ(t.span(3).begin, 0);
  EXPECT_EQ(t.span(3).end, 68);
  EXPECT_EQ(t.span(0).end - t.span(0).begin, 0);
  const Datatype h = Datatype::hindexed({1}, {-8}, kDouble);
  Buffer b(h, 2);
  EXPECT_EQ(b.origin(), 8);
  EXPECT_EQ(b.storage().size(), 16u);
  const Datatype n = Datatype::vector(3, 2, -4, kInt);  // true lb -32
  EXPECT_EQ(n.span(2).begin, -32);
  EXPECT_EQ(n.span(2).end, 48);
}

TEST(Datatype, homogeneity_and_dense_layout_are_recognised) {
  Basic b;
  EXPECT_TRUE(Datatype::contiguous(3, kInt).is_contiguous_basic(&b));
  EXPECT_EQ(b, Basic::INT);
  EXPECT_FALSE(Datatype::vector(2, 1, 3, kInt).is_contiguous_basic(nullptr));
  EXPECT_TRUE(Datatype::vector(2, 1, 3, kInt).homogeneous(&b));
  EXPECT_FALSE(Datatype::resized(0, 8, kInt).is_contiguous_basic(nullptr));
  EXPECT_FALSE(Datatype::hvector(3, 1, 0, kInt).is_contiguous_basic(nullptr));
  EXPECT_FALSE(Datatype::struct_({1, 1}, {0, 8}, {kChar, kDouble}).homogeneous(nullptr));
}

TEST(Datatype, negative_counts_and_mismatched_lists_are_usage_errors) {
  EXPECT_THROW(Datatype::contiguous(-1, kInt), UsageError);
  EXPECT_THROW(Datatype::vector(-1, 1, 1, kInt), UsageError);
  EXPECT_THROW(Datatype::vector(1, -1, 1, kInt), UsageError);
  EXPECT_THROW(Datatype::hvector(1, -2, 8, kInt), UsageError);
  EXPECT_THROW(Datatype::indexed({1, 2}, {0}, kInt), UsageError);
  EXPECT_THROW(Datatype::indexed({-1}, {0}, kInt), UsageError);
  EXPECT_THROW(Datatype::hindexed({1}, {0, 8}, kInt), UsageError);
  EXPECT_THROW(Datatype::indexed_block(-1, {0}, kInt), UsageError);
  EXPECT_THROW(Datatype::struct_({1, 1}, {0, 8}, {kInt}), UsageError);
  EXPECT_THROW(Buffer(kInt, -1), UsageError);
}

TEST(Datatype, parse_of_text_gives_back_the_same_text_for_every_constructor) {
  const std::vector<Datatype> types = {
      kInt,
      Datatype::basic(Basic::LONG_DOUBLE_INT),
      Datatype::contiguous(3, kDouble),
      Datatype::vector(2, 1, 3, kInt),
      Datatype::vector(3, 2, -4, kInt),
      Datatype::hvector(2, 1, 24, kInt),
      Datatype::hvector(3, 1, 0, kInt),
      Datatype::indexed({1, 2}, {0, 4}, kInt),
      Datatype::indexed({}, {}, kInt),
      Datatype::hindexed({1, 2}, {0, -16}, kShort),
      Datatype::indexed_block(2, {0, 5}, kInt),
      Datatype::struct_({1, 1}, {0, 8}, {kChar, kDouble}),
      Datatype::struct_({1, 2}, {-8, 16},
                        {Datatype::vector(2, 1, 2, kInt), Datatype::basic(Basic::TWO_INT)}),
      Datatype::resized(-8, 32, kInt),
      Datatype::dup(Datatype::resized(0, 2, kInt)),
      Datatype::contiguous(2, Datatype::dup(Datatype::indexed_block(1, {3, 1}, kShort))),
  };
  for (const Datatype& t : types) {
    const Datatype p = Datatype::parse(t.text());
    EXPECT_EQ(p.text(), t.text());
    EXPECT_EQ(p.kind(), t.kind()) << t.text();
    EXPECT_EQ(disps(p), disps(t)) << t.text();
    EXPECT_TRUE(
        has_bounds(p, {t.lb(), t.ub(), t.extent(), t.true_lb(), t.true_extent(), t.size()}));
    EXPECT_TRUE(p == t);
  }
}

TEST(Datatype, parse_accepts_whitespace_and_synonyms_and_writes_the_canonical_text) {
  EXPECT_EQ(Datatype::parse("  vector( 2 , 1,3 ,MPI_INT ) ").text(), "vector(2,1,3,MPI_INT)");
  EXPECT_EQ(Datatype::parse("struct([ 1 ,1],[0, 8],[MPI_CHAR , MPI_DOUBLE])").text(),
            "struct([1,1],[0,8],[MPI_CHAR,MPI_DOUBLE])");
  EXPECT_EQ(Datatype::parse("MPI_LONG_LONG_INT").text(), "MPI_LONG_LONG");
  EXPECT_EQ(Datatype::parse("resized(+0,16,MPI_INT)").text(), "resized(0,16,MPI_INT)");
}

TEST(Datatype, parse_errors_throw_usage_error) {
  for (const char* bad : {"",
                          "   ",
                          "MPI_FOO",
                          "mpi_int",
                          "int",
                          "vector(2,1,MPI_INT)",
                          "contiguous(3,MPI_INT",
                          "contiguous(3,MPI_INT))",
                          "contiguous(x,MPI_INT)",
                          "contiguous(3 MPI_INT)",
                          "foo(1,MPI_INT)",
                          "indexed([1,2],[0],MPI_INT)",
                          "indexed([1,2,[0,4],MPI_INT)",
                          "contiguous(-1,MPI_INT)",
                          "contiguous(99999999999,MPI_INT)",
                          "contiguous(99999999999999999999999,MPI_INT)",
                          "vector(1,1,99999999999,MPI_INT)",
                          "struct([1],[0],MPI_INT)",
                          "resized(0,,MPI_INT)",
                          "resized(-,4,MPI_INT)",
                          "MPI_INT MPI_INT",
                          "MPI_INT,",
                          "dup()",
                          "dup(MPI_INT",
                          "contiguous(1,)"}) {
    EXPECT_THROW(Datatype::parse(bad), UsageError) << "'" << bad << "'";
  }
}

// Buffers as MPI sees them, and the comparison every check reports with:
// first_difference names the first differing leaf by value, ignores the
// padding bytes of long double, and reports a changed hole byte.
#include "ordo/reference/buffer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "ordo/reference/errors.h"
#include "test_util.h"

using namespace ordo::ref;

TEST(Buffer, storage_covers_the_data_of_every_element_and_nothing_more) {
  const Datatype v = Datatype::vector(2, 1, 3, Datatype::basic(Basic::INT));  // extent 16
  Buffer b(v, 3, std::byte{0x11});
  EXPECT_EQ(b.storage().size(), 2u * 16 + 16);
  EXPECT_EQ(b.origin(), 0);
  EXPECT_EQ(b.element(2) - b.data(), 32);
  for (std::byte x : b.storage()) EXPECT_EQ(x, std::byte{0x11});
}

TEST(Buffer, for_each_leaf_visits_leaves_in_typemap_order) {
  const Datatype v = Datatype::vector(2, 1, 3, Datatype::basic(Basic::INT));
  Buffer b = test::leaves_buffer<int>(v, 2, {1, 2, 3, 4});
  EXPECT_EQ(test::load<int>(b.data() + 12), 2);
  EXPECT_EQ(test::load<int>(b.data() + 16), 3);
  EXPECT_EQ(test::leaves_of<int>(b), (std::vector<int>{1, 2, 3, 4}));
}

TEST(Buffer, copy_elements_copies_data_and_never_holes) {
  const Datatype v = Datatype::vector(2, 1, 3, Datatype::basic(Basic::INT));
  const Buffer src = test::leaves_buffer<int>(v, 2, {1, 2, 3, 4}, std::byte{0xAA});
  Buffer dst(v, 3, std::byte{0xBB});
  copy_elements(src, 1, dst, 2, 1);
  EXPECT_EQ(test::leaves_of<int>(dst)[4], 3);
  EXPECT_EQ(test::leaves_of<int>(dst)[5], 4);
  EXPECT_TRUE(test::holes_hold(dst, std::byte{0xBB}));
  EXPECT_THROW(copy_elements(src, 1, dst, 2, 2), UsageError);
  Buffer other(Datatype::basic(Basic::INT), 4);
  EXPECT_THROW(copy_elements(src, 0, other, 0, 1), UsageError);
}

TEST(Buffer, first_difference_names_the_element_and_leaf_with_both_values) {
  const Datatype v = Datatype::vector(2, 1, 3, Datatype::basic(Basic::INT));
  const Buffer e = test::leaves_buffer<int>(v, 2, {1, 2, 3, 4});
  const Buffer o = test::leaves_buffer<int>(v, 2, {1, 2, -3, 4});
  EXPECT_FALSE(first_difference(e, e).any);
  const Difference d = first_difference(e, o);
  EXPECT_TRUE(d.any);
  EXPECT_FALSE(d.in_hole);
  EXPECT_EQ(d.element, 1);
  EXPECT_EQ(d.leaf, 0);
  EXPECT_EQ(d.byte, 16);
  EXPECT_EQ(d.expected, "3");
  EXPECT_EQ(d.observed, "-3");
}

TEST(Buffer, first_difference_reports_a_written_hole) {
  const Datatype v = Datatype::vector(2, 1, 3, Datatype::basic(Basic::INT));
  const Buffer e = test::leaves_buffer<int>(v, 1, {1, 2});
  Buffer o = e;
  o.data()[5] = std::byte{0};
  const Difference d = first_difference(e, o);
  EXPECT_TRUE(d.any);
  EXPECT_TRUE(d.in_hole);
  EXPECT_EQ(d.byte, 5);
  EXPECT_EQ(d.expected, "0xee");
  EXPECT_EQ(d.observed, "0x00");
}

TEST(Buffer, first_difference_reports_written_pair_padding_as_a_hole) {
  const Datatype t = Datatype::basic(Basic::DOUBLE_INT);
  const Buffer e(t, 2, std::byte{0x42});
  Buffer o = e;
  o.data()[13] = std::byte{0};  // padding of element 0
  const Difference d = first_difference(e, o);
  EXPECT_TRUE(d.in_hole);
  EXPECT_EQ(d.byte, 13);
}

TEST(Buffer, first_difference_ignores_the_padding_bytes_of_long_double) {
  const Datatype t = Datatype::basic(Basic::LONG_DOUBLE);
  Buffer e(t, 1), o(t, 1);
  const long double x = 1.5L;
  std::memcpy(e.data(), &x, 10);
  std::memcpy(o.data(), &x, 10);
  o.data()[12] = std::byte{0x7F};  // bytes 10..15 carry no value
  EXPECT_FALSE(first_difference(e, o).any);
}

TEST(Buffer, format_leaf_writes_values_a_developer_can_read) {
  const int i = -3;
  EXPECT_EQ(format_leaf(Basic::INT, reinterpret_cast<const std::byte*>(&i)), "-3");
  const unsigned char c = 200;
  EXPECT_EQ(format_leaf(Basic::UNSIGNED_CHAR, reinterpret_cast<const std::byte*>(&c)), "200");
  EXPECT_EQ(format_leaf(Basic::BYTE, reinterpret_cast<const std::byte*>(&c)), "0xc8");
  const struct {
    double v;
    int i;
  } p{3.5, 4};
  EXPECT_EQ(format_leaf(Basic::DOUBLE_INT, reinterpret_cast<const std::byte*>(&p)), "(3.5, idx 4)");
  const double z[2] = {1, 2};
  EXPECT_EQ(format_leaf(Basic::C_DOUBLE_COMPLEX, reinterpret_cast<const std::byte*>(z)), "(1, 2)");
}

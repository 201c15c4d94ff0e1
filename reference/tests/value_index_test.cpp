// value_index(V,I): the pair type MPI_Type_get_value_index returns (MPI-4.1
// Section 6.9.4). Its layout is that of the C struct {V value; I index;},
// written out here independently of the reference, and MINLOC / MAXLOC take
// it as they take the predefined pair types.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "ordo/reference/case.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/op.h"
#include "ordo/reference/oracle.h"
#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
using namespace ordo::ref::test::pairs;

namespace {

template <class Pair>
void has_the_c_struct_layout(const char* text, Basic predefined) {
  SCOPED_TRACE(text);
  const Datatype t = Datatype::parse(text);
  EXPECT_EQ(t.kind(), Datatype::Kind::value_index);
  EXPECT_TRUE(t.predefined());
  EXPECT_EQ(t.text(), text);
  EXPECT_EQ(t.lb(), 0);
  EXPECT_EQ(t.extent(), static_cast<std::ptrdiff_t>(sizeof(Pair)));
  EXPECT_EQ(t.true_lb(), 0);
  EXPECT_EQ(t.true_extent(), static_cast<std::ptrdiff_t>(offsetof(Pair, i) + sizeof(int)));
  EXPECT_EQ(t.size(), sizeof(Pair::v) + sizeof(Pair::i));
  EXPECT_EQ(t.alignment(), alignof(Pair));
  // One pair leaf, the predefined pair type's: combined as a unit.
  ASSERT_EQ(t.typemap().size(), 1u);
  EXPECT_EQ(t.typemap()[0].type, predefined);
  EXPECT_EQ(t.typemap()[0].disp, 0);
  // The index lies where the C compiler puts it; the padding is a hole.
  const auto ranges = t.data_ranges(1);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].begin, 0);
  EXPECT_EQ(ranges[0].end, static_cast<std::ptrdiff_t>(sizeof(Pair::v)));
  EXPECT_EQ(ranges[1].begin, static_cast<std::ptrdiff_t>(offsetof(Pair, i)));
}

Case minloc_case(const std::string& op, const std::string& datatype) {
  Case c;
  c.routine = Routine::allreduce;
  c.op = op;
  c.datatype = datatype;
  c.count = 2;
  return c;
}

}  // namespace

TEST(ValueIndex, each_c_pair_has_the_layout_of_its_c_struct_and_the_predefined_pairs_leaf) {
  has_the_c_struct_layout<FloatInt>("value_index(MPI_FLOAT,MPI_INT)", Basic::FLOAT_INT);
  has_the_c_struct_layout<DoubleInt>("value_index(MPI_DOUBLE,MPI_INT)", Basic::DOUBLE_INT);
  has_the_c_struct_layout<LongInt>("value_index(MPI_LONG,MPI_INT)", Basic::LONG_INT);
  has_the_c_struct_layout<TwoInt>("value_index(MPI_INT,MPI_INT)", Basic::TWO_INT);
  has_the_c_struct_layout<ShortInt>("value_index(MPI_SHORT,MPI_INT)", Basic::SHORT_INT);
  has_the_c_struct_layout<LongDoubleInt>("value_index(MPI_LONG_DOUBLE,MPI_INT)",
                                         Basic::LONG_DOUBLE_INT);
}

TEST(ValueIndex, the_text_form_round_trips_and_keeps_the_value_and_index_types_as_children) {
  const Datatype t = Datatype::parse(" value_index( MPI_DOUBLE , MPI_INT ) ");
  EXPECT_EQ(t.text(), "value_index(MPI_DOUBLE,MPI_INT)");
  EXPECT_EQ(Datatype::parse(t.text()).text(), t.text());
  ASSERT_EQ(t.children().size(), 2u);
  EXPECT_EQ(t.children()[0].text(), "MPI_DOUBLE");
  EXPECT_EQ(t.children()[1].text(), "MPI_INT");
  EXPECT_TRUE(t.uses_value_index());
  EXPECT_EQ(Datatype::value_index(Basic::DOUBLE, Basic::INT).text(), t.text());
}

TEST(ValueIndex, inside_a_derived_datatype_it_is_a_pair_leaf_and_the_type_is_not_predefined) {
  const Datatype t = Datatype::parse("contiguous(2,value_index(MPI_SHORT,MPI_INT))");
  EXPECT_FALSE(t.predefined());
  EXPECT_TRUE(t.uses_value_index());
  ASSERT_EQ(t.typemap().size(), 2u);
  EXPECT_EQ(t.typemap()[1].type, Basic::SHORT_INT);
  EXPECT_EQ(t.typemap()[1].disp, static_cast<std::ptrdiff_t>(sizeof(ShortInt)));
  EXPECT_FALSE(Datatype::parse("contiguous(2,MPI_SHORT_INT)").uses_value_index());
  EXPECT_TRUE(Datatype::parse("MPI_DOUBLE_INT").predefined());
}

TEST(ValueIndex, combinations_without_a_c_pair_type_and_malformed_forms_are_refused) {
  for (const char* bad :
       {"value_index(MPI_INT,MPI_LONG)", "value_index(MPI_FLOAT,MPI_FLOAT)",
        "value_index(MPI_DOUBLE_INT,MPI_INT)", "value_index(contiguous(1,MPI_DOUBLE),MPI_INT)",
        "value_index(MPI_DOUBLE)", "value_index(MPI_DOUBLE,MPI_INT,MPI_INT)"})
    EXPECT_THROW(Datatype::parse(bad), UsageError) << bad;
}

TEST(ValueIndex, minloc_and_maxloc_take_it_and_other_ops_are_refused_as_for_pair_types) {
  const Topology intra{false, 3, 0};
  for (const char* op : {"MPI_MINLOC", "MPI_MAXLOC"})
    EXPECT_NO_THROW(validate_case(minloc_case(op, "value_index(MPI_DOUBLE,MPI_INT)"), intra)) << op;
  for (const char* op : {"MPI_SUM", "MPI_MAX", "MPI_BAND", "MPI_LAND"}) {
    try {
      validate_case(minloc_case(op, "value_index(MPI_DOUBLE,MPI_INT)"), intra);
      ADD_FAILURE() << op << " on a value-index pair was accepted";
    } catch (const SemanticsError& e) {
      EXPECT_EQ(e.clause(), "op.type-groups") << op;
    }
  }
  // Inside a derived datatype it is no longer a predefined datatype.
  try {
    validate_case(minloc_case("MPI_MINLOC", "contiguous(2,value_index(MPI_DOUBLE,MPI_INT))"),
                  intra);
    ADD_FAILURE() << "MINLOC on a derived datatype was accepted";
  } catch (const SemanticsError& e) {
    EXPECT_EQ(e.clause(), "op.predefined-on-predefined-types");
  }
}

TEST(ValueIndex, minloc_and_maxloc_fold_its_pairs_by_value_with_ties_to_the_smaller_index) {
  const Datatype t = Datatype::parse("value_index(MPI_DOUBLE,MPI_INT)");
  // Three ranks, two elements: (value, index) written at the C struct's offsets.
  const double v[3][2] = {{2.5, -1.0}, {-4.0, 7.0}, {-4.0, 7.0}};
  const int i[3][2] = {{10, 20}, {31, 41}, {30, 42}};
  std::vector<Buffer> in;
  for (int r = 0; r < 3; ++r) {
    in.emplace_back(t, 2, std::byte{0x77});
    for (int k = 0; k < 2; ++k) {
      std::memcpy(in.back().element(k) + offsetof(DoubleInt, v), &v[r][k], sizeof(double));
      std::memcpy(in.back().element(k) + offsetof(DoubleInt, i), &i[r][k], sizeof(int));
    }
  }
  const Buffer mn = fold({&in[0], &in[1], &in[2]}, Op::predefined(PredefinedOp::MINLOC));
  const Buffer mx = fold({&in[0], &in[1], &in[2]}, Op::predefined(PredefinedOp::MAXLOC));
  auto value = [](const Buffer& b, int k) {
    double x;
    std::memcpy(&x, b.element(k) + offsetof(DoubleInt, v), sizeof x);
    return x;
  };
  auto index = [](const Buffer& b, int k) {
    int x;
    std::memcpy(&x, b.element(k) + offsetof(DoubleInt, i), sizeof x);
    return x;
  };
  // MINLOC: element 0 -4.0 held by ranks 1 and 2, the smaller index 30;
  // element 1 -1.0 at rank 0.
  EXPECT_EQ(value(mn, 0), -4.0);
  EXPECT_EQ(index(mn, 0), 30);
  EXPECT_EQ(value(mn, 1), -1.0);
  EXPECT_EQ(index(mn, 1), 20);
  // MAXLOC: element 0 2.5 at rank 0; element 1 7.0 at ranks 1 and 2, index 41.
  EXPECT_EQ(value(mx, 0), 2.5);
  EXPECT_EQ(index(mx, 0), 10);
  EXPECT_EQ(value(mx, 1), 7.0);
  EXPECT_EQ(index(mx, 1), 41);
  // The padding after the index is a hole, never written.
  EXPECT_TRUE(test::holes_hold(mn, std::byte{0x77}));
  EXPECT_TRUE(test::holes_hold(mx, std::byte{0x77}));
}

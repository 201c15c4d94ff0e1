// The op x type validity table (MPI-4.1 Section 6.9.2, 6.9.3, 6.9.4), row by
// row, against the hand-written copy in mpi41_op_table.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mpi41_op_table.h"
#include "ordo/reference/basic_types.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/op.h"
#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
namespace mpi41 = ordo::ref::test::mpi41;

namespace {

std::vector<Basic> all_basics() {
  std::vector<Basic> v;
  for (int i = 0; i < kBasicCount; ++i) v.push_back(static_cast<Basic>(i));
  return v;
}

std::string combo(PredefinedOp op, Basic b) {
  return std::string(op_name(op)) + " x " + std::string(info(b).mpi_name);
}

}  // namespace

TEST(OpTable, every_basic_type_belongs_to_the_group_the_standard_lists_it_in) {
  for (Basic b : all_basics()) {
    const TypeGroup g = info(b).group;
    SCOPED_TRACE(std::string(info(b).mpi_name));
    EXPECT_EQ(mpi41::in(mpi41::kCInteger, b), g == TypeGroup::c_integer);
    EXPECT_EQ(mpi41::in(mpi41::kFortranInteger, b), g == TypeGroup::fortran_integer);
    EXPECT_EQ(mpi41::in(mpi41::kFloatingPoint, b), g == TypeGroup::floating_point);
    EXPECT_EQ(mpi41::in(mpi41::kLogical, b), g == TypeGroup::logical);
    EXPECT_EQ(mpi41::in(mpi41::kComplex, b), g == TypeGroup::complex);
    EXPECT_EQ(mpi41::in(mpi41::kByte, b), g == TypeGroup::byte);
    EXPECT_EQ(mpi41::in(mpi41::kMultiLanguage, b), g == TypeGroup::multi_language);
    EXPECT_EQ(mpi41::in(mpi41::kPairs, b), g == TypeGroup::pair);
    EXPECT_EQ(mpi41::in(mpi41::kCharacters, b), g == TypeGroup::character);
  }
}

TEST(OpTable, the_hand_written_groups_cover_every_basic_type_exactly_once) {
  const std::set<Basic>* groups[] = {
      &mpi41::kCInteger,      &mpi41::kFortranInteger, &mpi41::kFloatingPoint,
      &mpi41::kLogical,       &mpi41::kComplex,        &mpi41::kByte,
      &mpi41::kMultiLanguage, &mpi41::kPairs,          &mpi41::kCharacters};
  for (Basic b : all_basics()) {
    int n = 0;
    for (const auto* g : groups) n += mpi41::in(*g, b);
    EXPECT_EQ(n, 1) << info(b).mpi_name;
  }
}

TEST(OpTable, validity_of_every_op_and_basic_type_matches_the_standard) {
  int valid = 0;
  for (PredefinedOp op : mpi41::kAllOps) {
    for (Basic b : all_basics()) {
      const Validity v = validity(op, b);
      EXPECT_EQ(v.valid, mpi41::allowed(op, b)) << combo(op, b);
      if (v.valid) {
        ++valid;
        EXPECT_TRUE(v.clause.empty()) << combo(op, b);
        EXPECT_TRUE(v.reason.empty()) << combo(op, b);
      } else {
        EXPECT_EQ(v.clause, mpi41::refusal_clause(op, b)) << combo(op, b);
        EXPECT_NE(v.reason.find(std::string(op_name(op))), std::string::npos) << v.reason;
        EXPECT_NE(v.reason.find(std::string(info(b).mpi_name)), std::string::npos) << v.reason;
      }
    }
  }
  // 18 C integer, 5 Fortran integer, 7 floating, 3 logical, 11 complex, 1 byte,
  // 3 multi-language, 9 pairs:
  //   MAX, MIN: 33 each; SUM, PROD: 44 each; LAND, LOR, LXOR: 21 each;
  //   BAND, BOR, BXOR: 27 each; MAXLOC, MINLOC: 9 each.
  EXPECT_EQ(valid, 2 * 33 + 2 * 44 + 3 * 21 + 3 * 27 + 2 * 9);
}

TEST(OpTable, group_allows_agrees_with_validity_for_every_type) {
  for (PredefinedOp op : mpi41::kAllOps)
    for (Basic b : all_basics())
      EXPECT_EQ(group_allows(op, info(b).group), validity(op, b).valid) << combo(op, b);
}

TEST(OpTable, every_refused_combination_throws_semantics_error_naming_its_clause_in_fold) {
  for (PredefinedOp op : mpi41::kAllOps) {
    for (Basic b : all_basics()) {
      if (mpi41::allowed(op, b)) continue;
      const Datatype dt = Datatype::basic(b);
      Buffer x(dt, 2), y(dt, 2);
      const std::string clause = test::clause_of([&] { fold({&x, &y}, Op::predefined(op)); });
      EXPECT_EQ(clause, mpi41::refusal_clause(op, b)) << combo(op, b);
    }
  }
}

TEST(OpTable, every_refused_combination_is_refused_inside_a_derived_datatype_too) {
  for (PredefinedOp op : mpi41::kAllOps) {
    for (Basic b : all_basics()) {
      if (mpi41::allowed(op, b)) continue;
      const Datatype dt = Datatype::vector(2, 1, 2, Datatype::basic(b));  // with holes
      Buffer x(dt, 1), y(dt, 1);
      EXPECT_EQ(test::clause_of([&] {
                  fold({&x, &y}, Op::predefined(op));
                }),
                mpi41::refusal_clause(op, b))
          << combo(op, b);
    }
  }
}

TEST(OpTable, every_allowed_combination_folds_without_error) {
  for (PredefinedOp op : mpi41::kAllOps) {
    for (Basic b : all_basics()) {
      if (!mpi41::allowed(op, b)) continue;
      const Datatype dt = Datatype::basic(b);
      Buffer x(dt, 3), y(dt, 3), z(dt, 3);
      EXPECT_NO_THROW(fold({&x, &y, &z}, Op::predefined(op))) << combo(op, b);
    }
  }
}

TEST(OpTable, apply_predefined_refuses_every_refused_combination) {
  std::byte l[64] = {}, r[64] = {}, o[64] = {};
  for (PredefinedOp op : mpi41::kAllOps) {
    for (Basic b : all_basics()) {
      if (mpi41::allowed(op, b)) continue;
      EXPECT_THROW(apply_predefined(op, b, l, r, o, 1), SemanticsError) << combo(op, b);
    }
  }
}

TEST(OpTable, land_is_not_defined_on_floating_point) {
  for (Basic b : mpi41::kFloatingPoint) {
    EXPECT_FALSE(validity(PredefinedOp::LAND, b).valid) << info(b).mpi_name;
    EXPECT_EQ(validity(PredefinedOp::LAND, b).clause, "op.type-groups");
  }
}

TEST(OpTable, logical_ops_are_not_defined_on_fortran_integers_but_are_on_c_integers) {
  for (PredefinedOp op : {PredefinedOp::LAND, PredefinedOp::LOR, PredefinedOp::LXOR}) {
    EXPECT_FALSE(validity(op, Basic::INTEGER).valid);
    EXPECT_TRUE(validity(op, Basic::INT).valid);
    EXPECT_TRUE(validity(op, Basic::LOGICAL).valid);
  }
}

TEST(OpTable, arithmetic_on_mpi_byte_is_refused_and_bitwise_ops_are_allowed) {
  for (PredefinedOp op :
       {PredefinedOp::MAX, PredefinedOp::MIN, PredefinedOp::SUM, PredefinedOp::PROD,
        PredefinedOp::LAND, PredefinedOp::LOR, PredefinedOp::LXOR})
    EXPECT_FALSE(validity(op, Basic::BYTE).valid) << op_name(op);
  for (PredefinedOp op : {PredefinedOp::BAND, PredefinedOp::BOR, PredefinedOp::BXOR})
    EXPECT_TRUE(validity(op, Basic::BYTE).valid) << op_name(op);
}

TEST(OpTable, char_wchar_and_character_are_refused_with_every_op) {
  for (Basic b : {Basic::CHAR, Basic::WCHAR, Basic::CHARACTER})
    for (PredefinedOp op : mpi41::kAllOps) EXPECT_FALSE(validity(op, b).valid) << combo(op, b);
  EXPECT_EQ(validity(PredefinedOp::SUM, Basic::CHAR).clause, "op.char-types-excluded");
  EXPECT_EQ(validity(PredefinedOp::MAX, Basic::WCHAR).clause, "op.char-types-excluded");
}

TEST(OpTable, signed_and_unsigned_char_are_integers_unlike_char) {
  for (Basic b : {Basic::SIGNED_CHAR, Basic::UNSIGNED_CHAR}) {
    EXPECT_TRUE(validity(PredefinedOp::SUM, b).valid);
    EXPECT_TRUE(validity(PredefinedOp::MAX, b).valid);
    EXPECT_TRUE(validity(PredefinedOp::BXOR, b).valid);
  }
}

TEST(OpTable, replace_and_no_op_are_refused_even_on_an_empty_datatype) {
  const Datatype empty = Datatype::contiguous(0, Datatype::basic(Basic::INT));
  for (PredefinedOp op : {PredefinedOp::REPLACE, PredefinedOp::NO_OP}) {
    Buffer x(empty, 1), y(empty, 1);
    EXPECT_EQ(test::clause_of([&] {
                fold({&x, &y}, Op::predefined(op));
              }),
              "op.replace-no-op-not-for-reductions");
  }
}

TEST(OpTable, minloc_and_maxloc_take_only_pair_types) {
  for (PredefinedOp op : {PredefinedOp::MINLOC, PredefinedOp::MAXLOC}) {
    EXPECT_EQ(validity(op, Basic::DOUBLE).clause, "op.minloc-maxloc-pair-types");
    EXPECT_EQ(validity(op, Basic::INT).clause, "op.minloc-maxloc-pair-types");
    for (Basic b : mpi41::kPairs) EXPECT_TRUE(validity(op, b).valid) << combo(op, b);
  }
  EXPECT_EQ(validity(PredefinedOp::SUM, Basic::DOUBLE_INT).clause, "op.type-groups");
}

TEST(OpTable, op_names_round_trip_and_unknown_names_are_rejected) {
  for (PredefinedOp op : mpi41::kAllOps) EXPECT_EQ(op_from_name(op_name(op)), op);
  EXPECT_EQ(op_name(PredefinedOp::SUM), "MPI_SUM");
  EXPECT_EQ(op_name(PredefinedOp::NO_OP), "MPI_NO_OP");
  EXPECT_FALSE(op_from_name("MPI_AVG").has_value());
  EXPECT_FALSE(op_from_name("sum").has_value());
}

TEST(OpTable, every_predefined_op_is_commutative_and_user_ops_keep_their_declared_flag) {
  for (PredefinedOp op : mpi41::kAllOps) {
    EXPECT_TRUE(Op::predefined(op).commutative());
    EXPECT_TRUE(Op::predefined(op).is_predefined());
  }
  EXPECT_FALSE(test::concat_op(false).commutative());
  EXPECT_TRUE(test::concat_op(true).commutative());
  EXPECT_FALSE(test::concat_op().is_predefined());
}

TEST(OpTable, basic_type_names_round_trip_and_long_long_int_is_a_synonym) {
  for (Basic b : all_basics()) EXPECT_EQ(basic_from_name(info(b).mpi_name), b);
  EXPECT_EQ(basic_from_name("MPI_LONG_LONG_INT"), Basic::LONG_LONG);
  EXPECT_FALSE(basic_from_name("MPI_QUAD").has_value());
  EXPECT_EQ(info(Basic::TWO_INT).mpi_name, "MPI_2INT");
}

TEST(OpTable, a_user_op_is_usable_with_any_datatype) {
  const Op op = test::concat_op();
  EXPECT_NO_THROW(op.check_usable_with(Datatype::basic(Basic::CHAR)));
  EXPECT_NO_THROW(op.check_usable_with(Datatype::basic(Basic::DOUBLE_INT)));
}

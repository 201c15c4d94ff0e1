// The Case's JSON form: every field survives to_json / from_json, and
// malformed or out-of-range input is a UsageError, never another exception
// and never a silently different case.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "ordo/reference/case.h"
#include "ordo/reference/errors.h"

using namespace ordo::ref;

namespace {

::testing::AssertionResult same_case(const Case& a, const Case& b) {
  if (a.routine == b.routine && a.op == b.op && a.datatype == b.datatype && a.count == b.count &&
      a.recvcounts == b.recvcounts && a.root == b.root && a.comm == b.comm &&
      a.root_in_high_group == b.root_in_high_group && a.in_place == b.in_place &&
      a.null_insignificant == b.null_insignificant && a.mode == b.mode &&
      a.locals_in_is_in_place == b.locals_in_is_in_place &&
      a.locals_arg_is_in_place == b.locals_arg_is_in_place &&
      a.locals_arg_is_in == b.locals_arg_is_in && a.concurrency == b.concurrency &&
      a.binding == b.binding && a.seed == b.seed)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << a.to_json() << "\n  vs\n" << b.to_json();
}

Case full_case() {
  Case c;
  c.routine = Routine::reduce_scatter;
  c.op = "witness.tracer";
  c.datatype = "struct([1,1],[0,8],[MPI_CHAR,MPI_DOUBLE])";
  c.count = 7;
  c.recvcounts = {1, 0, 3, 2147483647};
  c.root = 2;
  c.comm = "odd \"comm\" \\ with\ttab\nnewline\x01 and \xc3\xa9";
  c.root_in_high_group = true;
  c.in_place = true;
  c.null_insignificant = false;
  c.mode = Mode::persistent;
  c.locals_in_is_in_place = true;
  c.locals_arg_is_in_place = true;
  c.locals_arg_is_in = true;
  c.concurrency = "test";
  c.binding = "f08";
  c.seed = 123456789;
  return c;
}

}  // namespace

TEST(CaseJson, a_default_case_round_trips) {
  const Case c;
  // One call (no concurrency) writes no concurrency field: records and
  // waivers written before the field existed read the same.
  EXPECT_EQ(c.to_json().find("concurrency"), std::string::npos);
  EXPECT_TRUE(same_case(Case::from_json(c.to_json()), c));
  EXPECT_EQ(Case::from_json(c.to_json()).to_json(), c.to_json());
}

TEST(CaseJson, every_field_round_trips_including_escaped_strings) {
  const Case c = full_case();
  const Case d = Case::from_json(c.to_json());
  EXPECT_TRUE(same_case(d, c));
  EXPECT_EQ(d.comm, c.comm);
  EXPECT_EQ(d.to_json(), c.to_json());
}

TEST(CaseJson, the_binding_is_written_in_every_case_and_c_when_absent) {
  Case c;
  EXPECT_NE(c.to_json().find("\"binding\":\"c\""), std::string::npos);
  EXPECT_EQ(Case::from_json("{\"count\":1}").binding, "c");
  for (const char* b : {"c", "f08", "f90"}) {
    c.binding = b;
    EXPECT_EQ(Case::from_json(c.to_json()).binding, b);
  }
  EXPECT_NE(c.describe().find("binding=f90"), std::string::npos);
}

TEST(CaseJson, every_routine_and_mode_round_trips) {
  for (int r = 0; r <= static_cast<int>(Routine::reduce_locals); ++r)
    for (int m = 0; m <= static_cast<int>(Mode::persistent); ++m) {
      Case c;
      c.routine = static_cast<Routine>(r);
      c.mode = static_cast<Mode>(m);
      EXPECT_TRUE(same_case(Case::from_json(c.to_json()), c));
      EXPECT_EQ(routine_from_name(routine_name(c.routine)), c.routine);
      EXPECT_EQ(mode_from_name(mode_name(c.mode)), c.mode);
    }
  EXPECT_EQ(mpi_routine_name(Routine::reduce_scatter_block, Mode::nonblocking),
            "MPI_Ireduce_scatter_block");
  EXPECT_EQ(mpi_routine_name(Routine::exscan, Mode::persistent), "MPI_Exscan_init");
}

TEST(CaseJson, seeds_round_trip_up_to_2_to_the_53_and_larger_ones_are_refused_not_rounded) {
  // from_json keeps seeds to what every JSON reader holds exactly (2^53);
  // beyond that a seed is refused rather than read back as another seed.
  for (std::uint64_t s :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4294967296}, std::uint64_t{1} << 53}) {
    Case c;
    c.seed = s;
    Case d;
    ASSERT_NO_THROW(d = Case::from_json(c.to_json())) << c.to_json();
    EXPECT_EQ(d.seed, s);
  }
  for (std::uint64_t s : {(std::uint64_t{1} << 53) + 1, std::uint64_t{0xFFFFFFFFFFFFFFFF}}) {
    Case c;
    c.seed = s;
    EXPECT_THROW(Case::from_json(c.to_json()), UsageError) << s;
  }
}

TEST(CaseJson, a_negative_root_round_trips_as_written) {
  Case c;
  c.root = -1;  // refused later by validate_case, but the JSON keeps what it is given
  EXPECT_EQ(Case::from_json(c.to_json()).root, -1);
}

TEST(CaseJson, missing_fields_take_their_defaults_and_whitespace_is_allowed) {
  EXPECT_TRUE(same_case(Case::from_json("{}"), Case{}));
  const Case c = Case::from_json(
      " {\n  \"routine\" : \"scan\" ,\n  \"count\" : 3 , \"recvcounts\" : [ 1 , 2 ] }\n");
  EXPECT_EQ(c.routine, Routine::scan);
  EXPECT_EQ(c.count, 3);
  EXPECT_EQ(c.recvcounts, (std::vector<int>{1, 2}));
  EXPECT_EQ(c.op, "MPI_SUM");
}

TEST(CaseJson, standard_json_escapes_are_decoded) {
  const Case c = Case::from_json(R"({"comm":"a\tb\nc\/d\u0041\u00e9\"\\"})");
  EXPECT_EQ(c.comm, "a\tb\nc/dA\xc3\xa9\"\\");
}

TEST(CaseJson, malformed_input_throws_usage_error) {
  const char* bad[] = {
      "",
      "   ",
      "{",
      "}",
      "[]",
      "\"routine\"",
      "null",
      "{\"count\":}",
      "{\"count\":1,}",
      "{\"count\" 1}",
      "{count:1}",
      "{\"count\":1} x",
      "{\"count\":1}{}",
      "{\"routine\":\"nope\"}",
      "{\"binding\":\"fortran\"}",
      "{\"binding\":\"C\"}",
      "{\"binding\":8}",
      "{\"routine\":\"Reduce\"}",
      "{\"mode\":\"eager\"}",
      "{\"count\":\"3\"}",
      "{\"count\":1.5}",
      "{\"count\":-1}",
      "{\"count\":4294967297}",
      "{\"count\":2147483648}",
      "{\"root\":2147483648}",
      "{\"root\":-2147483649}",
      "{\"recvcounts\":[2147483648]}",
      "{\"count\":99999999999999999999999}",
      "{\"count\":1-2}",
      "{\"count\":--1}",
      "{\"count\":1e}",
      "{\"root\":1.0.0}",
      "{\"in_place\":1}",
      "{\"in_place\":tru}",
      "{\"in_place\":\"true\"}",
      "{\"recvcounts\":[1,}",
      "{\"recvcounts\":[\"a\"]}",
      "{\"recvcounts\":[-1]}",
      "{\"recvcounts\":3}",
      "{\"op\":\"unterminated}",
      "{\"op\":\"bad escape \\q\"}",
      "{\"op\":\"\\uzzzz\"}",
      "{\"op\":\"\\u12\"}",
      "{\"op\":\"\\u",
      "{\"op\":3}",
      "{\"seed\":-1}",
      "{\"seed\":18446744073709551616}",
      "{\"seed\":1.5}",
      "{\"no_such_field\":1}",
  };
  for (const char* text : bad) {
    try {
      const Case c = Case::from_json(text);
      ADD_FAILURE() << "accepted: " << text << " as " << c.to_json();
    } catch (const UsageError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a UsageError for " << text << ": " << e.what();
    }
  }
}

TEST(CaseJson, describe_names_the_routine_and_the_parameters) {
  Case c;
  c.routine = Routine::reduce;
  c.root = 3;
  c.op = "witness.tracer";
  c.datatype = "contiguous(4,MPI_INT)";
  const std::string d = c.describe();
  EXPECT_NE(d.find("MPI_Reduce"), std::string::npos) << d;
  EXPECT_NE(d.find("root=3"), std::string::npos) << d;
  EXPECT_NE(d.find("witness.tracer"), std::string::npos) << d;
  EXPECT_NE(d.find("contiguous(4,MPI_INT)"), std::string::npos) << d;
}

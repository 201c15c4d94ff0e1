// The in-flight note's one writer (record.h, InflightNote): each scenario of
// conformance/harness/tests/inflight_notes.json, filled as the harness fills
// it (case_flight.cpp, case_record.cpp), renders exactly as that file holds
// it, keys in order; tools/tests/test_inflight_note.py validates the same
// notes against reports/schema/inflight-1.schema.json. No MPI.
#include <gtest/gtest.h>

#include <fstream>

#include "case_limits.h"
#include "record.h"

namespace h = ordo::harness;
using h::Json;

namespace {

Json expected(int i) {
  std::ifstream f(ORDO_INFLIGHT_NOTES);
  EXPECT_TRUE(f.good()) << "cannot read " << ORDO_INFLIGHT_NOTES;
  const Json doc = Json::parse(f);
  return doc.at("notes").at(static_cast<std::size_t>(i)).at("note");
}

h::InflightNote begun(long long seq, const std::string& test, int index, const char* clause,
                      const char* level, const Json& c, const std::string& routine) {
  h::InflightNote n;
  n.seq = seq;
  n.id = test + "#" + std::to_string(index);
  n.test = test;
  n.clause = clause;
  n.level = level;
  n.case_json = c;
  n.routine = routine;
  return n;
}

Json a_case(const char* routine, int count, const char* comm) {
  return Json{{"routine", routine},
              {"op", "MPI_SUM"},
              {"datatype", "MPI_INT"},
              {"count", count},
              {"comm", comm}};
}

h::CaseLimit limit(double seconds, const char* rule, const char* why, double work = 0) {
  h::CaseLimit l;
  l.seconds = seconds;
  l.rule = rule;
  l.why = why;
  l.work = work;
  return l;
}

}  // namespace

TEST(InflightNote, a_case_begun_with_its_limit_dimensions_and_credit) {
  Json c = a_case("reduce_locals", 3, "self");
  c["mode"] = "blocking";
  c["seed"] = 11;
  h::InflightNote n = begun(7, "Crossing.cases", 6, "reduce-local.values", "MUST", c,
                            "ordo_portable_reduce_locals over MPI_Reduce_local");
  n.bytes = 12;
  n.credited_to = "ordo";
  n.dimensions = Json{{"routine", "reduce_locals"}, {"count", "3"}};
  n.case_limit = limit(10, "kind", "10 x the slowest", 4096).to_json();
  EXPECT_EQ(h::to_json(n), expected(0));
  EXPECT_EQ(h::to_json(n).dump(), expected(0).dump());  // the same keys in the same order
}

TEST(InflightNote, its_communicator_known) {
  Json c = a_case("reduce", 1, "inter-1-n");
  c["root"] = 0;
  h::InflightNote n = begun(8, "Reduce.values", 0, "reduce.values", "MUST", c, "MPI_Reduce");
  n.bytes = 4;
  n.comm_size = 4;
  n.comm_node_maps = Json::parse("[[[0]],[[0,1,2]]]");
  EXPECT_EQ(h::to_json(n).dump(), expected(1).dump());
}

TEST(InflightNote, a_detect_case_whose_call_returned) {
  h::InflightNote n = begun(9, "Detect.sendbuf", 2, "errors.buffer-aliasing", "DETECT",
                            a_case("allreduce", 2, "world"), "MPI_Allreduce");
  n.bytes = 8;
  n.case_limit = limit(6, "default", "the case timeout; a DETECT case: at most 6 s").to_json();
  n.comm_size = 2;
  n.returned = h::InflightNote::Returned{"reported", "MPI_ERR_BUFFER: invalid buffer pointer",
                                         limit(0.5, "reported", "rank returned").to_json()};
  EXPECT_EQ(h::to_json(n).dump(), expected(2).dump());
  h::InflightNote outside = begun(10, "Detect.sendbuf", 3, "errors.buffer-aliasing", "DETECT",
                                  a_case("reduce", 2, "odd-even"), "MPI_Reduce");
  outside.bytes = 8;
  outside.returned = h::InflightNote::Returned{"", "", Json()};
  EXPECT_EQ(h::to_json(outside).dump(), expected(3).dump());
}

TEST(InflightNote, a_caseless_check) {
  const h::InflightNote n =
      begun(1, "Ops.commutative", 0, "op.commutative", "MUST", Json(nullptr), "");
  EXPECT_EQ(h::to_json(n).dump(), expected(4).dump());
}

TEST(InflightNote, its_text_is_one_line) {
  h::InflightNote n = begun(1, "A.b", 0, "reduce.values", "MUST", Json(nullptr), "");
  n.returned = h::InflightNote::Returned{"reported", "two\nlines \xff", Json()};
  const std::string text = h::to_text(n);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);  // escaped inside, invalid UTF-8 replaced
  EXPECT_EQ(Json::parse(text)["returned"]["message"], "two\nlines \xef\xbf\xbd");
}

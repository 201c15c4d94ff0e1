// The shared waiver vectors (vendors/waiver-vectors.json): the C++ matcher
// gives every vector's expected verdict and parses every library version
// string as reports/waivers.py does. No MPI.
#include <gtest/gtest.h>

#include <fstream>

#include "record.h"
#include "waivers.h"

namespace w = ordo::harness::waivers;
using ordo::harness::Json;

namespace {

Json vectors_file() {
  std::ifstream f(ORDO_WAIVER_VECTORS);
  EXPECT_TRUE(f.good()) << "cannot read " << ORDO_WAIVER_VECTORS;
  return Json::parse(f);
}

}  // namespace

TEST(WaiverVectors, every_vector_gives_its_expected_verdict) {
  const Json doc = vectors_file();
  ASSERT_TRUE(doc.contains("vectors"));
  ASSERT_FALSE(doc["vectors"].empty());
  for (const Json& v : doc["vectors"]) {
    const Json& ctx = v["context"];
    const std::string got =
        w::match_name(w::match(v["waiver"], v["record"], ctx["today"].get<std::string>(),
                               ctx.value("library_version", std::string())));
    EXPECT_EQ(got, v["expect"].get<std::string>()) << v["name"].get<std::string>();
  }
}

TEST(WaiverVectors, library_version_strings_parse_to_their_release) {
  const Json doc = vectors_file();
  if (!doc.contains("library_version_strings"))
    GTEST_SKIP() << "the vectors file has no version strings";
  for (const Json& s : doc["library_version_strings"])
    EXPECT_EQ(w::parse_library_version(s["text"].get<std::string>()),
              s["version"].get<std::string>())
        << s["text"].get<std::string>();
}

TEST(WaiverApply, the_first_applicable_waiver_wins_and_the_others_are_noted) {
  const Json expired = {{"id", "old"}, {"test", "Reduce.*"}, {"expires", "2020-01-01"}};
  const Json other_release = {
      {"id", "v3"}, {"test", "Reduce.*"}, {"expires", "2099-01-01"}, {"library_versions", "3.4.*"}};
  const Json applies = {{"id", "w"},
                        {"test", "Reduce.*"},
                        {"expires", "2099-01-01"},
                        {"reason", "r"},
                        {"upstream", "u"}};
  const Json later = {{"id", "later"}, {"test", "Reduce.*"}, {"expires", "2099-01-01"}};
  Json record = {
      {"test", "Reduce.values"}, {"outcome", "fail"}, {"message", "m"}, {"waiver", nullptr}};
  const std::vector<Json> file = {expired, other_release, applies, later};
  const Json* used = w::apply(record, file, "2026-11-23", "4.0.2");
  ASSERT_NE(used, nullptr);
  EXPECT_EQ((*used)["id"], "w");
  EXPECT_EQ(record["outcome"], "waived");
  EXPECT_EQ(record["waiver"], "w");
  EXPECT_EQ(record["message"],
            "m | the waiver old expired on 2020-01-01 | the waiver v3 is for 3.4.*, not 4.0.2"
            " | waived until 2099-01-01: r (u)");
}

TEST(WaiverApply, a_record_no_waiver_applies_to_keeps_its_outcome) {
  Json record = {{"test", "Scan.values"}, {"outcome", "fail"}, {"message", "m"}};
  const Json only = {{"id", "w"}, {"test", "Reduce.*"}, {"expires", "2099-01-01"}};
  EXPECT_EQ(w::apply(record, {only}, "2026-11-23", "4.0.2"), nullptr);
  EXPECT_EQ(record["outcome"], "fail");
  EXPECT_EQ(record["message"], "m");
}

// The shared waiver vectors (vendors/waiver-vectors.json): the C++ matcher
// gives every vector's expected verdict and parses every library version
// string as reports/waivers.py does; and every waiver of every
// vendors/*/waivers.json covers its examples and not its neighbours, as
// tools/tests/test_waiver_examples.py checks with the Python matcher. No MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
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
    const std::string got = w::match_name(
        w::match(v["waiver"], v["record"], ctx["today"].get<std::string>(),
                 ctx.value("library_version", std::string()), ctx.value("signature", true)));
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

namespace {

// An example as a record: its fields but "why"; the waiver's first outcome,
// the default variant and an empty message unless it says otherwise.
Json example_record(const Json& example, const Json& waiver) {
  Json record = example;
  record.erase("why");
  if (!record.contains("outcome")) {
    const Json& o = waiver.contains("outcome") ? waiver["outcome"] : Json("fail");
    record["outcome"] = o.is_array() ? o.at(0) : o;
  }
  if (!record.contains("variant")) record["variant"] = "default";
  if (!record.contains("message")) record["message"] = "";
  return record;
}

// An example as the waiver judges it. A damages_later waiver's examples are
// cases as they passed: judged as the harness's prediction that holds such a
// case back (the waiver's crash, no message yet, the trigger alone).
std::string judged(const Json& waiver, const Json& example, const std::string& release) {
  Json record = example_record(example, waiver);
  const auto later = waiver.find("damages_later");
  if (later == waiver.end() || !later->is_boolean() || !later->get<bool>())
    return w::match_name(w::match(waiver, record, "2000-01-01", release));
  const Json& o = waiver.contains("outcome") ? waiver["outcome"] : Json("crash");
  record["outcome"] = o.is_array() ? o.at(0) : o;
  record["message"] = "";
  return w::match_name(w::match(waiver, record, "2000-01-01", release, false));
}

// The release an example is judged for: the waiver's first version spec.
std::string first_release(const Json& waiver) {
  const Json& v = waiver.contains("library_versions") ? waiver["library_versions"] : Json();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && !v.empty() && v[0].is_string()) return v[0].get<std::string>();
  return "";
}

}  // namespace

TEST(WaiverExamples, every_waiver_covers_its_examples_and_not_its_neighbours) {
  namespace fs = std::filesystem;
  const fs::path vendors = fs::path(ORDO_WAIVER_VECTORS).parent_path();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(vendors))
    if (fs::is_regular_file(entry.path() / "waivers.json"))
      files.push_back(entry.path() / "waivers.json");
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no waivers.json under " << vendors;
  std::size_t checked = 0;
  for (const fs::path& file : files) {
    for (const Json& waiver : w::load(file.string())) {
      const std::string id = waiver.value("id", std::string("?"));
      const std::string release = first_release(waiver);
      EXPECT_FALSE(release.empty()) << file << ": " << id << " names no library_versions";
      const Json examples = waiver.value("examples", Json::object());
      const Json covers = examples.value("covers", Json::array());
      const Json excludes = examples.value("excludes", Json::array());
      EXPECT_FALSE(covers.empty()) << id << ": no example it must cover";
      EXPECT_FALSE(excludes.empty()) << id << ": no neighbouring case it must not cover";
      for (const Json& ex : covers)
        EXPECT_EQ(judged(waiver, ex, release), std::string("waived"))
            << id << " does not cover " << ex.dump();
      for (const Json& ex : excludes)
        EXPECT_EQ(judged(waiver, ex, release), std::string("no-match"))
            << id << " covers its neighbour " << ex.dump();
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

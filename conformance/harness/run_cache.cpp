// The run's disk cache (harness.h, cache_get / cache_put; --ordo-cache-dir):
// what one job computed that a later job of the same run may read instead
// of computing it again, one JSON file per entry holding its whole key.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "build_id.h"
#include "harness_state.h"

namespace ordo::harness {
namespace {

// The build (build_id.h: the reference's and the harness's sources, the
// compiler and the configuration) and the library: every check executable of
// one build shares an entry (the crossing's covering array is computed once
// per run and process count, by the first executable that needs it).
std::string cache_key(const std::string& inputs) {
  static const std::string build = [] {
    const std::string id = build_id();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(lib, &n);
    return "|build=" + id + "|library=" + std::string(lib, static_cast<std::size_t>(n));
  }();
  return inputs + build;
}

std::string cache_path(const std::string& what, const std::string& key) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a: a file name, not a check (the key is)
  for (const unsigned char ch : key) h = (h ^ ch) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return state().job.settings.cache_dir + "/" + what + "-" + hex + ".json";
}

}  // namespace

std::optional<std::string> cache_get(const std::string& what, const std::string& inputs) {
  if (state().job.settings.cache_dir.empty()) return std::nullopt;
  const std::string key = cache_key(inputs);
  std::ifstream f(cache_path(what, key));
  if (!f) return std::nullopt;
  const Json j = Json::parse(f, nullptr, false);
  if (!j.is_object() || !j.contains("key") || !j["key"].is_string() || j["key"] != key ||
      !j.contains("body") || !j["body"].is_string())
    return std::nullopt;  // another build's entry under the same name, or cut short: computed again
  return j["body"].get<std::string>();
}

void cache_put(const std::string& what, const std::string& inputs, const std::string& body) {
  const std::string& dir = state().job.settings.cache_dir;
  if (dir.empty()) return;
  const std::string key = cache_key(inputs);
  const std::string path = cache_path(what, key);
  mkdir(dir.c_str(), 0777);  // one level: the runner made the run's folder
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp);
    f << Json{{"key", key}, {"body", body}}.dump() << "\n";
    if (!f) {
      std::remove(tmp.c_str());
      return;  // a cache that cannot be written costs time, never a verdict
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace ordo::harness

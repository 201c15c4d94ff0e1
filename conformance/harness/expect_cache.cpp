#include "expect_cache.h"

#define XXH_INLINE_ALL
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "build_id.h"
#include "harness.h"

namespace ordo::harness::expect_cache {
namespace {

struct DigestHash {
  std::size_t operator()(const Digest& d) const { return static_cast<std::size_t>(d.low); }
};

constexpr std::size_t kEntry = 4 * sizeof(std::uint64_t);  // key, expected

struct Store {
  std::mutex mutex;
  bool loaded = false;
  int fd = -1;  // the file appended to; -1: not writable (the cache only saves time)
  std::unordered_map<Digest, Digest, DigestHash> entries;
  Counts counts;
};

Store& store() {
  static Store s;
  return s;
}

std::string path() {
  return settings().cache_dir + "/expect-" + std::string(build_id()).substr(0, 16) + "-p" +
         std::to_string(world_size()) + "-r" + std::to_string(world_rank()) + ".bin";
}

// Reads the file once (the entries earlier launches of this run kept), and
// opens it for appending.
void load(Store& s) {
  if (s.loaded) return;
  s.loaded = true;
  mkdir(settings().cache_dir.c_str(), 0777);  // one level: the runner made the run's folder
  const std::string p = path();
  s.fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (s.fd < 0) return;
  struct stat st {};
  if (fstat(s.fd, &st) != 0) return;
  const std::size_t whole = static_cast<std::size_t>(st.st_size) / kEntry * kEntry;
  std::vector<std::uint64_t> words(whole / sizeof(std::uint64_t));
  std::size_t got = 0;
  while (got < whole) {
    const ssize_t n = ::pread(s.fd, reinterpret_cast<char*>(words.data()) + got, whole - got,
                              static_cast<off_t>(got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  for (std::size_t i = 0; i + 4 <= got / sizeof(std::uint64_t); i += 4)
    s.entries[Digest{words[i], words[i + 1]}] = Digest{words[i + 2], words[i + 3]};
  // A cut-short last entry (a launch ended while writing it) is dropped, so
  // that the entries appended next stay aligned.
  if (static_cast<std::size_t>(st.st_size) != whole) {
    if (ftruncate(s.fd, static_cast<off_t>(whole)) != 0) {
      ::close(s.fd);
      s.fd = -1;
    }
  }
}

Digest of(const XXH128_hash_t& h) { return Digest{h.low64, h.high64}; }

}  // namespace

bool enabled() { return !settings().cache_dir.empty() && !settings().no_expect_cache; }

Digest key(const ref::Case& c, const ref::Topology& t, ref::Role me) {
  const std::string text = std::string("expect/1|") + build_id() + "|" + c.to_json() + "|" +
                           (t.inter ? "inter" : "intra") + "," + std::to_string(t.size_low) + "," +
                           std::to_string(t.size_high) + "|" + std::to_string(me.group) + "," +
                           std::to_string(me.rank);
  return of(XXH3_128bits(text.data(), text.size()));
}

Digest digest(const ref::Buffer& shape, const std::byte* bytes, std::size_t n) {
  XXH3_state_t st_buf;  // complete with XXH_INLINE_ALL: no allocation per digest
  XXH3_INITSTATE(&st_buf);
  XXH3_state_t* st = &st_buf;
  XXH3_128bits_reset(st);
  const std::string text = shape.type().text() + "|" + std::to_string(shape.count()) + "|" +
                           std::to_string(shape.origin()) + "|" + std::to_string(n) + "|";
  XXH3_128bits_update(st, text.data(), text.size());
  if (n > 0) XXH3_128bits_update(st, bytes, n);
  return of(XXH3_128bits_digest(st));
}

Digest digest(const ref::Buffer& b) { return digest(b, b.storage().data(), b.storage().size()); }

std::optional<Digest> get(const Digest& k) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  load(s);
  const auto it = s.entries.find(k);
  if (it == s.entries.end()) return std::nullopt;
  return it->second;
}

void put(const Digest& k, const Digest& expected) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  load(s);
  if (!s.entries.emplace(k, expected).second) return;
  ++s.counts.kept;
  if (s.fd < 0) return;
  const std::uint64_t words[4] = {k.low, k.high, expected.low, expected.high};
  // One write of a whole entry (O_APPEND): a launch that ends here leaves at
  // most a cut-short last entry, dropped by the next load.
  if (::write(s.fd, words, sizeof words) != static_cast<ssize_t>(sizeof words)) {
    ::close(s.fd);
    s.fd = -1;
  }
}

Counts counts() {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.counts;
}

void count_hit() {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.counts.hits;
}

void count_mismatch() {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.counts.mismatches;
}

}  // namespace ordo::harness::expect_cache

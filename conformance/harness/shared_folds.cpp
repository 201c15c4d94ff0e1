#include "shared_folds.h"

#define XXH_INLINE_ALL
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace ordo::harness::shared_folds {
namespace {

using Clock = std::chrono::steady_clock;
using U32 = std::atomic<std::uint32_t>;
static_assert(U32::is_always_lock_free, "the store's atomics must work across processes");

// The store: kSlots slots, each a header and its rows' data. A case's folds
// live in the slot its key selects while some process holds them; a slot no
// process holds is taken by the next case that selects it.
constexpr std::uint32_t kSlots = 16;
constexpr std::uint32_t kMaxRanges = 512;
constexpr std::size_t kRangeBytes = 64 << 10;      // one row of one range, about
constexpr std::size_t kMinSharedBytes = 16 << 10;  // p x count x extent below this: not worth it
constexpr std::size_t kHeaderBytes = 4096;
// Seconds a process waits for a lock (held for a few instructions), and for
// a range another process claimed, before it does without: the holder died.
constexpr double kLockSeconds = 2.0;
constexpr double kRangeSeconds = 5.0;

struct SlotHeader {
  U32 lock;
  U32 users;          // processes holding the slot's case
  U32 next;           // the next range to claim
  std::uint32_t gen;  // under the lock: a new case in the slot, a new generation
  std::uint32_t valid;
  std::uint32_t rows, ranges, range_elements;
  std::uint64_t key_low, key_high, range_bytes;
  U32 done[kMaxRanges];  // == gen: the range's rows are written
};
static_assert(sizeof(SlotHeader) <= kHeaderBytes, "the slot header fits its page");

struct Store {
  std::mutex mutex;  // this process's counts
  std::byte* base = nullptr;
  std::size_t slot_stride = 0, slot_data = 0;
  std::atomic<bool> broken[kSlots] = {};  // a lock not released in time: its holder died
  Counts counts;
};

Store& store() {
  static Store s;
  return s;
}

SlotHeader* slot(std::uint32_t i) {
  Store& s = store();
  return reinterpret_cast<SlotHeader*>(s.base + static_cast<std::size_t>(i) * s.slot_stride);
}

std::byte* slot_data(std::uint32_t i) {
  return reinterpret_cast<std::byte*>(slot(i)) + kHeaderBytes;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool lock(SlotHeader* h) {
  const Clock::time_point t0 = Clock::now();
  for (unsigned spins = 0;; ++spins) {
    std::uint32_t free = 0;
    if (h->lock.compare_exchange_weak(free, 1, std::memory_order_acquire)) return true;
    sched_yield();
    if (spins % 64 == 63 && since(t0) > kLockSeconds) return false;
  }
}

void unlock(SlotHeader* h) { h->lock.store(0, std::memory_order_release); }

void count(long long Counts::*field, long long n = 1) {
  Store& s = store();
  std::lock_guard<std::mutex> g(s.mutex);
  s.counts.*field += n;
}

}  // namespace

class Claim {
 public:
  std::uint32_t index = 0, gen = 0, rows = 0, ranges = 0, range_elements = 0;
  std::size_t range_bytes = 0;
  bool held = false;
  // A case that ends before finish() (its call failed, an exception) lets
  // go of its slot all the same.
  ~Claim() { release(); }
  void release() {
    if (!held) return;
    held = false;
    SlotHeader* h = slot(index);
    if (lock(h)) {
      h->users.fetch_sub(1, std::memory_order_relaxed);
      unlock(h);
    } else {
      store().broken[index].store(true);
    }
  }
};

bool enabled() { return store().base != nullptr; }

void open(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const char* off = std::getenv("ORDO_SHARED_FOLDS");
  // Rank 0's choice, for every process: the store's name and layout (a
  // process whose machine cannot hold it goes without).
  struct Choice {
    std::uint64_t nonce = 0;
    std::uint64_t slot_data = 0;
  } choice;
  if (rank == 0 && !(off && std::string(off) == "0")) {
    choice.nonce = (static_cast<std::uint64_t>(getpid()) << 32) ^
                   static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
    choice.slot_data = 128ull << 20;
  }
  MPI_Bcast(&choice, 2, MPI_UINT64_T, 0, comm);
  const std::string name = "/ordo-folds-" + std::to_string(choice.nonce);
  int fd = -1;
  std::size_t stride = kHeaderBytes + choice.slot_data;
  const std::size_t total = stride * kSlots;
  if (choice.nonce != 0) {
    struct statvfs vfs {};
    // The store is sparse: only what cases write is memory. It must fit
    // where it lives, or a write past the space would end the process.
    if (statvfs("/dev/shm", &vfs) == 0 &&
        static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize) >
            2.0 * static_cast<double>(total))
      fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
      struct stat st {};
      // Every process of the machine sizes it alike; the first to do so wins.
      if (fstat(fd, &st) != 0 || (static_cast<std::size_t>(st.st_size) < total &&
                                  ftruncate(fd, static_cast<off_t>(total)) != 0)) {
        ::close(fd);
        fd = -1;
      }
    }
    if (fd >= 0) {
      void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ::close(fd);
      if (p != MAP_FAILED) {
        Store& s = store();
        s.base = static_cast<std::byte*>(p);
        s.slot_stride = stride;
        s.slot_data = choice.slot_data;
      }
    }
  }
  // Every process has opened it (or failed to): its name goes, its memory
  // stays until the last process ends.
  MPI_Barrier(comm);
  if (choice.nonce != 0) shm_unlink(name.c_str());
}

std::shared_ptr<Claim> begin(const ref::Case& c, const ref::Topology& t) {
  Store& s = store();
  if (!s.base || !ref::folds_shareable(c, t)) return nullptr;
  const ref::Datatype dt = ref::Datatype::parse(c.datatype);
  const auto extent = static_cast<std::size_t>(dt.extent());
  const auto p = static_cast<std::size_t>(t.size_low);
  if (p * static_cast<std::size_t>(c.count) * extent < kMinSharedBytes) return nullptr;
  auto claim = std::make_shared<Claim>();
  claim->rows = static_cast<std::uint32_t>(ref::shared_fold_rows(c, t));
  if (claim->rows == 0) return nullptr;
  std::size_t per = std::max<std::size_t>(1, kRangeBytes / extent);
  std::size_t ranges = (static_cast<std::size_t>(c.count) + per - 1) / per;
  if (ranges > kMaxRanges) {
    per = (static_cast<std::size_t>(c.count) + kMaxRanges - 1) / kMaxRanges;
    ranges = (static_cast<std::size_t>(c.count) + per - 1) / per;
  }
  claim->range_elements = static_cast<std::uint32_t>(per);
  claim->ranges = static_cast<std::uint32_t>(ranges);
  claim->range_bytes = ref::Buffer(dt, static_cast<int>(per)).storage().size();
  if (claim->range_bytes * claim->ranges * claim->rows > s.slot_data) {
    count(&Counts::not_held);
    return nullptr;
  }
  const std::string text = std::string("folds/1|") + c.to_json() + "|" + std::to_string(t.size_low);
  const XXH128_hash_t key = XXH3_128bits(text.data(), text.size());
  claim->index = static_cast<std::uint32_t>(key.low64 % kSlots);
  if (s.broken[claim->index]) {
    count(&Counts::not_held);
    return nullptr;
  }
  SlotHeader* h = slot(claim->index);
  if (!lock(h)) {
    s.broken[claim->index].store(true);
    count(&Counts::not_held);
    return nullptr;
  }
  const bool same = h->valid && h->key_low == key.low64 && h->key_high == key.high64 &&
                    h->rows == claim->rows && h->ranges == claim->ranges &&
                    h->range_elements == claim->range_elements &&
                    h->range_bytes == claim->range_bytes;
  if (same) {
    h->users.fetch_add(1, std::memory_order_relaxed);
  } else if (h->users.load(std::memory_order_relaxed) == 0) {
    // Taken for this case: a new generation, so that no range of the case
    // before counts as done.
    h->gen = h->gen + 1 == 0 ? 1 : h->gen + 1;
    h->valid = 1;
    h->key_low = key.low64;
    h->key_high = key.high64;
    h->rows = claim->rows;
    h->ranges = claim->ranges;
    h->range_elements = claim->range_elements;
    h->range_bytes = claim->range_bytes;
    h->next.store(0, std::memory_order_relaxed);
    h->users.store(1, std::memory_order_relaxed);
  } else {
    unlock(h);
    count(&Counts::not_held);
    return nullptr;
  }
  claim->gen = h->gen;
  claim->held = true;
  unlock(h);
  // This process's share: the ranges no process has claimed yet.
  std::byte* data = slot_data(claim->index);
  long long made = 0;
  for (;;) {
    const std::uint32_t i = h->next.fetch_add(1, std::memory_order_relaxed);
    if (i >= claim->ranges) break;
    const int first = static_cast<int>(i * claim->range_elements);
    const int n = std::min<int>(static_cast<int>(claim->range_elements), c.count - first);
    const std::vector<ref::Buffer> rows = ref::shared_folds(c, t, first, n);
    for (std::uint32_t r = 0; r < claim->rows; ++r) {
      const std::vector<std::byte>& bytes = rows[r].storage();
      std::memcpy(data + (static_cast<std::size_t>(r) * claim->ranges + i) * claim->range_bytes,
                  bytes.data(), bytes.size());
    }
    h->done[i].store(claim->gen, std::memory_order_release);
    ++made;
  }
  count(&Counts::ranges_made, made);
  count(&Counts::cases);
  return claim;
}

std::optional<ref::Buffer> finish(Claim& claim, const ref::Case& c, const ref::Topology& t,
                                  ref::Role me, const ref::Buffer& initial) {
  SlotHeader* h = slot(claim.index);
  const std::byte* data = slot_data(claim.index);
  const int row = ref::shared_fold_row_of(c, t, me);
  std::optional<ref::Buffer> out;
  if (row >= 0) out = initial;
  const ref::Datatype& dt = initial.type();
  long long taken = 0, alone = 0;
  Clock::time_point progress = Clock::now();
  bool given_up = false;
  for (std::uint32_t i = 0; i < claim.ranges; ++i) {
    const int first = static_cast<int>(i * claim.range_elements);
    const int n = std::min<int>(static_cast<int>(claim.range_elements), c.count - first);
    // The range's rows, once the process that claimed it has written them;
    // if none has within kRangeSeconds, this process makes them itself.
    unsigned spins = 0;
    while (!given_up && h->done[i].load(std::memory_order_acquire) != claim.gen) {
      sched_yield();
      if (++spins % 64 == 0 && since(progress) > kRangeSeconds) given_up = true;
    }
    if (row < 0) continue;
    if (given_up && h->done[i].load(std::memory_order_acquire) != claim.gen) {
      const std::vector<ref::Buffer> rows = ref::shared_folds(c, t, first, n);
      ref::write_fold_range(rows[static_cast<std::size_t>(row)], first, *out);
      ++alone;
      continue;
    }
    progress = Clock::now();
    ref::Buffer part(dt, n);
    std::memcpy(part.storage().data(),
                data + (static_cast<std::size_t>(row) * claim.ranges + i) * claim.range_bytes,
                part.storage().size());
    ref::write_fold_range(part, first, *out);
    ++taken;
  }
  // The hold released: the slot may serve another case once no process holds it.
  claim.release();
  count(&Counts::ranges_read, taken);
  count(&Counts::ranges_alone, alone);
  return out;
}

Counts counts() {
  Store& s = store();
  std::lock_guard<std::mutex> g(s.mutex);
  return s.counts;
}

}  // namespace ordo::harness::shared_folds

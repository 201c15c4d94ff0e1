// A copy of a reference buffer with guard bytes on both sides, handed to the
// MPI library; afterwards the guards must be intact.
//
// In the sanitizer build (ORDO_SANITIZE, cmake/OrdoSanitize.cmake) the guards
// are also poisoned for AddressSanitizer while the buffer is out of the
// harness's hands: an access of ordo's own code (the harness, the reference
// MPI) or a memcpy that passes the buffer's end is reported where it
// happens, even when it stays within the guard bytes, so that a harness that
// hands the library too small a buffer is caught at any rank count. The
// harness reads the guards only through guards_intact() and raw(), which
// unpoison them first.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "ordo/reference/buffer.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ORDO_GUARD_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define ORDO_GUARD_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ORDO_GUARD_POISON(p, n) ((void)(p), (void)(n))
#define ORDO_GUARD_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace ordo::harness {

class GuardedBuffer {
 public:
  static constexpr std::size_t kGuard = 64;
  static constexpr std::byte kGuardByte{0xA5};

  explicit GuardedBuffer(const ref::Buffer& b)
      : mem_(b.storage().size() + 2 * kGuard, kGuardByte), origin_(b.origin()) {
    if (!b.storage().empty())
      std::memcpy(mem_.data() + kGuard, b.storage().data(), b.storage().size());
    poison();
  }
  // A buffer of `bytes` (storage, origin as a reference buffer's), written
  // and read a range of elements at a time (write_at, read_at): the huge
  // cases, whose whole reference buffer is never made.
  GuardedBuffer(std::size_t bytes, std::ptrdiff_t origin)
      : mem_(bytes + 2 * kGuard, kGuardByte), origin_(origin) {
    poison();
  }
  // b's storage, written at byte `offset` of this buffer's storage.
  void write_at(std::size_t offset, const ref::Buffer& b) {
    if (!b.storage().empty())
      std::memcpy(mem_.data() + kGuard + offset, b.storage().data(), b.storage().size());
  }
  // The bytes at `offset` of this buffer's storage, in the layout of `shape`.
  ref::Buffer read_at(std::size_t offset, const ref::Buffer& shape) const {
    ref::Buffer out = shape;
    if (!out.storage().empty())
      std::memcpy(out.storage().data(), mem_.data() + kGuard + offset, out.storage().size());
    return out;
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { unpoison(); }
  // Where the library is handed the buffer (the guards poisoned again: the
  // call may come after a check).
  void* ptr() {
    poison();
    return mem_.data() + kGuard + origin_;
  }
  // New contents of the same shape, written where the library was handed
  // the buffer (a persistent request's next start reads them there).
  void refill(const ref::Buffer& b) {
    if (!b.storage().empty() && b.storage().size() == size())
      std::memcpy(mem_.data() + kGuard, b.storage().data(), b.storage().size());
  }
  bool guards_intact() const {
    unpoison();
    for (std::size_t i = 0; i < kGuard; ++i)
      if (mem_[i] != kGuardByte || mem_[mem_.size() - 1 - i] != kGuardByte) return false;
    return true;
  }
  // The buffer's contents now, in the reference's layout.
  ref::Buffer contents(const ref::Buffer& shape) const {
    ref::Buffer out = shape;
    if (!out.storage().empty())
      std::memcpy(out.storage().data(), mem_.data() + kGuard, out.storage().size());
    return out;
  }
  // The bytes between the guards.
  std::size_t size() const { return mem_.size() - 2 * kGuard; }
  const std::vector<std::byte>& raw() const {
    unpoison();
    return mem_;
  }

 private:
  void poison() const {
    ORDO_GUARD_POISON(mem_.data(), kGuard);
    ORDO_GUARD_POISON(mem_.data() + mem_.size() - kGuard, kGuard);
  }
  void unpoison() const { ORDO_GUARD_UNPOISON(mem_.data(), mem_.size()); }

  std::vector<std::byte> mem_;
  std::ptrdiff_t origin_;
};

}  // namespace ordo::harness

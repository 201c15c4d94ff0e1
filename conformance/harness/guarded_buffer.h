// A copy of a reference buffer with guard bytes on both sides, handed to the
// MPI library; afterwards the guards must be intact.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "ordo/reference/buffer.h"

namespace ordo::harness {

class GuardedBuffer {
 public:
  static constexpr std::size_t kGuard = 64;
  static constexpr std::byte kGuardByte{0xA5};

  explicit GuardedBuffer(const ref::Buffer& b)
      : mem_(b.storage().size() + 2 * kGuard, kGuardByte), origin_(b.origin()) {
    if (!b.storage().empty())
      std::memcpy(mem_.data() + kGuard, b.storage().data(), b.storage().size());
  }
  void* ptr() { return mem_.data() + kGuard + origin_; }
  bool guards_intact() const {
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
  const std::vector<std::byte>& raw() const { return mem_; }

 private:
  std::vector<std::byte> mem_;
  std::ptrdiff_t origin_;
};

}  // namespace ordo::harness

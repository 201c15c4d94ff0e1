// Helpers shared by the reference's own unit tests: typed access to buffers,
// a non-commutative associative user op with readable results, and a check
// that the holes of a buffer still hold the pattern they were filled with.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ordo/reference/buffer.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/op.h"

namespace ordo::ref::test {

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// A buffer of `count` elements of dt whose leaves (all of C++ type T), in
// typemap order, hold `values`; every other byte holds `fill`.
template <class T>
Buffer leaves_buffer(const Datatype& dt, int count, const std::vector<T>& values,
                     std::byte fill = std::byte{0xEE}) {
  Buffer b(dt, count, fill);
  std::size_t i = 0;
  b.for_each_leaf([&](int, int, Basic, std::byte* p) { store<T>(p, values.at(i++)); });
  EXPECT_EQ(i, values.size()) << "leaves_buffer: wrong number of values for " << dt.text();
  return b;
}

// The leaves of a buffer in typemap order, read as T.
template <class T>
std::vector<T> leaves_of(const Buffer& b) {
  std::vector<T> out;
  b.for_each_leaf([&](int, int, Basic, const std::byte* p) { out.push_back(load<T>(p)); });
  return out;
}

// A buffer of n consecutive basic values.
template <class T>
Buffer array_buffer(Basic b, const std::vector<T>& values, std::byte fill = std::byte{0xEE}) {
  return leaves_buffer<T>(Datatype::basic(b), static_cast<int>(values.size()), values, fill);
}

// Whether every byte of b's storage outside the typemap still equals `pattern`.
inline ::testing::AssertionResult holes_hold(const Buffer& b, std::byte pattern) {
  std::vector<char> is_data(b.storage().size(), 0);
  for (const ByteRange& r : b.type().data_ranges(b.count()))
    for (std::ptrdiff_t x = r.begin; x < r.end; ++x)
      is_data[static_cast<std::size_t>(x + b.origin())] = 1;
  for (std::size_t i = 0; i < is_data.size(); ++i)
    if (!is_data[i] && b.storage()[i] != pattern)
      return ::testing::AssertionFailure()
             << "hole byte at offset " << static_cast<std::ptrdiff_t>(i) - b.origin() << " of "
             << b.type().text() << " x" << b.count() << " was overwritten (0x" << std::hex
             << static_cast<int>(b.storage()[i]) << ")";
  return ::testing::AssertionSuccess();
}

// Decimal concatenation of positive integers: a o b = "ab" (12 o 34 = 1234).
// Associative, not commutative, and the result spells the order of the fold.
inline long long concat(long long a, long long b) {
  long long p = 1;
  for (long long x = b; x > 0; x /= 10) p *= 10;
  return a * p + b;
}

// The concatenation as an MPI user function over any datatype whose leaves
// are all MPI_LONG_LONG: inoutvec[i] := invec[i] o inoutvec[i].
inline void concat_function(const std::byte* invec, std::byte* inoutvec, int len,
                            const Datatype& dt) {
  for (int k = 0; k < len; ++k) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(k) * dt.extent();
    for (const Leaf& l : dt.typemap()) {
      if (l.type != Basic::LONG_LONG) throw UsageError("concat op: MPI_LONG_LONG leaves only");
      const long long a = load<long long>(invec + base + l.disp);
      const long long b = load<long long>(inoutvec + base + l.disp);
      store<long long>(inoutvec + base + l.disp, concat(a, b));
    }
  }
}

inline Op concat_op(bool commute = false) {
  return Op::user("test.concat", concat_function, commute);
}

inline const Datatype& ll() {
  static const Datatype t = Datatype::basic(Basic::LONG_LONG);
  return t;
}

// One buffer per rank: rank r holds `per_rank[r]` (leaves in typemap order).
inline std::vector<Buffer> rank_buffers(const Datatype& dt, int count,
                                        const std::vector<std::vector<long long>>& per_rank) {
  std::vector<Buffer> v;
  for (const auto& vals : per_rank) v.push_back(leaves_buffer<long long>(dt, count, vals));
  return v;
}

// p receive buffers of `count` elements, filled with `fill`.
inline std::vector<Buffer> recv_buffers(const Datatype& dt, int p, int count,
                                        std::byte fill = std::byte{0xEE}) {
  return std::vector<Buffer>(static_cast<std::size_t>(p), Buffer(dt, count, fill));
}

// Calls f and returns the clause of the SemanticsError it throws ("" if none).
template <class F>
std::string clause_of(F&& f) {
  try {
    f();
  } catch (const SemanticsError& e) {
    return e.clause();
  }
  return "";
}

// C layouts of the MINLOC/MAXLOC pair types, as a C program declares them.
namespace pairs {
struct FloatInt {
  float v;
  int i;
};
struct DoubleInt {
  double v;
  int i;
};
struct LongInt {
  long v;
  int i;
};
struct TwoInt {
  int v;
  int i;
};
struct ShortInt {
  short v;
  int i;
};
struct LongDoubleInt {
  long double v;
  int i;
};
struct TwoFloat {
  float v;
  float i;
};
struct TwoDouble {
  double v;
  double i;
};
}  // namespace pairs

}  // namespace ordo::ref::test

#include "ordo/reference/buffer.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "ordo/reference/errors.h"

namespace ordo::ref {
namespace {

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Byte ranges of a leaf that carry value (long double padding excluded).
LeafRanges significant_ranges(Basic b) {
  const BasicInfo& bi = info(b);
  const auto sig = static_cast<std::ptrdiff_t>(significant_size(bi.scalar));
  if (bi.group == TypeGroup::pair) {
    const auto io = static_cast<std::ptrdiff_t>(bi.index_offset);
    return {{{0, sig}, {io, io + static_cast<std::ptrdiff_t>(significant_size(bi.index_scalar))}},
            2};
  }
  if (bi.scalar == Scalar::cf80) {
    const auto half = static_cast<std::ptrdiff_t>(sizeof(long double));
    return {{{0, 10}, {half, half + 10}}, 2};
  }
  return {{{0, sig}, {}}, 1};
}

std::string format_scalar(Scalar s, const std::byte* p) {
  char buf[128];
  switch (s) {
    case Scalar::i8:
      return std::to_string(load<std::int8_t>(p));
    case Scalar::i16:
      return std::to_string(load<std::int16_t>(p));
    case Scalar::i32:
      return std::to_string(load<std::int32_t>(p));
    case Scalar::i64:
      return std::to_string(load<std::int64_t>(p));
    case Scalar::u8:
      return std::to_string(load<std::uint8_t>(p));
    case Scalar::u16:
      return std::to_string(load<std::uint16_t>(p));
    case Scalar::u32:
      return std::to_string(load<std::uint32_t>(p));
    case Scalar::u64:
      return std::to_string(load<std::uint64_t>(p));
    case Scalar::byte:
      std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(load<std::uint8_t>(p)));
      return buf;
    case Scalar::ch8:
      return std::to_string(load<std::int8_t>(p));
    case Scalar::wch:
      return std::to_string(static_cast<long>(load<wchar_t>(p)));
    case Scalar::c_bool:
      return std::to_string(static_cast<unsigned>(load<std::uint8_t>(p)));
    case Scalar::f_logical:
      return std::to_string(load<std::int32_t>(p));
    case Scalar::f32:
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(load<float>(p)));
      return buf;
    case Scalar::f64:
      std::snprintf(buf, sizeof buf, "%.17g", load<double>(p));
      return buf;
    case Scalar::f80:
      std::snprintf(buf, sizeof buf, "%.21Lg", load<long double>(p));
      return buf;
    case Scalar::cf32:
      return "(" + format_scalar(Scalar::f32, p) + ", " + format_scalar(Scalar::f32, p + 4) + ")";
    case Scalar::cf64:
      return "(" + format_scalar(Scalar::f64, p) + ", " + format_scalar(Scalar::f64, p + 8) + ")";
    case Scalar::cf80:
      return "(" + format_scalar(Scalar::f80, p) + ", " +
             format_scalar(Scalar::f80, p + sizeof(long double)) + ")";
  }
  return "?";
}

// Floating-point leaves compare by value: +0 and -0 are equal (the sign of a
// zero result depends on the order of evaluation), NaN equals NaN.
template <class T>
bool same_values(const std::byte* a, const std::byte* b, int n) {
  for (int i = 0; i < n; ++i) {
    const T x = load<T>(a + i * sizeof(T)), y = load<T>(b + i * sizeof(T));
    if (!(x == y || (x != x && y != y))) return false;
  }
  return true;
}

bool same_floating_values(Basic t, const std::byte* a, const std::byte* b) {
  const BasicInfo& bi = info(t);
  if (bi.group == TypeGroup::pair) return false;  // compared byte for byte (values and indices)
  switch (bi.scalar) {
    case Scalar::f32:
      return same_values<float>(a, b, 1);
    case Scalar::f64:
      return same_values<double>(a, b, 1);
    case Scalar::f80:
      return same_values<long double>(a, b, 1);
    case Scalar::cf32:
      return same_values<float>(a, b, 2);
    case Scalar::cf64:
      return same_values<double>(a, b, 2);
    case Scalar::cf80:
      return same_values<long double>(a, b, 2);
    default:
      return false;
  }
}

}  // namespace

Buffer::Buffer(Datatype dt, int count, std::byte fill) : type_(std::move(dt)), count_(count) {
  if (count < 0) throw UsageError("negative element count");
  const ByteRange s = type_.span(count);
  storage_.assign(static_cast<std::size_t>(s.end - s.begin), fill);
  origin_ = -s.begin;
}

void Buffer::for_each_leaf(const std::function<void(int, int, Basic, std::byte*)>& f) {
  const auto& tm = type_.typemap();
  for (int k = 0; k < count_; ++k)
    for (std::size_t j = 0; j < tm.size(); ++j)
      f(k, static_cast<int>(j), tm[j].type, element(k) + tm[j].disp);
}

void Buffer::for_each_leaf(const std::function<void(int, int, Basic, const std::byte*)>& f) const {
  const auto& tm = type_.typemap();
  for (int k = 0; k < count_; ++k)
    for (std::size_t j = 0; j < tm.size(); ++j)
      f(k, static_cast<int>(j), tm[j].type, element(k) + tm[j].disp);
}

void copy_elements(const Buffer& src, int src_first, Buffer& dst, int dst_first, int n) {
  if (!(src.type() == dst.type())) throw UsageError("copy_elements: datatypes differ");
  if (src_first < 0 || dst_first < 0 || src_first + n > src.count() || dst_first + n > dst.count())
    throw UsageError("copy_elements: element range out of bounds");
  const auto& tm = src.type().typemap();
  if (n > 0 && tm.size() == 1 && tm[0].disp == 0) {
    // One leaf without padding that fills the extent: the elements are one block.
    const LeafRanges lr = leaf_ranges(tm[0].type);
    if (lr.n == 1 && lr.r[0].begin == 0 && lr.r[0].end == src.type().extent()) {
      std::memcpy(dst.element(dst_first), src.element(src_first),
                  static_cast<std::size_t>(n) * static_cast<std::size_t>(lr.r[0].end));
      return;
    }
  }
  for (int k = 0; k < n; ++k)
    for (const Leaf& l : tm)
      for (const ByteRange& r : leaf_ranges(l.type))
        std::memcpy(dst.element(dst_first + k) + l.disp + r.begin,
                    src.element(src_first + k) + l.disp + r.begin,
                    static_cast<std::size_t>(r.end - r.begin));
}

Buffer convert(const Buffer& src, const Datatype& to) {
  const auto& a = src.type().typemap();
  const auto& b = to.typemap();
  if (a.size() != b.size())
    throw UsageError("convert: the datatypes have different type signatures");
  for (std::size_t j = 0; j < a.size(); ++j)
    if (a[j].type != b[j].type)
      throw UsageError("convert: the datatypes have different type signatures");
  Buffer dst(to, src.count());
  for (int k = 0; k < src.count(); ++k)
    for (std::size_t j = 0; j < a.size(); ++j)
      for (const ByteRange& r : leaf_ranges(a[j].type))
        std::memcpy(dst.element(k) + b[j].disp + r.begin, src.element(k) + a[j].disp + r.begin,
                    static_cast<std::size_t>(r.end - r.begin));
  return dst;
}

std::string value_bytes(const Buffer& b) {
  std::string out;
  const auto& tm = b.type().typemap();
  for (int k = 0; k < b.count(); ++k)
    for (const Leaf& l : tm)
      for (const ByteRange& r : significant_ranges(l.type))
        out.append(reinterpret_cast<const char*>(b.element(k) + l.disp + r.begin),
                   static_cast<std::size_t>(r.end - r.begin));
  return out;
}

std::string format_leaf(Basic b, const std::byte* p) {
  const BasicInfo& bi = info(b);
  if (bi.group == TypeGroup::pair)
    return "(" + format_scalar(bi.scalar, p) + ", idx " +
           format_scalar(bi.index_scalar, p + bi.index_offset) + ")";
  return format_scalar(bi.scalar, p);
}

Difference first_difference(const Buffer& expected, const Buffer& observed) {
  Difference d;
  if (expected.storage().size() != observed.storage().size() ||
      expected.origin() != observed.origin())
    throw UsageError("first_difference: buffers of different shapes");
  // Byte-identical buffers hold the same values and the same holes.
  if (expected.storage().empty() ||
      std::memcmp(expected.storage().data(), observed.storage().data(),
                  expected.storage().size()) == 0)
    return d;
  // Mark which bytes belong to the typemap, and compare values leaf by leaf.
  std::vector<char> is_data(expected.storage().size(), 0);
  const auto& tm = expected.type().typemap();
  for (int k = 0; k < expected.count(); ++k) {
    for (std::size_t j = 0; j < tm.size(); ++j) {
      const std::ptrdiff_t at = expected.origin() +
                                static_cast<std::ptrdiff_t>(k) * expected.type().extent() +
                                tm[j].disp;
      for (const ByteRange& r : leaf_ranges(tm[j].type))
        for (std::ptrdiff_t b = r.begin; b < r.end; ++b)
          is_data[static_cast<std::size_t>(at + b)] = 1;
      if (d.any) continue;
      if (same_floating_values(tm[j].type, expected.storage().data() + at,
                               observed.storage().data() + at))
        continue;
      for (const ByteRange& r : significant_ranges(tm[j].type)) {
        const std::byte* e = expected.storage().data() + at + r.begin;
        const std::byte* o = observed.storage().data() + at + r.begin;
        if (std::memcmp(e, o, static_cast<std::size_t>(r.end - r.begin)) != 0) {
          d.any = true;
          d.element = k;
          d.leaf = static_cast<int>(j);
          d.byte = at + r.begin - expected.origin();
          d.expected = format_leaf(tm[j].type, expected.storage().data() + at);
          d.observed = format_leaf(tm[j].type, observed.storage().data() + at);
          break;
        }
      }
    }
  }
  if (d.any) return d;
  for (std::size_t i = 0; i < is_data.size(); ++i) {
    if (is_data[i] || expected.storage()[i] == observed.storage()[i]) continue;
    char buf[64];
    d.any = true;
    d.in_hole = true;
    d.byte = static_cast<std::ptrdiff_t>(i) - expected.origin();
    std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(expected.storage()[i]));
    d.expected = buf;
    std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(observed.storage()[i]));
    d.observed = buf;
    return d;
  }
  return d;
}

}  // namespace ordo::ref

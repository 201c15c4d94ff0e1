// A buffer of `count` elements of a datatype, laid out in memory exactly as
// an MPI library sees it: data() is the address passed to MPI, and storage
// covers every byte the typemap can reach, holes included (a negative lower
// bound puts bytes before data()).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "ordo/reference/datatype.h"

namespace ordo::ref {

class Buffer {
 public:
  Buffer(Datatype dt, int count, std::byte fill = std::byte{0});

  std::byte* data() { return storage_.data() + origin_; }
  const std::byte* data() const { return storage_.data() + origin_; }
  const Datatype& type() const { return type_; }
  int count() const { return count_; }
  std::vector<std::byte>& storage() { return storage_; }
  const std::vector<std::byte>& storage() const { return storage_; }
  std::ptrdiff_t origin() const { return origin_; }

  // Address of element k (element 0 at data()).
  std::byte* element(int k) { return data() + static_cast<std::ptrdiff_t>(k) * type_.extent(); }
  const std::byte* element(int k) const {
    return data() + static_cast<std::ptrdiff_t>(k) * type_.extent();
  }

  // Visits every leaf of every element in typemap order.
  void for_each_leaf(const std::function<void(int element, int leaf, Basic, std::byte*)>& f);
  void for_each_leaf(
      const std::function<void(int element, int leaf, Basic, const std::byte*)>& f) const;

 private:
  Datatype type_;
  int count_;
  std::vector<std::byte> storage_;
  std::ptrdiff_t origin_;
};

// Copies the data bytes (never holes) of n elements: dst[dst_first..] = src[src_first..].
// Both buffers must have the same datatype.
void copy_elements(const Buffer& src, int src_first, Buffer& dst, int dst_first, int n);

// The same data in another layout: the values of src's leaves, read in
// typemap order (what a library reads from src), written into a buffer of
// datatype `to`, which must have the same type signature per element.
Buffer convert(const Buffer& src, const Datatype& to);

// Where two buffers of the same datatype first differ, by value (only the
// significant bytes of each scalar) inside the typemap, and by byte outside it.
struct Difference {
  bool any = false;
  bool in_hole = false;     // a byte outside the typemap changed
  int element = -1;         // element index (in_hole: -1)
  int leaf = -1;            // leaf index within the element
  std::ptrdiff_t byte = 0;  // offset from data() of the first differing byte
  std::string expected;     // formatted values
  std::string observed;
};
Difference first_difference(const Buffer& expected, const Buffer& observed);

// The bytes that carry value, leaf by leaf in typemap order (no holes, no
// long double padding): two buffers hold the same values iff these agree.
std::string value_bytes(const Buffer& b);

// Formats the value of one leaf ("-3", "0x1p-2", "(1, 2)", "(3.5, idx 4)").
std::string format_leaf(Basic b, const std::byte* p);

}  // namespace ordo::ref

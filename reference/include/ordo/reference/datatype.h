// The datatype model: typemaps built by the MPI type constructors
// (MPI-4.1 Chapter 5: contiguous, vector, hvector, indexed, hindexed,
// indexed_block, struct, resized, dup), with lb, ub, extent, true lb,
// true extent and size as the standard defines them.
//
// A typemap is a list of leaves (basic type, displacement). A pair type
// (MPI_DOUBLE_INT, ...) is one leaf: MINLOC/MAXLOC combine it as a unit, and
// its padding bytes are holes that must never be written.
//
// Datatypes are written in a small text form that round-trips:
//   MPI_INT
//   contiguous(3, MPI_DOUBLE)
//   vector(2, 1, 3, MPI_INT)                 count, blocklength, stride (elements)
//   hvector(2, 1, 24, MPI_INT)               stride in bytes
//   indexed([1,2], [0,4], MPI_INT)           blocklengths, displacements (elements)
//   hindexed([1,2], [0,16], MPI_INT)         displacements in bytes
//   indexed_block(2, [0,5], MPI_INT)
//   struct([1,1], [0,8], [MPI_INT, MPI_DOUBLE])
//   resized(-8, 32, MPI_INT)                 lb, extent in bytes
//   dup(MPI_INT)
//   value_index(MPI_DOUBLE,MPI_INT)          value type, index type
//
// value_index(V,I) is the pair type MPI_Type_get_value_index returns for a
// value type and an index type (MPI-4.1 Section 6.9.4, MINLOC and MAXLOC):
// a predefined datatype, so it is one pair leaf laid out as the C struct
// {V value; I index;}, the same typemap as the predefined pair type of those
// two types (value_index(MPI_DOUBLE,MPI_INT) is MPI_DOUBLE_INT's). The
// reference models the combinations of the six C pair types; for any other
// the standard lets a library return MPI_DATATYPE_NULL, and parse() rejects it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/reference/basic_types.h"

namespace ordo::ref {

struct Leaf {
  Basic type;
  std::ptrdiff_t disp;  // bytes from the buffer address of the element
};

// One byte range [begin, end) relative to an element's address.
struct ByteRange {
  std::ptrdiff_t begin;
  std::ptrdiff_t end;
};

class Datatype {
 public:
  static Datatype basic(Basic b);
  static Datatype contiguous(int count, const Datatype& old);
  static Datatype vector(int count, int blocklength, int stride, const Datatype& old);
  static Datatype hvector(int count, int blocklength, std::ptrdiff_t stride_bytes,
                          const Datatype& old);
  static Datatype indexed(const std::vector<int>& blocklengths, const std::vector<int>& displs,
                          const Datatype& old);
  static Datatype hindexed(const std::vector<int>& blocklengths,
                           const std::vector<std::ptrdiff_t>& displs_bytes, const Datatype& old);
  static Datatype indexed_block(int blocklength, const std::vector<int>& displs,
                                const Datatype& old);
  static Datatype struct_(const std::vector<int>& blocklengths,
                          const std::vector<std::ptrdiff_t>& displs_bytes,
                          const std::vector<Datatype>& types);
  static Datatype resized(std::ptrdiff_t lb, std::ptrdiff_t extent, const Datatype& old);
  static Datatype dup(const Datatype& old);
  // The pair type of MPI_Type_get_value_index(value, index); throws
  // ordo::ref::UsageError for a combination the reference does not model.
  static Datatype value_index(Basic value, Basic index);

  // Parses the text form above; throws ordo::ref::UsageError on a syntax error.
  static Datatype parse(std::string_view text);

  const std::vector<Leaf>& typemap() const { return node_->leaves; }
  std::ptrdiff_t lb() const { return node_->lb; }
  std::ptrdiff_t ub() const { return node_->ub; }
  std::ptrdiff_t extent() const { return node_->ub - node_->lb; }
  std::ptrdiff_t true_lb() const { return node_->true_lb; }
  std::ptrdiff_t true_ub() const { return node_->true_ub; }
  std::ptrdiff_t true_extent() const { return node_->true_ub - node_->true_lb; }
  std::size_t size() const { return node_->size; }
  std::size_t alignment() const { return node_->alignment; }
  // How one element lies in memory: "contiguous" (size = true extent =
  // extent), "holes" (gaps within the element, extent = true extent),
  // "padded" (extent > true extent: a gap between consecutive elements) or
  // "interleaved" (extent < true extent: consecutive elements interleave).
  const char* element_layout() const;
  const std::string& text() const { return node_->text; }

  // The constructor tree, for building the same type in an MPI library.
  enum class Kind {
    basic,
    contiguous,
    vector,
    hvector,
    indexed,
    hindexed,
    indexed_block,
    struct_,
    resized,
    dup,
    value_index  // children: the value type and the index type, both basic
  };
  Kind kind() const { return node_->kind; }
  Basic basic_type() const { return node_->basic; }             // kind == basic
  const std::vector<int>& ints() const { return node_->ints; }  // counts, blocklengths, ...
  const std::vector<std::ptrdiff_t>& addrs() const { return node_->addrs; }  // byte values
  const std::vector<Datatype>& children() const { return node_->children; }
  // A predefined datatype (a basic type or a value-index pair): what the
  // predefined ops take, and a handle that is never committed nor freed.
  bool predefined() const { return kind() == Kind::basic || kind() == Kind::value_index; }
  // Whether the datatype or any type it is made of is a value_index pair.
  bool uses_value_index() const;

  // The single basic type of every leaf, if there is one.
  bool homogeneous(Basic* b) const;
  // True for one basic type laid out densely (count elements are one array).
  bool is_contiguous_basic(Basic* b) const;
  // Byte ranges that hold data, for `count` elements, sorted by begin.
  std::vector<ByteRange> data_ranges(int count) const;
  // Whether two data bytes of `count` elements coincide (erroneous in a
  // receive buffer, allowed in a send buffer: MPI-4.1 Section 6.9.1).
  bool overlaps_itself(int count) const;
  // The bytes [lo, hi) relative to the buffer address spanned by `count` elements.
  ByteRange span(int count) const;

  bool operator==(const Datatype& o) const { return node_ == o.node_ || text() == o.text(); }

 private:
  struct Node {
    Kind kind = Kind::basic;
    Basic basic = Basic::INT;
    std::vector<int> ints;
    std::vector<std::ptrdiff_t> addrs;
    std::vector<Datatype> children;
    std::vector<Leaf> leaves;
    std::ptrdiff_t lb = 0, ub = 0, true_lb = 0, true_ub = 0;
    std::size_t size = 0;
    std::size_t alignment = 1;
    bool explicit_bounds = false;  // set by resized; sticky through constructors
    std::string text;
  };
  explicit Datatype(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  static Datatype build(Node n);
  std::shared_ptr<const Node> node_;
};

// At most two byte ranges, without a heap allocation (the per-leaf loops of
// the reference run over millions of leaves).
struct LeafRanges {
  ByteRange r[2] = {};
  int n = 0;
  const ByteRange* begin() const { return r; }
  const ByteRange* end() const { return r + n; }
  std::size_t size() const { return static_cast<std::size_t>(n); }
  const ByteRange& operator[](std::size_t i) const { return r[i]; }
};

// Leaf data byte ranges of one leaf at displacement 0 (two ranges for a pair).
LeafRanges leaf_ranges(Basic b);

}  // namespace ordo::ref

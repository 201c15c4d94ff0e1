#include "ordo/reference/datatype.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "ordo/reference/errors.h"

namespace ordo::ref {
namespace {

struct Block {
  std::ptrdiff_t disp;  // bytes
  int blocklength;      // elements of the old type
  const Datatype* old;
};

std::string join_ints(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
std::string join_addrs(const std::vector<std::ptrdiff_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

LeafRanges leaf_ranges(Basic b) {
  const BasicInfo& i = info(b);
  if (i.group != TypeGroup::pair) return {{{0, static_cast<std::ptrdiff_t>(i.size)}, {}}, 1};
  const std::ptrdiff_t vsize = static_cast<std::ptrdiff_t>(scalar_size(i.scalar));
  const std::ptrdiff_t ioff = static_cast<std::ptrdiff_t>(i.index_offset);
  return {{{0, vsize}, {ioff, ioff + static_cast<std::ptrdiff_t>(scalar_size(i.index_scalar))}}, 2};
}

Datatype Datatype::build(Node n) { return Datatype(std::make_shared<const Node>(std::move(n))); }

Datatype Datatype::basic(Basic b) {
  const BasicInfo& i = info(b);
  Node n;
  n.kind = Kind::basic;
  n.basic = b;
  n.leaves = {{b, 0}};
  n.lb = 0;
  n.ub = static_cast<std::ptrdiff_t>(i.extent);
  n.true_lb = 0;
  n.true_ub = 0;
  for (const ByteRange& r : leaf_ranges(b)) n.true_ub = std::max(n.true_ub, r.end);
  n.size = i.size;
  n.alignment = i.alignment;
  n.text = std::string(i.mpi_name);
  return build(std::move(n));
}

namespace {

// Fills leaves, bounds, size and alignment of a type made of blocks.
// marked[i]: block i's old type carries lb/ub markers (set by resized, and
// kept by every constructor that contains them: MPI-4.1 Section 5.1.6).
void layout(const std::vector<Block>& blocks, const std::vector<char>& marked, bool is_struct,
            std::ptrdiff_t& lb, std::ptrdiff_t& ub, std::ptrdiff_t& true_lb,
            std::ptrdiff_t& true_ub, std::size_t& size, std::size_t& alignment,
            bool& explicit_bounds, std::vector<Leaf>& leaves) {
  bool any = false, any_data = false;
  std::ptrdiff_t marked_lb = 0, marked_ub = 0;
  lb = ub = true_lb = true_ub = 0;
  size = 0;
  alignment = 1;
  explicit_bounds = false;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    const Datatype& old = *b.old;
    alignment = std::max(alignment, old.alignment());
    if (b.blocklength <= 0) continue;
    const std::ptrdiff_t ext = old.extent();
    const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(b.blocklength - 1) * ext;
    const std::ptrdiff_t blo = b.disp + old.lb() + std::min<std::ptrdiff_t>(0, last);
    const std::ptrdiff_t bhi = b.disp + old.ub() + std::max<std::ptrdiff_t>(0, last);
    if (!any) {
      lb = blo;
      ub = bhi;
      any = true;
    } else {
      lb = std::min(lb, blo);
      ub = std::max(ub, bhi);
    }
    if (marked[i]) {
      // With markers, lb and ub are those of the markers alone.
      marked_lb = explicit_bounds ? std::min(marked_lb, blo) : blo;
      marked_ub = explicit_bounds ? std::max(marked_ub, bhi) : bhi;
      explicit_bounds = true;
    }
    for (int j = 0; j < b.blocklength; ++j) {
      const std::ptrdiff_t base = b.disp + static_cast<std::ptrdiff_t>(j) * ext;
      for (const Leaf& l : old.typemap()) {
        leaves.push_back({l.type, base + l.disp});
        for (const ByteRange& r : leaf_ranges(l.type)) {
          if (!any_data) {
            true_lb = base + l.disp + r.begin;
            true_ub = base + l.disp + r.end;
            any_data = true;
          } else {
            true_lb = std::min(true_lb, base + l.disp + r.begin);
            true_ub = std::max(true_ub, base + l.disp + r.end);
          }
        }
      }
    }
    size += static_cast<std::size_t>(b.blocklength) * old.size();
  }
  if (explicit_bounds) {
    lb = marked_lb;
    ub = marked_ub;
  }
  // A struct's extent is padded to the alignment of its members unless a
  // member carries explicit bounds (MPI-4.1 Section 5.1.6, "epsilon").
  if (is_struct && any && !explicit_bounds) {
    const std::ptrdiff_t a = static_cast<std::ptrdiff_t>(alignment);
    const std::ptrdiff_t ext = ub - lb;
    if (ext % a) ub += a - ext % a;
  }
}

void check_count(int n, const char* what) {
  if (n < 0) throw UsageError(std::string(what) + ": negative count");
}

}  // namespace

#define ORDO_BUILD_BLOCKS(KIND, TEXT, IS_STRUCT, CHILDREN)                                 \
  Node n;                                                                                  \
  n.kind = KIND;                                                                           \
  n.children = CHILDREN;                                                                   \
  std::vector<char> marked;                                                                \
  for (const Block& b : blocks) marked.push_back(b.old->node_->explicit_bounds);           \
  layout(blocks, marked, IS_STRUCT, n.lb, n.ub, n.true_lb, n.true_ub, n.size, n.alignment, \
         n.explicit_bounds, n.leaves);                                                     \
  n.text = TEXT;

Datatype Datatype::hvector(int count, int blocklength, std::ptrdiff_t stride, const Datatype& old) {
  check_count(count, "hvector");
  check_count(blocklength, "hvector blocklength");
  std::vector<Block> blocks;
  for (int i = 0; i < count; ++i) blocks.push_back({i * stride, blocklength, &old});
  ORDO_BUILD_BLOCKS(Kind::hvector,
                    "hvector(" + std::to_string(count) + "," + std::to_string(blocklength) + "," +
                        std::to_string(stride) + "," + old.text() + ")",
                    false, {old});
  n.ints = {count, blocklength};
  n.addrs = {stride};
  return build(std::move(n));
}

Datatype Datatype::contiguous(int count, const Datatype& old) {
  check_count(count, "contiguous");
  std::vector<Block> blocks{{0, count, &old}};
  ORDO_BUILD_BLOCKS(Kind::contiguous,
                    "contiguous(" + std::to_string(count) + "," + old.text() + ")", false, {old});
  n.ints = {count};
  return build(std::move(n));
}

Datatype Datatype::vector(int count, int blocklength, int stride, const Datatype& old) {
  check_count(count, "vector");
  check_count(blocklength, "vector blocklength");
  std::vector<Block> blocks;
  for (int i = 0; i < count; ++i)
    blocks.push_back({static_cast<std::ptrdiff_t>(i) * stride * old.extent(), blocklength, &old});
  ORDO_BUILD_BLOCKS(Kind::vector,
                    "vector(" + std::to_string(count) + "," + std::to_string(blocklength) + "," +
                        std::to_string(stride) + "," + old.text() + ")",
                    false, {old});
  n.ints = {count, blocklength, stride};
  return build(std::move(n));
}

Datatype Datatype::indexed(const std::vector<int>& bls, const std::vector<int>& displs,
                           const Datatype& old) {
  if (bls.size() != displs.size())
    throw UsageError("indexed: blocklengths and displacements differ in length");
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < bls.size(); ++i) {
    check_count(bls[i], "indexed blocklength");
    blocks.push_back({static_cast<std::ptrdiff_t>(displs[i]) * old.extent(), bls[i], &old});
  }
  ORDO_BUILD_BLOCKS(Kind::indexed,
                    "indexed(" + join_ints(bls) + "," + join_ints(displs) + "," + old.text() + ")",
                    false, {old});
  n.ints = bls;
  n.ints.insert(n.ints.end(), displs.begin(), displs.end());
  return build(std::move(n));
}

Datatype Datatype::hindexed(const std::vector<int>& bls, const std::vector<std::ptrdiff_t>& displs,
                            const Datatype& old) {
  if (bls.size() != displs.size())
    throw UsageError("hindexed: blocklengths and displacements differ in length");
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < bls.size(); ++i) {
    check_count(bls[i], "hindexed blocklength");
    blocks.push_back({displs[i], bls[i], &old});
  }
  ORDO_BUILD_BLOCKS(
      Kind::hindexed,
      "hindexed(" + join_ints(bls) + "," + join_addrs(displs) + "," + old.text() + ")", false,
      {old});
  n.ints = bls;
  n.addrs = displs;
  return build(std::move(n));
}

Datatype Datatype::indexed_block(int bl, const std::vector<int>& displs, const Datatype& old) {
  check_count(bl, "indexed_block blocklength");
  std::vector<Block> blocks;
  for (int d : displs) blocks.push_back({static_cast<std::ptrdiff_t>(d) * old.extent(), bl, &old});
  ORDO_BUILD_BLOCKS(
      Kind::indexed_block,
      "indexed_block(" + std::to_string(bl) + "," + join_ints(displs) + "," + old.text() + ")",
      false, {old});
  n.ints = {bl};
  n.ints.insert(n.ints.end(), displs.begin(), displs.end());
  return build(std::move(n));
}

Datatype Datatype::struct_(const std::vector<int>& bls, const std::vector<std::ptrdiff_t>& displs,
                           const std::vector<Datatype>& types) {
  if (bls.size() != displs.size() || bls.size() != types.size())
    throw UsageError("struct: blocklengths, displacements and types differ in length");
  std::vector<Block> blocks;
  std::string tt = "[";
  for (std::size_t i = 0; i < bls.size(); ++i) {
    check_count(bls[i], "struct blocklength");
    blocks.push_back({displs[i], bls[i], &types[i]});
    tt += (i ? "," : "") + types[i].text();
  }
  tt += "]";
  ORDO_BUILD_BLOCKS(Kind::struct_,
                    "struct(" + join_ints(bls) + "," + join_addrs(displs) + "," + tt + ")", true,
                    types);
  n.ints = bls;
  n.addrs = displs;
  return build(std::move(n));
}

#undef ORDO_BUILD_BLOCKS

Datatype Datatype::resized(std::ptrdiff_t lb, std::ptrdiff_t extent, const Datatype& old) {
  Node n = *old.node_;
  n.kind = Kind::resized;
  n.children = {old};
  n.ints.clear();
  n.addrs = {lb, extent};
  n.lb = lb;
  n.ub = lb + extent;
  n.explicit_bounds = true;
  n.text = "resized(" + std::to_string(lb) + "," + std::to_string(extent) + "," + old.text() + ")";
  return build(std::move(n));
}

const char* Datatype::element_layout() const {
  if (extent() < true_extent()) return "interleaved";
  if (extent() > true_extent()) return "padded";
  if (static_cast<std::ptrdiff_t>(size()) < true_extent()) return "holes";
  return "contiguous";
}

Datatype Datatype::dup(const Datatype& old) {
  Node n = *old.node_;
  n.kind = Kind::dup;
  n.children = {old};
  n.ints.clear();
  n.addrs.clear();
  n.text = "dup(" + old.text() + ")";
  return build(std::move(n));
}

Datatype Datatype::value_index(Basic value, Basic index) {
  const std::string text = "value_index(" + std::string(info(value).mpi_name) + "," +
                           std::string(info(index).mpi_name) + ")";
  const std::optional<Basic> pair = value_index_pair(value, index);
  if (!pair)
    throw UsageError(text +
                     ": the reference models the value-index pairs of the C pair types only "
                     "(MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, "
                     "MPI_LONG_DOUBLE_INT)");
  // The pair type's own layout: one pair leaf, the bounds of the C struct.
  Node n = *basic(*pair).node_;
  n.kind = Kind::value_index;
  n.children = {basic(value), basic(index)};
  n.text = text;
  return build(std::move(n));
}

bool Datatype::uses_value_index() const {
  if (kind() == Kind::value_index) return true;
  for (const Datatype& c : children())
    if (c.uses_value_index()) return true;
  return false;
}

bool Datatype::homogeneous(Basic* b) const {
  const auto& l = typemap();
  if (l.empty()) return false;
  for (const Leaf& x : l)
    if (x.type != l[0].type) return false;
  if (b) *b = l[0].type;
  return true;
}

bool Datatype::is_contiguous_basic(Basic* b) const {
  Basic t;
  if (!homogeneous(&t)) return false;
  const std::ptrdiff_t e = static_cast<std::ptrdiff_t>(info(t).extent);
  const auto& l = typemap();
  for (std::size_t i = 0; i < l.size(); ++i)
    if (l[i].disp != static_cast<std::ptrdiff_t>(i) * e) return false;
  if (extent() != static_cast<std::ptrdiff_t>(l.size()) * e || lb() != 0) return false;
  if (b) *b = t;
  return true;
}

std::vector<ByteRange> Datatype::data_ranges(int count) const {
  std::vector<ByteRange> out;
  for (int k = 0; k < count; ++k) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(k) * extent();
    for (const Leaf& l : typemap())
      for (const ByteRange& r : leaf_ranges(l.type))
        out.push_back({base + l.disp + r.begin, base + l.disp + r.end});
  }
  std::sort(out.begin(), out.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  return out;
}

bool Datatype::overlaps_itself(int count) const {
  if (count <= 0 || typemap().empty()) return false;
  const auto one = data_ranges(1);
  for (std::size_t i = 1; i < one.size(); ++i)
    if (one[i].begin < one[i - 1].end) return true;
  std::ptrdiff_t hi = one.front().end;
  for (const ByteRange& x : one) hi = std::max(hi, x.end);
  // Copies k = 0..count-1 lie in windows [lo + k*extent, hi + k*extent): when
  // a window is no wider than the extent, no two copies meet.
  if (count == 1 || hi - one.front().begin <= std::abs(extent())) return false;
  // Copies lie |extent| apart: range a of one copy meets range b of another
  // d copies away (0 < |d| < count) when b.begin - a.end < d * e < b.end -
  // a.begin. Checked per pair of one element's ranges, not over the count's
  // sorted ranges (the crossing validates interleaved types of 65536
  // elements thousands of times).
  const std::ptrdiff_t e = std::abs(extent());
  if (e == 0) return true;  // every copy on the same bytes
  if (one.size() <= 256) {
    auto floor_div = [](std::ptrdiff_t a, std::ptrdiff_t b) {
      return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
    };
    const std::ptrdiff_t n = count - 1;
    for (const ByteRange& a : one)
      for (const ByteRange& b : one) {
        const std::ptrdiff_t from = std::max(floor_div(b.begin - a.end, e) + 1, -n);
        const std::ptrdiff_t to = std::min(-floor_div(a.begin - b.end, e) - 1, n);
        if (from <= to && (from != 0 || to != 0)) return true;
      }
    return false;
  }
  const auto r = data_ranges(count);
  for (std::size_t i = 1; i < r.size(); ++i)
    if (r[i].begin < r[i - 1].end) return true;
  return false;
}

ByteRange Datatype::span(int count) const {
  if (count <= 0 || typemap().empty()) return {0, 0};
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(count - 1) * extent();
  return {true_lb() + std::min<std::ptrdiff_t>(0, last),
          true_ub() + std::max<std::ptrdiff_t>(0, last)};
}

// ---- Parser ------------------------------------------------------------------

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Datatype parse_all() {
    Datatype t = type();
    skip_ws();
    if (i_ != s_.size()) fail("unexpected text after the datatype");
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw UsageError("datatype '" + std::string(s_) + "': " + what + " at offset " +
                     std::to_string(i_));
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skip_ws();
    if (i_ >= s_.size() || s_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool peek(char c) {
    skip_ws();
    return i_ < s_.size() && s_[i_] == c;
  }
  std::string ident() {
    skip_ws();
    std::size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
      ++i_;
    if (b == i_) fail("expected a name");
    return std::string(s_.substr(b, i_ - b));
  }
  long long integer() {
    skip_ws();
    std::size_t b = i_;
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (b == i_ || (i_ == b + 1 && !std::isdigit(static_cast<unsigned char>(s_[b]))))
      fail("expected an integer");
    try {
      return std::stoll(std::string(s_.substr(b, i_ - b)));
    } catch (...) {
      fail("integer out of range");
    }
  }
  int int32() {
    long long v = integer();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      fail("integer out of range");
    return static_cast<int>(v);
  }
  std::vector<int> int_list() {
    std::vector<int> v;
    expect('[');
    if (!peek(']')) {
      v.push_back(int32());
      while (peek(',')) {
        expect(',');
        v.push_back(int32());
      }
    }
    expect(']');
    return v;
  }
  std::vector<std::ptrdiff_t> addr_list() {
    std::vector<std::ptrdiff_t> v;
    expect('[');
    if (!peek(']')) {
      v.push_back(integer());
      while (peek(',')) {
        expect(',');
        v.push_back(integer());
      }
    }
    expect(']');
    return v;
  }
  std::vector<Datatype> type_list() {
    std::vector<Datatype> v;
    expect('[');
    if (!peek(']')) {
      v.push_back(type());
      while (peek(',')) {
        expect(',');
        v.push_back(type());
      }
    }
    expect(']');
    return v;
  }

  Datatype type() {
    const std::string name = ident();
    if (name.rfind("MPI_", 0) == 0) {
      auto b = basic_from_name(name);
      if (!b) fail("unknown basic datatype " + name);
      return Datatype::basic(*b);
    }
    expect('(');
    Datatype out = Datatype::basic(Basic::INT);
    if (name == "contiguous") {
      int c = int32();
      expect(',');
      out = Datatype::contiguous(c, type());
    } else if (name == "vector" || name == "hvector") {
      int c = int32();
      expect(',');
      int bl = int32();
      expect(',');
      // vector's stride counts elements (an int); hvector's counts bytes.
      long long st = name == "vector" ? int32() : integer();
      expect(',');
      Datatype old = type();
      out = name == "vector" ? Datatype::vector(c, bl, static_cast<int>(st), old)
                             : Datatype::hvector(c, bl, st, old);
    } else if (name == "indexed") {
      auto bl = int_list();
      expect(',');
      auto d = int_list();
      expect(',');
      out = Datatype::indexed(bl, d, type());
    } else if (name == "hindexed") {
      auto bl = int_list();
      expect(',');
      auto d = addr_list();
      expect(',');
      out = Datatype::hindexed(bl, d, type());
    } else if (name == "indexed_block") {
      int bl = int32();
      expect(',');
      auto d = int_list();
      expect(',');
      out = Datatype::indexed_block(bl, d, type());
    } else if (name == "struct") {
      auto bl = int_list();
      expect(',');
      auto d = addr_list();
      expect(',');
      out = Datatype::struct_(bl, d, type_list());
    } else if (name == "resized") {
      long long lb = integer();
      expect(',');
      long long ext = integer();
      expect(',');
      out = Datatype::resized(lb, ext, type());
    } else if (name == "dup") {
      out = Datatype::dup(type());
    } else if (name == "value_index") {
      const Datatype value = type();
      expect(',');
      const Datatype index = type();
      if (value.kind() != Datatype::Kind::basic || index.kind() != Datatype::Kind::basic)
        fail("value_index takes two basic datatypes");
      out = Datatype::value_index(value.basic_type(), index.basic_type());
    } else {
      fail("unknown constructor " + name);
    }
    expect(')');
    return out;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

// A datatype is immutable (its node is shared and const), so the datatype of
// a text is parsed once: a case's datatype is parsed by each step that
// needs it (validation, the plan, the error bound, the judgement), and the
// crossing check validates a hundred thousand calls over a dozen texts.
// Malformed texts are not kept (each parse throws again); at most 4096
// texts are kept (property tests make many), then the table starts afresh.
Datatype Datatype::parse(std::string_view text) {
  static std::mutex mutex;
  static std::unordered_map<std::string, Datatype> parsed;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = parsed.find(std::string(text)); it != parsed.end()) return it->second;
  }
  Datatype dt = Parser(text).parse_all();
  const std::lock_guard<std::mutex> lock(mutex);
  if (parsed.size() >= 4096) parsed.clear();
  parsed.emplace(std::string(text), dt);
  return dt;
}

}  // namespace ordo::ref

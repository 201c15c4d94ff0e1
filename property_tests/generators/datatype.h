// gen_derived_datatype: random derived datatypes of depth <= 3 for the
// witness ops: every element holds whole cells of four 4-byte integers
// (ordo/reference/witness.h), laid out with holes, negative lower bounds,
// padding (resized), displacements out of typemap order, elements that
// interleave with their neighbours (an extent below the true extent) and
// large elements (more bytes than the library's pipeline chunk or segment:
// ordo::ref::crossing::element_bytes(), which the harness takes from
// --ordo-element-bytes); shrinking leads towards small elements apart.
// Built with the reference's own constructors; the text form is what a case
// carries. Self-overlap over the count is rejected by the case generator
// (ordo::ref::validate_case), not here.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "basics.h"
#include "ordo/reference/crossing.h"
#include "ordo/reference/datatype.h"

namespace ordo::props {

namespace detail {

// A permutation of v drawn element by element (shrinks towards v's order).
inline std::vector<int> draw_permutation(std::vector<int> v) {
  std::vector<int> out;
  while (!v.empty()) {
    const int i = *rc::gen::inRange(0, static_cast<int>(v.size()));
    out.push_back(v[static_cast<std::size_t>(i)]);
    v.erase(v.begin() + i);
  }
  return out;
}

inline ref::Basic draw_cell_leaf() {
  return *pick<ref::Basic>({{4, ref::Basic::INT},
                            {1, ref::Basic::INT32_T},
                            {1, ref::Basic::UNSIGNED},
                            {1, ref::Basic::UINT32_T}});
}

// A datatype of exactly four int leaves (one cell).
inline ref::Datatype draw_cell() {
  using D = ref::Datatype;
  const D b = D::basic(draw_cell_leaf());
  switch (*pick<int>({{3, 0}, {2, 1}, {2, 2}, {2, 3}, {1, 4}})) {
    case 0:
      return D::contiguous(4, b);
    case 1:
      return D::vector(2, 2, *rc::gen::inRange(2, 5), b);  // holes between the blocks
    case 2: {  // interleaved: the cell's leaves in a shuffled order in memory
      std::vector<int> d = draw_permutation({0, 1, 2, 3});
      const int gap = *rc::gen::inRange(1, 3);
      for (int& x : d) x *= gap;
      return D::indexed_block(1, d, b);
    }
    case 3: {  // struct with byte displacements, possibly negative
      std::vector<int> slots = draw_permutation({0, 1, 2, 3, -2, -1, 4, 5});
      std::vector<std::ptrdiff_t> d;
      for (int i = 0; i < 4; ++i) d.push_back(4 * slots[static_cast<std::size_t>(i)]);
      return D::struct_({1, 1, 1, 1}, d, {b, b, b, b});
    }
    default: {
      const int g = *rc::gen::inRange(0, 3);
      return D::indexed({1, 3}, {0, 1 + g}, b);
    }
  }
}

inline ref::Datatype draw_type(int depth) {
  using D = ref::Datatype;
  if (depth <= 1) return draw_cell();
  const int kind =
      *pick<int>({{4, -1}, {2, 0}, {2, 1}, {2, 2}, {2, 3}, {1, 4}, {1, 5}, {2, 6}, {3, 7}, {3, 8}});
  if (kind == -1) return draw_cell();
  const D t = draw_type(depth - 1);
  const std::ptrdiff_t ext = t.extent();
  switch (kind) {
    case 0:
      return D::contiguous(*rc::gen::inRange(1, 4), t);
    case 1: {
      const int bl = *rc::gen::inRange(1, 3);
      return D::vector(*rc::gen::inRange(1, 4), bl, bl + *rc::gen::inRange(0, 3), t);
    }
    case 2: {
      const int bl = *rc::gen::inRange(1, 3);
      return D::hvector(*rc::gen::inRange(1, 3), bl, bl * ext + 4 * *rc::gen::inRange(0, 4), t);
    }
    case 3: {  // two blocks, the second before the first in memory
      const int b0 = *rc::gen::inRange(1, 3), b1 = *rc::gen::inRange(1, 3);
      const int gap = *rc::gen::inRange(0, 2);
      return D::indexed({b0, b1}, {b1 + gap, 0}, t);
    }
    case 4: {
      const int gap = *rc::gen::inRange(1, 3);
      return D::indexed_block(1, {gap, 0}, t);
    }
    case 5: {  // struct of this type and a fresh cell, interleaved
      const D cell = draw_cell();
      const std::ptrdiff_t pad = 4 * *rc::gen::inRange(0, 3);
      return D::struct_({1, 1}, {cell.true_ub() - t.true_lb() + pad, 0}, {t, cell});
    }
    case 7: {
      // Interleaved: two copies of this type an odd multiple of its true
      // extent w apart, in an extent of 2w from its true lb. Modulo the
      // extent the first copy's bytes lie in [0, w) and the second's in
      // [w, 2w): no two data bytes of any number of elements coincide (a
      // receive datatype must not overlap itself), while each element's
      // second copy lies among the first copies of the elements after it.
      const std::ptrdiff_t w = t.true_extent();
      const std::ptrdiff_t apart = w * (2 * *rc::gen::inRange(1, 4) + 1);
      return D::resized(t.true_lb(), 2 * w, D::hindexed({1, 1}, {0, apart}, t));
    }
    case 8: {
      // A large element: enough copies of this type that the elements' data
      // spans more than the library's chunk; shrinks towards a few copies.
      const bool large = *pick<bool>({{1, false}, {2, true}});
      if (!large || ext <= 0) return D::contiguous(*rc::gen::inRange(1, 4), t);
      const std::ptrdiff_t want = static_cast<std::ptrdiff_t>(ref::crossing::element_bytes());
      return D::contiguous(static_cast<int>((want + ext - 1) / ext + 1), t);
    }
    default: {  // resized: negative lb and trailing padding, never shorter than the data
      const std::ptrdiff_t lb = t.true_lb() - 4 * *rc::gen::inRange(0, 3);
      const std::ptrdiff_t extent = (t.true_ub() - lb) + 4 * *rc::gen::inRange(0, 3);
      return D::resized(lb, extent, t);
    }
  }
}

}  // namespace detail

// The text form of a derived datatype of 4-int cells, depth 1..max_depth.
inline rc::Gen<std::string> gen_derived_datatype(int max_depth = 3) {
  return rc::gen::exec([max_depth] { return detail::draw_type(max_depth).text(); });
}

}  // namespace ordo::props

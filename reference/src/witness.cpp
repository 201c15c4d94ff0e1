#include "ordo/reference/witness.h"

#include <cstring>

#include "ordo/reference/errors.h"

namespace ordo::ref::witness {
namespace {

static_assert(sizeof(Cell) == 4 * sizeof(std::int32_t), "a cell is 4 integers, no padding");

bool is_cell_leaf(Basic b) {
  const BasicInfo& i = info(b);
  return i.group != TypeGroup::pair && i.size == 4 &&
         (scalar_is_integer(i.scalar) && i.scalar != Scalar::f32);
}

// Two ranks in one int32 (a fault's operands); wraps modulo 2^32 rather than
// overflowing when a cell holds something other than ranks.
std::int32_t pack(std::int32_t lo, std::int32_t hi) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(lo) * 65536u +
                                   static_cast<std::uint32_t>(hi));
}

// The byte offsets of an element's cells: leaf j of cell j / 4 at disp[j].
// Only whole cells count (check_datatype refuses the rest).
std::vector<std::ptrdiff_t> cell_disps(const Datatype& dt) {
  const auto& tm = dt.typemap();
  std::vector<std::ptrdiff_t> disp(tm.size() / 4 * 4);
  for (std::size_t j = 0; j < disp.size(); ++j) disp[j] = tm[j].disp;
  return disp;
}

// Applies f to each cell of len elements, cell by cell (a kernel runs once
// per call of the user function: it reads and writes through the typemap
// with no allocation per element).
template <class F>
void each_cell(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt, F f) {
  const std::vector<std::ptrdiff_t> disp = cell_disps(dt);
  const std::ptrdiff_t extent = dt.extent();
  // Cells packed from byte 0 with no gap between elements
  // (contiguous(4,MPI_INT)): one run of 4-integer cells.
  bool packed = extent == static_cast<std::ptrdiff_t>(disp.size()) * 4;
  for (std::size_t j = 0; packed && j < disp.size(); ++j)
    packed = disp[j] == static_cast<std::ptrdiff_t>(j) * 4;
  if (packed) {
    const std::size_t cells = static_cast<std::size_t>(len) * disp.size() / 4;
    for (std::size_t n = 0; n < cells; ++n) {
      Cell a, b;
      std::memcpy(a.v, invec + n * sizeof(Cell), sizeof(Cell));
      std::memcpy(b.v, inoutvec + n * sizeof(Cell), sizeof(Cell));
      const Cell r = f(a, b);
      std::memcpy(inoutvec + n * sizeof(Cell), r.v, sizeof(Cell));
    }
    return;
  }
  for (int k = 0; k < len; ++k) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(k) * extent;
    for (std::size_t j = 0; j < disp.size(); j += 4) {
      Cell a, b;
      for (std::size_t i = 0; i < 4; ++i) {
        std::memcpy(&a.v[i], invec + base + disp[j + i], 4);
        std::memcpy(&b.v[i], inoutvec + base + disp[j + i], 4);
      }
      const Cell r = f(a, b);
      for (std::size_t i = 0; i < 4; ++i) std::memcpy(inoutvec + base + disp[j + i], &r.v[i], 4);
    }
  }
}

}  // namespace

void check_datatype(const Datatype& dt) {
  const auto& tm = dt.typemap();
  if (tm.empty() || tm.size() % 4 != 0)
    throw SemanticsError("user-op.witness-datatype",
                         "witness ops need elements of whole 4-integer cells; " + dt.text() +
                             " has " + std::to_string(tm.size()) + " leaves");
  for (const Leaf& l : tm)
    if (!is_cell_leaf(l.type))
      throw SemanticsError("user-op.witness-datatype", "witness ops need 4-byte integer leaves; " +
                                                           dt.text() + " has " +
                                                           std::string(info(l.type).mpi_name));
}

std::vector<Cell> read_cells(const std::byte* element, const Datatype& dt) {
  const auto& tm = dt.typemap();
  std::vector<Cell> out(tm.size() / 4);
  for (std::size_t j = 0; j < out.size() * 4; ++j)
    std::memcpy(&out[j / 4].v[j % 4], element + tm[j].disp, 4);
  return out;
}

void write_cells(std::byte* element, const Datatype& dt, const std::vector<Cell>& cells) {
  const auto& tm = dt.typemap();
  for (std::size_t j = 0; j < cells.size() * 4; ++j)
    std::memcpy(element + tm[j].disp, &cells[j / 4].v[j % 4], 4);
}

void tracer(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt) {
  each_cell(invec, inoutvec, len, dt, [](const Cell& a, const Cell& b) {
    if (a.v[0] == kPoisoned) return a;  // keep the first (leftmost) fault
    if (b.v[0] == kPoisoned) return b;
    if (a.v[0] >= 0 && b.v[0] >= 0 && b.v[0] == a.v[1] + 1)
      return Cell{{a.v[0], b.v[1], kNoFault, kNoFault}};
    return Cell{{kPoisoned, kPoisoned, pack(a.v[0], a.v[1]), pack(b.v[0], b.v[1])}};
  });
}

void matrix(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt) {
  each_cell(invec, inoutvec, len, dt, [](const Cell& a, const Cell& b) {
    // [a0 a1; a2 a3] x [b0 b1; b2 b3] modulo 2^32
    auto u = [](std::int32_t x) { return static_cast<std::uint32_t>(x); };
    auto s = [](std::uint32_t x) { return static_cast<std::int32_t>(x); };
    return Cell{{s(u(a.v[0]) * u(b.v[0]) + u(a.v[1]) * u(b.v[2])),
                 s(u(a.v[0]) * u(b.v[1]) + u(a.v[1]) * u(b.v[3])),
                 s(u(a.v[2]) * u(b.v[0]) + u(a.v[3]) * u(b.v[2])),
                 s(u(a.v[2]) * u(b.v[1]) + u(a.v[3]) * u(b.v[3]))}};
  });
}

void sum_i32(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt) {
  each_cell(invec, inoutvec, len, dt, [](const Cell& a, const Cell& b) {
    Cell c;
    for (int i = 0; i < 4; ++i)
      c.v[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(a.v[i]) +
                                         static_cast<std::uint32_t>(b.v[i]));
    return c;
  });
}

bool is_tracer(const std::string& name) {
  return name == "witness.tracer" || name == "witness.tracer-c";
}

bool is_witness(const std::string& name) {
  return name == "witness.tracer" || name == "witness.tracer-c" || name == "witness.matrix" ||
         name == "witness.sum-declared-noncommutative" || name == "witness.recorder" ||
         name == "witness.multiset";
}

Op make(const std::string& name) {
  // witness.tracer-c: the same function, made by MPI_Op_create_c (its len
  // argument an MPI_Count): the reference's result is the same.
  if (is_tracer(name)) return Op::user(name, tracer, false);
  if (name == "witness.matrix") return Op::user(name, matrix, false);
  if (name == "witness.sum-declared-noncommutative" || name == "witness.recorder")
    return Op::user(name, sum_i32, false);
  if (name == "witness.multiset") return Op::user(name, sum_i32, true);
  throw UsageError("unknown witness op '" + name + "'");
}

Trace trace(const Cell& c, int expected_lo, int expected_hi) {
  Trace t;
  t.expected[0] = expected_lo;
  t.expected[1] = expected_hi;
  if (c.v[0] == kPoisoned) {
    t.invec[0] = c.v[2] / 65536;
    t.invec[1] = c.v[2] % 65536;
    t.inoutvec[0] = c.v[3] / 65536;
    t.inoutvec[1] = c.v[3] % 65536;
    t.kind = t.inoutvec[0] <= t.invec[1]
                 ? (t.inoutvec[1] < t.invec[0] ? Trace::Kind::swapped : Trace::Kind::overlapping)
                 : Trace::Kind::gap;
    return t;
  }
  t.covers[0] = c.v[0];
  t.covers[1] = c.v[1];
  t.kind = c.v[0] == expected_lo && c.v[1] == expected_hi ? Trace::Kind::in_order
                                                          : Trace::Kind::wrong_cover;
  return t;
}

const char* trace_kind_name(Trace::Kind k) {
  switch (k) {
    case Trace::Kind::in_order:
      return "in_order";
    case Trace::Kind::swapped:
      return "swapped";
    case Trace::Kind::overlapping:
      return "overlapping";
    case Trace::Kind::gap:
      return "gap";
    case Trace::Kind::wrong_cover:
      return "wrong_cover";
  }
  return "?";
}

const char* trace_why(Trace::Kind k) {
  switch (k) {
    case Trace::Kind::swapped:
      return "operands swapped";
    case Trace::Kind::overlapping:
      return "overlapping operands";
    case Trace::Kind::gap:
      return "a gap between the operands";
    default:
      return "";
  }
}

std::string explain(const Trace& t) {
  auto range = [](const std::int32_t r[2]) {
    return r[0] == r[1] ? "rank " + std::to_string(r[0])
                        : "ranks " + std::to_string(r[0]) + ".." + std::to_string(r[1]);
  };
  switch (t.kind) {
    case Trace::Kind::swapped:
    case Trace::Kind::overlapping:
    case Trace::Kind::gap:
      return "first wrong combine: invec = " + range(t.invec) +
             ", inoutvec = " + range(t.inoutvec) + " (" + trace_why(t.kind) + ")";
    case Trace::Kind::in_order:
      return range(t.covers) + " in order";
    case Trace::Kind::wrong_cover:
      return "covers " + range(t.covers) + " instead of " + range(t.expected);
  }
  return "";
}

std::string explain_tracer(const Cell& c, int expected_lo, int expected_hi) {
  return explain(trace(c, expected_lo, expected_hi));
}

namespace {
Cell lane_diff(const Cell& a, const Cell& b) {  // a - b, lane by lane, wrapping
  Cell d;
  for (int i = 0; i < 4; ++i)
    d.v[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(a.v[i]) -
                                       static_cast<std::uint32_t>(b.v[i]));
  return d;
}
bool same_cell(const Cell& a, const Cell& b) { return std::memcmp(a.v, b.v, sizeof a.v) == 0; }
Cell negated(const Cell& a) { return lane_diff(Cell{{0, 0, 0, 0}}, a); }
}  // namespace

std::string explain_multiset(const Cell& observed, const Cell& expected, int element, int cell,
                             const std::vector<Contribution>& contributions) {
  const Cell d = lane_diff(observed, expected);
  auto name = [](const Contribution& c) {
    return "rank " + std::to_string(c.rank) + (c.group ? " of the second group" : "");
  };
  const auto at = [&](const Contribution& c, int k) -> const Cell* {
    if (k < 0 || static_cast<std::size_t>(k) >= c.elements.size()) return nullptr;
    const auto& cells = c.elements[static_cast<std::size_t>(k)];
    return static_cast<std::size_t>(cell) < cells.size() ? &cells[static_cast<std::size_t>(cell)]
                                                         : nullptr;
  };
  for (const Contribution& c : contributions) {
    const Cell* own = at(c, element);
    if (!own) continue;
    if (c.expected && same_cell(d, negated(*own)))
      return "the contribution of " + name(c) + " is missing";
    if (same_cell(d, *own))
      return "the contribution of " + name(c) +
             (c.expected ? " is counted twice" : " is counted although it must not be");
  }
  for (const Contribution& c : contributions) {
    const Cell* own = at(c, element);
    if (!own || !c.expected) continue;
    for (std::size_t k = 0; k < c.elements.size(); ++k) {
      const Cell* other = at(c, static_cast<int>(k));
      if (other && static_cast<int>(k) != element && same_cell(d, lane_diff(*other, *own)))
        return name(c) + "'s element " + std::to_string(k) +
               " was combined in place of its element " + std::to_string(element);
    }
  }
  return "";
}

}  // namespace ordo::ref::witness

// Named RapidCheck generators of the pieces of a case: routines, modes,
// predefined op x type pairs (from the reference's validity table), witness
// ops, counts biased to the edges, communicator shapes and roots.
//
// Every generator depends only on the world size, never on the rank, so
// every rank draws the same values from the same seed (lockstep).
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "comm_zoo.h"
#include "harness.h"
#include "ordo/reference/basic_types.h"
#include "ordo/reference/case.h"
#include "ordo/reference/op.h"
#include "ordo/reference/oracle.h"
#include "thresholds.h"

namespace ordo::props {

using ref::Mode;
using ref::Routine;

// One of `items`, drawn by weight; shrinks towards the earlier items (list
// the simplest first). RapidCheck's elementOf / weightedElement do not shrink.
template <class T>
rc::Gen<T> pick(std::vector<std::pair<int, T>> items) {
  // Shared, not copied: a generator and each of its shrinkables hold the list.
  auto list = std::make_shared<const std::vector<std::pair<int, T>>>(std::move(items));
  int total = 0;
  for (const auto& i : *list) total += i.first;
  return rc::Gen<T>([list, total](const rc::Random& random, int) {
    rc::Random r = random;
    int x = static_cast<int>(r.next() % static_cast<std::uint64_t>(total));
    int idx = 0;
    while (x >= (*list)[static_cast<std::size_t>(idx)].first)
      x -= (*list)[static_cast<std::size_t>(idx++)].first;
    auto s = rc::shrinkable::shrinkRecur(idx, [](int i) { return rc::shrink::towards(i, 0); });
    return rc::shrinkable::map(
        std::move(s), [list](int i) { return (*list)[static_cast<std::size_t>(i)].second; });
  });
}

// A generator whose values shrink towards 0 whatever branch drew them.
inline rc::Gen<int> shrinking_to_zero(rc::Gen<int> g) {
  return rc::Gen<int>([g](const rc::Random& random, int size) {
    const int v = g(random, size).value();
    return rc::shrinkable::shrinkRecur(v, [](int x) { return rc::shrink::towards(x, 0); });
  });
}

// The collective reduce-family routines (the local ones run on "self").
// The six collectives, then the local reductions (MPI_Reduce_local and the
// proposed MPI_Reduce_locals), which take no communicator.
inline rc::Gen<Routine> gen_routine() {
  return pick<Routine>({{3, Routine::allreduce},
                        {3, Routine::reduce},
                        {2, Routine::scan},
                        {2, Routine::exscan},
                        {2, Routine::reduce_scatter_block},
                        {2, Routine::reduce_scatter},
                        {1, Routine::reduce_local},
                        {1, Routine::reduce_locals}});
}

// Blocking first, so that shrinking ends on the blocking form.
inline rc::Gen<Mode> gen_mode() {
  return pick<Mode>({{6, Mode::blocking}, {3, Mode::nonblocking}, {2, Mode::persistent}});
}

struct OpAndType {
  std::string op;
  std::string type;
};

// The (op, type) pairs the reference's table allows (ordo::ref::validity),
// without REPLACE / NO_OP (not reduction ops) and without the pair types
// that a library may lack. Sums and MPI_INT come first for shrinking.
inline const std::vector<OpAndType>& valid_predefined_pairs() {
  static const std::vector<OpAndType> v = [] {
    std::vector<OpAndType> out;
    for (int o = 0; o < ref::kPredefinedOpCount; ++o) {
      const auto op = static_cast<ref::PredefinedOp>(o);
      if (op == ref::PredefinedOp::REPLACE || op == ref::PredefinedOp::NO_OP) continue;
      for (int b = 0; b < ref::kBasicCount; ++b) {
        const auto t = static_cast<ref::Basic>(b);
        if (!ref::validity(op, t).valid) continue;
        out.push_back({std::string(ref::op_name(op)), std::string(ref::info(t).mpi_name)});
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const OpAndType& a, const OpAndType& b) {
      auto rank = [](const OpAndType& x) {
        return (x.op == "MPI_SUM" ? 0 : 2) + (x.type == "MPI_INT" ? 0 : 1);
      };
      return rank(a) < rank(b);
    });
    return out;
  }();
  return v;
}

inline rc::Gen<OpAndType> gen_predefined_op_and_type() {
  static const rc::Gen<OpAndType> gen = [] {  // built once: the table has hundreds of pairs
    std::vector<std::pair<int, OpAndType>> items;
    for (const auto& p : valid_predefined_pairs()) items.push_back({1, p});
    return pick(items);
  }();
  return gen;
}

// Witness user ops (ordo/reference/witness.h): exactly associative and
// non-commutative (tracer, matrix; tracer-c is the tracer made by
// MPI_Op_create_c, a large-count user function), commutative but declared
// non-commutative, or commutative and declared so (multiset: the result
// names every contribution). They need datatypes of whole 4-int cells.
inline rc::Gen<std::string> gen_witness_op() {
  return pick<std::string>({{4, "witness.tracer"},
                            {3, "witness.matrix"},
                            {2, "witness.sum-declared-noncommutative"},
                            {2, "witness.multiset"},
                            {1, "witness.tracer-c"}});
}

// Counts: 0, 1, small, and just around the library's thresholds for
// elements of `element_size` bytes (ordo::harness::boundary_counts, from the
// vendor adapter), capped at max_count.
inline rc::Gen<int> gen_count(std::size_t element_size, int max_count = 1 << 15) {
  std::vector<int> edges =
      harness::boundary_counts(std::max<std::size_t>(1, element_size), {}, max_count);
  edges.erase(std::remove_if(edges.begin(), edges.end(), [](int x) { return x < 3; }), edges.end());
  if (edges.empty())
    return shrinking_to_zero(rc::gen::weightedOneOf<int>({{4, rc::gen::just(1)},
                                                          {2, rc::gen::just(2)},
                                                          {2, rc::gen::just(0)},
                                                          {5, rc::gen::inRange(1, 9)}}));
  return shrinking_to_zero(rc::gen::weightedOneOf<int>({{4, rc::gen::just(1)},
                                                        {2, rc::gen::just(2)},
                                                        {2, rc::gen::just(0)},
                                                        {5, rc::gen::inRange(1, 9)},
                                                        {2, rc::gen::elementOf(edges)}}));
}

// The topologies a shape has at this world size (odd-even: two communicators
// of different sizes), as the zoo builds them; drawn shapes (split:, inter:,
// see comm_zoo.h) carry their sizes in their name.
inline std::vector<ref::Topology> shape_topologies(const std::string& shape, int p) {
  if (shape == "odd-even") return {{false, (p + 1) / 2, 0}, {false, p / 2, 0}};
  if (shape == "self") return {{false, 1, 0}};
  if (shape == "inter-1-n") return {{true, 1, p - 1}};
  if (shape == "inter-n-1") return {{true, p - 1, 1}};
  if (shape == "inter-halves") return {{true, p / 2, p - p / 2}};
  if (shape == "inter-permuted") return {{true, (p + 1) / 2, p / 2}};
  if (shape == "create-group") return {{false, p - 1, 0}};
  if (shape.rfind("split:", 0) == 0)
    return {{false, static_cast<int>(std::count(shape.begin(), shape.end(), ',')) + 1, 0}};
  if (shape.rfind("inter:", 0) == 0) {
    const std::size_t comma = shape.find(',');
    return {{true, std::stoi(shape.substr(6, comma - 6)), std::stoi(shape.substr(comma + 1))}};
  }
  return {{false, p, 0}};  // world, dup, reversed, cart, merged, session
}

// A sub-communicator of a random size whose ranks are a random selection of
// the world ranks in a random order (the split keys): "split:3,0,2".
inline rc::Gen<std::string> gen_split_shape() {
  return rc::gen::exec([] {
    const int p = harness::world_size();
    const int k = *rc::gen::inRange(1, p + 1);
    std::vector<int> left(static_cast<std::size_t>(p));
    std::iota(left.begin(), left.end(), 0);
    std::string name = "split:";
    for (int i = 0; i < k; ++i) {  // shrinks towards the world ranks in order
      const int j = *rc::gen::inRange(0, static_cast<int>(left.size()));
      name += (i ? "," : "") + std::to_string(left[static_cast<std::size_t>(j)]);
      left.erase(left.begin() + j);
    }
    return name;
  });
}

// An intercommunicator of random group sizes a + b <= p: "inter:a,b".
inline rc::Gen<std::string> gen_inter_shape() {
  return rc::gen::exec([] {
    const int p = harness::world_size();
    const int a = *rc::gen::inRange(1, p);
    const int b = *rc::gen::inRange(1, p - a + 1);
    return "inter:" + std::to_string(a) + "," + std::to_string(b);
  });
}

// The zoo's shapes available at this world size, "world" first, and the
// drawn shapes (random sub-communicators and intercommunicators).
inline rc::Gen<std::string> gen_shape() {
  std::vector<std::string> shapes = harness::intra_shapes();
  for (const auto& s : harness::inter_shapes()) shapes.push_back(s);
  for (const auto& s : harness::other_shapes()) shapes.push_back(s);
  std::stable_partition(shapes.begin(), shapes.end(),
                        [](const std::string& s) { return s == "world"; });
  std::vector<std::pair<int, std::string>> items;
  for (const auto& s : shapes) items.push_back({s == "world" ? 4 : 1, s});
  if (harness::world_size() < 2) return pick(items);
  return rc::gen::exec([items] {
    switch (*pick<int>({{8, 0}, {2, 1}, {2, 2}})) {
      case 0:
        return *pick(items);
      case 1:
        return *gen_split_shape();
      default:
        return *gen_inter_shape();
    }
  });
}

// A root valid on every communicator of the shape (intra), or in the root's group (inter).
inline rc::Gen<int> gen_root(const std::string& shape, bool high_group) {
  int n = 1 << 30;
  for (const ref::Topology& t : shape_topologies(shape, harness::world_size()))
    n = std::min(n, t.inter ? (high_group ? t.size_high : t.size_low) : t.size_low);
  return rc::gen::inRange(0, std::max(1, n));
}

// MPI_IN_PLACE where the routine allows it (intracommunicators only).
inline rc::Gen<bool> gen_in_place(Routine r, bool inter) {
  if (inter || r == Routine::reduce_local || r == Routine::reduce_locals)
    return rc::gen::just(false);
  return pick<bool>({{4, false}, {1, true}});
}

}  // namespace ordo::props

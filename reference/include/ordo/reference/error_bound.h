// The error bound of an inexact floating-point result (Case::exact = false):
// how far a library's result may lie from the reference's when the order of
// evaluation changes the rounding. Part of the reference, like every other
// expectation: the harness only compares.
//
// For a sum of n contributions x_1..x_n evaluated in any order, Higham's
// bound |computed - exact| <= (n - 1) u sum|x_i| (u = eps / 2, to first
// order) holds for the library's result and for the reference's alike, so
// the two differ by at most 2 (n - 1) eps sum|x_i|, where n is the number
// of contributions to this rank's result:
//   * Reduce, Allreduce, Reduce_scatter(_block): every rank of the
//     communicator (intercommunicator: every rank of the other group);
//   * Scan at rank r: r + 1 (ranks 0..r); Exscan at rank r: r (ranks
//     0..r-1; rank 0's result is undefined: no bound);
//   * Reduce_local, Reduce_locals: 2 (the two operands).
// One contribution is an exact copy: bound 0. A product bounds the same way
// with prod|x_i| in place of sum|x_i|. Every leaf of the datatype is
// counted: a real leaf is one value, a complex leaf two (its components), a
// pair leaf two (the value, and the index, always exact); integer, logical,
// byte and character leaves, and every op other than SUM and PROD, are
// exact (bound 0).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ordo/reference/basic_types.h"
#include "ordo/reference/buffer.h"
#include "ordo/reference/case.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/oracle.h"

namespace ordo::ref {

// One value of an element: leaf `leaf` of the typemap, component 0 or 1 of
// a complex leaf, the value (0) or index (1) of a pair leaf; `offset` bytes
// from the element's address, stored as `scalar`.
struct ValueSlot {
  std::size_t leaf = 0;
  int component = 0;
  std::ptrdiff_t offset = 0;
  Scalar scalar = Scalar::i32;
};
// Every value of one element of dt, in typemap order.
std::vector<ValueSlot> value_slots(const Datatype& dt);

// How many ranks' inputs make up this rank's result (see above).
int contributions(const Case& c, const Topology& t, Role me);

// The bound per value of this rank's result: bound[k][s] for element k of
// the receive buffer (k < plan.recv_compare_elements) and slot s of
// value_slots(plan's datatype). Empty when the result is not significant or
// not defined here. Throws UsageError for a case the bound does not cover.
std::vector<std::vector<long double>> error_bound(const Case& c, const Topology& t, Role me,
                                                  const RankPlan& plan);

// The first value of `observed` farther than its bound from `expected`.
struct BoundViolation {
  int element = 0;
  ValueSlot slot;
  long double expected = 0, observed = 0, bound = 0;
};
std::optional<BoundViolation> first_outside_bound(
    const std::vector<std::vector<long double>>& bound, const Buffer& expected,
    const Buffer& observed);

// The same as first_outside_bound(error_bound(c, t, me, plan), expected,
// observed), each bound made as it is compared: no table of a bound per
// value (the harness's judgement of an inexact result).
std::optional<BoundViolation> first_outside_error_bound(const Case& c, const Topology& t, Role me,
                                                        const RankPlan& plan,
                                                        const Buffer& expected,
                                                        const Buffer& observed);

}  // namespace ordo::ref

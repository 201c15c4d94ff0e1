// Witness user ops: exactly associative, deliberately non-commutative
// operations that make any reordering or operand swap of a reduction
// visible in its result (MPI-4.1 Section 6.9.5: the order of a
// non-commutative op is ascending rank order).
//
// Both witnesses work on "cells" of four 32-bit integers. A datatype is
// usable with them when every element has a multiple of four leaves, each a
// 4-byte integer type (MPI_INT, MPI_INT32_T, MPI_UNSIGNED, MPI_UINT32_T,
// MPI_INTEGER); the cells may sit anywhere the datatype puts them (holes,
// padding, negative lower bounds, interleaving).
//
//  * tracer: cell {lo, hi, fault_left, fault_right}. Rank r contributes
//    {r, r, -1, -1}. [a..b] o [c..d] = [a..d] when c == b + 1; any other
//    combine poisons the cell (lo = hi = -2) and records the two intervals
//    it was given, so the first wrong combine can be named.
//  * matrix: cell = 2x2 matrix of uint32 (row-major), product mod 2^32.
//  * sum_declared_noncommutative: wrapping int32 sum on every leaf, a
//    commutative function registered with commute = false.
//  * recorder: the same sum; on the MPI side it also records the len and
//    datatype of every call (the user-function contract, MPI-4.1 6.9.5).
//  * multiset: the same wrapping sum, declared commutative (commute = 1: a
//    library may then combine in any order, and chooses other algorithms).
//    Its inputs are independent 32-bit hashes per rank, element and leaf, so
//    the result identifies the multiset of contributions: a dropped, doubled
//    or misplaced contribution changes it (but with probability 2^-128 per
//    cell), where order is free. explain_multiset names which one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ordo/reference/op.h"

namespace ordo::ref::witness {

inline constexpr std::int32_t kNoFault = -1;
inline constexpr std::int32_t kPoisoned = -2;

struct Cell {
  std::int32_t v[4];
};

// Kernels in MPI's user-function convention.
void tracer(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt);
void matrix(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt);
void sum_i32(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt);

// Names used in cases: "witness.tracer", "witness.matrix",
// "witness.sum-declared-noncommutative", "witness.recorder", "witness.multiset";
// "witness.tracer-c" is the tracer made by MPI_Op_create_c (large-count user
// function: its len is an MPI_Count).
bool is_witness(const std::string& name);
// The tracer, made by MPI_Op_create or MPI_Op_create_c: its inputs are the
// tracer's [rank..rank] cells.
bool is_tracer(const std::string& name);
Op make(const std::string& name);
// Throws SemanticsError unless every element of dt holds whole cells of 4-byte integers.
void check_datatype(const Datatype& dt);

// Reads / writes the cells of element k of a buffer laid out by dt.
std::vector<Cell> read_cells(const std::byte* element, const Datatype& dt);
void write_cells(std::byte* element, const Datatype& dt, const std::vector<Cell>& cells);

// What a tracer cell says of the combines that made it, as data.
struct Trace {
  enum class Kind {
    in_order,     // the cell covers the expected ranks: every combine was right
    swapped,      // first wrong combine: invec holds ranks above inoutvec's
    overlapping,  // first wrong combine: the operands share ranks
    gap,          // first wrong combine: ranks missing between the operands
    wrong_cover,  // no wrong combine, but the cell covers other ranks than expected
  };
  Kind kind = Kind::in_order;
  // The rank intervals [lo, hi]: swapped / overlapping / gap: the operands
  // of the first wrong combine (invec, the left operand; inoutvec, the
  // right); in_order / wrong_cover: the ranks the cell covers and those expected.
  std::int32_t invec[2] = {0, 0}, inoutvec[2] = {0, 0};
  std::int32_t covers[2] = {0, 0}, expected[2] = {0, 0};
};
Trace trace(const Cell& c, int expected_lo, int expected_hi);
// "swapped", "overlapping", "gap", "in_order", "wrong_cover".
const char* trace_kind_name(Trace::Kind k);
// The words of the message: "operands swapped", "overlapping operands",
// "a gap between the operands" (a wrong combine), else "".
const char* trace_why(Trace::Kind k);

// "ranks 0..3 in order", "covers ranks 0..2 instead of ranks 0..3", or
// "first wrong combine: invec = ranks 2..3, inoutvec = ranks 0..1
// (operands swapped)" for a tracer cell: trace() in words.
std::string explain_tracer(const Cell& c, int expected_lo, int expected_hi);

// A witness.multiset cell that differs from the expected one: the single
// contribution that explains the difference, from `contributions` (one
// entry per contributing process: its rank and its cells of every element,
// element-major), or "" when none does. Words: "the contribution of rank 2 is
// missing", "the contribution of rank 2 is counted twice" ("... is counted
// although it must not be", for a process whose input does not belong there),
// "rank 2's element 5 was combined in place of its element 3". element: the
// send element the receive element reduces (ordo::ref::send_element_of).
struct Contribution {
  int group = 0, rank = 0;
  bool expected = true;                     // false: this process's input must not be in the result
  std::vector<std::vector<Cell>> elements;  // [element][cell]
};
std::string explain_multiset(const Cell& observed, const Cell& expected, int element, int cell,
                             const std::vector<Contribution>& contributions);
std::string explain(const Trace& t);

}  // namespace ordo::ref::witness

// An independent, hand-written copy of the op x type table of MPI-4.1
// Section 6.9.2 (MINLOC/MAXLOC: Section 6.9.4; characters: Section 6.9.3),
// written from the standard's text, not from reference/src, so the tests
// compare the reference against the standard rather than against itself.
#pragma once

#include <set>
#include <string>

#include "ordo/reference/basic_types.h"
#include "ordo/reference/op.h"

namespace ordo::ref::test::mpi41 {

// The groups of Section 6.9.2, spelled out type by type.
inline const std::set<Basic> kCInteger = {Basic::SIGNED_CHAR, Basic::UNSIGNED_CHAR,
                                          Basic::SHORT,       Basic::UNSIGNED_SHORT,
                                          Basic::INT,         Basic::UNSIGNED,
                                          Basic::LONG,        Basic::UNSIGNED_LONG,
                                          Basic::LONG_LONG,   Basic::UNSIGNED_LONG_LONG,
                                          Basic::INT8_T,      Basic::INT16_T,
                                          Basic::INT32_T,     Basic::INT64_T,
                                          Basic::UINT8_T,     Basic::UINT16_T,
                                          Basic::UINT32_T,    Basic::UINT64_T};
inline const std::set<Basic> kFortranInteger = {Basic::INTEGER, Basic::INTEGER1, Basic::INTEGER2,
                                                Basic::INTEGER4, Basic::INTEGER8};
inline const std::set<Basic> kFloatingPoint = {
    Basic::FLOAT, Basic::DOUBLE, Basic::LONG_DOUBLE, Basic::REAL, Basic::DOUBLE_PRECISION,
    Basic::REAL4, Basic::REAL8};
inline const std::set<Basic> kLogical = {Basic::C_BOOL, Basic::CXX_BOOL, Basic::LOGICAL};
inline const std::set<Basic> kComplex = {Basic::C_COMPLEX,
                                         Basic::C_FLOAT_COMPLEX,
                                         Basic::C_DOUBLE_COMPLEX,
                                         Basic::C_LONG_DOUBLE_COMPLEX,
                                         Basic::CXX_FLOAT_COMPLEX,
                                         Basic::CXX_DOUBLE_COMPLEX,
                                         Basic::CXX_LONG_DOUBLE_COMPLEX,
                                         Basic::COMPLEX,
                                         Basic::DOUBLE_COMPLEX,
                                         Basic::COMPLEX8,
                                         Basic::COMPLEX16};
inline const std::set<Basic> kByte = {Basic::BYTE};
inline const std::set<Basic> kMultiLanguage = {Basic::AINT, Basic::OFFSET, Basic::COUNT};
// Section 6.9.4: the value-index pairs MINLOC and MAXLOC take.
inline const std::set<Basic> kPairs = {
    Basic::FLOAT_INT,   Basic::DOUBLE_INT, Basic::LONG_INT,
    Basic::TWO_INT,     Basic::SHORT_INT,  Basic::LONG_DOUBLE_INT,
    Basic::TWO_INTEGER, Basic::TWO_REAL,   Basic::TWO_DOUBLE_PRECISION};
// Section 6.9.3: printable characters, in no group, valid with no op.
inline const std::set<Basic> kCharacters = {Basic::CHAR, Basic::WCHAR, Basic::CHARACTER};

inline bool in(const std::set<Basic>& s, Basic b) { return s.count(b) != 0; }

// "Op  Allowed Types" as the standard lists it.
inline bool allowed(PredefinedOp op, Basic b) {
  using P = PredefinedOp;
  switch (op) {
    case P::MAX:
    case P::MIN:  // C integer, Fortran integer, Floating point, Multi-language types
      return in(kCInteger, b) || in(kFortranInteger, b) || in(kFloatingPoint, b) ||
             in(kMultiLanguage, b);
    case P::SUM:
    case P::PROD:  // ... plus Complex
      return in(kCInteger, b) || in(kFortranInteger, b) || in(kFloatingPoint, b) ||
             in(kMultiLanguage, b) || in(kComplex, b);
    case P::LAND:
    case P::LOR:
    case P::LXOR:  // C integer, Logical
      return in(kCInteger, b) || in(kLogical, b);
    case P::BAND:
    case P::BOR:
    case P::BXOR:  // C integer, Fortran integer, Byte, Multi-language types
      return in(kCInteger, b) || in(kFortranInteger, b) || in(kByte, b) || in(kMultiLanguage, b);
    case P::MAXLOC:
    case P::MINLOC:
      return in(kPairs, b);
    case P::REPLACE:
    case P::NO_OP:  // one-sided accumulate only (Section 12.3.4)
      return false;
  }
  return false;
}

// The clause slug the reference is expected to name for a refused pair:
// the most specific rule that forbids it.
inline std::string refusal_clause(PredefinedOp op, Basic b) {
  using P = PredefinedOp;
  if (op == P::REPLACE || op == P::NO_OP) return "op.replace-no-op-not-for-reductions";
  if (in(kCharacters, b)) return "op.char-types-excluded";
  if (op == P::MAXLOC || op == P::MINLOC) return "op.minloc-maxloc-pair-types";
  return "op.type-groups";
}

inline const PredefinedOp kAllOps[] = {
    PredefinedOp::MAX,     PredefinedOp::MIN,  PredefinedOp::SUM,    PredefinedOp::PROD,
    PredefinedOp::LAND,    PredefinedOp::LOR,  PredefinedOp::LXOR,   PredefinedOp::BAND,
    PredefinedOp::BOR,     PredefinedOp::BXOR, PredefinedOp::MAXLOC, PredefinedOp::MINLOC,
    PredefinedOp::REPLACE, PredefinedOp::NO_OP};

}  // namespace ordo::ref::test::mpi41

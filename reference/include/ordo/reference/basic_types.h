// Basic datatypes MPI defines for C programs, as the reference models them.
//
// Type groups follow MPI-4.1 Section 6.9.2 ("Predefined Reduction Operations"):
// C integer, Fortran integer, Floating point, Logical, Complex, Byte and
// Multi-language types; plus the pair types of Section 6.9.4 (MINLOC and
// MAXLOC) and the character types that Section 6.9.3 excludes from reductions.
// Sizes are those of this platform (the reference runs on the machine whose
// MPI library it judges); the MPI harness verifies them against
// MPI_Type_size / MPI_Type_get_extent at start-up.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ordo::ref {

enum class TypeGroup {
  c_integer,
  fortran_integer,
  floating_point,
  logical,
  complex,
  byte,
  multi_language,
  pair,       // MINLOC / MAXLOC value-index pairs (Section 6.9.4)
  character,  // printable characters: not valid in any reduction (Section 6.9.3)
};

// How the bytes of one scalar are interpreted by the combine kernels.
enum class Scalar {
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  f32,
  f64,
  f80,        // f80: x87 extended precision stored in sizeof(long double) bytes
  c_bool,     // C _Bool / C++ bool: one byte, 0 or 1
  f_logical,  // Fortran LOGICAL: a 4-byte integer, nonzero is .TRUE.
  cf32,
  cf64,
  cf80,  // complex: two scalars of the component type
  byte,  // MPI_BYTE: uninterpreted octet
  ch8,
  wch,  // char / wchar_t: printable characters
};

enum class Basic {
  // C integer
  SIGNED_CHAR,
  UNSIGNED_CHAR,
  SHORT,
  UNSIGNED_SHORT,
  INT,
  UNSIGNED,
  LONG,
  UNSIGNED_LONG,
  LONG_LONG,
  UNSIGNED_LONG_LONG,
  INT8_T,
  INT16_T,
  INT32_T,
  INT64_T,
  UINT8_T,
  UINT16_T,
  UINT32_T,
  UINT64_T,
  // Fortran integer
  INTEGER,
  INTEGER1,
  INTEGER2,
  INTEGER4,
  INTEGER8,
  // Floating point
  FLOAT,
  DOUBLE,
  LONG_DOUBLE,
  REAL,
  DOUBLE_PRECISION,
  REAL4,
  REAL8,
  // Logical
  C_BOOL,
  CXX_BOOL,
  LOGICAL,
  // Complex
  C_COMPLEX,
  C_FLOAT_COMPLEX,
  C_DOUBLE_COMPLEX,
  C_LONG_DOUBLE_COMPLEX,
  CXX_FLOAT_COMPLEX,
  CXX_DOUBLE_COMPLEX,
  CXX_LONG_DOUBLE_COMPLEX,
  COMPLEX,
  DOUBLE_COMPLEX,
  COMPLEX8,
  COMPLEX16,
  // Byte
  BYTE,
  // Multi-language types
  AINT,
  OFFSET,
  COUNT,
  // Pair types for MINLOC / MAXLOC, with their C layouts
  FLOAT_INT,
  DOUBLE_INT,
  LONG_INT,
  TWO_INT,
  SHORT_INT,
  LONG_DOUBLE_INT,
  TWO_INTEGER,
  TWO_REAL,
  TWO_DOUBLE_PRECISION,
  // Characters
  CHAR,
  WCHAR,
  CHARACTER,
};

inline constexpr int kBasicCount = static_cast<int>(Basic::CHARACTER) + 1;

struct BasicInfo {
  Basic id;
  std::string_view mpi_name;  // "MPI_INT"
  TypeGroup group;
  Scalar scalar;       // for pairs: the value's scalar
  std::size_t size;    // bytes of data (MPI_Type_size)
  std::size_t extent;  // MPI_Type_get_extent
  std::size_t alignment;
  // Pairs only: where the index lives and how it is stored.
  std::size_t index_offset = 0;
  Scalar index_scalar = Scalar::i32;
  bool fortran = false;  // a Fortran type used from C (may be absent in a library)
};

const BasicInfo& info(Basic b);
// The predefined pair type whose value and index are these basic types (the
// six C pair types of MPI-4.1 Section 6.9.4, e.g. MPI_DOUBLE, MPI_INT ->
// MPI_DOUBLE_INT), as MPI_Type_get_value_index returns it; nullopt otherwise.
std::optional<Basic> value_index_pair(Basic value, Basic index);
std::optional<Basic> basic_from_name(std::string_view mpi_name);  // accepts synonyms
std::string_view group_name(TypeGroup g);
std::size_t scalar_size(Scalar s);
// Bytes of a scalar that carry its value (long double: 10 of 16).
std::size_t significant_size(Scalar s);
bool scalar_is_signed_integer(Scalar s);
bool scalar_is_unsigned_integer(Scalar s);
bool scalar_is_integer(Scalar s);
bool scalar_is_floating(Scalar s);
bool scalar_is_complex(Scalar s);

}  // namespace ordo::ref

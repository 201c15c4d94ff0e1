#include "ordo/reference/basic_types.h"

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ordo::ref {
namespace {

// C layouts of the pair types (MPI-4.1 Section 6.9.4).
struct FloatInt {
  float v;
  int i;
};
struct DoubleInt {
  double v;
  int i;
};
struct LongInt {
  long v;
  int i;
};
struct TwoInt {
  int v;
  int i;
};
struct ShortInt {
  short v;
  int i;
};
struct LongDoubleInt {
  long double v;
  int i;
};
struct TwoFloat {
  float v;
  float i;
};  // MPI_2REAL: REAL value, REAL index
struct TwoDouble {
  double v;
  double i;
};  // MPI_2DOUBLE_PRECISION

using G = TypeGroup;
using S = Scalar;

template <class T>
constexpr BasicInfo plain(Basic id, std::string_view name, G g, S s, bool fortran = false) {
  return BasicInfo{id, name, g, s, sizeof(T), sizeof(T), alignof(T), 0, S::i32, fortran};
}
template <class P, class V, class I>
constexpr BasicInfo pair(Basic id, std::string_view name, S value, S index, bool fortran = false) {
  return BasicInfo{id,        name,       G::pair,        value, sizeof(V) + sizeof(I),
                   sizeof(P), alignof(P), offsetof(P, i), index, fortran};
}

// Fortran INTEGER/REAL/LOGICAL are 4 bytes and DOUBLE PRECISION 8 with the
// Debian toolchains (gfortran defaults); COMPLEX is two REALs.
const std::array<BasicInfo, kBasicCount> kTable = {{
    plain<signed char>(Basic::SIGNED_CHAR, "MPI_SIGNED_CHAR", G::c_integer, S::i8),
    plain<unsigned char>(Basic::UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", G::c_integer, S::u8),
    plain<short>(Basic::SHORT, "MPI_SHORT", G::c_integer, S::i16),
    plain<unsigned short>(Basic::UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", G::c_integer, S::u16),
    plain<int>(Basic::INT, "MPI_INT", G::c_integer, S::i32),
    plain<unsigned>(Basic::UNSIGNED, "MPI_UNSIGNED", G::c_integer, S::u32),
    plain<long>(Basic::LONG, "MPI_LONG", G::c_integer, sizeof(long) == 8 ? S::i64 : S::i32),
    plain<unsigned long>(Basic::UNSIGNED_LONG, "MPI_UNSIGNED_LONG", G::c_integer,
                         sizeof(long) == 8 ? S::u64 : S::u32),
    plain<long long>(Basic::LONG_LONG, "MPI_LONG_LONG", G::c_integer, S::i64),
    plain<unsigned long long>(Basic::UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", G::c_integer,
                              S::u64),
    plain<std::int8_t>(Basic::INT8_T, "MPI_INT8_T", G::c_integer, S::i8),
    plain<std::int16_t>(Basic::INT16_T, "MPI_INT16_T", G::c_integer, S::i16),
    plain<std::int32_t>(Basic::INT32_T, "MPI_INT32_T", G::c_integer, S::i32),
    plain<std::int64_t>(Basic::INT64_T, "MPI_INT64_T", G::c_integer, S::i64),
    plain<std::uint8_t>(Basic::UINT8_T, "MPI_UINT8_T", G::c_integer, S::u8),
    plain<std::uint16_t>(Basic::UINT16_T, "MPI_UINT16_T", G::c_integer, S::u16),
    plain<std::uint32_t>(Basic::UINT32_T, "MPI_UINT32_T", G::c_integer, S::u32),
    plain<std::uint64_t>(Basic::UINT64_T, "MPI_UINT64_T", G::c_integer, S::u64),

    plain<std::int32_t>(Basic::INTEGER, "MPI_INTEGER", G::fortran_integer, S::i32, true),
    plain<std::int8_t>(Basic::INTEGER1, "MPI_INTEGER1", G::fortran_integer, S::i8, true),
    plain<std::int16_t>(Basic::INTEGER2, "MPI_INTEGER2", G::fortran_integer, S::i16, true),
    plain<std::int32_t>(Basic::INTEGER4, "MPI_INTEGER4", G::fortran_integer, S::i32, true),
    plain<std::int64_t>(Basic::INTEGER8, "MPI_INTEGER8", G::fortran_integer, S::i64, true),

    plain<float>(Basic::FLOAT, "MPI_FLOAT", G::floating_point, S::f32),
    plain<double>(Basic::DOUBLE, "MPI_DOUBLE", G::floating_point, S::f64),
    plain<long double>(Basic::LONG_DOUBLE, "MPI_LONG_DOUBLE", G::floating_point, S::f80),
    plain<float>(Basic::REAL, "MPI_REAL", G::floating_point, S::f32, true),
    plain<double>(Basic::DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", G::floating_point, S::f64, true),
    plain<float>(Basic::REAL4, "MPI_REAL4", G::floating_point, S::f32, true),
    plain<double>(Basic::REAL8, "MPI_REAL8", G::floating_point, S::f64, true),

    plain<bool>(Basic::C_BOOL, "MPI_C_BOOL", G::logical, S::c_bool),
    plain<bool>(Basic::CXX_BOOL, "MPI_CXX_BOOL", G::logical, S::c_bool),
    plain<std::int32_t>(Basic::LOGICAL, "MPI_LOGICAL", G::logical, S::f_logical, true),

    plain<std::complex<float>>(Basic::C_COMPLEX, "MPI_C_COMPLEX", G::complex, S::cf32),
    plain<std::complex<float>>(Basic::C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", G::complex, S::cf32),
    plain<std::complex<double>>(Basic::C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", G::complex,
                                S::cf64),
    plain<std::complex<long double>>(Basic::C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX",
                                     G::complex, S::cf80),
    plain<std::complex<float>>(Basic::CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", G::complex,
                               S::cf32),
    plain<std::complex<double>>(Basic::CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", G::complex,
                                S::cf64),
    plain<std::complex<long double>>(Basic::CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
                                     G::complex, S::cf80),
    plain<std::complex<float>>(Basic::COMPLEX, "MPI_COMPLEX", G::complex, S::cf32, true),
    plain<std::complex<double>>(Basic::DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", G::complex, S::cf64,
                                true),
    plain<std::complex<float>>(Basic::COMPLEX8, "MPI_COMPLEX8", G::complex, S::cf32, true),
    plain<std::complex<double>>(Basic::COMPLEX16, "MPI_COMPLEX16", G::complex, S::cf64, true),

    plain<unsigned char>(Basic::BYTE, "MPI_BYTE", G::byte, S::byte),

    // MPI_Aint, MPI_Offset and MPI_Count are 64-bit signed integers on the
    // LP64 platforms ordo supports; the harness checks this at start-up.
    plain<std::int64_t>(Basic::AINT, "MPI_AINT", G::multi_language, S::i64),
    plain<std::int64_t>(Basic::OFFSET, "MPI_OFFSET", G::multi_language, S::i64),
    plain<std::int64_t>(Basic::COUNT, "MPI_COUNT", G::multi_language, S::i64),

    pair<FloatInt, float, int>(Basic::FLOAT_INT, "MPI_FLOAT_INT", S::f32, S::i32),
    pair<DoubleInt, double, int>(Basic::DOUBLE_INT, "MPI_DOUBLE_INT", S::f64, S::i32),
    pair<LongInt, long, int>(Basic::LONG_INT, "MPI_LONG_INT", S::i64, S::i32),
    pair<TwoInt, int, int>(Basic::TWO_INT, "MPI_2INT", S::i32, S::i32),
    pair<ShortInt, short, int>(Basic::SHORT_INT, "MPI_SHORT_INT", S::i16, S::i32),
    pair<LongDoubleInt, long double, int>(Basic::LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", S::f80,
                                          S::i32),
    pair<TwoInt, int, int>(Basic::TWO_INTEGER, "MPI_2INTEGER", S::i32, S::i32, true),
    pair<TwoFloat, float, float>(Basic::TWO_REAL, "MPI_2REAL", S::f32, S::f32, true),
    pair<TwoDouble, double, double>(Basic::TWO_DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", S::f64,
                                    S::f64, true),

    plain<char>(Basic::CHAR, "MPI_CHAR", G::character, S::ch8),
    plain<wchar_t>(Basic::WCHAR, "MPI_WCHAR", G::character, S::wch),
    plain<char>(Basic::CHARACTER, "MPI_CHARACTER", G::character, S::ch8, true),
}};

struct Synonym {
  std::string_view name;
  Basic b;
};
constexpr Synonym kSynonyms[] = {
    {"MPI_LONG_LONG_INT", Basic::LONG_LONG},
};

}  // namespace

const BasicInfo& info(Basic b) {
  const BasicInfo& i = kTable[static_cast<int>(b)];
  return i;
}

std::optional<Basic> value_index_pair(Basic value, Basic index) {
  // The C pair types: each value type with an int index.
  if (index != Basic::INT) return std::nullopt;
  switch (value) {
    case Basic::FLOAT:
      return Basic::FLOAT_INT;
    case Basic::DOUBLE:
      return Basic::DOUBLE_INT;
    case Basic::LONG:
      return Basic::LONG_INT;
    case Basic::INT:
      return Basic::TWO_INT;
    case Basic::SHORT:
      return Basic::SHORT_INT;
    case Basic::LONG_DOUBLE:
      return Basic::LONG_DOUBLE_INT;
    default:
      return std::nullopt;
  }
}

std::optional<Basic> basic_from_name(std::string_view name) {
  for (const BasicInfo& i : kTable)
    if (i.mpi_name == name) return i.id;
  for (const Synonym& s : kSynonyms)
    if (s.name == name) return s.b;
  return std::nullopt;
}

std::string_view group_name(TypeGroup g) {
  switch (g) {
    case G::c_integer:
      return "C integer";
    case G::fortran_integer:
      return "Fortran integer";
    case G::floating_point:
      return "Floating point";
    case G::logical:
      return "Logical";
    case G::complex:
      return "Complex";
    case G::byte:
      return "Byte";
    case G::multi_language:
      return "Multi-language types";
    case G::pair:
      return "MINLOC/MAXLOC pair";
    case G::character:
      return "Character";
  }
  return "?";
}

std::size_t scalar_size(Scalar s) {
  switch (s) {
    case S::i8:
    case S::u8:
    case S::c_bool:
    case S::byte:
    case S::ch8:
      return 1;
    case S::i16:
    case S::u16:
      return 2;
    case S::i32:
    case S::u32:
    case S::f32:
    case S::f_logical:
      return 4;
    case S::i64:
    case S::u64:
    case S::f64:
    case S::cf32:
      return 8;
    case S::wch:
      return sizeof(wchar_t);
    case S::f80:
      return sizeof(long double);
    case S::cf64:
      return 16;
    case S::cf80:
      return 2 * sizeof(long double);
  }
  return 0;
}

std::size_t significant_size(Scalar s) {
  // x87 extended precision: 64-bit mantissa + 16-bit sign/exponent; the rest is padding.
  if (s == S::f80) return 10;
  return scalar_size(s);
}

bool scalar_is_signed_integer(Scalar s) {
  return s == S::i8 || s == S::i16 || s == S::i32 || s == S::i64;
}
bool scalar_is_unsigned_integer(Scalar s) {
  return s == S::u8 || s == S::u16 || s == S::u32 || s == S::u64;
}
bool scalar_is_integer(Scalar s) {
  return scalar_is_signed_integer(s) || scalar_is_unsigned_integer(s);
}
bool scalar_is_floating(Scalar s) { return s == S::f32 || s == S::f64 || s == S::f80; }
bool scalar_is_complex(Scalar s) { return s == S::cf32 || s == S::cf64 || s == S::cf80; }

}  // namespace ordo::ref

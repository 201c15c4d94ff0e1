#include "mpi_types.h"

#include <climits>
#include <map>

#include "fortran_layer.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/op.h"
#include "ordo/reference/witness.h"

namespace ordo::harness {
namespace {

using ref::Basic;

std::map<std::string, MPI_Datatype>& cache() {
  static std::map<std::string, MPI_Datatype> c;
  return c;
}
std::vector<std::pair<MPI_Datatype, ref::Datatype>>& registry() {
  static std::vector<std::pair<MPI_Datatype, ref::Datatype>> r;
  return r;
}
int g_unknown_calls = 0;
std::vector<RecordedCall> g_recorded;

void recorder_fn(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  g_recorded.push_back({*len, *dt});
  const ref::Datatype* t = reference_datatype(*dt);
  if (t == nullptr) {
    ++g_unknown_calls;
    return;
  }
  ref::witness::sum_i32(static_cast<const std::byte*>(invec), static_cast<std::byte*>(inoutvec),
                        *len, *t);
}

#ifdef ORDO_HAVE_LARGE_COUNT
// A witness function for MPI_Op_create_c: len is an MPI_Count.
template <void (*Kernel)(const std::byte*, std::byte*, int, const ref::Datatype&)>
void witness_fn_c(void* invec, void* inoutvec, MPI_Count* len, MPI_Datatype* dt) {
  const ref::Datatype* t = reference_datatype(*dt);
  if (t == nullptr || *len < 0 || *len > INT_MAX) {
    ++g_unknown_calls;
    return;
  }
  Kernel(static_cast<const std::byte*>(invec), static_cast<std::byte*>(inoutvec),
         static_cast<int>(*len), *t);
}
#endif

template <void (*Kernel)(const std::byte*, std::byte*, int, const ref::Datatype&)>
void witness_fn(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  const ref::Datatype* t = reference_datatype(*dt);
  if (t == nullptr) {
    ++g_unknown_calls;
    return;
  }
  Kernel(static_cast<const std::byte*>(invec), static_cast<std::byte*>(inoutvec), *len, *t);
}

// A handle the library names itself (MPI_COMBINER_NAMED): never committed
// nor freed by ordo.
bool named_handle(MPI_Datatype t) {
  int ni = 0, na = 0, nd = 0, combiner = 0;
  return MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
         combiner == MPI_COMBINER_NAMED;
}

// Builds the library's datatype. A basic type the library lacks: returns
// MPI_DATATYPE_NULL and says so in *why (the case is skipped). A constructor
// that returns an error: returns MPI_DATATYPE_NULL, sets *failed and names
// the call and the library's error string in *why (the case fails).
MPI_Datatype build(const ref::Datatype& dt, std::string* why, bool* failed) {
  using K = ref::Datatype::Kind;
  if (dt.kind() == K::basic) {
    MPI_Datatype b = mpi_basic(dt.basic_type());
    if (b == MPI_DATATYPE_NULL && why)
      *why = std::string(ref::info(dt.basic_type()).mpi_name) + " is not provided by this library";
    return b;
  }
  std::vector<MPI_Datatype> kids;
  auto free_kids = [&] {
    for (std::size_t i = 0; i < kids.size(); ++i)
      if (!dt.children()[i].predefined() && kids[i] != MPI_DATATYPE_NULL && !named_handle(kids[i]))
        MPI_Type_free(&kids[i]);
  };
  for (const ref::Datatype& c : dt.children()) {
    MPI_Datatype k = build(c, why, failed);
    if (k == MPI_DATATYPE_NULL) {
      free_kids();
      return MPI_DATATYPE_NULL;
    }
    kids.push_back(k);
  }
  const auto& in = dt.ints();
  const auto& ad = dt.addrs();
  MPI_Datatype out = MPI_DATATYPE_NULL;
  int rc = MPI_SUCCESS;
  const char* call = "?";
  switch (dt.kind()) {
    case K::contiguous:
      call = "MPI_Type_contiguous";
      rc = MPI_Type_contiguous(in[0], kids[0], &out);
      break;
    case K::vector:
      call = "MPI_Type_vector";
      rc = MPI_Type_vector(in[0], in[1], in[2], kids[0], &out);
      break;
    case K::hvector:
      call = "MPI_Type_create_hvector";
      rc = MPI_Type_create_hvector(in[0], in[1], ad[0], kids[0], &out);
      break;
    case K::indexed: {
      const int n = static_cast<int>(in.size() / 2);
      call = "MPI_Type_indexed";
      rc = MPI_Type_indexed(n, in.data(), in.data() + n, kids[0], &out);
      break;
    }
    case K::hindexed: {
      std::vector<MPI_Aint> d(ad.begin(), ad.end());
      call = "MPI_Type_create_hindexed";
      rc =
          MPI_Type_create_hindexed(static_cast<int>(in.size()), in.data(), d.data(), kids[0], &out);
      break;
    }
    case K::indexed_block:
      call = "MPI_Type_create_indexed_block";
      rc = MPI_Type_create_indexed_block(static_cast<int>(in.size() - 1), in[0], in.data() + 1,
                                         kids[0], &out);
      break;
    case K::struct_: {
      std::vector<MPI_Aint> d(ad.begin(), ad.end());
      call = "MPI_Type_create_struct";
      rc = MPI_Type_create_struct(static_cast<int>(in.size()), in.data(), d.data(), kids.data(),
                                  &out);
      break;
    }
    case K::resized:
      call = "MPI_Type_create_resized";
      rc = MPI_Type_create_resized(kids[0], ad[0], ad[1], &out);
      break;
    case K::dup:
      call = "MPI_Type_dup";
      rc = MPI_Type_dup(kids[0], &out);
      break;
    case K::value_index:
      // MPI-4.1 6.9.4: a predefined pair type (named or unnamed), not a
      // duplicate, never freed; MPI_DATATYPE_NULL (with MPI_SUCCESS) only for
      // a combination that matches no predefined pair, and the reference
      // models only combinations that match a named one.
      call = "MPI_Type_get_value_index";
#ifdef ORDO_HAVE_VALUE_INDEX
      rc = MPI_Type_get_value_index(kids[0], kids[1], &out);
      if (rc == MPI_SUCCESS && out == MPI_DATATYPE_NULL) {
        if (failed) *failed = true;
        if (why)
          *why = std::string(call) + "(" + dt.children()[0].text() + ", " +
                 dt.children()[1].text() + ") returned MPI_DATATYPE_NULL, but " +
                 std::string(ref::info(dt.typemap()[0].type).mpi_name) +
                 " is the predefined pair of these types (MPI-4.1 6.9.4)";
        return MPI_DATATYPE_NULL;
      }
      // A named handle must be the pair's own: "no observable difference"
      // between the named constant and the routine's result (MPI-4.1 6.9.4).
      if (const MPI_Datatype named = mpi_basic(dt.typemap()[0].type);
          rc == MPI_SUCCESS && out != named && named_handle(out)) {
        char name[MPI_MAX_OBJECT_NAME] = "";
        int len = 0;
        MPI_Type_get_name(out, name, &len);
        if (failed) *failed = true;
        if (why)
          *why = std::string(call) + "(" + dt.children()[0].text() + ", " +
                 dt.children()[1].text() + ") returned the named datatype " +
                 (len > 0 ? std::string(name, static_cast<std::size_t>(len)) : "(no name)") +
                 ", not " + std::string(ref::info(dt.typemap()[0].type).mpi_name) +
                 " (MPI-4.1 6.9.4)";
        return MPI_DATATYPE_NULL;
      }
#else
      // Unreachable: missing_feature() skips every case that names it.
      if (why) *why = value_index_lacks();
      return MPI_DATATYPE_NULL;
#endif
      break;
    case K::basic:
      break;
  }
  // Children that are derived types are no longer needed once used.
  free_kids();
  if (rc != MPI_SUCCESS || out == MPI_DATATYPE_NULL) {
    if (failed) *failed = true;
    if (why)
      *why = std::string(call) + " for " + dt.text() + " returned " +
             (rc != MPI_SUCCESS ? error_string(rc) : std::string("MPI_SUCCESS but no datatype"));
    return MPI_DATATYPE_NULL;
  }
  return out;
}

}  // namespace

std::string value_index_lacks() {
#ifdef ORDO_HAVE_VALUE_INDEX
  return "";
#else
  return "the library has no MPI_Type_get_value_index (MPI-4.1 6.9.4)";
#endif
}

bool must_not_free(const ref::Datatype& dt, MPI_Datatype handle) {
  return dt.predefined() || named_handle(handle);
}

MPI_Datatype mpi_basic(Basic b) {
  switch (b) {
    case Basic::SIGNED_CHAR:
      return MPI_SIGNED_CHAR;
    case Basic::UNSIGNED_CHAR:
      return MPI_UNSIGNED_CHAR;
    case Basic::SHORT:
      return MPI_SHORT;
    case Basic::UNSIGNED_SHORT:
      return MPI_UNSIGNED_SHORT;
    case Basic::INT:
      return MPI_INT;
    case Basic::UNSIGNED:
      return MPI_UNSIGNED;
    case Basic::LONG:
      return MPI_LONG;
    case Basic::UNSIGNED_LONG:
      return MPI_UNSIGNED_LONG;
    case Basic::LONG_LONG:
      return MPI_LONG_LONG;
    case Basic::UNSIGNED_LONG_LONG:
      return MPI_UNSIGNED_LONG_LONG;
    case Basic::INT8_T:
      return MPI_INT8_T;
    case Basic::INT16_T:
      return MPI_INT16_T;
    case Basic::INT32_T:
      return MPI_INT32_T;
    case Basic::INT64_T:
      return MPI_INT64_T;
    case Basic::UINT8_T:
      return MPI_UINT8_T;
    case Basic::UINT16_T:
      return MPI_UINT16_T;
    case Basic::UINT32_T:
      return MPI_UINT32_T;
    case Basic::UINT64_T:
      return MPI_UINT64_T;
    case Basic::INTEGER:
      return MPI_INTEGER;
    case Basic::INTEGER1:
      return MPI_INTEGER1;
    case Basic::INTEGER2:
      return MPI_INTEGER2;
    case Basic::INTEGER4:
      return MPI_INTEGER4;
    case Basic::INTEGER8:
      return MPI_INTEGER8;
    case Basic::FLOAT:
      return MPI_FLOAT;
    case Basic::DOUBLE:
      return MPI_DOUBLE;
    case Basic::LONG_DOUBLE:
      return MPI_LONG_DOUBLE;
    case Basic::REAL:
      return MPI_REAL;
    case Basic::DOUBLE_PRECISION:
      return MPI_DOUBLE_PRECISION;
    case Basic::REAL4:
      return MPI_REAL4;
    case Basic::REAL8:
      return MPI_REAL8;
    case Basic::C_BOOL:
      return MPI_C_BOOL;
    case Basic::CXX_BOOL:
      return MPI_CXX_BOOL;
    case Basic::LOGICAL:
      return MPI_LOGICAL;
    case Basic::C_COMPLEX:
      return MPI_C_COMPLEX;
    case Basic::C_FLOAT_COMPLEX:
      return MPI_C_FLOAT_COMPLEX;
    case Basic::C_DOUBLE_COMPLEX:
      return MPI_C_DOUBLE_COMPLEX;
    case Basic::C_LONG_DOUBLE_COMPLEX:
      return MPI_C_LONG_DOUBLE_COMPLEX;
    case Basic::CXX_FLOAT_COMPLEX:
      return MPI_CXX_FLOAT_COMPLEX;
    case Basic::CXX_DOUBLE_COMPLEX:
      return MPI_CXX_DOUBLE_COMPLEX;
    case Basic::CXX_LONG_DOUBLE_COMPLEX:
      return MPI_CXX_LONG_DOUBLE_COMPLEX;
    case Basic::COMPLEX:
      return MPI_COMPLEX;
    case Basic::DOUBLE_COMPLEX:
      return MPI_DOUBLE_COMPLEX;
    case Basic::COMPLEX8:
      return MPI_COMPLEX8;
    case Basic::COMPLEX16:
      return MPI_COMPLEX16;
    case Basic::BYTE:
      return MPI_BYTE;
    case Basic::AINT:
      return MPI_AINT;
    case Basic::OFFSET:
      return MPI_OFFSET;
    case Basic::COUNT:
      return MPI_COUNT;
    case Basic::FLOAT_INT:
      return MPI_FLOAT_INT;
    case Basic::DOUBLE_INT:
      return MPI_DOUBLE_INT;
    case Basic::LONG_INT:
      return MPI_LONG_INT;
    case Basic::TWO_INT:
      return MPI_2INT;
    case Basic::SHORT_INT:
      return MPI_SHORT_INT;
    case Basic::LONG_DOUBLE_INT:
      return MPI_LONG_DOUBLE_INT;
    case Basic::TWO_INTEGER:
      return MPI_2INTEGER;
    case Basic::TWO_REAL:
      return MPI_2REAL;
    case Basic::TWO_DOUBLE_PRECISION:
      return MPI_2DOUBLE_PRECISION;
    case Basic::CHAR:
      return MPI_CHAR;
    case Basic::WCHAR:
      return MPI_WCHAR;
    case Basic::CHARACTER:
      return MPI_CHARACTER;
  }
  return MPI_DATATYPE_NULL;
}

std::vector<std::string> verify_basic_types() {
  std::vector<std::string> bad;
  for (int i = 0; i < ref::kBasicCount; ++i) {
    const auto b = static_cast<Basic>(i);
    MPI_Datatype t = mpi_basic(b);
    if (t == MPI_DATATYPE_NULL) continue;
    int size = -1;
    MPI_Aint lb = 0, extent = 0;
    if (MPI_Type_size(t, &size) != MPI_SUCCESS ||
        MPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS)
      continue;  // an unsupported optional type: cases using it report skip
    const auto& bi = ref::info(b);
    if (static_cast<std::size_t>(size) != bi.size ||
        static_cast<std::size_t>(extent) != bi.extent || lb != 0)
      bad.push_back(std::string(bi.mpi_name) + ": library size/extent " + std::to_string(size) +
                    "/" + std::to_string(extent) + ", reference " + std::to_string(bi.size) + "/" +
                    std::to_string(bi.extent));
  }
  return bad;
}

MPI_Datatype mpi_datatype(const ref::Datatype& dt, std::string* why, bool* failed) {
  auto it = cache().find(dt.text());
  if (it != cache().end()) return it->second;
  MPI_Datatype t = mpi_datatype_fresh(dt, why, failed);
  if (t != MPI_DATATYPE_NULL) cache()[dt.text()] = t;
  return t;
}

MPI_Datatype mpi_datatype_fresh(const ref::Datatype& dt, std::string* why, bool* failed) {
  MPI_Datatype t = build(dt, why, failed);
  if (t == MPI_DATATYPE_NULL) return t;
  if (!dt.predefined()) {
    const int rc = MPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) {
      if (failed) *failed = true;
      if (why) *why = "MPI_Type_commit for " + dt.text() + " returned " + error_string(rc);
      MPI_Type_free(&t);
      return MPI_DATATYPE_NULL;
    }
  }
  registry().push_back({t, dt});
  return t;
}

void forget_datatype(MPI_Datatype h) {
  auto& r = registry();
  for (auto it = r.begin(); it != r.end();) it = it->first == h ? r.erase(it) : it + 1;
}

const ref::Datatype* reference_datatype(MPI_Datatype dt) {
  for (auto& [h, t] : registry())
    if (h == dt) return &t;
  return nullptr;
}

namespace {
// A witness op whose user function is a Fortran procedure of the binding's
// layer (fortran/ordo_f08.F90, ordo_f90.F90), created by MPI_Op_create from
// Fortran: the library calls it the Fortran way (ordo_fortran_user_fn).
#ifdef ORDO_ABI_BUILD
// A build through the MPI-5.0 standard ABI has no Fortran layer (the Fortran
// bindings are not part of the C ABI, nor are MPI_Op_c2f / MPI_Op_f2c in the
// libraries that provide it): a Fortran binding's case is a skip before it
// gets here (features.cpp, binding_lacks).
MPI_Op fortran_op(const std::string& name, std::string* error, const std::string& binding) {
  if (error)
    *error = "op '" + name + "' has no user function in the " + binding +
             " binding: the Fortran bindings are not part of the MPI-5.0 standard ABI";
  return MPI_OP_NULL;
}
#else
MPI_Op fortran_op(const std::string& name, std::string* error, const std::string& binding) {
  FortranKernel kernel = FortranKernel::tracer;
  if (name == "witness.tracer")
    kernel = FortranKernel::tracer;
  else if (name == "witness.matrix")
    kernel = FortranKernel::matrix;
  else if (name == "witness.sum-declared-noncommutative" || name == "witness.multiset")
    kernel = FortranKernel::sum;
  else if (name == "witness.recorder")
    kernel = FortranKernel::recorder;
  else
    throw ref::UsageError("op '" + name + "' has no user function in the " + binding + " binding");
  const int commute = ref::witness::make(name).commutative() ? 1 : 0;
  MPI_Fint handle = MPI_Op_c2f(MPI_OP_NULL);
  int rc = MPI_ERR_OTHER;
#if defined(ORDO_HAVE_FORTRAN_F08)
  if (binding == "f08") rc = ordo_f08_op_create(static_cast<int>(kernel), commute, &handle);
#endif
#if defined(ORDO_HAVE_FORTRAN_F90)
  if (binding == "f90") rc = ordo_f90_op_create(static_cast<int>(kernel), commute, &handle);
#endif
  const MPI_Op op = MPI_Op_f2c(handle);
  if (rc != MPI_SUCCESS || op == MPI_OP_NULL) {
    if (error)
      *error = "MPI_Op_create (" + binding + " binding) for " + name + " returned " +
               (rc != MPI_SUCCESS ? error_string(rc) : std::string("MPI_SUCCESS but MPI_OP_NULL"));
    return MPI_OP_NULL;
  }
  return op;
}
#endif
}  // namespace

MPI_Op mpi_op(const std::string& name, std::string* error, const std::string& binding) {
  static std::map<std::string, MPI_Op> user;  // by binding and name
  if (auto p = ref::op_from_name(name)) {
    switch (*p) {
      case ref::PredefinedOp::MAX:
        return MPI_MAX;
      case ref::PredefinedOp::MIN:
        return MPI_MIN;
      case ref::PredefinedOp::SUM:
        return MPI_SUM;
      case ref::PredefinedOp::PROD:
        return MPI_PROD;
      case ref::PredefinedOp::LAND:
        return MPI_LAND;
      case ref::PredefinedOp::LOR:
        return MPI_LOR;
      case ref::PredefinedOp::LXOR:
        return MPI_LXOR;
      case ref::PredefinedOp::BAND:
        return MPI_BAND;
      case ref::PredefinedOp::BOR:
        return MPI_BOR;
      case ref::PredefinedOp::BXOR:
        return MPI_BXOR;
      case ref::PredefinedOp::MAXLOC:
        return MPI_MAXLOC;
      case ref::PredefinedOp::MINLOC:
        return MPI_MINLOC;
      case ref::PredefinedOp::REPLACE:
        return MPI_REPLACE;
      case ref::PredefinedOp::NO_OP:
        return MPI_NO_OP;
    }
  }
  const std::string key = binding + ":" + name;
  auto it = user.find(key);
  if (it != user.end()) return it->second;
  const MPI_Op op = mpi_op_fresh(name, error, binding);
  if (op != MPI_OP_NULL) user[key] = op;
  return op;
}

MPI_Op mpi_op_fresh(const std::string& name, std::string* error, const std::string& binding) {
  if (ref::op_from_name(name)) return MPI_OP_NULL;
  if (binding != "c") return fortran_op(name, error, binding);
  if (name == "witness.tracer-c") {
    MPI_Op op = MPI_OP_NULL;
#ifdef ORDO_HAVE_LARGE_COUNT
    const int rc = MPI_Op_create_c(witness_fn_c<ref::witness::tracer>, 0, &op);
    if (rc != MPI_SUCCESS || op == MPI_OP_NULL) {
      if (error)
        *error =
            "MPI_Op_create_c for " + name + " returned " +
            (rc != MPI_SUCCESS ? error_string(rc) : std::string("MPI_SUCCESS but MPI_OP_NULL"));
      return MPI_OP_NULL;
    }
#else
    if (error) *error = "MPI_Op_create_c is not provided by this library";
#endif
    return op;
  }
  MPI_User_function* fn = nullptr;
  if (name == "witness.tracer")
    fn = witness_fn<ref::witness::tracer>;
  else if (name == "witness.matrix")
    fn = witness_fn<ref::witness::matrix>;
  else if (name == "witness.sum-declared-noncommutative" || name == "witness.multiset")
    fn = witness_fn<ref::witness::sum_i32>;
  else if (name == "witness.recorder")
    fn = recorder_fn;
  else
    throw ref::UsageError("unknown op '" + name + "'");
  MPI_Op op = MPI_OP_NULL;
  // The commute flag is the reference's (witness.multiset alone is commutative).
  const int rc = MPI_Op_create(fn, ref::witness::make(name).commutative() ? 1 : 0, &op);
  if (rc != MPI_SUCCESS || op == MPI_OP_NULL) {
    if (error)
      *error = "MPI_Op_create for " + name + " returned " +
               (rc != MPI_SUCCESS ? error_string(rc) : std::string("MPI_SUCCESS but MPI_OP_NULL"));
    return MPI_OP_NULL;
  }
  return op;
}

}  // namespace ordo::harness

#ifndef ORDO_ABI_BUILD  // no Fortran layer in an ABI build (see fortran_op)
// What the library handed a Fortran witness function: len and the datatype's
// Fortran handle, by reference, as the Fortran function received them; the
// handle must convert (MPI_Type_f2c) to the one passed to the call.
extern "C" void ordo_fortran_user_fn(int kernel, void* invec, void* inoutvec, MPI_Fint* len,
                                     MPI_Fint* datatype) {
  using namespace ordo::harness;
  MPI_Datatype dt = MPI_Type_f2c(*datatype);
  int n = *len;
  switch (static_cast<FortranKernel>(kernel)) {
    case FortranKernel::tracer:
      return witness_fn<ordo::ref::witness::tracer>(invec, inoutvec, &n, &dt);
    case FortranKernel::matrix:
      return witness_fn<ordo::ref::witness::matrix>(invec, inoutvec, &n, &dt);
    case FortranKernel::sum:
      return witness_fn<ordo::ref::witness::sum_i32>(invec, inoutvec, &n, &dt);
    case FortranKernel::recorder:
      return recorder_fn(invec, inoutvec, &n, &dt);
  }
}

#endif

namespace ordo::harness {

const std::vector<RecordedCall>& recorded_calls() { return g_recorded; }
void reset_recorded_calls() { g_recorded.clear(); }

int unknown_datatype_calls() { return g_unknown_calls; }
void reset_unknown_datatype_calls() { g_unknown_calls = 0; }

std::string error_string(int code) {
  char buf[MPI_MAX_ERROR_STRING];
  int n = 0;
  int cls = 0;
  MPI_Error_class(code, &cls);
  if (MPI_Error_string(code, buf, &n) != MPI_SUCCESS) return "error " + std::to_string(code);
  return "error class " + std::to_string(cls) + ": " +
         std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace ordo::harness

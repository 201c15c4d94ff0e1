// Datatypes and buffers: layouts, the reference's model of a datatype,
// scratch memory, typed copies and transfers, and the one path by which a
// result reaches a user's receive buffer.
#include <algorithm>
#include <cstring>
#include <vector>

#include "refmpi.h"

namespace ordo::refmpi {
namespace {

MPI_Datatype basic_handle(ref::Basic b) {
  using B = ref::Basic;
  switch (b) {
    case B::SIGNED_CHAR:
      return MPI_SIGNED_CHAR;
    case B::UNSIGNED_CHAR:
      return MPI_UNSIGNED_CHAR;
    case B::SHORT:
      return MPI_SHORT;
    case B::UNSIGNED_SHORT:
      return MPI_UNSIGNED_SHORT;
    case B::INT:
      return MPI_INT;
    case B::UNSIGNED:
      return MPI_UNSIGNED;
    case B::LONG:
      return MPI_LONG;
    case B::UNSIGNED_LONG:
      return MPI_UNSIGNED_LONG;
    case B::LONG_LONG:
      return MPI_LONG_LONG;
    case B::UNSIGNED_LONG_LONG:
      return MPI_UNSIGNED_LONG_LONG;
    case B::INT8_T:
      return MPI_INT8_T;
    case B::INT16_T:
      return MPI_INT16_T;
    case B::INT32_T:
      return MPI_INT32_T;
    case B::INT64_T:
      return MPI_INT64_T;
    case B::UINT8_T:
      return MPI_UINT8_T;
    case B::UINT16_T:
      return MPI_UINT16_T;
    case B::UINT32_T:
      return MPI_UINT32_T;
    case B::UINT64_T:
      return MPI_UINT64_T;
    case B::INTEGER:
      return MPI_INTEGER;
    case B::INTEGER1:
      return MPI_INTEGER1;
    case B::INTEGER2:
      return MPI_INTEGER2;
    case B::INTEGER4:
      return MPI_INTEGER4;
    case B::INTEGER8:
      return MPI_INTEGER8;
    case B::FLOAT:
      return MPI_FLOAT;
    case B::DOUBLE:
      return MPI_DOUBLE;
    case B::LONG_DOUBLE:
      return MPI_LONG_DOUBLE;
    case B::REAL:
      return MPI_REAL;
    case B::DOUBLE_PRECISION:
      return MPI_DOUBLE_PRECISION;
    case B::REAL4:
      return MPI_REAL4;
    case B::REAL8:
      return MPI_REAL8;
    case B::C_BOOL:
      return MPI_C_BOOL;
    case B::CXX_BOOL:
      return MPI_CXX_BOOL;
    case B::LOGICAL:
      return MPI_LOGICAL;
    case B::C_COMPLEX:
      return MPI_C_COMPLEX;
    case B::C_FLOAT_COMPLEX:
      return MPI_C_FLOAT_COMPLEX;
    case B::C_DOUBLE_COMPLEX:
      return MPI_C_DOUBLE_COMPLEX;
    case B::C_LONG_DOUBLE_COMPLEX:
      return MPI_C_LONG_DOUBLE_COMPLEX;
    case B::CXX_FLOAT_COMPLEX:
      return MPI_CXX_FLOAT_COMPLEX;
    case B::CXX_DOUBLE_COMPLEX:
      return MPI_CXX_DOUBLE_COMPLEX;
    case B::CXX_LONG_DOUBLE_COMPLEX:
      return MPI_CXX_LONG_DOUBLE_COMPLEX;
    case B::COMPLEX:
      return MPI_COMPLEX;
    case B::DOUBLE_COMPLEX:
      return MPI_DOUBLE_COMPLEX;
    case B::COMPLEX8:
      return MPI_COMPLEX8;
    case B::COMPLEX16:
      return MPI_COMPLEX16;
    case B::BYTE:
      return MPI_BYTE;
    case B::AINT:
      return MPI_AINT;
    case B::OFFSET:
      return MPI_OFFSET;
    case B::COUNT:
      return MPI_COUNT;
    case B::FLOAT_INT:
      return MPI_FLOAT_INT;
    case B::DOUBLE_INT:
      return MPI_DOUBLE_INT;
    case B::LONG_INT:
      return MPI_LONG_INT;
    case B::TWO_INT:
      return MPI_2INT;
    case B::SHORT_INT:
      return MPI_SHORT_INT;
    case B::LONG_DOUBLE_INT:
      return MPI_LONG_DOUBLE_INT;
    case B::TWO_INTEGER:
      return MPI_2INTEGER;
    case B::TWO_REAL:
      return MPI_2REAL;
    case B::TWO_DOUBLE_PRECISION:
      return MPI_2DOUBLE_PRECISION;
    case B::CHAR:
      return MPI_CHAR;
    case B::WCHAR:
      return MPI_WCHAR;
    case B::CHARACTER:
      return MPI_CHARACTER;
  }
  return MPI_DATATYPE_NULL;
}

std::optional<ref::Basic> basic_of(MPI_Datatype dt) {
  for (int i = 0; i < ref::kBasicCount; ++i) {
    const auto b = static_cast<ref::Basic>(i);
    if (basic_handle(b) != dt || dt == MPI_DATATYPE_NULL) continue;
    // Only where the library agrees with the reference's sizes (a library
    // without Fortran may carry a handle of size 0).
    int size = -1;
    MPI_Aint lb = 0, extent = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS)
      return std::nullopt;
    const auto& in = ref::info(b);
    if (static_cast<std::size_t>(size) != in.size ||
        static_cast<std::size_t>(extent) != in.extent || lb != 0)
      return std::nullopt;
    return b;
  }
  return std::nullopt;
}

std::optional<ref::Datatype> decode(MPI_Datatype dt, int depth) {
  if (depth > 32) return std::nullopt;
  int ni = 0, na = 0, nd = 0, combiner = 0;
  if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return std::nullopt;
  if (combiner == MPI_COMBINER_NAMED) {
    if (auto b = basic_of(dt)) return ref::Datatype::basic(*b);
    return std::nullopt;
  }
  std::vector<int> ints(static_cast<std::size_t>(ni));
  std::vector<MPI_Aint> addrs(static_cast<std::size_t>(na));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(nd));
  if (PMPI_Type_get_contents(dt, ni, na, nd, ints.data(), addrs.data(), types.data()) !=
      MPI_SUCCESS)
    return std::nullopt;
  std::vector<ref::Datatype> kids;
  bool ok = true;
  for (MPI_Datatype t : types) {
    auto k = ok ? decode(t, depth + 1) : std::nullopt;
    if (k)
      kids.push_back(*k);
    else
      ok = false;
    int tni, tna, tnd, tc;
    // Derived types returned by get_contents are new handles to free.
    if (PMPI_Type_get_envelope(t, &tni, &tna, &tnd, &tc) == MPI_SUCCESS && tc != MPI_COMBINER_NAMED)
      PMPI_Type_free(&t);
  }
  if (!ok || kids.empty()) return std::nullopt;
  std::vector<std::ptrdiff_t> a(addrs.begin(), addrs.end());
  try {
    switch (combiner) {
      case MPI_COMBINER_DUP:
        return ref::Datatype::dup(kids[0]);
      case MPI_COMBINER_CONTIGUOUS:
        return ref::Datatype::contiguous(ints[0], kids[0]);
      case MPI_COMBINER_VECTOR:
        return ref::Datatype::vector(ints[0], ints[1], ints[2], kids[0]);
      case MPI_COMBINER_HVECTOR:
        return ref::Datatype::hvector(ints[0], ints[1], a[0], kids[0]);
      case MPI_COMBINER_INDEXED: {
        const int n = ints[0];
        return ref::Datatype::indexed(
            std::vector<int>(ints.begin() + 1, ints.begin() + 1 + n),
            std::vector<int>(ints.begin() + 1 + n, ints.begin() + 1 + 2 * n), kids[0]);
      }
      case MPI_COMBINER_HINDEXED: {
        const int n = ints[0];
        return ref::Datatype::hindexed(std::vector<int>(ints.begin() + 1, ints.begin() + 1 + n), a,
                                       kids[0]);
      }
      case MPI_COMBINER_INDEXED_BLOCK:
        return ref::Datatype::indexed_block(ints[1], std::vector<int>(ints.begin() + 2, ints.end()),
                                            kids[0]);
      case MPI_COMBINER_HINDEXED_BLOCK:
        return ref::Datatype::hindexed(std::vector<int>(static_cast<std::size_t>(ints[0]), ints[1]),
                                       a, kids[0]);
      case MPI_COMBINER_STRUCT: {
        const int n = ints[0];
        return ref::Datatype::struct_(std::vector<int>(ints.begin() + 1, ints.begin() + 1 + n), a,
                                      kids);
      }
      case MPI_COMBINER_RESIZED:
        return ref::Datatype::resized(a[0], a[1], kids[0]);
      default:
        return std::nullopt;  // subarray, darray, Fortran 90 types: not modelled
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The bytes [lo, hi) relative to the buffer address that `count` elements span.
void span_of(int count, const Layout& l, MPI_Aint* lo, MPI_Aint* hi) {
  const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * l.extent;
  *lo = l.true_lb + (last < 0 ? last : 0);
  *hi = l.true_lb + l.true_extent + (last > 0 ? last : 0);
}

}  // namespace

namespace {
std::vector<MPI_Datatype>& freed_datatypes() {
  static std::vector<MPI_Datatype> v;
  return v;
}
}  // namespace

namespace {
// Handles made by a C type constructor here and not yet committed.
std::vector<MPI_Datatype>& uncommitted_datatypes() {
  static std::vector<MPI_Datatype> v;
  return v;
}
void drop(std::vector<MPI_Datatype>& v, MPI_Datatype dt) {
  v.erase(std::remove(v.begin(), v.end(), dt), v.end());
}
}  // namespace

void forget_datatype(MPI_Datatype dt) {
  auto& v = freed_datatypes();
  if (std::find(v.begin(), v.end(), dt) == v.end()) v.push_back(dt);
  drop(uncommitted_datatypes(), dt);
}

void note_committed_datatype(MPI_Datatype dt) {
  drop(freed_datatypes(), dt);
  drop(uncommitted_datatypes(), dt);
}

void note_made_datatype(MPI_Datatype dt) {
  drop(freed_datatypes(), dt);  // a freed handle's value may come back
  auto& v = uncommitted_datatypes();
  if (std::find(v.begin(), v.end(), dt) == v.end()) v.push_back(dt);
}

int layout_of(MPI_Datatype dt, Layout* out) {
  const auto& freed = freed_datatypes();
  if (std::find(freed.begin(), freed.end(), dt) != freed.end()) return MPI_ERR_TYPE;
  const auto& made = uncommitted_datatypes();
  if (std::find(made.begin(), made.end(), dt) != made.end()) return MPI_ERR_TYPE;
  int rc = PMPI_Type_size(dt, &out->size);
  if (rc == MPI_SUCCESS) rc = PMPI_Type_get_extent(dt, &out->lb, &out->extent);
  if (rc == MPI_SUCCESS) rc = PMPI_Type_get_true_extent(dt, &out->true_lb, &out->true_extent);
  return rc;
}

std::optional<ref::Datatype> reference_datatype(MPI_Datatype dt) { return decode(dt, 0); }

Temp::Temp(int count, const Layout& l) {
  if (count <= 0) return;
  MPI_Aint lo, hi;
  span_of(count, l, &lo, &hi);
  mem_.assign(static_cast<std::size_t>(hi - lo), std::byte{0});
  shift_ = -lo;
}

int copy_typed(const void* src, void* dst, int count, MPI_Datatype dt) {
  if (count == 0) return MPI_SUCCESS;
  // A datatype the reference models is copied leaf by leaf by its typemap
  // (in typemap order, as MPI_Unpack writes): the reference does not rest on
  // the library's MPI_Pack, which in MPICH 4.0.2 was seen to pack 1 or 2
  // bytes short of count x size late in a long process
  // (docs/reference-and-mutants.md). Other datatypes (subarray, darray) go
  // through MPI_Pack.
  if (!mutant(Mutant::datatype_as_contiguous)) {
    if (const auto rdt = reference_datatype(dt)) {
      const std::ptrdiff_t extent = rdt->extent();
      for (int k = 0; k < count; ++k)
        for (const ref::Leaf& leaf : rdt->typemap())
          for (const ref::ByteRange& r : ref::leaf_ranges(leaf.type)) {  // pair types: no padding
            const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(k) * extent + leaf.disp + r.begin;
            std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at,
                        static_cast<std::size_t>(r.end - r.begin));
          }
      return MPI_SUCCESS;
    }
  }
  int n = 0;
  int rc = PMPI_Pack_size(count, dt, MPI_COMM_SELF, &n);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<char> packed(static_cast<std::size_t>(n) + 1);
  int pos = 0;
  if (mutant(Mutant::datatype_as_contiguous)) {
    // Fault: the buffer is read as count * size dense bytes from its address.
    int size = 0;
    PMPI_Type_size(dt, &size);
    std::memcpy(packed.data(), src, static_cast<std::size_t>(size) * count);
  } else {
    rc = PMPI_Pack(src, count, dt, packed.data(), n, &pos, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
  }
  pos = 0;
  return PMPI_Unpack(packed.data(), n, &pos, dst, count, dt, MPI_COMM_SELF);
}

int isend_typed(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request* req) {
  if (mutant(Mutant::datatype_as_contiguous) && count > 0) {
    int size = 0;
    PMPI_Type_size(dt, &size);
    return PMPI_Isend(buf, size * count, MPI_BYTE, dest, tag, comm, req);
  }
  return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
}

int send_typed(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  MPI_Request req;
  int rc = isend_typed(buf, count, dt, dest, tag, comm, &req);
  return rc == MPI_SUCCESS ? PMPI_Wait(&req, MPI_STATUS_IGNORE) : rc;
}

int recv_typed(Temp& into, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm) {
  // Received as MPI_PACKED (which matches any type signature, MPI-4.1
  // Section 5.2) and unpacked, so that a datatype whose elements overlap --
  // allowed in a send buffer -- is never used to receive.
  int n = 0;
  int rc = PMPI_Pack_size(count, dt, MPI_COMM_SELF, &n);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<char> packed(static_cast<std::size_t>(n) + 1);
  rc = PMPI_Recv(packed.data(), n, MPI_PACKED, src, tag, comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS || count == 0) return rc;
  int pos = 0;
  return PMPI_Unpack(packed.data(), n, &pos, into.ptr(), count, dt, MPI_COMM_SELF);
}

int deliver(const void* result, void* recvbuf, int count, MPI_Datatype dt, const Layout& l) {
  if (mutant(Mutant::nonblocking_result_not_written) && g_in_nonblocking) return MPI_SUCCESS;
  if (mutant(Mutant::count_zero_writes) && count == 0 && recvbuf != nullptr && l.extent > 0) {
    // Fault: one element's worth of bytes written although count is 0.
    std::memset(static_cast<char*>(recvbuf) + l.true_lb, 0,
                static_cast<std::size_t>(l.true_extent));
    return MPI_SUCCESS;
  }
  if (count <= 0) return MPI_SUCCESS;
  if (mutant(Mutant::drop_last_element)) --count;
  if (mutant(Mutant::write_holes) && count > 0) {
    // Fault: the result copied as one block of bytes, holes included.
    MPI_Aint lo, hi;
    span_of(count, l, &lo, &hi);
    std::memcpy(static_cast<char*>(recvbuf) + lo, static_cast<const char*>(result) + lo,
                static_cast<std::size_t>(hi - lo));
    return MPI_SUCCESS;
  }
  int rc = copy_typed(result, recvbuf, count, dt);
  if (rc == MPI_SUCCESS && mutant(Mutant::write_past_end) && count > 0)
    // Fault: an off-by-one loop writes element `count` too.
    rc = copy_typed(result, static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(count) * l.extent,
                    1, dt);
  return rc;
}

}  // namespace ordo::refmpi

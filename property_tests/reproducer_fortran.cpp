// The Fortran reproducer of a case of the f08 or f90 binding: the C
// writer's program (reproducer.cpp) spelled as a free-form Fortran program
// that uses the mpi_f08 or the mpi module, with the same bytes from the
// reference (reproducer_common.h), the witness ops' user functions in
// Fortran, and the same exit status.
#include <algorithm>
#include <sstream>

#include "ordo/reference/witness.h"
#include "reproducer_common.h"

namespace ordo::props::repro {
namespace {

using K = ref::Datatype::Kind;

// Hex digits of bytes [from, to) of b, lower case.
std::string hex(const std::vector<std::byte>& b, std::size_t from, std::size_t to) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = from; i < to; ++i) {
    const auto v = static_cast<unsigned>(b[i]);
    s += digits[v >> 4];
    s += digits[v & 15];
  }
  return s;
}

// Statements that fill `var` (1-based) with b: 32 bytes a line, in hex.
void emit_fill(std::ostringstream& o, const std::string& var, const std::vector<std::byte>& b) {
  for (std::size_t i = 0; i < b.size(); i += 32)
    o << "    call fill(" << var << ", " << i << ", '" << hex(b, i, std::min(b.size(), i + 32))
      << "')\n";
}

// Statements that set the integer array `var` (1-based) to v, 8 a line.
template <class V>
void emit_ints(std::ostringstream& o, const std::string& indent, const std::string& var,
               const V& v) {
  for (std::size_t i = 0; i < v.size(); i += 8) {
    const std::size_t to = std::min(v.size(), i + 8);
    o << indent << var << "(" << i + 1 << ":" << to << ") = [" << join(v, i, to, ", ") << "]\n";
  }
}

// An array constructor, wrapped over continuation lines.
template <class V>
std::string array(const std::string& type_spec, const V& v, std::size_t from, std::size_t to) {
  std::ostringstream s;
  s << "[" << type_spec << " :: ";
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) s << ", ";
    if (i > from && (i - from) % 10 == 0) s << "&\n        ";
    s << v[i];
  }
  s << "]";
  return s.str();
}

const char* kFortranWitness = R"(
  ! ordo's kernels (ordo/reference/witness.h) on 32-bit cells, computed in
  ! 64-bit integers modulo 2**32 (Fortran integers do not wrap).
  pure integer(int64) function u32(x)
    integer(int32), intent(in) :: x
    u32 = iand(int(x, int64), 4294967295_int64)
  end function
  pure integer(int32) function s32(u)
    integer(int64), intent(in) :: u
    integer(int64) :: w
    w = iand(u, 4294967295_int64)
    if (w >= 2147483648_int64) w = w - 4294967296_int64
    s32 = int(w, int32)
  end function
  pure integer(int64) function mul32(a, b)  ! a * b mod 2**32, a and b below 2**32
    integer(int64), intent(in) :: a, b
    mul32 = iand(iand(ishft(a, -16) * b, 65535_int64) * 65536_int64 + iand(a, 65535_int64) * b, &
                 4294967295_int64)
  end function

  ! r = a o b
  subroutine combine(a, b, r)
    integer(int32), intent(in) :: a(4), b(4)
    integer(int32), intent(out) :: r(4)
    integer(int64) :: x(4), y(4)
    integer :: j
    select case (KERNEL)
    case (0)  ! tracer: [a..b] o [c..d] = [a..d] when c == b + 1, else poisoned (-2)
      if (a(1) == -2) then
        r = a
      else if (b(1) == -2) then
        r = b
      else if (a(1) >= 0 .and. b(1) >= 0 .and. int(b(1), int64) == int(a(2), int64) + 1) then
        r = [a(1), b(2), -1_int32, -1_int32]
      else
        r(1) = -2
        r(2) = -2
        r(3) = s32(u32(a(1)) * 65536_int64 + u32(a(2)))
        r(4) = s32(u32(b(1)) * 65536_int64 + u32(b(2)))
      end if
    case (1)  ! matrix: 2x2 matrices of uint32, row-major, product mod 2**32
      do j = 1, 4
        x(j) = u32(a(j))
        y(j) = u32(b(j))
      end do
      r(1) = s32(mul32(x(1), y(1)) + mul32(x(2), y(3)))
      r(2) = s32(mul32(x(1), y(2)) + mul32(x(2), y(4)))
      r(3) = s32(mul32(x(3), y(1)) + mul32(x(4), y(3)))
      r(4) = s32(mul32(x(3), y(2)) + mul32(x(4), y(4)))
    case default  ! sum: wrapping 32-bit sum
      do j = 1, 4
        r(j) = s32(u32(a(j)) + u32(b(j)))
      end do
    end select
  end subroutine

  ! inoutvec := invec o inoutvec on n elements at the addresses pin, pinout:
  ! the cells of four 32-bit integers at the leaf displacements (LEAF, which
  ! may be negative: the views start LMIN bytes before the address).
  subroutine apply(pin, pinout, n)
    type(c_ptr), value :: pin, pinout
    integer, intent(in) :: n
    integer(int8), pointer :: a(:), b(:)
    integer(int32) :: x(4), y(4), r(4)
    integer(int64) :: at
    integer :: k, cell, j
    if (n <= 0) return
    call c_f_pointer(shifted(pin), a, [(n - 1) * EXTENT + SPAN])
    call c_f_pointer(shifted(pinout), b, [(n - 1) * EXTENT + SPAN])
    do k = 0, n - 1
      do cell = 0, NLEAF / 4 - 1
        do j = 1, 4
          at = k * EXTENT + LEAF(4 * cell + j) - LMIN + 1
          x(j) = transfer(a(at:at + 3), 0_int32)
          y(j) = transfer(b(at:at + 3), 0_int32)
        end do
        call combine(x, y, r)
        do j = 1, 4
          at = k * EXTENT + LEAF(4 * cell + j) - LMIN + 1
          b(at:at + 3) = transfer(r(j), b(1:4))
        end do
      end do
    end do
  end subroutine

  type(c_ptr) function shifted(p)
    type(c_ptr), intent(in) :: p
    shifted = transfer(transfer(p, 0_c_intptr_t) + LMIN, shifted)
  end function
)";

// mpi_f08: the vectors by C address, len and the datatype by reference.
const char* kUserFnF08 = R"(
  subroutine user_fn(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    call apply(invec, inoutvec, len)
  end subroutine
)";

// mpi: USER_FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE), all by reference.
const char* kUserFnF90 = R"(
  subroutine user_fn(invec, inoutvec, len, datatype)
    integer(int8), target :: invec(*), inoutvec(*)
    integer :: len, datatype
    if (len > 0) call apply(c_loc(invec(1)), c_loc(inoutvec(1)), len)
  end subroutine
)";

const char* kFill = R"(
  ! b(at + 1 :) = the bytes of the hex digits
  subroutine fill(b, at, hex)
    integer(int8), intent(inout) :: b(:)
    integer, intent(in) :: at
    character(len=*), intent(in) :: hex
    integer :: i, v
    do i = 1, len(hex) / 2
      v = 16 * (index('0123456789abcdef', hex(2 * i - 1:2 * i - 1)) - 1) + &
          index('0123456789abcdef', hex(2 * i:2 * i)) - 1
      if (v > 127) v = v - 256
      b(at + i) = int(v, int8)
    end do
  end subroutine
)";

}  // namespace

std::string fortran_source(const ref::Case& c, int p, std::string* why) {
  const bool f08 = c.binding == "f08";
  const std::string module = f08 ? "mpi_f08" : "mpi";
  if (c.op == "witness.tracer-c") {
    *why =
        "its op is made by MPI_Op_create_c, and ordo writes no Fortran user function of the "
        "large-count convention (INTEGER(MPI_COUNT_KIND) len)";
    return {};
  }
  if (c.large_count && !f08) {
    *why = "the mpi module has no large-count forms (the standard gives them to mpi_f08 only)";
    return {};
  }
  const bool witness = ref::witness::is_witness(c.op);
  const ref::Datatype dt = ref::Datatype::parse(c.datatype);
  const std::string comm_t = f08 ? "type(MPI_Comm)" : "integer";
  const std::string type_t = f08 ? "type(MPI_Datatype)" : "integer";
  const std::string op_t = f08 ? "type(MPI_Op)" : "integer";
  const std::string req_t = f08 ? "type(MPI_Request)" : "integer";
  const std::string count_t = c.large_count ? "integer(MPI_COUNT_KIND)" : "integer";
  std::ostringstream o;
  for (const std::string& line :
       header_lines(c, p, "mpifort -o repro repro.f90",
                    {"Binding " + c.binding + ": the call through `use " + module + "`" +
                     (witness ? ", the user function in Fortran." : ".")}))
    for (std::size_t at = 0; at < line.size(); at += 110)  // free form: 132 a line
      o << (at ? "!     " : "! ") << line.substr(at, 110) << "\n";
  if (witness) {
    const auto& tm = dt.typemap();
    std::vector<long> leaf;
    for (const auto& l : tm) leaf.push_back(static_cast<long>(l.disp));
    long lmin = 0, lmax = 0;
    for (long d : leaf) {
      lmin = std::min(lmin, d);
      lmax = std::max(lmax, d + 4);
    }
    const int kernel = static_cast<int>(witness_kernel(c.op));
    o << "\nmodule ordo_repro_witness\n  use, intrinsic :: iso_c_binding\n"
         "  use, intrinsic :: iso_fortran_env, only: int8, int32, int64\n  use "
      << module
      << "\n  implicit none\n"
         "  ! The cells of one element of the case's datatype: leaf displacements in\n"
         "  ! bytes (LEAF), element k at k * EXTENT; the bytes an element's cells span.\n"
      << "  integer, parameter :: NLEAF = " << leaf.size() << ", LMIN = " << lmin
      << ", SPAN = " << lmax - lmin << "\n  integer(int64), parameter :: EXTENT = " << dt.extent()
      << "\n  integer :: LEAF(" << std::max<std::size_t>(1, leaf.size()) << ")\n"
      << "  integer, parameter :: KERNEL = " << kernel << "  ! "
      << (kernel == 0   ? "tracer"
          : kernel == 1 ? "matrix"
                        : "sum")
      << " (" << c.op << ")\ncontains\n  subroutine set_leaf()\n";
    emit_ints(o, "    ", "LEAF", leaf);
    o << "  end subroutine\n"
      << kFortranWitness << (f08 ? kUserFnF08 : kUserFnF90) << "end module\n";
  }
  o << "\nprogram repro\n  use, intrinsic :: iso_fortran_env, only: int8, int32, error_unit\n  use "
    << module << "\n";
  if (witness) o << "  use ordo_repro_witness\n";
  o << "  implicit none\n  integer, parameter :: NRANKS = " << p
    << "\n"
    // ASYNCHRONOUS buffers, for the nonblocking and persistent forms (MPI-4.1
    // Section 19.1.17); no MPI_F_sync_reg: through MPICH 4.0.2's mpi module it
    // crashed here.
    << "  integer(int8), allocatable, target, asynchronous :: sstore(:), rstore(:)\n"
       "  integer(int8), allocatable :: expect(:)\n"
       "  integer(int8), target, asynchronous :: dummy(1)\n"
       "  integer(int8), pointer, contiguous, asynchronous :: sb(:), rb(:)\n"
       "  integer, allocatable :: ranges(:)\n"
       "  integer :: send_mode, so, ro, eo, nranges, i, j, b, from, upto\n"
       "  logical :: has_recv, check, failed\n"
       "  integer :: wrank, wsize, rank, ierr, ierr2, mlen\n"
       "  character(len=MPI_MAX_ERROR_STRING) :: msg\n"
    << "  " << comm_t << " :: comm\n  " << type_t << " :: dt\n  " << op_t << " :: op\n";
  if (c.mode != ref::Mode::blocking) o << "  " << req_t << " :: req\n  logical :: flag\n";
  o << "  " << count_t << " :: count = " << c.count << "\n";
  std::vector<int> counts;
  if (c.routine == ref::Routine::reduce_scatter) {
    counts = recvcounts(c, p);
    o << "  " << count_t << " :: recvcounts(" << counts.size() << ")\n";
  }
  std::vector<TypeStep> steps;
  const std::string top = type_steps(dt, steps);
  for (const TypeStep& s : steps) o << "  " << type_t << " :: " << s.var << "\n";
  if (witness) o << "  integer(int32) :: e(4), g(4)\n";
  o << "\n  call MPI_Init(ierr)\n  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)\n"
       "  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)\n  if (wsize /= NRANKS) then\n"
       "    if (wrank == 0) write (error_unit, '(a,i0,a)') 'run this reproducer with ', NRANKS, "
       "' processes'\n    call MPI_Finalize(ierr)\n    stop 2\n  end if\n";
  if (c.comm == "dup")
    o << "  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)\n";
  else if (c.comm == "reversed")
    o << "  call MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, comm, ierr)\n";
  else
    o << "  comm = MPI_COMM_WORLD\n";
  o << "  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)\n"
       "  call MPI_Comm_rank(comm, rank, ierr)\n";
  if (!counts.empty()) emit_ints(o, "  ", "recvcounts", counts);

  // Each rank's bytes (the reference's), as the C reproducer's RANKS table.
  o << "\n  ! This rank's buffers (the reference's bytes): the send buffer (send_mode\n"
       "  ! 0: not significant, 1: a buffer, 2: MPI_IN_PLACE), the receive buffer, the\n"
       "  ! expected result and its data bytes [begin, end) from the buffer address;\n"
       "  ! the addresses are store + origin (so, ro, eo: negative lower bounds).\n"
       "  select case (rank)\n";
  const auto ranks = rank_data(c, p);
  for (int r = 0; r < p; ++r) {
    const RankData& d = ranks[static_cast<std::size_t>(r)];
    o << "  case (" << r << ")\n    send_mode = " << d.send_mode << "\n    so = " << d.send_origin
      << "\n    ro = " << d.recv_origin << "\n    eo = " << d.expect_origin
      << "\n    has_recv = " << (d.has_recv ? ".true." : ".false.")
      << "\n    check = " << (d.check ? ".true." : ".false.")
      << "\n    nranges = " << d.ranges.size() << "\n    allocate (sstore(max(1, " << d.send.size()
      << ")), rstore(max(1, " << d.recv.size() << ")), expect(max(1, " << d.expect.size()
      << ")), ranges(max(2, " << 2 * d.ranges.size() << ")))\n";
    emit_fill(o, "sstore", d.send);
    emit_fill(o, "rstore", d.recv);
    emit_fill(o, "expect", d.expect);
    std::vector<long> flat;
    for (const auto& br : d.ranges) {
      flat.push_back(static_cast<long>(br.begin));
      flat.push_back(static_cast<long>(br.end));
    }
    emit_ints(o, "    ", "ranges", flat);
  }
  o << "  end select\n";

  // The datatype and the op.
  o << "\n";
  const std::string addr_t = "integer(MPI_ADDRESS_KIND)";
  for (const TypeStep& s : steps) {
    const auto& in = s.ints;
    const auto& ad = s.addrs;
    const std::string& t = s.var;
    switch (s.kind) {
      case K::contiguous:
        o << "  call MPI_Type_contiguous(" << in[0] << ", " << s.kids[0] << ", " << t
          << ", ierr)\n";
        break;
      case K::vector:
        o << "  call MPI_Type_vector(" << in[0] << ", " << in[1] << ", " << in[2] << ", "
          << s.kids[0] << ", " << t << ", ierr)\n";
        break;
      case K::hvector:
        o << "  call MPI_Type_create_hvector(" << in[0] << ", " << in[1] << ", " << ad[0]
          << "_MPI_ADDRESS_KIND, " << s.kids[0] << ", " << t << ", ierr)\n";
        break;
      case K::indexed: {
        const std::size_t k = in.size() / 2;
        o << "  call MPI_Type_indexed(" << k << ", " << array("integer", in, 0, k) << ", &\n      "
          << array("integer", in, k, in.size()) << ", " << s.kids[0] << ", " << t << ", ierr)\n";
        break;
      }
      case K::hindexed:
        o << "  call MPI_Type_create_hindexed(" << in.size() << ", "
          << array("integer", in, 0, in.size()) << ", &\n      " << array(addr_t, ad, 0, ad.size())
          << ", " << s.kids[0] << ", " << t << ", ierr)\n";
        break;
      case K::indexed_block:
        o << "  call MPI_Type_create_indexed_block(" << in.size() - 1 << ", " << in[0] << ", "
          << array("integer", in, 1, in.size()) << ", " << s.kids[0] << ", " << t << ", ierr)\n";
        break;
      case K::struct_:
        o << "  call MPI_Type_create_struct(" << in.size() << ", "
          << array("integer", in, 0, in.size()) << ", &\n      " << array(addr_t, ad, 0, ad.size())
          << ", &\n      " << array(f08 ? "MPI_Datatype" : "integer", s.kids, 0, s.kids.size())
          << ", " << t << ", ierr)\n";
        break;
      case K::resized:
        o << "  call MPI_Type_create_resized(" << s.kids[0] << ", " << ad[0]
          << "_MPI_ADDRESS_KIND, " << ad[1] << "_MPI_ADDRESS_KIND, " << t << ", ierr)\n";
        break;
      case K::dup:
        o << "  call MPI_Type_dup(" << s.kids[0] << ", " << t << ", ierr)\n";
        break;
      case K::value_index:  // MPI-4.1 6.9.4: a predefined pair type, neither committed nor freed
        o << "  call MPI_Type_get_value_index(" << s.kids[0] << ", " << s.kids[1] << ", " << t
          << ", ierr)\n";
        break;
      default:
        break;
    }
  }
  o << "  dt = " << top << "\n";
  if (!dt.predefined()) o << "  call MPI_Type_commit(dt, ierr)\n";
  if (witness)
    o << "  call set_leaf()\n  call MPI_Op_create(user_fn, "
      << (ref::witness::make(c.op).commutative() ? ".true." : ".false.") << ", op, ierr)\n";
  else
    o << "  op = " << c.op << "\n";

  // The call, as the C reproducer makes it.
  o << "\n  sb => dummy\n  rb => dummy\n  if (send_mode == 1) sb => sstore(so + 1:)\n"
       "  if (has_recv) rb => rstore(ro + 1:)\n";
  const std::string name = call_name(c);
  std::string rest =
      std::string(c.routine == ref::Routine::reduce_scatter ? "recvcounts" : "count") +
      ", dt, op, " + (c.routine == ref::Routine::reduce ? std::to_string(c.root) + ", " : "") +
      "comm";
  if (c.mode == ref::Mode::nonblocking) rest += ", req";
  if (c.mode == ref::Mode::persistent) rest += ", MPI_INFO_NULL, req";
  // mpi_f08 names the large-count form by the kind of its count (a generic);
  // the _c name is C's.
  const std::string fname = c.large_count ? name.substr(0, name.size() - 2) : name;
  o << "  if (send_mode == 2) then\n    call " << fname << "(MPI_IN_PLACE, rb, " << rest
    << ", ierr)\n  else\n    call " << fname << "(sb, rb, " << rest << ", ierr)\n  end if\n";
  if (c.mode == ref::Mode::persistent)
    o << "  if (ierr == MPI_SUCCESS) call MPI_Start(req, ierr)\n";
  if (c.mode == ref::Mode::nonblocking && c.concurrency == "freed") {
    o << "  ! the op and the datatype freed while the request is pending (allowed)\n";
    if (witness) o << "  if (ierr == MPI_SUCCESS) call MPI_Op_free(op, ierr)\n";
    if (!dt.predefined()) o << "  if (ierr == MPI_SUCCESS) call MPI_Type_free(dt, ierr)\n";
  }
  if (c.mode != ref::Mode::blocking) {
    if (c.concurrency == "test")
      o << "  flag = .false.\n  do while (ierr == MPI_SUCCESS .and. .not. flag)\n"
           "    call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)\n  end do\n";
    else
      o << "  if (ierr == MPI_SUCCESS) call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)\n";
    if (c.mode == ref::Mode::persistent)
      o << "  if (ierr == MPI_SUCCESS) call MPI_Request_free(req, ierr)\n";
  }

  // The comparison, as the C reproducer's.
  o << R"(
  failed = .false.
  if (ierr /= MPI_SUCCESS) then
    call MPI_Error_string(ierr, msg, mlen, ierr2)
    write (*, '(a,i0,a)') 'rank ', rank, ': )"
    << name << R"( returned ' // msg(1:mlen)
    failed = .true.
  else if (check) then
    outer: do i = 1, nranges
      do b = ranges(2 * i - 1), ranges(2 * i) - 1
        if (expect(eo + b + 1) /= rstore(ro + b + 1)) then
          from = max(ranges(1), b - mod(b, 4) - 8)
          upto = min(from + 32, ranges(2 * nranges)) - 1
          write (*, '(a,i0,a,i0,a)') 'rank ', rank, ': result differs at byte ', b, ' of the receive buffer'
          write (*, '(a,*(1x,z2.2))') '  expected:', expect(eo + from + 1:eo + upto + 1)
          write (*, '(a,*(1x,z2.2))') '  observed:', rstore(ro + from + 1:ro + upto + 1)
          write (*, '(a,i0,a)') '  (bytes from offset ', from, ')'
)";
  if (witness)
    o << R"(          do j = 1, 4
            e(j) = transfer(expect(eo + LEAF(j) + 1:eo + LEAF(j) + 4), 0_int32)
            g(j) = transfer(rstore(ro + LEAF(j) + 1:ro + LEAF(j) + 4), 0_int32)
          end do
          write (*, '(a,4(1x,i0),a,4(1x,i0))') '  element 0, cell 0: expected', e, ', observed', g
)";
  o << R"(          failed = .true.
          exit outer
        end if
      end do
    end do outer
  end if
  if (.not. failed) write (*, '(a,i0,a)') 'rank ', rank, ': ok'
  flush (6)
  call MPI_Finalize(ierr)
  if (failed) stop 1
contains
)" << kFill
    << "end program\n";
  return o.str();
}

}  // namespace ordo::props::repro

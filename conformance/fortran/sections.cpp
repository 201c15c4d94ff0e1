// mpi_f08 nonblocking reductions on non-contiguous array sections,
// a(1:2n:2) (sections_f08.F90), where the library's mpi_f08 module says
// MPI_SUBARRAYS_SUPPORTED = .true.; a skip with that reason where it does not.
// The result is the reference's; the elements between the section's must
// stay as they were, in both arrays.
#include <gtest/gtest.h>

#include "fortran_programs.h"

using namespace ordo::catalogue;
using namespace ordo::catalogue::fortran_programs;

#if defined(ORDO_HAVE_FORTRAN_F08) && defined(ORDO_FORTRAN_SUBARRAYS)
extern "C" int ordo_sections_f08_call(MPI_Fint comm, int routine, int root, int n, int* sendbuf,
                                      int* recvbuf);
#endif

TEST(Fortran_sections, nonblocking_calls_on_every_other_element_of_an_array_reduce_that_section) {
  ORDO_CLAUSE("fortran.bindings", MUST);
  const int p = ordo::harness::world_size(), root = p - 1, n = 5;
  for (Routine r : {Routine::reduce, Routine::allreduce, Routine::scan}) {
    Case c = make(r, "MPI_SUM", "MPI_INTEGER", n);
    c.root = r == Routine::reduce ? root : 0;
    c.mode = Mode::nonblocking;
    c.binding = "f08";
#ifndef ORDO_FORTRAN_SUBARRAYS
    if (!ordo::harness::missing_feature(c)) {  // else: the binding's own reason
      if (ordo::harness::begin_case(&c))
        ordo::harness::record(c,
                              {LocalVerdict::Status::skip,
                               "MPI_SUBARRAYS_SUPPORTED is .false. in this library's mpi_f08 "
                               "module: no array sections in nonblocking calls",
                               ""},
                              0, 0);
      continue;
    }
#endif
    run_example(
        c,
        [&](std::string* in, std::string* out) {
          std::vector<int> a(2 * n), b(2 * n);
          int rc = MPI_ERR_OTHER;
#if defined(ORDO_HAVE_FORTRAN_F08) && defined(ORDO_FORTRAN_SUBARRAYS)
          rc = ordo_sections_f08_call(MPI_Comm_c2f(ordo::harness::zoo("world").comm),
                                      static_cast<int>(r), root, n, a.data(), b.data());
#endif
          std::vector<int> section(n);
          for (int i = 0; i < n; ++i) section[i] = a[2 * i];
          *in = bytes_of(section.data(), n);
          *out = bytes_of(a.data(), 2 * n) + bytes_of(b.data(), 2 * n);
          return ierror(rc);
        },
        [&](const std::vector<std::string>& inputs,
            const std::vector<std::string>& outputs) -> std::string {
          for (int rank = 0; rank < p; ++rank) {
            const std::string& out = outputs[static_cast<std::size_t>(rank)];
            std::vector<int> a(2 * n), b(2 * n);
            std::memcpy(a.data(), out.data(), a.size() * sizeof(int));
            std::memcpy(b.data(), out.data() + a.size() * sizeof(int), b.size() * sizeof(int));
            const std::string where = " on rank " + std::to_string(rank);
            for (int i = 0; i < n; ++i)
              if (a[2 * i + 1] != -7 || b[2 * i + 1] != -1)
                return "an element between the section's elements was written: a(" +
                       std::to_string(2 * i + 2) + ") = " + std::to_string(a[2 * i + 1]) + ", b(" +
                       std::to_string(2 * i + 2) + ") = " + std::to_string(b[2 * i + 1]) + where;
            if (r == Routine::reduce && rank != root) continue;
            const ref::Buffer want =
                reference_result(inputs, ref::Datatype::basic(ref::Basic::INTEGER), n,
                                 ref::PredefinedOp::SUM, r, rank);
            for (int i = 0; i < n; ++i) {
              int w;
              std::memcpy(&w, want.element(i), sizeof w);
              if (b[2 * i] != w)
                return "b(" + std::to_string(2 * i + 1) + "): expected " + std::to_string(w) +
                       ", observed " + std::to_string(b[2 * i]) + where;
            }
          }
          return "";
        });
  }
}

// MPI_F_SYNC_REG(buf) after a nonblocking reduction completes, as a Fortran
// program of each module calls it to keep the compiler from using a
// register copy of the receive buffer (MPI-4.1 20.1.8, 20.1.17): the routine
// has no executable statements, one argument and no ierror, so the call
// must change nothing and the result must be the reference's.
#include <gtest/gtest.h>

#include "fortran_programs.h"

using namespace ordo::catalogue;
using namespace ordo::catalogue::fortran_programs;

extern "C" {
#ifdef ORDO_HAVE_FORTRAN_F90
int ordo_sync_reg_f90_call(MPI_Fint comm, int n, int* sendbuf, int* recvbuf);
#endif
#ifdef ORDO_HAVE_FORTRAN_F08
int ordo_sync_reg_f08_call(MPI_Fint comm, int n, int* sendbuf, int* recvbuf);
#endif
}

TEST(Fortran_sync_reg, mpi_f_sync_reg_after_a_nonblocking_reduction_leaves_the_result_alone) {
  ORDO_CLAUSE("fortran.sync-reg", MUST);
  const int n = 6;
  for (const char* binding : {"f08", "f90"}) {
    Case c = make(Routine::allreduce, "MPI_SUM", "MPI_INTEGER", n);
    c.mode = Mode::nonblocking;
    c.binding = binding;
    const std::string b = binding;
    run_example(
        c,
        [&](std::string* in, std::string* out) {
          std::vector<int> a(n), r(n);
          int rc = MPI_ERR_OTHER;
          const MPI_Fint comm = MPI_Comm_c2f(ordo::harness::zoo("world").comm);
#ifdef ORDO_HAVE_FORTRAN_F08
          if (b == "f08") rc = ordo_sync_reg_f08_call(comm, n, a.data(), r.data());
#endif
#ifdef ORDO_HAVE_FORTRAN_F90
          if (b == "f90") rc = ordo_sync_reg_f90_call(comm, n, a.data(), r.data());
#endif
          *in = bytes_of(a.data(), n);
          *out = bytes_of(r.data(), n);
          return ierror(rc);
        },
        [&](const std::vector<std::string>& inputs,
            const std::vector<std::string>& outputs) -> std::string {
          for (std::size_t rank = 0; rank < outputs.size(); ++rank) {
            const ref::Buffer want = reference_result(
                inputs, ref::Datatype::basic(ref::Basic::INTEGER), n, ref::PredefinedOp::SUM,
                Routine::allreduce, static_cast<int>(rank));
            for (int i = 0; i < n; ++i) {
              int w, got;
              std::memcpy(&w, want.element(i), sizeof w);
              std::memcpy(&got, outputs[rank].data() + i * sizeof(int), sizeof got);
              if (got != w)
                return "b(" + std::to_string(i + 1) + "): expected " + std::to_string(w) +
                       ", observed " + std::to_string(got) + " on rank " + std::to_string(rank);
            }
          }
          return "";
        });
  }
}

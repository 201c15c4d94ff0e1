// The seeds' Examples 5.18 to 5.20 (MPI-4.1 6.9.4, 6.9.5) as Fortran programs
// (seeds_examples_f08.F90): each process runs the example's program logic in
// Fortran through the mpi_f08 module; the expected result is the
// reference's fold of the inputs the Fortran programs used, gathered over
// the harness's own point-to-point communicator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "fortran_programs.h"

using namespace ordo::catalogue;
using namespace ordo::catalogue::fortran_programs;

#ifdef ORDO_HAVE_FORTRAN_F08
extern "C" {
int ordo_example_5_18_f08(MPI_Fint comm, int root, double* in, double* aout, int* ind);
int ordo_example_5_19_f08(MPI_Fint comm, int root, float* in, float* minval, int* minrank,
                          int* minindex);
int ordo_example_5_20_f08(MPI_Fint comm, int root, int commute, double* in, double* answer,
                          int* other_handles);
}
#endif

TEST(Fortran_seeds,
     example_5_18_maxloc_on_2double_precision_pairs_finds_the_value_and_lowest_rank) {
  ORDO_CLAUSE("fortran.types", MUST);
  const int root = ordo::harness::world_size() - 1;
  const Case c = example_case("MPI_MAXLOC", "MPI_2DOUBLE_PRECISION", 30, root);
  run_example(
      c,
      [&](std::string* in, std::string* out) {
        double inp[60] = {}, aout[30] = {};
        int ind[30] = {};
        int rc = MPI_ERR_OTHER;
#ifdef ORDO_HAVE_FORTRAN_F08
        rc = ordo_example_5_18_f08(MPI_Comm_c2f(ordo::harness::zoo("world").comm), root, inp, aout,
                                   ind);
#endif
        *in = bytes_of(inp, 60);
        *out = bytes_of(aout, 30) + bytes_of(ind, 30);
        return ierror(rc);
      },
      [&](const std::vector<std::string>& inputs,
          const std::vector<std::string>& outputs) -> std::string {
        const std::string& out = outputs[static_cast<std::size_t>(root)];
        const ref::Buffer want =
            reference_reduce(inputs, ref::Datatype::basic(ref::Basic::TWO_DOUBLE_PRECISION), 30,
                             ref::PredefinedOp::MAXLOC, root);
        for (int i = 0; i < 30; ++i) {
          double pair[2], aout;
          int ind;
          std::memcpy(pair, want.element(i), sizeof pair);
          std::memcpy(&aout, out.data() + i * sizeof(double), sizeof aout);
          std::memcpy(&ind, out.data() + 30 * sizeof(double) + i * sizeof(int), sizeof ind);
          if (aout != pair[0] || ind != static_cast<int>(pair[1]))
            return "aout(" + std::to_string(i + 1) + "), ind(" + std::to_string(i + 1) +
                   "): expected " + std::to_string(pair[0]) + ", " +
                   std::to_string(static_cast<int>(pair[1])) + ", observed " +
                   std::to_string(aout) + ", " + std::to_string(ind) + " at the root";
        }
        return "";
      });
}

TEST(Fortran_seeds, example_5_19_minloc_on_2real_pairs_finds_the_value_rank_and_local_index) {
  ORDO_CLAUSE("fortran.types", MUST);
  const int root = ordo::harness::world_size() - 1;
  const Case c = example_case("MPI_MINLOC", "MPI_2REAL", 1, root);
  run_example(
      c,
      [&](std::string* in, std::string* out) {
        float inp[2] = {}, minval = 0;
        int minrank = 0, minindex = 0;
        int rc = MPI_ERR_OTHER;
#ifdef ORDO_HAVE_FORTRAN_F08
        rc = ordo_example_5_19_f08(MPI_Comm_c2f(ordo::harness::zoo("world").comm), root, inp,
                                   &minval, &minrank, &minindex);
#endif
        *in = bytes_of(inp, 2);
        *out = bytes_of(&minval, 1) + bytes_of(&minrank, 1) + bytes_of(&minindex, 1);
        return ierror(rc);
      },
      [&](const std::vector<std::string>& inputs,
          const std::vector<std::string>& outputs) -> std::string {
        const std::string& out = outputs[static_cast<std::size_t>(root)];
        const ref::Buffer want = reference_reduce(
            inputs, ref::Datatype::basic(ref::Basic::TWO_REAL), 1, ref::PredefinedOp::MINLOC, root);
        float pair[2], minval;
        int minrank, minindex;
        std::memcpy(pair, want.element(0), sizeof pair);
        std::memcpy(&minval, out.data(), sizeof minval);
        std::memcpy(&minrank, out.data() + 4, sizeof minrank);
        std::memcpy(&minindex, out.data() + 8, sizeof minindex);
        const int index = static_cast<int>(pair[1]);
        if (minval != pair[0] || minrank != index / 1000 || minindex != index % 1000)
          return "minval, minrank, minindex: expected " + std::to_string(pair[0]) + ", " +
                 std::to_string(index / 1000) + ", " + std::to_string(index % 1000) +
                 ", observed " + std::to_string(minval) + ", " + std::to_string(minrank) + ", " +
                 std::to_string(minindex) + " at the root";
        return "";
      });
}

TEST(Fortran_seeds, example_5_20_a_fortran_user_function_multiplies_100_complex_numbers) {
  ORDO_CLAUSE("fortran.bindings", MUST);
  const int root = ordo::harness::world_size() - 1;
  for (int commute : {0, 1}) {
    // The call as a case: the product is what MPI_PROD on MPI_DOUBLE_COMPLEX
    // gives (the reference's fold); the example makes it with its own op.
    const Case c = example_case("MPI_PROD", "MPI_DOUBLE_COMPLEX", 100, root);
    int other_handles = 0;
    run_example(
        c,
        [&](std::string* in, std::string* out) {
          double inp[200] = {}, answer[200] = {};
          int rc = MPI_ERR_OTHER;
#ifdef ORDO_HAVE_FORTRAN_F08
          rc = ordo_example_5_20_f08(MPI_Comm_c2f(ordo::harness::zoo("world").comm), root, commute,
                                     inp, answer, &other_handles);
#endif
          *in = bytes_of(inp, 200);
          *out = bytes_of(answer, 200);
          if (other_handles != 0)
            return std::to_string(other_handles) +
                   " calls of the Fortran user function my_prod received a datatype handle "
                   "other than the call's";
          return ierror(rc);
        },
        [&](const std::vector<std::string>& inputs,
            const std::vector<std::string>& outputs) -> std::string {
          const std::string& out = outputs[static_cast<std::size_t>(root)];
          const ref::Buffer want =
              reference_reduce(inputs, ref::Datatype::basic(ref::Basic::DOUBLE_COMPLEX), 100,
                               ref::PredefinedOp::PROD, root);
          for (int i = 0; i < 200; ++i) {
            double w, o;
            std::memcpy(&w, want.data() + i * sizeof(double), sizeof w);
            std::memcpy(&o, out.data() + i * sizeof(double), sizeof o);
            if (w != o)
              return "answer(" + std::to_string(i / 2 + 1) + ") " + (i % 2 ? "imag" : "real") +
                     " part: expected " + std::to_string(w) + ", observed " + std::to_string(o) +
                     " at the root (my_prod declared commute = " + std::to_string(commute) + ")";
          }
          return "";
        });
  }
}

// The worked examples of MPI-2.2 Section 5.9.4 and 5.9.5 (now MPI-4.1
// Sections 6.9.4 and 6.9.5), from the project's seeds (mpi-2.2-ch5.9-minloc-
// maxloc-user-ops.txt), run through the reference as the examples write them.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <vector>

#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;

namespace {

struct DoubleRank {  // Example 5.17: struct { double val; int rank; }
  double val;
  int rank;
};
struct FloatIndex {  // Example 5.19: struct { float value; int index; }
  float value;
  int index;
};
struct Complex {  // Example 5.20
  double real, imag;
};

// Example 5.17's ain[i] on rank r: few distinct values, so the maximum is
// often held by several ranks.
double ain(int r, int i) { return 0.5 * ((i * 3 + r * 5) % 4); }

// Example 5.20's user function, as printed (inout := inout * in, elementwise).
void myProd(const std::byte* invec, std::byte* inoutvec, int len, const Datatype&) {
  for (int i = 0; i < len; ++i) {
    Complex in, inout, c;
    std::memcpy(&in, invec + i * sizeof(Complex), sizeof in);
    std::memcpy(&inout, inoutvec + i * sizeof(Complex), sizeof inout);
    c.real = inout.real * in.real - inout.imag * in.imag;
    c.imag = inout.real * in.imag + inout.imag * in.real;
    std::memcpy(inoutvec + i * sizeof(Complex), &c, sizeof c);
  }
}

// Example 5.20's a[i] on rank r: small integer parts keep every product exact.
Complex a(int r, int i) { return {double((r + i) % 3 - 1), double((r * i) % 2 + 1)}; }

}  // namespace

TEST(SeedsExamples,
     example_5_17_maxloc_over_30_doubles_finds_the_value_and_lowest_rank_holding_it) {
  const int p = 5, root = 3, n = 30;
  const Datatype dt = Datatype::basic(Basic::DOUBLE_INT);
  std::vector<Buffer> in;
  for (int r = 0; r < p; ++r) {
    in.emplace_back(dt, n);
    for (int i = 0; i < n; ++i) {
      const DoubleRank x{ain(r, i), r};  // in[i].val = ain[i]; in[i].rank = myrank;
      std::memcpy(in.back().element(i), &x, sizeof x);
    }
  }
  auto out = test::recv_buffers(dt, p, n);
  reduce(in, Op::predefined(PredefinedOp::MAXLOC), root, out);
  for (int i = 0; i < n; ++i) {
    // Brute force: the largest value, and the first (lowest) rank holding it.
    double best = ain(0, i);
    int who = 0;
    for (int r = 1; r < p; ++r)
      if (ain(r, i) > best) {
        best = ain(r, i);
        who = r;
      }
    DoubleRank o;
    std::memcpy(&o, out[root].element(i), sizeof o);
    EXPECT_EQ(o.val, best) << "i = " << i;  // aout[i]
    EXPECT_EQ(o.rank, who) << "i = " << i;  // ind[i]
  }
  // By hand: i = 0 has values 0, 0.5, 1, 1.5, 0 (max on rank 3); i = 1 has
  // 1.5, 0, 0.5, 1, 1.5 (tie between ranks 0 and 4: rank 0).
  DoubleRank o0, o1;
  std::memcpy(&o0, out[root].element(0), sizeof o0);
  std::memcpy(&o1, out[root].element(1), sizeof o1);
  EXPECT_EQ(o0.val, 1.5);
  EXPECT_EQ(o0.rank, 3);
  EXPECT_EQ(o1.val, 1.5);
  EXPECT_EQ(o1.rank, 0);
}

TEST(SeedsExamples, example_5_18_the_same_maxloc_with_2double_precision_pairs) {
  // The Fortran version coerces the rank to DOUBLE PRECISION: (value, rank) pairs.
  const int p = 5, n = 30;
  const Datatype dt = Datatype::basic(Basic::TWO_DOUBLE_PRECISION);
  std::vector<Buffer> in;
  for (int r = 0; r < p; ++r) {
    in.emplace_back(dt, n);
    for (int i = 0; i < n; ++i) {
      const double x[2] = {ain(r, i), double(r)};
      std::memcpy(in.back().element(i), x, sizeof x);
    }
  }
  auto out = test::recv_buffers(dt, p, n);
  allreduce(in, Op::predefined(PredefinedOp::MAXLOC), out);
  double o[2];
  std::memcpy(o, out[4].element(1), sizeof o);
  EXPECT_EQ(o[0], 1.5);
  EXPECT_EQ(o[1], 0.0);
}

TEST(SeedsExamples, example_5_19_minloc_with_a_global_index_finds_value_rank_and_local_index) {
  const int p = 4, LEN = 1000, root = 0;
  // Local arrays: values 100..149 everywhere, except the planted minimum -2.5
  // on rank 1 at 700 and on rank 3 at 5, and -2.0 on rank 2 at 10.
  auto val = [](int r, int j) -> float {
    if ((r == 1 && j == 700) || (r == 3 && j == 5)) return -2.5f;
    if (r == 2 && j == 10) return -2.0f;
    return float(100 + (j * 7 + r) % 50);
  };
  const Datatype dt = Datatype::basic(Basic::FLOAT_INT);
  std::vector<Buffer> in;
  for (int myrank = 0; myrank < p; ++myrank) {
    // local minloc, as in the example
    FloatIndex x{val(myrank, 0), 0};
    for (int i = 1; i < LEN; ++i)
      if (val(myrank, i) < x.value) {
        x.value = val(myrank, i);
        x.index = i;
      }
    x.index = myrank * LEN + x.index;  // global minloc
    in.emplace_back(dt, 1);
    std::memcpy(in.back().data(), &x, sizeof x);
  }
  auto out = test::recv_buffers(dt, p, 1);
  reduce(in, Op::predefined(PredefinedOp::MINLOC), root, out);
  FloatIndex o;
  std::memcpy(&o, out[root].data(), sizeof o);
  EXPECT_EQ(o.value, -2.5f);      // minval
  EXPECT_EQ(o.index / LEN, 1);    // minrank
  EXPECT_EQ(o.index % LEN, 700);  // minindex
}

TEST(SeedsExamples, example_5_20_user_defined_complex_product_over_100_complexes) {
  const int p = 4, n = 100;
  const Datatype contiguous = Datatype::contiguous(2, Datatype::basic(Basic::DOUBLE));
  const Datatype strct = Datatype::struct_(
      {1, 1}, {0, 8}, {Datatype::basic(Basic::DOUBLE), Datatype::basic(Basic::DOUBLE)});
  for (const Datatype& ctype : {contiguous, strct}) {
    for (bool commute : {false, true}) {
      SCOPED_TRACE(ctype.text() + (commute ? " commute" : " non-commutative"));
      EXPECT_EQ(ctype.extent(), 16);
      const Op myOp = Op::user("myProd", myProd, commute);
      EXPECT_EQ(myOp.commutative(), commute);
      std::vector<Buffer> in;
      for (int r = 0; r < p; ++r) {
        in.emplace_back(ctype, n);
        for (int i = 0; i < n; ++i) {
          const Complex c = a(r, i);
          std::memcpy(in.back().element(i), &c, sizeof c);
        }
      }
      auto answer = test::recv_buffers(ctype, p, n);
      reduce(in, myOp, 0, answer);
      for (int i = 0; i < n; ++i) {
        std::complex<double> e(a(0, i).real, a(0, i).imag);
        for (int r = 1; r < p; ++r) e *= std::complex<double>(a(r, i).real, a(r, i).imag);
        Complex o;
        std::memcpy(&o, answer[0].element(i), sizeof o);
        EXPECT_EQ(o.real, e.real()) << "i = " << i;
        EXPECT_EQ(o.imag, e.imag()) << "i = " << i;
      }
      // By hand, i = 0: (-1+i)(0+i)(1+i)(-1+i) = (-1-i)(1+i)(-1+i) = (-2i)(-1+i) = 2+2i.
      Complex o0;
      std::memcpy(&o0, answer[0].data(), sizeof o0);
      EXPECT_EQ(o0.real, 2.0);
      EXPECT_EQ(o0.imag, 2.0);
    }
  }
}

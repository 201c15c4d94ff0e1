// Throughput of the reference fold: element-combines per second for a
// contiguous predefined op on a basic type, p ranks folded in rank order.
// Prints one table; the figure is (p - 1) * count combines per fold.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ordo/reference/semantics.h"

using namespace ordo::ref;

namespace {

double measure(const char* op_name, const char* type, int p, int count, int reps) {
  const Datatype dt = Datatype::parse(type);
  const Op op = Op::predefined(*op_from_name(op_name));
  std::vector<Buffer> in;
  for (int r = 0; r < p; ++r) {
    Buffer b(dt, count);
    for (std::size_t i = 0; i < b.storage().size(); ++i)
      b.storage()[i] = static_cast<std::byte>((i * 31 + static_cast<std::size_t>(r)) & 0x3f);
    in.push_back(std::move(b));
  }
  std::vector<const Buffer*> ptrs;
  for (auto& b : in) ptrs.push_back(&b);
  double best = 1e30;
  volatile unsigned sink = 0;
  for (int k = 0; k < reps; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    Buffer res = fold(ptrs, op);
    const auto t1 = std::chrono::steady_clock::now();
    sink = sink + static_cast<unsigned>(res.storage()[0]);
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return static_cast<double>(p - 1) * count / best;
}

}  // namespace

int main(int argc, char** argv) {
  const int p = argc > 1 ? std::atoi(argv[1]) : 8;
  const int count = argc > 2 ? std::atoi(argv[2]) : 1 << 20;
  std::printf("%-10s %-12s %3s %10s %16s\n", "op", "datatype", "p", "count", "combines/s");
  const char* cases[][2] = {{"MPI_SUM", "MPI_INT"},
                            {"MPI_SUM", "MPI_DOUBLE"},
                            {"MPI_MAX", "MPI_INT64_T"},
                            {"MPI_BXOR", "MPI_UINT8_T"},
                            {"MPI_PROD", "MPI_C_DOUBLE_COMPLEX"},
                            {"MPI_MAXLOC", "MPI_DOUBLE_INT"}};
  for (auto& c : cases)
    std::printf("%-10s %-12s %3d %10d %16.3e\n", c[0], c[1], p, count,
                measure(c[0], c[1], p, count, 5));
  return 0;
}

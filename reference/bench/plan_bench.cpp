// The reference's cost per case on one rank: ref::plan (inputs, the fold,
// the expected result), the part of a check that every rank of a job runs
// before the library's call. One table: microseconds per plan, per case kind
// and communicator size, the median of several repetitions (a rank of a
// p-process job computes this once per case: p of them on the machine).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

using namespace ordo::ref;

namespace {

double median_us(const Case& c, int p, int reps) {
  const Topology t{false, p, 0};
  const Role me{0, p - 1};
  std::vector<double> us;
  volatile std::size_t sink = 0;
  for (int k = 0; k < reps; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    const RankPlan pl = plan(c, t, me, false);
    const auto t1 = std::chrono::steady_clock::now();
    sink = sink + pl.send_count;
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

Case make_case(const char* routine, const char* op, const char* type, int count) {
  std::string j = std::string("{\"routine\":\"") + routine + "\",\"op\":\"" + op +
                  "\",\"datatype\":\"" + type + "\",\"count\":" + std::to_string(count) +
                  ",\"root\":0,\"comm\":\"world\",\"exact\":true,\"seed\":1}";
  return Case::from_json(j);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  struct Kind {
    const char *routine, *op, *type;
    int count;
  };
  const Kind kinds[] = {
      {"allreduce", "MPI_SUM", "MPI_INT", 1000},
      {"allreduce", "MPI_SUM", "MPI_DOUBLE", 70000},
      {"allreduce", "witness.multiset", "contiguous(4,MPI_INT)", 65536},
      {"allreduce", "witness.tracer", "contiguous(4,MPI_INT)", 65536},
      {"allreduce", "witness.matrix", "contiguous(4,MPI_UINT32_T)", 4096},
      {"scan", "witness.multiset", "contiguous(4,MPI_INT)", 65536},
      {"reduce_scatter_block", "MPI_SUM", "MPI_DOUBLE", 1000},
      {"reduce_scatter_block", "witness.multiset", "contiguous(4,MPI_INT)", 65536},
      {"reduce_scatter", "MPI_SUM", "MPI_DOUBLE", 70000},
  };
  std::printf("%-22s %-18s %-28s %7s %12s %12s %12s\n", "routine", "op", "datatype", "count",
              "us p=2", "us p=4", "us p=8");
  for (const Kind& k : kinds) {
    const Case c = make_case(k.routine, k.op, k.type, k.count);
    std::printf("%-22s %-18s %-28s %7d", k.routine, k.op, k.type, k.count);
    for (int p : {2, 4, 8}) std::printf(" %12.1f", median_us(c, p, reps));
    std::printf("\n");
  }
  return 0;
}

#include <gtest/gtest.h>

#include <cstring>

#include "ordo/reference/semantics.h"

using namespace ordo::ref;

TEST(Fold, sums_three_ints_in_rank_order) {
  const Datatype dt = Datatype::basic(Basic::INT);
  std::vector<Buffer> in;
  for (int v : {1, 2, 4}) {
    Buffer b(dt, 1);
    std::memcpy(b.data(), &v, 4);
    in.push_back(b);
  }
  Buffer r = fold({&in[0], &in[1], &in[2]}, Op::predefined(PredefinedOp::SUM));
  int out;
  std::memcpy(&out, r.data(), 4);
  EXPECT_EQ(out, 7);
}

// One case on this rank: its call (the first start of a persistent one, and
// the starts after it; with the other calls of its concurrency), judged
// against the reference.
#pragma once

#include <string>

#include "comm_zoo.h"
#include "executor.h"
#include "harness.h"
#include "ordo/reference/case.h"

namespace ordo::harness {

struct RankResult {
  LocalVerdict verdict;
  std::string
      observed;  // allreduce with inexact inputs: the receive buffer, for the identical check
  double seconds = 0;
};

// On a rank of the case's communicator z; collective over it.
RankResult run_on_rank(const ref::Case& c, const CaseOptions& options, const ZooComm& z);

}  // namespace ordo::harness

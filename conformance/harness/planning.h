// A case's plan at this rank (ordo/reference/oracle.h): its buffers and the
// expected result, made by the reference, or taken from the run's
// expected-result cache (expect_cache.h) or from the node's store of folds
// (shared_folds.h) when those serve the case.
#pragma once

#include <memory>
#include <optional>

#include "comm_zoo.h"
#include "expect_cache.h"
#include "guarded_buffer.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"
#include "shared_folds.h"

namespace ordo::harness {

// With the digest of its expected result in the run's cache, the plan of
// its own buffers (no other rank's input made, nothing reduced) and the
// digest, for with_expected() after the call; otherwise ref::plan(), whose
// expected result's digest is then kept.
struct Planned {
  ref::RankPlan plan;
  std::optional<expect_cache::Digest> cached;
  // The case's folds in the node's store (shared_folds.h): the expected
  // result is made from them after the call, and kept in the cache then.
  std::shared_ptr<shared_folds::Claim> folds;
  std::optional<expect_cache::Digest> key;
};

Planned plan_case(const ref::Case& c, const ZooComm& z);

// After the call: a plan made from the cache gets its expected result, the
// library's receive buffer when that has the digest of the reference's
// expected result (then byte for byte the same), else the reference's own
// (ref::plan), which judges the call as without the cache; a plan of shared
// folds gets it from them.
void with_expected(Planned* p, const ref::Case& c, const ZooComm& z,
                   const std::optional<GuardedBuffer>& recv);

}  // namespace ordo::harness

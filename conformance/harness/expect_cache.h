// The expected-result cache of a run.
//
// An algorithm sweep runs every case of a routine once per variant, and each
// rank of each run planned the case with the reference (ref::plan: every
// rank's input made and reduced, at every rank: at 8 processes the largest
// phase of a case). The reference's answer does not depend on the variant:
// the first plan() of a case at a role keeps a digest of that rank's expected
// receive buffer (XXH3, 128 bits, over its bytes, holes included) in the
// run's cache folder (an exact case's: an inexact floating-point result is
// judged within an error bound, and a library's order of evaluation gives
// other bits); a later launch of the same build that meets the same
// case, topology and role plans from its own buffers (ref::plan_buffers) and,
// after the call, takes the library's receive buffer as the expected result
// when its digest is the reference's. Any other result is judged exactly as
// without the cache: plan() is computed then, and its expected result judges
// the call (the same verdict and the same message). Only a buffer compared in
// full is kept (not the in-place Reduce_scatter whose tail is not compared),
// and DETECT cases never use it.
//
// The key is the case's JSON (every argument and the seed), the topology,
// the role, and the build's identity (build_id.h), so two executables of one
// build share the cache and another build never reads it. One file per world
// size and world rank (cache/expect-<build>-p<size>-r<rank>.bin), appended
// one whole entry at a time; a cut-short last entry is ignored.
#pragma once

#include <cstdint>
#include <optional>

#include "ordo/reference/buffer.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::harness::expect_cache {

struct Digest {
  std::uint64_t low = 0, high = 0;
  bool operator==(const Digest& o) const { return low == o.low && high == o.high; }
};

// True when the run gave a cache folder (--ordo-cache-dir).
bool enabled();
Digest key(const ref::Case& c, const ref::Topology& t, ref::Role me);
// The digest of a buffer's bytes (its whole storage, holes included) and shape.
Digest digest(const ref::Buffer& b);
// The same digest of n bytes laid out as `shape` (a library's receive buffer
// read in place: the digest of the buffer its contents would make).
Digest digest(const ref::Buffer& shape, const std::byte* bytes, std::size_t n);
std::optional<Digest> get(const Digest& key);
void put(const Digest& key, const Digest& expected);

// What the cache did in this process: plans made from the own buffers whose
// result matched the digest (hits), and those that did not (the reference
// computed after the call), and full plans whose digest was kept.
struct Counts {
  long long hits = 0, mismatches = 0, kept = 0;
};
Counts counts();
void count_hit();
void count_mismatch();

}  // namespace ordo::harness::expect_cache

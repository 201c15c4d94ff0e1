#include "mutants.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ordo::refmpi {
namespace {

// Names in the order of the enum; vendors/mutants/mutants.json lists the same
// names with their descriptions (the mutant driver checks that they agree).
constexpr const char* kNames[] = {
    "none",
    "reverse-rank-order",
    "pairs-out-of-order",
    "fold-from-root",
    "swap-operands",
    "reduce-local-swapped",
    "reduce-locals-swapped-inputs",
    "result-at-wrong-root",
    "intercomm-root-off-by-one",
    "ignore-in-place",
    "intercomm-own-group",
    "write-holes",
    "datatype-as-contiguous",
    "modify-send-buffer",
    "write-past-end",
    "wrong-datatype-handle",
    "user-fn-len-zero",
    "split-len-same-offset",
    "drop-last-element",
    "count-zero-writes",
    "max-as-min-int",
    "minloc-tie-larger-index",
    "scan-exclusive",
    "exscan-rank1-inclusive",
    "reduce-scatter-shifted",
    "nonblocking-result-not-written",
    "persistent-start-no-op",
    "persistent-restart-stale",
    "commutative-user-op-drops-last",
    "outstanding-results-swapped",
    "intercomm-remote-in-world-order",
    "large-count-user-fn-swapped",
    "fortran-type-handle-dup",
    "fortran-in-place-ignored",
    "abi-internal-datatype-handle",
    "hang-reduce-at-4-ranks",
    "hang-reduce-one-count-root",
    "crash-allreduce-large-count",
};
static_assert(sizeof kNames / sizeof kNames[0] == static_cast<int>(Mutant::count_),
              "one name per mutant");

}  // namespace

const char* mutant_name(Mutant m) {
  const int i = static_cast<int>(m);
  return i >= 0 && i < static_cast<int>(Mutant::count_) ? kNames[i] : "?";
}

const char* mutant_not_in_this_build(Mutant m) {
#ifdef ORDO_ABI_BUILD
  if (m == Mutant::fortran_in_place_ignored)
    return "the MPI-5.0 standard ABI is a C ABI: a build through it has no Fortran binding, "
           "whose calls are the ones this fault changes";
#else
  if (m == Mutant::abi_internal_datatype_handle)
    return "its fault exists only through the MPI-5.0 standard ABI (./ordo mutants --system "
           "debian-unstable --abi): over a library's own mpi.h there is no second form of the "
           "handle to hand over";
#endif
  return nullptr;
}

#ifdef ORDO_REFMPI_MUTANTS
namespace {
const std::vector<Mutant>& active_mutants() {
  static const std::vector<Mutant> active = [] {
    std::vector<Mutant> list;
    const char* want = std::getenv("ORDO_MUTANT");
    std::string all = want ? want : "";
    std::size_t start = 0;
    while (start <= all.size() && !all.empty()) {
      const std::size_t end = std::min(all.find(',', start), all.size());
      const std::string name = all.substr(start, end - start);
      start = end + 1;
      if (name.empty()) continue;
      int found = -1;
      for (int i = 0; i < static_cast<int>(Mutant::count_); ++i)
        if (name == kNames[i]) found = i;
      if (found < 0) {
        // A typo must not pass for a detected mutant: stop with a distinct code.
        std::fprintf(stderr, "ordo mutant MPI: unknown ORDO_MUTANT '%s'\n", name.c_str());
        std::_Exit(97);
      }
      if (const char* why = mutant_not_in_this_build(static_cast<Mutant>(found))) {
        // A mutant without its fault must not pass for an undetected one.
        std::fprintf(stderr, "ordo mutant MPI: ORDO_MUTANT '%s' has no fault in this build: %s\n",
                     name.c_str(), why);
        std::_Exit(97);
      }
      list.push_back(static_cast<Mutant>(found));
    }
    return list;
  }();
  return active;
}
}  // namespace

Mutant active_mutant() {
  return active_mutants().empty() ? Mutant::none : active_mutants().front();
}

bool mutant(Mutant m) {
  for (Mutant a : active_mutants())
    if (a == m) return true;
  return false;
}
#endif

}  // namespace ordo::refmpi

// For the mutant driver and the tests: the names this library knows, one a
// line (the reference library knows only "none").
extern "C" __attribute__((visibility("default"))) void ordo_refmpi_print_mutants(void) {
#ifdef ORDO_REFMPI_MUTANTS
  for (int i = 0; i < static_cast<int>(ordo::refmpi::Mutant::count_); ++i)
    std::printf("%s\n", ordo::refmpi::mutant_name(static_cast<ordo::refmpi::Mutant>(i)));
#else
  std::printf("none\n");
#endif
}

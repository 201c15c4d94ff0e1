// Shared between the property mains (lockstep_main.cpp, the throughput
// benchmark's) and the properties.
#pragma once

#include <string>
#include <vector>

#include "ordo/reference/case.h"

namespace ordo::props {

extern std::string g_reproducer_dir;  // --ordo-reproducers=DIR
extern std::string g_rc_params;       // the RC_PARAMS every rank runs with

// What the last property run did (set on every rank by the property).
struct PropertyStats {
  long long cases = 0;    // generated cases run before any failure (shrink steps not counted)
  long long shrinks = 0;  // cases run while shrinking
  double seconds = 0;     // wall time of the property, shrinking included
  bool passed = true;
  std::vector<ref::Case>* generated =
      nullptr;  // when set, every generated case is kept (benchmark)
  // With `generated`: each generated case's wall time in the harness and
  // whether it passed at level MUST (the benchmark times only those alone:
  // an erroneous or failing call may leave a rank waiting).
  std::vector<std::pair<double, bool>>* timings = nullptr;
};
extern PropertyStats g_stats;

// After MPI_Init: reads the property flags, initialises the harness, lets
// rank 0 decide RC_PARAMS and every rank set it (DESIGN.md, lockstep),
// initialises GoogleTest and builds the communicator zoo. Returns argc
// (argv keeps the remaining arguments).
//
// Own flags: --ordo-reproducers=DIR (default: the journal's folder, else .)
//            --ordo-property-case-timeout=S (default 20: the watchdog's limit per case)
//            --ordo-property-cases=N (RapidCheck's max_success, over RC_PARAMS' own)
//            --ordo-seed=N (RapidCheck's seed unless RC_PARAMS has seed= or reproduce=)
int start_lockstep(int argc, char** argv);

}  // namespace ordo::props

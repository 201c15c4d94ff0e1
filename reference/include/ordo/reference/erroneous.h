// Erroneous calls a case declares on purpose (Case::erroneous, DETECT
// checks): the reference decides whether the named argument makes the call
// erroneous and by which clause, so that the harness never invents it.
#pragma once

#include <string>
#include <vector>

#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::ref {

// The kinds of erroneous argument a case may name (see Case::erroneous).
const std::vector<std::string>& erroneous_kinds();

// Returns when c.erroneous is empty. Otherwise throws SemanticsError with the
// clause the call violates, or UsageError when the kind is unknown or does
// not apply to the case (a root in range named root_out_of_range, MPI_ROOT
// on an intercommunicator, in_place_on_intercomm on an intracommunicator...).
void check_erroneous(const Case& c, const Topology& t);

}  // namespace ordo::ref

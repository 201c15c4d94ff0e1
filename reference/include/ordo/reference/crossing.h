// The case space as dimensions, and covering arrays over its valid calls.
//
// A row picks one value of every dimension (routine, form, op kind,
// datatype class, count, root, in-place, communicator shape); realize()
// turns it into a Case, or says why no valid call has those values (the
// reference's own verdict: validate_case, and what each routine takes).
// covering_array() returns rows such that every valid combination of the
// values of any `strength` dimensions (a valid pair, or triple) appears in
// at least one row: a tuple is valid when some valid row holds it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::ref::crossing {

struct Dimension {
  std::string name;
  std::vector<std::string> values;
};
// The dimensions, in the order of a row's entries.
const std::vector<Dimension>& dimensions();

// A row: one value index per dimension.
using Row = std::vector<int>;

// The topology of a communicator shape at this world size, nullopt when the
// shape does not exist there (the harness's zoo says; see comm_zoo.h).
using ShapeTopology = std::function<std::optional<Topology>(const std::string& shape)>;

// The case a row stands for, or nullopt with *why saying why the row is no
// valid call.
std::optional<Case> realize(const Row& row, const ShapeTopology& shapes, std::uint64_t seed,
                            std::string* why);

// One combination of values of `strength` dimensions.
struct Tuple {
  std::vector<int> dims;         // ascending dimension indices
  std::vector<int> values;       // value index of each
  std::string describe() const;  // "routine=scan x comm=inter-1-n"
};

struct Coverage {
  int strength = 2;
  std::vector<Row> rows;         // the covering array
  long long valid_rows = 0;      // valid calls in the whole space
  long long valid_tuples = 0;    // valid tuples of `strength` dimensions
  long long covered_tuples = 0;  // of them, in some row (all, when the array is complete)
  // Tuples no valid call has, each with the reason of one call that has it.
  std::vector<std::pair<Tuple, std::string>> invalid;
  double percent() const {
    return valid_tuples == 0
               ? 100.0
               : 100.0 * static_cast<double>(covered_tuples) / static_cast<double>(valid_tuples);
  }
};

// How many distinct tuples of `strength` dimensions the rows hold (for the
// rows whose cases ran, where a library skipped some).
long long tuples_held(const std::vector<Row>& rows, int strength);

// A covering array of the given strength (2 or 3) over the valid rows;
// deterministic for a seed (every process computes the same rows).
// with_invalid: also list the invalid tuples with their reasons.
Coverage covering_array(int strength, const ShapeTopology& shapes, std::uint64_t seed,
                        bool with_invalid = false);

}  // namespace ordo::ref::crossing

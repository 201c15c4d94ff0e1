// The case space as dimensions, and covering arrays over its valid calls.
//
// A row picks one value of every dimension (routine, form, op kind,
// datatype class, count, root, in-place, communicator shape, binding,
// concurrency); realize()
// turns it into a Case, or says why no valid call has those values (the
// reference's own verdict: validate_case, and what each routine takes).
// covering_array() returns rows such that every valid combination of the
// values of any `strength` dimensions (a valid pair, or triple) appears in
// at least one row: a tuple is valid when some valid row holds it.
#pragma once

#include <cstddef>
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

// The element size of the large-element datatype class, in bytes: one
// element larger than the library's pipeline chunk or segment (the harness
// takes it from --ordo-element-bytes, which the runner derives from the
// variant's settings), kDefaultElementBytes where no chunk size is known.
// Its elements are whole cells of four 4-byte integers (the witness ops'),
// so the size is a positive multiple of 16; set_element_bytes throws
// ordo::ref::UsageError otherwise. A case carries the datatype it makes
// (contiguous(bytes/4,MPI_INT)), so a replay needs no setting.
constexpr std::size_t kDefaultElementBytes = 4096 + 16;
void set_element_bytes(std::size_t bytes);
std::size_t element_bytes();

// The bound on one buffer of a crossing's call (the bytes its send or
// receive buffer spans at a process): a row whose call needs more is no
// valid call of the crossing, with that reason.
constexpr std::size_t kBufferBytesBound = std::size_t{64} << 20;

// A row: one value index per dimension.
using Row = std::vector<int>;

// The topology of a communicator shape at this world size, nullopt when the
// shape does not exist there (the harness's zoo says; see comm_zoo.h).
using ShapeTopology = std::function<std::optional<Topology>(const std::string& shape)>;

// The case a row stands for, or nullopt with *why saying why the row is no
// valid call.
std::optional<Case> realize(const Row& row, const ShapeTopology& shapes, std::uint64_t seed,
                            std::string* why);

// What the library under test cannot run (a valid call of a routine or
// binding it does not provide): the reason, or nullopt when it can. The
// harness says (missing_feature); the reference itself knows no library.
using Availability = std::function<std::optional<std::string>(const Case&)>;

// The part of the case space an algorithm variant serves (the runner's
// selection, --ordo-select): a row is in scope when one target names its
// routine, its form's mode and its communicator's kind. An empty scope is
// the whole space.
struct ScopeTarget {
  std::string routine;             // a routine's name (routine_name), or "*"
  std::vector<std::string> modes;  // blocking, nonblocking, persistent, or "*"
  std::string comm;                // intra, inter, or "*" / "any"
};
using Scope = std::vector<ScopeTarget>;

// Whether a row is in the scope (always, for an empty scope).
bool in_scope(const Row& row, const Scope& scope);

// The scope as text, "allreduce:blocking:intra;..." (the --ordo-select
// syntax), empty for the whole space: the figure's line and the array
// cache's key name it.
std::string describe(const Scope& scope);

// The value of every dimension of a row, as {"routine": "scan", ...}; the
// order of dimensions().
std::vector<std::pair<std::string, std::string>> values_of(const Row& row);

// One combination of values of `strength` dimensions.
struct Tuple {
  std::vector<int> dims;         // ascending dimension indices
  std::vector<int> values;       // value index of each
  std::string describe() const;  // "routine=scan x comm=inter-1-n"
};

struct Coverage {
  int strength = 2;
  std::vector<Row> rows;         // the covering array (of calls the library can run)
  long long valid_rows = 0;      // valid calls the library can run
  long long valid_tuples = 0;    // valid tuples of `strength` dimensions the library can run
  long long covered_tuples = 0;  // of them, in some row (all, when the array is complete)
  // Tuples no valid call has, each with the reason of one call that has it.
  std::vector<std::pair<Tuple, std::string>> invalid;
  // Valid tuples that only calls the library cannot run hold (no
  // persistent collectives, no large-count bindings), each with the
  // library's reason for one such call; empty without an Availability.
  long long unavailable_rows = 0;
  std::vector<std::pair<Tuple, std::string>> unavailable;
  Scope scope;  // the part of the space the array covers (empty: all of it)
  double percent() const {
    return valid_tuples == 0
               ? 100.0
               : 100.0 * static_cast<double>(covered_tuples) / static_cast<double>(valid_tuples);
  }
};

// How many distinct tuples of `strength` dimensions the rows hold (for the
// rows whose cases ran, where a library skipped some).
long long tuples_held(const std::vector<Row>& rows, int strength);

// A covering array of the given strength (2 or 3) over the valid rows the
// library can run (all valid rows when `available` is empty); deterministic
// for a seed (every process computes the same rows). with_invalid: also list
// the invalid tuples with their reasons. With a scope, only the rows in it
// are enumerated: the array holds every valid tuple of the in-scope rows,
// the figures count those, and the invalid tuples listed are those some
// in-scope routine, form and communicator could hold (the others are out
// of scope, not invalid). An empty scope gives the whole space's array.
Coverage covering_array(int strength, const ShapeTopology& shapes, std::uint64_t seed,
                        bool with_invalid = false, const Availability& available = {},
                        const Scope& scope = {});

// The coverage as JSON (for the run's report): the dimensions and their
// values (of a scoped array, the routine, form and communicator values its
// scope holds), the figures, the scope ("scope", only when there is one),
// and the invalid and unavailable tuples with reasons.
std::string to_json(const Coverage& cov, int processes);

}  // namespace ordo::ref::crossing

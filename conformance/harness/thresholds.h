// Message-size thresholds of the library under test (short-message,
// eager, pipelining, intranode buffer sizes), named in the vendor adapter
// ("thresholds") and read from the library itself through the MPI tool
// information interface (MPI_T control variables) when it exposes them.
#pragma once

#include <string>
#include <vector>

namespace ordo::harness {

struct Threshold {
  std::string name;    // the library's variable (MPI_T cvar name)
  long long bytes;     // its value
  std::string source;  // "MPI_T" or "adapter"
};

// Reads the adapter's thresholds (--ordo-adapter=FILE); empty without one.
const std::vector<Threshold>& thresholds();
// Element counts just below, at and just above every threshold for elements
// of `element_size` bytes, plus the given extra counts; sorted, unique, >= 0,
// each at most max_count.
std::vector<int> boundary_counts(std::size_t element_size, std::vector<int> extra, int max_count);

}  // namespace ordo::harness

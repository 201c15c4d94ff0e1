// The case in flight, between begin_case and record (harness.h): what the
// harness's own files share about it (case_flight.cpp; the record's
// assembly, case_record.cpp, reads them).
#pragma once

#include <optional>
#include <string>

#include "harness.h"

namespace ordo::harness {

// The routine a case's record names: Reduce_locals without the library's own
// MPIX_Reduce_locals ran ordo's code (kPortableReduceLocals).
std::string record_routine(const ref::Case& c);
// The case's count times the size of its datatype (the reference's model of
// MPI_Type_size), which waivers' bytes condition reads; none for a type the
// reference does not model (a value-index pair).
std::optional<long long> case_bytes(const ref::Case& c);
// How one element of the case's datatype lies in memory (the reference's
// model of its size, true extent and extent), which waivers' layout
// condition reads: "contiguous" (size = true extent = extent), "holes" (gaps
// within it, extent = true extent), "padded" (extent > true extent: gaps
// between consecutive elements) or "interleaved" (extent < true extent:
// consecutive elements interleave); none for a type the reference does not
// model.
std::optional<std::string> case_layout(const ref::Case& c);
// "library" or "ordo" for a Reduce_locals case (Record::credited_to), else none.
std::optional<std::string> credited_to(const ref::Case& c);
// The node map of each group of a communicator shape (comm_node_maps.h), as
// JSON text, on every rank; "" without the world's map. Collective over the
// job's communicator on the shape's first call.
const std::string& shape_node_maps(const std::string& shape);

}  // namespace ordo::harness

// The node map the library under test uses: the groups of processes that
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) puts together, by world rank.
// `ordo run --nodes N` makes a library believe its ranks sit on N nodes of
// one machine; the runner compares this map with the placement it asked for
// (proof, not belief: tools/runner/placement.py).
#pragma once

#include <mpi.h>

#include <string>

#include "comm_node_maps.h"

namespace ordo::harness {

// Collective over comm (a duplicate of MPI_COMM_WORLD): on its rank 0,
// {"node_map":[[0,1],[2,3]],"processor_names":["a","a","b","b"]} (groups in
// the order of their lowest rank, each ascending); "" on the other ranks.
// Gathers with point-to-point only: the harness never uses a reduction
// collective for its own communication.
std::string node_map_json(MPI_Comm comm);

}  // namespace ordo::harness

// The node map of a case's communicator, from the world's (node_map.h): what
// a waiver's comm_node_map condition reads. MPI-free (the waiver tests link
// it without MPI).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace ordo::harness {

// One world rank's place in a case's communicator: member 0 when it is not in
// it; color: which communicator of the shape (odd-even: 0/1, self: the world
// rank); group: 0 (an intracommunicator, or an intercommunicator's low
// group) or 1 (the high group); rank: its rank in that group.
struct CommPlace {
  int member = 0, color = 0, group = 0, rank = 0;
};
static_assert(sizeof(CommPlace) == 4 * sizeof(int), "sent as 4 MPI_INT");

// The node map of every group of a communicator shape, in that group's own
// ranks: one map per (communicator, group), in the order of their lowest
// world rank, each like the world map (nodes in the order of their lowest
// rank, ranks ascending). world_map: the world ranks of each node, as the
// library showed them (node_map_json); places: every world rank's place.
// [[[0],[1,2]],[[0,1]]] is an intercommunicator whose low group has its rank
// 0 alone on a node and whose high group sits on one node. Waivers read it
// (`comm_node_map`): a fault of a library's node-aware path follows the
// nodes of the communicator it runs on, not of the world.
nlohmann::ordered_json comm_node_maps(const nlohmann::ordered_json& world_map,
                                      const std::vector<CommPlace>& places);

}  // namespace ordo::harness

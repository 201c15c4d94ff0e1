// comm_node_maps: the node map of each group of a communicator, in its own
// ranks, from the world's node map and every world rank's place.
#include "comm_node_maps.h"

#include <gtest/gtest.h>

namespace {

using ordo::harness::comm_node_maps;
using ordo::harness::CommPlace;
using Json = nlohmann::ordered_json;

TEST(CommNodeMaps, an_intercommunicator_gives_one_map_per_group_in_its_own_ranks) {
  // inter-1-n at 4 ranks: {0} and {1,2,3}; the world over 2 nodes {0,1}, {2,3}.
  const Json world = Json::parse("[[0,1],[2,3]]");
  const std::vector<CommPlace> places = {{1, 0, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 2}};
  EXPECT_EQ(comm_node_maps(world, places), Json::parse("[[[0]],[[0],[1,2]]]"));
}

TEST(CommNodeMaps, a_split_communicator_follows_its_ranks_not_the_world_order) {
  // odd-even at 5 ranks, ranks numbered in reverse inside each half; the world
  // over 2 nodes {0,1,2}, {3,4}.
  const Json world = Json::parse("[[0,1,2],[3,4]]");
  const std::vector<CommPlace> places = {
      {1, 0, 0, 2}, {1, 1, 0, 1}, {1, 0, 0, 1}, {1, 1, 0, 0}, {1, 0, 0, 0}};
  // evens {0,2,4} have ranks 2,1,0: rank 0 (world 4) alone on node 1.
  // odds {1,3} have ranks 1,0: each on its own node.
  EXPECT_EQ(comm_node_maps(world, places), Json::parse("[[[0],[1,2]],[[0],[1]]]"));
}

TEST(CommNodeMaps, ranks_outside_the_communicator_are_left_out) {
  const Json world = Json::parse("[[0],[1,2,3]]");
  const std::vector<CommPlace> places = {{0, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 1}, {0, 0, 0, 0}};
  EXPECT_EQ(comm_node_maps(world, places), Json::parse("[[[0,1]]]"));
}

TEST(CommNodeMaps, the_world_itself_gives_the_world_map) {
  const Json world = Json::parse("[[0],[1,2,3]]");
  const std::vector<CommPlace> places = {{1, 0, 0, 0}, {1, 0, 0, 1}, {1, 0, 0, 2}, {1, 0, 0, 3}};
  EXPECT_EQ(comm_node_maps(world, places), Json::parse("[[[0],[1,2,3]]]"));
}

}  // namespace

#include "comm_node_maps.h"

#include <map>
#include <utility>

namespace ordo::harness {

nlohmann::ordered_json comm_node_maps(const nlohmann::ordered_json& world_map,
                                      const std::vector<CommPlace>& places) {
  std::map<int, int> node_of;  // world rank -> node index in world_map
  if (world_map.is_array())
    for (std::size_t k = 0; k < world_map.size(); ++k)
      if (world_map[k].is_array())
        for (const auto& r : world_map[k])
          if (r.is_number_integer()) node_of[r.get<int>()] = static_cast<int>(k);
  // (color, group) -> its members as (rank in group, world rank), and the
  // lowest world rank, which orders the groups.
  std::map<std::pair<int, int>, std::map<int, int>> members;
  for (std::size_t w = 0; w < places.size(); ++w)
    if (places[w].member)
      members[{places[w].color, places[w].group}][places[w].rank] = static_cast<int>(w);
  std::map<int, nlohmann::ordered_json> by_lowest;
  for (const auto& [key, ranks] : members) {
    std::map<int, std::vector<int>> nodes;  // node -> group ranks; ordered below by lowest rank
    int lowest_world = -1;
    for (const auto& [grank, wrank] : ranks) {
      const auto it = node_of.find(wrank);
      nodes[it == node_of.end() ? -1 - wrank : it->second].push_back(grank);
      if (lowest_world < 0 || wrank < lowest_world) lowest_world = wrank;
    }
    std::map<int, std::vector<int>> ordered;  // lowest group rank -> ranks
    for (const auto& [node, gr] : nodes) ordered[gr.front()] = gr;
    auto map = nlohmann::ordered_json::array();
    for (const auto& [lo, gr] : ordered) map.push_back(gr);
    by_lowest[lowest_world] = map;
  }
  auto out = nlohmann::ordered_json::array();
  for (const auto& [lo, map] : by_lowest) out.push_back(map);
  return out;
}

}  // namespace ordo::harness

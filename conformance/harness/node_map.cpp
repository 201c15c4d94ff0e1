#include "node_map.h"

#include <map>
#include <vector>

#include "ordo/reference/json.h"

namespace ordo::harness {

std::string node_map_json(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  // A process's node is named by the lowest rank on it (node rank 0, keyed by rank).
  int leader = rank;
  if (node != MPI_COMM_NULL) {
    MPI_Group ng, wg;
    MPI_Comm_group(node, &ng);
    MPI_Comm_group(comm, &wg);
    const int zero = 0;
    MPI_Group_translate_ranks(ng, 1, &zero, wg, &leader);
    MPI_Group_free(&ng);
    MPI_Group_free(&wg);
    MPI_Comm_free(&node);
  }
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  const int tag = 7151;
  if (rank != 0) {
    MPI_Send(&leader, 1, MPI_INT, 0, tag, comm);
    MPI_Send(name, len, MPI_CHAR, 0, tag + 1, comm);
    return "";
  }
  std::vector<int> leaders(static_cast<std::size_t>(size), 0);
  std::vector<std::string> names(static_cast<std::size_t>(size));
  leaders[0] = leader;
  names[0] = std::string(name, static_cast<std::size_t>(len));
  for (int r = 1; r < size; ++r) {
    MPI_Recv(&leaders[static_cast<std::size_t>(r)], 1, MPI_INT, r, tag, comm, MPI_STATUS_IGNORE);
    MPI_Status st;
    MPI_Recv(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, tag + 1, comm, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    names[static_cast<std::size_t>(r)] = std::string(name, static_cast<std::size_t>(n));
  }
  std::map<int, std::vector<int>> groups;  // ordered by leader, its lowest rank
  for (int r = 0; r < size; ++r) groups[leaders[static_cast<std::size_t>(r)]].push_back(r);
  std::string out = "{\"node_map\":[";
  bool first = true;
  for (const auto& [l, members] : groups) {
    out += first ? "[" : ",[";
    first = false;
    for (std::size_t i = 0; i < members.size(); ++i)
      out += (i ? "," : "") + std::to_string(members[i]);
    out += "]";
  }
  out += "],\"processor_names\":[";
  for (int r = 0; r < size; ++r)
    out += (r ? ",\"" : "\"") + json::escape(names[static_cast<std::size_t>(r)]) + "\"";
  return out + "]}";
}

}  // namespace ordo::harness

#include "comm_zoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "harness_comm.h"
#include "mpi_types.h"
#include "ordo/reference/errors.h"
#include "thresholds.h"

namespace ordo::harness {
namespace {

// odd-even: which of its two communicators a world rank is in (the split's
// color, and the index of group_sizes).
int odd_even_color(int world_rank) { return world_rank % 2; }

std::map<std::string, ZooComm>& shapes() {
  static std::map<std::string, ZooComm> z;
  return z;
}

void add_intra(const std::string& name, MPI_Comm c, int color = 0) {
  ZooComm z;
  z.name = name;
  z.available = true;
  z.member = c != MPI_COMM_NULL;
  z.comm = c;
  z.color = color;
  if (z.member) {
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_size(c, &z.topology.size_low);
    MPI_Comm_rank(c, &z.role.rank);
  }
  shapes()[name] = z;
}

void add_inter(const std::string& name, int low_size, MPI_Comm parent = MPI_COMM_WORLD) {
  const int p = world_size(), me = world_rank();
  const int group = me < low_size ? 0 : 1;
  MPI_Comm local, inter;
  MPI_Comm_split(parent, group, me, &local);
  const int remote_leader = group == 0 ? low_size : 0;
  MPI_Intercomm_create(local, 0, parent, remote_leader, 7100 + low_size, &inter);
  MPI_Comm_free(&local);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  ZooComm z;
  z.name = name;
  z.available = z.member = true;
  z.comm = inter;
  z.topology.inter = true;
  z.topology.size_low = low_size;
  z.topology.size_high = p - low_size;
  z.role.group = group;
  z.color = group;
  MPI_Comm_rank(inter, &z.role.rank);
  shapes()[name] = z;
}

// An intercommunicator whose groups are not in world order and whose
// leaders are not the lowest ranks: the even world ranks (low group) and the
// odd ones (high group), each ordered by descending world rank, so that each
// group's leader (local rank 0) is its highest world rank.
void add_inter_permuted(const std::string& name, MPI_Comm parent) {
  const int p = world_size(), me = world_rank();
  const int group = me % 2;
  MPI_Comm local, inter;
  MPI_Comm_split(parent, group, p - 1 - me, &local);
  const int highest_other = (p - 1) % 2 != group ? p - 1 : p - 2;
  MPI_Intercomm_create(local, 0, parent, highest_other, 7200, &inter);
  MPI_Comm_free(&local);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  ZooComm z;
  z.name = name;
  z.available = z.member = true;
  z.comm = inter;
  z.topology = {true, (p + 1) / 2, p / 2};
  z.role.group = z.color = group;
  MPI_Comm_rank(inter, &z.role.rank);
  shapes()[name] = z;
}

// MPI_Intercomm_merge of {0} and {1..p-1}, world rank 0's group passing
// high = 1: the merged communicator orders the ranks 1..p-1, 0.
void add_merged(const std::string& name, MPI_Comm parent) {
  const int me = world_rank();
  MPI_Comm local, inter, merged;
  MPI_Comm_split(parent, me == 0 ? 0 : 1, me, &local);
  MPI_Intercomm_create(local, 0, parent, me == 0 ? 1 : 0, 7201, &inter);
  MPI_Comm_free(&local);
  MPI_Intercomm_merge(inter, me == 0 ? 1 : 0, &merged);
  MPI_Comm_free(&inter);
  add_intra(name, merged);
}

// A two-dimensional periodic cartesian communicator (MPI_Dims_create), the
// library allowed to reorder the ranks.
void add_cart(const std::string& name, MPI_Comm parent) {
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(world_size(), 2, dims);
  MPI_Comm c;
  MPI_Cart_create(parent, 2, dims, periods, /*reorder=*/1, &c);
  add_intra(name, c);
}

// MPI_Comm_create_group of the world ranks p-1, ..., 1 (descending): world
// rank 0 is no member and takes no part in the creation.
void add_create_group(const std::string& name, MPI_Comm parent) {
  const int p = world_size(), me = world_rank();
  MPI_Comm c = MPI_COMM_NULL;
  if (me != 0) {
    std::vector<int> ranks;
    for (int r = p - 1; r >= 1; --r) ranks.push_back(r);
    MPI_Group all, g;
    MPI_Comm_group(parent, &all);
    MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &g);
    MPI_Comm_create_group(parent, g, 7202, &c);
    MPI_Group_free(&g);
    MPI_Group_free(&all);
  }
  add_intra(name, c);
  if (c == MPI_COMM_NULL) shapes()[name].topology.size_low = p - 1;
}

#ifdef ORDO_HAVE_SESSIONS
MPI_Session& zoo_session() {
  static MPI_Session s = MPI_SESSION_NULL;
  return s;
}
#endif

// A communicator of every process made from an MPI session (MPI-4.1 11.3):
// MPI_Session_init, the process set "mpi://WORLD", MPI_Comm_create_from_group.
// A library without sessions leaves the shape absent with its reason; one
// whose calls fail leaves it absent with the failure, which cases on it
// record as a fail.
void add_session(const std::string& name) {
  ZooComm z;
  z.name = name;
#ifdef ORDO_HAVE_SESSIONS
  MPI_Session& s = zoo_session();
  int rc = MPI_SUCCESS;
  const char* step = "MPI_Session_init";
  if (s == MPI_SESSION_NULL) rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
  MPI_Group g = MPI_GROUP_NULL;
  if (rc == MPI_SUCCESS) {
    step = "MPI_Group_from_session_pset(\"mpi://WORLD\")";
    rc = MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
  }
  MPI_Comm c = MPI_COMM_NULL;
  if (rc == MPI_SUCCESS) {
    step = "MPI_Comm_create_from_group";
    rc =
        MPI_Comm_create_from_group(g, "org.ordo.zoo.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
  }
  if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, text, &len);
    z.failure = std::string(step) + " returned " + text;
    shapes()[name] = z;
    return;
  }
  add_intra(name, c);
#else
  z.lacks = "the library provides no MPI sessions (MPI_Session_init, MPI-4.0)";
  shapes()[name] = z;
#endif
}

std::string& current_drawn() {
  static std::string name;
  return name;
}

// Drawn shapes are kept for reuse, the most recently used last; beyond
// kDrawnKept the least recently used one is freed. Every rank runs the same
// cases in the same order, so every rank keeps and frees the same shapes.
constexpr std::size_t kDrawnKept = 16;
std::vector<std::string>& drawn_order() {
  static std::vector<std::string> order;
  return order;
}

// A communicator of the world ranks `ranks`, in that order, built by the
// members only (MPI_Comm_create_group): the other ranks do not take part.
MPI_Comm group_comm(const std::vector<int>& ranks, int tag) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &g);
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_create_group(MPI_COMM_WORLD, g, tag, &c);
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  return c;
}

// A drawn shape (split:, inter:, see comm_zoo.h): parsed, checked against
// the world size (absent when it does not fit), then reused or built.
const ZooComm* drawn_shape(const std::string& name) {
  std::string& current = current_drawn();
  const bool split = name.rfind("split:", 0) == 0, inter = name.rfind("inter:", 0) == 0;
  if (!split && !inter) return nullptr;
  auto& order = drawn_order();
  if (auto it = shapes().find(name); it != shapes().end()) {
    order.erase(std::find(order.begin(), order.end(), name));
    order.push_back(name);
    current = name;
    return &it->second;
  }
  std::vector<int> v;
  std::stringstream in(name.substr(6));
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 6)
      throw ref::UsageError("malformed communicator shape '" + name + "'");
    v.push_back(std::stoi(item));
  }
  const int p = world_size(), me = world_rank();
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  if (v.empty() || (inter && (v.size() != 2 || v[0] < 1 || v[1] < 1)) ||
      (split && std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()))
    throw ref::UsageError("malformed communicator shape '" + name + "'");
  static const ZooComm absent;
  if ((inter && v[0] + v[1] > p) || (split && sorted.back() >= p)) {
    current.clear();
    return &absent;
  }
  if (order.size() >= kDrawnKept) {
    ZooComm& old = shapes()[order.front()];
    if (old.comm != MPI_COMM_NULL) MPI_Comm_free(&old.comm);
    shapes().erase(order.front());
    order.erase(order.begin());
  }
  ZooComm z;
  z.name = name;
  z.available = true;
  if (split) {
    if (std::find(v.begin(), v.end(), me) != v.end()) z.comm = group_comm(v, 7301);
    z.topology.size_low = static_cast<int>(v.size());
  } else {
    const int group = me < v[0] ? 0 : (me < v[0] + v[1] ? 1 : MPI_UNDEFINED);
    if (group != MPI_UNDEFINED) {
      std::vector<int> members;
      for (int r = group == 0 ? 0 : v[0]; r < (group == 0 ? v[0] : v[0] + v[1]); ++r)
        members.push_back(r);
      MPI_Comm local = group_comm(members, 7302);
      MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, group == 0 ? v[0] : 0, 7300, &z.comm);
      MPI_Comm_free(&local);
      z.role.group = z.color = group;
    }
    z.topology = {true, v[0], v[1]};
  }
  z.member = z.comm != MPI_COMM_NULL;
  if (z.member) {
    MPI_Comm_set_errhandler(z.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(z.comm, &z.role.rank);
  }
  current = name;
  order.push_back(name);
  return &(shapes()[name] = z);
}

}  // namespace

int unbuilt_drawn_shape_size(const std::string& name) {
  const bool split = name.rfind("split:", 0) == 0, inter = name.rfind("inter:", 0) == 0;
  if ((!split && !inter) || shapes().count(name)) return 0;
  std::vector<int> v;
  std::stringstream in(name.substr(6));
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 6)
      return 0;
    v.push_back(std::stoi(item));
  }
  const int p = world_size();
  if (v.empty()) return 0;
  if (inter) return v.size() == 2 && v[0] >= 1 && v[1] >= 1 && v[0] + v[1] <= p ? v[0] + v[1] : 0;
  return *std::max_element(v.begin(), v.end()) < p ? static_cast<int>(v.size()) : 0;
}

void retire_drawn_shape() {
  std::string& current = current_drawn();
  if (current.empty()) return;
  shapes().erase(current);  // its communicator stays allocated on purpose
  auto& order = drawn_order();
  order.erase(std::remove(order.begin(), order.end(), current), order.end());
  current.clear();
}

// After a case that did not pass on a shape (see comm_zoo.h): a collective
// that failed on some processes only can leave messages behind in a zoo
// communicator too, not only in a drawn one.
void renew_shape(const std::string& name) {
  if (name.rfind("split:", 0) == 0 || name.rfind("inter:", 0) == 0) {
    retire_drawn_shape();
    return;
  }
  auto it = shapes().find(name);
  if (it == shapes().end() || name == "self") return;  // self: no other process to leave a message
  shapes().erase(it);  // its communicator stays allocated on purpose (see retire_drawn_shape)
  const int p = world_size(), me = world_rank();
  MPI_Comm parent = harness_comm(), c;
  if (name == "world" || name == "dup") {
    MPI_Comm_dup(parent, &c);
    add_intra(name, c);
  } else if (name == "reversed") {
    MPI_Comm_split(parent, 0, p - 1 - me, &c);
    add_intra(name, c);
  } else if (name == "odd-even") {
    MPI_Comm_split(parent, odd_even_color(me), me, &c);
    add_intra(name, c, odd_even_color(me));
    if (p % 2 == 1) shapes()[name].group_sizes = {p - p / 2, p / 2};
  } else if (name == "inter-1-n") {
    add_inter(name, 1, parent);
  } else if (name == "inter-n-1") {
    add_inter(name, p - 1, parent);
  } else if (name == "inter-halves") {
    add_inter(name, p / 2, parent);
  } else if (name == "inter-permuted") {
    add_inter_permuted(name, parent);
  } else if (name == "merged") {
    add_merged(name, parent);
  } else if (name == "cart") {
    add_cart(name, parent);
  } else if (name == "create-group") {
    add_create_group(name, parent);
  } else if (name == "session") {
    add_session(name);
  }
}

int group_size_of_world_rank(const std::string& shape, int world_rank) {
  if (shape != "odd-even") return 0;
  const auto it = shapes().find(shape);
  if (it == shapes().end() || it->second.group_sizes.size() != 2) return 0;
  return it->second.group_sizes[static_cast<std::size_t>(odd_even_color(world_rank))];
}

void build_zoo() {
  const int p = world_size(), me = world_rank();
  add_intra("world", MPI_COMM_WORLD);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  add_intra("dup", c);
  MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - me, &c);
  add_intra("reversed", c);
  if (p >= 2) {
    MPI_Comm_split(MPI_COMM_WORLD, odd_even_color(me), me, &c);
    add_intra("odd-even", c, odd_even_color(me));
    if (p % 2 == 1) shapes()["odd-even"].group_sizes = {p - p / 2, p / 2};
  }
  MPI_Comm_dup(MPI_COMM_SELF, &c);
  add_intra("self", c, me);
  if (p >= 2) add_inter("inter-1-n", 1);
  if (p >= 3) add_inter("inter-n-1", p - 1);
  if (p >= 4) add_inter("inter-halves", p / 2);
  // The shapes only the crossing, the property phase and replays name.
  if (p >= 2) {
    add_inter_permuted("inter-permuted", MPI_COMM_WORLD);
    add_merged("merged", MPI_COMM_WORLD);
    add_create_group("create-group", MPI_COMM_WORLD);
  }
  add_cart("cart", MPI_COMM_WORLD);
  add_session("session");
}

void free_zoo() {
  for (auto& [name, z] : shapes())
    if (z.comm != MPI_COMM_NULL && z.comm != MPI_COMM_WORLD) MPI_Comm_free(&z.comm);
#ifdef ORDO_HAVE_SESSIONS
  if (zoo_session() != MPI_SESSION_NULL) MPI_Session_finalize(&zoo_session());
#endif
  shapes().clear();
  drawn_order().clear();
  current_drawn().clear();
}

const ZooComm& zoo(const std::string& name) {
  static const ZooComm absent;
  if (const ZooComm* d = drawn_shape(name)) return *d;
  auto it = shapes().find(name);
  if (it != shapes().end()) return it->second;
  for (const char* k : known_shapes())
    if (name == k) return absent;  // exists, but not at this world size
  throw ref::UsageError("unknown communicator shape '" + name + "'");
}

const std::vector<const char*>& known_shapes() {
  static const std::vector<const char*> known = {
      "world",     "dup",          "reversed",     "odd-even",       "self",
      "inter-1-n", "inter-n-1",    "inter-halves", "inter-permuted", "merged",
      "cart",      "create-group", "session"};
  return known;
}

std::string session_lacks() {
  auto it = shapes().find("session");
  return it == shapes().end() ? std::string() : it->second.lacks;
}

std::vector<std::string> intra_shapes() {
  std::vector<std::string> v;
  for (const char* n : {"world", "dup", "reversed", "odd-even", "self"})
    if (shapes().count(n)) v.push_back(n);
  return v;
}

std::vector<std::string> inter_shapes() {
  std::vector<std::string> v;
  for (const char* n : {"inter-1-n", "inter-n-1", "inter-halves"})
    if (shapes().count(n)) v.push_back(n);
  return v;
}

std::vector<std::string> other_shapes() {
  std::vector<std::string> v;
  for (const char* n : {"cart", "merged", "create-group", "session", "inter-permuted"})
    if (auto it = shapes().find(n); it != shapes().end() && it->second.available) v.push_back(n);
  return v;
}

}  // namespace ordo::harness

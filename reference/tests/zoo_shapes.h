// The harness's communicator shapes as the reference's tests see them: the
// topology of each shape of the zoo (conformance/harness/comm_zoo.h) at p
// processes, with odd-even as its smaller communicator; nullopt where the
// shape does not exist at p.
#pragma once

#include <optional>
#include <string>

#include "ordo/reference/crossing.h"

namespace ordo::ref::test {

inline crossing::ShapeTopology zoo_at(int p) {
  return [p](const std::string& s) -> std::optional<Topology> {
    if (s == "world" || s == "dup" || s == "reversed") return Topology{false, p, 0};
    if (s == "self") return Topology{false, 1, 0};
    if (s == "odd-even" && p >= 2) return Topology{false, p / 2, 0};
    if (s == "inter-1-n" && p >= 2) return Topology{true, 1, p - 1};
    if (s == "inter-n-1" && p >= 3) return Topology{true, p - 1, 1};
    if (s == "inter-halves" && p >= 4) return Topology{true, p / 2, p - p / 2};
    if (s == "cart" || s == "session") return Topology{false, p, 0};
    if (s == "merged" && p >= 2) return Topology{false, p, 0};
    if (s == "create-group" && p >= 2) return Topology{false, p - 1, 0};
    if (s == "inter-permuted" && p >= 2) return Topology{true, (p + 1) / 2, p / 2};
    return std::nullopt;
  };
}

}  // namespace ordo::ref::test

// The communicator zoo: every shape a check runs over. Shapes are named and
// depend only on the world size, so every rank sees the same list.
//
//   world         MPI_COMM_WORLD itself
//   dup           a duplicate of MPI_COMM_WORLD
//   reversed      ranks in reverse order (split with key = size - 1 - rank)
//   odd-even      two communicators, the even and the odd world ranks (size >= 2)
//   self          a size-1 communicator on every rank
//   inter-1-n     intercommunicator: {0} and {1..p-1}                (p >= 2)
//   inter-n-1     intercommunicator: {0..p-2} and {p-1}              (p >= 3)
//   inter-halves  intercommunicator: {0..p/2-1} and {p/2..p-1}       (p >= 4)
// In these intercommunicators the "low" group holds the lower world ranks.
//
// Shapes that only the crossing check, the property phase and replays name
// (the curated checks loop over the ones above):
//   inter-permuted  intercommunicator: the even world ranks (low group) and the
//                   odd ones, each group in descending world order, so that its
//                   leader is its highest world rank                   (p >= 2)
//   merged        MPI_Intercomm_merge of {0} and {1..p-1}, rank 0's group
//                 high: ranks in the order 1..p-1, 0                   (p >= 2)
//   cart          MPI_Cart_create, two dimensions (MPI_Dims_create), periodic
//                 in the first, reorder allowed
//   create-group  MPI_Comm_create_group of world ranks p-1..1 (descending);
//                 world rank 0 is no member                            (p >= 2)
//   session       MPI_Comm_create_from_group of the process set mpi://WORLD
//                 of an MPI session; absent, with the reason, where the library
//                 has no sessions
//
// Shapes the property tests draw at random, built by their members when a
// case first asks for them (every rank runs the same case, so every rank
// asks in the same order) and kept for the next cases that draw them (the
// 16 most recently used; retired, never reused, after a case that did not
// pass on them):
//   split:r0,r1,...  the listed world ranks, in that order (MPI_Comm_create_group
//                    of that group); the other ranks are not members
//   inter:a,b        intercommunicator: world ranks {0..a-1} and {a..a+b-1};
//                    the other ranks are not members
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "ordo/reference/oracle.h"

namespace ordo::harness {

struct ZooComm {
  std::string name;
  bool available = false;  // the shape exists at this world size
  bool member = false;     // this rank is in it
  MPI_Comm comm = MPI_COMM_NULL;
  ref::Topology topology;  // of the communicator this rank is in
  ref::Role role;          // this rank's group and rank in it
  std::string lacks;       // absent because the library lacks what builds it: the reason
  std::string failure;     // absent because the library failed to build it: the error
  int color = 0;           // which communicator of the shape this rank is in (odd-even: 0/1;
                           // intercommunicators: the group; self: the world rank)
  // The sizes of the shape's communicators when they differ between its
  // processes (odd-even at an odd world size), world rank 0's first; the
  // same on every process, so that decisions taken before a case (a known
  // fatal case, a held-back one) are alike on every process. Empty: one size.
  std::vector<int> group_sizes;
};

// For a named shape whose communicators differ in size (group_sizes not
// empty): the size of the communicator world rank `world_rank` is in; 0 for
// any other shape. Local: it never builds a shape. Rank 0 names, in a failed
// case's record, the sizes of the failing ranks' communicators (a waiver's
// comm_size condition reads them).
int group_size_of_world_rank(const std::string& shape, int world_rank);

void build_zoo();
void free_zoo();
const ZooComm& zoo(const std::string& name);
const std::vector<const char*>& known_shapes();  // every named shape
// The reason the library cannot build the session shape ("" when it can).
std::string session_lacks();
std::vector<std::string> intra_shapes();  // available at this world size
std::vector<std::string> inter_shapes();
// The shapes only the crossing and the property phase name (cart, merged,
// create-group, session, inter-permuted), those available here.
std::vector<std::string> other_shapes();
// The size of the communicator of a drawn shape (split: its ranks; inter:
// both groups) that the next zoo(name) builds, known before it is built: the
// in-flight note names it, should the job die while the shape is built. 0 for
// a name that is not a drawn shape, one already built, or one that does not
// fit the world (zoo() says why).
int unbuilt_drawn_shape_size(const std::string& name);
// Forgets the drawn shape built last without freeing it, after a case that
// failed on it: a collective that failed on some ranks can leave messages
// behind, and a library that reuses the freed communicator's context would
// deliver them to the next communicator it builds.
void retire_drawn_shape();
// After a case that did not pass on it: the shape is built again (from the
// harness's own communicator, whose context holds no collective traffic),
// the old communicator is kept allocated for the same reason. "world" becomes
// a duplicate of MPI_COMM_WORLD from then on. All ranks call it together.
void renew_shape(const std::string& name);

}  // namespace ordo::harness

// Private communicators: internal traffic of the reference MPI never shares
// a communicator with the user's messages. Each user communicator gets one at
// its first reduce-family call, kept as an attribute and freed with it.
#include <algorithm>

#include "mutants.h"
#include "refmpi.h"

namespace ordo::refmpi {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;

int delete_private(MPI_Comm comm, int, void* value, void*) {
  auto* p = static_cast<Private*>(value);
  // MPI_COMM_WORLD and MPI_COMM_SELF lose their attributes inside
  // MPI_Finalize: leave their private communicators to the library.
  if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF && p->comm != MPI_COMM_NULL)
    PMPI_Comm_free(&p->comm);
  delete p;
  return MPI_SUCCESS;
}

}  // namespace

int private_of(MPI_Comm comm, const Private** out) {
  int rc;
  if (g_keyval == MPI_KEYVAL_INVALID) {
    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_private, &g_keyval, nullptr);
    if (rc != MPI_SUCCESS) return rc;
  }
  void* value = nullptr;
  int found = 0;
  rc = PMPI_Comm_get_attr(comm, g_keyval, &value, &found);
  if (rc != MPI_SUCCESS) return rc;
  if (found) {
    *out = static_cast<Private*>(value);
    return MPI_SUCCESS;
  }
  auto* p = new Private;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  p->inter = inter != 0;
  PMPI_Comm_rank(comm, &p->rank);
  PMPI_Comm_size(comm, &p->size);
  if (!p->inter) {
    rc = PMPI_Comm_dup(comm, &p->comm);
    for (int r = 0; r < p->size; ++r) p->local.push_back(r);
  } else {
    // Both groups in one intracommunicator; the order of the groups in it
    // does not matter, ranks are translated both ways.
    rc = PMPI_Intercomm_merge(comm, 0, &p->comm);
    MPI_Group merged, local, remote;
    if (rc == MPI_SUCCESS) {
      PMPI_Comm_group(p->comm, &merged);
      PMPI_Comm_group(comm, &local);
      PMPI_Comm_remote_group(comm, &remote);
      int remote_size = 0;
      PMPI_Group_size(remote, &remote_size);
      std::vector<int> in_local(static_cast<std::size_t>(p->size)),
          in_remote(static_cast<std::size_t>(remote_size));
      for (int r = 0; r < p->size; ++r) in_local[r] = r;
      for (int r = 0; r < remote_size; ++r) in_remote[r] = r;
      p->local.resize(in_local.size());
      p->remote.resize(in_remote.size());
      PMPI_Group_translate_ranks(local, p->size, in_local.data(), merged, p->local.data());
      PMPI_Group_translate_ranks(remote, remote_size, in_remote.data(), merged, p->remote.data());
      p->remote_fold = p->remote;
      if (mutant(Mutant::intercomm_remote_in_world_order)) {
        // Fault: the remote group's inputs are folded in the order of the
        // processes' MPI_COMM_WORLD ranks, not of their ranks in the remote
        // group (right only where the two orders agree).
        MPI_Group world;
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
        std::vector<int> in_world(in_remote.size());
        PMPI_Group_translate_ranks(remote, remote_size, in_remote.data(), world, in_world.data());
        std::vector<int> order(in_remote);
        std::sort(order.begin(), order.end(),
                  [&](int a, int b) { return in_world[a] < in_world[b]; });
        for (int r = 0; r < remote_size; ++r) p->remote_fold[r] = p->remote[order[r]];
        PMPI_Group_free(&world);
      }
      PMPI_Group_free(&merged);
      PMPI_Group_free(&local);
      PMPI_Group_free(&remote);
    }
  }
  if (rc != MPI_SUCCESS) {
    delete p;
    return rc;
  }
  p->me = p->local[static_cast<std::size_t>(p->rank)];
  PMPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
  rc = PMPI_Comm_set_attr(comm, g_keyval, p);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(&p->comm);
    delete p;
    return rc;
  }
  *out = p;
  return MPI_SUCCESS;
}

}  // namespace ordo::refmpi

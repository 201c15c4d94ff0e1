// The harness's own communicator and its point-to-point traffic: a dup of
// MPI_COMM_WORLD on which rank 0 combines the ranks' verdicts and hands out
// what it computed, never through the collective under test. Both the
// harness and the communicator zoo (comm_zoo.cpp) build on it; it needs
// neither of them.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace ordo::harness {

int world_rank();
int world_size();
MPI_Comm harness_comm();  // a dup of MPI_COMM_WORLD: verdicts (point-to-point) and the parent of
                          // renewed zoo shapes

// Rank 0's integers on every rank, by point-to-point on the harness's
// communicator (collective: every rank calls it): what every rank would
// compute alike, such as a covering array, computed once.
std::vector<int> from_rank0(const std::vector<int>& mine);

// Every rank sends `bytes` to rank 0 over the harness communicator; rank 0
// gets them all (index = world rank), the others get an empty vector.
std::vector<std::string> gather_to_rank0(const std::string& bytes);

// Waiting for ordo's own messages without taking the processor from the
// rank that works (see harness_comm.cpp): a receive from rank 0, and rank 0's
// probe for another rank's message.
void recv_from_rank0(void* buf, int n, MPI_Datatype type, int tag);
void probe_politely(int source, int tag, MPI_Status* status);

}  // namespace ordo::harness

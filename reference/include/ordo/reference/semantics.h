// The expected result of every reduce-family routine, in one process, with
// no MPI: a strictly rank-ordered fold, one combine at a time,
//
//     result = x0 o x1 o ... o x(p-1)     (invec = left operand, inoutvec = right)
//
// which is the canonical order of MPI-4.1 Section 6.9.1 and the contract of
// user functions in Section 6.9.5. Every routine writes its results through
// the receive datatype: bytes outside the typemap (holes) keep what the
// caller put there, so the expected buffers can be compared byte for byte.
//
// Conventions: `send[r]` is rank r's send buffer (count elements); `recv[r]`
// holds rank r's receive buffer as the caller initialised it and is updated
// to what it must hold after the call. In-place forms take the input from
// `recv[r]` as MPI does.
#pragma once

#include <optional>
#include <vector>

#include "ordo/reference/buffer.h"
#include "ordo/reference/op.h"

namespace ordo::ref {

// x[first] o x[first+1] o ... o x[last-1], folded left to right.
// Requires first < last; the inputs share one datatype and count.
Buffer fold(const std::vector<const Buffer*>& inputs, const Op& op);
// One step of that fold: acc := acc o x (acc as invec, x as inoutvec).
void fold_into(Buffer& acc, const Buffer& x, const Op& op);

// ---- Intracommunicators -------------------------------------------------
// only: the rank whose receive buffer the caller wants, or -1 for every
// rank's. With a rank, the other ranks' receive buffers are neither checked
// nor written (a caller may pass placeholders) unless in place makes them the
// inputs; that rank's buffer gets exactly what the call for every rank gives
// it (one process of a job needs its own result only).
void reduce(const std::vector<Buffer>& send, const Op& op, int root, std::vector<Buffer>& recv,
            bool in_place = false);
void allreduce(const std::vector<Buffer>& send, const Op& op, std::vector<Buffer>& recv,
               bool in_place = false, int only = -1);
// send[r] has sum(recvcounts) elements; recv[r] has recvcounts[r] elements.
// In place: the input is recv[r], which then has sum(recvcounts) elements.
void reduce_scatter(const std::vector<Buffer>& send, const std::vector<int>& recvcounts,
                    const Op& op, std::vector<Buffer>& recv, bool in_place = false, int only = -1);
void reduce_scatter_block(const std::vector<Buffer>& send, int recvcount, const Op& op,
                          std::vector<Buffer>& recv, bool in_place = false);
void scan(const std::vector<Buffer>& send, const Op& op, std::vector<Buffer>& recv,
          bool in_place = false, int only = -1);
// Returns, per rank, whether the result is defined: rank 0's receive buffer
// is undefined after MPI_Exscan (MPI-4.1 Section 6.11.2), and left untouched here.
std::vector<bool> exscan(const std::vector<Buffer>& send, const Op& op, std::vector<Buffer>& recv,
                         bool in_place = false, int only = -1);

// ---- Intercommunicators (MPI-4.1 Section 6.2.2) ---------------------------
// Group A holds the root; it receives the reduction of group B's inputs in
// B's rank order. Send buffers in A and receive buffers outside the root are
// not significant.
void reduce_intercomm(const std::vector<Buffer>& send_b, const Op& op, Buffer& root_recv);
// Each group receives the reduction of the other group's inputs.
void allreduce_intercomm(const std::vector<Buffer>& send_a, const std::vector<Buffer>& send_b,
                         const Op& op, std::vector<Buffer>& recv_a, std::vector<Buffer>& recv_b);
// The reduction of B's inputs (each sum(recvcounts_a) elements) is scattered
// over A by recvcounts_a, and the reduction of A's over B by recvcounts_b.
void reduce_scatter_intercomm(const std::vector<Buffer>& send_a, const std::vector<Buffer>& send_b,
                              const std::vector<int>& recvcounts_a,
                              const std::vector<int>& recvcounts_b, const Op& op,
                              std::vector<Buffer>& recv_a, std::vector<Buffer>& recv_b);
void reduce_scatter_block_intercomm(const std::vector<Buffer>& send_a,
                                    const std::vector<Buffer>& send_b, int recvcount_a,
                                    int recvcount_b, const Op& op, std::vector<Buffer>& recv_a,
                                    std::vector<Buffer>& recv_b);
// Scan and Exscan are not defined on intercommunicators: always throws.
[[noreturn]] void scan_intercomm();

// ---- Local reductions -------------------------------------------------------
// MPI_Reduce_local (Section 6.9.7): inout := in o inout. MPI_IN_PLACE is not
// allowed: pass in_place = true to have the reference refuse it.
void reduce_local(const Buffer& in, Buffer& inout, const Op& op, bool in_place = false);

// The proposed MPI_Reduce_locals (inbuf, argbuf, inoutbuf): inout := X o Y
// with X = in (or inout if in is MPI_IN_PLACE, given as nullptr) and Y = arg
// (or inout if nullptr). inout may not be MPI_IN_PLACE, and neither input may
// be the same buffer as inout; in and arg may be the same buffer.
void reduce_locals(const Buffer* in, const Buffer* arg, Buffer* inout, const Op& op,
                   bool inout_in_place = false);

}  // namespace ordo::ref

#include "ordo/reference/semantics.h"

#include <cstring>
#include <numeric>
#include <string>

#include "ordo/reference/errors.h"

namespace ordo::ref {
namespace {

void check_recv(const Buffer& b) {
  if (b.type().overlaps_itself(b.count()))
    throw SemanticsError("buffers.recv-overlap",
                         "receive datatype " + b.type().text() + " overlaps itself over " +
                             std::to_string(b.count()) +
                             " elements; overlapping receive buffers are erroneous");
}

void check_same_shape(const std::vector<const Buffer*>& in) {
  for (const Buffer* b : in)
    if (!(b->type() == in[0]->type()) || b->count() != in[0]->count())
      throw UsageError("all inputs of a reduction must have the same datatype and count");
}

// acc := acc o x, strictly: the user function sees acc as invec and a copy of
// x as inoutvec, and the result is what it leaves in inoutvec.
void fold_step(Buffer& acc, const Buffer& x, const Op& op) {
  const Datatype& dt = acc.type();
  Basic b;
  if (op.is_predefined() && dt.is_contiguous_basic(&b)) {
    apply_predefined(op.predefined_op(), b, acc.data(), x.data(), acc.data(),
                     static_cast<std::size_t>(acc.count()) * dt.typemap().size());
    return;
  }
  Buffer right = x;
  combine(op, dt, acc.count(), acc.data(), right.data());
  acc = std::move(right);
}

std::vector<const Buffer*> inputs_of(const std::vector<Buffer>& send, std::vector<Buffer>& recv,
                                     bool in_place) {
  std::vector<const Buffer*> in;
  for (std::size_t r = 0; r < send.size(); ++r) in.push_back(in_place ? &recv[r] : &send[r]);
  return in;
}

// only: one rank's receive buffer (or -1: every rank's).
bool wanted(int only, std::size_t r) { return only < 0 || static_cast<std::size_t>(only) == r; }

void check_only(int only, std::size_t ranks, const char* what) {
  if (only >= static_cast<int>(ranks))
    throw UsageError(std::string(what) + ": the rank whose result is wanted is out of range");
}

void need_ranks(std::size_t a, std::size_t b, const char* what) {
  if (a != b || a == 0)
    throw UsageError(std::string(what) + ": one send and one receive buffer per rank are needed");
}

}  // namespace

Buffer fold(const std::vector<const Buffer*>& inputs, const Op& op) {
  if (inputs.empty()) throw UsageError("fold of no inputs");
  check_same_shape(inputs);
  op.check_usable_with(inputs[0]->type());
  Buffer acc = *inputs[0];
  for (std::size_t r = 1; r < inputs.size(); ++r) fold_step(acc, *inputs[r], op);
  return acc;
}

void fold_into(Buffer& acc, const Buffer& x, const Op& op) {
  check_same_shape({&acc, &x});
  op.check_usable_with(acc.type());
  fold_step(acc, x, op);
}

void reduce(const std::vector<Buffer>& send, const Op& op, int root, std::vector<Buffer>& recv,
            bool in_place) {
  need_ranks(send.size(), recv.size(), "reduce");
  if (root < 0 || root >= static_cast<int>(send.size()))
    throw UsageError("reduce: root out of range");
  check_recv(recv[root]);
  std::vector<const Buffer*> in;
  for (std::size_t r = 0; r < send.size(); ++r)
    in.push_back(in_place && static_cast<int>(r) == root ? &recv[r] : &send[r]);
  const Buffer res = fold(in, op);
  copy_elements(res, 0, recv[root], 0, res.count());
}

void allreduce(const std::vector<Buffer>& send, const Op& op, std::vector<Buffer>& recv,
               bool in_place, int only) {
  need_ranks(send.size(), recv.size(), "allreduce");
  check_only(only, recv.size(), "allreduce");
  for (std::size_t r = 0; r < recv.size(); ++r)
    if (wanted(only, r)) check_recv(recv[r]);
  const Buffer res = fold(inputs_of(send, recv, in_place), op);
  for (std::size_t r = 0; r < recv.size(); ++r)
    if (wanted(only, r)) copy_elements(res, 0, recv[r], 0, res.count());
}

void reduce_scatter(const std::vector<Buffer>& send, const std::vector<int>& recvcounts,
                    const Op& op, std::vector<Buffer>& recv, bool in_place, int only) {
  need_ranks(send.size(), recv.size(), "reduce_scatter");
  check_only(only, recv.size(), "reduce_scatter");
  if (recvcounts.size() != send.size())
    throw UsageError("reduce_scatter: one recvcount per rank is needed");
  for (int c : recvcounts)
    if (c < 0) throw UsageError("reduce_scatter: negative recvcount");
  for (std::size_t r = 0; r < recv.size(); ++r)
    if (wanted(only, r)) check_recv(recv[r]);
  const Buffer res = fold(inputs_of(send, recv, in_place), op);
  const int total = std::accumulate(recvcounts.begin(), recvcounts.end(), 0);
  if (res.count() != total)
    throw UsageError("reduce_scatter: inputs must hold sum(recvcounts) elements");
  int offset = 0;
  for (std::size_t r = 0; r < recv.size(); ++r) {
    if (wanted(only, r)) copy_elements(res, offset, recv[r], 0, recvcounts[r]);
    offset += recvcounts[r];
  }
}

void reduce_scatter_block(const std::vector<Buffer>& send, int recvcount, const Op& op,
                          std::vector<Buffer>& recv, bool in_place) {
  reduce_scatter(send, std::vector<int>(send.size(), recvcount), op, recv, in_place);
}

void scan(const std::vector<Buffer>& send, const Op& op, std::vector<Buffer>& recv, bool in_place,
          int only) {
  need_ranks(send.size(), recv.size(), "scan");
  check_only(only, recv.size(), "scan");
  for (std::size_t r = 0; r < recv.size(); ++r)
    if (wanted(only, r)) check_recv(recv[r]);
  const auto in = inputs_of(send, recv, in_place);
  check_same_shape(in);
  op.check_usable_with(in[0]->type());
  // Rank r receives x0 o ... o xr: the running fold, copied out as it passes r.
  const std::size_t last = only < 0 ? in.size() - 1 : static_cast<std::size_t>(only);
  Buffer acc = *in[0];
  for (std::size_t r = 0; r <= last; ++r) {
    if (r > 0) fold_step(acc, *in[r], op);
    if (wanted(only, r)) copy_elements(acc, 0, recv[r], 0, acc.count());
  }
}

std::vector<bool> exscan(const std::vector<Buffer>& send, const Op& op, std::vector<Buffer>& recv,
                         bool in_place, int only) {
  need_ranks(send.size(), recv.size(), "exscan");
  check_only(only, recv.size(), "exscan");
  for (std::size_t r = 0; r < recv.size(); ++r)
    if (wanted(only, r)) check_recv(recv[r]);
  const auto in = inputs_of(send, recv, in_place);
  check_same_shape(in);
  op.check_usable_with(in[0]->type());
  // Rank r >= 1 receives x0 o ... o x(r-1); rank 0's buffer is left as it was.
  std::vector<bool> defined(recv.size(), true);
  defined[0] = false;
  // In place, rank r's input is its receive buffer: read before it is written.
  const std::size_t last = only < 0 ? recv.size() - 1 : static_cast<std::size_t>(only);
  Buffer acc = *in[0];
  for (std::size_t r = 1; r <= last; ++r) {
    const bool write = wanted(only, r);
    std::optional<Buffer> own;
    if (write && in_place && r < last) own = *in[r];
    if (write) copy_elements(acc, 0, recv[r], 0, acc.count());
    if (r < last) fold_step(acc, own ? *own : *in[r], op);
  }
  return defined;
}

void reduce_intercomm(const std::vector<Buffer>& send_b, const Op& op, Buffer& root_recv) {
  check_recv(root_recv);
  std::vector<const Buffer*> in;
  for (const Buffer& b : send_b) in.push_back(&b);
  const Buffer res = fold(in, op);
  copy_elements(res, 0, root_recv, 0, res.count());
}

void allreduce_intercomm(const std::vector<Buffer>& send_a, const std::vector<Buffer>& send_b,
                         const Op& op, std::vector<Buffer>& recv_a, std::vector<Buffer>& recv_b) {
  need_ranks(send_a.size(), recv_a.size(), "allreduce (group A)");
  need_ranks(send_b.size(), recv_b.size(), "allreduce (group B)");
  for (Buffer& b : recv_a) reduce_intercomm(send_b, op, b);
  for (Buffer& b : recv_b) reduce_intercomm(send_a, op, b);
}

void reduce_scatter_intercomm(const std::vector<Buffer>& send_a, const std::vector<Buffer>& send_b,
                              const std::vector<int>& recvcounts_a,
                              const std::vector<int>& recvcounts_b, const Op& op,
                              std::vector<Buffer>& recv_a, std::vector<Buffer>& recv_b) {
  need_ranks(send_a.size(), recv_a.size(), "reduce_scatter (group A)");
  need_ranks(send_b.size(), recv_b.size(), "reduce_scatter (group B)");
  auto scatter = [&](const std::vector<Buffer>& from, const std::vector<int>& counts,
                     std::vector<Buffer>& to) {
    if (counts.size() != to.size())
      throw UsageError("reduce_scatter: one recvcount per rank of the receiving group is needed");
    for (const Buffer& b : to) check_recv(b);
    std::vector<const Buffer*> in;
    for (const Buffer& b : from) in.push_back(&b);
    const Buffer res = fold(in, op);
    const int total = std::accumulate(counts.begin(), counts.end(), 0);
    if (res.count() != total)
      throw UsageError("reduce_scatter: both groups must reduce the same number of elements");
    int offset = 0;
    for (std::size_t r = 0; r < to.size(); ++r) {
      copy_elements(res, offset, to[r], 0, counts[r]);
      offset += counts[r];
    }
  };
  scatter(send_b, recvcounts_a, recv_a);
  scatter(send_a, recvcounts_b, recv_b);
}

void reduce_scatter_block_intercomm(const std::vector<Buffer>& send_a,
                                    const std::vector<Buffer>& send_b, int recvcount_a,
                                    int recvcount_b, const Op& op, std::vector<Buffer>& recv_a,
                                    std::vector<Buffer>& recv_b) {
  reduce_scatter_intercomm(send_a, send_b, std::vector<int>(recv_a.size(), recvcount_a),
                           std::vector<int>(recv_b.size(), recvcount_b), op, recv_a, recv_b);
}

void scan_intercomm() {
  throw SemanticsError("scan.intracomm-only",
                       "MPI_Scan and MPI_Exscan are defined for intracommunicators only");
}

void reduce_local(const Buffer& in, Buffer& inout, const Op& op, bool in_place) {
  if (in_place)
    throw SemanticsError("reduce-local.no-in-place",
                         "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
  check_recv(inout);
  Buffer res = fold({&in, &inout}, op);
  copy_elements(res, 0, inout, 0, res.count());
}

void reduce_locals(const Buffer* in, const Buffer* arg, Buffer* inout, const Op& op,
                   bool inout_in_place) {
  if (inout_in_place || inout == nullptr)
    throw SemanticsError(
        "reduce-locals.inout-not-in-place",
        "MPI_IN_PLACE is not allowed for the inoutbuf argument of MPI_Reduce_locals");
  if (in == inout || arg == inout)
    throw SemanticsError("reduce-locals.distinct-from-inout",
                         "inbuf and argbuf must be distinct from inoutbuf in MPI_Reduce_locals");
  check_recv(*inout);
  const Buffer& x = in ? *in : *inout;
  const Buffer& y = arg ? *arg : *inout;
  Buffer res = fold({&x, &y}, op);
  copy_elements(res, 0, *inout, 0, res.count());
}

}  // namespace ordo::ref

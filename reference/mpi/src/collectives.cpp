// The reduce family, naively: every input travels to one collector, which
// receives them in ascending rank order and folds them one combine at a
// time (MPI-4.1 Section 6.9.1, advice to implementors); results travel back.
//
//   Reduce            collector: the root
//   Allreduce         collector: rank 0, which sends the result to every rank
//   Reduce_scatter    collector: rank 0, which sends each rank its segment
//   Scan / Exscan     collector: rank 0, whose fold leaves every prefix
//                     x0 o ... o xk in place; rank k gets the k-th (k-1-th)
// On an intercommunicator (Section 6.2.2) each group's rank 0 collects the
// *other* group's inputs in that group's rank order (Reduce: the MPI_ROOT
// process does), then hands the results to its own group.
#include <algorithm>
#include <numeric>

#include "refmpi.h"

namespace ordo::refmpi {

thread_local bool g_in_nonblocking = false;
thread_local bool g_called_from_fortran = false;

namespace {

constexpr int kTagInput = 1;
constexpr int kTagResult = 2;
constexpr int kTagNever = 3;  // the mutants hang-reduce-* wait for it
// Mutant hang-reduce-one-count-root: the one combination of count and root
// at which MPI_Reduce (every form) never completes, on every communicator.
constexpr int kHangCount = 1;
constexpr int kHangRoot = 0;

// The root of such a call waits for a message no process sends.
void hang_forever(const Private& p) {
  PMPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, kTagNever, p.comm, MPI_STATUS_IGNORE);
}

struct Ctx {
  MPI_Comm user = MPI_COMM_NULL;
  const Private* priv = nullptr;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  Layout l;
  Combiner comb;
};

// Errors go to the communicator's error handler; without a valid
// communicator, to MPI_COMM_SELF's (as MPI-4 does for errors not tied to a handle).
int raise(MPI_Comm comm, int rc) {
  if (rc != MPI_SUCCESS)
    PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm, rc);
  return rc;
}

// Validation every process does alike, before any traffic (so that an
// erroneous call fails everywhere instead of hanging somewhere).
int setup(MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op, Ctx* c) {
  if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
  int rc = private_of(comm, &c->priv);
  if (rc != MPI_SUCCESS) return rc;
  if (count < 0) return MPI_ERR_COUNT;
  if (dt == MPI_DATATYPE_NULL || layout_of(dt, &c->l) != MPI_SUCCESS) return MPI_ERR_TYPE;
  if (op == MPI_OP_NULL) return MPI_ERR_OP;
  rc = resolve(op, dt, &c->comb);
  if (rc != MPI_SUCCESS) return rc;
  c->user = comm;
  c->dt = dt;
  return MPI_SUCCESS;
}

char* at(void* base, MPI_Aint elements, const Layout& l) {
  return static_cast<char*>(base) + elements * l.extent;
}

// The input a process contributes: its send buffer, or with MPI_IN_PLACE its
// receive buffer.
const void* own_input(const void* sendbuf, void* recvbuf, int count, const Ctx& c, Temp* zeros) {
  if (sendbuf != MPI_IN_PLACE) return sendbuf;
  if (mutant(Mutant::ignore_in_place) ||
      (mutant(Mutant::fortran_in_place_ignored) && g_called_from_fortran)) {
    *zeros = Temp(count, c.l);  // Fault: the in-place input is not read.
    return zeros->ptr();
  }
  return recvbuf;
}

// The processes of `sources` (ranks of the private communicator, in fold
// order) send their input to `dest`; the collector receives them, in that
// order, into xs. A process may be a source and the collector at once.
int gather(const Ctx& c, const void* input, int count, int dest, bool collect,
           const std::vector<int>& sources, std::vector<Temp>* xs) {
  const Private& p = *c.priv;
  MPI_Request send = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (dest >= 0 && dest != p.me)
    rc = isend_typed(input, count, c.dt, dest, kTagInput, p.comm, &send);
  if (collect) {
    xs->clear();
    xs->reserve(sources.size());
    for (int s : sources) {
      xs->emplace_back(count, c.l);
      const int r = s == p.me ? copy_typed(input, xs->back().ptr(), count, c.dt)
                              : recv_typed(xs->back(), count, c.dt, s, kTagInput, p.comm);
      if (rc == MPI_SUCCESS) rc = r;  // keep receiving: the senders must complete
    }
  }
  const int w = PMPI_Wait(&send, MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : w;
}

// Folds xs in place, one combine at a time: xs[order[k]] := xs[order[k-1]] o
// xs[order[k]], with order = start, start+1, ... (mod n). With start = 0,
// xs[k] ends as the prefix x0 o ... o xk. *last: where the full result is.
int fold(const Ctx& c, std::vector<Temp>& xs, int count, int start, int* last) {
  const int n = static_cast<int>(xs.size());
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) order[k] = (start + k) % n;
  if (mutant(Mutant::reverse_rank_order)) std::reverse(order.begin(), order.end());
  int rc = MPI_SUCCESS;
  if (mutant(Mutant::pairs_out_of_order) && n >= 4) {
    // Fault: pairs are formed correctly but combined the wrong way round:
    // (x2 o x3) o (x0 o x1) o x4 o ...
    rc = combine(c.comb, xs[0].ptr(), xs[1].ptr(), count);
    if (rc == MPI_SUCCESS) rc = combine(c.comb, xs[2].ptr(), xs[3].ptr(), count);
    if (rc == MPI_SUCCESS) rc = combine(c.comb, xs[3].ptr(), xs[1].ptr(), count);
    int acc = 1;
    for (int k = 4; k < n && rc == MPI_SUCCESS; ++k) {
      rc = combine(c.comb, xs[acc].ptr(), xs[k].ptr(), count);
      acc = k;
    }
    *last = acc;
    return rc;
  }
  if (mutant(Mutant::commutative_user_op_drops_last) && n >= 2 &&
      c.comb.kind == Combiner::Kind::user && commutative(c.comb.op).value_or(false)) {
    // Fault: a commutative user op leaves the last contribution out.
    for (int k = 1; k < n - 1 && rc == MPI_SUCCESS; ++k)
      rc = combine(c.comb, xs[order[k - 1]].ptr(), xs[order[k]].ptr(), count);
    *last = order[n - 2];
    return rc;
  }
  for (int k = 1; k < n && rc == MPI_SUCCESS; ++k)
    rc = combine(c.comb, xs[order[k - 1]].ptr(), xs[order[k]].ptr(), count);
  *last = order[n - 1];
  return rc;
}

// Mutant modify-send-buffer: the send buffer doubles as scratch space.
void scribble_send_buffer(const void* sendbuf, const void* result, int count, const Ctx& c) {
  if (mutant(Mutant::modify_send_buffer) && sendbuf != MPI_IN_PLACE && sendbuf != nullptr)
    copy_typed(result, const_cast<void*>(sendbuf), count, c.dt);
}

bool aliased(const void* sendbuf, const void* recvbuf, int count) {
  return count > 0 && sendbuf != MPI_IN_PLACE && sendbuf != nullptr && sendbuf == recvbuf;
}

// Each rank of the local group gets `counts[r]` elements of the full result,
// starting at element displs[r]: the scatter step of Reduce_scatter (and,
// with one segment of everything, of Allreduce), from the collector (local
// rank 0) over the private communicator.
int hand_out(const Ctx& c, std::vector<Temp>& xs, int last, const std::vector<int>& counts,
             const std::vector<int>& displs, int total, void* recvbuf, const void* sendbuf) {
  const Private& p = *c.priv;
  int rc = MPI_SUCCESS;
  auto segment = [&](int r) {
    if (mutant(Mutant::reduce_scatter_shifted) && counts.size() > 1) {
      const int s = (r + 1) % p.size;  // Fault: a rank gets its neighbour's segment.
      if (displs[s] + counts[r] <= total) return s;
    }
    return r;
  };
  if (p.rank == 0) {
    for (int r = 1; r < p.size; ++r) {
      const int s = send_typed(at(xs[last].ptr(), displs[segment(r)], c.l), counts[r], c.dt,
                               p.local[r], kTagResult, p.comm);
      if (rc == MPI_SUCCESS) rc = s;
    }
    const void* mine = at(xs[last].ptr(), displs[segment(0)], c.l);
    if (rc == MPI_SUCCESS) rc = deliver(mine, recvbuf, counts[0], c.dt, c.l);
    scribble_send_buffer(sendbuf, mine, counts[0], c);
    return rc;
  }
  Temp mine(counts[p.rank], c.l);
  rc = recv_typed(mine, counts[p.rank], c.dt, p.local[0], kTagResult, p.comm);
  if (rc == MPI_SUCCESS) rc = deliver(mine.ptr(), recvbuf, counts[p.rank], c.dt, c.l);
  scribble_send_buffer(sendbuf, mine.ptr(), counts[p.rank], c);
  return rc;
}

// Allreduce, Reduce_scatter and Reduce_scatter_block: the collector folds
// `total` elements and hands out segments.
int reduce_and_hand_out(const Ctx& c, const void* sendbuf, void* recvbuf,
                        const std::vector<int>& counts) {
  const Private& p = *c.priv;
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  const int total = std::accumulate(counts.begin(), counts.end(), 0);
  if (total == 0) return deliver(nullptr, recvbuf, 0, c.dt, c.l);
  std::vector<Temp> xs;
  int rc;
  if (!p.inter) {
    Temp zeros;
    const void* input = own_input(sendbuf, recvbuf, total, c, &zeros);
    rc = gather(c, input, total, p.local[0], p.rank == 0, p.local, &xs);
  } else {
    // Fault intercomm-own-group: a group gets its own reduction.
    const bool own = mutant(Mutant::intercomm_own_group);
    const std::vector<int>& from = own ? p.local : p.remote_fold;
    rc = gather(c, sendbuf, total, own ? p.local[0] : p.remote[0], p.rank == 0, from, &xs);
  }
  int last = 0;
  if (p.rank == 0 && rc == MPI_SUCCESS) rc = fold(c, xs, total, 0, &last);
  const int h = hand_out(c, xs, last, counts, displs, total, recvbuf, sendbuf);
  return rc != MPI_SUCCESS ? rc : h;
}

int scan_family(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, bool exclusive) {
  Ctx c;
  int rc = setup(comm, count, dt, op, &c);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  const Private& p = *c.priv;
  if (p.inter) return raise(comm, MPI_ERR_COMM);  // Section 6.11: intracommunicators only
  if (aliased(sendbuf, recvbuf, count)) return raise(comm, MPI_ERR_BUFFER);
  if (count == 0) return deliver(nullptr, recvbuf, 0, dt, c.l);
  if (mutant(Mutant::scan_exclusive) && !exclusive)
    exclusive = true;  // Fault: Scan acts as Exscan.
  Temp zeros;
  const void* input = own_input(sendbuf, recvbuf, count, c, &zeros);
  std::vector<Temp> xs;
  rc = gather(c, input, count, p.local[0], p.rank == 0, p.local, &xs);
  if (p.rank == 0) {
    int last = 0;
    if (rc == MPI_SUCCESS) rc = fold(c, xs, count, 0, &last);
    // Rank r gets the prefix through rank r (Scan) or r-1 (Exscan).
    auto prefix_for = [&](int r) {
      if (!exclusive) return r;
      if (mutant(Mutant::exscan_rank1_inclusive) && r == 1) return 1;  // Fault
      return r - 1;
    };
    for (int r = 1; r < p.size; ++r) {
      const int s = send_typed(xs[prefix_for(r)].ptr(), count, dt, p.local[r], kTagResult, p.comm);
      if (rc == MPI_SUCCESS) rc = s;
    }
    // Exscan: the receive buffer of rank 0 is undefined; it is left alone.
    if (!exclusive && rc == MPI_SUCCESS) rc = deliver(xs[0].ptr(), recvbuf, count, dt, c.l);
  } else {
    Temp mine(count, c.l);
    rc = recv_typed(mine, count, dt, p.local[0], kTagResult, p.comm);
    if (rc == MPI_SUCCESS) rc = deliver(mine.ptr(), recvbuf, count, dt, c.l);
  }
  return raise(comm, rc);
}

}  // namespace

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
           MPI_Comm comm) {
  Ctx c;
  int rc = setup(comm, count, dt, op, &c);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  const Private& p = *c.priv;
  std::vector<Temp> xs;
  int last = 0;
  if (p.inter) {
    // Section 6.2.3: no "in place" on an intercommunicator. Raised at every
    // process, whatever its root argument, before any communication, so that
    // no process waits for one that returned the error.
    if (sendbuf == MPI_IN_PLACE) return raise(comm, MPI_ERR_BUFFER);
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (root == MPI_ROOT) {
      if (count == 0) return deliver(nullptr, recvbuf, 0, dt, c.l);
      if (mutant(Mutant::hang_reduce_one_count_root) && count == kHangCount && p.rank == kHangRoot)
        hang_forever(p);  // Fault
      rc = gather(c, nullptr, count, -1, true, p.remote_fold, &xs);
      if (mutant(Mutant::intercomm_root_off_by_one)) xs.erase(xs.begin());  // Fault
      if (rc == MPI_SUCCESS && !xs.empty()) rc = fold(c, xs, count, 0, &last);
      if (rc == MPI_SUCCESS && !xs.empty()) rc = deliver(xs[last].ptr(), recvbuf, count, dt, c.l);
      return raise(comm, rc);
    }
    if (root < 0 || root >= static_cast<int>(p.remote.size())) return raise(comm, MPI_ERR_ROOT);
    if (count == 0) return MPI_SUCCESS;
    return raise(comm, gather(c, sendbuf, count, p.remote[root], false, {}, nullptr));
  }
  if (root < 0 || root >= p.size) return raise(comm, MPI_ERR_ROOT);
  const bool at_root = p.rank == root;
  if (at_root && aliased(sendbuf, recvbuf, count)) return raise(comm, MPI_ERR_BUFFER);
  if (count == 0) return at_root ? deliver(nullptr, recvbuf, 0, dt, c.l) : MPI_SUCCESS;
  if (mutant(Mutant::hang_reduce_at_4_ranks) && p.size == 4 && at_root)
    // Fault: the root waits for a message no process sends.
    PMPI_Recv(nullptr, 0, MPI_BYTE, p.local[(root + 1) % 4], kTagNever, p.comm, MPI_STATUS_IGNORE);
  if (mutant(Mutant::hang_reduce_one_count_root) && count == kHangCount && root == kHangRoot &&
      at_root)
    hang_forever(p);  // Fault
  Temp zeros;
  const void* input = at_root ? own_input(sendbuf, recvbuf, count, c, &zeros) : sendbuf;
  rc = gather(c, input, count, p.local[root], at_root, p.local, &xs);
  // Fault fold-from-root: the fold starts at the root, wrapping around.
  const int start = mutant(Mutant::fold_from_root) ? root : 0;
  const int wrong = (root + 1) % p.size;  // Fault result-at-wrong-root: delivered here
  const bool misdeliver = mutant(Mutant::result_at_wrong_root) && p.size > 1;
  if (at_root) {
    if (rc == MPI_SUCCESS) rc = fold(c, xs, count, start, &last);
    if (misdeliver) {
      const int s = send_typed(xs[last].ptr(), count, dt, p.local[wrong], kTagResult, p.comm);
      return raise(comm, rc != MPI_SUCCESS ? rc : s);
    }
    if (rc == MPI_SUCCESS) rc = deliver(xs[last].ptr(), recvbuf, count, dt, c.l);
    scribble_send_buffer(sendbuf, xs[last].ptr(), count, c);
  } else if (misdeliver && p.rank == wrong) {
    Temp result(count, c.l);
    rc = recv_typed(result, count, dt, p.local[root], kTagResult, p.comm);
    if (rc == MPI_SUCCESS && recvbuf != nullptr)
      rc = deliver(result.ptr(), recvbuf, count, dt, c.l);
  }
  return raise(comm, rc);
}

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm) {
  Ctx c;
  int rc = setup(comm, count, dt, op, &c);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (c.priv->inter && sendbuf == MPI_IN_PLACE) return raise(comm, MPI_ERR_BUFFER);
  if (aliased(sendbuf, recvbuf, count)) return raise(comm, MPI_ERR_BUFFER);
  if (mutant(Mutant::crash_allreduce_large_count) && count >= 1000) {
    volatile int* scratch = nullptr;  // Fault: no scratch space for large counts.
    *scratch = count;
  }
  const std::vector<int> one_segment_each(static_cast<std::size_t>(c.priv->size), count);
  // Every rank gets the whole result: segments of `count` elements from element 0.
  const Private& p = *c.priv;
  if (count == 0) return deliver(nullptr, recvbuf, 0, dt, c.l);
  std::vector<Temp> xs;
  if (!p.inter) {
    Temp zeros;
    const void* input = own_input(sendbuf, recvbuf, count, c, &zeros);
    rc = gather(c, input, count, p.local[0], p.rank == 0, p.local, &xs);
  } else {
    const bool own = mutant(Mutant::intercomm_own_group);
    const std::vector<int>& from = own ? p.local : p.remote_fold;
    rc = gather(c, sendbuf, count, own ? p.local[0] : p.remote[0], p.rank == 0, from, &xs);
  }
  int last = 0;
  if (p.rank == 0 && rc == MPI_SUCCESS) rc = fold(c, xs, count, 0, &last);
  const std::vector<int> from_zero(one_segment_each.size(), 0);
  const int h = hand_out(c, xs, last, one_segment_each, from_zero, count, recvbuf, sendbuf);
  return raise(comm, rc != MPI_SUCCESS ? rc : h);
}

int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm) {
  Ctx c;
  int rc = setup(comm, 0, dt, op, &c);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  std::vector<int> counts(recvcounts, recvcounts + c.priv->size);
  for (int n : counts)
    if (n < 0) return raise(comm, MPI_ERR_COUNT);
  if (c.priv->inter && sendbuf == MPI_IN_PLACE) return raise(comm, MPI_ERR_BUFFER);
  if (aliased(sendbuf, recvbuf, std::accumulate(counts.begin(), counts.end(), 0)))
    return raise(comm, MPI_ERR_BUFFER);
  return raise(comm, reduce_and_hand_out(c, sendbuf, recvbuf, counts));
}

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm) {
  Ctx c;
  int rc = setup(comm, recvcount, dt, op, &c);
  if (rc != MPI_SUCCESS) return raise(comm, rc);
  if (c.priv->inter && sendbuf == MPI_IN_PLACE) return raise(comm, MPI_ERR_BUFFER);
  if (aliased(sendbuf, recvbuf, recvcount)) return raise(comm, MPI_ERR_BUFFER);
  const std::vector<int> counts(static_cast<std::size_t>(c.priv->size), recvcount);
  return raise(comm, reduce_and_hand_out(c, sendbuf, recvbuf, counts));
}

int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return scan_family(sendbuf, recvbuf, count, dt, op, comm, false);
}

int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype dt, MPI_Op op,
           MPI_Comm comm) {
  return scan_family(sendbuf, recvbuf, count, dt, op, comm, true);
}

int reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype dt, MPI_Op op) {
  // Section 6.9.7: MPI_IN_PLACE is not allowed; errors without a
  // communicator are raised on MPI_COMM_SELF.
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return raise(MPI_COMM_SELF, MPI_ERR_BUFFER);
  if (count < 0) return raise(MPI_COMM_SELF, MPI_ERR_COUNT);
  Layout l;
  if (dt == MPI_DATATYPE_NULL || layout_of(dt, &l) != MPI_SUCCESS)
    return raise(MPI_COMM_SELF, MPI_ERR_TYPE);
  if (op == MPI_OP_NULL) return raise(MPI_COMM_SELF, MPI_ERR_OP);
  Combiner comb;
  int rc = resolve(op, dt, &comb);
  if (rc != MPI_SUCCESS) return raise(MPI_COMM_SELF, rc);
  if (count == 0) return deliver(nullptr, inoutbuf, 0, dt, l);
  Temp result(count, l);
  if (mutant(Mutant::reduce_local_swapped)) {
    // Fault: inoutbuf := inoutbuf o inbuf.
    rc = copy_typed(inbuf, result.ptr(), count, dt);
    if (rc == MPI_SUCCESS) rc = combine(comb, inoutbuf, result.ptr(), count);
  } else {
    rc = copy_typed(inoutbuf, result.ptr(), count, dt);
    if (rc == MPI_SUCCESS) rc = combine(comb, inbuf, result.ptr(), count);
  }
  if (rc == MPI_SUCCESS) rc = deliver(result.ptr(), inoutbuf, count, dt, l);
  return raise(MPI_COMM_SELF, rc);
}

int reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count, MPI_Datatype dt,
                  MPI_Op op) {
  // The proposal: inoutbuf := X o Y, X = inbuf (or inoutbuf if MPI_IN_PLACE),
  // Y = argbuf (likewise). inoutbuf may not be MPI_IN_PLACE, nor either input.
  if (inoutbuf == MPI_IN_PLACE) return raise(MPI_COMM_SELF, MPI_ERR_BUFFER);
  if (count < 0) return raise(MPI_COMM_SELF, MPI_ERR_COUNT);
  if (count > 0 && (inbuf == inoutbuf || argbuf == inoutbuf))
    return raise(MPI_COMM_SELF, MPI_ERR_BUFFER);
  Layout l;
  if (dt == MPI_DATATYPE_NULL || layout_of(dt, &l) != MPI_SUCCESS)
    return raise(MPI_COMM_SELF, MPI_ERR_TYPE);
  if (op == MPI_OP_NULL) return raise(MPI_COMM_SELF, MPI_ERR_OP);
  Combiner comb;
  int rc = resolve(op, dt, &comb);
  if (rc != MPI_SUCCESS) return raise(MPI_COMM_SELF, rc);
  if (count == 0) return deliver(nullptr, inoutbuf, 0, dt, l);
  const void* x = inbuf == MPI_IN_PLACE ? inoutbuf : inbuf;
  const void* y = argbuf == MPI_IN_PLACE ? inoutbuf : argbuf;
  if (mutant(Mutant::reduce_locals_swapped_inputs)) std::swap(x, y);  // Fault: Y o X
  // Y is copied first: inoutbuf is written only once the combine is done,
  // so X and Y read it as it was.
  Temp result(count, l);
  rc = copy_typed(y, result.ptr(), count, dt);
  if (rc == MPI_SUCCESS) rc = combine(comb, x, result.ptr(), count);
  if (rc == MPI_SUCCESS) rc = deliver(result.ptr(), inoutbuf, count, dt, l);
  return raise(MPI_COMM_SELF, rc);
}

}  // namespace ordo::refmpi

// The oracle's planning: for a case, a topology and one rank, the buffers
// that rank passes to MPI and the receive buffer it must get back (plan,
// plan_buffers), made from every rank's inputs (oracle_inputs.cpp) and the
// reference's rank-ordered semantics, after validate_case
// (oracle_validation.cpp); the same plan a range of elements at a time for
// huge cases, the folds the processes of a case share, and the
// contributions of a witness.multiset case.
#include <numeric>
#include <string>

#include "ordo/reference/errors.h"
#include "ordo/reference/oracle.h"
#include "ordo/reference/semantics.h"
#include "ordo/reference/witness.h"

namespace ordo::ref {

namespace {
// full: plan(); erroneous: plan(..., true); buffers: plan_buffers().
enum class Planning { full, erroneous, buffers };
RankPlan plan_as(const Case& c, const Topology& t, Role me, Planning planning);
}  // namespace

RankPlan plan(const Case& c, const Topology& t, Role me, bool erroneous) {
  return plan_as(c, t, me, erroneous ? Planning::erroneous : Planning::full);
}

RankPlan plan_buffers(const Case& c, const Topology& t, Role me) {
  return plan_as(c, t, me, Planning::buffers);
}

namespace {
RankPlan plan_as(const Case& c, const Topology& t, Role me, Planning planning) {
  const bool expect = planning == Planning::full;
  // plan_buffers: the buffers of this rank alone; another rank's input or
  // receive buffer, made only to be reduced, is an empty placeholder.
  const bool own_only = planning == Planning::buffers;
  if (planning != Planning::erroneous) validate_case(c, t);
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  RankPlan pl;
  pl.datatype = c.datatype;
  using RR = RankPlan::RootRole;
  // Reduce with a root datatype: the root's buffers are laid out by it, and
  // the other ranks' inputs are what the library reads through theirs.
  const bool root_dt = c.routine == Routine::reduce && !c.root_datatype.empty();
  const Datatype rdt = root_dt ? Datatype::parse(c.root_datatype) : dt;
  auto as_root_layout = [&](std::vector<Buffer> v) {
    if (root_dt)
      for (Buffer& b : v) b = convert(b, rdt);
    return v;
  };

  auto inputs = [&](int group, int size, int count) {
    std::vector<Buffer> v;
    for (int r = 0; r < size; ++r)
      v.push_back(own_only && ((t.inter && group != me.group) || r != me.rank)
                      ? Buffer(dt, 0)
                      : make_input(c, dt, count, group, r));
    return v;
  };

  // ---- local reductions ----
  if (c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals) {
    Buffer in = make_input(c, dt, c.count, 0, 0);
    Buffer inout = make_input(c, dt, c.count, 0, 1);
    pl.send_count = pl.recv_count = c.count;
    pl.recv_initial = inout;
    if (c.routine == Routine::reduce_local) {
      if (expect) reduce_local(in, inout, op);
      pl.send = in;
    } else {
      Buffer arg = c.locals_arg_is_in ? in : make_input(c, dt, c.count, 0, 2);
      const Buffer* x = c.locals_in_is_in_place ? nullptr : &in;
      const Buffer* y = c.locals_arg_is_in_place ? nullptr : (c.locals_arg_is_in ? x : &arg);
      if (c.locals_arg_is_in && c.locals_in_is_in_place) y = nullptr;
      if (expect) reduce_locals(x, y, &inout, op);
      if (!c.locals_in_is_in_place) pl.send = in;
      if (!c.locals_arg_is_in_place && !c.locals_arg_is_in) pl.arg = arg;
    }
    if (expect) pl.recv_expected = inout;
    pl.recv_compare_elements = c.count;
    return pl;
  }

  if (!t.inter) {
    const int p = t.size_low, r = me.rank;
    int send_count = c.count, recv_count = c.count;
    std::vector<int> counts;
    if (c.routine == Routine::reduce_scatter) {
      counts = effective_recvcounts(c, t);
      send_count = std::accumulate(counts.begin(), counts.end(), 0);
      recv_count = counts[r];
    } else if (c.routine == Routine::reduce_scatter_block) {
      counts.assign(p, c.count);
      send_count = p * c.count;
      recv_count = c.count;
    }
    // In place, or sendbuf == recvbuf (erroneous: DETECT): the receive buffer
    // is also what the library reads as input, send_count elements.
    const int recv_alloc = c.in_place || c.alias_send_recv ? send_count : recv_count;
    if (c.routine == Routine::reduce && r != c.root) {
      // Not the root: no result to expect, only this rank's own buffers.
      pl.send_count = send_count;
      pl.recv_count = recv_alloc;
      pl.recv_compare_elements = recv_count;
      pl.root_role = RR::other_in_root_group;
      pl.recv_significant = false;
      pl.result_defined = true;
      pl.send_significant = true;
      pl.send = make_input(c, dt, send_count, 0, r);
      pl.recv_initial = make_recv_initial(c, dt, recv_alloc, 0, r);
      return pl;
    }
    if (expect && !counts.empty()) {
      // Reduce_scatter(_block): rank r's block of the reduction is the
      // reduction of every rank's block r (MPI-4.1 Section 6.10), so only
      // those blocks of the other ranks' inputs are made (element k of a
      // block is element offset + k of the whole input: make_input's first),
      // and reduced by the same semantics with every other recvcount 0.
      int offset = 0;
      for (int q = 0; q < r; ++q) offset += counts[static_cast<std::size_t>(q)];
      const int mine = counts[static_cast<std::size_t>(r)];
      std::vector<Buffer> blocks;
      for (int q = 0; q < p; ++q) blocks.push_back(make_input(c, dt, mine, 0, q, offset));
      std::vector<int> block_counts(static_cast<std::size_t>(p), 0);
      block_counts[static_cast<std::size_t>(r)] = mine;
      std::vector<Buffer> recv;
      for (int q = 0; q < p; ++q) recv.emplace_back(dt, 0);
      // In place, the rest of the receive buffer keeps the rank's input.
      recv[static_cast<std::size_t>(r)] = c.in_place ? make_input(c, dt, recv_alloc, 0, r)
                                                     : make_recv_initial(c, dt, recv_alloc, 0, r);
      pl.recv_initial = recv[static_cast<std::size_t>(r)];
      reduce_scatter(blocks, block_counts, op, recv, false, r);
      pl.send_count = send_count;
      pl.recv_count = recv_alloc;
      pl.recv_compare_elements = recv_count;
      pl.root_role = RR::none;
      pl.recv_significant = true;
      pl.result_defined = true;
      pl.send_significant = !c.in_place;
      if (!c.in_place) pl.send = make_input(c, dt, send_count, 0, r);
      pl.recv_expected = std::move(recv[static_cast<std::size_t>(r)]);
      return pl;
    }
    // Scan / Exscan: rank r's result depends on ranks 0..r only.
    const int ranks_needed = c.routine == Routine::scan || c.routine == Routine::exscan ? r + 1 : p;
    std::vector<Buffer> send_own = inputs(0, ranks_needed, send_count);  // as each rank lays it out
    // With a root datatype, the inputs as the root reads them (a copy then).
    std::vector<Buffer> send_at_root;
    if (root_dt) {
      send_at_root = as_root_layout(send_own);
      if (!own_only || r == c.root)
        send_at_root[static_cast<std::size_t>(c.root)] = make_input(c, rdt, send_count, 0, c.root);
    }
    std::vector<Buffer>& send = root_dt ? send_at_root : send_own;
    std::vector<Buffer> recv;
    for (int q = 0; q < ranks_needed; ++q) {
      // Each rank's own receive size: with uneven recvcounts, rank q's block
      // need not fit in this rank's buffer.
      const int alloc_q =
          c.in_place || c.alias_send_recv || counts.empty() ? recv_alloc : counts[q];
      const bool in_place_here = c.in_place && (c.routine != Routine::reduce || q == c.root);
      const Datatype& qdt = root_dt && q == c.root ? rdt : dt;
      // Another rank's receive buffer counts only as its input (in place):
      // this process plans its own result alone (the semantics' `only`).
      if (q != r && (!in_place_here || own_only)) {
        recv.emplace_back(qdt, 0);
        continue;
      }
      recv.push_back(in_place_here ? make_input(c, qdt, alloc_q, 0, q)
                                   : make_recv_initial(c, qdt, alloc_q, 0, q));
    }
    pl.recv_initial = recv[r];
    if (root_dt && r == c.root) pl.datatype = c.root_datatype;
    std::vector<bool> defined(ranks_needed, true);
    if (expect) switch (c.routine) {
        case Routine::reduce:
          reduce(send, op, c.root, recv, c.in_place);
          break;
        case Routine::allreduce:
          allreduce(send, op, recv, c.in_place, r);
          break;
        case Routine::reduce_scatter:
        case Routine::reduce_scatter_block:
          reduce_scatter(send, counts, op, recv, c.in_place, r);
          break;
        case Routine::scan:
          scan(send, op, recv, c.in_place, r);
          break;
        case Routine::exscan:
          defined = exscan(send, op, recv, c.in_place, r);
          break;
        default:
          break;
      }
    // Exscan's rank 0 has no result (MPI-4.1 6.11.2), reduced or not.
    if (own_only && c.routine == Routine::exscan) defined[0] = false;
    pl.send_count = send_count;
    pl.recv_count = recv_alloc;
    pl.recv_compare_elements = recv_count;
    const bool is_root = c.routine != Routine::reduce || r == c.root;
    pl.root_role =
        c.routine == Routine::reduce ? (is_root ? RR::root : RR::other_in_root_group) : RR::none;
    pl.recv_significant = is_root;
    pl.result_defined = defined[r];
    const bool in_place_here = c.in_place && is_root;
    pl.send_significant = !in_place_here;
    if (!in_place_here) pl.send = std::move(root_dt && r != c.root ? send_own[r] : send[r]);
    if (pl.recv_significant && expect) pl.recv_expected = std::move(recv[r]);
    return pl;
  }

  // ---- intercommunicators ----
  // MPI_IN_PLACE here is erroneous (DETECT): each process's input is then
  // in its receive buffer, which is as large as its send buffer would be.
  auto in_place_input = [&](RankPlan& p) {
    if (!c.in_place) return;
    if (p.send) {
      p.recv_initial = p.send;
      p.recv_count = p.send_count;
    }
    p.send.reset();
    p.send_significant = false;
  };
  const int sizes[2] = {t.size_low, t.size_high};
  const int other = 1 - me.group;
  if (c.routine == Routine::reduce) {
    const int root_group = c.root_in_high_group ? 1 : 0;
    pl.send_count = pl.recv_count = pl.recv_compare_elements = c.count;
    if (me.group == root_group) {
      pl.send_significant = false;
      if (me.rank == c.root) {
        pl.root_role = RR::root;
        Buffer recv = make_recv_initial(c, rdt, c.count, me.group, me.rank);
        pl.recv_initial = recv;
        if (root_dt) pl.datatype = c.root_datatype;
        if (expect) {
          reduce_intercomm(as_root_layout(inputs(other, sizes[other], c.count)), op, recv);
          pl.recv_expected = recv;
        }
      } else {
        pl.root_role = RR::other_in_root_group;
        pl.recv_significant = false;
      }
    } else {
      pl.root_role = RR::in_other_group;
      pl.recv_significant = false;
      pl.send = make_input(c, dt, c.count, me.group, me.rank);
    }
    in_place_input(pl);
    return pl;
  }
  std::vector<int> counts_of[2];
  int send_count = c.count;
  if (c.routine == Routine::reduce_scatter) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    counts_of[0].assign(rc.begin(), rc.begin() + t.size_low);
    counts_of[1].assign(rc.begin() + t.size_low, rc.end());
    send_count = std::accumulate(counts_of[0].begin(), counts_of[0].end(), 0);
  } else if (c.routine == Routine::reduce_scatter_block) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    counts_of[0].assign(t.size_low, rc[0]);
    counts_of[1].assign(t.size_high, rc[1]);
    send_count = rc[0] * t.size_low;
  }
  // Allreduce (and Scan / Exscan, erroneous here: DETECT) receive count elements.
  const bool scattered =
      c.routine == Routine::reduce_scatter || c.routine == Routine::reduce_scatter_block;
  auto count_of = [&](int g, int q) { return scattered ? counts_of[g][q] : c.count; };
  const int recv_count = count_of(me.group, me.rank);
  std::vector<Buffer> send[2] = {inputs(0, sizes[0], send_count), inputs(1, sizes[1], send_count)};
  std::vector<Buffer> recv[2];
  for (int g = 0; g < 2; ++g)
    for (int q = 0; q < sizes[g]; ++q)
      recv[g].push_back(own_only && (g != me.group || q != me.rank)
                            ? Buffer(dt, 0)
                            : make_recv_initial(c, dt, count_of(g, q), g, q));
  pl.recv_initial = recv[me.group][me.rank];
  if (expect) {
    if (c.routine == Routine::allreduce)  // this rank's part of allreduce_intercomm
      reduce_intercomm(send[other], op, recv[me.group][me.rank]);
    else
      reduce_scatter_intercomm(send[0], send[1], counts_of[0], counts_of[1], op, recv[0], recv[1]);
    pl.recv_expected = recv[me.group][me.rank];
  }
  pl.send_count = send_count;
  pl.recv_count = pl.recv_compare_elements = recv_count;
  pl.send = send[me.group][me.rank];
  in_place_input(pl);
  return pl;
}

}  // namespace

RankPlan plan_without_buffers(const Case& c, const Topology& t, Role me) {
  validate_case(c, t);
  check_plannable_by_ranges(c, t);
  using RR = RankPlan::RootRole;
  RankPlan pl;
  pl.datatype = c.datatype;
  const int p = t.size_low, r = me.rank;
  pl.send_count = pl.recv_count = pl.recv_compare_elements = c.count;
  switch (c.routine) {
    case Routine::reduce:
      pl.root_role = r == c.root ? RR::root : RR::other_in_root_group;
      pl.recv_significant = r == c.root;
      break;
    case Routine::reduce_scatter: {
      const std::vector<int> counts = effective_recvcounts(c, t);
      pl.send_count = std::accumulate(counts.begin(), counts.end(), 0);
      pl.recv_count = pl.recv_compare_elements = counts[static_cast<std::size_t>(r)];
      break;
    }
    case Routine::reduce_scatter_block:
      pl.send_count = p * c.count;
      break;
    case Routine::exscan:
      pl.result_defined = r != 0;
      break;
    default:
      break;
  }
  pl.mpi_root = c.root;
  return pl;
}

Buffer expected_range(const Case& c, const Topology& t, Role me, int first, int n) {
  const RankPlan pl = plan_without_buffers(c, t, me);
  if (!pl.recv_significant || !pl.result_defined)
    throw UsageError("no result is defined for this rank's receive buffer: " + c.describe());
  if (first < 0 || n < 0 || first + n > pl.recv_compare_elements)
    throw UsageError("elements [" + std::to_string(first) + ", " + std::to_string(first + n) +
                     ") are not in the receive buffer's " +
                     std::to_string(pl.recv_compare_elements));
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  Buffer recv = recv_initial_range(c, me, first, n);
  if (c.routine == Routine::reduce_local) {  // inoutvec: the input of a second process (plan())
    reduce_local(make_input(c, dt, n, 0, 0, first), recv, op);
    return recv;
  }
  // The ranks whose inputs me's result folds, in rank order, and the send
  // elements they contribute: Scan and Exscan stop at me (Exscan before it);
  // the scattering routines fold the elements of me's block.
  const int ranks = c.routine == Routine::scan     ? me.rank + 1
                    : c.routine == Routine::exscan ? me.rank
                                                   : t.size_low;
  const int send_first = send_element_of(c, t, me, first);
  std::vector<Buffer> inputs;
  for (int q = 0; q < ranks; ++q) inputs.push_back(make_input(c, dt, n, 0, q, send_first));
  std::vector<const Buffer*> in;
  for (const Buffer& b : inputs) in.push_back(&b);
  const Buffer res = fold(in, op);
  copy_elements(res, 0, recv, 0, n);
  return recv;
}

bool folds_shareable(const Case& c, const Topology& t) {
  if (t.inter || t.size_low < 2) return false;
  if (c.routine != Routine::reduce && c.routine != Routine::allreduce &&
      c.routine != Routine::scan && c.routine != Routine::exscan)
    return false;
  if (!c.erroneous.empty() || c.alias_send_recv || !c.root_datatype.empty()) return false;
  if (c.count <= 0) return false;
  const Datatype dt = Datatype::parse(c.datatype);
  return dt.extent() > 0 && dt.true_ub() - dt.true_lb() <= dt.extent();
}

int shared_fold_rows(const Case& c, const Topology& t) {
  if (!folds_shareable(c, t)) throw UsageError("no shared folds for this case: " + c.describe());
  switch (c.routine) {
    case Routine::scan:
      return t.size_low;
    case Routine::exscan:
      return t.size_low - 1;
    default:
      return 1;
  }
}

int shared_fold_row_of(const Case& c, const Topology& t, Role me) {
  if (!folds_shareable(c, t)) throw UsageError("no shared folds for this case: " + c.describe());
  if (me.group != 0 || me.rank < 0 || me.rank >= t.size_low)
    throw UsageError("no such rank of the communicator: " + std::to_string(me.rank));
  switch (c.routine) {
    case Routine::scan:
      return me.rank;
    case Routine::exscan:
      return me.rank - 1;
    case Routine::reduce:
      return me.rank == c.root ? 0 : -1;
    default:
      return 0;
  }
}

std::vector<Buffer> shared_folds(const Case& c, const Topology& t, int first, int n) {
  const int rows = shared_fold_rows(c, t);
  if (first < 0 || n < 0 || first + n > c.count)
    throw UsageError("elements [" + std::to_string(first) + ", " + std::to_string(first + n) +
                     ") are not among the case's " + std::to_string(c.count));
  validate_case(c, t);
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  std::vector<Buffer> out;
  // The running fold in rank order (plan(): fold() and scan(), a step at a time),
  // kept as it passes each row's rank.
  Buffer acc = make_input(c, dt, n, 0, 0, first);
  const bool running = c.routine == Routine::scan || c.routine == Routine::exscan;
  const int last = running ? rows - 1 : t.size_low - 1;
  if (running) out.push_back(acc);
  for (int q = 1; q <= last; ++q) {
    fold_into(acc, make_input(c, dt, n, 0, q, first), op);
    if (running) out.push_back(acc);
  }
  if (!running) out.push_back(std::move(acc));
  return out;
}

void write_fold_range(const Buffer& row, int first, Buffer& initial) {
  copy_elements(row, 0, initial, first, row.count());
}

int send_element_of(const Case& c, const Topology& t, Role me, int recv_element) {
  if (c.routine != Routine::reduce_scatter && c.routine != Routine::reduce_scatter_block)
    return recv_element;
  const std::vector<int> counts = effective_recvcounts(c, t);
  if (c.routine == Routine::reduce_scatter_block) {
    const int per_rank = t.inter ? counts[static_cast<std::size_t>(me.group)] : c.count;
    return me.rank * per_rank + recv_element;
  }
  // Reduce_scatter: the low group's counts, then (intercommunicator) the high group's.
  const std::size_t first = me.group == 0 ? 0 : static_cast<std::size_t>(t.size_low);
  int displ = 0;
  for (std::size_t q = first; q < first + static_cast<std::size_t>(me.rank) && q < counts.size();
       ++q)
    displ += counts[q];
  return displ + recv_element;
}

std::vector<witness::Contribution> multiset_contributions(const Case& c, const Topology& t,
                                                          Role me) {
  const Datatype dt = Datatype::parse(c.datatype);
  std::vector<witness::Contribution> out;
  for (int g = 0; g < (t.inter ? 2 : 1); ++g) {
    const int n = g == 0 ? t.size_low : t.size_high;
    for (int r = 0; r < n; ++r) {
      witness::Contribution k;
      k.group = g;
      k.rank = r;
      if (t.inter)
        k.expected = g != me.group;
      else if (c.routine == Routine::scan)
        k.expected = r <= me.rank;
      else if (c.routine == Routine::exscan)
        k.expected = r < me.rank;
      const int count = plan(c, t, Role{g, r}, /*erroneous=*/true).send_count;
      const Buffer in = make_input(c, dt, count, g, r);
      for (int e = 0; e < count; ++e) k.elements.push_back(witness::read_cells(in.element(e), dt));
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace ordo::ref

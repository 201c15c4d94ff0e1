// Ops: predefined ops are computed by ordo's reference (its op x type table
// and arithmetic); user ops through the function given to MPI_Op_create,
// called once per combine with the datatype handle passed to the routine.
#include <cstdint>
#include <cstring>
#include <utility>

#include "ordo/reference/errors.h"
#include "refmpi.h"

namespace ordo::refmpi {
namespace {

struct UserOp {
  MPI_Op op;
  MPI_User_function* fn;
  UserFunctionC* fn_c;
  bool commute;
};

// One call of a user function, whichever binding it was created with.
void user_call(const Combiner& c, void* in, void* inout, int len, MPI_Datatype* dt) {
  if (c.fn != nullptr) {
    c.fn(in, inout, &len, dt);
  } else {
    MPI_Count n = len;
    c.fn_c(in, inout, &n, dt);
  }
}
std::vector<UserOp>& user_ops() {
  static std::vector<UserOp> ops;
  return ops;
}

std::optional<ref::PredefinedOp> predefined(MPI_Op op) {
  using P = ref::PredefinedOp;
  const std::pair<MPI_Op, P> table[] = {
      {MPI_MAX, P::MAX},         {MPI_MIN, P::MIN},       {MPI_SUM, P::SUM},
      {MPI_PROD, P::PROD},       {MPI_LAND, P::LAND},     {MPI_LOR, P::LOR},
      {MPI_LXOR, P::LXOR},       {MPI_BAND, P::BAND},     {MPI_BOR, P::BOR},
      {MPI_BXOR, P::BXOR},       {MPI_MAXLOC, P::MAXLOC}, {MPI_MINLOC, P::MINLOC},
      {MPI_REPLACE, P::REPLACE}, {MPI_NO_OP, P::NO_OP}};
  for (const auto& [h, p] : table)
    if (h == op) return p;
  return std::nullopt;
}

// Mutant minloc-tie-larger-index: MINLOC / MAXLOC on MPI_2INT resolve a tie
// to the larger index.
void minloc_maxloc_2int_ties_high(const Combiner& c, const void* in, void* inout, int count) {
  const bool is_min = c.ref_op->predefined_op() == ref::PredefinedOp::MINLOC;
  const std::ptrdiff_t extent = c.ref_dt->extent();
  for (int k = 0; k < count; ++k)
    for (const ref::Leaf& leaf : c.ref_dt->typemap()) {
      int a[2], b[2];
      const std::ptrdiff_t at = k * extent + leaf.disp;
      std::memcpy(a, static_cast<const char*>(in) + at, sizeof a);
      std::memcpy(b, static_cast<char*>(inout) + at, sizeof b);
      int r[2];
      if (a[0] == b[0]) {
        r[0] = a[0];
        r[1] = a[1] > b[1] ? a[1] : b[1];
      } else {
        const bool take_a = is_min ? a[0] < b[0] : a[0] > b[0];
        r[0] = take_a ? a[0] : b[0];
        r[1] = take_a ? a[1] : b[1];
      }
      std::memcpy(static_cast<char*>(inout) + at, r, sizeof r);
    }
}

int call(const Combiner& c, const void* invec, void* inoutvec, int count) {
  switch (c.kind) {
    case Combiner::Kind::user: {
      MPI_Datatype dt = c.dt;
      void* in = const_cast<void*>(invec);
      // Fault (fortran-type-handle-dup): only for a datatype built of the
      // Fortran INTEGER, the function sees an equivalent copy of the handle.
      ref::Basic basic;
      const bool fortran_integer = mutant(Mutant::fortran_type_handle_dup) && [&] {
        const auto rdt = reference_datatype(c.dt);
        return rdt && rdt->homogeneous(&basic) && basic == ref::Basic::INTEGER;
      }();
      if (mutant(Mutant::wrong_datatype_handle) || fortran_integer) {
        // Fault: the function sees an equivalent copy, not the caller's handle.
        MPI_Datatype copy;
        PMPI_Type_dup(c.dt, &copy);
        user_call(c, in, inoutvec, count, &copy);
        PMPI_Type_free(&copy);
        return MPI_SUCCESS;
      }
#ifdef ORDO_ABI_BUILD
      if (mutant(Mutant::abi_internal_datatype_handle)) {
        // Fault (abi-internal-datatype-handle): a conversion missed at the ABI
        // boundary. The function sees the library's integer handle of the
        // datatype (MPI_Type_toint) in place of the ABI handle. For a
        // predefined datatype the two are the same value (the ABI constant, as
        // MPICH 5.0.2 and Open MPI 6.0.0rc2 give it); for one the library
        // created they differ. Over a library's own mpi.h there is no such
        // conversion (mutant_not_in_this_build).
        MPI_Datatype internal = reinterpret_cast<MPI_Datatype>(
            static_cast<std::uintptr_t>(static_cast<unsigned>(PMPI_Type_toint(c.dt))));
        user_call(c, in, inoutvec, count, &internal);
        return MPI_SUCCESS;
      }
#endif
      if (mutant(Mutant::user_fn_len_zero)) {
        user_call(c, in, inoutvec, 0, &dt);  // Fault: the length argument is 0.
        return MPI_SUCCESS;
      }
      if (mutant(Mutant::split_len_same_offset) && count >= 2) {
        // Fault: the call is split in two, but the second half is passed
        // the same addresses as the first.
        user_call(c, in, inoutvec, count / 2, &dt);
        user_call(c, in, inoutvec, count - count / 2, &dt);
        return MPI_SUCCESS;
      }
      user_call(c, in, inoutvec, count, &dt);
      return MPI_SUCCESS;
    }
    case Combiner::Kind::reference:
      if (mutant(Mutant::minloc_tie_larger_index) &&
          (c.ref_op->predefined_op() == ref::PredefinedOp::MINLOC ||
           c.ref_op->predefined_op() == ref::PredefinedOp::MAXLOC)) {
        ref::Basic b;
        if (c.ref_dt->homogeneous(&b) && b == ref::Basic::TWO_INT) {
          minloc_maxloc_2int_ties_high(c, invec, inoutvec, count);
          return MPI_SUCCESS;
        }
      }
      try {
        ref::combine(*c.ref_op, *c.ref_dt, count, static_cast<const std::byte*>(invec),
                     static_cast<std::byte*>(inoutvec));
      } catch (const std::exception&) {
        return MPI_ERR_OP;
      }
      return MPI_SUCCESS;
    case Combiner::Kind::library:
      return PMPI_Reduce_local(invec, inoutvec, count, c.dt, c.op);
  }
  return MPI_ERR_OTHER;
}

}  // namespace

void register_user_op(MPI_Op op, MPI_User_function* fn, UserFunctionC* fn_c, bool commute) {
  forget_user_op(op);
  user_ops().push_back({op, fn, fn_c, commute});
}

void forget_user_op(MPI_Op op) {
  auto& v = user_ops();
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it->op == op) {
      v.erase(it);
      return;
    }
}

std::optional<bool> commutative(MPI_Op op) {
  for (const UserOp& u : user_ops())
    if (u.op == op) return u.commute;
  if (const auto p = predefined(op)) return ref::Op::predefined(*p).commutative();
  return std::nullopt;
}

int resolve(MPI_Op op, MPI_Datatype dt, Combiner* out) {
  out->op = op;
  out->dt = dt;
  for (const UserOp& u : user_ops())
    if (u.op == op) {
      out->kind = Combiner::Kind::user;
      out->fn = u.fn;
      out->fn_c = u.fn_c;
      return MPI_SUCCESS;
    }
  const auto p = predefined(op);
  // Neither predefined nor a live op of MPI_Op_create: MPI_OP_NULL, a freed
  // op, or not an op at all (Section 6.9.5: a freed op may not be used).
  if (!p) return MPI_ERR_OP;
  out->ref_dt = reference_datatype(dt);
  if (out->ref_dt) {
    ref::PredefinedOp which = *p;
    ref::Basic b;
    if (mutant(Mutant::max_as_min_int) && which == ref::PredefinedOp::MAX &&
        out->ref_dt->homogeneous(&b) && b == ref::Basic::INT)
      which = ref::PredefinedOp::MIN;  // Fault: one row of the op table is wrong.
    out->ref_op = ref::Op::predefined(which);
    try {
      out->ref_op->check_usable_with(*out->ref_dt);
    } catch (const ref::SemanticsError&) {
      return MPI_ERR_OP;
    }
    out->kind = Combiner::Kind::reference;
    return MPI_SUCCESS;
  }
  // A datatype the reference does not model (a subarray or darray type, a
  // Fortran 90 type): the library's own local reduction.
  out->kind = Combiner::Kind::library;
  return MPI_SUCCESS;
}

int combine(const Combiner& c, const void* invec, void* inoutvec, int count) {
  if (count <= 0) return MPI_SUCCESS;
  // Fault (large-count-user-fn-swapped): only the call path of the user
  // functions of MPI_Op_create_c swaps the operands.
  const bool large_count_fn = c.kind == Combiner::Kind::user && c.fn == nullptr;
  if (mutant(Mutant::swap_operands) ||
      (large_count_fn && mutant(Mutant::large_count_user_fn_swapped))) {
    // Fault: inoutvec := inoutvec o invec. The left operand's copy takes the result.
    Layout l;
    layout_of(c.dt, &l);
    Temp left(count, l);
    copy_typed(invec, left.ptr(), count, c.dt);
    const int rc = call(c, inoutvec, left.ptr(), count);
    if (rc == MPI_SUCCESS) copy_typed(left.ptr(), inoutvec, count, c.dt);
    return rc;
  }
  return call(c, invec, inoutvec, count);
}

}  // namespace ordo::refmpi

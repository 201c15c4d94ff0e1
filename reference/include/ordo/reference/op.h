// Reduction operations: the predefined ops with their op x type validity
// table (MPI-4.1 Section 6.9.2, MINLOC/MAXLOC Section 6.9.4) and user ops
// (Section 6.9.5) called exactly as MPI calls them: (invec, inoutvec, len,
// datatype), with inoutvec[i] := invec[i] o inoutvec[i].
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ordo/reference/basic_types.h"
#include "ordo/reference/datatype.h"

namespace ordo::ref {

enum class PredefinedOp {
  MAX,
  MIN,
  SUM,
  PROD,
  LAND,
  LOR,
  LXOR,
  BAND,
  BOR,
  BXOR,
  MAXLOC,
  MINLOC,
  REPLACE,
  NO_OP
};
inline constexpr int kPredefinedOpCount = static_cast<int>(PredefinedOp::NO_OP) + 1;

std::string_view op_name(PredefinedOp op);  // "MPI_SUM"
std::optional<PredefinedOp> op_from_name(std::string_view mpi_name);

// The validity table, as data. `reason` is empty when valid; otherwise one
// sentence, and `clause` names the rule that forbids it.
struct Validity {
  bool valid;
  std::string clause;
  std::string reason;
};
Validity validity(PredefinedOp op, Basic type);
bool group_allows(PredefinedOp op, TypeGroup g);

// Applies a predefined op to `n` scalars (or pairs) of type `type` laid out
// with stride info(type).extent: out[i] = left[i] op right[i]. `out` may alias
// `left` or `right`. Pair padding bytes are not written.
void apply_predefined(PredefinedOp op, Basic type, const std::byte* left, const std::byte* right,
                      std::byte* out, std::size_t n);

// User function in MPI's calling convention, over the reference datatype.
using UserFunction =
    std::function<void(const std::byte* invec, std::byte* inoutvec, int len, const Datatype& dt)>;

class Op {
 public:
  static Op predefined(PredefinedOp op);
  static Op user(std::string name, UserFunction fn, bool commute);

  bool is_predefined() const { return predefined_.has_value(); }
  PredefinedOp predefined_op() const { return *predefined_; }
  const UserFunction& function() const { return fn_; }
  // MPI_Op_commutative: true for every predefined op, the declared flag otherwise.
  bool commutative() const { return commute_; }
  const std::string& name() const { return name_; }

  // Throws SemanticsError if the op may not be used with the datatype in a
  // reduction (a predefined op on a type it does not allow, REPLACE/NO_OP).
  void check_usable_with(const Datatype& dt) const;

 private:
  std::optional<PredefinedOp> predefined_;
  UserFunction fn_;
  bool commute_ = true;
  std::string name_;
};

// One combine of `count` elements described by `dt`, as MPI's user-function
// contract defines it: right_inout := left o right_inout. Bytes outside the
// typemap are not written. `left` and `right_inout` point at element 0.
void combine(const Op& op, const Datatype& dt, int count, const std::byte* left,
             std::byte* right_inout);

}  // namespace ordo::ref

// Erroneous uses a library may report (DETECT): each case runs with
// MPI_ERRORS_RETURN and records whether an error code came back (reported)
// or not (accepted). A crash or an abort instead is recorded as such by the
// runner, which then resumes after the case.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;
using ordo::ref::Basic;
using ordo::ref::PredefinedOp;
using ordo::ref::TypeGroup;

namespace {

const std::vector<PredefinedOp>& arithmetic_and_logical() {
  static const std::vector<PredefinedOp> v = {
      PredefinedOp::MAX,  PredefinedOp::MIN, PredefinedOp::SUM, PredefinedOp::PROD,
      PredefinedOp::LAND, PredefinedOp::LOR, PredefinedOp::LXOR};
  return v;
}

void each(const std::vector<std::pair<PredefinedOp, Basic>>& pairs) {
  for (const auto& [op, type] : pairs)
    for (Routine r : {Routine::allreduce, Routine::reduce_local})
      ordo::harness::run_case(make(r, name(op), name(type), 3));
}

}  // namespace

TEST(Detect, char_wchar_and_character_in_a_reduction) {
  ORDO_CLAUSE("op.char-types-excluded", DETECT);
  std::vector<PredefinedOp> ops;
  for (int o = 0; o < 12; ++o) ops.push_back(static_cast<PredefinedOp>(o));
  each(invalid_pairs({TypeGroup::character}, ops));
}

TEST(Detect, arithmetic_and_logical_ops_on_byte) {
  ORDO_CLAUSE("op.type-groups", DETECT);
  each(invalid_pairs({TypeGroup::byte}, arithmetic_and_logical()));
}

TEST(Detect, logical_and_bitwise_ops_on_floating_point) {
  ORDO_CLAUSE("op.type-groups", DETECT);
  each(invalid_pairs({TypeGroup::floating_point},
                     {PredefinedOp::LAND, PredefinedOp::LOR, PredefinedOp::LXOR, PredefinedOp::BAND,
                      PredefinedOp::BOR, PredefinedOp::BXOR}));
}

TEST(Detect, minloc_and_maxloc_on_types_that_are_not_pairs) {
  ORDO_CLAUSE("op.minloc-maxloc-pair-types", DETECT);
  for (Basic t : {Basic::INT, Basic::DOUBLE, Basic::C_BOOL})
    for (PredefinedOp op : {PredefinedOp::MINLOC, PredefinedOp::MAXLOC})
      ordo::harness::run_case(make(Routine::allreduce, name(op), name(t), 3));
}

TEST(Detect, replace_and_no_op_in_a_reduction) {
  ORDO_CLAUSE("op.replace-no-op-not-for-reductions", DETECT);
  for (const char* op : {"MPI_REPLACE", "MPI_NO_OP"})
    for (Routine r : {Routine::allreduce, Routine::reduce, Routine::scan, Routine::reduce_local})
      ordo::harness::run_case(make(r, op, "MPI_INT", 3));
}

TEST(Detect, in_place_as_inbuf_of_reduce_local) {
  ORDO_CLAUSE("reduce-local.no-in-place", DETECT);
  Case c = make(Routine::reduce_local, "MPI_SUM", "MPI_INT", 3);
  c.in_place = true;
  ordo::harness::run_case(c);
}

TEST(Detect, scan_and_exscan_on_an_intercommunicator) {
  ORDO_CLAUSE("scan.intracomm-only", DETECT);
  for (const std::string& shape : ordo::harness::inter_shapes())
    for (Routine r : {Routine::scan, Routine::exscan})
      ordo::harness::run_case(make(r, "MPI_SUM", "MPI_INT", 3, shape));
}

TEST(Detect, a_receive_datatype_that_overlaps_itself) {
  ORDO_CLAUSE("buffers.recv-overlap", DETECT);
  for (const char* type : {"hvector(4,1,0,MPI_INT)", "indexed([1,1,1,1],[0,0,1,2],MPI_INT)"})
    ordo::harness::run_case(
        make(Routine::allreduce, "witness.sum-declared-noncommutative", type, 2));
}

TEST(Detect, the_send_buffer_is_the_receive_buffer) {
  ORDO_CLAUSE("buffers.send-recv-aliasing", DETECT);
  for (Routine r : {Routine::allreduce, Routine::scan, Routine::reduce_scatter_block}) {
    Case c = make(r, "MPI_SUM", "MPI_INT", 4);
    c.alias_send_recv = true;
    ordo::harness::run_case(c);
  }
}

TEST(Detect, reduce_locals_with_inoutbuf_in_place) {
  ORDO_CLAUSE("reduce-locals.inout-not-in-place", DETECT);
  Case c = make(Routine::reduce_locals, "MPI_SUM", "MPI_INT", 3);
  c.in_place = true;
  ordo::harness::run_case(c);
}

TEST(Detect, reduce_locals_with_an_input_that_is_inoutbuf) {
  ORDO_CLAUSE("reduce-locals.distinct-from-inout", DETECT);
  for (bool both : {false, true}) {
    Case c = make(Routine::reduce_locals, "MPI_SUM", "MPI_INT", 3);
    c.alias_send_recv = true;
    c.locals_arg_is_in = both;
    ordo::harness::run_case(c);
  }
}

TEST(Detect, a_predefined_op_on_a_derived_datatype) {
  ORDO_CLAUSE("op.predefined-on-predefined-types", DETECT);
  for (const char* type : {"contiguous(3,MPI_INT)", "dup(MPI_DOUBLE)", "vector(2,1,2,MPI_INT)"})
    for (Routine r : {Routine::allreduce, Routine::reduce_local})
      ordo::harness::run_case(make(r, "MPI_SUM", type, 2));
}

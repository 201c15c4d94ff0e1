// MPI_Reduce_local: inoutbuf := inbuf o inoutbuf, with inbuf the left operand.
#include <gtest/gtest.h>

#include "executor.h"

using ordo::harness::run_case;
using ordo::ref::Case;
using ordo::ref::Routine;

TEST(Reduce_local, applies_inbuf_as_the_left_operand_of_a_noncommutative_op) {
  ORDO_CLAUSE("reduce-local.operand-order", MUST);
  for (const char* op : {"witness.tracer", "witness.matrix"})
    for (const char* type : {"contiguous(4,MPI_INT)", "vector(2,2,3,MPI_INT)"})
      for (int count : {1, 3}) {
        Case c;
        c.routine = Routine::reduce_local;
        c.op = op;
        c.datatype = type;
        c.count = count;
        c.seed = ordo::harness::settings().seed;
        run_case(c);
      }
}

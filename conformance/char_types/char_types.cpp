// MPI_SIGNED_CHAR and MPI_UNSIGNED_CHAR (and the 8-bit integer types) are
// small integers in reductions: negative signed chars and unsigned chars of
// 128 and above keep their integer values, in every routine.
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;
using ordo::ref::Basic;
using ordo::ref::PredefinedOp;

TEST(Char_types, signed_and_unsigned_char_keep_their_integer_values_in_every_routine) {
  ORDO_CLAUSE("op.char-types-integer", MUST);
  for (Basic type : {Basic::SIGNED_CHAR, Basic::UNSIGNED_CHAR, Basic::INT8_T, Basic::UINT8_T})
    for (PredefinedOp op : {PredefinedOp::MAX, PredefinedOp::MIN, PredefinedOp::SUM,
                            PredefinedOp::PROD, PredefinedOp::BAND, PredefinedOp::LOR})
      for (Routine r : collectives_and_local())
        for (const char* shape : {"world", "reversed"})
          for (int count : {7, 33})
            ordo::harness::run_case(at_last_root(make(r, name(op), name(type), count, shape)));
}

// MPI_IN_PLACE: the input is taken from the receive buffer, which receives
// the result, for every routine that allows it, at every root, at small
// counts and above every threshold of the library.
#include <gtest/gtest.h>

#include "catalogue.h"
#include "thresholds.h"

using namespace ordo::catalogue;

namespace {

// One element more than the largest threshold of the library (4-int cells).
int above_every_threshold(std::size_t element_size) {
  long long largest = 0;
  for (const auto& t : ordo::harness::thresholds()) largest = std::max(largest, t.bytes);
  return static_cast<int>(largest / static_cast<long long>(element_size)) + 1;
}

}  // namespace

TEST(In_place, every_routine_takes_its_input_from_the_receive_buffer_at_every_root) {
  ORDO_CLAUSE("collective.in-place", MUST);
  for (Routine r : collectives())
    for (const std::string& shape :
         {std::string("world"), std::string("reversed"), std::string("odd-even")}) {
      if (!ordo::harness::zoo(shape).available) continue;
      for (int count : {1, 7}) {
        Case sum = make(r, "MPI_SUM", "MPI_INT", count, shape);
        sum.in_place = true;
        run_at_every_root(sum);
        Case order = make(r, "witness.tracer", "contiguous(4,MPI_INT)", count, shape);
        order.in_place = true;
        run_at_every_root(order);
      }
    }
}

TEST(In_place, every_routine_takes_its_input_from_the_receive_buffer_above_every_threshold) {
  ORDO_CLAUSE("collective.in-place", MUST);
  for (Routine r : collectives()) {
    Case sum = at_last_root(make(r, "MPI_SUM", "MPI_INT", above_every_threshold(4)));
    sum.in_place = true;
    ordo::harness::run_case(sum);
    Case order = at_last_root(
        make(r, "witness.matrix", "contiguous(4,MPI_UINT32_T)", above_every_threshold(16)));
    order.in_place = true;
    ordo::harness::run_case(order);
  }
}

TEST(In_place, nonblocking_and_persistent_forms_take_their_input_from_the_receive_buffer) {
  ORDO_CLAUSE("collective.in-place", MUST);
  for (Mode m : {Mode::nonblocking, Mode::persistent})
    for (Routine r : collectives()) {
      Case c = at_last_root(make(r, "witness.tracer", "contiguous(4,MPI_INT)", 5));
      c.in_place = true;
      c.mode = m;
      ordo::harness::run_case(c);
    }
}

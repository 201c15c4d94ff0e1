// The words of a case's verdict on this rank: where the rank sits, what
// differs between the library's result and the reference's, and the
// failures every judgement shares (an error code, a written guard byte, a
// changed send buffer, a user function handed another datatype).
#pragma once

#include <cstddef>
#include <string>

#include "comm_zoo.h"
#include "harness.h"
#include "ordo/reference/buffer.h"
#include "ordo/reference/case.h"
#include "ordo/reference/error_bound.h"

namespace ordo::harness {

// A failed verdict with that message.
LocalVerdict fail(std::string m);

// Where this rank sits in the case's communicator ("comm rank 1 of 4",
// "high group rank 0 of 2").
std::string where(const ZooComm& z);

// The first difference in words, its element and byte counted from
// first_element and first_byte (a range of the buffer).
std::string describe_values(const ref::Difference& d, int first_element = 0,
                            std::ptrdiff_t first_byte = 0);

// What differs, in words; a witness.tracer case also names the first wrong
// combine, and its explanation goes to *tracer as data (the record's
// "tracer" item); a witness.multiset case says what its cell holds.
std::string describe_difference(const ref::Case& c, const ref::Difference& d,
                                const ref::Buffer& expected, const ref::Buffer& observed,
                                const ZooComm& z, std::string* tracer);

// An inexact value farther from the reference's than its error bound.
std::string describe_outside_bound(const ref::BoundViolation& bad);

// The failures every judgement shares, each ending with where().
std::string returned(const std::string& routine, int rc, const ZooComm& z);
std::string other_datatype_handle(const std::string& routine, const ZooComm& z);
std::string send_buffer_modified(std::ptrdiff_t byte, const ZooComm& z);
std::string recv_guards_written(const ZooComm& z);

}  // namespace ordo::harness

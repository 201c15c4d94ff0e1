// The judgement of one completed call on this rank: the send buffer
// unchanged, no byte around argbuf or the receive buffer written, and the
// received values those of the reference (exactly, or within its error
// bound).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "comm_zoo.h"
#include "guarded_buffer.h"
#include "harness.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::harness {

// nullopt when the call passed; *observed_bytes gets the receive buffer of
// an inexact Allreduce, for the check that every rank received the same.
std::optional<LocalVerdict> judge_call(
    const ref::Case& c, const ZooComm& z, const ref::RankPlan& plan,
    const std::optional<GuardedBuffer>& send, const std::vector<std::byte>& send_before,
    std::ptrdiff_t send_origin, const std::optional<GuardedBuffer>& arg,
    const std::optional<GuardedBuffer>& recv, std::string* observed_bytes);

}  // namespace ordo::harness

#include "record.h"

#include <ctime>
#include <stdexcept>

namespace ordo::harness {
namespace {

Json optional_string(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

std::string utc(const char* format) {
  char b[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(b, sizeof b, format, &tm);
  return b;
}

}  // namespace

Json to_json(const Record& r) {
  // A skip always says why (issue #13: a skip without a reason hides what
  // was not tested); the writers make sure of it, this is the last guard.
  if (r.outcome == "skip" && r.message.empty())
    throw std::logic_error("ordo: record " + r.id + " is a skip without a reason");
  Json j;
  if (!r.property.is_null()) j["property"] = r.property;
  j["schema"] = "ordo.check/1";
  j["seq"] = r.seq ? Json(*r.seq) : Json(nullptr);
  j["id"] = r.id;
  j["test"] = r.test;
  j["clause"] = r.clause;
  j["level"] = r.level;
  j["routine"] = optional_string(r.routine);
  if (r.credited_to) j["credited_to"] = *r.credited_to;
  j["case"] = r.case_json;
  if (!r.dimensions.is_null()) j["dimensions"] = r.dimensions;
  j["ranks"] = r.ranks;
  j["comm_size"] = r.comm_size;
  if (!r.failing_comm_sizes.empty()) j["failing_comm_sizes"] = r.failing_comm_sizes;
  if (r.bytes) j["bytes"] = *r.bytes;
  if (r.layout) j["layout"] = *r.layout;
  j["vendor"] = r.vendor;
  j["variant"] = r.variant;
  if (r.nodes) j["nodes"] = *r.nodes;
  if (r.placement) j["placement"] = *r.placement;
  if (!r.node_map.is_null() && !r.node_map.is_discarded()) j["node_map"] = r.node_map;
  if (r.comm_node_maps.is_array() && !r.comm_node_maps.empty())
    j["comm_node_maps"] = r.comm_node_maps;
  j["outcome"] = r.outcome;
  j["message"] = r.message;
  j["failing_ranks"] = r.failing_ranks;
  j["detect"] = optional_string(r.detect);
  j["waiver"] = optional_string(r.waiver);
  if (!r.tracer.empty()) j["tracer"] = r.tracer;
  j["duration_s"] = r.duration_s;
  if (!r.case_limit.is_null()) j["case_limit"] = r.case_limit;
  if (r.case_seconds) j["case_seconds"] = *r.case_seconds;
  j["reproducer"] = optional_string(r.reproducer);
  j["replay"] = optional_string(r.replay);
  j["time"] = r.time;
  return j;
}

std::string to_line(const Record& r) {
  return to_json(r).dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json to_json(const InflightNote& n) {
  Json j;
  j["seq"] = n.seq;
  j["id"] = n.id;
  j["test"] = n.test;
  j["clause"] = n.clause;
  j["level"] = n.level;
  j["case"] = n.case_json;
  j["routine"] = n.routine;
  if (n.bytes) j["bytes"] = *n.bytes;
  if (n.layout) j["layout"] = *n.layout;
  if (n.credited_to) j["credited_to"] = *n.credited_to;
  if (!n.dimensions.is_null()) j["dimensions"] = n.dimensions;
  if (!n.case_limit.is_null()) j["case_limit"] = n.case_limit;
  if (n.comm_size) j["comm_size"] = *n.comm_size;
  if (!n.comm_sizes.empty()) j["comm_sizes"] = n.comm_sizes;
  if (!n.comm_node_maps.is_null()) j["comm_node_maps"] = n.comm_node_maps;
  if (n.returned) {
    Json r;
    r["detect"] = n.returned->detect;
    r["message"] = n.returned->message;
    if (!n.returned->case_limit.is_null()) r["case_limit"] = n.returned->case_limit;
    j["returned"] = std::move(r);
  }
  return j;
}

std::string to_text(const InflightNote& n) {
  return to_json(n).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string now_iso() { return utc("%Y-%m-%dT%H:%M:%SZ"); }
std::string today() { return utc("%Y-%m-%d"); }

}  // namespace ordo::harness

// A check record: one line of the results journal, the single C++ shape of
// reports/schema/record-1.schema.json (until it moves there,
// reports/schema/results-1.schema.json, $defs/record). Every C++ writer (the
// harness's record() and the property summary) fills a Record and writes it
// through to_json() / to_line(); nothing else builds record JSON.
//
// And the in-flight note (job_protocol.h, <journal>.inflight.<rank>): what a
// rank writes at the start of each case, from which the runner writes the
// record of a case that ended its job. Its single C++ shape is InflightNote,
// of reports/schema/inflight-1.schema.json; the runner validates every note
// it reads against that schema (tools/runner/protocol.py).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ordo::harness {

// Objects keep their keys in insertion order (a record reads in schema order).
using Json = nlohmann::ordered_json;

struct Record {
  std::optional<long long> seq;        // the case's number in its process; none for a summary
  std::string id;                      // <test>#<case index> or <test>#summary
  std::string test;                    // GoogleTest Suite.name
  std::string clause;                  // slug from spec/clauses.json
  std::string level;                   // MUST | SHOULD | DETECT | INFO
  std::optional<std::string> routine;  // MPI routine or the subject of a case-less check
  // Whose code the check judged: "ordo" when the library lacks the routine
  // and ordo's portable implementation ran over the library's primitives
  // (Reduce_locals without MPIX_Reduce_locals); none (or "library") when the
  // library's own code ran. Omitted when none.
  std::optional<std::string> credited_to;
  Json case_json;  // the case (ordo::ref::Case::to_json) or null
  // The case's value of each dimension of the crossed case space
  // (ordo::ref::crossing), for the report's coverage matrix; omitted when null.
  Json dimensions;
  int ranks = 1;      // processes in the job
  int comm_size = 1;  // processes in the case's communicator
  // A failed case on a shape whose communicators differ in size (odd-even at
  // an odd world size): the size of each failing rank's communicator, once
  // each, ascending; a waiver's comm_size condition must hold for every one
  // (comm_size is world rank 0's, which may not have failed). Omitted when
  // empty.
  std::vector<int> failing_comm_sizes;
  // The case's count times the size of its datatype (MPI_Type_size, from the
  // reference's model of the type): what a library's size thresholds see.
  std::optional<long long> bytes;
  // How one element of the datatype lies in memory (case_flight.h,
  // case_layout): contiguous, holes, padded or interleaved.
  std::optional<std::string> layout;
  std::string vendor;
  std::string variant = "default";
  // `ordo run --nodes N --placement P`: the virtual nodes asked for and the
  // node map the job's library showed (groups of world ranks); omitted when
  // no nodes were asked.
  std::optional<int> nodes;
  std::optional<std::string> placement;
  Json node_map;
  // Under virtual nodes: the node map of each group of the case's
  // communicator in its own ranks (node_map.h, comm_node_maps).
  Json comm_node_maps;
  std::string outcome;  // pass | fail | crash | timeout | skip | waived
  std::string message;
  std::vector<int> failing_ranks;
  std::optional<std::string> detect;  // DETECT level: "reported" | "accepted"
  std::optional<std::string> waiver;  // the id of the waiver that applied
  double duration_s = 0;
  // With derived case limits (`ordo run`, case_limits.h): the watchdog's
  // limit of this case ({seconds, rule, why}) and the case's whole wall time
  // on rank 0 (begun to recorded); omitted otherwise.
  Json case_limit;
  std::optional<double> case_seconds;
  std::optional<std::string> reproducer;  // a reproducer file written for this case
  std::optional<std::string> replay;      // the command that replays the case
  std::string time;                       // ISO 8601, UTC
  // The witness.tracer's explanation of a wrong result, one item per failing
  // rank whose message names it (see ordo::ref::witness::Trace); omitted when empty.
  Json tracer = Json::array();
  // The property summary's own data (property_tests/properties.cpp); omitted when null.
  Json property;
};

// The record as the schema spells it.
Json to_json(const Record& r);
// One journal line (no newline); invalid UTF-8 in a message is replaced.
std::string to_line(const Record& r);

// The in-flight note of a case (reports/schema/inflight-1.schema.json): the
// fields the runner copies into the record of a case that crashed or hung.
struct InflightNote {
  long long seq = 0;                  // the case's number in its process
  std::string id;                     // <test>#<case index>
  std::string test;                   // GoogleTest Suite.name
  std::string clause;                 // slug from spec/clauses.json
  std::string level;                  // MUST | SHOULD | DETECT | INFO
  Json case_json;                     // the case (ordo::ref::Case::to_json) or null
  std::string routine;                // the MPI routine the record names; "" for a case-less check
  std::optional<long long> bytes;     // as Record::bytes
  std::optional<std::string> layout;  // as Record::layout
  std::optional<std::string> credited_to;  // Reduce_locals: "library" or "ordo"
  Json dimensions;                         // as Record::dimensions; omitted when null
  Json case_limit;  // the watchdog's limit (derived limits only); omitted when null
  // Once the case's communicator is known (note_case_comm): its size and,
  // under virtual nodes or with a world node map, each group's node map.
  std::optional<int> comm_size;
  // When the shape's communicators differ in size (odd-even at an odd world
  // size): every size, for a dead case may have died in any of them; omitted
  // when empty.
  std::vector<int> comm_sizes;
  Json comm_node_maps;  // omitted when null
  // A DETECT case, once this rank's call returned: how ("reported",
  // "accepted", or "" outside the case's communicator), the first line of
  // its message and the short limit that then applies (omitted when null).
  struct Returned {
    std::string detect;
    std::string message;
    Json case_limit;
  };
  std::optional<Returned> returned;
};

// The note as the schema spells it, in the order the harness has always
// written it.
Json to_json(const InflightNote& n);
// The note's file text: one line and a newline; invalid UTF-8 is replaced.
std::string to_text(const InflightNote& n);

// The time now, "YYYY-MM-DDTHH:MM:SSZ" (UTC), and today's date "YYYY-MM-DD".
std::string now_iso();
std::string today();

}  // namespace ordo::harness

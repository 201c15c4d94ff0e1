// Waivers: the one C++ matcher (reports/waivers.py is the one Python
// matcher). A waiver names one library bug: the trigger (outcome, test,
// variant, message, case fields, ranks, comm_size) and the releases it was
// seen in (library_versions), until a date (expires). The rules are those of
// vendors/README.md ("Waivers"); both matchers must pass the shared vectors
// in vendors/waiver-vectors.json (tests/waiver_vectors_test.cpp).
//
// Plain functions over JSON and strings: no MPI, so the vectors run anywhere.
#pragma once

#include <string>
#include <vector>

#include "record.h"

namespace ordo::harness::waivers {

enum class Match {
  waived,    // the waiver applies
  no_match,  // its trigger does not name the record
  expired,   // it names the record, but its date is past
  version,   // it names the record, but not the library's release
};
const char* match_name(Match m);  // "waived" | "no-match" | "expired" | "version"

// The release in an MPI_Get_library_version string: the first dotted number
// with an optional pre-release tag ("MPICH Version:\t4.0.2 ..." -> "4.0.2",
// "Open MPI v4.1.4, ..." -> "4.1.4", "MPICH Version:\t4.1a1" -> "4.1a1");
// "" when there is none.
std::string parse_library_version(const std::string& text);

// One version spec against one release: a glob ("4.0.2", "4.0.*") or space
// separated comparisons that must all hold (">=4.0 <4.1", numeric by part).
bool version_matches(const std::string& spec, const std::string& version);

// ordo's one glob dialect (reports/waivers.py's glob): the whole text,
// case-sensitively; '*' any run, '?' one character, '[...]' a set with ranges,
// negated by a leading '!' or '^'; a backslash takes the next character
// literally; an unclosed '[' is literal.
bool glob(const std::string& pattern, const std::string& text);

// One condition against one field: a string is a glob over a string; a list,
// any of its elements; an object, a numeric condition {min, max, not,
// power_of_two}; anything else, equality (a boolean never equals a number).
bool value_matches(const Json& want, const Json& have);

// A crash or timeout waiver's signature against a crash or timeout record:
// {"hang": true} covers a timeout by its limit alone; otherwise (and always
// for a crash) every field given must hold, and one must be given: "text" (a
// glob or a list of globs, any of which, over the whole message), "signal"
// (a condition on the first "signal N" the message names), "exit_code" (a
// condition on its "(exit code N)"). Not an object: no match.
bool signature_matches(const Json& signature, const Json& record);

// Whether the waiver's trigger names the record (dates and versions aside):
// its outcome is one the waiver names ("outcome": a string or a list, default
// "fail"), and a crash or timeout matches the waiver's signature, unless
// signature is false (the harness's prediction of a case it does not run,
// --ordo-avoid-known-fatal, which has no message yet: neither the signature
// nor a message condition is read).
bool covers(const Json& waiver, const Json& record, bool signature = true);

// The verdict of one waiver on one record.
Match match(const Json& waiver, const Json& record, const std::string& today,
            const std::string& library_version, bool signature = true);

// Waives the record (outcome, waiver, message) by the first waiver that
// applies, in file order; each waiver that names the record but does not
// apply adds why to the message. Returns the waiver applied, or nullptr.
const Json* apply(Json& record, const std::vector<Json>& waivers, const std::string& today,
                  const std::string& library_version);

// The "waivers" array of a waivers file; throws std::runtime_error (one line)
// when the file cannot be read or has no such array.
std::vector<Json> load(const std::string& path);

}  // namespace ordo::harness::waivers

#include "ordo/reference/case.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <limits>
#include <sstream>

#include "ordo/reference/errors.h"
#include "ordo/reference/json.h"

namespace ordo::ref {
namespace {

constexpr std::array<std::string_view, 8> kRoutines = {
    "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block",
    "scan",   "exscan",    "reduce_local",   "reduce_locals"};
constexpr std::array<std::string_view, 3> kModes = {"blocking", "nonblocking", "persistent"};

std::string quote(std::string_view s) { return "\"" + json::escape(s) + "\""; }

// Integer fields are C ints: a larger JSON number is refused, not wrapped.
constexpr long long kIntMax = std::numeric_limits<int>::max();

}  // namespace

std::string_view routine_name(Routine r) { return kRoutines[static_cast<int>(r)]; }
std::optional<Routine> routine_from_name(std::string_view s) {
  for (std::size_t i = 0; i < kRoutines.size(); ++i)
    if (kRoutines[i] == s) return static_cast<Routine>(i);
  return std::nullopt;
}
std::string_view mode_name(Mode m) { return kModes[static_cast<int>(m)]; }
std::optional<Mode> mode_from_name(std::string_view s) {
  for (std::size_t i = 0; i < kModes.size(); ++i)
    if (kModes[i] == s) return static_cast<Mode>(i);
  return std::nullopt;
}

std::string_view mpi_routine_name(Routine r, Mode m) {
  static const char* kNames[8][3] = {
      {"MPI_Reduce", "MPI_Ireduce", "MPI_Reduce_init"},
      {"MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init"},
      {"MPI_Reduce_scatter", "MPI_Ireduce_scatter", "MPI_Reduce_scatter_init"},
      {"MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block", "MPI_Reduce_scatter_block_init"},
      {"MPI_Scan", "MPI_Iscan", "MPI_Scan_init"},
      {"MPI_Exscan", "MPI_Iexscan", "MPI_Exscan_init"},
      {"MPI_Reduce_local", "MPI_Reduce_local", "MPI_Reduce_local"},
      {"MPIX_Reduce_locals", "MPIX_Reduce_locals", "MPIX_Reduce_locals"}};
  return kNames[static_cast<int>(r)][static_cast<int>(m)];
}

std::string Case::to_json() const {
  std::ostringstream o;
  o << "{\"routine\":" << quote(routine_name(routine)) << ",\"op\":" << quote(op)
    << ",\"datatype\":" << quote(datatype) << ",\"root_datatype\":" << quote(root_datatype)
    << ",\"count\":" << count << ",\"recvcounts\":[";
  for (std::size_t i = 0; i < recvcounts.size(); ++i) o << (i ? "," : "") << recvcounts[i];
  o << "],\"root\":" << root << ",\"comm\":" << quote(comm)
    << ",\"root_in_high_group\":" << (root_in_high_group ? "true" : "false")
    << ",\"in_place\":" << (in_place ? "true" : "false")
    << ",\"null_insignificant\":" << (null_insignificant ? "true" : "false")
    << ",\"mode\":" << quote(mode_name(mode))
    << ",\"locals_in_is_in_place\":" << (locals_in_is_in_place ? "true" : "false")
    << ",\"locals_arg_is_in_place\":" << (locals_arg_is_in_place ? "true" : "false")
    << ",\"locals_arg_is_in\":" << (locals_arg_is_in ? "true" : "false")
    << ",\"large_count\":" << (large_count ? "true" : "false") << ",\"binding\":" << quote(binding)
    << ",\"exact\":" << (exact ? "true" : "false")
    << ",\"alias_send_recv\":" << (alias_send_recv ? "true" : "false");
  if (!erroneous.empty()) o << ",\"erroneous\":" << quote(erroneous);  // absent for valid cases
  if (!concurrency.empty()) o << ",\"concurrency\":" << quote(concurrency);  // absent: one call
  o << ",\"seed\":" << seed << "}";
  return o.str();
}

Case Case::from_json(std::string_view text) {
  const json::Value doc = json::parse(text);
  if (!doc.is(json::Value::Kind::object)) throw UsageError("case JSON: not an object");
  using K = json::Value::Kind;
  Case c;
  auto get = [&](const char* k, K kind) -> const json::Value* {
    const json::Value* v = doc.get(k);
    if (v == nullptr) return nullptr;
    if (!v->is(kind))
      throw UsageError(std::string("case JSON: field '") + k + "' has the wrong type");
    return v;
  };
  auto integer = [&](const char* k, long long lo, long long hi) -> std::optional<long long> {
    const json::Value* v = get(k, K::number);
    if (v == nullptr) return std::nullopt;
    if (static_cast<double>(v->integer) != v->num || v->integer < lo || v->integer > hi)
      throw UsageError(std::string("case JSON: field '") + k + "' is out of range");
    return v->integer;
  };
  for (const auto& [k, v] : doc.fields) {
    static const char* known[] = {"routine",
                                  "op",
                                  "datatype",
                                  "root_datatype",
                                  "count",
                                  "recvcounts",
                                  "root",
                                  "comm",
                                  "root_in_high_group",
                                  "in_place",
                                  "null_insignificant",
                                  "mode",
                                  "locals_in_is_in_place",
                                  "locals_arg_is_in_place",
                                  "locals_arg_is_in",
                                  "large_count",
                                  "binding",
                                  "exact",
                                  "alias_send_recv",
                                  "erroneous",
                                  "concurrency",
                                  "seed"};
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) throw UsageError("case JSON: unknown field '" + k + "'");
  }
  if (auto v = get("routine", K::string)) {
    auto r = routine_from_name(v->str);
    if (!r) throw UsageError("case JSON: unknown routine '" + v->str + "'");
    c.routine = *r;
  }
  if (auto v = get("op", K::string)) c.op = v->str;
  if (auto v = get("datatype", K::string)) c.datatype = v->str;
  if (auto v = get("root_datatype", K::string)) c.root_datatype = v->str;
  if (auto n = integer("count", 0, kIntMax)) c.count = static_cast<int>(*n);
  if (auto v = get("recvcounts", K::array))
    for (const json::Value& x : v->items) {
      if (!x.is(K::number) || static_cast<double>(x.integer) != x.num || x.integer < 0 ||
          x.integer > kIntMax)
        throw UsageError("case JSON: recvcounts must be non-negative integers");
      c.recvcounts.push_back(static_cast<int>(x.integer));
    }
  if (auto n = integer("root", -kIntMax - 1, kIntMax)) c.root = static_cast<int>(*n);
  if (auto v = get("comm", K::string)) c.comm = v->str;
  if (auto v = get("root_in_high_group", K::boolean)) c.root_in_high_group = v->b;
  if (auto v = get("in_place", K::boolean)) c.in_place = v->b;
  if (auto v = get("null_insignificant", K::boolean)) c.null_insignificant = v->b;
  if (auto v = get("mode", K::string)) {
    auto md = mode_from_name(v->str);
    if (!md) throw UsageError("case JSON: unknown mode '" + v->str + "'");
    c.mode = *md;
  }
  if (auto v = get("locals_in_is_in_place", K::boolean)) c.locals_in_is_in_place = v->b;
  if (auto v = get("locals_arg_is_in_place", K::boolean)) c.locals_arg_is_in_place = v->b;
  if (auto v = get("locals_arg_is_in", K::boolean)) c.locals_arg_is_in = v->b;
  if (auto v = get("large_count", K::boolean)) c.large_count = v->b;
  if (auto v = get("binding", K::string)) {
    if (v->str != "c" && v->str != "f08" && v->str != "f90")
      throw UsageError("case JSON: unknown binding '" + v->str + "' (c, f08, f90)");
    c.binding = v->str;
  }
  if (auto v = get("exact", K::boolean)) c.exact = v->b;
  if (auto v = get("alias_send_recv", K::boolean)) c.alias_send_recv = v->b;
  if (auto v = get("erroneous", K::string)) c.erroneous = v->str;
  if (auto v = get("concurrency", K::string)) c.concurrency = v->str;
  if (auto n = integer("seed", 0, 1LL << 53)) c.seed = static_cast<std::uint64_t>(*n);
  return c;
}

std::string Case::describe() const {
  std::ostringstream o;
  o << mpi_routine_name(routine, mode) << " op=" << op << " datatype=" << datatype
    << " count=" << count;
  if (!recvcounts.empty()) {
    o << " recvcounts=[";
    for (std::size_t i = 0; i < recvcounts.size(); ++i) o << (i ? "," : "") << recvcounts[i];
    o << "]";
  }
  if (routine == Routine::reduce)
    o << " root=" << root << (root_in_high_group ? " (high group)" : "");
  if (!root_datatype.empty()) o << " root_datatype=" << root_datatype;
  o << " comm=" << comm;
  if (in_place) o << " in_place";
  if (!null_insignificant) o << " (buffers passed where not significant)";
  if (large_count) o << " large-count";
  if (binding != "c") o << " binding=" << binding;
  if (!exact) o << " inexact-inputs";
  if (alias_send_recv) o << " sendbuf==recvbuf";
  if (!erroneous.empty()) o << " erroneous=" << erroneous;
  if (!concurrency.empty()) o << " concurrency=" << concurrency;
  if (routine == Routine::reduce_locals)
    o << " in=" << (locals_in_is_in_place ? "IN_PLACE" : "X")
      << " arg=" << (locals_arg_is_in_place ? "IN_PLACE" : (locals_arg_is_in ? "X" : "Y"));
  o << " seed=" << seed;
  return o.str();
}

std::string concurrency_conflict(const Case& c) {
  if (c.concurrency.empty()) return "";
  if (c.concurrency != "test" && c.concurrency != "outstanding" && c.concurrency != "freed")
    return "unknown concurrency '" + c.concurrency + "' (test, outstanding, freed)";
  if (c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals)
    return "a local reduction completes in the call: no request";
  if (c.concurrency == "test" && c.mode == Mode::blocking)
    return "a blocking call has no request to test";
  if (c.concurrency != "test" && c.mode != Mode::nonblocking)
    return c.concurrency == "outstanding"
               ? "outstanding calls are nonblocking calls (a persistent request is started "
                 "again, not duplicated: the restarts check)"
               : "handles are freed while a nonblocking call's request is pending";
  // A predefined datatype's text is a name or value_index(V,I), whose
  // arguments are names (the datatype parser allows nothing else).
  const bool predefined_type =
      c.datatype.find('(') == std::string::npos || c.datatype.rfind("value_index(", 0) == 0;
  if (c.concurrency == "freed" && predefined_type && c.op.rfind("witness.", 0) != 0)
    return "nothing to free: a predefined op on a predefined datatype";
  if (c.concurrency == "freed" && !c.erroneous.empty())
    return "an erroneous case frees handles of its own";
  return "";
}

}  // namespace ordo::ref

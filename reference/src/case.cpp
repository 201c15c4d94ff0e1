#include "ordo/reference/case.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "ordo/reference/errors.h"

namespace ordo::ref {
namespace {

constexpr std::array<std::string_view, 8> kRoutines = {
    "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block",
    "scan",   "exscan",    "reduce_local",   "reduce_locals"};
constexpr std::array<std::string_view, 3> kModes = {"blocking", "nonblocking", "persistent"};

std::string quote(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

// A flat JSON object of strings, numbers, booleans and integer arrays.
struct Value {
  enum class Kind { string, number, boolean, array } kind = Kind::string;
  std::string s;
  long long n = 0;
  bool b = false;
  std::vector<long long> a;
};

class FlatJson {
 public:
  explicit FlatJson(std::string_view s) : s_(s) {}
  std::map<std::string, Value> parse() {
    std::map<std::string, Value> out;
    expect('{');
    if (peek() == '}') {
      ++i_;
      return out;
    }
    while (true) {
      std::string k = str();
      expect(':');
      out[k] = value();
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      break;
    }
    ws();
    if (i_ != s_.size()) fail("text after the object");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& w) {
    throw UsageError("case JSON: " + w + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string str() {
    expect('"');
    std::string o;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        ++i_;
        if (s_[i_] == 'u') {
          if (i_ + 4 >= s_.size()) fail("bad escape");
          o += static_cast<char>(std::stoi(std::string(s_.substr(i_ + 1, 4)), nullptr, 16));
          i_ += 4;
        } else if (s_[i_] == 'n') {
          o += '\n';
        } else {
          o += s_[i_];
        }
      } else {
        o += s_[i_];
      }
      ++i_;
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return o;
  }
  long long number() {
    ws();
    std::size_t b = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (b == i_) fail("expected a number");
    try {
      return std::stoll(std::string(s_.substr(b, i_ - b)));
    } catch (...) {
      fail("number out of range");
    }
  }
  Value value() {
    Value v;
    char c = peek();
    if (c == '"') {
      v.kind = Value::Kind::string;
      v.s = str();
    } else if (c == 't' || c == 'f') {
      v.kind = Value::Kind::boolean;
      v.b = c == 't';
      std::string_view w = v.b ? "true" : "false";
      if (s_.substr(i_, w.size()) != w) fail("bad literal");
      i_ += w.size();
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Kind::array;
      if (peek() == ']') {
        ++i_;
      } else {
        while (true) {
          v.a.push_back(number());
          if (peek() == ',') {
            ++i_;
            continue;
          }
          expect(']');
          break;
        }
      }
    } else {
      v.kind = Value::Kind::number;
      v.n = number();
    }
    return v;
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

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
    << ",\"datatype\":" << quote(datatype) << ",\"count\":" << count << ",\"recvcounts\":[";
  for (std::size_t i = 0; i < recvcounts.size(); ++i) o << (i ? "," : "") << recvcounts[i];
  o << "],\"root\":" << root << ",\"comm\":" << quote(comm)
    << ",\"root_in_high_group\":" << (root_in_high_group ? "true" : "false")
    << ",\"in_place\":" << (in_place ? "true" : "false") << ",\"mode\":" << quote(mode_name(mode))
    << ",\"locals_in_is_in_place\":" << (locals_in_is_in_place ? "true" : "false")
    << ",\"locals_arg_is_in_place\":" << (locals_arg_is_in_place ? "true" : "false")
    << ",\"locals_arg_is_in\":" << (locals_arg_is_in ? "true" : "false") << ",\"seed\":" << seed
    << "}";
  return o.str();
}

Case Case::from_json(std::string_view json) {
  auto m = FlatJson(json).parse();
  Case c;
  auto get = [&](const char* k, Value::Kind kind) -> const Value* {
    auto it = m.find(k);
    if (it == m.end()) return nullptr;
    if (it->second.kind != kind) throw UsageError(std::string("case JSON: field '") + k + "' has the wrong type");
    return &it->second;
  };
  if (auto v = get("routine", Value::Kind::string)) {
    auto r = routine_from_name(v->s);
    if (!r) throw UsageError("case JSON: unknown routine '" + v->s + "'");
    c.routine = *r;
  }
  if (auto v = get("op", Value::Kind::string)) c.op = v->s;
  if (auto v = get("datatype", Value::Kind::string)) c.datatype = v->s;
  if (auto v = get("count", Value::Kind::number)) c.count = static_cast<int>(v->n);
  if (auto v = get("recvcounts", Value::Kind::array))
    for (long long x : v->a) c.recvcounts.push_back(static_cast<int>(x));
  if (auto v = get("root", Value::Kind::number)) c.root = static_cast<int>(v->n);
  if (auto v = get("comm", Value::Kind::string)) c.comm = v->s;
  if (auto v = get("root_in_high_group", Value::Kind::boolean)) c.root_in_high_group = v->b;
  if (auto v = get("in_place", Value::Kind::boolean)) c.in_place = v->b;
  if (auto v = get("mode", Value::Kind::string)) {
    auto md = mode_from_name(v->s);
    if (!md) throw UsageError("case JSON: unknown mode '" + v->s + "'");
    c.mode = *md;
  }
  if (auto v = get("locals_in_is_in_place", Value::Kind::boolean)) c.locals_in_is_in_place = v->b;
  if (auto v = get("locals_arg_is_in_place", Value::Kind::boolean)) c.locals_arg_is_in_place = v->b;
  if (auto v = get("locals_arg_is_in", Value::Kind::boolean)) c.locals_arg_is_in = v->b;
  if (auto v = get("seed", Value::Kind::number)) c.seed = static_cast<std::uint64_t>(v->n);
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
  o << " comm=" << comm;
  if (in_place) o << " in_place";
  o << " seed=" << seed;
  return o.str();
}

}  // namespace ordo::ref

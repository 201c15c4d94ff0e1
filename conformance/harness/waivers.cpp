#include "waivers.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ordo::harness::waivers {
namespace {

// One token of a pattern: '*', '?', a set, or a literal character.
struct GlobToken {
  enum Kind { star, any, set, literal };
  explicit GlobToken(Kind k, char ch = 0) : kind(k), c(ch) {}
  Kind kind;
  char c;
  bool negated = false;
  std::vector<std::pair<char, char>> ranges;
  bool matches(char ch) const {
    if (kind == any) return true;
    if (kind == literal) return ch == c;
    bool hit = false;
    for (const auto& [lo, hi] : ranges) hit = hit || (lo <= ch && ch <= hi);
    return hit != negated;
  }
};

// The set that starts at p[i] == '[' as a token, and the index after it;
// false when it is not closed (the '[' is then a literal).
bool glob_set(const std::string& p, std::size_t i, GlobToken& token, std::size_t& after) {
  std::size_t j = i + 1;
  token = GlobToken(GlobToken::set);
  token.negated = j < p.size() && (p[j] == '!' || p[j] == '^');
  if (token.negated) ++j;
  bool first = true;
  while (j < p.size()) {
    char low = p[j];
    if (low == ']' && !first) {
      after = j + 1;
      return true;
    }
    first = false;
    if (low == '\\' && j + 1 < p.size()) low = p[++j];
    ++j;
    char high = low;
    if (j + 1 < p.size() && p[j] == '-' && p[j + 1] != ']') {
      high = p[j + 1];
      j += 2;
      if (high == '\\' && j < p.size()) high = p[j++];
    }
    token.ranges.emplace_back(low, high);
  }
  return false;
}

std::vector<GlobToken> glob_tokens(const std::string& p) {
  std::vector<GlobToken> tokens;
  std::size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    GlobToken set_token{GlobToken::set};
    std::size_t after = 0;
    if (c == '*') {
      if (tokens.empty() || tokens.back().kind != GlobToken::star)
        tokens.push_back(GlobToken(GlobToken::star));
      ++i;
    } else if (c == '?') {
      tokens.push_back(GlobToken(GlobToken::any));
      ++i;
    } else if (c == '[' && glob_set(p, i, set_token, after)) {
      tokens.push_back(std::move(set_token));
      i = after;
    } else if (c == '\\' && i + 1 < p.size()) {
      tokens.push_back(GlobToken(GlobToken::literal, p[i + 1]));
      i += 2;
    } else {
      tokens.push_back(GlobToken(GlobToken::literal, c));
      ++i;
    }
  }
  return tokens;
}

// Matching with one backtrack point, the last star (linear in practice).
bool glob_match(const std::vector<GlobToken>& tokens, const std::string& t) {
  std::size_t i = 0, k = 0, mark = 0;
  std::ptrdiff_t star = -1;
  while (k < t.size()) {
    if (i < tokens.size() && tokens[i].kind == GlobToken::star) {
      star = static_cast<std::ptrdiff_t>(i);
      mark = k;
      ++i;
    } else if (i < tokens.size() && tokens[i].matches(t[k])) {
      ++i, ++k;
    } else if (star >= 0) {
      i = static_cast<std::size_t>(star) + 1;
      k = ++mark;
    } else {
      return false;
    }
  }
  while (i < tokens.size() && tokens[i].kind == GlobToken::star) ++i;
  return i == tokens.size();
}

}  // namespace

bool glob(const std::string& pattern, const std::string& text) {
  return glob_match(glob_tokens(pattern), text);
}

namespace {

bool is_number(const Json& x) { return x.is_number(); }  // booleans are not numbers in nlohmann

std::string string_or(const Json& object, const char* key, const std::string& fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// A version's leading dotted numbers ("4.1a1" -> {4, 1}).
std::vector<long long> numeric(const std::string& version) {
  std::vector<long long> parts;
  std::size_t i = 0;
  while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i]))) {
    long long n = 0;
    while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i])))
      n = n * 10 + (version[i++] - '0');
    parts.push_back(n);
    if (i + 1 < version.size() && version[i] == '.' &&
        std::isdigit(static_cast<unsigned char>(version[i + 1])))
      ++i;
    else
      break;
  }
  return parts;
}

int compare(std::vector<long long> a, std::vector<long long> b) {
  const std::size_t n = std::max(a.size(), b.size());
  a.resize(n, 0);
  b.resize(n, 0);
  return a < b ? -1 : (a > b ? 1 : 0);
}

std::vector<std::string> versions_of(const Json& waiver) {
  const auto it = waiver.find("library_versions");
  if (it == waiver.end() || it->is_null()) return {};
  if (it->is_string()) return {it->get<std::string>()};
  std::vector<std::string> out;
  for (const Json& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// A waiver field as the message shows it (Python's str() of a string or null).
std::string shown(const Json& waiver, const char* key) {
  const auto it = waiver.find(key);
  if (it == waiver.end() || it->is_null()) return "None";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::vector<std::string> outcomes_of(const Json& waiver) {
  const auto it = waiver.find("outcome");
  if (it == waiver.end()) return {"fail"};
  if (it->is_string()) return {it->get<std::string>()};
  std::vector<std::string> out;
  if (it->is_array())
    for (const Json& o : *it)
      if (o.is_string()) out.push_back(o.get<std::string>());
  return out;
}

// The first number after `prefix` in the message (a regex), or no value.
bool number_after(const std::string& message, const std::regex& re, Json& out) {
  std::smatch m;
  if (!std::regex_search(message, m, re)) return false;
  out = std::stoll(m[1].str());
  return true;
}

}  // namespace

bool signature_matches(const Json& signature, const Json& record) {
  if (!signature.is_object()) return false;
  if (string_or(record, "outcome", "") == "timeout" && signature.contains("hang") &&
      signature["hang"].is_boolean() && signature["hang"].get<bool>())
    return true;
  if (!signature.contains("text") && !signature.contains("signal") &&
      !signature.contains("exit_code"))
    return false;
  const std::string message = string_or(record, "message", "");
  if (signature.contains("text") && !value_matches(signature["text"], Json(message))) return false;
  static const std::regex signal_re(R"([Ss]ignal ([0-9]+))");
  static const std::regex exit_re(R"(\(exit code (-?[0-9]+)\))");
  Json value;
  if (signature.contains("signal") &&
      (!number_after(message, signal_re, value) || !value_matches(signature["signal"], value)))
    return false;
  if (signature.contains("exit_code") &&
      (!number_after(message, exit_re, value) || !value_matches(signature["exit_code"], value)))
    return false;
  return true;
}

const char* match_name(Match m) {
  switch (m) {
    case Match::waived:
      return "waived";
    case Match::no_match:
      return "no-match";
    case Match::expired:
      return "expired";
    case Match::version:
      return "version";
  }
  return "?";
}

std::string parse_library_version(const std::string& text) {
  static const std::regex re(R"((\d+(?:\.\d+)+)([a-z]+\d*)?)");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return "";
  return m[1].str() + (m[2].matched ? m[2].str() : "");
}

bool version_matches(const std::string& spec_text, const std::string& version) {
  const auto first = spec_text.find_first_not_of(" \t\n");
  if (first == std::string::npos || version.empty()) return false;
  const std::string spec = spec_text.substr(first, spec_text.find_last_not_of(" \t\n") - first + 1);
  if (spec[0] != '<' && spec[0] != '>' && spec[0] != '=') return glob(spec, version);
  std::istringstream parts(spec);
  std::string part;
  while (parts >> part) {
    static const char* ops[] = {">=", "<=", "==", ">", "<"};
    std::string op;
    for (const char* o : ops)
      if (part.rfind(o, 0) == 0) {
        op = o;
        break;
      }
    if (op.empty()) return false;
    const int c = compare(numeric(version), numeric(part.substr(op.size())));
    const bool holds = op == ">="   ? c >= 0
                       : op == "<=" ? c <= 0
                       : op == "==" ? c == 0
                       : op == ">"  ? c > 0
                                    : c < 0;
    if (!holds) return false;
  }
  return true;
}

bool value_matches(const Json& want, const Json& have) {
  if (want.is_string())
    return have.is_string() && glob(want.get<std::string>(), have.get<std::string>());
  if (want.is_array()) {
    for (const Json& w : want)
      if (value_matches(w, have)) return true;
    return false;
  }
  if (want.is_object() && (want.contains("equal") || want.contains("sum"))) {
    // A condition on a list of numbers (recvcounts): non-empty, its entries
    // all the same (equal: true) or not (false), their sum holding the
    // numeric condition `sum`, each entry holding the rest.
    if (!have.is_array() || have.empty()) return false;
    Json each = want;
    each.erase("equal");
    each.erase("sum");
    bool same = true;
    double total = 0;
    for (const Json& h : have) {
      if (!is_number(h)) return false;
      if (h.get<double>() != have.front().get<double>()) same = false;
      total += h.get<double>();
      if (!each.empty() && !value_matches(each, h)) return false;
    }
    if (want.contains("equal") && same != (want["equal"].is_boolean() && want["equal"].get<bool>()))
      return false;
    if (want.contains("sum") && !(want["sum"].is_object() && value_matches(want["sum"], total)))
      return false;
    return true;
  }
  if (want.is_object()) {
    if (!is_number(have)) return false;
    const double h = have.get<double>();
    if (want.contains("min") && is_number(want["min"]) && h < want["min"].get<double>())
      return false;
    if (want.contains("max") && is_number(want["max"]) && h > want["max"].get<double>())
      return false;
    if (want.contains("not") && want["not"].is_array())
      for (const Json& x : want["not"])
        if (is_number(x) && h == x.get<double>()) return false;
    if (want.contains("power_of_two")) {
      const bool pow2 =
          h > 0 && std::floor(h) == h &&
          (static_cast<unsigned long long>(h) & (static_cast<unsigned long long>(h) - 1)) == 0;
      if (pow2 != (want["power_of_two"].is_boolean() && want["power_of_two"].get<bool>()))
        return false;
    }
    return true;
  }
  if (want.is_boolean() || have.is_boolean())
    return want.is_boolean() && have.is_boolean() && want.get<bool>() == have.get<bool>();
  if (is_number(want) && is_number(have)) return want.get<double>() == have.get<double>();
  return want == have;
}

// A waiver's node_map condition against a record's node map (the world ranks
// of each node, `ordo run --nodes`): `nodes` (a condition on the number of
// nodes), `alone` (world ranks each alone on its node), `largest` (a condition
// on the most ranks any node holds), `consecutive` (true: every node holds
// consecutive ranks; false: some node does not). For a communicator's map
// (comm_node_map), `root_node` names the node of the case's root (root: its
// rank in that map, -1 for none): `size` (a condition on the ranks it holds),
// `last` (true: it is the node listed last), `first` (true: the root is the
// lowest rank on its node). No node map: no match.
bool node_map_matches(const Json& want, const Json& have, long long root) {
  if (!have.is_array() || have.empty()) return false;
  std::size_t largest = 0;
  bool consecutive = true;
  long long root_node = -1;
  for (std::size_t i = 0; i < have.size(); ++i) {
    const Json& g = have[i];
    if (!g.is_array()) return false;
    largest = std::max(largest, g.size());
    std::vector<long long> ranks;
    for (const Json& r : g) {
      if (!r.is_number_integer()) return false;
      ranks.push_back(r.get<long long>());
      if (ranks.back() == root) root_node = static_cast<long long>(i);
    }
    std::sort(ranks.begin(), ranks.end());
    for (std::size_t k = 1; k < ranks.size(); ++k)
      consecutive = consecutive && ranks[k] == ranks[0] + static_cast<long long>(k);
  }
  if (want.contains("nodes") && !value_matches(want["nodes"], Json(have.size()))) return false;
  if (want.contains("largest") && !value_matches(want["largest"], Json(largest))) return false;
  if (want.contains("consecutive") &&
      (!want["consecutive"].is_boolean() || want["consecutive"].get<bool>() != consecutive))
    return false;
  if (want.contains("root_node")) {
    if (root_node < 0) return false;
    const Json& node = want["root_node"];
    if (node.contains("size") &&
        !value_matches(node["size"], Json(have[static_cast<std::size_t>(root_node)].size())))
      return false;
    if (node.contains("first")) {
      long long lowest = root;
      for (const Json& r : have[static_cast<std::size_t>(root_node)])
        lowest = std::min(lowest, r.get<long long>());
      if (!node["first"].is_boolean() || node["first"].get<bool>() != (lowest == root))
        return false;
    }
    if (node.contains("last") &&
        (!node["last"].is_boolean() ||
         node["last"].get<bool>() != (root_node == static_cast<long long>(have.size()) - 1)))
      return false;
  }
  if (want.contains("alone") && want["alone"].is_array())
    for (const Json& r : want["alone"]) {
      bool alone = false;
      for (const Json& g : have) alone = alone || (g.size() == 1 && g[0] == r);
      if (!alone) return false;
    }
  return true;
}

bool covers(const Json& waiver, const Json& record, bool signature) {
  const std::string outcome = string_or(record, "outcome", "");
  const std::vector<std::string> named = outcomes_of(waiver);
  if (!record.contains("outcome") || !record["outcome"].is_string() ||
      std::find(named.begin(), named.end(), outcome) == named.end())
    return false;
  if (!waiver.contains("test") || !waiver["test"].is_string() ||
      !glob(waiver["test"].get<std::string>(), string_or(record, "test", "")))
    return false;
  // A record without a variant (absent, null or "") ran the default.
  std::string variant = string_or(record, "variant", "");
  if (variant.empty()) variant = "default";
  if (waiver.contains("variant") &&
      (!waiver["variant"].is_string() || !glob(waiver["variant"].get<std::string>(), variant)))
    return false;
  if (signature && (outcome == "crash" || outcome == "timeout") &&
      !signature_matches(waiver.contains("signature") ? waiver["signature"] : Json(), record))
    return false;
  // A message condition is a glob or a list of globs (any of which); a prediction
  // (signature false) has no message yet, so neither it nor the signature is read.
  if (signature && waiver.contains("message") &&
      !value_matches(waiver["message"], Json(string_or(record, "message", ""))))
    return false;
  for (const char* key : {"ranks", "bytes", "layout"})
    if (waiver.contains(key) && (!record.contains(key) || !value_matches(waiver[key], record[key])))
      return false;
  // A failed case on a shape of two sizes names the sizes of its failing
  // ranks' communicators (failing_comm_sizes): the condition must hold for
  // each. A dead case on such a shape (comm_sizes) may have died in either
  // communicator: the condition holds for comm_size or any of comm_sizes.
  if (const auto f = record.find("failing_comm_sizes");
      waiver.contains("comm_size") && f != record.end() && f->is_array() && !f->empty()) {
    for (const Json& size : *f)
      if (!size.is_number_integer() || !value_matches(waiver["comm_size"], size)) return false;
  } else if (waiver.contains("comm_size")) {
    bool any =
        record.contains("comm_size") && value_matches(waiver["comm_size"], record["comm_size"]);
    if (const auto s = record.find("comm_sizes"); s != record.end() && s->is_array())
      for (const Json& size : *s)
        any = any || (size.is_number_integer() && value_matches(waiver["comm_size"], size));
    if (!any) return false;
  }
  if (waiver.contains("node_map") &&
      !node_map_matches(waiver["node_map"],
                        record.contains("node_map") ? record["node_map"] : Json(), -1))
    return false;
  // comm_node_map: the same conditions, held by the node map of any group of
  // the case's communicator (in its own ranks).
  if (waiver.contains("comm_node_map")) {
    bool any = false;
    long long root = -1;
    if (const auto c = record.find("case"); c != record.end() && c->is_object() &&
                                            c->contains("root") && (*c)["root"].is_number_integer())
      root = (*c)["root"].get<long long>();
    if (record.contains("comm_node_maps") && record["comm_node_maps"].is_array())
      for (const Json& m : record["comm_node_maps"])
        any = any || node_map_matches(waiver["comm_node_map"], m, root);
    if (!any) return false;
  }
  // A record without a placement is one with placement null.
  if (waiver.contains("placement") &&
      !value_matches(waiver["placement"],
                     record.contains("placement") ? record["placement"] : Json(nullptr)))
    return false;
  const auto conditions = waiver.find("case");
  if (conditions != waiver.end() && conditions->is_object() && !conditions->empty()) {
    const auto c = record.find("case");
    if (c == record.end() || !c->is_object()) return false;
    for (const auto& [key, want] : conditions->items())
      if (!c->contains(key) || !value_matches(want, (*c)[key])) return false;
  }
  return true;
}

Match match(const Json& waiver, const Json& record, const std::string& today,
            const std::string& library_version, bool signature) {
  if (!covers(waiver, record, signature)) return Match::no_match;
  const std::vector<std::string> versions = versions_of(waiver);
  if (!versions.empty()) {
    bool any = false;
    for (const std::string& spec : versions) any = any || version_matches(spec, library_version);
    if (!any) return Match::version;
  }
  const auto expires = waiver.find("expires");
  const std::string date = expires == waiver.end() ? ""
                           : expires->is_string()  ? expires->get<std::string>()
                                                   : expires->dump();
  if (date < today) return Match::expired;
  return Match::waived;
}

const Json* apply(Json& record, const std::vector<Json>& waivers, const std::string& today,
                  const std::string& library_version) {
  std::string message = string_or(record, "message", "");
  const Json* applied = nullptr;
  for (const Json& w : waivers) {
    const Match m = match(w, record, today, library_version);
    if (m == Match::no_match) continue;
    if (m == Match::expired) {
      message += " | the waiver " + shown(w, "id") + " expired on " + shown(w, "expires");
      record["message"] = message;
      continue;
    }
    if (m == Match::version) {
      message += " | the waiver " + shown(w, "id") + " is for " + join(versions_of(w), " or ") +
                 ", not " +
                 (library_version.empty() ? std::string("an unknown release") : library_version);
      record["message"] = message;
      continue;
    }
    record["outcome"] = "waived";
    record["waiver"] = w.contains("id") ? w["id"] : Json(nullptr);
    message += " | waived until " + shown(w, "expires") + ": " + shown(w, "reason") + " (" +
               shown(w, "upstream") + ")";
    record["message"] = message;
    applied = &w;
    break;
  }
  return applied;
}

std::vector<Json> load(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read the waivers file " + path);
  Json doc;
  try {
    doc = Json::parse(f);
  } catch (const std::exception& e) {
    throw std::runtime_error("malformed waivers file " + path + ": " + e.what());
  }
  if (!doc.is_object() || !doc.contains("waivers") || !doc["waivers"].is_array())
    throw std::runtime_error("malformed waivers file " + path + ": no \"waivers\" array");
  return std::vector<Json>(doc["waivers"].begin(), doc["waivers"].end());
}

}  // namespace ordo::harness::waivers

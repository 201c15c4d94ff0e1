// A small JSON reader for ordo's own files (waivers, cases): objects,
// arrays, strings, numbers, booleans and null. Throws UsageError with the
// offset of the first syntax error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool b = false;
  double num = 0;
  std::int64_t integer = 0;  // the number, when it is an integer
  std::string str;
  std::vector<Value> items;
  std::map<std::string, Value> fields;

  bool is(Kind k) const { return kind == k; }
  const Value* get(const std::string& key) const {
    auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  }
  std::string get_string(const std::string& key, const std::string& fallback = "") const {
    const Value* v = get(key);
    return v && v->is(Kind::string) ? v->str : fallback;
  }
};

Value parse(std::string_view text);
// Serialises a value back to JSON (compact, keys sorted).
std::string dump(const Value& v);
std::string escape(std::string_view s);

}  // namespace ordo::json

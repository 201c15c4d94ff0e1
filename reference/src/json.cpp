#include "ordo/reference/json.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "ordo/reference/errors.h"

namespace ordo::json {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  Value document() {
    Value v = value(0);
    ws();
    if (i_ != s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw ref::UsageError("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  void append_utf8(std::string& o, unsigned cp) {
    if (cp < 0x80) {
      o += static_cast<char>(cp);
    } else if (cp < 0x800) {
      o += static_cast<char>(0xC0 | (cp >> 6));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      o += static_cast<char>(0xE0 | (cp >> 12));
      o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      o += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string string() {
    expect('"');
    std::string o;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      char c = s_[i_++];
      if (c == '"') break;
      if (c != '\\') {
        o += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
        case 'n':
          o += '\n';
          break;
        case 't':
          o += '\t';
          break;
        case 'r':
          o += '\r';
          break;
        case 'b':
          o += '\b';
          break;
        case 'f':
          o += '\f';
          break;
        case 'u': {
          // Exactly four hex digits (std::stoul would throw its own exception
          // on "zzzz" and stop early on "12\"}").
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          unsigned cp = 0;
          for (std::size_t k = 0; k < 4; ++k) {
            const unsigned char h = static_cast<unsigned char>(s_[i_ + k]);
            if (!std::isxdigit(h)) fail("bad \\u escape");
            cp = cp * 16 +
                 static_cast<unsigned>(std::isdigit(h) ? h - '0' : std::tolower(h) - 'a' + 10);
          }
          append_utf8(o, cp);
          i_ += 4;
          break;
        }
        case '"':
        case '\\':
        case '/':
          o += e;
          break;
        default:
          fail(std::string("bad escape '\\") + e + "'");
      }
    }
    return o;
  }
  Value value(int depth) {
    if (depth > 64) fail("nesting too deep");
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Value v;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Kind::object;
      if (eat('}')) return v;
      do {
        ws();
        std::string k = string();
        expect(':');
        v.fields[k] = value(depth + 1);
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Kind::array;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::string;
      v.str = string();
    } else if (s_.substr(i_, 4) == "true") {
      i_ += 4;
      v.kind = Value::Kind::boolean;
      v.b = true;
    } else if (s_.substr(i_, 5) == "false") {
      i_ += 5;
      v.kind = Value::Kind::boolean;
    } else if (s_.substr(i_, 4) == "null") {
      i_ += 4;
    } else {
      const std::size_t b = i_;
      while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
                                s_[i_] == '+' || s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E'))
        ++i_;
      if (b == i_) fail("unexpected character");
      const std::string t(s_.substr(b, i_ - b));
      v.kind = Value::Kind::number;
      // The whole token must be the number: "1-2" or "1e" are not 1.
      std::size_t used = 0, used_int = 0;
      try {
        v.num = std::stod(t, &used);
        if (t.find_first_of(".eE") == std::string::npos) {
          v.integer = std::stoll(t, &used_int);
          if (used_int != t.size()) used = 0;
        } else if (std::fabs(v.num) < 9.2e18) {
          v.integer = static_cast<std::int64_t>(v.num);
        }
      } catch (...) {
        fail("bad number '" + t + "'");
      }
      if (used != t.size()) fail("bad number '" + t + "'");
    }
    return v;
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

Value parse(std::string_view text) { return Reader(text).document(); }

std::string escape(std::string_view s) {
  std::string o;
  for (unsigned char ch : s) {
    switch (ch) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\r':
        o += "\\r";
        break;
      default:
        if (ch < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", ch);
          o += b;
        } else {
          o += static_cast<char>(ch);
        }
    }
  }
  return o;
}

std::string dump(const Value& v) {
  switch (v.kind) {
    case Value::Kind::null:
      return "null";
    case Value::Kind::boolean:
      return v.b ? "true" : "false";
    case Value::Kind::number:
      if (static_cast<double>(v.integer) == v.num) return std::to_string(v.integer);
      {
        char b[40];
        std::snprintf(b, sizeof b, "%.17g", v.num);
        return b;
      }
    case Value::Kind::string:
      return "\"" + escape(v.str) + "\"";
    case Value::Kind::array: {
      std::string o = "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) o += (i ? "," : "") + dump(v.items[i]);
      return o + "]";
    }
    case Value::Kind::object: {
      std::string o = "{";
      bool first = true;
      for (const auto& [k, x] : v.fields) {
        o += (first ? "\"" : ",\"") + escape(k) + "\":" + dump(x);
        first = false;
      }
      return o + "}";
    }
  }
  return "null";
}

}  // namespace ordo::json

// Errors the reference raises. A SemanticsError names the clause of the
// standard that makes the request erroneous (a stable slug from spec/).
#pragma once

#include <stdexcept>
#include <string>

namespace ordo::ref {

class SemanticsError : public std::runtime_error {
 public:
  SemanticsError(std::string clause, const std::string& what)
      : std::runtime_error(what + " [" + clause + "]"), clause_(std::move(clause)) {}
  const std::string& clause() const { return clause_; }

 private:
  std::string clause_;
};

// Malformed input to the reference itself (a datatype text, a case file).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ordo::ref

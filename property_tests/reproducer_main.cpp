// ordo_reproducer: writes the standalone reproducer of one case, as the
// property tests do for a shrunk failing case (tools/tests/test_reproducers.py
// builds and runs what it writes).
//   ordo_reproducer --ranks=N --dir=DIR CASE_JSON
// prints the path written (exit 0), or why there is none (exit 1).
#include <cstdio>
#include <exception>
#include <string>

#include "reproducer.h"

int main(int argc, char** argv) {
  int ranks = 0;
  std::string dir = ".", json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--ranks=", 0) == 0)
      ranks = std::stoi(a.substr(8));
    else if (a.rfind("--dir=", 0) == 0)
      dir = a.substr(6);
    else
      json = a;
  }
  if (ranks < 1 || json.empty()) {
    std::fprintf(stderr, "usage: ordo_reproducer --ranks=N [--dir=DIR] CASE_JSON\n");
    return 2;
  }
  try {
    std::string why;
    const std::string path =
        ordo::props::write_reproducer(ordo::ref::Case::from_json(json), ranks, dir, &why);
    if (path.empty()) {
      std::printf("no reproducer: %s\n", why.c_str());
      return 1;
    }
    std::printf("%s\n", path.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ordo_reproducer: %s\n", e.what());
    return 2;
  }
}

// The watchdog (watchdog.h): a case still in flight after its time limit
// ends the job (exit code 124); the runner records it as a timeout and
// resumes after it.
#include "watchdog.h"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <thread>

#include "job_protocol.h"

namespace ordo::harness {

namespace {

// What the watchdog writes when it fires, built in a fixed buffer: a case that
// hangs after a library fault damaged the heap (a thread spinning in malloc, or
// holding its lock) must still end, so the firing path neither allocates nor
// takes a lock of the C library's (no stdio, no streams): write(2), open(2),
// _exit(2) only.
struct Line {
  char text[256];
  std::size_t n = 0;
  void add(const char* s) {
    while (*s && n + 1 < sizeof text) text[n++] = *s++;
  }
  void add(long long v) {
    char digits[24];
    int k = 0;
    const bool negative = v < 0;
    unsigned long long u =
        negative ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      digits[k++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u && k < 23);
    if (negative && n + 1 < sizeof text) text[n++] = '-';
    while (k && n + 1 < sizeof text) text[n++] = digits[--k];
  }
  // Seconds with two decimals (the limits are seconds, never negative).
  void add_seconds(double s) {
    const long long hundredths = static_cast<long long>(s * 100.0 + 0.5);
    add(hundredths / 100);
    add(".");
    if (hundredths % 100 < 10) add("0");
    add(hundredths % 100);
  }
};

void write_all(int fd, const Line& line) {
  std::size_t done = 0;
  while (done < line.n) {
    const ssize_t w = ::write(fd, line.text + done, line.n - done);
    if (w <= 0) return;
    done += static_cast<std::size_t>(w);
  }
}

}  // namespace

void Watchdog::start(const std::string& journal, int rank) {
  // The marker's path is made here, while the heap is sound.
  const std::string marker = journal.empty() ? std::string() : journal + kTimeoutSuffix;
  // It looks every 10 ms: a case that hangs costs its limit, not up to a tenth
  // of a second more per relaunch.
  std::thread([this, marker, rank] {
    const auto t0 = std::chrono::steady_clock::now();
    const double w0 = MPI_Wtime();
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const double deadline = deadline_.load();
      const double now =
          w0 + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (deadline > 0 && now > deadline) {
        const long long seq = seq_.load();
        Line said;
        said.add("ordo: world rank ");
        said.add(static_cast<long long>(rank));
        said.add(": case ");
        said.add(seq);
        said.add(" exceeded ");
        said.add_seconds(limit_s_.load());
        said.add(" s; ending the job\n");
        write_all(STDERR_FILENO, said);
        if (!marker.empty()) {
          const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
          if (fd >= 0) {
            Line record;
            record.add(seq);
            record.add(" ");
            record.add(static_cast<long long>(rank));
            record.add("\n");
            write_all(fd, record);
            ::close(fd);
          }
        }
        ::_exit(124);
      }
    }
  }).detach();
}

void Watchdog::arm(long long seq, double t0, double seconds) {
  seq_.store(seq);
  set_limit(t0, seconds);
}

void Watchdog::set_limit(double t0, double seconds) {
  limit_s_.store(seconds);
  deadline_.store(t0 + seconds);
}

}  // namespace ordo::harness

// The journal and in-flight note files of a rank (journal_files.h): opened
// once and kept open, written with one system call each.
#include "journal_files.h"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "harness.h"
#include "job_protocol.h"

namespace ordo::harness {

void JournalFiles::open(const std::string& journal, int rank) {
  journal_ = journal;
  rank_ = rank;
}

void JournalFiles::append(const std::string& line) {
  if (journal_.empty()) return;
  PhaseTimer timer(Phase::journal);
  if (journal_fd_ < 0)
    journal_fd_ = ::open(journal_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  const std::string text = line + '\n';
  std::size_t done = 0;
  while (journal_fd_ >= 0 && done < text.size()) {
    const ssize_t n = ::write(journal_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done != text.size()) {
    std::fprintf(stderr, "ordo: cannot write the journal %s: %s\n", journal_.c_str(),
                 std::strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

// One file per rank, kept open and rewritten in place with pwrite(2); a
// shorter note is padded with blanks (JSON allows trailing white space), so
// no truncation and no reopening.
void JournalFiles::write_note(const InflightNote& note) {
  if (journal_.empty()) return;
  PhaseTimer timer(Phase::inflight);
  std::string text = to_text(note);
  if (note_fd_ < 0) {
    const std::string path = journal_ + kInflightSuffix + std::to_string(rank_);
    note_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (note_fd_ < 0) {
      std::fprintf(stderr, "ordo: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  const std::size_t len = text.size();
  if (len < note_len_) text.append(note_len_ - len, ' ');
  note_len_ = std::max(note_len_, len);
  if (::pwrite(note_fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    std::fprintf(stderr, "ordo: cannot write the in-flight note of %s: %s\n", journal_.c_str(),
                 std::strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

}  // namespace ordo::harness

// The two files a rank writes on every case (job_protocol.h): the results
// journal (rank 0: one JSON line per check, appended) and the rank's
// in-flight note (rewritten in place at each case). A write that fails ends
// the job with one line beginning "ordo: cannot write " (the runner's
// WRITE_FAILURE: a full disk is ordo's failure, never a case's).
#pragma once

#include <cstddef>
#include <string>

#include "record.h"

namespace ordo::harness {

class JournalFiles {
 public:
  // --ordo-journal (empty: no journal, no note) and this process's world rank.
  void open(const std::string& journal, int rank);
  bool enabled() const { return !journal_.empty(); }
  const std::string& journal() const { return journal_; }

  // One record: one write(2) to the journal kept open with O_APPEND, in the
  // kernel before the other ranks go on, so a crash right after loses nothing.
  void append(const std::string& line);
  // This rank's in-flight note, over the last one.
  void write_note(const InflightNote& note);

 private:
  std::string journal_;
  int rank_ = 0;
  int journal_fd_ = -1;
  int note_fd_ = -1;
  std::size_t note_len_ = 0;  // the longest note written (the file's length)
};

}  // namespace ordo::harness

// What the harness keeps between calls, in one object with one owner per
// part (the harness's own files only; checks use harness.h):
//   job         set by init() (the arguments, the communicator, the waivers);
//               after it only await_go changes settings.skip
//   check       the running test: declare_check
//   flight      the case in flight: begin_case sets it, held_back and
//               note_case_comm amend it, record() finishes it
//   case_stats  what cases of each kind took (case_limits.h): read by
//               init() / await_go, brought up to date by record()
//   files       the journal and the in-flight note (journal_files.h)
//   watchdog    the case in flight's deadline (watchdog.h)
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

#include "case_limits.h"
#include "harness.h"
#include "journal_files.h"
#include "record.h"
#include "watchdog.h"

namespace ordo::harness {

struct HarnessState {
  struct Job {
    Settings settings;
    MPI_Comm comm = MPI_COMM_NULL;  // harness_comm(): a dup of MPI_COMM_WORLD
    int rank = 0, size = 1;         // in it
    std::vector<Json> waivers;      // vendors/<name>/waivers.json, in file order
    std::string library_version;    // the release MPI_Get_library_version names
  } job;

  struct Check {
    std::string test;              // Suite.name of the running test
    std::string clause = "unset";  // ORDO_CLAUSE's slug
    Level level = Level::MUST;
    int case_index = 0;  // cases begun in this test
  } check;

  struct Flight {
    long long seq = 0;            // cases begun in this process, across tests
    CaseLimit limit;              // the limit of the case in flight and why
    std::string kind;             // its kind (case_limits.h)
    std::string hang_key;         // its hang key (case_limits.h, hang_key), once its comm is known
    std::string call_key;         // its call key (case_limits.h, call_key)
    double t0 = 0;                // when it began (MPI_Wtime)
    bool noted = false;           // a note was written in this process (note is its last)
    InflightNote note;            // the in-flight note of the case in flight
    std::string next_reproducer;  // set_next_reproducer: the next record's
    Json next_dimensions;         // set_next_dimensions: the next case's
  } flight;

  CaseStats case_stats;
  JournalFiles files;
  Watchdog watchdog;
  // The node maps of each communicator shape's groups, as JSON text ("" without
  // the world's map), computed on the shape's first case (case_flight.cpp).
  std::map<std::string, std::string> shape_node_maps;
  double phase_seconds[kPhases] = {};
};

HarnessState& state();

}  // namespace ordo::harness

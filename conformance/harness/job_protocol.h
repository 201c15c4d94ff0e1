// The job protocol: the files a check executable leaves beside its journal
// for the runner (tools/, `ordo run` and `ordo mutants`), which starts the
// job, watches it die or end, and resumes it. The Python side keeps the same
// names in one module and a test parses the lines below to prove they agree:
// change them together.
//
// Every file is <journal><suffix>; <journal> is --ordo-journal=PATH.
//
//   <journal>.inflight.<world rank>   written by EVERY rank at the start of each
//       case (begin_case), rewritten in place: one JSON object with the case's
//       seq, id, test, clause, level, case and routine. Read by the runner when
//       the job dies without a record of that case: the crash or timeout record
//       is charged to the case in flight. The note stays after its case; a case
//       is in flight until rank 0 has recorded it, so a job that dies when every
//       rank's note names a recorded case (or with no note: before its first
//       case) had none in flight, and the runner's record of it is the job's
//       own (clause harness.job), never charged to a case before it. A DETECT
//       case's note is written again when the rank's call has returned, with
//       "returned": {"detect", "message"}: when the case overruns because some
//       ranks never return, the runner's record says which ranks reported the
//       error.
//   <journal>.done       written by rank 0 when the executable ran to its end
//       (finish_checks), before MPI_Finalize: the gtest exit code, then the line
//       "finalized <world size>" (kFinalizedPromise), which promises the markers
//       below. Read by the runner: a job without it did not finish (an MPI_Abort
//       can also exit with 1).
//   <journal>.finalized.<world rank>   written by EVERY rank once its
//       MPI_Finalize returned (finish_checks). Read by the runner when .done
//       promises them: a rank without one died in MPI_Finalize, and the job
//       gets a record of its own (after its last case) even when the launcher
//       exited 0 or 1 (MPICH 5.0.2's hydra does after an abort in
//       MPI_Finalize).
//   <journal>.timeout    written by the rank whose watchdog fired, holding the
//       seq of the case in flight and that rank ("<seq> <rank>"); the job then
//       exits with 124. Read by the runner: the case is recorded as a timeout,
//       with the limit of that rank's note (each rank derives its own limit
//       from what it saw), and the job resumed after it.
//   <journal>.restart    written by rank 0 after recording a failure that a
//       restart_job waiver names (the library corrupts memory), holding the
//       seq of that case; every rank then exits with kRestartExitCode. Read by
//       the runner: the job is started again after that case, in a fresh
//       process, and the exit is not a crash.
//   <journal>.env.<world rank>   written by EVERY rank at start-up when the
//       runner names variables (--ordo-env-names=A,B,...): one JSON object,
//       each named variable's value in that rank's environment (null: not
//       set). Read by the runner after each job: run.json's per-rank
//       environment as launched (the launcher may add or drop variables).
//
// The in-flight note is an InflightNote (record.h), written by JournalFiles
// (journal_files.h); the timeout marker by the Watchdog (watchdog.h); the
// rest by the functions below (job_protocol.cpp), and the standby's go by
// await_go (harness.h).
#pragma once

#include <string>
#include <vector>

namespace ordo::harness {

inline constexpr char kInflightSuffix[] = ".inflight.";
inline constexpr char kDoneSuffix[] = ".done";
inline constexpr char kFinalizedSuffix[] = ".finalized.";
inline constexpr char kFinalizedPromise[] = "finalized";
inline constexpr char kTimeoutSuffix[] = ".timeout";
inline constexpr char kRestartSuffix[] = ".restart";
inline constexpr char kEnvSuffix[] = ".env.";
inline constexpr int kRestartExitCode = 75;

// <journal>.env.<rank>: this rank's values of the variables `names`.
void write_rank_env(const std::string& journal, int rank, const std::vector<std::string>& names);
// <journal>.done: the executable ran to its end with gtest's `rc`; every one of
// the `size` ranks will write its .finalized marker (rank 0 calls it).
void mark_done(const std::string& journal, int rc, int size);
// <journal>.finalized.<rank>: this rank's MPI_Finalize returned (call it after).
// A marker it cannot write ends the process with one line beginning "ordo:
// cannot write " and exit code 3 (the runner's WRITE_FAILURE: ordo's failure).
void mark_finalized(const std::string& journal, int rank);
// <journal>.restart: the job ends after case `seq` (a restart_job waiver).
void mark_restart(const std::string& journal, long long seq);
// Ends this process with kRestartExitCode (every rank, after mark_restart).
[[noreturn]] void end_job_for_restart();

}  // namespace ordo::harness

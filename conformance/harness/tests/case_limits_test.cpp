// The watchdog's derived case limits (case_limits.h): each rule, the floors,
// the cap at the case timeout, and the statistics the runner hands a job
// joined with a process's own.
#include "case_limits.h"

#include <gtest/gtest.h>

namespace h = ordo::harness;

namespace {
h::LimitSettings settings(double timeout = 60, double floor = 10, double hung_floor = 2) {
  h::LimitSettings s;
  s.case_timeout = timeout;
  s.floor_s = floor;
  s.hung_floor_s = hung_floor;
  return s;
}
h::KindStats stats(double slowest, long long finished, long long hung = 0) {
  h::KindStats k;
  k.slowest_s = slowest;
  k.finished = finished;
  k.hung = hung;
  return k;
}
}  // namespace

TEST(CaseLimits, no_case_finished_yet_gives_the_case_timeout) {
  const auto l = h::case_limit("MPI_Reduce", 4, {}, {}, settings(60));
  EXPECT_EQ(l.rule, "default");
  EXPECT_DOUBLE_EQ(l.seconds, 60);
  EXPECT_NE(l.why.find("at 4 ranks"), std::string::npos) << l.why;
}

TEST(CaseLimits, a_kind_that_finished_gets_ten_times_its_slowest_case_above_the_floor) {
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 4, stats(0.01, 5), stats(3, 9), settings()).seconds,
                   10);
  const auto l = h::case_limit("MPI_Reduce", 4, stats(2.5, 5), stats(3, 9), settings());
  EXPECT_EQ(l.rule, "kind");
  EXPECT_DOUBLE_EQ(l.seconds, 25);
  EXPECT_NE(l.why.find("the slowest MPI_Reduce case that finished at 4 ranks"), std::string::npos)
      << l.why;
}

TEST(CaseLimits, the_first_cases_of_a_rank_count_are_bounded_by_the_slowest_case_at_fewer_ranks) {
  h::KindStats fewer = stats(1.5, 40);
  fewer.slowest_kind = "MPI_Allreduce";
  auto l = h::case_limit("MPI_Reduce", 4, {}, {}, settings(60), 0, fewer, 3);
  EXPECT_EQ(l.rule, "fewer");
  EXPECT_NEAR(l.seconds, 10 * 1.5 * 4.0 / 3.0, 1e-9);
  EXPECT_NE(l.why.find("the slowest case that finished at 3 ranks in this run, of MPI_Allreduce"),
            std::string::npos)
      << l.why;
  EXPECT_DOUBLE_EQ(
      h::case_limit("MPI_Reduce", 4, {}, {}, settings(60), 0, stats(0.01, 9), 3).seconds,
      10);  // the floor
  // Not from as many ranks or more, and not over the case timeout.
  EXPECT_EQ(h::case_limit("MPI_Reduce", 4, {}, {}, settings(60), 0, fewer, 4).rule, "default");
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 8, {}, {}, settings(60), 0, stats(5, 9), 2).seconds,
                   60);
  // A case of this rank count that finished decides instead.
  EXPECT_EQ(h::case_limit("MPI_Reduce", 4, {}, stats(0.1, 1), settings(60), 0, fewer, 3).rule,
            "any");
  h::CaseStats s;
  s.load(
      h::Json::parse(R"({"kinds": {}, "fewer": {"ranks": 3, "kind": "MPI_Scan", "slowest_s": 0.25,
                             "slowest_work": 4096, "finished": 7}})"));
  EXPECT_EQ(s.fewer_ranks(), 3);
  EXPECT_EQ(s.fewer().slowest_kind, "MPI_Scan");
  EXPECT_DOUBLE_EQ(s.fewer().slowest_s, 0.25);
}

TEST(CaseLimits, a_kind_not_seen_yet_is_bounded_by_the_slowest_case_of_any_kind) {
  h::KindStats any = stats(1.5, 9);
  any.slowest_kind = "MPI_Allreduce";
  const auto l = h::case_limit("MPI_Scan", 3, {}, any, settings());
  EXPECT_EQ(l.rule, "any");
  EXPECT_DOUBLE_EQ(l.seconds, 15);
  EXPECT_NE(l.why.find("no MPI_Scan case finished yet at 3 ranks"), std::string::npos) << l.why;
  EXPECT_NE(l.why.find("MPI_Allreduce"), std::string::npos) << l.why;
}

TEST(CaseLimits, a_kind_that_hung_gets_the_short_limit) {
  auto l = h::case_limit("MPI_Reduce", 4, stats(0.01, 5, 1), stats(3, 9), settings());
  EXPECT_EQ(l.rule, "hung");
  EXPECT_DOUBLE_EQ(l.seconds, 2);
  l = h::case_limit("MPI_Reduce", 4, stats(1.0, 5, 2), stats(3, 9), settings());
  EXPECT_DOUBLE_EQ(l.seconds, 3);  // 3 x its slowest finished case
  EXPECT_NE(l.why.find("2 MPI_Reduce case(s) already timed out"), std::string::npos) << l.why;
  l = h::case_limit("MPI_Reduce", 4, stats(0, 0, 1), {}, settings());
  EXPECT_DOUBLE_EQ(l.seconds, 2);  // none finished: the hung floor
}

TEST(CaseLimits, a_case_of_less_work_than_every_case_of_its_kind_that_hung_keeps_the_kinds_limit) {
  // Open MPI 4.1.4's coll/sm hangs on an element of 4112 bytes: a 16-byte case of
  // the same kind (work: the 4096-byte minimum) is not known to hang.
  const std::string kind = "MPI_Reduce with a user op on a derived datatype";
  h::KindStats k = stats(0.05, 5, 2);
  k.slowest_work = 4096;
  k.hung_min_work = 4112;
  auto l = h::case_limit(kind, 2, k, stats(3, 9), settings(), 4096);
  EXPECT_EQ(l.rule, "kind");
  EXPECT_DOUBLE_EQ(l.seconds, 10);
  EXPECT_NE(l.why.find("is less than the least of theirs"), std::string::npos) << l.why;
  l = h::case_limit(kind, 2, k, stats(3, 9), settings(), 4112);  // as large: the short limit
  EXPECT_EQ(l.rule, "hung");
  EXPECT_DOUBLE_EQ(l.seconds, 2);
  k.hung_min_work = 0;  // a hung case's work not known: the short limit for every case
  l = h::case_limit(kind, 2, k, stats(3, 9), settings(), 4096);
  EXPECT_EQ(l.rule, "hung");
}

TEST(CaseLimits, a_detect_case_whose_call_returned_the_error_gives_the_others_a_short_limit) {
  h::CaseLimit six{6, "kind", "max(10 s, ...); a DETECT case: at most 6 s", 4096};
  // The slowest MPI_Reduce case took 0.1 s: the others get max(0.5 s, 0.3 s)
  // from the moment this process's call returned, 0.5 s into the case
  // (whatever the hung floor: the wait changes no verdict).
  auto l = h::reported_limit(six, 0.5, "MPI_Reduce", 3, stats(0.1, 5));
  EXPECT_EQ(l.rule, "reported");
  EXPECT_DOUBLE_EQ(l.seconds, 1.0);
  EXPECT_NE(l.why.find("the others then had max(0.50 s, 3 x 0.10 s"), std::string::npos) << l.why;
  EXPECT_DOUBLE_EQ(l.work, 4096);
  EXPECT_NE(l.why.find("returned the error after 0.50 s"), std::string::npos) << l.why;
  EXPECT_NE(l.why.find("the slowest MPI_Reduce case that finished at 3 ranks"), std::string::npos)
      << l.why;
  EXPECT_NE(l.why.find("the rest of 6.00 s, kind"), std::string::npos) << l.why;
  // 3 x a slow kind's case beyond the floor.
  l = h::reported_limit(six, 0.5, "MPI_Reduce", 3, stats(1.0, 5));
  EXPECT_DOUBLE_EQ(l.seconds, 3.5);
  // A limit that ends sooner stays.
  l = h::reported_limit(six, 5.6, "MPI_Reduce", 3, stats(0.1, 5));
  EXPECT_EQ(l.rule, "kind");
  EXPECT_DOUBLE_EQ(l.seconds, 6);
  // No case of the kind finished yet: the floor.
  l = h::reported_limit(six, 0, "MPI_Reduce", 3, stats(0, 0));
  EXPECT_DOUBLE_EQ(l.seconds, 0.5);
}

TEST(CaseLimits, a_case_larger_than_the_one_a_limit_derives_from_gets_a_limit_scaled_by_its_work) {
  // The seen case of 4 KiB took 0.5 s; a case of 16 KiB (4 x) is not judged by
  // 5 s, nor by 20 s: a library's time may grow as the square of the data.
  h::KindStats kind = stats(0.5, 5);
  kind.slowest_work = 4096;
  auto l = h::case_limit("MPI_Ireduce_scatter_block", 8, kind, stats(1, 9), settings(3600), 16384);
  EXPECT_EQ(l.rule, "kind");
  EXPECT_DOUBLE_EQ(l.seconds, 10 * 0.5 * 16);
  EXPECT_NE(l.why.find("x 16.0 (the square of 4.0: this case's 16 KiB against that case's 4 KiB)"),
            std::string::npos)
      << l.why;
  EXPECT_DOUBLE_EQ(l.work, 16384);
  EXPECT_DOUBLE_EQ(l.to_json()["work"].get<double>(), 16384);
  // The first case of a kind: scaled against the slowest case of any kind.
  h::KindStats any = stats(0.49, 9);
  any.slowest_kind = "MPI_Reduce";
  any.slowest_work = 64 * 1024;
  l = h::case_limit("MPI_Ireduce_scatter_block", 8, {}, any, settings(20), 12.0 * (1 << 20));
  EXPECT_EQ(l.rule, "any");
  EXPECT_DOUBLE_EQ(l.seconds, 20);  // 10 x 0.49 s x 192^2, capped
  // A smaller case, or one whose work is not known, keeps the unscaled limit.
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 4, kind, {}, settings(), 1024).seconds, 10);
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 4, kind, {}, settings(), 0).seconds, 10);
  // After a hang too: 3 x the slowest finished case x the same ratio.
  kind.hung = 1;
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 4, kind, {}, settings(600), 40960).seconds,
                   3 * 0.5 * 10);
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 4, kind, {}, settings(600), 4096).seconds, 2);
}

TEST(CaseLimits, a_first_case_with_a_user_op_or_derived_datatype_counts_its_work_twenty_times) {
  // The sweep's false timeout: the first 1 MiB MPI_Reduce_init case with a
  // user op on a derived datatype, judged by the slowest case of another kind.
  h::KindStats any = stats(0.9, 40);
  any.slowest_kind = "MPI_Reduce_init";
  any.slowest_work = 8 << 20;
  const std::string kind = "MPI_Reduce_init with a user op on a derived datatype";
  auto l = h::case_limit(kind, 8, {}, any, settings(60), 1 << 20);
  EXPECT_EQ(l.rule, "any");
  EXPECT_DOUBLE_EQ(l.seconds, 10 * 0.9 * 2.5 * 2.5);  // 56.25 s, not the 10 s floor
  EXPECT_NE(l.why.find("x 6.2 (the square of 2.5: 20 x this case's 1.0 MiB, for a user op or "
                       "derived datatype that case had not, against that case's 8.0 MiB)"),
            std::string::npos)
      << l.why;
  // A light case of the kind stays at the floor; so does a case like its basis.
  EXPECT_DOUBLE_EQ(h::case_limit(kind, 8, {}, any, settings(60), 4096).seconds, 10);
  // Also against a light basis (issue #38: a 16-byte case, at the minimum
  // work, was counted 20 x that work, "from afar": 30 s); a heavier one is not
  // light.
  h::KindStats light = stats(0.002, 300);
  light.slowest_kind = "MPI_Allreduce";
  light.slowest_work = 4096;
  l = h::case_limit(kind, 2, {}, light, settings(60), 4096);
  EXPECT_EQ(l.rule, "any");
  EXPECT_DOUBLE_EQ(l.seconds, 10);
  EXPECT_DOUBLE_EQ(h::case_limit(kind, 2, {}, light, settings(60), 8192).seconds,
                   10 * 0.002 * 1600);
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce_init", 8, {}, any, settings(60), 1 << 20).seconds, 10);
  any.slowest_kind = "MPI_Reduce_init with a user op on a derived datatype";
  EXPECT_DOUBLE_EQ(h::case_limit(kind, 8, {}, any, settings(60), 1 << 20).seconds, 10);
  // Each word counts: a derived datatype the basis had not, with a user op both had.
  any.slowest_kind = "MPI_Reduce_init with a user op";
  EXPECT_DOUBLE_EQ(h::case_limit(kind, 8, {}, any, settings(60), 1 << 20).seconds, 56.25);
  // Rule fewer too, and never over the case timeout.
  h::KindStats fewer = stats(0.9, 40);
  fewer.slowest_kind = "MPI_Allreduce";
  fewer.slowest_work = 8 << 20;
  l = h::case_limit("MPI_Allreduce with a user op", 8, {}, {}, settings(60), 4 << 20, fewer, 4);
  EXPECT_EQ(l.rule, "fewer");
  EXPECT_DOUBLE_EQ(l.seconds, 60);  // 10 x 0.9 x 10^2 x 2, capped
  EXPECT_DOUBLE_EQ(
      h::case_limit("MPI_Allreduce", 8, {}, {}, settings(60), 4 << 20, fewer, 4).seconds, 18);
}

TEST(CaseLimits, a_limit_scales_as_the_square_of_the_work_and_from_afar_is_at_least_three_floors) {
  // The sweep's cases (MPICH 4.0.2, tsp_tree with 256-byte chunks, 8 ranks):
  // 64 KiB of the kind took 39 ms and 1 MiB takes 12 s (16 x the work, 300 x
  // the time); 16 KB took 5.5 ms and 1 MiB 5-12 s.
  h::KindStats kind = stats(0.039, 3);
  kind.slowest_work = 65536;
  const std::string k = "MPI_Allreduce_init with a user op on a derived datatype";
  auto l = h::case_limit(k, 8, kind, {}, settings(120), 1 << 20);
  EXPECT_EQ(l.rule, "kind");
  EXPECT_DOUBLE_EQ(l.seconds, 10 * 0.039 * 256);  // 99.8 s
  kind.slowest_s = 0.0055;
  kind.slowest_work = 16000;
  EXPECT_DOUBLE_EQ(h::case_limit(k, 8, kind, {}, settings(60), 1 << 20).seconds, 60);  // capped
  // A limit scaled from less than a sixteenth of the work is at least three floors.
  kind.slowest_s = 0.00001;
  l = h::case_limit(k, 8, kind, {}, settings(60), 1 << 20);
  EXPECT_DOUBLE_EQ(l.seconds, 30);
  EXPECT_NE(l.why.find(", raised to 3 x the floor, 30 s: a time scaled over more than 16 x the "
                       "work is a guess"),
            std::string::npos)
      << l.why;
  // 16 x the work is not a guess yet.
  EXPECT_DOUBLE_EQ(h::case_limit(k, 8, kind, {}, settings(60), 16 * 16000).seconds, 10);
  // Never over the case timeout; and rule hung keeps its short limit, scaled by the ratio itself.
  EXPECT_DOUBLE_EQ(h::case_limit(k, 8, kind, {}, settings(20), 1 << 20).seconds, 20);
  kind.slowest_s = 0.039;
  kind.slowest_work = 65536;
  kind.hung = 1;
  l = h::case_limit(k, 8, kind, {}, settings(60, 10, 1), 1 << 20);
  EXPECT_EQ(l.rule, "hung");
  EXPECT_DOUBLE_EQ(l.seconds, 3 * 0.039 * 16);
  // Rule any too.
  h::KindStats any = stats(0.00001, 3);
  any.slowest_kind = k;
  any.slowest_work = 16000;
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce_init", 8, {}, any, settings(60), 1 << 20).seconds, 30);
}

TEST(CaseLimits, a_cases_work_is_the_bytes_a_process_sends) {
  EXPECT_DOUBLE_EQ(h::case_work(65536, 4, false, 8, 1), 262144);
  EXPECT_DOUBLE_EQ(h::case_work(65536, 4, true, 8, 3), 65536.0 * 4 * 8 * 3);  // blocks, 3 calls
  EXPECT_DOUBLE_EQ(h::case_work(0, 4, false, 8, 1), h::LimitSettings::kMinWork);
  EXPECT_DOUBLE_EQ(h::case_work(-3, 4, false, 8, 1), h::LimitSettings::kMinWork);
}

TEST(CaseLimits, no_limit_exceeds_the_case_timeout) {
  const auto l = h::case_limit("MPI_Reduce", 4, stats(30, 5), stats(30, 9), settings(60));
  EXPECT_DOUBLE_EQ(l.seconds, 60);
  EXPECT_NE(l.why.find("capped at the case timeout"), std::string::npos) << l.why;
  EXPECT_DOUBLE_EQ(h::case_limit("MPI_Reduce", 4, stats(0.1, 5), {}, settings(5)).seconds, 5);
}

TEST(CaseLimits, the_runners_statistics_join_a_processs_own) {
  h::CaseStats s;
  s.load(h::Json::parse(
      R"({"kinds": {"MPI_Reduce": {"slowest_s": 0.5, "slowest_work": 8192, "finished": 3, "hung": 1,
                                                     "hung_min_work": 4112},
                                      "MPI_Scan": {"slowest_s": 0.2, "finished": 2, "hung": 0}}})"));
  EXPECT_EQ(s.of("MPI_Reduce").hung, 1);
  EXPECT_DOUBLE_EQ(s.of("MPI_Reduce").hung_min_work, 4112);
  EXPECT_EQ(s.any().finished, 5);
  EXPECT_EQ(s.any().slowest_kind, "MPI_Reduce");
  EXPECT_DOUBLE_EQ(s.any().slowest_work, 8192);
  s.finished("MPI_Scan", 0.9, 65536);
  EXPECT_EQ(s.of("MPI_Scan").finished, 3);
  EXPECT_DOUBLE_EQ(s.of("MPI_Scan").slowest_s, 0.9);
  EXPECT_DOUBLE_EQ(s.of("MPI_Scan").slowest_work, 65536);
  EXPECT_DOUBLE_EQ(s.any().slowest_work, 65536);
  s.finished("MPI_Scan", 0.3, 1 << 20);  // not the slowest: its work does not replace that case's
  EXPECT_DOUBLE_EQ(s.of("MPI_Scan").slowest_work, 65536);
  EXPECT_EQ(s.any().slowest_kind, "MPI_Scan");
  EXPECT_EQ(s.of("MPI_Exscan").finished, 0);
  h::CaseStats empty;
  empty.load(h::Json::parse("[1, 2]"));  // not the runner's file: nothing learnt
  EXPECT_EQ(empty.any().finished, 0);
}

// A user function and a derived datatype cost a library per pipeline chunk:
// their cases are kinds of their own (the Python twin: test_case_limits.py).
TEST(CaseLimits, a_kind_is_the_routine_with_user_ops_and_derived_datatypes_apart) {
  EXPECT_EQ(h::case_kind("MPI_Reduce", "MPI_SUM", "MPI_DOUBLE"), "MPI_Reduce");
  EXPECT_EQ(h::case_kind("MPI_Reduce_init", "witness.multiset", "contiguous(4,MPI_INT)"),
            "MPI_Reduce_init with a user op on a derived datatype");
  EXPECT_EQ(h::case_kind("MPI_Reduce", "MPI_SUM", "vector(2,1,3,MPI_INT)"),
            "MPI_Reduce on a derived datatype");
  EXPECT_EQ(h::case_kind("MPI_Allreduce", "user.sum", "MPI_INT"), "MPI_Allreduce with a user op");
}

TEST(CaseLimits, a_hang_key_is_the_routine_on_communicators_of_one_size_with_count_zero_apart) {
  EXPECT_EQ(h::hang_key("MPI_Reduce", "world", 4, 5), "MPI_Reduce on communicators of 4 processes");
  EXPECT_EQ(h::hang_key("MPI_Reduce", "reversed", 4, 7), h::hang_key("MPI_Reduce", "world", 4, 5));
  EXPECT_EQ(h::hang_key("MPI_Reduce", "world", 4, 0),
            "MPI_Reduce on communicators of 4 processes, count 0");
  EXPECT_EQ(h::hang_key("MPI_Reduce", "inter:1,3", 4, 5),
            "MPI_Reduce on intercommunicators of 4 processes");
  EXPECT_NE(h::hang_key("MPI_Ireduce", "world", 4, 5), h::hang_key("MPI_Reduce", "world", 4, 5));
  EXPECT_NE(h::hang_key("MPI_Reduce", "odd-even", 2, 5), h::hang_key("MPI_Reduce", "world", 4, 5));
  // An erroneous call (a DETECT check's) takes the argument checks, not the algorithm.
  EXPECT_EQ(h::hang_key("MPI_Reduce", "world", 4, 5, true),
            "MPI_Reduce on communicators of 4 processes, erroneous calls");
}

TEST(CaseLimits, cases_that_keep_hanging_are_held_back_and_one_in_1_4_16_of_them_still_runs) {
  EXPECT_EQ(h::hold_back_count(0), 0);
  EXPECT_EQ(h::hold_back_count(1), 0);  // one hang: every case still runs
  EXPECT_EQ(h::hold_back_count(2), 1);
  EXPECT_EQ(h::hold_back_count(3), 4);
  EXPECT_EQ(h::hold_back_count(4), 16);
  EXPECT_EQ(h::hold_back_count(1000), 1LL << 40);  // bounded
  h::CaseStats s;
  s.load(h::Json::parse(R"({"kinds": {}, "hang_streaks": {
      "MPI_Reduce on communicators of 4 processes": {"hung": 2, "skipped": 0,
                                                         "last": "Determinism.x#7 at 4 ranks"},
      "MPI_Scan on communicators of 4 processes": {"hung": 1, "skipped": 0, "last": "Determinism.x#3"},
      "MPI_Ireduce on communicators of 4 processes": {"hung": 3, "skipped": 2, "last": "D.x#9"}}})"));
  const std::string reduce = "MPI_Reduce on communicators of 4 processes";
  // Two hangs in a row: the next case is held back, the one after it runs.
  const std::string why = s.hold_back(reduce);
  EXPECT_EQ(why.rfind(h::kHeldBack, 0), 0u) << why;
  EXPECT_NE(why.find("the last 2 cases of MPI_Reduce on communicators of 4 processes that ran in "
                     "this run hung (the last: Determinism.x#7 at 4 ranks)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("1 of every 2"), std::string::npos) << why;
  EXPECT_NE(why.find("--run-hung-kinds"), std::string::npos) << why;
  EXPECT_EQ(s.streak(reduce)->skipped, 1);
  EXPECT_EQ(s.hold_back(reduce), "");  // the sample: does it still hang?
  // One hang is not a streak; another key is not held back by it.
  EXPECT_EQ(s.hold_back("MPI_Scan on communicators of 4 processes"), "");
  EXPECT_EQ(s.hold_back("MPI_Reduce on communicators of 4 processes, count 0"), "");
  EXPECT_EQ(s.hold_back("MPI_Reduce on communicators of 2 processes"), "");
  // Three hangs: four held back (two already, by an earlier launch), then one runs.
  const std::string ireduce = "MPI_Ireduce on communicators of 4 processes";
  EXPECT_NE(s.hold_back(ireduce), "");
  EXPECT_NE(s.hold_back(ireduce), "");
  EXPECT_EQ(s.hold_back(ireduce), "");
  // A case of the key that ran to its verdict ends the streak: the next one runs.
  s.ran(ireduce);
  EXPECT_EQ(s.streak(ireduce), nullptr);
  EXPECT_EQ(s.hold_back(ireduce), "");
}

TEST(CaseLimits, a_case_that_runs_while_its_key_keeps_hanging_gets_the_short_limit_of_a_probe) {
  const std::string key = "MPI_Reduce on communicators of 4 processes";
  h::HangStreak streak;
  streak.hung = 4;
  streak.last = "Buffers.x#9 at 4 ranks";
  h::KindStats any = stats(0.0022, 300);
  any.slowest_kind = "MPI_Reduce";
  any.slowest_work = 4096;
  // A first case of its kind, with a user op on a derived datatype: rule any
  // gives it 35 s (20 x the work, squared); as a probe of a key
  // that hung 4 times in a row, the hung floor decides.
  const std::string kind = "MPI_Reduce with a user op on a derived datatype";
  const h::CaseLimit first = h::case_limit(kind, 4, {}, any, settings(60, 10, 1), 8192);
  EXPECT_EQ(first.rule, "any");
  EXPECT_DOUBLE_EQ(first.seconds, 10 * 0.0022 * 40 * 40);
  auto l = h::probe_limit(first, key, streak, kind, 4, {}, any, settings(60, 10, 1));
  EXPECT_EQ(l.rule, "probe");
  EXPECT_DOUBLE_EQ(l.seconds, 1);
  EXPECT_DOUBLE_EQ(l.work, 8192);
  EXPECT_NE(l.why.find("the last 4 cases of MPI_Reduce on communicators of 4 processes that ran in "
                       "this run hung (the last: Buffers.x#9 at 4 ranks), none finished between"),
            std::string::npos)
      << l.why;
  EXPECT_NE(l.why.find("the slowest case that finished at 4 ranks in this run, of MPI_Reduce"),
            std::string::npos)
      << l.why;
  // Its own kind's slowest case, by the work's ratio itself: 3 x 0.5 s x 4.
  h::KindStats own = stats(0.5, 3);
  own.slowest_work = 1 << 20;
  const h::CaseLimit kind_limit = h::case_limit(kind, 4, own, any, settings(60, 10, 1), 4 << 20);
  l = h::probe_limit(kind_limit, key, streak, kind, 4, own, any, settings(60, 10, 1));
  EXPECT_EQ(l.rule, "probe");
  EXPECT_DOUBLE_EQ(l.seconds, 6);
  // The 20 x of a user op or derived datatype that the case of another kind had not.
  l = h::probe_limit(h::case_limit(kind, 4, {}, any, settings(60, 10, 1), 64 << 10), key, streak,
                     kind, 4, {}, any, settings(60, 10, 1));
  EXPECT_NEAR(l.seconds, 3 * 0.0022 * 20 * 16, 1e-9);
  // From fewer ranks when none finished at this rank count: x 4 / 3.
  h::KindStats fewer = stats(0.6, 20);
  fewer.slowest_kind = "MPI_Allreduce";
  l = h::probe_limit(h::case_limit(kind, 4, {}, {}, settings(60, 10, 1), 4096, fewer, 3), key,
                     streak, kind, 4, {}, {}, settings(60, 10, 1), fewer, 3);
  EXPECT_EQ(l.rule, "probe");
  EXPECT_NEAR(l.seconds, 3 * 0.6 * 4.0 / 3.0, 1e-9);  // a light case: not 20 x its work
  // Never longer than the limit it had; no probe below two hangs in a row,
  // nor with nothing finished to derive from.
  EXPECT_EQ(h::probe_limit(h::case_limit(kind, 4, {}, {}, settings(60, 10, 1), 4096, fewer, 3), key,
                           streak, kind, 4, {}, {}, settings(60, 10, 1), stats(100, 1), 3)
                .rule,
            "fewer");
  // One hang is not a streak: no probe, but rule "again" (its own test below).
  h::HangStreak once = streak;
  once.hung = 1;
  EXPECT_EQ(h::probe_limit(first, key, once, kind, 4, {}, any, settings(60, 10, 1)).rule, "again");
  h::HangStreak none = streak;
  none.hung = 0;
  EXPECT_EQ(h::probe_limit(first, key, none, kind, 4, {}, any, settings(60, 10, 1)).rule, "any");
  const h::CaseLimit timeout = h::case_limit(kind, 4, {}, {}, settings(60, 10, 1), 4096);
  EXPECT_EQ(h::probe_limit(timeout, key, streak, kind, 4, {}, {}, settings(60, 10, 1)).rule,
            "default");
}

// Issue #38: a library that hangs MPI_Reduce at one combination of count and
// root, on every communicator. The routine's other cases on those
// communicators finish between its hangs, so no hang key keeps hanging: the
// call key (routine in any form, count, root, on any communicator) does.
TEST(CaseLimits, a_call_key_is_the_routine_with_its_count_and_root_on_any_communicator) {
  EXPECT_EQ(h::call_key("MPI_Reduce", 7, 0, true),
            "MPI_Reduce in any form with count 7 and root 0");
  EXPECT_NE(h::call_key("MPI_Reduce", 7, 1, true), h::call_key("MPI_Reduce", 7, 0, true));
  EXPECT_NE(h::call_key("MPI_Reduce", 1000, 0, true), h::call_key("MPI_Reduce", 7, 0, true));
  // A routine without a root: its count only.
  EXPECT_EQ(h::call_key("MPI_Allreduce", 7, 0, false), "MPI_Allreduce in any form with count 7");
  EXPECT_EQ(h::call_key("MPI_Reduce", 7, 0, true, true),
            "MPI_Reduce in any form with count 7 and root 0, erroneous calls");
  // Its streak is held back as a hang key's: two hangs in a row, one held back, one runs.
  h::CaseStats s;
  s.load(h::Json::parse(R"({"kinds": {}, "hang_streaks": {
      "MPI_Reduce in any form with count 7 and root 0": {"hung": 2, "skipped": 0, "last": "Crossing.x#40 at 3 ranks"}}})"));
  const std::string why = s.hold_back("MPI_Reduce in any form with count 7 and root 0");
  EXPECT_NE(
      why.find(
          "the last 2 cases of MPI_Reduce in any form with count 7 and root 0 that ran in this run "
          "hung (the last: Crossing.x#40 at 3 ranks)"),
      std::string::npos)
      << why;
  EXPECT_EQ(s.hold_back("MPI_Reduce in any form with count 7 and root 0"), "");
  EXPECT_EQ(s.hold_back("MPI_Reduce in any form with count 7 and root 1"), "");
}

TEST(CaseLimits, a_case_of_a_key_whose_last_case_hung_gets_the_short_limit_again) {
  // The first MPI_Reduce case with a user op at 3 ranks; the last case with its
  // count and root hung at 2 ranks (as the kind's first case: rule any, 10 s).
  const std::string key = "MPI_Reduce in any form with count 7 and root 0";
  const std::string kind = "MPI_Reduce with a user op";
  h::KindStats any = stats(0.02, 500);
  any.slowest_kind = "MPI_Allreduce with a user op";
  any.slowest_work = 4096;
  const h::CaseLimit first = h::case_limit(kind, 3, {}, any, settings(60, 10, 1), 4096);
  EXPECT_EQ(first.rule, "any");
  EXPECT_DOUBLE_EQ(first.seconds, 10);
  h::HangStreak once;
  once.hung = 1;
  once.last = "Crossing.x#12 at 2 ranks";
  auto l = h::probe_limit(first, key, once, kind, 3, {}, any, settings(60, 10, 1));
  EXPECT_EQ(l.rule, "again");
  // max(1 s, 3 x 0.02 s): the hung floor.
  EXPECT_DOUBLE_EQ(l.seconds, 1);
  EXPECT_NE(
      l.why.find(
          "the last case of MPI_Reduce in any form with count 7 and root 0 that ran in this run "
          "hung (Crossing.x#12 at 2 ranks)"),
      std::string::npos)
      << l.why;
  // From its own kind when cases of it finished: 3 x 0.5 s, where rule kind gave max(10 s, 10 x 0.5
  // s).
  const h::CaseLimit kind_limit = h::case_limit(kind, 3, stats(0.5, 9), any, settings(60, 10, 1));
  EXPECT_EQ(kind_limit.rule, "kind");
  EXPECT_DOUBLE_EQ(kind_limit.seconds, 10);
  l = h::probe_limit(kind_limit, key, once, kind, 3, stats(0.5, 9), any, settings(60, 10, 1));
  EXPECT_EQ(l.rule, "again");
  EXPECT_DOUBLE_EQ(l.seconds, 1.5);
  // Never longer than the limit it had (a kind that hung: rule hung is as short).
  const h::CaseLimit hung = h::case_limit(kind, 3, stats(0.05, 9, 1), any, settings(60, 10, 1));
  EXPECT_EQ(
      h::probe_limit(hung, key, once, kind, 3, stats(0.05, 9, 1), any, settings(60, 10, 1)).rule,
      "hung");
}

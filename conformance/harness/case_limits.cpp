#include "case_limits.h"

#include <algorithm>
#include <cstdio>

namespace ordo::harness {
namespace {

std::string secs(double s) {
  char b[32];
  std::snprintf(b, sizeof b, s >= 10 ? "%.0f s" : (s >= 0.1 ? "%.2f s" : "%.4f s"), s);
  return b;
}

std::string bytes(double b) {
  char t[32];
  if (b >= 1 << 20)
    std::snprintf(t, sizeof t, "%.1f MiB", b / (1 << 20));
  else
    std::snprintf(t, sizeof t, "%.0f KiB", b / 1024);
  return t;
}

// Whether a case of `kind` has a user op or a derived datatype that the case
// of `basis_kind` a limit derives from had not (case_kind's words).
bool unlike(const std::string& kind, const std::string& basis_kind) {
  for (const char* words : {" with a user op", " on a derived datatype"})
    if (kind.find(words) != std::string::npos && basis_kind.find(words) == std::string::npos)
      return true;
  return false;
}

// How much larger this case is than the one a limit derives from (>= 1), and
// the words that say so ("" when it is not larger). A case with a user op or
// a derived datatype its basis had not (rules any and fewer) counts its work
// LimitSettings::kUnlikeFactor times. squared (rules kind, any and fewer):
// the square of that ratio, since a library's time may grow as the square
// of the data (LimitSettings::kFarWork).
double scale(double work, double basis_work, std::string* words, bool unlike_basis = false,
             bool squared = false) {
  const double w = std::max(work, LimitSettings::kMinWork);
  const double b = std::max(basis_work, LimitSettings::kMinWork);
  // A light case (at most kMinWork: its time is the call's fixed cost) is not
  // counted kUnlikeFactor times: a user function or a derived datatype costs
  // per byte. Before, 20 x the minimum work against a light basis was "from
  // afar" and gave a 16-byte case 30 s (issue #38: the first hang of the
  // default mutant run, MPI_Reduce with a user op on hvector(4,1,0,MPI_INT)).
  const double f =
      unlike_basis && work > LimitSettings::kMinWork ? LimitSettings::kUnlikeFactor : 1;
  if (work <= 0 || w * f <= b) return 1;
  const double r = w * f / b;
  char t[96];
  if (squared)
    std::snprintf(t, sizeof t, "%.1f (the square of %.1f: ", r * r, r);
  else
    std::snprintf(t, sizeof t, "%.1f (", r);
  char factor[64] = "";
  if (unlike_basis) std::snprintf(factor, sizeof factor, "%.0f x ", LimitSettings::kUnlikeFactor);
  *words = " x " + std::string(t) + factor + "this case's " + bytes(w) +
           (unlike_basis ? ", for a user op or derived datatype that case had not," : "") +
           " against that case's " + bytes(b) + ")";
  return squared ? r * r : r;
}

}  // namespace

double case_work(long long count, double type_size, bool scattering, int group_size, int calls) {
  double w = static_cast<double>(std::max(0LL, count)) * std::max(0.0, type_size);
  if (scattering) w *= std::max(1, group_size);
  w *= std::max(1, calls);
  return std::max(w, LimitSettings::kMinWork);
}

std::string case_kind(const std::string& routine, const std::string& op,
                      const std::string& datatype) {
  std::string kind = routine;
  if (op.rfind("MPI_", 0) != 0) kind += " with a user op";
  if (datatype.rfind("MPI_", 0) != 0) kind += " on a derived datatype";
  return kind;
}

CaseLimit case_limit(const std::string& kind, int ranks, const KindStats& of_kind,
                     const KindStats& any, const LimitSettings& settings, double work,
                     const KindStats& fewer, int fewer_ranks) {
  CaseLimit l;
  l.work = work;
  const std::string at = " at " + std::to_string(ranks) + " ranks";
  std::string larger;
  double s = 1;  // the work's scale under rules kind, any and fewer (squared)
  // A kind's short limit is for cases of at least the work of the least of its
  // cases that hung: a hang of large elements says nothing of a 16-byte case.
  const bool smaller_than_hung =
      of_kind.hung > 0 && of_kind.hung_min_work > 0 && work < of_kind.hung_min_work;
  if (of_kind.hung > 0 && !smaller_than_hung) {
    l.rule = "hung";
    const double hs = of_kind.finished ? scale(work, of_kind.slowest_work, &larger) : 1;
    l.seconds =
        std::max(settings.hung_floor_s, LimitSettings::kHungFactor * of_kind.slowest_s * hs);
    l.why =
        std::to_string(of_kind.hung) + " " + kind + " case(s) already timed out" + at +
        " in this run: max(" + secs(settings.hung_floor_s) + ", 3 x " +
        (of_kind.finished ? secs(of_kind.slowest_s) + ", the slowest that finished" + larger + ")"
                          : std::string("0 s: none finished)"));
  } else if (of_kind.finished > 0) {
    l.rule = "kind";
    s = scale(work, of_kind.slowest_work, &larger, false, true);
    l.seconds = std::max(settings.floor_s, LimitSettings::kFactor * of_kind.slowest_s * s);
    // The why names no count of cases: it would change with every case, and a
    // report of 100000 records compresses repeated sentences to almost nothing.
    l.why = "max(" + secs(settings.floor_s) + ", 10 x " + secs(of_kind.slowest_s) +
            ", the slowest " + kind + " case that finished" + at + " in this run" + larger + ")";
    if (smaller_than_hung)
      l.why += "; not the short limit of the kind's hung cases: this case's " + bytes(work) +
               " is less than the least of theirs, " + bytes(of_kind.hung_min_work);
  } else if (any.finished > 0) {
    l.rule = "any";
    s = scale(work, any.slowest_work, &larger, unlike(kind, any.slowest_kind), true);
    l.seconds = std::max(settings.floor_s, LimitSettings::kFactor * any.slowest_s * s);
    l.why = "no " + kind + " case finished yet" + at + ": max(" + secs(settings.floor_s) +
            ", 10 x " + secs(any.slowest_s) + ", the slowest case that finished" + at +
            " in this run, of " + any.slowest_kind + larger + ")";
  } else if (fewer.finished > 0 && fewer_ranks > 0 && fewer_ranks < ranks) {
    l.rule = "fewer";
    s = scale(work, fewer.slowest_work, &larger, unlike(kind, fewer.slowest_kind), true);
    const double r = static_cast<double>(ranks) / fewer_ranks;
    l.seconds = std::max(settings.floor_s, LimitSettings::kFactor * fewer.slowest_s * s * r);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f", r);
    l.why = "no case finished yet" + at + ": max(" + secs(settings.floor_s) + ", 10 x " +
            secs(fewer.slowest_s) + ", the slowest case that finished at " +
            std::to_string(fewer_ranks) + " ranks in this run, of " + fewer.slowest_kind + larger +
            " x " + ratio + " (" + std::to_string(ranks) + " ranks against " +
            std::to_string(fewer_ranks) + "))";
  } else {
    l.rule = "default";
    l.seconds = settings.case_timeout;
    l.why = "no case finished yet" + at + " in this run: the case timeout";
    return l;
  }
  if (s > LimitSettings::kFarWork * LimitSettings::kFarWork &&
      l.seconds < LimitSettings::kFarFloorFactor * settings.floor_s) {
    l.seconds = LimitSettings::kFarFloorFactor * settings.floor_s;
    char far[32];
    std::snprintf(far, sizeof far, "%.0f", LimitSettings::kFarWork);
    l.why += ", raised to 3 x the floor, " + secs(l.seconds) + ": a time scaled over more than " +
             far + " x the work is a guess";
  }
  if (l.seconds > settings.case_timeout) {
    l.seconds = settings.case_timeout;
    l.why += ", capped at the case timeout " + secs(settings.case_timeout);
  }
  return l;
}

CaseLimit reported_limit(const CaseLimit& current, double elapsed, const std::string& kind,
                         int ranks, const KindStats& of_kind) {
  std::string larger;
  const double s = of_kind.finished ? scale(current.work, of_kind.slowest_work, &larger) : 1;
  const double grace =
      std::max(LimitSettings::kReportedFloor, LimitSettings::kHungFactor * of_kind.slowest_s * s);
  if (elapsed + grace >= current.seconds) return current;
  CaseLimit l = current;
  l.rule = "reported";
  l.seconds = elapsed + grace;
  l.why = "a process's call returned the error after " + secs(elapsed) +
          "; the others then had max(" + secs(LimitSettings::kReportedFloor) + ", 3 x " +
          (of_kind.finished
               ? secs(of_kind.slowest_s) + ", the slowest " + kind + " case that finished at " +
                     std::to_string(ranks) + " ranks in this run" + larger + ")"
               : std::string("0 s: none finished)")) +
          " to return (the rest of " + secs(current.seconds) + ", " + current.rule + ")";
  return l;
}

CaseLimit probe_limit(const CaseLimit& current, const std::string& key, const HangStreak& streak,
                      const std::string& kind, int ranks, const KindStats& of_kind,
                      const KindStats& any, const LimitSettings& settings, const KindStats& fewer,
                      int fewer_ranks) {
  if (streak.hung < 1) return current;
  std::string larger, basis;
  double slowest = 0, s = 1;
  const std::string at = " at " + std::to_string(ranks) + " ranks in this run";
  if (of_kind.finished > 0) {
    s = scale(current.work, of_kind.slowest_work, &larger);
    slowest = of_kind.slowest_s;
    basis = "the slowest " + kind + " case that finished" + at + larger;
  } else if (any.finished > 0) {
    s = scale(current.work, any.slowest_work, &larger, unlike(kind, any.slowest_kind));
    slowest = any.slowest_s;
    basis = "the slowest case that finished" + at + ", of " + any.slowest_kind + larger;
  } else if (fewer.finished > 0 && fewer_ranks > 0 && fewer_ranks < ranks) {
    s = scale(current.work, fewer.slowest_work, &larger, unlike(kind, fewer.slowest_kind)) * ranks /
        fewer_ranks;
    slowest = fewer.slowest_s;
    basis = "the slowest case that finished at " + std::to_string(fewer_ranks) +
            " ranks in this run, of " + fewer.slowest_kind + larger + " x " +
            std::to_string(ranks) + " / " + std::to_string(fewer_ranks) + " ranks";
  } else {
    return current;
  }
  const double seconds = std::max(settings.hung_floor_s, LimitSettings::kHungFactor * slowest * s);
  if (seconds >= current.seconds) return current;
  CaseLimit l = current;
  l.seconds = seconds;
  const std::string of_it =
      secs(settings.hung_floor_s) + ", 3 x " + secs(slowest) + ", " + basis + ")";
  if (streak.hung >= kHoldBackAfter) {
    l.rule = "probe";
    l.why = "the last " + std::to_string(streak.hung) + " cases of " + key +
            " that ran in this run hung (the last: " + streak.last +
            "), none finished between; this one runs to see whether it still hangs: max(" + of_it;
  } else {
    l.rule = "again";
    l.why = "the last case of " + key + " that ran in this run hung (" + streak.last + "): max(" +
            of_it;
  }
  return l;
}

std::string hang_key(const std::string& routine, const std::string& comm, int comm_size,
                     long long count, bool erroneous) {
  return routine + " on " + (comm.rfind("inter", 0) == 0 ? "intercommunicators" : "communicators") +
         " of " + std::to_string(comm_size) + " processes" + (count == 0 ? ", count 0" : "") +
         (erroneous ? ", erroneous calls" : "");
}

std::string call_key(const std::string& routine, long long count, int root, bool rooted,
                     bool erroneous) {
  return routine + " in any form with count " + std::to_string(count) +
         (rooted ? " and root " + std::to_string(root) : std::string()) +
         (erroneous ? ", erroneous calls" : "");
}

long long hold_back_count(long long hung) {
  if (hung < kHoldBackAfter) return 0;
  return 1LL << std::min<long long>(2 * (hung - kHoldBackAfter), 40);
}

std::string CaseStats::hold_back(const std::string& key) {
  const auto it = streaks_.find(key);
  if (it == streaks_.end()) return "";
  HangStreak& s = it->second;
  const long long n = hold_back_count(s.hung);
  if (s.skipped >= n) return "";  // 0: not held back yet; else this one runs: does it still hang?
  s.skipped++;
  return std::string(kHeldBack) + ": the last " + std::to_string(s.hung) + " cases of " + key +
         " that ran in this run hung (the last: " + s.last +
         "), none finished between; ordo runs 1 of every " + std::to_string(n + 1) +
         " further ones until one finishes (`ordo run --run-hung-kinds` runs every case)";
}

const HangStreak* CaseStats::streak(const std::string& key) const {
  const auto it = streaks_.find(key);
  return it == streaks_.end() ? nullptr : &it->second;
}

void CaseStats::load(const Json& doc) {
  if (!doc.is_object()) return;
  if (doc.contains("fewer") && doc["fewer"].is_object()) {
    const Json& f = doc["fewer"];
    fewer_.slowest_s = f.value("slowest_s", 0.0);
    fewer_.slowest_work = f.value("slowest_work", 0.0);
    fewer_.slowest_kind = f.value("kind", std::string());
    fewer_.finished = f.value("finished", 0LL);
    fewer_ranks_ = f.value("ranks", 0);
  }
  if (doc.contains("hang_streaks") && doc["hang_streaks"].is_object()) {
    for (const auto& [key, s] : doc["hang_streaks"].items()) {
      if (!s.is_object()) continue;
      HangStreak h;
      h.hung = s.value("hung", 0LL);
      h.skipped = s.value("skipped", 0LL);
      h.last = s.value("last", std::string());
      if (h.hung > 0) streaks_[key] = h;
    }
  }
  if (!doc.contains("kinds") || !doc["kinds"].is_object()) return;
  for (const auto& [kind, s] : doc["kinds"].items()) {
    if (!s.is_object()) continue;
    KindStats k;
    k.slowest_s = s.value("slowest_s", 0.0);
    k.slowest_work = s.value("slowest_work", 0.0);
    k.finished = s.value("finished", 0LL);
    k.hung = s.value("hung", 0LL);
    k.hung_min_work = s.value("hung_min_work", 0.0);
    kinds_[kind] = k;
    any_.finished += k.finished;
    if (k.finished > 0 && (any_.slowest_kind.empty() || k.slowest_s > any_.slowest_s)) {
      any_.slowest_s = k.slowest_s;
      any_.slowest_work = k.slowest_work;
      any_.slowest_kind = kind;
    }
  }
}

void CaseStats::finished(const std::string& kind, double seconds, double work) {
  KindStats& k = kinds_[kind];
  k.finished++;
  if (k.finished == 1 || seconds > k.slowest_s) {
    k.slowest_s = seconds;
    k.slowest_work = work;
  }
  any_.finished++;
  if (any_.slowest_kind.empty() || seconds > any_.slowest_s) {
    any_.slowest_s = seconds;
    any_.slowest_work = work;
    any_.slowest_kind = kind;
  }
}

const KindStats& CaseStats::of(const std::string& kind) const {
  static const KindStats none;
  const auto it = kinds_.find(kind);
  return it == kinds_.end() ? none : it->second;
}

}  // namespace ordo::harness
